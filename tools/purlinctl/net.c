// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl net: the network device under RDMA. show, set (read-modify-
 * write through netlink, verified by reading back), tune (the lossless
 * RoCE profile, with undo) and check (the profile's audit). What show
 * prints of a device is netshow.c; everything prints through print.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "netprofile.h"
#include "print.h"

struct net_args {
	const char *dev;
	bool json, dry_run, undo, jumbo;
	const char *profile;
	int prio, dscp;
	int nrest;
	char **rest;	/* what the verb did not take as an option */
};

static bool valid_dev(const char *dev)
{
	size_t len = strlen(dev);

	if (!len || len >= IF_NAMESIZE || !strcmp(dev, ".") || !strcmp(dev, ".."))
		return false;
	for (const char *c = dev; *c; c++)
		if (*c == '/' || *c == ':' || *c <= ' ' || *c == 0x7f)
			return false;
	return true;
}

static int take_int(const char *cmd, const char *opt, const char *val, int max, int *out)
{
	long long v;

	if (!val)
		return pl_usage_error(cmd, "'%s' needs a value", opt);
	if (!pl_parse_long(val, 10, &v) || v < 0 || v > max)
		return pl_usage_error(cmd, "%s '%s': must be 0-%d", opt, val, max);
	*out = (int)v;
	return 0;
}

static bool takes(const char *opts, char c)
{
	return strchr(opts, c) != NULL;
}

/*
 * DEV, then options anywhere: j (-j), n (-n), u (--undo), p (the profile
 * options). Words that are not options are left in rest (setter arguments).
 */
static int parse_args(struct pl_ctx *ctx, const char *cmd, const char *opts, int argc, char **argv,
		      struct net_args *a)
{
	memset(a, 0, sizeof(*a));
	a->json = ctx->json;
	a->dry_run = ctx->dry_run;
	a->prio = 3;
	a->dscp = 26;
	if (!argc)
		return pl_usage_error(cmd, "%s", "missing device");
	if (!valid_dev(argv[0]))
		return pl_usage_error(cmd, "'%s' is not a network device name", argv[0]);
	a->dev = argv[0];
	a->rest = xcalloc(argc, sizeof(*a->rest));
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
		int ret = 0;

		if (*w != '-')
			a->rest[a->nrest++] = argv[i];
		else if (takes(opts, 'j') && (!strcmp(w, "-j") || !strcmp(w, "--json")))
			a->json = true;
		else if (takes(opts, 'n') && (!strcmp(w, "-n") || !strcmp(w, "--dry-run")))
			a->dry_run = true;
		else if (takes(opts, 'u') && !strcmp(w, "--undo"))
			a->undo = true;
		else if (takes(opts, 'p') && !strcmp(w, "--jumbo"))
			a->jumbo = true;
		else if (takes(opts, 'p') && !strcmp(w, "--profile") && !next)
			ret = pl_usage_error(cmd, "'%s' needs a value", w);
		else if (takes(opts, 'p') && !strcmp(w, "--profile"))
			a->profile = argv[++i];
		else if (takes(opts, 'p') && !strcmp(w, "--prio") && !(ret = take_int(cmd, w, next, 7, &a->prio)))
			i++;
		else if (takes(opts, 'p') && !strcmp(w, "--dscp") && !(ret = take_int(cmd, w, next, 63, &a->dscp)))
			i++;
		else if (!ret)
			ret = pl_usage_error(cmd, "unknown option '%s'", w);
		if (ret) {
			free(a->rest);
			return ret;
		}
	}
	if (a->profile && strcmp(a->profile, PL_PROFILE_NAME)) {
		free(a->rest);
		return pl_usage_error(cmd, "unknown profile '%s' (%s)", a->profile, PL_PROFILE_NAME);
	}
	return 0;
}

static int no_rest(const char *cmd, struct net_args *a)
{
	if (a->nrest) {
		int ret = pl_usage_error(cmd, "unexpected argument '%s'", a->rest[0]);

		free(a->rest);
		return ret;
	}
	return 0;
}

/* Read the device; reports and returns an exit code on failure. */
static int read_dev(const char *dev, struct pl_net *st)
{
	struct pl_nlerr e = { 0 };

	if (!pl_net_read(dev, st, &e))
		return 0;
	if (*e.msg)
		pl_err("net %s: %s (%s)", dev, strerror(e.err), e.msg);
	else if (e.err == ENODEV)
		pl_err("net %s: no such network device (see 'ip -br link')", dev);
	else
		pl_err("net %s: %s", dev, strerror(e.err));
	return e.err == ENODEV ? PL_EXIT_NOTFOUND : PL_EXIT_FAIL;
}

