// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: the verbs every object shares, written once over the type
 * table, and their text or JSON output.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cfs.h"
#include "cli.h"
#include "conf.h"
#include "planner.h"
#include "print.h"

/* The command that lists objects like node: "purlinctl ns list NQN". */
static char *list_cmd(const struct pl_node *node)
{
	const char *label = pl_spec(node->type)->label;

	if (node->parent && node->parent->parent)
		return xasprintf("purlinctl %s list %s", label, node->parent->id);
	return xasprintf("purlinctl %s list", label);
}

/* The command that creates node, with what it needs besides its ids. */
static char *add_cmd(const struct pl_node *node)
{
	const char *label = pl_spec(node->type)->label;

	switch (node->type) {
	case PL_NS:
		return xasprintf("purlinctl ns add %s %s path PATH", node->parent->id, node->id);
	case PL_PORT:
		return xasprintf("purlinctl port add %s traddr ADDR", node->id);
	case PL_REFERRAL:
		return xasprintf("purlinctl referral add %s %s traddr ADDR", node->parent->id,
				 node->id);
	case PL_ANA:
		return xasprintf("purlinctl ana-group add %s %s", node->parent->id, node->id);
	default:
		return xasprintf("purlinctl %s add %s", label, node->id);
	}
}

static int report_missing(const struct pl_node *node)
{
	char *label = pl_node_label(node), *add = add_cmd(node), *list = list_cmd(node);

	pl_err("%s: does not exist: create it with '%s' (see '%s')", label, add, list);
	free(label);
	free(add);
	free(list);
	return PL_EXIT_NOTFOUND;
}

static int report_exists(struct pl_node *live, const struct pl_node *node)
{
	char *label = pl_node_label(node);
	const char *obj = pl_spec(node->type)->label;
	const char *ids = node->parent && node->parent->parent ? node->parent->id : "";

	const char *builtin = pl_spec(node->type)->builtin;

	if (node->type == PL_HOST)
		pl_err("%s: already exists (see 'purlinctl host list')", label);
	else if (builtin && !strcmp(builtin, node->id))
		pl_err("%s: every port has it: change it with 'purlinctl %s set %s %s KEYWORD VALUE'",
		       label, obj, ids, node->id);
	else
		pl_err("%s: already exists: change it with 'purlinctl %s set %s%s%s KEYWORD VALUE' or remove it first with 'purlinctl %s del %s%s%s'",
		       label, obj, ids, *ids ? " " : "", node->id, obj, ids, *ids ? " " : "",
		       node->id);
	free(label);
	pl_node_free(live);
	return PL_EXIT_CONFLICT;
}

/* Read the target and find want in it; want's parent must exist. */
static int open_at(struct pl_ctx *ctx, const struct pl_node *want, struct pl_node **live,
		   struct pl_node **have)
{
	if (pl_open(ctx, live))
		return PL_EXIT_TARGET;
	if (want->parent->parent && !pl_lookup(*live, want->parent)) {
		pl_node_free(*live);
		return report_missing(want->parent);
	}
	*have = pl_lookup(*live, want);
	return 0;
}

/* The same, and want must exist too. */
static int open_existing(struct pl_ctx *ctx, const struct pl_node *want, struct pl_node **live,
			 struct pl_node **have)
{
	int ret = open_at(ctx, want, live, have);

	if (!ret && !*have) {
		pl_node_free(*live);
		ret = report_missing(want);
	}
	return ret;
}

static int finish(struct pl_ctx *ctx, struct pl_plan *plan, struct pl_node *live)
{
	int ret = PL_EXIT_OK;

	if (plan->n)
		ret = pl_run_plan(ctx, plan);
	else
		pl_note("nothing to change");
	pl_plan_free(plan);
	pl_node_free(live);
	return ret;
}

/* want's value of file, else have's. */
static const char *value_of(const struct pl_node *want, const struct pl_node *have,
			    const char *file)
{
	const char *v = pl_get(want, file);

	return v ? v : have ? pl_get(have, file) : NULL;
}

/*
 * Two ports on one transport, address and service id: the second could
 * never listen (EADDRINUSE when linked). Refused when it is set up.
 */
