// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: reading a device and changing it knob by knob. The kernel
 * skips DCB attributes whose driver setter is missing and applies ETS,
 * PFC, APP and trust in that order without rollback, so every knob is
 * sent on its own, read back, and compared with what was asked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netcfg.h"

int pl_net_read(const char *ifname, struct pl_net *st, struct pl_nlerr *e)
{
	struct pl_nlerr ignore;
	int ret;

	memset(st, 0, sizeof(*st));
	ret = pl_link_get(ifname, &st->link, e);
	if (ret)
		return ret;
	pl_sys_driver(ifname, st->driver, sizeof(st->driver));
	st->speed = pl_sys_speed(ifname);
	st->dcb_err = -pl_dcb_get(ifname, &st->dcb, &ignore);
	st->coal_err = -pl_et_get(ifname, &pl_et_coalesce, &st->coal, &ignore);
	st->ring_err = -pl_et_get(ifname, &pl_et_rings, &st->ring, &ignore);
	st->pause_err = -pl_et_get(ifname, &pl_et_pause, &st->pause, &ignore);
	pl_sys_rdma(ifname, &st->rdma);
	pl_ecn_read(ifname, st->driver, &st->rdma, &st->ecn);
	return 0;
}

/* The attributes of one ethtool kind that differ. */
static void et_delta(const struct pl_eattrs *cur, const struct pl_eattrs *want,
		     struct pl_eattrs *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int a = 0; a <= PL_ET_MAXATTR; a++)
		if (pl_et_has(want, a) && (!pl_et_has(cur, a) || cur->v[a] != want->v[a]))
			pl_et_put(out, a, want->v[a]);
}

/* Entries of x that y lacks, as an IEEE_SET/DEL payload. */
static void app_minus(const struct pl_dcb *x, const struct pl_dcb *y, struct pl_dcb *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < x->napp; i++) {
		bool found = false;

		for (size_t j = 0; j < y->napp && !found; j++)
			found = !memcmp(&x->app[i], &y->app[j], sizeof(struct dcb_app));
		if (!found)
			out->app[out->napp++] = x->app[i];
	}
}

static int apply_app(const char *ifname, const struct pl_dcb *cur, const struct pl_dcb *want,
		     struct pl_nlerr *e)
{
	struct pl_dcb *d = xcalloc(1, sizeof(*d)), *now = NULL;
	int ret = 0;

	/* Add first: mlx5 leaves DSCP trust when the last DSCP entry goes. */
	app_minus(want, cur, d);
	if (d->napp) {
		ret = pl_dcb_set(ifname, DCB_CMD_IEEE_SET, d, PL_DCB_APP, e);
		/*
		 * A driver with one priority per DSCP (mlx5) drops the DSCP's
		 * old entry itself when a new one comes, and answers -ENOENT
		 * to deleting it again, which stops the kernel's delete loop:
		 * delete only what the device still has.
		 */
		if (!ret) {
			now = xmalloc(sizeof(*now));
			ret = pl_dcb_get(ifname, now, e);
			cur = now;
		}
	}
	app_minus(cur, want, d);
	if (!ret && d->napp)
		ret = pl_dcb_set(ifname, DCB_CMD_IEEE_DEL, d, PL_DCB_APP, e);
	free(now);
	free(d);
	return ret;
}

static int apply_tos(const struct pl_rdma *cur, const struct pl_rdma *want, struct pl_nlerr *e)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < cur->n && i < want->n; i++)
		if (cur->port[i].tos != want->port[i].tos)
			ret = pl_sys_set_tos(&cur->port[i], want->port[i].tos, e);
	return ret;
}

/* ECN (enables) and CNP (dscp, prio) share the backend's files. */
static int apply_ecn(const struct pl_ecn *cur, const struct pl_ecn *want, enum pl_knob k,
		     struct pl_nlerr *e)
{
	struct pl_ecn mix = *cur;

	if (k == PL_K_ECN) {
		memcpy(mix.np, want->np, sizeof(mix.np));
		memcpy(mix.rp, want->rp, sizeof(mix.rp));
		mix.enable = want->enable;
		mix.roce_prio = want->roce_prio;
	} else {
		mix.cnp_dscp = want->cnp_dscp;
		mix.cnp_prio = want->cnp_prio;
	}
	return pl_ecn_write(cur, &mix, e);
}

