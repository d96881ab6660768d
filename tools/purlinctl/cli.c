// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: global options, the object table and argument helpers.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "cli.h"
#include "conf.h"
#include "print.h"
#include "scan.h"
#include "target.h"

static const struct pl_object *const objects[] = {
	&pl_obj_subsys,
	&pl_obj_ns,
	&pl_obj_port,
	&pl_obj_host,
	&pl_obj_referral,
	&pl_obj_ana,
	&pl_obj_save,
	&pl_obj_restore,
	&pl_obj_diff,
	&pl_obj_clear,
	&pl_obj_remove,
	&pl_obj_status,
	&pl_obj_stats,
	&pl_obj_top,
	&pl_obj_net,
};

static void print_usage(FILE *f)
{
	fputs("Usage: purlinctl [OPTIONS] OBJECT COMMAND [ARGUMENTS]\n"
	      "       purlinctl [OPTIONS] save|restore|diff [FILE|-]\n"
	      "       purlinctl [OPTIONS] clear\n"
	      "       purlinctl [OPTIONS] remove FILE|-\n"
	      "       purlinctl [OPTIONS] status\n"
	      "       purlinctl [OPTIONS] stats [-o text|json|prometheus]\n"
	      "       purlinctl [OPTIONS] top [-d SECONDS] [-c COUNT] [-r ROWS] [-s SORT]\n"
	      "\n"
	      "Objects:\n", f);
	for (size_t i = 0; i < ARRAY_SIZE(objects); i++)
		fprintf(f, "  %-10s %s\n", objects[i]->name, objects[i]->summary);
	fputs("\n"
	      "Options:\n"
	      "  -j, --json            JSON output (list, show, status, net; with -n the plan)\n"
	      "      --target NAME     purlin (default) or nvmet\n"
	      "      --root DIR        use DIR as the configfs root of the target\n"
	      "  -n, --dry-run         print the configfs operations instead of running them\n"
	      "  -v, --verbose         report each operation and every skipped attribute\n"
	      "  -h, --help            this help; 'purlinctl OBJECT help' for an object\n"
	      "  -V, --version         print the version\n", f);
}

static void print_object_usage(FILE *f, const struct pl_object *obj)
{
	fprintf(f, "Usage:\n");
	if (!obj->verbs) {
		fprintf(f, "  purlinctl [OPTIONS] %s%s%s\n", obj->name, *obj->usage ? " " : "",
			obj->usage);
		return;
	}
	for (const struct pl_verb *v = obj->verbs; v->name; v++)
		fprintf(f, "  purlinctl [OPTIONS] %s %s%s%s\n", obj->name, v->name,
			*v->usage ? " " : "", v->usage);
	if (obj->usage)
		fputs(obj->usage, f);
	if (obj->examples)
		fprintf(f, "\nExamples:\n%s", obj->examples);
}

const char *pl_keyword_of(enum pl_type type, const char *file)
{
	for (size_t i = 0; i < ARRAY_SIZE(objects); i++) {
		const struct pl_kw *kw = objects[i]->kws;

		for (; kw && objects[i]->type == type && kw->name; kw++)
			if (!strcmp(kw->file, file))
				return kw->name;
	}
	return NULL;
}

/*
 * -j, -n and -v are taken after the object too (as net takes them after
 * its device): no id or value of the configfs objects looks like them.
 */
static void take_late_options(struct pl_ctx *ctx, int *argc, char **argv)
{
	int n = 0;

	for (int i = 0; i < *argc; i++) {
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json"))
			ctx->json = true;
		else if (!strcmp(argv[i], "-n") || !strcmp(argv[i], "--dry-run"))
			ctx->dry_run = true;
		else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose"))
			pl_verbose = true;
		else
			argv[n++] = argv[i];
	}
	*argc = n;
}

