// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl net show: a device as read, part by part (the link and its
 * RDMA ports, DCB, the ethtool settings, the vendor ECN knobs, what the
 * device lacks), in text or JSON from the same calls (print.h). Text
 * gives each part a line "  KEY          VALUE" and writes settings as
 * the setters take them; JSON gives each part an object.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/ethtool_netlink.h>

#include "netprofile.h"
#include "print.h"

/* What starts a part's line in text. */
static void label(const char *key)
{
	pl_print_text("  %-12s ", key);
}

/* Knob k of st in full as setter words, e.g. "prio-pfc 0:off ... 7:off delay 0". */
static char *knob_words(const struct pl_net *st, enum pl_knob k)
{
	struct pl_net_patch all = { 0 };
	char *out;

	pl_net_describe(st, k, &all);
	out = pl_net_format_knob(&all, k);
	pl_patch_free(&all);
	return out;
}

/* JSON only: an array of small numbers. */
static void numbers(const char *key, const uint8_t *v, size_t n)
{
	pl_print_open_array(key);
	for (size_t i = 0; i < n; i++)
		pl_print_uint(PL_JSON, NULL, NULL, v[i]);
	pl_print_close_array();
}

/*
 * A part the device does not give (err), in the open object: unsupported
 * with why (or the error) in JSON, "not supported by eth0 (driver x)" and
 * why, or the error, in text.
 */
static void part_error(const char *key, int err, const char *why, const struct pl_net *st)
{
	pl_print_bool(PL_JSON, "supported", NULL, false);
	pl_print_string(PL_JSON, "error", NULL, why ? why : strerror(err));
	label(key);
	if (err != EOPNOTSUPP)
		pl_print_text("%s\n", strerror(err));
	else if (why)
		pl_print_text("not supported by %s: %s\n", pl_net_who(st), why);
	else
		pl_print_text("not supported by %s\n", pl_net_who(st));
}

/* ---- the link and its RDMA ports ---- */

/* <linux/if.h>'s, which <net/if.h> (in nl-link.h) cannot be included with. */
#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000
#endif

static void show_link(const struct pl_net *st)
{
	const struct pl_link *l = &st->link;

	pl_print_string(PL_ANY, "ifname", "%s: ", l->ifname);
	pl_print_int(PL_JSON, "ifindex", NULL, l->ifindex);
	pl_print_string(PL_JSON, "driver", NULL, st->driver);
	pl_print_text("driver %s, ifindex %d\n", *st->driver ? st->driver : "none", l->ifindex);
	label("link");
	pl_print_string(PL_ANY, "state", "%s", !(l->flags & IFF_UP) ? "down (administratively)" :
			!(l->flags & IFF_LOWER_UP) ? "down (no carrier)" : "up");
	if (st->speed > 0)
		pl_print_int(PL_ANY, "speed_mbps", ", %d Mb/s", st->speed);
	else
		pl_print_null("speed_mbps");
	pl_print_nl();
	label("mtu");
	pl_print_uint(PL_ANY, "mtu", "%u", l->mtu);
	pl_print_uint(PL_ANY, "min_mtu", " (device range %u", l->min_mtu);
	pl_print_uint(PL_ANY, "max_mtu", "-%u)", l->max_mtu);
	pl_print_uint(PL_ANY, "roce_path_mtu", ", RoCE path MTU %u\n", pl_path_mtu(l->mtu));
}

static void show_rdma(const struct pl_net *st)
{
	pl_print_open_array("rdma");
	for (size_t i = 0; i < st->rdma.n; i++) {
		const struct pl_rdma_port *p = &st->rdma.port[i];

		pl_print_open_object(NULL);
		label("rdma");
		pl_print_string(PL_ANY, "ibdev", "%s", p->ibdev);
		pl_print_int(PL_ANY, "port", " port %d", p->port);
		pl_print_string(PL_JSON, "state", NULL, p->state);
		pl_print_text(" %s", *p->state ? p->state : "?");
		pl_print_string(PL_JSON, "link_layer", NULL, p->link_layer);
		if (st->rdma.cm_cfs) {
			pl_print_int(PL_ANY, "roce_tos", ", RDMA CM default ToS %d", p->tos);
			pl_print_text("%s\n", p->tos_group ? "" : " (default)");
		} else {
			pl_print_null("roce_tos");
			pl_print_text("%s\n", ", RDMA CM ToS unknown (no rdma_cm configfs)");
		}
		pl_print_close_object();
	}
	if (!st->rdma.n) {
		label("rdma");
		pl_print_text("none on %s\n", st->link.ifname);
	}
	pl_print_close_array();
}

/* ---- DCB ---- */

static void show_dcbx(const struct pl_dcb *d)
{
	struct strv names = { 0 };

	pl_dcb_dcbx_names(d->dcbx, &names);
	label("dcbx");
	pl_print_strv("dcbx", &names, " ", "none");
	pl_print_nl();
	strv_free(&names);
}

