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
};

static int restore_parse(struct pl_ctx *ctx, int argc, char **argv,
			 struct restore_args *args)
{
	args->file = NULL;
	args->if_present = false;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "if-present"))
			args->if_present = true;
		else if (i == 0)
			args->file = argv[i];
		else
			return pl_usage_error("restore", "unexpected argument '%s'", argv[i]);
	}
	return args->file ? 0 : default_file(ctx, "restore", &args->file);
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
	ret = PL_EXIT_FILE;
	if (pl_conf_load(args.file, &want))
		goto out;
	ret = PL_EXIT_TARGET;
	if (pl_open(ctx, &live))
		goto out;
	ret = PL_EXIT_FILE;
	if (pl_conf_check(want, live, source))
		goto out;
	pl_sort(want);
	pl_plan_restore(&plan, want, live);
	ret = PL_EXIT_OK;
	if (plan.n)
		ret = run_whole(ctx, &plan, "restore");
	else
		pl_note("%s: the target already matches", source);
out:
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
	.usage = "[FILE|-] [if-present]",
	.summary = "merge a saved configuration into the target, all or nothing",
	.examples = "  purlinctl -n restore site.json     # the operations, nothing done\n"
		    "  purlinctl restore site.json\n",
};

const struct pl_object pl_obj_clear = {
	.name = "clear",
	.run = clear_run,
	.usage = "",
	.summary = "remove the whole configuration",
	.examples = "  purlinctl -n clear\n  purlinctl clear\n",
};
