// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl net: the network device under RDMA. show, set (read-modify-
 * write through netlink, verified by reading back), tune (the lossless
 * RoCE profile, with undo) and check (the profile's audit).
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/ethtool_netlink.h>

#include "cli.h"
#include "conf.h"
#include "netprofile.h"

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
	else
		pl_err("net %s: %s", dev, strerror(e.err));
	return PL_EXIT_FAIL;
}

/* ---- show ---- */

static void unsupported_list(const struct pl_net *st, struct strv *out)
{
	if (st->dcb_err)
		strv_add(out, "dcb");
	if (!st->dcb_err && !(st->dcb.have & PL_DCB_ETS))
		strv_add(out, "ets");
	if (!st->dcb_err && !(st->dcb.have & PL_DCB_PFC))
		strv_add(out, "pfc");
	if (!st->dcb_err && !(st->dcb.have & PL_DCB_TRUST))
		strv_add(out, "apptrust");
	if (!st->dcb_err && !(st->dcb.have & PL_DCB_DCBX))
		strv_add(out, "dcbx");
	if (st->coal_err)
		strv_add(out, "coalesce");
	if (!st->coal_err && !pl_et_has(&st->coal, ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX))
		strv_add(out, "adaptive-rx");
	if (!st->coal_err && !pl_et_has(&st->coal, ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX))
		strv_add(out, "adaptive-tx");
	if (st->ring_err)
		strv_add(out, "ring");
	if (st->pause_err)
		strv_add(out, "pause");
	if (!st->ecn.be || (!st->ecn.be->np && st->ecn.enable < 0))
		strv_add(out, "ecn");
	if (!st->ecn.be || (st->ecn.cnp_dscp < 0 && st->ecn.cnp_prio < 0))
		strv_add(out, "cnp");
	if (!st->rdma.n)
		strv_add(out, "rdma");
	if (st->rdma.n && !st->rdma.cm_cfs)
		strv_add(out, "roce-tos");
}

/* Setter words of p, without the knob keyword k. */
static char *words_of(const struct pl_net_patch *p, enum pl_knob k)
{
	struct strv words = { 0 };
	char *out;

	pl_net_format(p, &words);
	if (words.n && !strcmp(words.v[0], pl_knob_names[k]))
		strv_del(&words, words.v[0]);
	out = strv_join(&words, " ");
	strv_free(&words);
	return out;
}

/* Knob k of st in full as setter words, e.g. "prio-pfc 0:off ... 7:off delay 0". */
static char *knob_words(const struct pl_net *st, enum pl_knob k)
{
	struct pl_net_patch all = { 0 };
	char *out;

	pl_net_describe(st, k, &all);
	out = words_of(&all, k);
	pl_patch_free(&all);
	return out;
}