/* net show without a device: every network device, as 'ip link show' lists them. */
static int net_show_all(struct pl_ctx *ctx, int argc, char **argv)
{
	struct pl_net *st = xmalloc(sizeof(*st));
	struct strv devs = { 0 };
	bool json = ctx->json;
	int ret = 0;

	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "-j") && strcmp(argv[i], "--json")) {
			free(st);
			return pl_usage_error("net show", "unexpected argument '%s'", argv[i]);
		}
		json = true;
	}
	pl_sys_netdevs(&devs);
	if (!devs.n) {
		pl_err("net show: no network devices found (see 'ip link show')");
		ret = PL_EXIT_NOTFOUND;
	}
	pl_print_start(json);
	pl_print_open_array(NULL);
	for (size_t i = 0; i < devs.n; i++) {
		int r = read_dev(devs.v[i], st);

		if (r) {
			ret = r;
			continue;
		}
		if (i)
			pl_print_nl();
		pl_net_show(st);
	}
	pl_print_close_array();
	pl_print_end();
	strv_free(&devs);
	free(st);
	pl_nl_close();
	return ret;
}

static int net_show(struct pl_ctx *ctx, int argc, char **argv)
{
	struct pl_net *st;
	struct net_args a;
	int ret;

	if (!argc || *argv[0] == '-')
		return net_show_all(ctx, argc, argv);
	ret = parse_args(ctx, "net show", "j", argc, argv, &a);

	if (ret || (ret = no_rest("net show", &a)))
		return ret;
	st = xmalloc(sizeof(*st));
	ret = read_dev(a.dev, st);
	if (!ret) {
		pl_print_start(a.json);
		pl_net_show(st);
		pl_print_end();
	}
	free(st);
	free(a.rest);
	pl_nl_close();
	return ret;
}

/* ---- plans: set, tune, undo ---- */

static void plan_entry(const struct pl_net *have, const struct pl_net *want, enum pl_knob k,
		       char **from, char **to)
{
	struct pl_net_patch fwd = { 0 }, back = { 0 };

	pl_net_diff_knob(have, want, k, &fwd);
	pl_net_diff_knob(want, have, k, &back);
	*to = fwd.n ? pl_net_format_knob(&fwd, k) : NULL;
	*from = fwd.n && k != PL_K_APP ? pl_net_format_knob(&back, k) : NULL;
	pl_patch_free(&fwd);
	pl_patch_free(&back);
}

/* The changes from have to want, and what the plan leaves out, as -n and tune print them. */
static void print_plan(const struct pl_net *have, const struct pl_net *want,
		       const struct strv *skipped, const char *undo_file)
{
	pl_print_open_object(NULL);
	pl_print_string(PL_JSON, "ifname", NULL, have->link.ifname);
	pl_print_open_list("changes", NULL, "  nothing to change\n");
	for (int k = 0; k < PL_NKNOBS; k++) {
		char *from, *to;

		plan_entry(have, want, k, &from, &to);
		if (!to)
			continue;
		pl_print_open_object(NULL);
		pl_print_string(PL_ANY, "knob", "  %-10s ", pl_knob_names[k]);
		pl_print_string(PL_ANY, "from", "%s -> ", from);
		pl_print_string(PL_ANY, "to", "%s\n", to);
		pl_print_close_object();
		free(from);
		free(to);
	}
	pl_print_close_array();
	pl_print_open_array("skipped");
	for (size_t i = 0; skipped && i < skipped->n; i++) {
		pl_print_text("  %-10s ", "skipped");
		pl_print_string(PL_ANY, NULL, "%s\n", skipped->v[i]);
	}
	pl_print_close_array();
	pl_print_string(PL_JSON, "undo_file", NULL, undo_file);
	pl_print_close_object();
}

static bool differs(const struct pl_net *a, const struct pl_net *b)
{
	struct pl_net_patch d = { 0 };
	bool ret;

	pl_net_diff(a, b, &d);
	ret = d.n > 0;
	pl_patch_free(&d);
	return ret;
}

/* want = have + p, reported as "net DEV: KNOB: why" when it cannot be. */
static int plan(const char *dev, const struct pl_net *have, const struct pl_net_patch *p,
		struct pl_net *want)
{
	char why[320];
	int ret = pl_net_apply(have, p, want, why, sizeof(why));

	if (ret)
		pl_err("net %s: %s", dev, why);
	return ret ? PL_EXIT_FAIL : 0;
}

