// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl save, restore and clear: the whole target at once, as JSON.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "conf.h"
#include "planner.h"
#include "print.h"

/* Whole-configuration plans also say how far they got. */
static int run_whole(struct pl_ctx *ctx, struct pl_plan *plan, const char *cmd)
{
	int ret = pl_run_plan(ctx, plan);

	if (ret && plan->n > 1)
		pl_err("%s: step %zu of %zu failed; %zu completed step%s rolled back", cmd,
		       plan->failed + 1, plan->n, plan->rolled_back,
		       plan->rolled_back == 1 ? "" : "s");
	return ret;
}

/*
 * The default file is the real target's boot configuration: a command on
 * another root (--root) must name its file, so a scratch run never
 * replaces what purlin.service restores.
 */
static int default_file(struct pl_ctx *ctx, const char *cmd, const char **file)
{
	if (ctx->root)
		return pl_usage_error(cmd, "with --root, name the file: %s is the boot configuration of the real target",
				      PL_DEFAULT_CONFIG);
	*file = PL_DEFAULT_CONFIG;
	return 0;
}

static int save_run(struct pl_ctx *ctx, int argc, char **argv)
{
	const char *file = argc ? argv[0] : NULL;
	struct pl_node *live;
	int ret;

	if (argc > 1)
		return pl_usage_error("save", "unexpected argument '%s'", argv[1]);
	if (!file && (ret = default_file(ctx, "save", &file)))
		return ret;
	if (pl_open(ctx, &live))
		return PL_EXIT_TARGET;
	/* A dry run writes nothing: it shows what the file would hold. */
	if (ctx->dry_run && strcmp(file, "-")) {
		pl_err("dry run: %s not written; it would hold:", file);
		file = "-";
	}
	ret = pl_conf_save(live, file);
	pl_node_free(live);
	return ret ? PL_EXIT_FILE : PL_EXIT_OK;
}

struct restore_args {
	const char *file;
	bool if_present;
	bool replace;
};

static int restore_parse(struct pl_ctx *ctx, int argc, char **argv,
			 struct restore_args *args)
{
	args->file = NULL;
	args->if_present = false;
	args->replace = false;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "if-present"))
			args->if_present = true;
		else if (!strcmp(argv[i], "--replace"))
			args->replace = true;
		else if (!strcmp(argv[i], "--force"))
			pl_conf_allow_unknown = true;
		else if (!args->file)
			args->file = argv[i];
		else
			return pl_usage_error("restore", "unexpected argument '%s'", argv[i]);
	}
	return args->file ? 0 : default_file(ctx, "restore", &args->file);
}

/*
 * Read and check file (sorted), and the target it goes to; 0, or the exit
 * code (a bad file, or no target) with the problem reported.
 */
static int load_against_target(struct pl_ctx *ctx, const char *file, const char *source,
			       struct pl_node **want, struct pl_node **live)
{
	if (pl_conf_load(file, want))
		return PL_EXIT_FILE;
	if (pl_open(ctx, live))
		return PL_EXIT_TARGET;
	if (pl_conf_check(*want, *live, source))
		return PL_EXIT_FILE;
	pl_sort(*want);
	return 0;
}

/* With if-present and no file, only make sure the target is loaded. */
static int restore_absent(struct pl_ctx *ctx, const char *file)
{
	struct pl_node *live;

	if (pl_open(ctx, &live))
		return PL_EXIT_TARGET;
	pl_node_free(live);
	pl_note("%s not found, nothing to restore", file);
	return PL_EXIT_OK;
}

static int restore_run(struct pl_ctx *ctx, int argc, char **argv)
{
	struct restore_args args;
	struct pl_plan plan = { 0 };
	struct pl_node *want = NULL, *live = NULL;
	const char *source;
	struct stat st;
	int ret = restore_parse(ctx, argc, argv, &args);

	if (ret)
		return ret;
	source = strcmp(args.file, "-") ? args.file : "<stdin>";
	if (args.if_present && strcmp(args.file, "-") && stat(args.file, &st) && errno == ENOENT)
		return restore_absent(ctx, args.file);
	ret = load_against_target(ctx, args.file, source, &want, &live);
	if (ret)
		goto out;
	if (args.replace)
		pl_plan_replace(&plan, want, live);
	else
		pl_plan_restore(&plan, want, live);
	ret = PL_EXIT_OK;
	if (plan.n)
		ret = run_whole(ctx, &plan, "restore");
	else
		pl_note("%s: the target already matches", source);
	if (!ret && pl_unsupported.n) {
		char *names = strv_join(&pl_unsupported, ", ");

		pl_err("restore: not applied, this target has no %s (-v names each object)", names);
		free(names);
	}
out:
	strv_free(&pl_unsupported);
	pl_plan_free(&plan);
	pl_node_free(want);
	pl_node_free(live);
	return ret;
}