static int knob_apply(struct pl_net *cur, const struct pl_net *want, enum pl_knob k,
		      struct pl_nlerr *e)
{
	const char *ifname = cur->link.ifname;
	struct pl_eattrs delta;

	switch (k) {
	case PL_K_DCBX:
		return pl_dcb_setdcbx(ifname, want->dcb.dcbx, e);
	case PL_K_ETS:
		return pl_dcb_set(ifname, DCB_CMD_IEEE_SET, &want->dcb, PL_DCB_ETS, e);
	case PL_K_PFC:
		return pl_dcb_set(ifname, DCB_CMD_IEEE_SET, &want->dcb, PL_DCB_PFC, e);
	case PL_K_APP:
		return apply_app(ifname, &cur->dcb, &want->dcb, e);
	case PL_K_TRUST:
		return pl_dcb_set(ifname, DCB_CMD_IEEE_SET, &want->dcb, PL_DCB_TRUST, e);
	case PL_K_MTU:
		return pl_link_set_mtu(cur->link.ifindex, want->link.mtu, e);
	case PL_K_PAUSE:
		et_delta(&cur->pause, &want->pause, &delta);
		return pl_et_set(ifname, &pl_et_pause, &delta, e);
	case PL_K_RING:
		et_delta(&cur->ring, &want->ring, &delta);
		return pl_et_set(ifname, &pl_et_rings, &delta, e);
	case PL_K_COAL:
		et_delta(&cur->coal, &want->coal, &delta);
		return pl_et_set(ifname, &pl_et_coalesce, &delta, e);
	case PL_K_ECN:
	case PL_K_CNP:
		return apply_ecn(&cur->ecn, &want->ecn, k, e);
	default:
		return apply_tos(&cur->rdma, &want->rdma, e);
	}
}

/* Read the part of the device that knob k lives in again. */
static int knob_refresh(struct pl_net *cur, enum pl_knob k, struct pl_nlerr *e)
{
	const char *ifname = cur->link.ifname;

	switch (k) {
	case PL_K_DCBX:
	case PL_K_ETS:
	case PL_K_PFC:
	case PL_K_APP:
	case PL_K_TRUST:
		return pl_dcb_get(ifname, &cur->dcb, e);
	case PL_K_MTU:
		return pl_link_get(ifname, &cur->link, e);
	case PL_K_PAUSE:
		return pl_et_get(ifname, &pl_et_pause, &cur->pause, e);
	case PL_K_RING:
		return pl_et_get(ifname, &pl_et_rings, &cur->ring, e);
	case PL_K_COAL:
		return pl_et_get(ifname, &pl_et_coalesce, &cur->coal, e);
	case PL_K_ECN:
	case PL_K_CNP:
		pl_ecn_read(ifname, cur->driver, &cur->rdma, &cur->ecn);
		return 0;
	default:
		pl_sys_rdma(ifname, &cur->rdma);
		return 0;
	}
}

/* Bandwidth of a class that is not ETS means nothing; drivers report anything. */
static bool ignorable(const struct pl_net_op *op, const struct pl_net *want)
{
	return op->knob == PL_K_ETS && op->field == PL_F_BW &&
	       want->dcb.ets.tc_tsa[op->idx] != IEEE_8021QAZ_TSA_ETS;
}

/* Keep the ops of p whose key is among the ops of keys. */
static void keep_keys(struct pl_net_patch *p, const struct pl_net_patch *keys,
		      const struct pl_net *want)
{
	size_t o = 0;

	for (size_t i = 0; i < p->n; i++) {
		bool keep = false;

		for (size_t j = 0; j < keys->n && !keep; j++)
			keep = pl_net_op_same_key(&p->v[i], &keys->v[j]);
		if (keep && !ignorable(&p->v[i], want))
			p->v[o++] = p->v[i];
	}
	p->n = o;
}

/*
 * What was asked (before -> want) but does not read back (now): a
 * driver without the setter, which the kernel skips silently.
 */