static int port_addr_conflict(const struct pl_node *live, const struct pl_node *want,
			      const struct pl_node *have)
{
	static const char *const keys[] = { "addr_trtype", "addr_adrfam", "addr_traddr",
					    "addr_trsvcid" };
	const struct pl_nodes *ports = pl_kids((struct pl_node *)live, PL_PORT);
	const char *traddr = value_of(want, have, "addr_traddr");

	if (want->type != PL_PORT || !traddr || !*traddr)
		return 0;
	for (size_t i = 0; i < ports->n; i++) {
		const struct pl_node *p = ports->v[i];
		size_t k = 0;

		if (!strcmp(p->id, want->id))
			continue;
		while (k < ARRAY_SIZE(keys) && value_of(want, have, keys[k]) && pl_get(p, keys[k]) &&
		       pl_attr_equal(PL_PORT, keys[k], value_of(want, have, keys[k]),
				     pl_get(p, keys[k])))
			k++;
		if (k < ARRAY_SIZE(keys))
			continue;
		pl_err("port %s: port %s already has %s service %s: only one port can listen there; choose another ('trsvcid SVC') or change port %s ('purlinctl port set %s ...')",
		       want->id, p->id, traddr, value_of(want, have, "addr_trsvcid"), p->id, p->id);
		return PL_EXIT_CONFLICT;
	}
	return 0;
}

int pl_verb_add(struct pl_ctx *ctx, struct pl_node *want)
{
	struct pl_plan plan = { 0 };
	struct pl_node *live, *have;
	int ret = open_at(ctx, want, &live, &have);

	if (ret)
		return ret;
	if (have)
		return report_exists(live, want);
	if (want->type == PL_SUBSYS && pl_get(live, "discovery_nqn") &&
	    !strcmp(pl_get(live, "discovery_nqn"), want->id)) {
		pl_err("subsys %s: is the target's discovery NQN (discovery_nqn): choose another name, or give the discovery subsystem another ('discovery' in a restored file)",
		       want->id);
		pl_node_free(live);
		return PL_EXIT_CONFLICT;
	}
	if ((ret = port_addr_conflict(live, want, NULL))) {
		pl_node_free(live);
		return ret;
	}
	pl_plan_create(&plan, want, false);
	return finish(ctx, &plan, live);
}

/*
 * A port that exports subsystems is live: the target refuses every change
 * to its address and parameters (EACCES). Said before anything is touched,
 * with the commands around the change.
 */
static int live_port_conflict(const struct pl_node *have)
{
	const char *first;

	if (have->type != PL_PORT || !have->links.n)
		return 0;
	first = have->links.v[0];
	if (have->links.n == 1)
		pl_err("port %s: exports subsys '%s', so its address and parameters cannot change: unlink it first ('purlinctl port unlink %s %s'), change the port, then link it again ('purlinctl port link %s %s')",
		       have->id, first, have->id, first, have->id, first);
	else
		pl_err("port %s: exports %zu subsystems, so its address and parameters cannot change: unlink each first ('purlinctl port unlink %s %s', ...; see 'purlinctl port show %s'), change the port, then link them again",
		       have->id, have->links.n, have->id, first, have->id);
	return PL_EXIT_CONFLICT;
}

int pl_verb_set(struct pl_ctx *ctx, struct pl_node *want)
{
	struct pl_plan plan = { 0 };
	struct pl_node *live, *have;
	char *label;
	int ret = open_existing(ctx, want, &live, &have);

	if (ret)
		return ret;
	label = pl_node_label(want);
	ret = pl_check_cross(label, want, have);
	free(label);
	if (!ret)
		ret = port_addr_conflict(live, want, have);
	if (ret) {
		pl_node_free(live);
		return ret;
	}
	pl_plan_update(&plan, want, have, false);
	if (plan.n && (ret = live_port_conflict(have))) {
		pl_plan_free(&plan);
		pl_node_free(live);
		return ret;
	}
	return finish(ctx, &plan, live);
}

int pl_verb_del(struct pl_ctx *ctx, struct pl_node *want)
{
	struct pl_plan plan = { 0 };
	struct pl_node *live, *have;
	int ret = open_existing(ctx, want, &live, &have);

	if (ret)
		return ret;
	pl_plan_remove(&plan, have);
	return finish(ctx, &plan, live);
}

/* "exports" (a port's subsystems) or "allows" (a subsystem's hosts), or their bare forms. */
static const char *link_verb(const struct pl_node *node, bool third_person)
{
	if (node->type == PL_PORT)
		return third_person ? "exports" : "export";
	return third_person ? "allows" : "allow";
}

/* A link the target would refuse in its present state: say why and what to run. */
static int link_conflict(const struct pl_node *have, const char *name)
{
	const char *any = pl_get(have, "attr_allow_any_host");

	if (have->type == PL_SUBSYS && any && pl_attr_equal(PL_SUBSYS, "attr_allow_any_host", any, "1")) {
		pl_err("subsys %s: allows any host, so it lists none: to allow only some, run 'purlinctl subsys set %s allow-any-host off' first, then 'purlinctl subsys allow %s %s'",
		       have->id, have->id, have->id, name);
		return PL_EXIT_CONFLICT;
	}
	return 0;
}

