// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: generic operations on the configuration tree.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model.h"

const struct pl_attr_spec *pl_attr_spec(enum pl_type type, const char *file)
{
	const struct pl_attr_spec *a = pl_spec(type)->attrs;

	for (; a && a->file; a++)
		if (!strcmp(a->file, file))
			return a;
	return NULL;
}

const char *pl_attr_group(enum pl_type type, const char *file)
{
	const char *const *g = pl_spec(type)->groups;

	for (; g && *g; g++) {
		size_t len = strlen(*g);

		if (!strncmp(file, *g, len) && file[len] == '_' && file[len + 1])
			return *g;
	}
	return NULL;
}

bool pl_is_int_key(enum pl_type type, const char *file)
{
	const char *const *k = pl_spec(type)->int_keys;

	for (; k && *k; k++)
		if (!strcmp(*k, file))
			return true;
	return false;
}

static void hex_only(char *out, const char *in, size_t cap)
{
	size_t n = 0;

	for (; *in && n + 1 < cap; in++)
		if (isxdigit((unsigned char)*in))
			out[n++] = tolower((unsigned char)*in);
	out[n] = '\0';
}

/*
 * Port parameters where -1 asks for the default: Purlin stores and shows
 * the default's number instead (nvmet shows -1 itself), so a wanted -1 is
 * met by that number.  These are the kernel's PURLIN_DEF_* values
 * (drivers/purlin.h); the "read ports/... param_*" lines of
 * tests/vm/data/configfs-ops.txt, replayed on the real kernel, catch a
 * change there.
 */
static long long minus1_default(enum pl_type type, const char *file)
{
	static const struct {
		const char *file;
		long long value;
	} defaults[] = {
		{ "param_inline_data_size", 4096 },
		{ "param_max_queue_size", 128 },
		{ "param_max_pending", 64 },
		{ "param_max_pending_per_addr", 16 },
		{ "param_connect_timeout_ms", 10000 },
		{ "param_poll_usecs", 50 },
		{ "param_srq_size", 0 },
	};

	if (type != PL_PORT)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(defaults); i++)
		if (!strcmp(defaults[i].file, file))
			return defaults[i].value;
	return -1;
}

/* The same CPUs, however the lists are written; lists that do not parse as strings. */
static bool cpus_equal(const char *a, const char *b)
{
	const size_t len = (PL_CPU_MAX + 1) / 8;
	unsigned char *set = xcalloc(2, len);
	bool equal;

	if (pl_parse_cpulist(a, set) && pl_parse_cpulist(b, set + len))
		equal = !memcmp(set, set + len, len);
	else
		equal = !strcmp(a, b);
	free(set);
	return equal;
}

bool pl_attr_empty_is_value(enum pl_type type, const char *file)
{
	const struct pl_attr_spec *spec = pl_attr_spec(type, file);

	/* An empty CPU list, or no resv_file: values that clear, not "unset". */
	return spec && (spec->cmp == PL_CMP_CPUS ||
			(type == PL_NS && !strcmp(file, "resv_file")));
}

bool pl_attr_equal(enum pl_type type, const char *file, const char *a, const char *b)
{
	const struct pl_attr_spec *spec = pl_attr_spec(type, file);
	long long x, y;
	char ha[64], hb[64];

	switch (spec ? spec->cmp : PL_CMP_STR) {
	case PL_CMP_NUM:
		if (pl_parse_long(a, 0, &x) && pl_parse_long(b, 0, &y))
			return x == y || (x == -1 && y == minus1_default(type, file));
		break;
	case PL_CMP_HEX:
		hex_only(ha, a, sizeof(ha));
		hex_only(hb, b, sizeof(hb));
		return !strcmp(ha, hb);
	case PL_CMP_CPUS:
		return cpus_equal(a, b);
	case PL_CMP_STR:
		break;
	}
	return !strcmp(a, b);
}

const char *pl_attr_check(enum pl_type type, const char *file, const char *value)
{
	const struct pl_attr_spec *spec = pl_attr_spec(type, file);
	const char *why = pl_attr_multiline(type, file) ? pl_check_attr_text(value) :
			  pl_check_attr_value(value);

	if (!why && spec && spec->check)
		why = spec->check(value);
	return why;
}

enum pl_type pl_parent_type(enum pl_type type)
{
	for (int t = 0; t < PL_NTYPES; t++) {
		const struct pl_type_spec *spec = pl_spec(t);

		for (size_t k = 0; k < spec->nkids; k++)
			if (spec->kids[k] == type)
				return t;
	}
	return PL_ROOT;
}

struct pl_nodes *pl_kids(struct pl_node *node, enum pl_type type)
{
	const struct pl_type_spec *spec = pl_spec(node->type);

	for (size_t i = 0; i < spec->nkids; i++)
		if (spec->kids[i] == type)
			return &node->kids[i];
	return NULL;
}

struct pl_node *pl_node_new(enum pl_type type, const char *id, struct pl_node *parent)
{
	struct pl_node *node = xcalloc(1, sizeof(*node));
	struct pl_nodes *list;

	node->type = type;
	node->id = xstrdup(id ? id : "");
	node->parent = parent;
	if (parent) {
		list = pl_kids(parent, type);
		list->v = xrealloc(list->v, (list->n + 1) * sizeof(*list->v));
		list->v[list->n++] = node;
	}
	return node;
}

