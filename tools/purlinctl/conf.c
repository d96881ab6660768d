// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: JSON configuration parse, check and emit, driven by the type
 * table so every object is handled by the same code.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf.h"
#include "print.h"

struct parse_ctx {
	const char *source;
};

static int parse_err(const struct parse_ctx *ctx, const char *where, const char *fmt,
		     const char *arg)
{
	if (*where)
		fprintf(pl_errs, "purlinctl: %s: %s: ", ctx->source, where);
	else
		fprintf(pl_errs, "purlinctl: %s: ", ctx->source);
	fprintf(pl_errs, fmt, arg);
	fputc('\n', pl_errs);
	return -EINVAL;
}

/* A JSON string, or an integer that nvmetcli would also have written via str(). */
static char *scalar_string(struct json_object *val, bool allow_string, bool allow_int)
{
	if (allow_string && json_object_is_type(val, json_type_string))
		return xstrdup(json_object_get_string(val));
	if (allow_int && json_object_is_type(val, json_type_int))
		return xasprintf("%" PRId64, json_object_get_int64(val));
	return NULL;
}

static int set_attr(const struct parse_ctx *ctx, struct pl_node *node, const char *where,
		    const char *file, char *value)
{
	const char *old = pl_get(node, file);
	int ret = 0;

	if (old && !pl_attr_equal(node->type, file, old, value))
		ret = parse_err(ctx, where, "'%s' is given twice with different values", file);
	else
		pl_set(node, file, value);
	free(value);
	return ret;
}

static int parse_group(const struct parse_ctx *ctx, struct pl_node *node, const char *where,
		       const char *group, struct json_object *obj)
{
	int ret = 0;

	if (!json_object_is_type(obj, json_type_object))
		return parse_err(ctx, where, "'%s' must be an object", group);
	json_object_object_foreach(obj, name, val) {
		char *value = scalar_string(val, true, true);
		char *file;

		if (!value)
			return parse_err(ctx, where, "attribute '%s' must be a string", name);
		if (pl_check_attr_name(name)) {
			free(value);
			return parse_err(ctx, where, "'%s' is not a valid attribute name", name);
		}
		file = xasprintf("%s_%s", group, name);
		ret = set_attr(ctx, node, where, file, value);
		free(file);
		if (ret)
			break;
	}
	return ret;
}

static int parse_links(const struct parse_ctx *ctx, struct pl_node *node, const char *where,
		       const char *key, struct json_object *arr)
{
	size_t n;

	if (!json_object_is_type(arr, json_type_array))
		return parse_err(ctx, where, "'%s' must be an array of strings", key);
	n = json_object_array_length(arr);
	for (size_t i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(arr, i);
		const char *name;

		if (!json_object_is_type(v, json_type_string))
			return parse_err(ctx, where, "'%s' must be an array of strings", key);
		name = json_object_get_string(v);
		if (strv_has(&node->links, name))
			return parse_err(ctx, where, "'%s' is listed twice", name);
		strv_add(&node->links, name);
	}
	return 0;
}

static int parse_node(const struct parse_ctx *ctx, enum pl_type type, struct json_object *obj,
		      struct pl_node *parent, const char *where);

static int parse_list(const struct parse_ctx *ctx, struct pl_node *node, const char *where,
		      enum pl_type type, struct json_object *arr)
{
	const char *key = pl_spec(type)->dir;
	size_t n;
	int ret = 0;

	if (!json_object_is_type(arr, json_type_array))
		return parse_err(ctx, where, "'%s' must be an array", key);
	n = json_object_array_length(arr);
	for (size_t i = 0; !ret && i < n; i++) {
		char *at = *where ? xasprintf("%s: %s[%zu]", where, key, i) :
				    xasprintf("%s[%zu]", key, i);

		ret = parse_node(ctx, type, json_object_array_get_idx(arr, i), node, at);
		free(at);
	}
	return ret;
}

static int parse_int_key(const struct parse_ctx *ctx, struct pl_node *node, const char *where,
			 const char *key, struct json_object *val)
{
	char *value = scalar_string(val, false, true);

	if (!value)
		return parse_err(ctx, where, "'%s' must be an integer", key);
	return set_attr(ctx, node, where, key, value);
}

static bool is_kid_key(enum pl_type type, const char *key, enum pl_type *kid)
{
	const struct pl_type_spec *spec = pl_spec(type);

	for (size_t k = 0; k < spec->nkids; k++) {
		if (!strcmp(pl_spec(spec->kids[k])->dir, key)) {
			*kid = spec->kids[k];
			return true;
		}
	}
	return false;
}

