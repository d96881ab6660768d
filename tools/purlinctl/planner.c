// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: restore and removal planning. Pure functions of the trees:
 * nothing here touches configfs, which keeps --dry-run and the tests honest.
 */
#include <stdlib.h>
#include <string.h>

#include "planner.h"

static const enum pl_type create_order[] = { PL_HOST, PL_PORT, PL_SUBSYS };
static const enum pl_type link_order[] = { PL_SUBSYS, PL_PORT };

static bool is_gate(const struct pl_node *node, const char *file)
{
	const char *gate = pl_spec(node->type)->enable;

	return gate && !strcmp(gate, file);
}

/* Known attributes in table order, then the others by name; the gate is handled apart. */
static void write_order(const struct pl_node *node, struct strv *out)
{
	const struct pl_attr_spec *a = pl_spec(node->type)->attrs;
	struct strv rest = { 0 };

	for (; a && a->file; a++)
		if (pl_get(node, a->file) && !is_gate(node, a->file))
			strv_add(out, a->file);
	for (size_t i = 0; i < node->attrs.n; i++) {
		const char *file = node->attrs.v[i].name;

		if (!pl_attr_spec(node->type, file) && !is_gate(node, file))
			strv_add(&rest, file);
	}
	strv_sort(&rest);
	for (size_t i = 0; i < rest.n; i++)
		strv_add(out, rest.v[i]);
	strv_free(&rest);
}

static bool needs_write(const struct pl_node *want, const struct pl_node *have, const char *file,
			bool optional)
{
	const char *val = pl_get(want, file);
	const char *cur;
	char *label;

	if (!*val && !pl_attr_empty_is_value(want->type, file))
		return false;
	if (!have)
		return true;
	cur = pl_get(have, file);
	if (!cur && optional) {
		label = pl_node_label(want);
		pl_note_unsupported(label, file);
		free(label);
		return false;
	}
	return !cur || !pl_attr_equal(want->type, file, val, cur);
}

static bool is_live(enum pl_type type, const char *file)
{
	const struct pl_attr_spec *spec = pl_attr_spec(type, file);

	return spec && spec->live;
}

static bool is_on(const struct pl_node *node, const char *file)
{
	const char *val = node ? pl_get(node, file) : NULL;

	return val && pl_attr_equal(node->type, file, val, "1");
}

static void plan_gate(struct pl_plan *plan, const struct pl_node *want,
		      const struct pl_node *have, bool cycled, bool optional)
{
	const char *gate = pl_spec(want->type)->enable;
	const char *val = pl_get(want, gate);
	const char *cur = have ? pl_get(have, gate) : NULL;

	if (!val || !*val)
		val = cycled ? "1" : NULL;
	if (!val)
		return;
	if (cycled || !cur || !pl_attr_equal(want->type, gate, val, cur))
		pl_plan_write(plan, want, gate, val, optional && !have);
}

static void plan_kids(struct pl_plan *plan, const struct pl_node *want,
		      const struct pl_node *have, bool optional)
{
	const struct pl_type_spec *spec = pl_spec(want->type);

	for (size_t k = 0; k < spec->nkids; k++) {
		for (size_t i = 0; i < want->kids[k].n; i++) {
			const struct pl_node *w = want->kids[k].v[i];
			const struct pl_node *h = have ? pl_find(have, w->type, w->id) : NULL;
			const char *builtin = pl_spec(w->type)->builtin;

			if (h)
				pl_plan_update(plan, w, h, optional);
			else if (have && builtin && !strcmp(builtin, w->id))
				pl_note("%s %s: not provided by this target, skipped",
					pl_spec(w->type)->label, w->id);
			else
				pl_plan_create(plan, w, optional);
		}
	}
}

/*
 * The target checks attr_cntlid_min <= attr_cntlid_max on every write
 * (nvmet: <), against the value the other one has then. Table order
 * (min, then max) works unless the range moves up past its current end:
 * then the new max must go first.
 */
static void order_cntlid(const struct pl_node *want, const struct pl_node *have,
			 struct strv *diff)
{
	size_t lo = diff->n, hi = diff->n;
	const char *cur_max = have ? pl_get(have, "attr_cntlid_max") : NULL;
	long long new_min, max;
	char *tmp;

	for (size_t i = 0; i < diff->n; i++) {
		if (!strcmp(diff->v[i], "attr_cntlid_min"))
			lo = i;
		else if (!strcmp(diff->v[i], "attr_cntlid_max"))
			hi = i;
	}
	if (lo > hi || hi == diff->n || !cur_max ||
	    !pl_parse_long(pl_get(want, "attr_cntlid_min"), 0, &new_min) ||
	    !pl_parse_long(cur_max, 0, &max) || new_min < max)
		return;
	tmp = diff->v[lo];
	diff->v[lo] = diff->v[hi];
	diff->v[hi] = tmp;
}