static int knob_verify(const struct pl_net *before, const struct pl_net *now,
		       const struct pl_net *want, enum pl_knob k, struct pl_nlerr *e)
{
	struct pl_net_patch asked = { 0 }, missing = { 0 }, got = { 0 };
	char *m, *g;
	int ret = 0;

	pl_net_diff_knob(before, want, k, &asked);
	pl_net_diff_knob(now, want, k, &missing);
	pl_net_diff_knob(want, now, k, &got);
	keep_keys(&missing, &asked, want);
	keep_keys(&got, &missing, want);
	if (missing.n) {
		m = pl_net_format_str(&missing);
		g = pl_net_format_str(&got);
		ret = pl_nlerr_set(e, EOPNOTSUPP,
				   "%s did not apply '%s' (reads back '%s'): the driver lacks it and the kernel skipped it",
				   now->link.ifname, m, got.n ? g : "nothing");
		e->full = true;
		free(m);
		free(g);
	}
	pl_patch_free(&asked);
	pl_patch_free(&missing);
	pl_patch_free(&got);
	return ret;
}

/* "purlinctl: net IFNAME: LABEL: [what: ]error" */
static void report(const char *ifname, const char *label, const char *what,
		   const struct pl_nlerr *e)
{
	const char *sep = *what ? ": " : "";

	if (e->full)
		pl_err("net %s: %s: %s%s%s", ifname, label, what, sep, e->msg);
	else if (*e->msg)
		pl_err("net %s: %s: %s%s%s (%s)", ifname, label, what, sep, strerror(e->err),
		       e->msg);
	else
		pl_err("net %s: %s: %s%s%s", ifname, label, what, sep, strerror(e->err));
}

/* The change of knob k as setter words, e.g. "coalesce rx-usecs 8". */
static char *request_words(const struct pl_net *have, const struct pl_net *want, enum pl_knob k)
{
	struct pl_net_patch d = { 0 };
	char *s;

	pl_net_diff_knob(have, want, k, &d);
	s = pl_net_format_str(&d);
	pl_patch_free(&d);
	return s;
}

static bool knob_differs(const struct pl_net *a, const struct pl_net *b, enum pl_knob k)
{
	struct pl_net_patch d = { 0 };
	bool differs;

	pl_net_diff_knob(a, b, k, &d);
	differs = d.n > 0;
	pl_patch_free(&d);
	return differs;
}

/* Change knob k of cur to want's and check it; cur ends as read back. */
static int knob_change(struct pl_net *cur, const struct pl_net *want, enum pl_knob k,
		       struct pl_nlerr *e)
{
	struct pl_net *before = xmalloc(sizeof(*before));
	int ret;

	*before = *cur;
	ret = knob_apply(cur, want, k, e);
	if (!ret)
		ret = knob_refresh(cur, k, e);
	else
		knob_refresh(cur, k, &(struct pl_nlerr){ 0 });
	if (!ret)
		ret = knob_verify(before, cur, want, k, e);
	free(before);
	return ret;
}

int pl_net_execute(struct pl_net *have, const struct pl_net *want, enum pl_knob *failed)
{
	struct pl_net *orig = xmalloc(sizeof(*orig));
	enum pl_knob done[PL_NKNOBS];
	struct pl_nlerr e = { 0 };
	size_t ndone = 0, back = 0;
	int ret = 0;

	*orig = *have;
	for (int k = 0; k < PL_NKNOBS && !ret; k++) {
		char *req;

		if (!knob_differs(have, want, k))
			continue;
		req = request_words(have, want, k);

		done[ndone++] = k;
		ret = knob_change(have, want, k, &e);
		if (ret)
			report(have->link.ifname, e.full ? pl_knob_names[k] : req, "", &e);
		else
			pl_note("net %s: %s: done", have->link.ifname, req);
		free(req);
	}
	if (!ret) {
		free(orig);
		return 0;
	}
	if (failed)
		*failed = done[ndone - 1];
	/* Set back, the failed knob included (the kernel may have applied part of it). */
	for (size_t i = ndone; i-- > 0;) {
		struct pl_nlerr re = { 0 };

		if (!knob_differs(have, orig, done[i]))
			continue;
		if (knob_change(have, orig, done[i], &re))
			report(have->link.ifname, pl_knob_names[done[i]], "setting back failed", &re);
		else
			back++;
	}
	if (back)
		pl_err("net %s: %zu changed knob%s set back", have->link.ifname, back,
		       back == 1 ? "" : "s");
	free(orig);
	return ret;
}