static bool in_list(const char *const *list, const char *key)
{
	for (; list && *list; list++)
		if (!strcmp(*list, key))
			return true;
	return false;
}

/*
 * nvmetcli saves "passthru": [{"device": {"path": ...}, "enable": N, ...}]
 * for every subsystem of an nvmet with NVMe passthrough built in, mostly
 * unused. purlinctl restores no passthrough (Purlin has none): taken, and
 * said when one is in use.
 */
static int parse_passthru(const struct parse_ctx *ctx, const struct pl_node *node,
			  const char *where, struct json_object *arr)
{
	size_t n;

	if (!json_object_is_type(arr, json_type_array))
		return parse_err(ctx, where, "'%s' must be an array", "passthru");
	n = json_object_array_length(arr);
	for (size_t i = 0; i < n; i++) {
		struct json_object *pt = json_object_array_get_idx(arr, i), *v, *dev;
		const char *path = "";

		if (!json_object_is_type(pt, json_type_object))
			return parse_err(ctx, where, "'%s' must be an array of objects", "passthru");
		if (json_object_object_get_ex(pt, "device", &dev) &&
		    json_object_object_get_ex(dev, "path", &v) &&
		    json_object_is_type(v, json_type_string))
			path = json_object_get_string(v);
		if (*path || (json_object_object_get_ex(pt, "enable", &v) && json_object_get_int(v)))
			pl_err("%s: warning: subsys %s: passthru (nvmet's NVMe passthrough of '%s') is not restored by purlinctl: not applied",
			       ctx->source, node->id, path);
	}
	return 0;
}

static int parse_member(const struct parse_ctx *ctx, struct pl_node *node, const char *where,
			const char *key, struct json_object *val)
{
	const struct pl_type_spec *spec = pl_spec(node->type);
	enum pl_type kid;

	if (node->type == PL_SUBSYS && !strcmp(key, "passthru"))
		return parse_passthru(ctx, node, where, val);
	if (spec->json_id && !strcmp(key, spec->json_id))
		return 0;
	if (in_list(spec->groups, key))
		return parse_group(ctx, node, where, key, val);
	if (in_list(spec->int_keys, key))
		return parse_int_key(ctx, node, where, key, val);
	if (is_kid_key(node->type, key, &kid))
		return parse_list(ctx, node, where, kid, val);
	if (spec->link_dir && !strcmp(key, spec->link_dir))
		return parse_links(ctx, node, where, key, val);
	return parse_err(ctx, where, "unknown key '%s'", key);
}

static char *parse_id(const struct parse_ctx *ctx, enum pl_type type, struct json_object *obj,
		      const char *where)
{
	const struct pl_type_spec *spec = pl_spec(type);
	struct json_object *val;
	char *id;

	if (!json_object_object_get_ex(obj, spec->json_id, &val)) {
		parse_err(ctx, where, "missing key '%s'", spec->json_id);
		return NULL;
	}
	id = scalar_string(val, !spec->numeric_id, spec->numeric_id);
	/* Numbers may also be written as decimal strings, as for attributes. */
	if (!id && spec->numeric_id && json_object_is_type(val, json_type_string)) {
		const char *s = json_object_get_string(val);

		if (*s && strspn(s, "0123456789") == strlen(s) && strlen(s) <= 10)
			id = xstrdup(s);
	}
	if (!id)
		parse_err(ctx, where, spec->numeric_id ? "'%s' must be an integer" :
			  "'%s' must be a string", spec->json_id);
	return id;
}

static int parse_node(const struct parse_ctx *ctx, enum pl_type type, struct json_object *obj,
		      struct pl_node *parent, const char *where)
{
	struct pl_node *node;
	char *id, *label;
	int ret = 0;

	if (!json_object_is_type(obj, json_type_object))
		return parse_err(ctx, where, "%s", "must be an object");
	id = parse_id(ctx, type, obj, where);
	if (!id)
		return -EINVAL;
	if (pl_find(parent, type, id)) {
		label = xasprintf("duplicate %s '%%s'", pl_spec(type)->label);
		ret = parse_err(ctx, where, label, id);
		free(label);
		free(id);
		return ret;
	}
	node = pl_node_new(type, id, parent);
	free(id);
	label = pl_node_label(node);
	json_object_object_foreach(obj, key, val) {
		ret = parse_member(ctx, node, label, key, val);
		if (ret)
			break;
	}
	free(label);
	return ret;
}

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/*
 * What went wrong, in words about the document rather than the parser's;
 * at is the character the parser stopped at, prev the last non-blank one
 * before it.
 */