void pl_plan_update(struct pl_plan *plan, const struct pl_node *want, const struct pl_node *have,
		    bool optional)
{
	const char *gate = pl_spec(want->type)->enable;
	struct strv files = { 0 }, diff = { 0 };
	bool cycle = false;

	write_order(want, &files);
	for (size_t i = 0; i < files.n; i++)
		if (needs_write(want, have, files.v[i], optional))
			strv_add(&diff, files.v[i]);
	order_cntlid(want, have, &diff);
	for (size_t i = 0; gate && is_on(have, gate) && i < diff.n; i++)
		cycle |= !is_live(want->type, diff.v[i]);
	if (cycle)
		pl_plan_write(plan, want, gate, "0", false);
	for (size_t i = 0; i < diff.n; i++)
		pl_plan_write(plan, want, diff.v[i], pl_get(want, diff.v[i]), optional && !have);
	if (gate)
		plan_gate(plan, want, have, cycle, optional);
	strv_free(&files);
	strv_free(&diff);
	plan_kids(plan, want, have, optional);
}

void pl_plan_create(struct pl_plan *plan, const struct pl_node *want, bool optional)
{
	const char *builtin = pl_spec(want->type)->builtin;

	if (!builtin || strcmp(builtin, want->id))
		pl_plan_mkdir(plan, want);
	pl_plan_update(plan, want, NULL, optional);
}

static void plan_links(struct pl_plan *plan, const struct pl_node *want,
		       const struct pl_node *have)
{
	for (size_t i = 0; i < want->links.n; i++)
		if (!have || !strv_has(&have->links, want->links.v[i]))
			pl_plan_link(plan, want, want->links.v[i], true);
}

/*
 * The root's own attributes (discovery_nqn) go first: a subsystem created
 * afterwards can then not take the name. A target without the attribute
 * (Purlin before 0.2, Linux before 5.16) keeps the well-known discovery
 * NQN: said plainly unless the file asks for that one anyway.
 */
static void plan_root(struct pl_plan *plan, const struct pl_node *want, const struct pl_node *live)
{
	for (size_t i = 0; i < want->attrs.n; i++) {
		const struct pl_kv *kv = &want->attrs.v[i];
		const char *cur = pl_get(live, kv->name);

		if (!*kv->value)
			continue;
		if (!cur) {
			if (strcmp(kv->name, "discovery_nqn") || strcmp(kv->value, PL_DISCOVERY_NQN))
				pl_err("warning: %s '%s' not applied: this target has no %s (it keeps %s)",
				       kv->name, kv->value, kv->name,
				       strcmp(kv->name, "discovery_nqn") ? "its default" :
				       PL_DISCOVERY_NQN);
			continue;
		}
		if (!pl_attr_equal(PL_ROOT, kv->name, kv->value, cur))
			pl_plan_write(plan, want, kv->name, kv->value, false);
	}
}

/*
 * A port that exports subsystems refuses changes to its address and
 * parameters: restore unlinks them around such a change and links them
 * again, in the same plan (a later failure undoes all of it, relinking).
 */
static void plan_port_update(struct pl_plan *plan, const struct pl_node *want,
			     const struct pl_node *have)
{
	struct pl_plan sub = { 0 };
	char *dir = pl_node_path(have);
	size_t len = strlen(dir);
	bool own = false;

	pl_plan_update(&sub, want, have, true);
	for (size_t i = 0; i < sub.n; i++)
		own |= sub.v[i].kind == PL_OP_WRITE && !strncmp(sub.v[i].path, dir, len) &&
		       sub.v[i].path[len] == '/' && !strchr(sub.v[i].path + len + 1, '/');
	for (size_t i = 0; own && i < have->links.n; i++)
		pl_plan_link(plan, have, have->links.v[i], false);
	pl_plan_take(plan, &sub);
	for (size_t i = 0; own && i < have->links.n; i++)
		pl_plan_link(plan, have, have->links.v[i], true);
	free(dir);
}