static bool is_help(const char *arg)
{
	return !strcmp(arg, "help") || !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

/* "--help" or "-h" anywhere after the object (no id or value starts so). */
static bool wants_help(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

int pl_dispatch(struct pl_ctx *ctx, const struct pl_object *obj, int argc, char **argv)
{
	if ((argc && is_help(argv[0])) || wants_help(argc, argv)) {
		print_object_usage(pl_out, obj);
		return PL_EXIT_OK;
	}
	if (obj != &pl_obj_net)
		take_late_options(ctx, &argc, argv);
	if (!obj->verbs)
		return obj->run(ctx, argc, argv);
	if (!argc)
		return pl_usage_error(obj->name, "%s", "missing command");
	for (const struct pl_verb *v = obj->verbs; v->name; v++)
		if (!strcmp(v->name, argv[0]))
			return v->run(ctx, argc - 1, argv + 1);
	return pl_usage_error(obj->name, "unknown command '%s'", argv[0]);
}

enum {
	OPT_TARGET = 0x100,
	OPT_ROOT,
};

static const struct option long_opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "dry-run", no_argument, NULL, 'n' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "target", required_argument, NULL, OPT_TARGET },
	{ "root", required_argument, NULL, OPT_ROOT },
	{ NULL, 0, NULL, 0 },
};

/* Returns -1 to go on with the object, or an exit code. */
static int parse_options(struct pl_ctx *ctx, int argc, char **argv)
{
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:jnvhV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			ctx->json = true;
			break;
		case 'n':
			ctx->dry_run = true;
			break;
		case 'v':
			pl_verbose = true;
			break;
		case 'h':
			print_usage(pl_out);
			return PL_EXIT_OK;
		case 'V':
			fprintf(pl_out, "purlinctl %s\n", PURLIN_VERSION);
			return PL_EXIT_OK;
		case OPT_TARGET:
			if (!pl_target_valid(optarg)) {
				pl_err("--target: unknown target '%s' (purlin or nvmet)", optarg);
				return PL_EXIT_USAGE;
			}
			ctx->target = optarg;
			break;
		case OPT_ROOT:
			ctx->root = optarg;
			break;
		case ':':
			pl_err("option '%s' needs a value (see 'purlinctl --help')",
			       argv[optind - 1]);
			return PL_EXIT_USAGE;
		default:
			if (optopt)
				pl_err("invalid option '-%c' (see 'purlinctl --help')", optopt);
			else
				pl_err("invalid option '%s' (see 'purlinctl --help')",
				       argv[optind - 1]);
			return PL_EXIT_USAGE;
		}
	}
	return -1;
}

int pl_main(int argc, char **argv)
{
	struct pl_ctx ctx = { .target = "purlin" };
	int ret;

	if (!pl_out)
		pl_out = stdout;
	if (!pl_errs)
		pl_errs = stderr;
	pl_verbose = false;
	pl_conf_allow_unknown = false;
	ret = parse_options(&ctx, argc, argv);
	if (ret >= 0)
		return ret;
	pl_target_nvmet = !strcmp(ctx.target, "nvmet");
	argc -= optind;
	argv += optind;
	if (!argc) {
		print_usage(pl_errs);
		return PL_EXIT_USAGE;
	}
	if (is_help(argv[0]) && argc > 1) {
		/* purlinctl help OBJECT: that object's usage. */
		for (size_t i = 0; i < ARRAY_SIZE(objects); i++) {
			if (!strcmp(objects[i]->name, argv[1])) {
				print_object_usage(pl_out, objects[i]);
				return PL_EXIT_OK;
			}
		}
		pl_err("help: unknown object '%s' (see 'purlinctl --help')", argv[1]);
		return PL_EXIT_USAGE;
	}
	if (is_help(argv[0])) {
		print_usage(pl_out);
		return PL_EXIT_OK;
	}
	for (size_t i = 0; i < ARRAY_SIZE(objects); i++)
		if (!strcmp(objects[i]->name, argv[0]))
			return pl_dispatch(&ctx, objects[i], argc - 1, argv + 1);
	pl_err("unknown object '%s' (see 'purlinctl --help')", argv[0]);
	return PL_EXIT_USAGE;
}

int pl_open(struct pl_ctx *ctx, struct pl_node **live)
{
	int ret = pl_target_open(ctx->target, ctx->root, ctx->dry_run);

	if (!ret)
		ret = pl_scan(live);
	return ret;
}