static int net_set(struct pl_ctx *ctx, int argc, char **argv)
{
	struct pl_net_patch p = { 0 };
	struct pl_net *have, *want;
	struct net_args a;
	int ret = parse_args(ctx, "net set", "nj", argc, argv, &a);

	if (ret)
		return ret;
	ret = pl_net_parse("net set", a.nrest, a.rest, &p);
	free(a.rest);
	if (ret) {
		pl_patch_free(&p);
		return ret;
	}
	have = xmalloc(sizeof(*have));
	want = xmalloc(sizeof(*want));
	ret = read_dev(a.dev, have);
	if (!ret)
		ret = plan(a.dev, have, &p, want);
	if (!ret && a.dry_run) {
		pl_print_start(a.json);
		print_plan(have, want, NULL, NULL);
		pl_print_end();
	} else if (!ret && !differs(have, want)) {
		pl_note("net %s: nothing to change", a.dev);
	} else if (!ret && pl_net_execute(have, want, NULL)) {
		ret = PL_EXIT_FAIL;
	}
	pl_patch_free(&p);
	free(have);
	free(want);
	pl_nl_close();
	return ret;
}

static void profile_from(const struct net_args *a, struct pl_profile *pr)
{
	pl_profile_defaults(pr);
	pr->prio = a->prio;
	pr->dscp = a->dscp;
	pr->jumbo = a->jumbo;
}

/* The whole of a small file, or NULL. */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	if (getdelim(&text, &len, '\0', f) < 0) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

/* Save how to go back, run, and put the undo file back as it was on failure. */
static int tune_run(struct pl_net *have, const struct pl_net *want, const char *path,
		    enum pl_knob *failed)
{
	struct pl_net_patch undo = { 0 };
	char *before = read_text(path);
	int ret;

	pl_net_diff(want, have, &undo);
	ret = pl_undo_save(path, have->link.ifname, &undo) ? PL_EXIT_FAIL : 0;
	pl_patch_free(&undo);
	if (!ret && pl_net_execute(have, want, failed)) {
		int err = before ? pl_write_atomic(path, before, 0666) :
				   unlink(path) && errno != ENOENT ? -errno : 0;

		if (err)
			pl_err_obj(path, before ? "write" : "unlink", -err);
		ret = PL_EXIT_FAIL;
	}
	free(before);
	return ret;
}

static int tune_undo(const struct net_args *a, struct pl_net *have, struct pl_net *want)
{
	struct pl_net *before = xmalloc(sizeof(*before));
	struct pl_net_patch p = { 0 };
	char *path = pl_undo_path(a->dev);
	int ret = pl_undo_load(path, a->dev, &p);

	if (!ret && !p.n) {
		pl_err("net %s: nothing to undo (no %s)", a->dev, path);
		ret = PL_EXIT_FAIL;
	}
	if (!ret)
		ret = read_dev(a->dev, have);
	if (!ret)
		ret = plan(a->dev, have, &p, want);
	*before = *have;
	if (!ret && !a->dry_run && pl_net_execute(have, want, NULL))
		ret = PL_EXIT_FAIL;
	if (!ret && !a->dry_run && unlink(path) && errno != ENOENT)
		pl_err_obj(path, "unlink", errno);
	if (!ret) {
		pl_print_start(a->json);
		pl_print_text("net tune %s: undo from %s%s\n", a->dev, path,
			      a->dry_run ? ", dry run" : "");
		print_plan(before, want, NULL, path);
		pl_print_end();
	}
	pl_patch_free(&p);
	free(before);
	free(path);
	return ret;
}

/*
 * Plan the fixes of the audit and run them. When the device refuses a knob
 * that only optional items (WARN) set, those are dropped and the rest
 * tried again from the rolled-back state; a refused required knob fails.
 */
static int tune_apply(const struct net_args *a, struct pl_audit *au, struct pl_net *have,
		      struct pl_net *want, struct strv *skipped, bool *changes)
{
	char *path = pl_undo_path(a->dev);
	int ret;

	for (;;) {
		struct pl_net_patch fix = { 0 };
		enum pl_knob failed = PL_NKNOBS;

		strv_free(skipped);
		pl_profile_plan(au, &fix, skipped);
		ret = plan(a->dev, have, &fix, want);
		pl_patch_free(&fix);
		*changes = !ret && differs(have, want);
		if (ret || !*changes || a->dry_run)
			break;
		ret = tune_run(have, want, path, &failed);
		if (!ret || failed == PL_NKNOBS || !pl_profile_drop(au, failed))
			break;
		pl_err("net %s: %s is optional in the profile: tuning without it", a->dev,
		       pl_knob_names[failed]);
		ret = read_dev(a->dev, have);
		if (ret)
			break;
	}
	free(path);
	return ret;
}