void pl_plan_restore(struct pl_plan *plan, const struct pl_node *want, const struct pl_node *live)
{
	plan_root(plan, want, live);
	for (size_t t = 0; t < ARRAY_SIZE(create_order); t++) {
		const struct pl_nodes *list = pl_kids((struct pl_node *)want, create_order[t]);

		for (size_t i = 0; i < list->n; i++) {
			const struct pl_node *w = list->v[i];
			const struct pl_node *h = pl_find(live, w->type, w->id);

			if (h && h->type == PL_PORT)
				plan_port_update(plan, w, h);
			else if (h)
				pl_plan_update(plan, w, h, true);
			else
				pl_plan_create(plan, w, true);
		}
	}
	for (size_t t = 0; t < ARRAY_SIZE(link_order); t++) {
		const struct pl_nodes *list = pl_kids((struct pl_node *)want, link_order[t]);

		for (size_t i = 0; i < list->n; i++)
			plan_links(plan, list->v[i], pl_find(live, link_order[t], list->v[i]->id));
	}
}

/* ---- replacing ---- */

/* Links of live objects that want lacks (want NULL: all of them), removed. */
static void unlink_stale(struct pl_plan *plan, struct pl_node *have, const struct pl_node *want)
{
	for (size_t i = have->links.n; i-- > 0;) {
		char *name = xstrdup(have->links.v[i]);

		if (!want || !strv_has(&want->links, name)) {
			pl_plan_link(plan, have, name, false);
			strv_del(&have->links, name);
		}
		free(name);
	}
}

/* Objects below have (and have itself when want is NULL) that want does not name. */
static void remove_stale(struct pl_plan *plan, struct pl_node *have, const struct pl_node *want)
{
	const struct pl_type_spec *spec = pl_spec(have->type);

	if (!want) {
		pl_plan_remove(plan, have);
		return;
	}
	for (size_t k = 0; k < spec->nkids; k++) {
		for (size_t i = have->kids[k].n; i-- > 0;) {
			struct pl_node *h = have->kids[k].v[i];
			const char *builtin = pl_spec(h->type)->builtin;
			const struct pl_node *w = pl_find(want, h->type, h->id);

			if (w || !builtin || strcmp(builtin, h->id))
				remove_stale(plan, h, w);
		}
	}
}

void pl_plan_replace(struct pl_plan *plan, const struct pl_node *want, struct pl_node *live)
{
	static const enum pl_type stale_order[] = { PL_PORT, PL_SUBSYS, PL_HOST };
	const char *disc = pl_get(live, "discovery_nqn");

	for (size_t t = 0; t < ARRAY_SIZE(link_order); t++) {
		struct pl_nodes *list = pl_kids(live, link_order[t]);

		for (size_t i = 0; i < list->n; i++)
			unlink_stale(plan, list->v[i],
				     pl_find(want, link_order[t], list->v[i]->id));
	}
	pl_plan_restore(plan, want, live);
	for (size_t t = 0; t < ARRAY_SIZE(stale_order); t++) {
		struct pl_nodes *list = pl_kids(live, stale_order[t]);

		for (size_t i = list->n; i-- > 0;)
			remove_stale(plan, list->v[i],
				     pl_find(want, stale_order[t], list->v[i]->id));
	}
	if (disc && strcmp(disc, PL_DISCOVERY_NQN) && !pl_get(want, "discovery_nqn"))
		pl_plan_write(plan, live, "discovery_nqn", PL_DISCOVERY_NQN, false);
}

/* ---- removal ---- */


static void unlink_all(struct pl_plan *plan, struct pl_node *node)
{
	while (node->links.n) {
		char *name = xstrdup(node->links.v[node->links.n - 1]);

		pl_plan_link(plan, node, name, false);
		strv_del(&node->links, name);
		free(name);
	}
}

/* Links from anywhere in the tree to node (port -> subsys, subsys -> host). */
static void unlink_inbound(struct pl_plan *plan, struct pl_node *node)
{
	struct pl_node *root = pl_root_of(node);

	for (size_t t = 0; t < ARRAY_SIZE(link_order); t++) {
		const struct pl_type_spec *spec = pl_spec(link_order[t]);
		struct pl_nodes *list = pl_kids(root, link_order[t]);

		if (spec->link_target != node->type || !list)
			continue;
		for (size_t i = 0; i < list->n; i++) {
			if (!strv_has(&list->v[i]->links, node->id))
				continue;
			pl_plan_link(plan, list->v[i], node->id, false);
			strv_del(&list->v[i]->links, node->id);
		}
	}
}

static void disable_one(struct pl_plan *plan, struct pl_node *node)
{
	const char *gate = pl_spec(node->type)->enable;

	if (gate && is_on(node, gate)) {
		pl_plan_write(plan, node, gate, "0", false);
		pl_set(node, gate, "0");
	}
}