static void line(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void line(const char *key, const char *fmt, ...)
{
	va_list ap;

	fprintf(pl_out, "  %-12s ", key);
	va_start(ap, fmt);
	vfprintf(pl_out, fmt, ap);
	va_end(ap);
	fputc('\n', pl_out);
}

static const char *trust_source(const struct pl_dcb *d, char *buf, size_t len)
{
	bool dscp = false;

	if (d->have & PL_DCB_TRUST) {
		struct strv sv = { 0 };
		char *s;

		for (size_t i = 0; i < d->ntrust; i++)
			strv_add(&sv, pl_dcb_sel_name(d->trust[i]) ? pl_dcb_sel_name(d->trust[i]) : "?");
		s = strv_join(&sv, " ");
		snprintf(buf, len, "%s (apptrust)", *s ? s : "none");
		free(s);
		strv_free(&sv);
		return buf;
	}
	for (size_t i = 0; i < d->napp; i++)
		dscp |= d->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP;
	snprintf(buf, len, "%s", dscp ? "dscp (follows the DSCP APP entries; no apptrust)" :
					"pcp (no DSCP APP entries; no apptrust)");
	return buf;
}

static void show_dcb_text(const struct pl_net *st)
{
	const struct pl_dcb *d = &st->dcb;
	char buf[128], *w;
	struct strv apps = { 0 };

	if (st->dcb_err) {
		if (st->dcb_err == EOPNOTSUPP)
			line("dcb", "not supported by %s", pl_net_who(st));
		else
			line("dcb", "%s", strerror(st->dcb_err));
		return;
	}
	if (d->have & PL_DCB_DCBX) {
		w = knob_words(st, PL_K_DCBX);
		line("dcbx", "%s", *w ? w : "none");
		free(w);
	}
	line("trust", "%s", trust_source(d, buf, sizeof(buf)));
	for (size_t i = 0; i < d->napp; i++) {
		const struct dcb_app *a = &d->app[i];
		const char *sel = pl_dcb_sel_name(a->selector);
		char *e;

		/* As the setters write them; ethtype 0 is dcb's default-prio. */
		if (a->selector == IEEE_8021QAZ_APP_SEL_ETHERTYPE && !a->protocol)
			e = xasprintf("default prio %u", a->priority);
		else if (a->selector == IEEE_8021QAZ_APP_SEL_ETHERTYPE)
			e = xasprintf("ethtype 0x%04x prio %u", a->protocol, a->priority);
		else
			e = xasprintf("%s %u prio %u", sel ? sel : "?", a->protocol, a->priority);
		strv_add(&apps, e);
		free(e);
	}
	w = strv_join(&apps, ", ");
	line("app", "%s", *w ? w : "none");
	free(w);
	strv_free(&apps);
	if (d->have & PL_DCB_PFC) {
		w = knob_words(st, PL_K_PFC);
		line("pfc", "%s (cap %u)", w, d->pfc.pfc_cap);
		free(w);
		fprintf(pl_out, "  %-12s requests", "pfc-counters");
		for (int p = 0; p < 8; p++)
			fprintf(pl_out, " %d:%llu", p, (unsigned long long)d->pfc.requests[p]);
		fputs(" indications", pl_out);
		for (int p = 0; p < 8; p++)
			fprintf(pl_out, " %d:%llu", p, (unsigned long long)d->pfc.indications[p]);
		fputc('\n', pl_out);
	}
	if (d->have & PL_DCB_ETS) {
		line("ets", "willing %s (cap %u%s)", d->ets.willing ? "on" : "off", d->ets.ets_cap,
		     d->ets.cbs ? ", cbs" : "");
		w = knob_words(st, PL_K_ETS);
		line("", "%s", w);
		free(w);
	}
}

static void show_ethtool_text(const char *key, const struct pl_et_kind *k,
			      const struct pl_eattrs *v, int err, const struct pl_net *st)
{
	struct strv words = { 0 };
	char *w;

	if (err) {
		if (err == EOPNOTSUPP)
			line(key, "not supported by %s", pl_net_who(st));
		else
			line(key, "%s", strerror(err));
		return;
	}
	for (size_t i = 0; i < k->nattrs; i++) {
		const struct pl_et_attr *a = &k->attrs[i];

		if (!pl_et_has(v, a->attr))
			continue;
		strv_add(&words, a->name);
		w = a->type == PL_ET_BOOL ? xstrdup(v->v[a->attr] ? "on" : "off") :
					    xasprintf("%u", v->v[a->attr]);
		strv_add(&words, w);
		free(w);
	}
	w = strv_join(&words, " ");
	line(key, "%s", *w ? w : "nothing reported");
	free(w);
	strv_free(&words);
}

static void show_ecn_text(const struct pl_net *st)
{
	const struct pl_ecn *e = &st->ecn;
	char buf[192] = "";

	if (!e->be) {
		line("ecn", "not supported by %s: %s", pl_net_who(st), e->why);
		line("cnp", "not supported by %s", pl_net_who(st));
		return;
	}
	for (int p = 0; e->be->np && p < 8; p++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%d:np %s rp %s",
			 p ? ", " : "", p, e->np[p] == 1 ? "on" : "off", e->rp[p] == 1 ? "on" : "off");
	if (e->enable >= 0)
		snprintf(buf, sizeof(buf), "DCQCN %s", e->enable ? "on" : "off");
	if (e->enable >= 0 && e->roce_prio >= 0)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " for prio %d", e->roce_prio);
	line("ecn", "%s (%s, %s)", *buf ? buf : "no enable knob", e->be->name, e->dir);
	if (e->cnp_dscp >= 0 || e->cnp_prio >= 0)
		line("cnp", "dscp %d prio %d", e->cnp_dscp, e->cnp_prio);
	else
		line("cnp", "not supported by %s (%s)", pl_net_who(st), e->be->name);
}

