// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: the roce-lossless profile: trust DSCP, DSCP 26 -> priority 3,
 * PFC on 3 only, ETS with the RoCE class >= 50 %, link-level pause off,
 * MTU >= 4200 (RoCE path MTU 4096; 9000 with jumbo), ECN on priority 3,
 * CNP DSCP 48 on priority 6, adaptive coalescing, RDMA CM ToS of DSCP 26.
 * Each item's fix is the difference between the device and the item's
 * target, so the plan changes only what does not already conform.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/ethtool_netlink.h>

#include "netprofile.h"

#define ROCE_HDRS 96	/* RoCE v2 headers below the path MTU */
#define ROCE_BW_MIN 50

void pl_profile_defaults(struct pl_profile *pr)
{
	pr->prio = 3;
	pr->dscp = 26;
	pr->cnp_prio = 6;
	pr->cnp_dscp = 48;
	pr->jumbo = false;
}

unsigned int pl_profile_mtu(const struct pl_profile *pr)
{
	return pr->jumbo ? 9000 : 4200;
}

unsigned int pl_profile_min_mtu(const struct pl_profile *pr)
{
	return pr->jumbo ? 9000 : 4096 + ROCE_HDRS;
}

const char *pl_grade_name(enum pl_grade g)
{
	static const char *const names[PL_NGRADES] = {
		[PL_PASS] = "pass", [PL_WARN] = "warn", [PL_FAIL] = "fail", [PL_NA] = "n/a",
	};

	return names[g];
}

unsigned int pl_path_mtu(unsigned int mtu)
{
	unsigned int m = 4096;

	while (m > 256 && m + ROCE_HDRS > mtu)
		m /= 2;
	return m;
}

struct auditor {
	const struct pl_net *st;
	const struct pl_profile *pr;
	struct pl_audit *out;
	struct pl_net *target;	/* scratch: the device with one item fixed */
};