/* ---- diff ---- */

static const char *link_phrase(enum pl_type type)
{
	return type == PL_PORT ? "exports subsys" : "allows host";
}

/* One line per difference of node (want, have: either may be NULL), in keywords. */
static size_t diff_node(const struct pl_node *want, const struct pl_node *have)
{
	const struct pl_node *any = want ? want : have;
	const struct pl_type_spec *spec = pl_spec(any->type);
	char *label = any->parent ? pl_node_label(any) : xstrdup("target");
	size_t n = 0;

	if (!want || !have) {
		pl_print_text("%s %s\n", want ? "+" : "-", label);
		free(label);
		return 1;
	}
	for (size_t i = 0; i < want->attrs.n; i++) {
		const struct pl_kv *kv = &want->attrs.v[i];
		const char *cur = pl_get(have, kv->name);
		const char *kw = pl_keyword_of(want->type, kv->name);

		if (!cur || (!*kv->value && !pl_attr_empty_is_value(want->type, kv->name)) ||
		    pl_attr_equal(want->type, kv->name, kv->value, cur))
			continue;
		pl_print_text("~ %s: %s '%s' -> '%s'\n", label, kw ? kw : kv->name, cur, kv->value);
		n++;
	}
	for (size_t i = 0; spec->link_dir && i < want->links.n; i++)
		if (!strv_has(&have->links, want->links.v[i]) && ++n)
			pl_print_text("+ %s %s %s\n", label, link_phrase(any->type), want->links.v[i]);
	for (size_t i = 0; spec->link_dir && i < have->links.n; i++)
		if (!strv_has(&want->links, have->links.v[i]) && ++n)
			pl_print_text("- %s %s %s\n", label, link_phrase(any->type), have->links.v[i]);
	for (size_t k = 0; k < spec->nkids; k++) {
		for (size_t i = 0; i < want->kids[k].n; i++) {
			const struct pl_node *w = want->kids[k].v[i];

			n += diff_node(w, pl_find(have, w->type, w->id));
		}
		for (size_t i = 0; i < have->kids[k].n; i++) {
			const struct pl_node *h = have->kids[k].v[i];
			const char *builtin = pl_spec(h->type)->builtin;

			if (!pl_find(want, h->type, h->id) && (!builtin || strcmp(builtin, h->id)))
				n += diff_node(NULL, h);
		}
	}
	free(label);
	return n;
}

/*
 * The target against a file, in keywords: "+" what the file has and the
 * target lacks (restore adds it), "-" what only the target has (restore
 * --replace removes it), "~" a value that differs (target -> file).
 */
static int diff_run(struct pl_ctx *ctx, int argc, char **argv)
{
	const char *file = argc ? argv[0] : NULL, *source;
	struct pl_node *want = NULL, *live = NULL;
	int ret;

	if (argc > 1)
		return pl_usage_error("diff", "unexpected argument '%s'", argv[1]);
	if (!file && (ret = default_file(ctx, "diff", &file)))
		return ret;
	source = strcmp(file, "-") ? file : "<stdin>";
	ret = load_against_target(ctx, file, source, &want, &live);
	if (ret)
		goto out;
	pl_print_start(false);
	ret = diff_node(want, live) ? PL_EXIT_DIFFERS : PL_EXIT_OK;
	pl_print_end();
out:
	pl_node_free(want);
	pl_node_free(live);
	return ret;
}

/* ---- remove: undo what restoring a file made ---- */

/*
 * A subsystem of the file that carries a namespace the file does not name
 * holds something the file did not make (another file's, or an admin's):
 * removing the subsystem would take it too, so remove refuses.
 */