static void show_text(const struct pl_net *st)
{
	const struct pl_link *l = &st->link;
	struct strv un = { 0 };
	char *w;

	fprintf(pl_out, "%s: driver %s, ifindex %d\n", l->ifname, *st->driver ? st->driver : "none",
		l->ifindex);
	line("mtu", "%u (device range %u-%u), RoCE path MTU %u", l->mtu, l->min_mtu, l->max_mtu,
	     pl_path_mtu(l->mtu));
	for (size_t i = 0; i < st->rdma.n; i++) {
		const struct pl_rdma_port *p = &st->rdma.port[i];

		if (st->rdma.cm_cfs)
			line("rdma", "%s port %d %s, RDMA CM default ToS %d%s", p->ibdev, p->port,
			     *p->state ? p->state : "?", p->tos, p->tos_group ? "" : " (default)");
		else
			line("rdma", "%s port %d %s, RDMA CM ToS unknown (no rdma_cm configfs)",
			     p->ibdev, p->port, *p->state ? p->state : "?");
	}
	if (!st->rdma.n)
		line("rdma", "none on %s", l->ifname);
	show_dcb_text(st);
	show_ethtool_text("coalesce", &pl_et_coalesce, &st->coal, st->coal_err, st);
	show_ethtool_text("ring", &pl_et_rings, &st->ring, st->ring_err, st);
	show_ethtool_text("pause", &pl_et_pause, &st->pause, st->pause_err, st);
	show_ecn_text(st);
	unsupported_list(st, &un);
	w = strv_join(&un, ", ");
	line("unsupported", "%s", *w ? w : "nothing");
	free(w);
	strv_free(&un);
}

static struct json_object *int_array(const uint8_t *v, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int(v[i]));
	return a;
}

static struct json_object *u64_array(const __u64 *v, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int64((int64_t)v[i]));
	return a;
}

static void jadd(struct json_object *o, const char *k, struct json_object *v)
{
	json_object_object_add(o, k, v);
}

static struct json_object *err_json(int err, const char *why)
{
	struct json_object *o = json_object_new_object();

	jadd(o, "supported", json_object_new_boolean(false));
	jadd(o, "error", json_object_new_string(why ? why : strerror(err)));
	return o;
}

static struct json_object *dcb_json(const struct pl_net *st)
{
	const struct pl_dcb *d = &st->dcb;
	struct json_object *o, *a;
	uint8_t bits[8];

	if (st->dcb_err)
		return err_json(st->dcb_err, NULL);
	o = json_object_new_object();
	jadd(o, "supported", json_object_new_boolean(true));
	if (d->have & PL_DCB_DCBX) {
		struct strv names = { 0 };

		pl_dcb_dcbx_names(d->dcbx, &names);
		a = json_object_new_array();
		for (size_t i = 0; i < names.n; i++)
			json_object_array_add(a, json_object_new_string(names.v[i]));
		jadd(o, "dcbx", a);
		strv_free(&names);
	}
	if (d->have & PL_DCB_TRUST) {
		a = json_object_new_array();
		for (size_t i = 0; i < d->ntrust; i++)
			json_object_array_add(a, json_object_new_string(pl_dcb_sel_name(d->trust[i]) ?
									 pl_dcb_sel_name(d->trust[i]) : "?"));
		jadd(o, "apptrust", a);
	}
	a = json_object_new_array();
	for (size_t i = 0; i < d->napp; i++) {
		struct json_object *e = json_object_new_object();
		const char *sel = pl_dcb_sel_name(d->app[i].selector);

		jadd(e, "selector", sel ? json_object_new_string(sel) :
					  json_object_new_int(d->app[i].selector));
		jadd(e, "protocol", json_object_new_int(d->app[i].protocol));
		jadd(e, "prio", json_object_new_int(d->app[i].priority));
		json_object_array_add(a, e);
	}
	jadd(o, "app", a);
	if (d->have & PL_DCB_PFC) {
		struct json_object *p = json_object_new_object();

		for (int i = 0; i < 8; i++)
			bits[i] = (d->pfc.pfc_en >> i) & 1;
		jadd(p, "prio_pfc", int_array(bits, 8));
		jadd(p, "cap", json_object_new_int(d->pfc.pfc_cap));
		jadd(p, "macsec_bypass", json_object_new_boolean(d->pfc.mbc));
		jadd(p, "delay", json_object_new_int(d->pfc.delay));
		jadd(p, "requests", u64_array(d->pfc.requests, 8));
		jadd(p, "indications", u64_array(d->pfc.indications, 8));
		jadd(o, "pfc", p);
	}
	if (d->have & PL_DCB_ETS) {
		struct json_object *e = json_object_new_object(), *tsa = json_object_new_array();

		jadd(e, "willing", json_object_new_boolean(d->ets.willing));
		jadd(e, "cap", json_object_new_int(d->ets.ets_cap));
		jadd(e, "cbs", json_object_new_boolean(d->ets.cbs));
		for (int i = 0; i < 8; i++)
			json_object_array_add(tsa, json_object_new_string(
				pl_dcb_tsa_name(d->ets.tc_tsa[i]) ? pl_dcb_tsa_name(d->ets.tc_tsa[i]) : "?"));
		jadd(e, "tc_tsa", tsa);
		jadd(e, "tc_bw", int_array(d->ets.tc_tx_bw, 8));
		jadd(e, "prio_tc", int_array(d->ets.prio_tc, 8));
		jadd(o, "ets", e);
	}
	return o;
}