static struct pl_check_item *item(struct auditor *a, const char *name, enum pl_grade g,
				  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static struct pl_check_item *item(struct auditor *a, const char *name, enum pl_grade g,
				  const char *fmt, ...)
{
	struct pl_check_item *it = &a->out->item[a->out->n++];
	va_list ap;

	memset(it, 0, sizeof(*it));
	it->name = name;
	it->grade = g;
	va_start(ap, fmt);
	vsnprintf(it->reason, sizeof(it->reason), fmt, ap);
	va_end(ap);
	return it;
}

static void advise(struct pl_check_item *it, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void advise(struct pl_check_item *it, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(it->advice, sizeof(it->advice), fmt, ap);
	va_end(ap);
}

/* The fix of it: what turns the device into a->target for knob k. */
static void fix_by_target(struct auditor *a, struct pl_check_item *it, enum pl_knob k)
{
	pl_net_diff_knob(a->st, a->target, k, &it->fix);
	*a->target = *a->st;
}

static const char *no_dcb_advice =
	"none on this device: PFC, ETS and DSCP trust need a NIC whose driver implements DCB "
	"(mlx5_core, bnxt_en, ice, ...)";

/*
 * A DCB item on a device without DCB, or whose driver lacks the part
 * (PL_DCB_*, 0 for none) it needs: it fails, and nothing can fix it here.
 */
static bool dcb_missing(struct auditor *a, const char *name, unsigned int part, const char *what)
{
	struct pl_check_item *it;

	if (!a->st->dcb_err && (a->st->dcb.have & part) == part)
		return false;
	if (a->st->dcb_err) {
		it = item(a, name, PL_FAIL, "needs DCB, which %s lacks", pl_net_who(a->st));
		advise(it, "%s", "see the dcb item");
	} else {
		it = item(a, name, PL_FAIL, "%s reports no %s", pl_net_who(a->st), what);
		advise(it, "none on this device: its driver has no IEEE %s operations", what);
	}
	return true;
}

static void audit_dcb(struct auditor *a)
{
	const struct pl_net *st = a->st;
	struct pl_check_item *it;

	if (st->dcb_err == EOPNOTSUPP) {
		it = item(a, "dcb", PL_FAIL, "%s has no DCB support (the kernel answers EOPNOTSUPP)",
			  pl_net_who(st));
		advise(it, "%s", no_dcb_advice);
	} else if (st->dcb_err) {
		it = item(a, "dcb", PL_FAIL, "cannot read DCB of %s: %s", pl_net_who(st),
			  strerror(st->dcb_err));
		advise(it, "%s", "run as root, or check the device");
	} else if ((st->dcb.have & PL_DCB_DCBX) && (st->dcb.dcbx & DCB_CAP_DCBX_LLD_MANAGED)) {
		it = item(a, "dcb", PL_WARN,
			  "DCBX is managed by an LLDP agent (firmware or lldpad), which may overwrite what is set here");
		advise(it, "configure the agent with the same values, or take control: purlinctl net set %s dcbx host ieee",
		       st->link.ifname);
	} else {
		item(a, "dcb", PL_PASS, "IEEE DCB, managed by the host");
	}
}

static size_t dscp_prios(const struct pl_dcb *d, int dscp, int *prios)
{
	size_t n = 0;

	for (size_t i = 0; i < d->napp; i++)
		if (d->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP && d->app[i].protocol == dscp)
			prios[n++] = d->app[i].priority;
	return n;
}

static void fix_app(struct auditor *a, struct pl_check_item *it)
{
	struct pl_net_op op = { .knob = PL_K_APP, .field = PL_F_APP_REPLACE };
	struct pl_net_patch p = { 0 };
	char why[128];

	op.app.selector = IEEE_8021QAZ_APP_SEL_DSCP;
	op.app.protocol = (uint16_t)a->pr->dscp;
	op.app.priority = (uint8_t)a->pr->prio;
	pl_patch_add(&p, &op);
	if (!pl_net_apply(a->st, &p, a->target, why, sizeof(why)))
		fix_by_target(a, it, PL_K_APP);
	*a->target = *a->st;
	pl_patch_free(&p);
}

static void audit_trust(struct auditor *a)
{
	const struct pl_dcb *d = &a->st->dcb;
	struct pl_check_item *it;

	if (dcb_missing(a, "trust", 0, NULL))
		return;
	if (!(d->have & PL_DCB_TRUST)) {
		bool dscp = false;

		for (size_t i = 0; i < d->napp; i++)
			dscp |= d->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP;
		if (dscp) {
			item(a, "trust", PL_PASS,
			     "dscp: with no apptrust (kernel before 6.2 or driver without it), DSCP trust follows the DSCP APP entries");
			return;
		}
		it = item(a, "trust", PL_FAIL,
			  "pcp: no DSCP APP entries, and no apptrust to select DSCP otherwise");
		fix_app(a, it);
		return;
	}
	if (d->ntrust && d->trust[0] == IEEE_8021QAZ_APP_SEL_DSCP) {
		item(a, "trust", PL_PASS, "dscp first (apptrust)");
		return;
	}
	it = item(a, "trust", PL_FAIL, "apptrust order does not start with dscp");
	a->target->dcb.trust[0] = IEEE_8021QAZ_APP_SEL_DSCP;
	a->target->dcb.ntrust = 1;
	fix_by_target(a, it, PL_K_TRUST);
}

static void audit_app(struct auditor *a)
{
	int prios[PL_DCB_MAX_APPS];
	size_t n;
	struct pl_check_item *it;

	if (dcb_missing(a, "app-dscp", 0, NULL))
		return;
	n = dscp_prios(&a->st->dcb, a->pr->dscp, prios);
	if (n == 1 && prios[0] == a->pr->prio) {
		item(a, "app-dscp", PL_PASS, "DSCP %d -> prio %d", a->pr->dscp, a->pr->prio);
		return;
	}
	if (!n)
		it = item(a, "app-dscp", PL_FAIL, "DSCP %d has no APP entry (profile: prio %d)",
			  a->pr->dscp, a->pr->prio);
	else
		it = item(a, "app-dscp", PL_FAIL, "DSCP %d maps to prio %d%s (profile: prio %d only)",
			  a->pr->dscp, prios[0], n > 1 ? " and others" : "", a->pr->prio);
	fix_app(a, it);
}

static void audit_pfc(struct auditor *a)
{
	const struct ieee_pfc *pfc = &a->st->dcb.pfc;
	uint8_t want = (uint8_t)(1u << a->pr->prio);
	struct pl_check_item *it;
	char others[32] = "";

	if (dcb_missing(a, "pfc", PL_DCB_PFC, "PFC"))
		return;
	for (int p = 0; p < 8; p++)
		if (p != a->pr->prio && ((pfc->pfc_en >> p) & 1))
			snprintf(others + strlen(others), sizeof(others) - strlen(others), "%s%d",
				 *others ? "," : "", p);
	if (pfc->pfc_en == want) {
		item(a, "pfc", PL_PASS, "on prio %d only", a->pr->prio);
		return;
	}
	if (pfc->pfc_en & want)
		it = item(a, "pfc", PL_WARN,
			  "on prio %d, and also on %s: pause frames there can spread congestion",
			  a->pr->prio, others);
	else
		it = item(a, "pfc", PL_FAIL, "off on prio %d: RoCE traffic is dropped under congestion",
			  a->pr->prio);
	a->target->dcb.pfc.pfc_en = want;
	fix_by_target(a, it, PL_K_PFC);
}

/*
 * Every priority its own class when there are 8 (the RoCE one in TC prio);
 * with fewer, RoCE in the last class and everything else in TC 0. All
 * classes ETS (some drivers refuse a 0 % ETS class): RoCE 50 %, the rest
 * shared evenly.
 */
static void ets_target(const struct pl_net *st, const struct pl_profile *pr, struct ieee_ets *t)
{
	int tcs = pl_net_tcs(st), roce = tcs == 8 ? pr->prio : tcs - 1;
	int rest = tcs > 1 ? (100 - ROCE_BW_MIN) / (tcs - 1) : 0;
	int extra = tcs > 1 ? (100 - ROCE_BW_MIN) % (tcs - 1) : 0;

	for (int p = 0; p < IEEE_8021QAZ_MAX_TCS; p++)
		t->prio_tc[p] = (uint8_t)(tcs == 8 ? p : p == pr->prio ? roce : 0);
	for (int tc = 0; tc < tcs; tc++) {
		t->tc_tsa[tc] = IEEE_8021QAZ_TSA_ETS;
		t->tc_tx_bw[tc] = (uint8_t)(tc == roce ? (tcs > 1 ? ROCE_BW_MIN : 100) :
					    rest + (extra-- > 0));
	}
}

static void audit_ets(struct auditor *a)
{
	const struct ieee_ets *ets = &a->st->dcb.ets;
	int tc, p = a->pr->prio, shared = -1;
	struct pl_check_item *it;

	if (dcb_missing(a, "ets", PL_DCB_ETS, "ETS"))
		return;
	tc = ets->prio_tc[p];
	for (int q = 0; q < 8; q++)
		if (q != p && ets->prio_tc[q] == tc && shared < 0)
			shared = q;
	if (ets->tc_tsa[tc] == IEEE_8021QAZ_TSA_ETS && ets->tc_tx_bw[tc] >= ROCE_BW_MIN &&
	    shared < 0) {
		item(a, "ets", PL_PASS, "prio %d in TC %d, ETS %u %%", p, tc, ets->tc_tx_bw[tc]);
		return;
	}
	if (ets->tc_tsa[tc] == IEEE_8021QAZ_TSA_ETS && ets->tc_tx_bw[tc] < ROCE_BW_MIN)
		it = item(a, "ets", PL_FAIL, "prio %d is in TC %d with %u %% (profile: ETS >= %d %%)",
			  p, tc, ets->tc_tx_bw[tc], ROCE_BW_MIN);
	else if (ets->tc_tsa[tc] == IEEE_8021QAZ_TSA_ETS)
		it = item(a, "ets", PL_WARN, "prio %d shares TC %d with the RoCE prio %d", shared, tc, p);
	else
		it = item(a, "ets", PL_WARN, "prio %d is in TC %d, which is %s, not ETS (profile: ETS >= %d %%)",
			  p, tc, pl_dcb_tsa_name(ets->tc_tsa[tc]) ? pl_dcb_tsa_name(ets->tc_tsa[tc]) : "?",
			  ROCE_BW_MIN);
	ets_target(a->st, a->pr, &a->target->dcb.ets);
	fix_by_target(a, it, PL_K_ETS);
}

static void audit_pause(struct auditor *a)
{
	const struct pl_eattrs *pa = &a->st->pause;
	struct pl_check_item *it;

	if (a->st->pause_err) {
		item(a, "pause", PL_NA, "%s has no link-level pause", pl_net_who(a->st));
		return;
	}
	if (!pa->v[ETHTOOL_A_PAUSE_RX] && !pa->v[ETHTOOL_A_PAUSE_TX]) {
		item(a, "pause", PL_PASS, "link-level pause off");
		return;
	}
	it = item(a, "pause", PL_FAIL,
		  "link-level pause is on (rx %s, tx %s): it stops every priority, not just RoCE",
		  pa->v[ETHTOOL_A_PAUSE_RX] ? "on" : "off", pa->v[ETHTOOL_A_PAUSE_TX] ? "on" : "off");
	for (unsigned int at = ETHTOOL_A_PAUSE_AUTONEG; at <= ETHTOOL_A_PAUSE_TX; at++)
		if (pl_et_has(pa, at))
			a->target->pause.v[at] = 0;
	fix_by_target(a, it, PL_K_PAUSE);
}

static void audit_mtu(struct auditor *a)
{
	const struct pl_link *l = &a->st->link;
	unsigned int min = pl_profile_min_mtu(a->pr), want = pl_profile_mtu(a->pr);
	struct pl_check_item *it;

	if (l->mtu >= min) {
		item(a, "mtu", PL_PASS, "%u: RoCE path MTU %u", l->mtu, pl_path_mtu(l->mtu));
		return;
	}
	it = item(a, "mtu", PL_FAIL, "%u: RoCE path MTU %u (%u needs at least %u%s)", l->mtu,
		  pl_path_mtu(l->mtu), pl_path_mtu(min), min, a->pr->jumbo ? ", jumbo frames" : "");
	if (l->max_mtu && l->max_mtu < min) {
		advise(it, "none on this device: %s allows at most %u", l->ifname, l->max_mtu);
		return;
	}
	a->target->link.mtu = l->max_mtu && want > l->max_mtu ? l->max_mtu : want;
	fix_by_target(a, it, PL_K_MTU);
}

static const char *no_ecn_advice =
	"ECN marking happens in the switches (WRED/ECN on the RoCE class); the NIC's DCQCN reaction needs a vendor driver that exposes it";

static void audit_ecn(struct auditor *a)
{
	const struct pl_ecn *e = &a->st->ecn;
	int p = a->pr->prio;
	struct pl_check_item *it;
	bool ok;

	if (!e->be) {
		it = item(a, "ecn", PL_WARN, "not supported by %s: %s", pl_net_who(a->st), e->why);
		advise(it, "%s", no_ecn_advice);
		return;
	}
	if (e->be->np) {
		ok = e->np[p] == 1 && e->rp[p] == 1;
		it = item(a, "ecn", ok ? PL_PASS : PL_FAIL, "prio %d: notification point %s, reaction point %s",
			  p, e->np[p] == 1 ? "on" : "off", e->rp[p] == 1 ? "on" : "off");
		a->target->ecn.np[p] = a->target->ecn.rp[p] = 1;
	} else if (e->enable >= 0) {
		ok = e->enable == 1 && (e->roce_prio < 0 || e->roce_prio == p);
		if (e->roce_prio >= 0)
			it = item(a, "ecn", ok ? PL_PASS : PL_FAIL, "DCQCN %s for prio %d (%s)",
				  e->enable == 1 ? "on" : "off", e->roce_prio, e->be->name);
		else
			it = item(a, "ecn", ok ? PL_PASS : PL_FAIL, "DCQCN %s (%s)",
				  e->enable == 1 ? "on" : "off", e->be->name);
		a->target->ecn.enable = 1;
		if (e->roce_prio >= 0)
			a->target->ecn.roce_prio = p;
	} else {
		it = item(a, "ecn", PL_WARN, "no ECN enable knob on %s: %s has only the CNP knobs",
			  pl_net_who(a->st), e->be->name);
		advise(it, "%s", "upstream mlx5 configures DCQCN per priority in firmware (mlxconfig ROCE_CC_PRIO_MASK)");
		return;
	}
	if (!ok)
		fix_by_target(a, it, PL_K_ECN);
	*a->target = *a->st;
}

static void audit_cnp(struct auditor *a)
{
	const struct pl_ecn *e = &a->st->ecn;
	struct pl_check_item *it;
	bool ok;

	if (!e->be || (e->cnp_dscp < 0 && e->cnp_prio < 0)) {
		it = item(a, "cnp", PL_WARN, "not supported by %s: %s", pl_net_who(a->st),
			  e->be ? "no CNP knobs" : e->why);
		advise(it, "%s", "the device sends CNPs with its default DSCP and priority; classify them on the switches");
		return;
	}
	ok = (e->cnp_dscp < 0 || e->cnp_dscp == a->pr->cnp_dscp) &&
	     (e->cnp_prio < 0 || e->cnp_prio == a->pr->cnp_prio);
	if (ok)
		it = item(a, "cnp", PL_PASS, "CNP DSCP %d, prio %d", e->cnp_dscp, e->cnp_prio);
	else
		it = item(a, "cnp", PL_FAIL, "CNP DSCP %d, prio %d (profile: DSCP %d, prio %d)",
			  e->cnp_dscp, e->cnp_prio, a->pr->cnp_dscp, a->pr->cnp_prio);
	if (e->cnp_dscp >= 0)
		a->target->ecn.cnp_dscp = a->pr->cnp_dscp;
	if (e->cnp_prio >= 0)
		a->target->ecn.cnp_prio = a->pr->cnp_prio;
	fix_by_target(a, it, PL_K_CNP);
}

static void audit_coalesce(struct auditor *a)
{
	const struct pl_eattrs *c = &a->st->coal;
	bool rx = pl_et_has(c, ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX);
	bool tx = pl_et_has(c, ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX);
	struct pl_check_item *it;

	if (a->st->coal_err || (!rx && !tx)) {
		it = item(a, "coalesce", PL_WARN, "adaptive interrupt coalescing not supported by %s",
			  pl_net_who(a->st));
		advise(it, "%s", "set rx-usecs/rx-frames by hand: low for latency, higher for CPU (Documentation/tuning.md)");
		return;
	}
	if ((!rx || c->v[ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX]) &&
	    (!tx || c->v[ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX])) {
		item(a, "coalesce", PL_PASS, "adaptive%s%s", rx ? " rx" : "", tx ? " tx" : "");
		return;
	}
	it = item(a, "coalesce", PL_WARN, "adaptive rx %s, tx %s: fixed moderation trades CPU against latency by hand",
		  !rx ? "n/a" : c->v[ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX] ? "on" : "off",
		  !tx ? "n/a" : c->v[ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX] ? "on" : "off");
	if (rx)
		a->target->coal.v[ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX] = 1;
	if (tx)
		a->target->coal.v[ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX] = 1;
	fix_by_target(a, it, PL_K_COAL);
}

static void audit_rdma(struct auditor *a)
{
	const struct pl_rdma *r = &a->st->rdma;
	struct pl_check_item *it;

	if (!r->n) {
		it = item(a, "rdma", PL_FAIL,
			  "no RDMA device on %s: an NVMe/RDMA target cannot serve through it",
			  a->st->link.ifname);
		advise(it, "load the NIC's RoCE driver (mlx5_ib, bnxt_re, irdma), or for soft-RoCE: rdma link add rxe0 type rxe netdev %s",
		       a->st->link.ifname);
		return;
	}
	for (size_t i = 0; i < r->n; i++) {
		if (!strcmp(r->port[i].state, "ACTIVE"))
			continue;
		it = item(a, "rdma", PL_WARN, "%s port %d is %s", r->port[i].ibdev, r->port[i].port,
			  *r->port[i].state ? r->port[i].state : "in an unknown state");
		advise(it, "bring %s up and check the cable and the switch port", a->st->link.ifname);
		return;
	}
	item(a, "rdma", PL_PASS, "%s port %d (ACTIVE)%s", r->port[0].ibdev, r->port[0].port,
	     r->n > 1 ? " and more" : "");
}

static void audit_tos(struct auditor *a)
{
	const struct pl_rdma *r = &a->st->rdma;
	int tos = a->pr->dscp << 2;
	struct pl_check_item *it;

	if (!r->n) {
		item(a, "roce-tos", PL_NA, "no RDMA device on %s (see the rdma item)",
		     a->st->link.ifname);
		return;
	}
	if (!r->cm_cfs) {
		it = item(a, "roce-tos", PL_WARN, "%s", "no rdma_cm configfs: the RDMA CM default ToS cannot be read");
		advise(it, "%s", "modprobe rdma_cm; mount -t configfs none /sys/kernel/config");
		return;
	}
	for (size_t i = 0; i < r->n; i++) {
		if (r->port[i].tos >> 2 == a->pr->dscp)
			continue;
		it = item(a, "roce-tos", PL_WARN,
			  "RDMA CM default ToS of %s port %d is %d (DSCP %d): connections without a ToS of their own are not in the RoCE class",
			  r->port[i].ibdev, r->port[i].port, r->port[i].tos, r->port[i].tos >> 2);
		for (size_t j = 0; j < r->n; j++)
			a->target->rdma.port[j].tos = tos;
		fix_by_target(a, it, PL_K_TOS);
		return;
	}
	item(a, "roce-tos", PL_PASS, "RDMA CM default ToS %d (DSCP %d)", r->port[0].tos, a->pr->dscp);
}

void pl_audit(const struct pl_net *st, const struct pl_profile *pr, struct pl_audit *out)
{
	/* RDMA first: without it nothing else matters to an RDMA target. */
	static void (*const items[])(struct auditor *) = {
		audit_rdma, audit_dcb, audit_trust, audit_app, audit_pfc, audit_ets, audit_pause,
		audit_mtu, audit_ecn, audit_cnp, audit_coalesce, audit_tos,
	};
	struct auditor a = { .st = st, .pr = pr, .out = out };

	out->n = 0;
	a.target = xmalloc(sizeof(*a.target));
	for (size_t i = 0; i < ARRAY_SIZE(items); i++) {
		*a.target = *st;
		items[i](&a);
	}
	free(a.target);
}

void pl_audit_free(struct pl_audit *a)
{
	for (size_t i = 0; i < a->n; i++)
		pl_patch_free(&a->item[i].fix);
	a->n = 0;
}

void pl_profile_plan(const struct pl_audit *a, struct pl_net_patch *fix, struct strv *skipped)
{
	for (size_t i = 0; i < a->n; i++) {
		const struct pl_check_item *it = &a->item[i];
		char *line;

		if (it->grade == PL_PASS || it->grade == PL_NA)
			continue;
		if (it->fix.n && !it->dropped) {
			pl_patch_cat(fix, &it->fix);
			continue;
		}
		line = xasprintf("%s: %s%s", it->name, it->reason,
				 it->dropped ? " (the device refused the fix)" : "");
		strv_add(skipped, line);
		free(line);
	}
}

static bool sets_knob(const struct pl_check_item *it, enum pl_knob k)
{
	for (size_t i = 0; i < it->fix.n; i++)
		if (it->fix.v[i].knob == k)
			return true;
	return false;
}

bool pl_profile_drop(struct pl_audit *a, enum pl_knob k)
{
	bool any = false;

	for (size_t i = 0; i < a->n; i++) {
		const struct pl_check_item *it = &a->item[i];

		if (it->grade == PL_FAIL && !it->dropped && sets_knob(it, k))
			return false;
		any |= it->grade == PL_WARN && !it->dropped && sets_knob(it, k);
	}
	for (size_t i = 0; any && i < a->n; i++)
		if (sets_knob(&a->item[i], k))
			a->item[i].dropped = true;
	return any;
}

/* ---- the undo file ---- */

char *pl_undo_path(const char *ifname)
{
	const char *dir = getenv("PURLIN_STATE_DIR");

	return xasprintf("%s/net-%s.json", dir && *dir ? dir : PL_STATE_DIR, ifname);
}

int pl_undo_load(const char *path, const char *ifname, struct pl_net_patch *p)
{
	struct json_object *doc, *name, *undo;
	const char *why = NULL;

	if (access(path, F_OK) && errno == ENOENT)
		return 0;
	doc = json_object_from_file(path);
	if (!doc) {
		pl_err("%s: cannot read it as JSON", path);
		return PL_EXIT_FAIL;
	}
	if (!json_object_object_get_ex(doc, "ifname", &name) ||
	    strcmp(json_object_get_string(name), ifname))
		why = "it is not for this device";
	else if (!json_object_object_get_ex(doc, "undo", &undo) ||
		 !json_object_is_type(undo, json_type_array))
		why = "no \"undo\" list";
	for (size_t i = 0; !why && i < json_object_array_length(undo); i++) {
		struct json_object *s = json_object_array_get_idx(undo, i);

		if (!json_object_is_type(s, json_type_string) ||
		    pl_net_parse_str("net tune --undo", json_object_get_string(s), p))
			why = "an entry is not a valid setting";
	}
	json_object_put(doc);
	if (why) {
		pl_err("%s: %s", path, why);
		pl_patch_free(p);
		return PL_EXIT_FAIL;
	}
	return 0;
}

int pl_undo_save(const char *path, const char *ifname, const struct pl_net_patch *undo)
{
	struct pl_net_patch all = { 0 };
	struct json_object *doc, *list;
	int ret = pl_undo_load(path, ifname, &all);
	char *text;

	if (ret)
		return -EINVAL;
	for (size_t i = 0; i < undo->n; i++) {
		bool known = false;

		for (size_t j = 0; j < all.n && !known; j++)
			known = pl_net_op_same_key(&all.v[j], &undo->v[i]);
		if (!known)
			pl_patch_add(&all, &undo->v[i]);
	}
	doc = json_object_new_object();
	list = json_object_new_array();
	json_object_object_add(doc, "ifname", json_object_new_string(ifname));
	json_object_object_add(doc, "profile", json_object_new_string(PL_PROFILE_NAME));
	for (size_t i = 0; i < all.n; i++) {
		struct pl_net_patch one = { .v = &all.v[i], .n = 1 };

		text = pl_net_format_str(&one);
		json_object_array_add(list, json_object_new_string(text));
		free(text);
	}
	json_object_object_add(doc, "undo", list);
	text = xasprintf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
								      JSON_C_TO_STRING_SPACED));
	ret = pl_write_atomic(path, text, 0666);
	if (ret)
		pl_err_obj(path, "write", -ret);
	free(text);
	json_object_put(doc);
	pl_patch_free(&all);
	return ret;
}