/* A dry run's operations as JSON: [{"op": "write", "path": ..., "value": ...}, ...]. */
static void print_plan_json(const struct pl_plan *plan)
{
	static const char *const names[] = {
		[PL_OP_MKDIR] = "mkdir", [PL_OP_RMDIR] = "rmdir", [PL_OP_WRITE] = "write",
		[PL_OP_LINK] = "link", [PL_OP_UNLINK] = "unlink",
	};

	pl_print_start(true);
	pl_print_open_array(NULL);
	for (size_t i = 0; i < plan->n; i++) {
		const struct pl_op *op = &plan->v[i];

		pl_print_open_object(NULL);
		pl_print_string(PL_JSON, "op", NULL, names[op->kind]);
		pl_print_string(PL_JSON, "path", NULL, op->path);
		if (op->kind == PL_OP_WRITE)
			pl_print_string(PL_JSON, "value", NULL, op->arg);
		else if (op->kind == PL_OP_LINK)
			pl_print_string(PL_JSON, "target", NULL, op->arg);
		pl_print_close_object();
	}
	pl_print_close_array();
	pl_print_end();
}

int pl_run_plan(struct pl_ctx *ctx, struct pl_plan *plan)
{
	if (ctx->dry_run && ctx->json) {
		print_plan_json(plan);
		return PL_EXIT_OK;
	}
	if (ctx->dry_run) {
		pl_plan_print(plan, pl_out);
		return PL_EXIT_OK;
	}
	return pl_plan_exec(plan) ? PL_EXIT_FAIL : PL_EXIT_OK;
}

static void type_chain(enum pl_type type, enum pl_type *chain, size_t *n)
{
	if (type == PL_ROOT)
		return;
	type_chain(pl_parent_type(type), chain, n);
	chain[(*n)++] = type;
}

struct pl_node *pl_want(enum pl_type type, char **ids)
{
	enum pl_type chain[PL_NTYPES];
	struct pl_node *node = pl_node_new(PL_ROOT, NULL, NULL);
	size_t n = 0;

	type_chain(type, chain, &n);
	for (size_t i = 0; i < n; i++)
		node = pl_node_new(chain[i], ids[i], node);
	return node;
}

void pl_want_free(struct pl_node *want)
{
	pl_node_free(pl_root_of(want));
}

struct pl_node *pl_lookup(struct pl_node *live, const struct pl_node *want)
{
	struct pl_node *parent;

	if (!want->parent)
		return live;
	parent = pl_lookup(live, want->parent);
	return parent ? pl_find(parent, want->type, want->id) : NULL;
}

static int check_id_arg(const char *cmd, const struct pl_type_spec *spec, const char *arg)
{
	const char *why = spec->check_id(arg);

	if (why)
		return pl_usage_error(cmd, "%s %s '%s' %s", spec->label, spec->json_id, arg, why);
	return 0;
}

int pl_take_ids(const char *cmd, enum pl_type type, int argc, char **argv, int nids)
{
	enum pl_type chain[PL_NTYPES];
	size_t n = 0;
	int ret = 0;

	type_chain(type, chain, &n);
	for (int i = 0; !ret && i < nids; i++) {
		const struct pl_type_spec *spec = pl_spec(chain[n - nids + i]);

		if (i >= argc)
			return pl_usage_error(cmd, "missing %s %s", spec->label, spec->json_id);
		ret = check_id_arg(cmd, spec, argv[i]);
	}
	return ret;
}

static const struct pl_kw *find_kw(const struct pl_kw *kws, const char *name)
{
	for (; kws && kws->name; kws++)
		if (!strcmp(kws->name, name))
			return kws;
	return NULL;
}

int pl_parse_kws(const char *cmd, const struct pl_kw *kws, int argc, char **argv,
		 struct pl_node *want)
{
	const struct pl_kw **seen = xcalloc(argc + 1, sizeof(*seen));
	size_t nseen = 0;
	int ret = 0;