/* The apptrust order; without apptrust, where DSCP trust comes from (text only). */
static void show_trust(const struct pl_dcb *d)
{
	struct strv sels = { 0 };
	bool dscp = false;

	label("trust");
	if (d->have & PL_DCB_TRUST) {
		for (size_t i = 0; i < d->ntrust; i++) {
			const char *sel = pl_dcb_sel_name(d->trust[i]);

			strv_add(&sels, sel ? sel : "?");
		}
		pl_print_strv("apptrust", &sels, " ", "none");
		pl_print_text(" (apptrust)\n");
		strv_free(&sels);
		return;
	}
	for (size_t i = 0; i < d->napp; i++)
		dscp |= d->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP;
	pl_print_text("%s\n", dscp ? "dscp (follows the DSCP APP entries; no apptrust)" :
				     "pcp (no DSCP APP entries; no apptrust)");
}

static void show_app(const struct pl_dcb *d)
{
	label("app");
	pl_print_open_list("app", ", ", "none");
	for (size_t i = 0; i < d->napp; i++) {
		const struct dcb_app *a = &d->app[i];
		const char *sel = pl_dcb_sel_name(a->selector);
		bool ethtype = a->selector == IEEE_8021QAZ_APP_SEL_ETHERTYPE;
		bool dflt = ethtype && !a->protocol;	/* dcb's default-prio */

		/* In text as the setters write them. */
		pl_print_open_object(NULL);
		if (sel)
			pl_print_string(PL_JSON, "selector", NULL, sel);
		else
			pl_print_uint(PL_JSON, "selector", NULL, a->selector);
		pl_print_text("%s", dflt ? "default" : sel ? sel : "?");
		pl_print_uint(dflt ? PL_JSON : PL_ANY, "protocol", ethtype ? " 0x%04x" : " %u",
			      a->protocol);
		pl_print_uint(PL_ANY, "prio", " prio %u", a->priority);
		pl_print_close_object();
	}
	pl_print_close_array();
	pl_print_nl();
}

/* Per-priority counters, "requests 0:N ... 7:N" in text. */
static void counters(const char *key, const __u64 *v)
{
	pl_print_text("%s", key);
	pl_print_open_array(key);
	for (int p = 0; p < 8; p++) {
		pl_print_text(" %d:", p);
		pl_print_u64(PL_ANY, NULL, "%llu", (unsigned long long)v[p]);
	}
	pl_print_close_array();
}

static void show_pfc(const struct pl_net *st)
{
	const struct ieee_pfc *pfc = &st->dcb.pfc;
	char *w = knob_words(st, PL_K_PFC);
	uint8_t bits[8];

	for (int p = 0; p < 8; p++)
		bits[p] = (pfc->pfc_en >> p) & 1;
	pl_print_open_object("pfc");
	label("pfc");
	pl_print_text("%s", w);
	numbers("prio_pfc", bits, 8);
	pl_print_uint(PL_ANY, "cap", " (cap %u)\n", pfc->pfc_cap);
	pl_print_bool(PL_JSON, "macsec_bypass", NULL, pfc->mbc);
	pl_print_uint(PL_JSON, "delay", NULL, pfc->delay);
	label("pfc-counters");
	counters("requests", pfc->requests);
	pl_print_text(" ");
	counters("indications", pfc->indications);
	pl_print_nl();
	pl_print_close_object();
	free(w);
}

static void show_ets(const struct pl_net *st)
{
	const struct ieee_ets *ets = &st->dcb.ets;
	char *w = knob_words(st, PL_K_ETS);

	pl_print_open_object("ets");
	label("ets");
	pl_print_bool(PL_ANY, "willing", "willing %s", ets->willing);
	pl_print_uint(PL_ANY, "cap", " (cap %u", ets->ets_cap);
	pl_print_bool(PL_JSON, "cbs", NULL, ets->cbs);
	pl_print_text("%s)\n", ets->cbs ? ", cbs" : "");
	label("");
	pl_print_text("%s\n", w);
	pl_print_open_array("tc_tsa");
	for (int tc = 0; tc < 8; tc++) {
		const char *tsa = pl_dcb_tsa_name(ets->tc_tsa[tc]);

		pl_print_string(PL_JSON, NULL, NULL, tsa ? tsa : "?");
	}
	pl_print_close_array();
	numbers("tc_bw", ets->tc_tx_bw, 8);
	numbers("prio_tc", ets->prio_tc, 8);
	pl_print_close_object();
	free(w);
}

static void show_dcb(const struct pl_net *st)
{
	const struct pl_dcb *d = &st->dcb;

	pl_print_open_object("dcb");
	if (st->dcb_err) {
		part_error("dcb", st->dcb_err, NULL, st);
	} else {
		pl_print_bool(PL_JSON, "supported", NULL, true);
		if (d->have & PL_DCB_DCBX)
			show_dcbx(d);
		show_trust(d);
		show_app(d);
		if (d->have & PL_DCB_PFC)
			show_pfc(st);
		if (d->have & PL_DCB_ETS)
			show_ets(st);
	}
	pl_print_close_object();
}