static struct json_object *ethtool_json(const struct pl_et_kind *k, const struct pl_eattrs *v,
					int err)
{
	struct json_object *o;

	if (err)
		return err_json(err, NULL);
	o = json_object_new_object();
	jadd(o, "supported", json_object_new_boolean(true));
	for (size_t i = 0; i < k->nattrs; i++) {
		const struct pl_et_attr *a = &k->attrs[i];
		char *key;

		if (!pl_et_has(v, a->attr))
			continue;
		key = xstrdup(a->name);
		for (char *c = key; *c; c++)
			if (*c == '-')
				*c = '_';
		jadd(o, key, a->type == PL_ET_BOOL ? json_object_new_boolean(v->v[a->attr]) :
						     json_object_new_int64(v->v[a->attr]));
		free(key);
	}
	return o;
}

static struct json_object *opt_int(int v)
{
	return v < 0 ? NULL : json_object_new_int(v);
}

static struct json_object *ecn_json(const struct pl_ecn *e)
{
	struct json_object *o;
	uint8_t np[8], rp[8];

	if (!e->be)
		return err_json(EOPNOTSUPP, e->why);
	o = json_object_new_object();
	jadd(o, "supported", json_object_new_boolean(true));
	jadd(o, "backend", json_object_new_string(e->be->name));
	jadd(o, "path", json_object_new_string(e->dir));
	if (e->be->np) {
		for (int p = 0; p < 8; p++) {
			np[p] = e->np[p] == 1;
			rp[p] = e->rp[p] == 1;
		}
		jadd(o, "np", int_array(np, 8));
		jadd(o, "rp", int_array(rp, 8));
	}
	jadd(o, "enable", opt_int(e->enable));
	jadd(o, "roce_prio", opt_int(e->roce_prio));
	jadd(o, "cnp_dscp", opt_int(e->cnp_dscp));
	jadd(o, "cnp_prio", opt_int(e->cnp_prio));
	return o;
}

static struct json_object *show_json(const struct pl_net *st)
{
	const struct pl_link *l = &st->link;
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	struct strv un = { 0 };

	jadd(o, "ifname", json_object_new_string(l->ifname));
	jadd(o, "ifindex", json_object_new_int(l->ifindex));
	jadd(o, "driver", json_object_new_string(st->driver));
	jadd(o, "mtu", json_object_new_int64(l->mtu));
	jadd(o, "min_mtu", json_object_new_int64(l->min_mtu));
	jadd(o, "max_mtu", json_object_new_int64(l->max_mtu));
	jadd(o, "roce_path_mtu", json_object_new_int(pl_path_mtu(l->mtu)));
	for (size_t i = 0; i < st->rdma.n; i++) {
		const struct pl_rdma_port *p = &st->rdma.port[i];
		struct json_object *r = json_object_new_object();

		jadd(r, "ibdev", json_object_new_string(p->ibdev));
		jadd(r, "port", json_object_new_int(p->port));
		jadd(r, "state", json_object_new_string(p->state));
		jadd(r, "link_layer", json_object_new_string(p->link_layer));
		jadd(r, "roce_tos", st->rdma.cm_cfs ? json_object_new_int(p->tos) : NULL);
		json_object_array_add(a, r);
	}
	jadd(o, "rdma", a);
	jadd(o, "dcb", dcb_json(st));
	jadd(o, "coalesce", ethtool_json(&pl_et_coalesce, &st->coal, st->coal_err));
	jadd(o, "ring", ethtool_json(&pl_et_rings, &st->ring, st->ring_err));
	jadd(o, "pause", ethtool_json(&pl_et_pause, &st->pause, st->pause_err));
	jadd(o, "ecn", ecn_json(&st->ecn));
	unsupported_list(st, &un);
	a = json_object_new_array();
	for (size_t i = 0; i < un.n; i++)
		json_object_array_add(a, json_object_new_string(un.v[i]));
	jadd(o, "unsupported", a);
	strv_free(&un);
	return o;
}