	for (int i = 0; !ret && i < argc; i++) {
		const struct pl_kw *kw = find_kw(kws, argv[i]);
		const char *val;

		if (!kw) {
			ret = pl_usage_error(cmd, "unknown argument '%s'", argv[i]);
			break;
		}
		/* The last one winning would hide a mistake: say which two collide. */
		for (size_t j = 0; !ret && j < nseen; j++) {
			if (strcmp(seen[j]->file, kw->file))
				continue;
			if (seen[j] == kw)
				ret = pl_usage_error(cmd, "'%s' is given twice", kw->name);
			else
				ret = pl_usage_error(cmd, "'%s' and '%s' contradict each other",
						     seen[j]->name, kw->name);
		}
		if (ret)
			break;
		seen[nseen++] = kw;
		if (kw->flag) {
			pl_set(want, kw->file, kw->flag);
			continue;
		}
		if (++i >= argc) {
			ret = pl_usage_error(cmd, "'%s' needs a value", kw->name);
			break;
		}
		val = kw->conv ? kw->conv(argv[i]) : argv[i];
		if (!val)
			ret = pl_usage_error(cmd, "%s: invalid value '%s'", kw->name, argv[i]);
		else
			pl_set(want, kw->file, val);
	}
	free(seen);
	return ret;
}

/* have's attributes overlaid with want's, for checks across fields. */
static struct pl_node *merged(const struct pl_node *want, const struct pl_node *have)
{
	struct pl_node *m = pl_node_new(want->type, want->id, NULL);

	for (size_t i = 0; have && i < have->attrs.n; i++)
		pl_set(m, have->attrs.v[i].name, have->attrs.v[i].value);
	for (size_t i = 0; i < want->attrs.n; i++)
		pl_set(m, want->attrs.v[i].name, want->attrs.v[i].value);
	for (size_t i = 0; have && i < have->links.n; i++)
		strv_add(&m->links, have->links.v[i]);
	return m;
}

static int check_values(const char *cmd, const struct pl_node *want)
{
	for (size_t i = 0; i < want->attrs.n; i++) {
		const struct pl_kv *kv = &want->attrs.v[i];
		const char *why = pl_attr_check(want->type, kv->name, kv->value);

		if (why)
			return pl_usage_error(cmd, "%s '%s' %s", kv->name, kv->value, why);
		if (pl_target_nvmet && pl_attr_purlin_only(want->type, kv->name))
			return pl_usage_error(cmd, "%s is Purlin's own: nvmet has no such attribute",
					      kv->name);
	}
	return 0;
}

/*
 * A namespace's device as the target will open it: a block device, or a
 * regular file of whole 512-byte blocks, at least 4 KiB (a smaller one,
 * /etc/passwd say, is no disk).
 */
static int check_device(const char *cmd, const char *path)
{
	struct stat st;
	int ret = cfs_stat_device(path, &st);

	if (ret)
		return pl_usage_error(cmd, "path %s: %s: a namespace needs an existing block device or file (see 'lsblk')",
				      path, strerror(-ret));
	if (S_ISBLK(st.st_mode))
		return 0;
	if (!S_ISREG(st.st_mode))
		return pl_usage_error(cmd, "path %s is neither a block device nor a regular file",
				      path);
	if (st.st_size < 4096 || st.st_size % 512)
		return pl_usage_error(cmd, "path %s is a file of %lld bytes: a namespace file holds whole 512-byte blocks, at least 4096 bytes (make one with 'truncate -s 1G FILE')",
				      path, (long long)st.st_size);
	return 0;
}

int pl_check_attrs(const char *cmd, const struct pl_node *want)
{
	const char *path = want->type == PL_NS ? pl_get(want, "device_path") : NULL;
	int ret = check_values(cmd, want);

	if (!ret && path)
		ret = check_device(cmd, path);
	return ret;
}


int pl_check_cross(const char *cmd, const struct pl_node *want, const struct pl_node *have)
{
	const struct pl_type_spec *spec = pl_spec(want->type);
	const char *why, *field = NULL;
	struct pl_node *m;

	if (!spec->check)
		return 0;
	m = merged(want, have);
	why = spec->check(m, &field);
	if (why)
		pl_usage_error(cmd, "%s %s", field, why);
	pl_node_free(m);
	return why ? PL_EXIT_USAGE : 0;
}