int pl_verb_link(struct pl_ctx *ctx, struct pl_node *want, const char *name, bool add)
{
	const struct pl_type_spec *spec = pl_spec(want->type);
	struct pl_plan plan = { 0 };
	struct pl_node *live, *have, *target;
	char *what;
	int ret = open_existing(ctx, want, &live, &have);

	if (ret)
		return ret;
	target = pl_find(live, spec->link_target, name);
	if (add && !target) {
		ret = report_missing(pl_node_new(spec->link_target, name, live));
		pl_node_free(live);
		return ret;
	}
	if (add == strv_has(&have->links, name)) {
		what = pl_node_label(have);
		pl_err("%s: %s %s %s '%s' (see 'purlinctl %s show %s')", what,
		       add ? "already" : "does not", add ? link_verb(have, true) :
		       link_verb(have, false), pl_spec(spec->link_target)->label, name,
		       spec->label, have->id);
		free(what);
		pl_node_free(live);
		return add ? PL_EXIT_CONFLICT : PL_EXIT_NOTFOUND;
	}
	if (add && (ret = link_conflict(have, name))) {
		pl_node_free(live);
		return ret;
	}
	pl_plan_link(&plan, have, name, add);
	return finish(ctx, &plan, live);
}

/* ---- output ---- */

/* Ids of the objects that link to node: ports for a subsystem, subsystems for a host. */
static void inbound(const struct pl_node *node, struct strv *out)
{
	struct pl_node *root = pl_root_of((struct pl_node *)node);
	const struct pl_type_spec *rs = pl_spec(PL_ROOT);

	for (size_t k = 0; k < rs->nkids; k++) {
		if (pl_spec(rs->kids[k])->link_target != node->type || !pl_spec(rs->kids[k])->link_dir)
			continue;
		for (size_t i = 0; i < root->kids[k].n; i++)
			if (strv_has(&root->kids[k].v[i]->links, node->id))
				strv_add(out, root->kids[k].v[i]->id);
	}
}

/* Booleans read as the on/off the command line takes. */
static const char *text_value(enum pl_type type, const char *file, const char *val)
{
	const struct pl_attr_spec *spec = pl_attr_spec(type, file);

	if (spec && spec->check == pl_check_bool && !pl_check_bool(val))
		return strcmp(val, "1") ? "off" : "on";
	return val;
}

/* The size of a namespace's device or file, -1 if unknown. */
static long long device_size(const struct pl_node *node)
{
	const char *path = pl_get(node, "device_path");
	struct stat st;

	if (!path || *path != '/' || cfs_stat_device(path, &st))
		return -1;
	return st.st_size;
}

static char *field_value(const struct pl_node *node, const char *field)
{
	struct strv in = { 0 };
	const char *val;
	char *out;

	if (!strcmp(field, "@id"))
		return xstrdup(node->id);
	if (!strcmp(field, "@parent"))
		return xstrdup(node->parent ? node->parent->id : "");
	if (!strcmp(field, "@links"))
		return strv_join(&node->links, ",");
	if (!strcmp(field, "@count"))
		return xasprintf("%zu", node->kids[0].n);
	if (!strcmp(field, "@nlinks"))
		return xasprintf("%zu", node->links.n);
	if (!strcmp(field, "@size"))
		return pl_human_size(device_size(node));
	if (!strcmp(field, "@auth")) {
		/* A host's DH-HMAC-CHAP in a word: "-" when it has no key. */
		const char *key = pl_get(node, "dhchap_key");
		const char *ckey = pl_get(node, "dhchap_ctrl_key");
		const char *hash = pl_get(node, "dhchap_hash");
		const char *group = pl_get(node, "dhchap_dhgroup");

		if (!key || !*key)
			return xstrdup("-");
		return xasprintf("%s,%s%s", hash && *hash ? hash : "?",
				 group && *group ? group : "?",
				 ckey && *ckey ? ",bidirectional" : "");
	}
	if (!strcmp(field, "@inbound")) {
		inbound(node, &in);
		out = strv_join(&in, ",");
		strv_free(&in);
		return out;
	}
	val = pl_get(node, field);
	return xstrdup(val ? text_value(node->type, field, val) : "");
}

static void collect(struct pl_node *node, enum pl_type type, struct pl_nodes *out)
{
	const struct pl_type_spec *spec = pl_spec(node->type);

	for (size_t k = 0; k < spec->nkids; k++) {
		for (size_t i = 0; i < node->kids[k].n; i++) {
			struct pl_node *kid = node->kids[k].v[i];

			if (kid->type == type) {
				out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
				out->v[out->n++] = kid;
			}
			collect(kid, type, out);
		}
	}
}

/*
 * What the text table shows beyond a saved file's layout, in JSON too: the
 * ports exporting a subsystem, the subsystems allowing a host, a
 * namespace's size in bytes.
 */
