// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: the verbs every object shares, written once over the type
 * table, and their text or JSON output.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "conf.h"
#include "planner.h"
#include "print.h"

static int report_missing(const struct pl_node *node)
{
	char *label = pl_node_label(node);

	pl_err("%s: %s", label, strerror(ENOENT));
	free(label);
	return PL_EXIT_FAIL;
}

/* Read the target and find want in it; want's parent must exist. */
static int open_at(struct pl_ctx *ctx, const struct pl_node *want, struct pl_node **live,
		   struct pl_node **have)
{
	if (pl_open(ctx, live))
		return PL_EXIT_FAIL;
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

static int fail_with(struct pl_node *live, const struct pl_node *node, const char *what, int err)
{
	char *label = pl_node_label(node);

	pl_err_obj(label, what, err);
	free(label);
	pl_node_free(live);
	return PL_EXIT_FAIL;
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

int pl_verb_add(struct pl_ctx *ctx, struct pl_node *want)
{
	struct pl_plan plan = { 0 };
	struct pl_node *live, *have;
	int ret = open_at(ctx, want, &live, &have);

	if (ret)
		return ret;
	if (have)
		return fail_with(live, want, "create", EEXIST);
	pl_plan_create(&plan, want, false);
	return finish(ctx, &plan, live);
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
	if (ret) {
		pl_node_free(live);
		return ret;
	}
	pl_plan_update(&plan, want, have, false);
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
		what = xasprintf("%s/%s", spec->link_dir, name);
		ret = fail_with(live, have, what, add ? EEXIST : ENOENT);
		free(what);
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
	if (!strcmp(field, "@inbound")) {
		inbound(node, &in);
		out = strv_join(&in, ",");
		strv_free(&in);
		return out;
	}
	val = pl_get(node, field);
	return xstrdup(val ? val : "");
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

	if (pl_open(ctx, &live))
		return PL_EXIT_FAIL;
	scope = parent ? pl_find(live, pl_parent_type(type), parent) : live;
	if (!scope) {
		pl_err("%s %s: %s", pl_spec(pl_parent_type(type))->label, parent, strerror(ENOENT));
		pl_node_free(live);
		return PL_EXIT_FAIL;
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
		show_line(node->attrs.v[i].name, node->attrs.v[i].value);
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