/* ---- ethtool: coalescing, rings, pause ---- */

/* The attributes the device reports, "rx-usecs 8" in text, "rx_usecs": 8 in JSON. */
static void show_ethtool(const char *key, const struct pl_et_kind *k, const struct pl_eattrs *v,
			 int err, const struct pl_net *st)
{
	size_t n = 0;

	pl_print_open_object(key);
	if (err) {
		part_error(key, err, NULL, st);
		pl_print_close_object();
		return;
	}
	pl_print_bool(PL_JSON, "supported", NULL, true);
	label(key);
	for (size_t i = 0; i < k->nattrs; i++) {
		const struct pl_et_attr *a = &k->attrs[i];
		char *jkey;

		if (!pl_et_has(v, a->attr))
			continue;
		jkey = xstrdup(a->name);
		for (char *c = jkey; *c; c++)
			if (*c == '-')
				*c = '_';
		pl_print_text("%s%s ", n++ ? " " : "", a->name);
		if (a->type == PL_ET_BOOL)
			pl_print_bool(PL_ANY, jkey, "%s", v->v[a->attr]);
		else
			pl_print_uint(PL_ANY, jkey, "%u", v->v[a->attr]);
		free(jkey);
	}
	pl_print_text("%s\n", n ? "" : "nothing reported");
	pl_print_close_object();
}

/* ---- vendor ECN/DCQCN and CNP knobs ---- */

/* A knob the backend may lack (-1): null in JSON, -1 in text. */
static void opt_int(enum pl_print_kind kind, const char *key, const char *fmt, int v)
{
	if (v >= 0) {
		pl_print_int(kind, key, fmt, v);
		return;
	}
	if (kind & PL_JSON)
		pl_print_null(key);
	if (kind & PL_TEXT)
		pl_print_int(PL_TEXT, NULL, fmt, v);
}

/* Text only: the ECN state in words, per priority or the one DCQCN enable. */
static void ecn_words(const struct pl_ecn *e)
{
	char buf[192] = "";

	for (int p = 0; e->be->np && p < 8; p++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%d:np %s rp %s",
			 p ? ", " : "", p, e->np[p] == 1 ? "on" : "off", e->rp[p] == 1 ? "on" : "off");
	if (e->enable >= 0)
		snprintf(buf, sizeof(buf), "DCQCN %s", e->enable ? "on" : "off");
	if (e->enable >= 0 && e->roce_prio >= 0)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " for prio %d", e->roce_prio);
	pl_print_text("%s", *buf ? buf : "no enable knob");
}

static void show_ecn(const struct pl_net *st)
{
	const struct pl_ecn *e = &st->ecn;
	enum pl_print_kind cnp;
	uint8_t np[8], rp[8];

	pl_print_open_object("ecn");
	if (!e->be) {
		part_error("ecn", EOPNOTSUPP, e->why, st);
		label("cnp");
		pl_print_text("not supported by %s\n", pl_net_who(st));
		pl_print_close_object();
		return;
	}
	pl_print_bool(PL_JSON, "supported", NULL, true);
	label("ecn");
	ecn_words(e);
	pl_print_string(PL_ANY, "backend", " (%s", e->be->name);
	pl_print_string(PL_ANY, "path", ", %s)\n", e->dir);
	if (e->be->np) {
		for (int p = 0; p < 8; p++) {
			np[p] = e->np[p] == 1;
			rp[p] = e->rp[p] == 1;
		}
		numbers("np", np, 8);
		numbers("rp", rp, 8);
	}
	opt_int(PL_JSON, "enable", NULL, e->enable);
	opt_int(PL_JSON, "roce_prio", NULL, e->roce_prio);
	label("cnp");
	cnp = e->cnp_dscp >= 0 || e->cnp_prio >= 0 ? PL_ANY : PL_JSON;
	opt_int(cnp, "cnp_dscp", "dscp %d", e->cnp_dscp);
	opt_int(cnp, "cnp_prio", " prio %d\n", e->cnp_prio);
	if (cnp == PL_JSON)
		pl_print_text("not supported by %s (%s)\n", pl_net_who(st), e->be->name);
	pl_print_close_object();
}

/* ---- what the device lacks ---- */

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

static void show_unsupported(const struct pl_net *st)
{
	struct strv un = { 0 };

	unsupported_list(st, &un);
	label("unsupported");
	pl_print_strv("unsupported", &un, ", ", "nothing");
	pl_print_nl();
	strv_free(&un);
}

void pl_net_show(const struct pl_net *st)
{
	pl_print_open_object(NULL);
	show_link(st);
	show_rdma(st);
	show_dcb(st);
	show_ethtool("coalesce", &pl_et_coalesce, &st->coal, st->coal_err, st);
	show_ethtool("ring", &pl_et_rings, &st->ring, st->ring_err, st);
	show_ethtool("pause", &pl_et_pause, &st->pause, st->pause_err, st);
	show_ecn(st);
	show_unsupported(st);
	pl_print_close_object();
}