static int foreign_namespaces(const struct pl_node *want, struct pl_node *live)
{
	const struct pl_nodes *subs = pl_kids((struct pl_node *)want, PL_SUBSYS);

	for (size_t i = 0; i < subs->n; i++) {
		struct pl_node *h = pl_find(live, PL_SUBSYS, subs->v[i]->id);
		const struct pl_nodes *ns = h ? pl_kids(h, PL_NS) : NULL;

		for (size_t j = 0; ns && j < ns->n; j++) {
			if (pl_find(subs->v[i], PL_NS, ns->v[j]->id))
				continue;
			pl_err("remove: subsys %s has namespace %s, which the file does not name: nothing removed (remove that namespace first, or add it to the file)",
			       h->id, ns->v[j]->id);
			return PL_EXIT_CONFLICT;
		}
	}
	return 0;
}

static int remove_run(struct pl_ctx *ctx, int argc, char **argv)
{
	struct pl_plan plan = { 0 };
	struct pl_node *want = NULL, *live = NULL;
	struct strv kept = { 0 };
	const char *file = argc ? argv[0] : NULL, *source;
	int ret;

	if (argc > 1)
		return pl_usage_error("remove", "unexpected argument '%s'", argv[1]);
	if (!file)
		return pl_usage_error("remove", "name the file whose objects to remove");
	source = strcmp(file, "-") ? file : "<stdin>";
	ret = load_against_target(ctx, file, source, &want, &live);
	if (ret || (ret = foreign_namespaces(want, live)))
		goto out;
	pl_plan_unload(&plan, want, live, &kept);
	for (size_t i = 0; i < kept.n; i++)
		pl_note("%s kept: another subsystem still uses it", kept.v[i]);
	if (plan.n || (ctx->dry_run && ctx->json))
		ret = run_whole(ctx, &plan, "remove");
	else
		pl_note("%s: nothing of it is on the target", source);
out:
	strv_free(&kept);
	pl_plan_free(&plan);
	pl_node_free(want);
	pl_node_free(live);
	return ret;
}

static int clear_run(struct pl_ctx *ctx, int argc, char **argv)
{
	struct pl_plan plan = { 0 };
	struct pl_node *live;
	int ret = PL_EXIT_OK;

	if (argc)
		return pl_usage_error("clear", "unexpected argument '%s'", argv[0]);
	if (pl_open(ctx, &live))
		return PL_EXIT_TARGET;
	pl_plan_clear(&plan, live);
	if (plan.n)
		ret = run_whole(ctx, &plan, "clear");
	pl_plan_free(&plan);
	pl_node_free(live);
	return ret;
}

const struct pl_object pl_obj_save = {
	.name = "save",
	.run = save_run,
	.usage = "[FILE|-]",
	.summary = "write the configuration as JSON (default " PL_DEFAULT_CONFIG ")",
	.examples = "  purlinctl save\n  purlinctl save - > site.json\n",
};

const struct pl_object pl_obj_restore = {
	.name = "restore",
	.run = restore_run,
	.usage = "[FILE|-] [if-present] [--replace] [--force]",
	.summary = "merge a saved configuration into the target (--replace: remove what it lacks)",
	.examples = "  purlinctl -n restore site.json     # the operations, nothing done\n"
		    "  purlinctl restore site.json\n"
		    "  purlinctl restore site.json --replace   # as nvmetcli: the file is all there is\n",
};

const struct pl_object pl_obj_diff = {
	.name = "diff",
	.run = diff_run,
	.usage = "[FILE|-]",
	.summary = "the target against a saved configuration, in keywords (exit 8 if they differ)",
	.examples = "  purlinctl diff                 # against " PL_DEFAULT_CONFIG "\n"
		    "  purlinctl diff site.json\n",
};

const struct pl_object pl_obj_clear = {
	.name = "clear",
	.run = clear_run,
	.usage = "",
	.summary = "remove the whole configuration",
	.examples = "  purlinctl -n clear\n  purlinctl clear\n",
};

const struct pl_object pl_obj_remove = {
	.name = "remove",
	.run = remove_run,
	.usage = "FILE|-",
	.summary = "remove what restoring FILE made (ports and hosts still in use stay)",
	.examples = "  purlinctl -n remove disk1.json   # the operations, nothing done\n"
		    "  purlinctl remove disk1.json\n",
};