static void list_json_extras(const struct pl_node *node)
{
	struct strv in = { 0 };
	long long size;

	if (node->type == PL_SUBSYS || node->type == PL_HOST) {
		inbound(node, &in);
		pl_print_open_array(node->type == PL_SUBSYS ? "ports" : "allowed_by");
		for (size_t i = 0; i < in.n; i++)
			pl_print_string(PL_JSON, NULL, NULL, in.v[i]);
		pl_print_close_array();
		strv_free(&in);
	}
	if (node->type == PL_NS && (size = device_size(node)) >= 0)
		pl_print_u64(PL_JSON, "size", NULL, (unsigned long long)size);
}

/*
 * A table of the columns in text; in JSON each object as a saved file
 * has it, with its parent's id (e.g. "subsys_nqn") for the objects below
 * the top level.
 */
static void list_nodes(const struct pl_nodes *nodes, const struct pl_col *cols, size_t ncols)
{
	struct strv cells = { 0 };

	for (size_t c = 0; c < ncols; c++)
		strv_add(&cells, cols[c].header);
	pl_print_open_array(NULL);
	for (size_t i = 0; i < nodes->n; i++) {
		const struct pl_node *node = nodes->v[i];
		const struct pl_type_spec *ps = pl_spec(node->parent->type);

		pl_print_open_json(NULL, pl_conf_node_json(node));
		if (node->parent->parent) {
			char *key = xasprintf("%s_%s", ps->label, ps->json_id);

			pl_print_string(PL_JSON, key, NULL, node->parent->id);
			free(key);
		}
		list_json_extras(node);
		pl_print_close_object();
		for (size_t c = 0; c < ncols; c++) {
			char *val = field_value(node, cols[c].field);

			strv_add(&cells, val);
			free(val);
		}
	}
	pl_print_close_array();
	pl_print_table(&cells, ncols);
	strv_free(&cells);
}

int pl_verb_list(struct pl_ctx *ctx, enum pl_type type, const char *parent,
		 const struct pl_col *cols, size_t ncols)
{
	struct pl_nodes nodes = { 0 };
	struct pl_node *live, *scope;
	int ret;

	if (pl_open(ctx, &live))
		return PL_EXIT_TARGET;
	scope = parent ? pl_find(live, pl_parent_type(type), parent) : live;
	if (!scope) {
		struct pl_node *missing = pl_node_new(pl_parent_type(type), parent, live);

		ret = report_missing(missing);
		pl_node_free(live);
		return ret;
	}
	collect(scope, type, &nodes);
	pl_print_start(ctx->json);
	list_nodes(&nodes, cols, ncols);
	pl_print_end();
	free(nodes.v);
	pl_node_free(live);
	return PL_EXIT_OK;
}

static void show_line(const char *key, const char *val)
{
	pl_print_text("  %-24s %s\n", key, *val ? val : "-");
}

/* An attribute under the keyword that sets it (the configfs name otherwise), booleans on/off. */
static void show_attr(const struct pl_node *node, const struct pl_kv *kv)
{
	const char *kw = pl_keyword_of(node->type, kv->name);

	show_line(kw ? kw : kv->name, text_value(node->type, kv->name, kv->value));
}

/*
 * The object's files, links and children's ids in text; in JSON the
 * object (with its children) as a saved file has it.
 */
static void show_node(const struct pl_node *node)
{
	const struct pl_type_spec *spec = pl_spec(node->type);
	char *label = pl_node_label(node), *val;
	struct strv ids = { 0 };

	pl_print_open_json(NULL, pl_conf_node_json(node));
	pl_print_close_object();
	pl_print_text("%s\n", label);
	for (size_t i = 0; i < node->attrs.n; i++)
		show_attr(node, &node->attrs.v[i]);
	if (node->type == PL_NS) {
		val = pl_human_size(device_size(node));
		show_line("size", val);
		free(val);
	}
	if (spec->link_dir) {
		val = strv_join(&node->links, ",");
		show_line(spec->link_dir, val);
		free(val);
	}
	for (size_t k = 0; k < spec->nkids; k++) {
		for (size_t i = 0; i < node->kids[k].n; i++)
			strv_add(&ids, node->kids[k].v[i]->id);
		val = strv_join(&ids, ",");
		show_line(pl_spec(spec->kids[k])->dir, val);
		free(val);
		strv_free(&ids);
	}
	val = field_value(node, "@inbound");
	if (*val)
		show_line("linked from", val);
	free(val);
	free(label);
}

int pl_verb_show(struct pl_ctx *ctx, struct pl_node *want)
{
	struct pl_node *live, *have;
	int ret = open_existing(ctx, want, &live, &have);

	if (ret)
		return ret;
	pl_node_mask_secrets(have);
	pl_print_start(ctx->json);
	show_node(have);
	pl_print_end();
	pl_node_free(live);
	return PL_EXIT_OK;
}