static int tune_profile(const struct net_args *a, struct pl_net *have, struct pl_net *want)
{
	struct pl_net *before = xmalloc(sizeof(*before));
	struct pl_audit *au = xcalloc(1, sizeof(*au));
	struct strv skipped = { 0 };
	struct pl_profile pr;
	char *path = pl_undo_path(a->dev);
	bool changes = false;
	int ret = read_dev(a->dev, have);

	profile_from(a, &pr);
	*before = *have;
	if (!ret) {
		pl_audit(have, &pr, au);
		ret = tune_apply(a, au, have, want, &skipped, &changes);
	}
	if (!ret) {
		pl_print_start(a->json);
		pl_print_text("net tune %s: profile %s (prio %d, DSCP %d, MTU %u)%s\n", a->dev,
			      PL_PROFILE_NAME, pr.prio, pr.dscp, pl_profile_mtu(&pr),
			      a->dry_run ? ", dry run" : "");
		print_plan(before, want, &skipped, changes && !a->dry_run ? path : NULL);
		if (changes && !a->dry_run)
			pl_print_text("previous settings saved in %s ('purlinctl net tune %s --undo' restores them)\n",
				      path, a->dev);
		if (skipped.n)
			pl_print_text("%zu item%s of the profile cannot be set on %s: 'purlinctl net check %s' reports them\n",
				      skipped.n, skipped.n == 1 ? "" : "s", a->dev, a->dev);
		pl_print_end();
	}
	pl_audit_free(au);
	free(au);
	free(before);
	strv_free(&skipped);
	free(path);
	return ret;
}

static int net_tune(struct pl_ctx *ctx, int argc, char **argv)
{
	struct pl_net *have, *want;
	struct net_args a;
	int ret = parse_args(ctx, "net tune", "njup", argc, argv, &a);

	if (ret || (ret = no_rest("net tune", &a)))
		return ret;
	free(a.rest);
	if (a.undo == !!a.profile)
		return pl_usage_error("net tune", "%s", a.undo ? "--undo takes no --profile" :
					       "--profile " PL_PROFILE_NAME " or --undo is required");
	have = xmalloc(sizeof(*have));
	want = xmalloc(sizeof(*want));
	ret = a.undo ? tune_undo(&a, have, want) : tune_profile(&a, have, want);
	free(have);
	free(want);
	pl_nl_close();
	return ret;
}

/* ---- check ---- */

static void print_fix(const struct pl_net *st, const struct pl_check_item *it)
{
	char *fix, *cmd;

	if (it->fix.n) {
		fix = pl_net_format_str(&it->fix);
		cmd = xasprintf("purlinctl net set %s %s", st->link.ifname, fix);
		pl_print_text("%16s", "");
		pl_print_string(PL_ANY, "fix", "fix: %s\n", cmd);
		free(cmd);
		free(fix);
	} else if (*it->advice) {
		pl_print_text("%16s", "");
		pl_print_string(PL_ANY, "fix", "fix: %s\n", it->advice);
	}
}

/* The profile's items, graded, with their fixes, and the count of each grade. */
static void print_check(const struct pl_net *st, const struct pl_profile *pr,
			const struct pl_audit *au)
{
	unsigned int count[PL_NGRADES] = { 0 };

	pl_print_open_object(NULL);
	pl_print_string(PL_ANY, "ifname", "%s: ", st->link.ifname);
	pl_print_string(PL_ANY, "profile", "profile %s", PL_PROFILE_NAME);
	pl_print_open_object("params");
	pl_print_int(PL_ANY, "prio", " (prio %d", pr->prio);
	pl_print_int(PL_ANY, "dscp", ", DSCP %d", pr->dscp);
	pl_print_int(PL_JSON, "cnp_prio", NULL, pr->cnp_prio);
	pl_print_int(PL_ANY, "cnp_dscp", ", CNP DSCP %d", pr->cnp_dscp);
	pl_print_text(" prio %d", pr->cnp_prio);
	pl_print_uint(PL_ANY, "min_mtu", ", MTU >= %u)\n", pl_profile_min_mtu(pr));
	pl_print_close_object();
	pl_print_open_array("items");
	for (size_t i = 0; i < au->n; i++) {
		const struct pl_check_item *it = &au->item[i];

		count[it->grade]++;
		pl_print_open_object(NULL);
		pl_print_text("%-4s  ", it->grade == PL_PASS ? "PASS" : it->grade == PL_WARN ? "WARN" :
			      it->grade == PL_FAIL ? "FAIL" : "N/A");
		pl_print_string(PL_ANY, "item", "%-9s ", it->name);
		pl_print_string(PL_JSON, "status", NULL, pl_grade_name(it->grade));
		pl_print_string(PL_ANY, "reason", "%s\n", it->reason);
		if (it->grade == PL_WARN || it->grade == PL_FAIL)
			print_fix(st, it);
		pl_print_close_object();
	}
	pl_print_close_array();
	pl_print_open_object("summary");
	pl_print_uint(PL_ANY, pl_grade_name(PL_PASS), "check: %u pass", count[PL_PASS]);
	pl_print_uint(PL_ANY, pl_grade_name(PL_WARN), ", %u warn", count[PL_WARN]);
	pl_print_uint(PL_ANY, pl_grade_name(PL_FAIL), ", %u fail", count[PL_FAIL]);
	pl_print_uint(PL_ANY, pl_grade_name(PL_NA), ", %u n/a\n", count[PL_NA]);
	pl_print_close_object();
	pl_print_close_object();
}