void pl_node_free(struct pl_node *node)
{
	if (!node)
		return;
	for (size_t k = 0; k < PL_MAX_KIDS; k++) {
		for (size_t i = 0; i < node->kids[k].n; i++)
			pl_node_free(node->kids[k].v[i]);
		free(node->kids[k].v);
	}
	for (size_t i = 0; i < node->attrs.n; i++) {
		free(node->attrs.v[i].name);
		free(node->attrs.v[i].value);
	}
	free(node->attrs.v);
	strv_free(&node->links);
	free(node->id);
	free(node);
}

void pl_node_remove(struct pl_node *node)
{
	struct pl_nodes *list = node->parent ? pl_kids(node->parent, node->type) : NULL;

	for (size_t i = 0; list && i < list->n; i++) {
		if (list->v[i] != node)
			continue;
		memmove(&list->v[i], &list->v[i + 1], (list->n - i - 1) * sizeof(*list->v));
		list->n--;
		break;
	}
	pl_node_free(node);
}

struct pl_node *pl_find(const struct pl_node *parent, enum pl_type type, const char *id)
{
	struct pl_nodes *list = pl_kids((struct pl_node *)parent, type);

	for (size_t i = 0; list && i < list->n; i++)
		if (!strcmp(list->v[i]->id, id))
			return list->v[i];
	return NULL;
}

struct pl_node *pl_root_of(struct pl_node *node)
{
	while (node->parent)
		node = node->parent;
	return node;
}

static struct pl_kv *find_kv(const struct pl_node *node, const char *file)
{
	for (size_t i = 0; i < node->attrs.n; i++)
		if (!strcmp(node->attrs.v[i].name, file))
			return &node->attrs.v[i];
	return NULL;
}

const char *pl_get(const struct pl_node *node, const char *file)
{
	struct pl_kv *kv = find_kv(node, file);

	return kv ? kv->value : NULL;
}

void pl_set(struct pl_node *node, const char *file, const char *value)
{
	struct pl_kv *kv = find_kv(node, file);

	if (kv) {
		free(kv->value);
		kv->value = xstrdup(value);
		return;
	}
	node->attrs.v = xrealloc(node->attrs.v, (node->attrs.n + 1) * sizeof(*node->attrs.v));
	kv = &node->attrs.v[node->attrs.n++];
	kv->name = xstrdup(file);
	kv->value = xstrdup(value);
}

bool pl_unset(struct pl_node *node, const char *file)
{
	struct pl_kv *kv = find_kv(node, file);
	size_t i;

	if (!kv)
		return false;
	i = kv - node->attrs.v;
	free(kv->name);
	free(kv->value);
	memmove(kv, kv + 1, (node->attrs.n - i - 1) * sizeof(*kv));
	node->attrs.n--;
	return true;
}

char *pl_node_path(const struct pl_node *node)
{
	char *parent, *path;

	if (!node->parent)
		return xstrdup("");
	parent = pl_node_path(node->parent);
	path = xasprintf("%s%s%s/%s", parent, *parent ? "/" : "", pl_spec(node->type)->dir,
			 node->id);
	free(parent);
	return path;
}

char *pl_node_label(const struct pl_node *node)
{
	char *parent, *label;

	if (!node->parent || !node->parent->parent)
		return xasprintf("%s %s", pl_spec(node->type)->label, node->id);
	parent = pl_node_label(node->parent);
	label = xasprintf("%s %s %s", parent, pl_spec(node->type)->label, node->id);
	free(parent);
	return label;
}

char *pl_link_target(const struct pl_node *node, const char *name)
{
	return xasprintf("%s/%s", pl_spec(pl_spec(node->type)->link_target)->dir, name);
}

char *pl_link_path(const struct pl_node *node, const char *name)
{
	char *path = pl_node_path(node);
	char *link = xasprintf("%s/%s/%s", path, pl_spec(node->type)->link_dir, name);

	free(path);
	return link;
}

static int cmp_node(const void *a, const void *b)
{
	const struct pl_node *x = *(struct pl_node *const *)a;
	const struct pl_node *y = *(struct pl_node *const *)b;

	if (pl_spec(x->type)->numeric_id) {
		long long u = strtoll(x->id, NULL, 10), v = strtoll(y->id, NULL, 10);

		if (u != v)
			return u < v ? -1 : 1;
	}
	return strcmp(x->id, y->id);
}

static int cmp_kv(const void *a, const void *b)
{
	return strcmp(((const struct pl_kv *)a)->name, ((const struct pl_kv *)b)->name);
}

void pl_sort(struct pl_node *node)
{
	for (size_t k = 0; k < PL_MAX_KIDS; k++) {
		struct pl_nodes *list = &node->kids[k];

		if (list->n > 1)
			qsort(list->v, list->n, sizeof(*list->v), cmp_node);
		for (size_t i = 0; i < list->n; i++)
			pl_sort(list->v[i]);
	}
	if (node->attrs.n > 1)
		qsort(node->attrs.v, node->attrs.n, sizeof(*node->attrs.v), cmp_kv);
	strv_sort(&node->links);
}