static int no_more_args(const char *cmd, int argc, char **argv, int used)
{
	if (argc > used)
		return pl_usage_error(cmd, "unexpected argument '%s'", argv[used]);
	return 0;
}

static int parse_want(const char *cmd, enum pl_type type, int nids, const struct pl_kw *kws,
		      int argc, char **argv, struct pl_node **want)
{
	int ret = pl_take_ids(cmd, type, argc, argv, nids);

	if (ret)
		return ret;
	*want = pl_want(type, argv);
	ret = pl_parse_kws(cmd, kws, argc - nids, argv + nids, *want);
	if (!ret)
		ret = pl_check_attrs(cmd, *want);
	if (ret)
		pl_want_free(*want);
	return ret;
}

int pl_cmd_add(struct pl_ctx *ctx, const char *cmd, enum pl_type type, int nids,
	       const struct pl_kw *kws, pl_fill_fn fill, int argc, char **argv)
{
	const struct pl_type_spec *spec = pl_spec(type);
	struct pl_node *want;
	const char *why;
	int ret = parse_want(cmd, type, nids, kws, argc, argv, &want);

	if (ret)
		return ret;
	if (spec->warn_id && (why = spec->warn_id(want->id)))
		pl_err("%s: warning: %s %s '%s' %s (Linux accepts it; the NVMe specification does not)",
		       cmd, spec->label, spec->json_id, want->id, why);
	if (fill)
		ret = fill(cmd, want);
	if (!ret)
		ret = pl_check_attrs(cmd, want);
	if (!ret)
		ret = pl_check_cross(cmd, want, NULL);
	if (!ret)
		ret = pl_verb_add(ctx, want);
	pl_want_free(want);
	return ret;
}

int pl_cmd_set(struct pl_ctx *ctx, const char *cmd, enum pl_type type, int nids,
	       const struct pl_kw *kws, int argc, char **argv)
{
	struct pl_node *want;
	int ret = parse_want(cmd, type, nids, kws, argc, argv, &want);

	if (ret)
		return ret;
	if (!want->attrs.n)
		ret = pl_usage_error(cmd, "%s", "nothing to set");
	else
		ret = pl_verb_set(ctx, want);
	pl_want_free(want);
	return ret;
}

int pl_cmd_ids(struct pl_ctx *ctx, const char *cmd, enum pl_type type, int nids, pl_verb_fn verb,
	       int argc, char **argv)
{
	struct pl_node *want;
	int ret = pl_take_ids(cmd, type, argc, argv, nids);

	if (!ret)
		ret = no_more_args(cmd, argc, argv, nids);
	if (ret)
		return ret;
	want = pl_want(type, argv);
	ret = verb(ctx, want);
	pl_want_free(want);
	return ret;
}

int pl_cmd_link(struct pl_ctx *ctx, const char *cmd, enum pl_type type, bool add, int argc,
		char **argv)
{
	const struct pl_type_spec *spec = pl_spec(pl_spec(type)->link_target);
	struct pl_node *want;
	int ret = pl_take_ids(cmd, type, argc, argv, 1);

	if (ret)
		return ret;
	if (argc < 2)
		return pl_usage_error(cmd, "missing %s", spec->label);
	ret = check_id_arg(cmd, spec, argv[1]);
	if (!ret)
		ret = no_more_args(cmd, argc, argv, 2);
	if (ret)
		return ret;
	want = pl_want(type, argv);
	ret = pl_verb_link(ctx, want, argv[1], add);
	pl_want_free(want);
	return ret;
}

int pl_cmd_list(struct pl_ctx *ctx, const char *cmd, enum pl_type type, const struct pl_col *cols,
		size_t ncols, int argc, char **argv)
{
	enum pl_type parent = pl_parent_type(type);
	int nparent = parent != PL_ROOT && argc ? 1 : 0;
	int ret = nparent ? check_id_arg(cmd, pl_spec(parent), argv[0]) : 0;

	if (!ret)
		ret = no_more_args(cmd, argc, argv, nparent);
	if (!ret)
		ret = pl_verb_list(ctx, type, nparent ? argv[0] : NULL, cols, ncols);
	return ret;
}