static int net_show(struct pl_ctx *ctx, int argc, char **argv)
{
	struct pl_net *st;
	struct net_args a;
	int ret = parse_args(ctx, "net show", "j", argc, argv, &a);

	if (ret || (ret = no_rest("net show", &a)))
		return ret;
	st = xmalloc(sizeof(*st));
	ret = read_dev(a.dev, st);
	if (!ret && a.json) {
		struct json_object *o = show_json(st);

		pl_json_print(o);
		json_object_put(o);
	} else if (!ret) {
		show_text(st);
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
	*to = fwd.n ? words_of(&fwd, k) : NULL;
	*from = fwd.n && k != PL_K_APP ? words_of(&back, k) : NULL;
	pl_patch_free(&fwd);
	pl_patch_free(&back);
}

static void print_plan(const struct pl_net *have, const struct pl_net *want,
		       const struct strv *skipped, bool json, const char *undo_file)
{
	struct json_object *o = json_object_new_object(), *ch = json_object_new_array();
	size_t n = 0;

	for (int k = 0; k < PL_NKNOBS; k++) {
		char *from, *to;

		plan_entry(have, want, k, &from, &to);
		if (!to)
			continue;
		n++;
		if (json) {
			struct json_object *c = json_object_new_object();

			jadd(c, "knob", json_object_new_string(pl_knob_names[k]));
			jadd(c, "from", from ? json_object_new_string(from) : NULL);
			jadd(c, "to", json_object_new_string(to));
			json_object_array_add(ch, c);
		} else if (from) {
			fprintf(pl_out, "  %-10s %s -> %s\n", pl_knob_names[k], from, to);
		} else {
			fprintf(pl_out, "  %-10s %s\n", pl_knob_names[k], to);
		}
		free(from);
		free(to);
	}
	if (!json && !n)
		fprintf(pl_out, "  %s\n", "nothing to change");
	for (size_t i = 0; !json && skipped && i < skipped->n; i++)
		fprintf(pl_out, "  %-10s %s\n", "skipped", skipped->v[i]);
	if (json) {
		struct json_object *sk = json_object_new_array();

		jadd(o, "ifname", json_object_new_string(have->link.ifname));
		jadd(o, "changes", ch);
		for (size_t i = 0; skipped && i < skipped->n; i++)
			json_object_array_add(sk, json_object_new_string(skipped->v[i]));
		jadd(o, "skipped", sk);
		jadd(o, "undo_file", undo_file ? json_object_new_string(undo_file) : NULL);
		pl_json_print(o);
	} else {
		json_object_put(ch);
	}
	json_object_put(o);
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
	if (!ret && a.dry_run)
		print_plan(have, want, NULL, a.json, NULL);
	else if (!ret && !differs(have, want))
		pl_note("net %s: nothing to change", a.dev);
	else if (!ret && pl_net_execute(have, want, NULL))
		ret = PL_EXIT_FAIL;
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
	if (!ret && !a->json)
		fprintf(pl_out, "net tune %s: undo from %s%s\n", a->dev, path,
			a->dry_run ? ", dry run" : "");
	if (!ret)
		print_plan(before, want, NULL, a->json, path);
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
	if (!ret && !a->json)
		fprintf(pl_out, "net tune %s: profile %s (prio %d, DSCP %d, MTU %u)%s\n", a->dev,
			PL_PROFILE_NAME, pr.prio, pr.dscp, pl_profile_mtu(&pr),
			a->dry_run ? ", dry run" : "");
	if (!ret)
		print_plan(before, want, &skipped, a->json,
			   changes && !a->dry_run ? path : NULL);
	if (!ret && changes && !a->dry_run && !a->json)
		fprintf(pl_out, "previous settings saved in %s ('purlinctl net tune %s --undo' restores them)\n",
			path, a->dev);
	if (!ret && skipped.n && !a->json)
		fprintf(pl_out, "%zu item%s of the profile cannot be set on %s: 'purlinctl net check %s' reports them\n",
			skipped.n, skipped.n == 1 ? "" : "s", a->dev, a->dev);
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

static void check_text(const struct pl_net *st, const struct pl_profile *pr,
		       const struct pl_audit *au)
{
	size_t count[3] = { 0 };

	fprintf(pl_out, "%s: profile %s (prio %d, DSCP %d, CNP DSCP %d prio %d, MTU >= %u)\n",
		st->link.ifname, PL_PROFILE_NAME, pr->prio, pr->dscp, pr->cnp_dscp, pr->cnp_prio,
		pl_profile_min_mtu(pr));
	for (size_t i = 0; i < au->n; i++) {
		const struct pl_check_item *it = &au->item[i];
		char *fix;

		count[it->grade]++;
		fprintf(pl_out, "%-4s  %-9s %s\n", it->grade == PL_PASS ? "PASS" :
			it->grade == PL_WARN ? "WARN" : "FAIL", it->name, it->reason);
		if (it->grade == PL_PASS)
			continue;
		if (it->fix.n) {
			fix = pl_net_format_str(&it->fix);
			fprintf(pl_out, "%16sfix: purlinctl net set %s %s\n", "", st->link.ifname, fix);
			free(fix);
		} else if (*it->advice) {
			fprintf(pl_out, "%16sfix: %s\n", "", it->advice);
		}
	}
	fprintf(pl_out, "check: %zu pass, %zu warn, %zu fail\n", count[PL_PASS], count[PL_WARN],
		count[PL_FAIL]);
}

static void check_json(const struct pl_net *st, const struct pl_profile *pr,
		       const struct pl_audit *au)
{
	struct json_object *o = json_object_new_object(), *items = json_object_new_array();
	struct json_object *params = json_object_new_object(), *sum = json_object_new_object();
	int count[3] = { 0 };

	jadd(o, "ifname", json_object_new_string(st->link.ifname));
	jadd(o, "profile", json_object_new_string(PL_PROFILE_NAME));
	jadd(params, "prio", json_object_new_int(pr->prio));
	jadd(params, "dscp", json_object_new_int(pr->dscp));
	jadd(params, "cnp_prio", json_object_new_int(pr->cnp_prio));
	jadd(params, "cnp_dscp", json_object_new_int(pr->cnp_dscp));
	jadd(params, "min_mtu", json_object_new_int(pl_profile_min_mtu(pr)));
	jadd(o, "params", params);
	for (size_t i = 0; i < au->n; i++) {
		const struct pl_check_item *it = &au->item[i];
		struct json_object *j = json_object_new_object();

		count[it->grade]++;
		jadd(j, "item", json_object_new_string(it->name));
		jadd(j, "status", json_object_new_string(pl_grade_name(it->grade)));
		jadd(j, "reason", json_object_new_string(it->reason));
		if (it->grade != PL_PASS && it->fix.n) {
			char *fix = pl_net_format_str(&it->fix);
			char *cmd = xasprintf("purlinctl net set %s %s", st->link.ifname, fix);

			jadd(j, "fix", json_object_new_string(cmd));
			free(cmd);
			free(fix);
		} else if (it->grade != PL_PASS && *it->advice) {
			jadd(j, "fix", json_object_new_string(it->advice));
		}
		json_object_array_add(items, j);
	}
	jadd(o, "items", items);
	for (int g = PL_PASS; g <= PL_FAIL; g++)
		jadd(sum, pl_grade_name(g), json_object_new_int(count[g]));
	jadd(o, "summary", sum);
	pl_json_print(o);
	json_object_put(o);
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
		if (a.json)
			check_json(st, &pr, au);
		else
			check_text(st, &pr, au);
		for (size_t i = 0; i < au->n; i++)
			if (au->item[i].grade == PL_FAIL)
				ret = PL_EXIT_FAIL;
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
	{ "show", net_show, "DEV [-j]" },
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