static const char *syntax_why(enum json_tokener_error err, char at, char prev)
{
	if (prev == ',' && (at == '}' || at == ']'))
		return "a comma before a closing bracket (trailing commas are not JSON)";
	switch (err) {
	case json_tokener_continue:
	case json_tokener_error_parse_eof:
		return "the document ends before it is complete";
	case json_tokener_error_parse_null:
	case json_tokener_error_parse_boolean:
	case json_tokener_error_parse_number:
		return "a word that is not a number, true, false or null (strings take double quotes)";
	case json_tokener_error_parse_array:
		return "an array needs ',' between its values and a closing ']'";
	case json_tokener_error_parse_object_key_name:
		return "an object key must be a string in double quotes";
	case json_tokener_error_parse_object_key_sep:
		return "':' missing after an object key";
	case json_tokener_error_parse_object_value_sep:
		return "',' or '}' missing after an object value";
	case json_tokener_error_parse_string:
		return "a bad string (control character or escape)";
	case json_tokener_error_parse_utf8_string:
		return "a string that is not UTF-8";
	case json_tokener_error_depth:
		return "nested too deeply";
	default:
		return "a character that cannot stand here";
	}
}

static void report_syntax(const char *source, const char *text, struct json_tokener *tok)
{
	size_t off = json_tokener_get_parse_end(tok), len = strlen(text);
	unsigned int line = 1, col = 1;
	char at, prev = '\0';

	if (off > len)
		off = len;
	for (size_t i = 0; i < off; i++) {
		if (!strchr(" \t\r\n", text[i]))
			prev = text[i];
		if (text[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	at = text[off];
	if (at > 0x20 && at < 0x7f)
		pl_err("%s: line %u, column %u (at '%c'): invalid JSON: %s", source, line, col, at,
		       syntax_why(json_tokener_get_error(tok), at, prev));
	else
		pl_err("%s: line %u, column %u: invalid JSON: %s", source, line, col,
		       syntax_why(json_tokener_get_error(tok), at, prev));
}

int pl_conf_parse(const char *text, const char *source, struct pl_node **root)
{
	struct parse_ctx ctx = { .source = source };
	struct json_tokener *tok = json_tokener_new();
	struct json_object *obj;
	struct pl_node *tree = NULL;
	size_t len = strlen(text);
	int ret;

	/* As nvmetcli (Python's json): no trailing commas, no single quotes. */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
	obj = json_tokener_parse_ex(tok, text, len + 1);
	if (!obj || json_tokener_get_parse_end(tok) +
		    strspn(text + min_size(json_tokener_get_parse_end(tok), len), " \t\r\n") < len) {
		if (obj)
			pl_err("%s: trailing data after the JSON document", source);
		else
			report_syntax(source, text, tok);
		json_object_put(obj);
		json_tokener_free(tok);
		return -EINVAL;
	}
	json_tokener_free(tok);
	if (!json_object_is_type(obj, json_type_object)) {
		json_object_put(obj);
		pl_err("%s: the document must be a JSON object", source);
		return -EINVAL;
	}
	tree = pl_node_new(PL_ROOT, NULL, NULL);
	ret = 0;
	json_object_object_foreach(obj, key, val) {
		ret = parse_member(&ctx, tree, "", key, val);
		if (ret)
			break;
	}
	json_object_put(obj);
	if (ret) {
		pl_node_free(tree);
		return ret;
	}
	*root = tree;
	return 0;
}

static int read_stream(FILE *f, char **out)
{
	size_t cap = 4096, len = 0;
	char *buf = xmalloc(cap);

	for (;;) {
		size_t n = fread(buf + len, 1, cap - len - 1, f);

		len += n;
		if (len + 1 < cap)
			break;
		cap *= 2;
		buf = xrealloc(buf, cap);
	}
	if (ferror(f)) {
		free(buf);
		return -EIO;
	}
	buf[len] = '\0';
	if (strlen(buf) != len) {
		free(buf);
		return -EILSEQ;
	}
	*out = buf;
	return 0;
}

/* Does any host of the tree carry a DH-HMAC-CHAP key? */
static bool has_secrets(const struct pl_node *root)
{
	const struct pl_nodes *hosts = &root->kids[0];

	for (size_t i = 0; i < hosts->n; i++) {
		const char *k = pl_get(hosts->v[i], "dhchap_key");
		const char *c = pl_get(hosts->v[i], "dhchap_ctrl_key");

		if ((k && *k) || (c && *c))
			return true;
	}
	return false;
}

int pl_conf_load(const char *file, struct pl_node **root)
{
	bool std = !strcmp(file, "-");
	FILE *f = std ? stdin : fopen(file, "re");
	const char *source = std ? "<stdin>" : file;
	char *text;
	int ret;

	if (!f) {
		ret = -errno;
		pl_err_obj(file, "open", -ret);
		return ret;
	}
	struct stat st = { 0 };

	if (!std) {
		if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
			fclose(f);
			pl_err("%s: is a directory, not a configuration file", file);
			return -EISDIR;
		}
	}
	ret = read_stream(f, &text);
	if (!std)
		fclose(f);
	if (ret) {
		pl_err_obj(source, "read", -ret);
		return ret;
	}
	ret = pl_conf_parse(text, source, root);
	free(text);
	if (!ret && (st.st_mode & 077) && has_secrets(*root))
		pl_err("warning: %s holds DH-HMAC-CHAP secrets and is readable by others (mode %04o); chmod 600 it",
		       file, (unsigned int)(st.st_mode & 07777));
	return ret;
}

/* ---- checking ---- */

bool pl_conf_allow_unknown;

struct check_ctx {
	const char *source;
	const struct pl_node *root;
	const struct pl_node *live;
	int errors;
};

static void check_err(struct check_ctx *ctx, const struct pl_node *node, const char *field,
		      const char *why)
{
	char *label = node->parent ? pl_node_label(node) : xstrdup("target");

	if (field)
		pl_err("%s: %s: %s %s", ctx->source, label, field, why);
	else
		pl_err("%s: %s: %s", ctx->source, label, why);
	free(label);
	ctx->errors++;
}

static bool link_resolves(const struct check_ctx *ctx, enum pl_type target, const char *name)
{
	if (pl_find(ctx->root, target, name))
		return true;
	return ctx->live && pl_find(ctx->live, target, name);
}

/* The node at the same place in other (the live tree), or NULL. */
static const struct pl_node *same_place(const struct pl_node *other, const struct pl_node *node)
{
	const struct pl_node *parent;

	if (!node->parent)
		return other;
	parent = same_place(other, node->parent);
	return parent ? pl_find(parent, node->type, node->id) : NULL;
}

/* Does Purlin or nvmet have file, or this target (any object of the type)? */
static bool known_attr(const struct check_ctx *ctx, const struct pl_node *node, const char *file)
{
	const struct pl_node *have = ctx->live ? same_place(ctx->live, node) : NULL;

	return pl_attr_spec(node->type, file) || (have && pl_get(have, file));
}

static void check_node(struct check_ctx *ctx, const struct pl_node *node)
{
	const struct pl_type_spec *spec = pl_spec(node->type);
	const char *why, *field = NULL;

	if (spec->check_id && (why = spec->check_id(node->id)))
		check_err(ctx, node, spec->json_id, why);
	else if (spec->warn_id && (why = spec->warn_id(node->id)) &&
		 !(ctx->live && pl_find(ctx->live, node->type, node->id)))
		pl_err("%s: warning: %s %s '%s' %s (Linux accepts it; the NVMe specification does not)",
		       ctx->source, spec->label, spec->json_id, node->id, why);
	for (size_t i = 0; i < node->attrs.n; i++) {
		const struct pl_kv *kv = &node->attrs.v[i];

		if (*kv->value && (why = pl_attr_check(node->type, kv->name, kv->value)))
			check_err(ctx, node, kv->name, why);
		else if (!pl_conf_allow_unknown && !known_attr(ctx, node, kv->name))
			check_err(ctx, node, kv->name,
				  "is an attribute neither Purlin nor nvmet has (a typo?); 'restore FILE --force' writes it anyway");
	}
	if (spec->check && (why = spec->check(node, &field)))
		check_err(ctx, node, field, why);
	/* the discovery NQN cannot be the name of a subsystem the target has either */
	if (node->type == PL_ROOT && ctx->live && (why = pl_get(node, "discovery_nqn")) &&
	    strcmp(why, PL_DISCOVERY_NQN) && pl_find(ctx->live, PL_SUBSYS, why))
		check_err(ctx, node, "discovery_nqn",
			  "names a subsystem of the target: the discovery NQN must be a name of its own");
	for (size_t i = 0; i < node->links.n; i++) {
		if (link_resolves(ctx, spec->link_target, node->links.v[i]))
			continue;
		char *why2 = xasprintf("names %s '%s', which is not defined",
				       pl_spec(spec->link_target)->label, node->links.v[i]);

		check_err(ctx, node, spec->link_dir, why2);
		free(why2);
	}
	for (size_t k = 0; k < spec->nkids; k++)
		for (size_t i = 0; i < node->kids[k].n; i++)
			check_node(ctx, node->kids[k].v[i]);
}

int pl_conf_check(const struct pl_node *root, const struct pl_node *live, const char *source)
{
	struct check_ctx ctx = { .source = source, .root = root, .live = live };

	check_node(&ctx, root);
	return ctx.errors ? -EINVAL : 0;
}

/* ---- emitting ---- */

static int cmp_key(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A copy of obj with every object's keys in sorted order, as nvmetcli writes. */
static struct json_object *sorted_copy(struct json_object *obj)
{
	struct json_object *out;
	struct strv keys = { 0 };

	if (json_object_is_type(obj, json_type_array)) {
		size_t n = json_object_array_length(obj);

		out = json_object_new_array();
		for (size_t i = 0; i < n; i++)
			json_object_array_add(out, sorted_copy(json_object_array_get_idx(obj, i)));
		return out;
	}
	if (!json_object_is_type(obj, json_type_object))
		return json_object_get(obj);
	json_object_object_foreach(obj, key, val) {
		(void)val;
		strv_add(&keys, key);
	}
	if (keys.n > 1)
		qsort(keys.v, keys.n, sizeof(*keys.v), cmp_key);
	out = json_object_new_object();
	for (size_t i = 0; i < keys.n; i++)
		json_object_object_add(out, keys.v[i],
				       sorted_copy(json_object_object_get(obj, keys.v[i])));
	strv_free(&keys);
	return out;
}

static struct json_object *id_json(const struct pl_node *node)
{
	long long v;

	if (pl_spec(node->type)->numeric_id && pl_parse_long(node->id, 10, &v))
		return json_object_new_int64(v);
	return json_object_new_string(node->id);
}

static void add_groups(struct json_object *obj, const struct pl_node *node)
{
	const char *const *g = pl_spec(node->type)->groups;

	for (; g && *g; g++) {
		struct json_object *grp = json_object_new_object();
		size_t len = strlen(*g);

		for (size_t i = 0; i < node->attrs.n; i++) {
			const struct pl_kv *kv = &node->attrs.v[i];

			if (pl_attr_group(node->type, kv->name) == *g)
				json_object_object_add(grp, kv->name + len + 1,
						       json_object_new_string(kv->value));
		}
		if (json_object_object_length(grp))
			json_object_object_add(obj, *g, grp);
		else
			json_object_put(grp);
	}
}

static void add_int_keys(struct json_object *obj, const struct pl_node *node)
{
	const char *const *k = pl_spec(node->type)->int_keys;
	const char *val;
	long long v;

	for (; k && *k; k++)
		if ((val = pl_get(node, *k)) && pl_parse_long(val, 10, &v))
			json_object_object_add(obj, *k, json_object_new_int64(v));
}

static struct json_object *node_json(const struct pl_node *node)
{
	const struct pl_type_spec *spec = pl_spec(node->type);
	struct json_object *obj = json_object_new_object();

	if (spec->json_id)
		json_object_object_add(obj, spec->json_id, id_json(node));
	add_groups(obj, node);
	add_int_keys(obj, node);
	for (size_t k = 0; k < spec->nkids; k++) {
		struct json_object *arr = json_object_new_array();

		for (size_t i = 0; i < node->kids[k].n; i++)
			json_object_array_add(arr, node_json(node->kids[k].v[i]));
		json_object_object_add(obj, pl_spec(spec->kids[k])->dir, arr);
	}
	if (spec->link_dir) {
		struct json_object *arr = json_object_new_array();

		for (size_t i = 0; i < node->links.n; i++)
			json_object_array_add(arr, json_object_new_string(node->links.v[i]));
		json_object_object_add(obj, spec->link_dir, arr);
	}
	return obj;
}

struct json_object *pl_conf_node_json(const struct pl_node *node)
{
	struct json_object *raw = node_json(node);
	struct json_object *out = sorted_copy(raw);

	json_object_put(raw);
	return out;
}

char *pl_conf_dump(const struct pl_node *root)
{
	struct json_object *obj = pl_conf_node_json(root);
	char *text = pl_json_text(obj);

	json_object_put(obj);
	return text;
}

int pl_conf_save(const struct pl_node *root, const char *file)
{
	char *text = pl_conf_dump(root);
	int ret = 0;

	if (!strcmp(file, "-")) {
		fputs(text, pl_out);
		if (fflush(pl_out))
			ret = -errno;
	} else {
		ret = pl_write_atomic(file, text, 0600);
	}
	if (ret)
		pl_err_obj(file, "save", -ret);
	free(text);
	return ret;
}