static void disable_tree(struct pl_plan *plan, struct pl_node *node)
{
	const struct pl_type_spec *spec = pl_spec(node->type);

	disable_one(plan, node);
	for (size_t k = 0; k < spec->nkids; k++)
		for (size_t i = 0; i < node->kids[k].n; i++)
			disable_tree(plan, node->kids[k].v[i]);
}

void pl_plan_remove(struct pl_plan *plan, struct pl_node *node)
{
	const struct pl_type_spec *spec = pl_spec(node->type);
	bool builtin = spec->builtin && !strcmp(spec->builtin, node->id);

	unlink_inbound(plan, node);
	unlink_all(plan, node);
	disable_one(plan, node);
	for (size_t k = 0; k < spec->nkids; k++)
		for (size_t i = node->kids[k].n; i-- > 0;)
			pl_plan_remove(plan, node->kids[k].v[i]);
	if (builtin)
		return;
	pl_plan_rmdir(plan, node);
	pl_node_remove(node);
}

void pl_plan_clear(struct pl_plan *plan, struct pl_node *live)
{
	/* Stop exporting first, then drop host access. */
	static const enum pl_type unlink_order[] = { PL_PORT, PL_SUBSYS };
	static const enum pl_type rmdir_order[] = { PL_PORT, PL_SUBSYS, PL_HOST };
	const char *disc = pl_get(live, "discovery_nqn");

	for (size_t t = 0; t < ARRAY_SIZE(unlink_order); t++) {
		struct pl_nodes *list = pl_kids(live, unlink_order[t]);

		for (size_t i = 0; i < list->n; i++)
			unlink_all(plan, list->v[i]);
	}
	disable_tree(plan, live);
	for (size_t t = 0; t < ARRAY_SIZE(rmdir_order); t++) {
		struct pl_nodes *list = pl_kids(live, rmdir_order[t]);

		for (size_t i = list->n; i-- > 0;)
			pl_plan_remove(plan, list->v[i]);
	}
	/* The well-known discovery NQN again, as after the module's load. */
	if (disc && strcmp(disc, PL_DISCOVERY_NQN))
		pl_plan_write(plan, live, "discovery_nqn", PL_DISCOVERY_NQN, false);
}

/* ---- removing what a file made ---- */

static bool still_used(const struct pl_node *live, const struct pl_node *node)
{
	enum pl_type from = node->type == PL_HOST ? PL_SUBSYS : PL_PORT;
	const struct pl_nodes *list = pl_kids((struct pl_node *)live, from);

	if (node->type == PL_PORT)
		return node->links.n > 0;
	for (size_t i = 0; i < list->n; i++)
		if (strv_has(&list->v[i]->links, node->id))
			return true;
	return false;
}

void pl_plan_unload(struct pl_plan *plan, const struct pl_node *want, struct pl_node *live,
		    struct strv *kept)
{
	static const enum pl_type shared[] = { PL_PORT, PL_HOST };
	const struct pl_nodes *subs = pl_kids((struct pl_node *)want, PL_SUBSYS);
	const struct pl_nodes *ports = pl_kids((struct pl_node *)want, PL_PORT);
	struct pl_node *h;

	/* Stop exporting first: the file's links, then every link to its subsystems. */
	for (size_t i = 0; i < ports->n; i++) {
		h = pl_find(live, PL_PORT, ports->v[i]->id);
		for (size_t j = 0; h && j < ports->v[i]->links.n; j++) {
			if (!strv_has(&h->links, ports->v[i]->links.v[j]))
				continue;
			pl_plan_link(plan, h, ports->v[i]->links.v[j], false);
			strv_del(&h->links, ports->v[i]->links.v[j]);
		}
	}
	for (size_t i = 0; i < subs->n; i++)
		if ((h = pl_find(live, PL_SUBSYS, subs->v[i]->id)))
			unlink_inbound(plan, h);
	for (size_t i = subs->n; i-- > 0;)
		if ((h = pl_find(live, PL_SUBSYS, subs->v[i]->id)))
			pl_plan_remove(plan, h);
	/* Ports and hosts another configuration still uses stay. */
	for (size_t t = 0; t < ARRAY_SIZE(shared); t++) {
		const struct pl_nodes *list = pl_kids((struct pl_node *)want, shared[t]);

		for (size_t i = list->n; i-- > 0;) {
			if (!(h = pl_find(live, shared[t], list->v[i]->id)))
				continue;
			if (!still_used(live, h)) {
				pl_plan_remove(plan, h);
			} else if (kept) {
				char *label = pl_node_label(h);

				strv_add(kept, label);
				free(label);
			}
		}
	}
}