static int net_check(struct pl_ctx *ctx, int argc, char **argv)
{
	struct pl_audit *au;
	struct pl_profile pr;
	struct pl_net *st;
	struct net_args a;
	int ret = parse_args(ctx, "net check", "jp", argc, argv, &a);

	if (ret || (ret = no_rest("net check", &a)))
		return ret;
	free(a.rest);
	profile_from(&a, &pr);
	st = xmalloc(sizeof(*st));
	au = xcalloc(1, sizeof(*au));
	ret = read_dev(a.dev, st);
	if (!ret) {
		pl_audit(st, &pr, au);
		pl_print_start(a.json);
		print_check(st, &pr, au);
		pl_print_end();
		for (size_t i = 0; i < au->n; i++)
			if (au->item[i].grade == PL_FAIL)
				ret = PL_EXIT_CHECK;
	}
	pl_audit_free(au);
	free(au);
	free(st);
	pl_nl_close();
	return ret;
}

#define NET_KNOBS                                                                              \
	"\n"                                                                                   \
	"Knobs of 'net set' (several in one command; each is read, changed, written\n"         \
	"and read back):\n"                                                                    \
	"  pfc [prio-pfc P:on|off...] [macsec-bypass on|off] [delay N]\n"                     \
	"  ets [willing on|off] [tc-tsa TC:strict|cbs|ets|vendor...] [tc-bw TC:PCT...]\n"     \
	"      [prio-tc P:TC...]                  (P and TC are 0-7 or all)\n"                \
	"  app {add|del|replace} {dscp|udp|tcp|port|ethtype} N prio P ...\n"                  \
	"  trust SEL... | trust none             (SEL: dscp pcp udp tcp port ethtype)\n"      \
	"  dcbx [host|lld-managed] [ieee] [cee] [static]\n"                                   \
	"  mtu N\n"                                                                            \
	"  coalesce NAME VALUE...                (ethtool -C names: adaptive-rx on, rx-usecs 8)\n" \
	"  ring {rx|tx|rx-mini|rx-jumbo|rx-buf-len|cqe-size} N...\n"                          \
	"  pause [autoneg on|off] [rx on|off] [tx on|off]\n"                                  \
	"  ecn {prio|np|rp} P|all on|off...       (vendor ECN/DCQCN knobs)\n"                 \
	"  cnp [dscp N] [prio P]\n"                                                            \
	"  roce-tos TOS                          (RDMA CM default ToS of the RDMA ports)\n"

static const struct pl_verb net_verbs[] = {
	{ "show", net_show, "[DEV] [-j]" },
	{ "set", net_set, "DEV KNOB ARGS... [KNOB ARGS...]... [-n]" },
	{ "tune", net_tune,
	  "DEV --profile " PL_PROFILE_NAME " [--prio P] [--dscp N] [--jumbo] [-n] [-j]\n"
	  "  purlinctl [OPTIONS] net tune DEV --undo [-n]" },
	{ "check", net_check, "DEV [--prio P] [--dscp N] [--jumbo] [-j]" },
	{ NULL, NULL, NULL },
};

const struct pl_object pl_obj_net = {
	.name = "net",
	.verbs = net_verbs,
	.usage = NET_KNOBS,
	.summary = "tune the network device under RDMA (PFC, ETS, DSCP, ECN, MTU, ...)",
};
