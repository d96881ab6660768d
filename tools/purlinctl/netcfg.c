// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: the setter grammar of `net set` as patches: parse, apply to a
 * device state (read-modify-write), difference of two states, and print.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/ethtool_netlink.h>

#include "netcfg.h"

const char *const pl_knob_names[PL_NKNOBS] = {
	[PL_K_DCBX] = "dcbx",	  [PL_K_PAUSE] = "pause",   [PL_K_ETS] = "ets",
	[PL_K_PFC] = "pfc",	  [PL_K_APP] = "app",	    [PL_K_TRUST] = "trust",
	[PL_K_MTU] = "mtu",	  [PL_K_RING] = "ring",	    [PL_K_COAL] = "coalesce",
	[PL_K_ECN] = "ecn",	  [PL_K_CNP] = "cnp",	    [PL_K_TOS] = "roce-tos",
};

static const struct pl_et_kind *et_kind(int knob)
{
	return knob == PL_K_COAL ? &pl_et_coalesce :
	       knob == PL_K_RING ? &pl_et_rings : &pl_et_pause;
}

void pl_patch_add(struct pl_net_patch *p, const struct pl_net_op *op)
{
	p->v = xrealloc(p->v, (p->n + 1) * sizeof(*p->v));
	p->v[p->n++] = *op;
}

void pl_patch_cat(struct pl_net_patch *p, const struct pl_net_patch *more)
{
	for (size_t i = 0; i < more->n; i++)
		pl_patch_add(p, &more->v[i]);
}

void pl_patch_free(struct pl_net_patch *p)
{
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

/* ---- parsing ---- */

struct parser {
	const char *cmd;
	int argc, i;
	char **argv;
	struct pl_net_patch *p;
	uint8_t knob;
	uint8_t app_field;	/* sticky add/del/replace */
};

static int knob_by_name(const char *w)
{
	for (int k = 0; k < PL_NKNOBS; k++)
		if (!strcmp(pl_knob_names[k], w))
			return k;
	return -1;
}

static const char *peek(const struct parser *ps)
{
	return ps->i < ps->argc ? ps->argv[ps->i] : NULL;
}

static int bad(const struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(const struct parser *ps, const char *fmt, ...)
{
	const char *knob = pl_knob_names[ps->knob];
	size_t len = strlen(knob);
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	/* "mtu '67': ..." names its knob already */
	if (msg && !strncmp(msg, knob, len) && msg[len] == ' ')
		pl_usage_error(ps->cmd, "%s", msg);
	else
		pl_usage_error(ps->cmd, "%s: %s", knob, msg ? msg : "?");
	free(msg);
	return PL_EXIT_USAGE;
}

/* The value after keyword kw, consumed. */
static int take(struct parser *ps, const char *kw, const char **val)
{
	*val = peek(ps);
	if (!*val)
		return bad(ps, "'%s' needs a value", kw);
	ps->i++;
	return 0;
}

static bool parse_num(const char *s, long long min, long long max, int base, uint32_t *out)
{
	long long v;

	if (!pl_parse_long(s, base, &v) || v < min || v > max)
		return false;
	*out = (uint32_t)v;
	return true;
}

static bool parse_onoff(const char *s, uint32_t *out)
{
	if (!strcmp(s, "on"))
		*out = 1;
	else if (!strcmp(s, "off"))
		*out = 0;
	else
		return false;
	return true;
}

static int take_num(struct parser *ps, const char *kw, long long min, long long max,
		    uint32_t *out)
{
	const char *v;
	int ret = take(ps, kw, &v);

	if (!ret && !parse_num(v, min, max, 10, out))
		ret = bad(ps, "%s '%s': must be %lld-%lld", kw, v, min, max);
	return ret;
}

static int take_onoff(struct parser *ps, const char *kw, uint32_t *out)
{
	const char *v;
	int ret = take(ps, kw, &v);

	if (!ret && !parse_onoff(v, out))
		ret = bad(ps, "%s '%s': must be on or off", kw, v);
	return ret;
}

static void emit(struct parser *ps, uint8_t field, int idx, uint32_t val)
{
	struct pl_net_op op = { .knob = ps->knob, .field = field, .idx = idx, .val = val };

	pl_patch_add(ps->p, &op);
}

/* "K:V ..." after kw: K is 0-7 or all, V as vparse says; at least one. */
static int take_pairs(struct parser *ps, const char *kw, uint8_t field,
		      bool (*vparse)(const char *s, uint32_t *out), const char *vwhat)
{
	int n = 0;

	for (const char *w; (w = peek(ps)) && strchr(w, ':'); n++) {
		const char *colon = strchr(w, ':');
		char key[8];
		uint32_t k, v;
		int idx;

		snprintf(key, sizeof(key), "%.*s", (int)(colon - w), w);
		if (!strcmp(key, "all"))
			idx = -1;
		else if (parse_num(key, 0, 7, 10, &k))
			idx = (int)k;
		else
			return bad(ps, "%s '%s': '%s' must be 0-7 or all", kw, w, key);
		if (!vparse(colon + 1, &v))
			return bad(ps, "%s '%s': '%s' must be %s", kw, w, colon + 1, vwhat);
		emit(ps, field, idx, v);
		ps->i++;
	}
	return n ? 0 : bad(ps, "'%s' needs N:VALUE pairs", kw);
}

static bool v_onoff(const char *s, uint32_t *out)
{
	return parse_onoff(s, out);
}

static bool v_tsa(const char *s, uint32_t *out)
{
	int tsa = pl_dcb_tsa_parse(s);

	*out = (uint32_t)tsa;
	return tsa >= 0;
}

static bool v_pct(const char *s, uint32_t *out)
{
	return parse_num(s, 0, 100, 10, out);
}

static bool v_tc(const char *s, uint32_t *out)
{
	return parse_num(s, 0, 7, 10, out);
}

/* A keyword with one value: on/off, or a number 0-max. */
static int take_field(struct parser *ps, const char *kw, uint8_t field, bool flag, long long max)
{
	uint32_t v;
	int ret = flag ? take_onoff(ps, kw, &v) : take_num(ps, kw, 0, max, &v);

	if (!ret)
		emit(ps, field, 0, v);
	return ret;
}

/*
 * Each sub-parser gets the next word of its knob: it returns 1 when the
 * word was its keyword (values consumed), 0 when not, or a negated exit code.
 */
static int sub_pfc(struct parser *ps, const char *w)
{
	int ret;

	if (!strcmp(w, "prio-pfc"))
		ret = take_pairs(ps, w, PL_F_PFC_EN, v_onoff, "on or off");
	else if (!strcmp(w, "macsec-bypass"))
		ret = take_field(ps, w, PL_F_MBC, true, 1);
	else if (!strcmp(w, "delay"))
		ret = take_field(ps, w, PL_F_DELAY, false, 65535);
	else
		return 0;
	return ret ? -ret : 1;
}

static int sub_ets(struct parser *ps, const char *w)
{
	int ret;

	if (!strcmp(w, "tc-tsa"))
		ret = take_pairs(ps, w, PL_F_TSA, v_tsa, "strict, cbs, ets or vendor");
	else if (!strcmp(w, "tc-bw"))
		ret = take_pairs(ps, w, PL_F_BW, v_pct, "0-100");
	else if (!strcmp(w, "prio-tc"))
		ret = take_pairs(ps, w, PL_F_PRIO_TC, v_tc, "a traffic class 0-7");
	else if (!strcmp(w, "willing"))
		ret = take_field(ps, w, PL_F_WILLING, true, 1);
	else
		return 0;
	return ret ? -ret : 1;
}

/* SEL PROTO prio P */
static int app_entry(struct parser *ps, const char *w)
{
	static const struct {
		const char *sel;
		long long min, max;
		int base;
	} ranges[] = {
		{ "dscp", 0, 63, 10 },	     { "udp", 1, 65535, 10 }, { "tcp", 1, 65535, 10 },
		{ "port", 1, 65535, 10 },    { "ethtype", 0x600, 0xffff, 0 },
	};
	struct pl_net_op op = { .knob = PL_K_APP, .field = ps->app_field };
	const char *proto, *kw;
	uint32_t v, prio;
	size_t r;

	for (r = 0; r < ARRAY_SIZE(ranges) && strcmp(ranges[r].sel, w); r++)
		;
	if (r == ARRAY_SIZE(ranges))
		return 0;
	if (!ps->app_field)
		return -bad(ps, "'%s': say add, del or replace first", w);
	if (take(ps, w, &proto))
		return -PL_EXIT_USAGE;
	if (!parse_num(proto, ranges[r].min, ranges[r].max, ranges[r].base, &v))
		return -bad(ps, "%s '%s': must be %lld-%lld", w, proto, ranges[r].min,
			    ranges[r].max);
	kw = peek(ps);
	if (!kw || strcmp(kw, "prio"))
		return -bad(ps, "%s %s: 'prio N' expected", w, proto);
	ps->i++;
	if (take_num(ps, "prio", 0, 7, &prio))
		return -PL_EXIT_USAGE;
	op.app.selector = (uint8_t)pl_dcb_sel_parse(w);
	op.app.protocol = (uint16_t)v;
	op.app.priority = (uint8_t)prio;
	pl_patch_add(ps->p, &op);
	return 1;
}

static int sub_app(struct parser *ps, const char *w)
{
	if (!strcmp(w, "add"))
		ps->app_field = PL_F_APP_ADD;
	else if (!strcmp(w, "del"))
		ps->app_field = PL_F_APP_DEL;
	else if (!strcmp(w, "replace"))
		ps->app_field = PL_F_APP_REPLACE;
	else if (!strcmp(w, "pcp"))
		return -bad(ps, "%s", "PCP entries are not supported; use dscp, udp, tcp, port or ethtype");
	else
		return app_entry(ps, w);
	return 1;
}

/* trust and dcbx build one operation, which parse_knob() creates. */
static struct pl_net_op *last_op(struct parser *ps)
{
	return &ps->p->v[ps->p->n - 1];
}

static int sub_trust(struct parser *ps, const char *w)
{
	struct pl_net_op *op = last_op(ps);
	int sel = pl_dcb_sel_parse(w);

	if (!strcmp(w, "none"))
		return 1;	/* an empty list */
	if (sel < 0)
		return 0;
	for (int i = 0; i < op->nlist; i++)
		if (op->list[i] == sel)
			return -bad(ps, "'%s' given twice", w);
	op->list[op->nlist++] = (uint8_t)sel;
	return 1;
}

static int sub_dcbx(struct parser *ps, const char *w)
{
	int bit = pl_dcb_dcbx_parse(w);

	if (bit < 0)
		return 0;
	last_op(ps)->val |= (uint32_t)bit;
	return 1;
}

static int sub_ethtool(struct parser *ps, const char *w)
{
	const struct pl_et_attr *a = pl_et_attr_by_name(et_kind(ps->knob), w);
	uint32_t v;
	int ret;

	if (!a || a->ro)
		return 0;
	if (a->type == PL_ET_BOOL)
		ret = take_onoff(ps, w, &v);
	else
		ret = take_num(ps, w, 0, UINT32_MAX, &v);
	if (!ret)
		emit(ps, PL_F_VALUE, a->attr, v);
	return ret ? -ret : 1;
}

static int sub_ecn(struct parser *ps, const char *w)
{
	uint8_t field = !strcmp(w, "prio") ? PL_F_ECN : !strcmp(w, "np") ? PL_F_ECN_NP :
			!strcmp(w, "rp") ? PL_F_ECN_RP : 0;
	const char *p;
	uint32_t prio = 0, v;

	if (!field)
		return 0;
	if (take(ps, w, &p))
		return -PL_EXIT_USAGE;
	if (strcmp(p, "all") && !parse_num(p, 0, 7, 10, &prio))
		return -bad(ps, "%s '%s': must be 0-7 or all", w, p);
	if (take_onoff(ps, w, &v))
		return -PL_EXIT_USAGE;
	emit(ps, field, strcmp(p, "all") ? (int)prio : -1, v);
	return 1;
}

static int sub_cnp(struct parser *ps, const char *w)
{
	int ret;

	if (!strcmp(w, "dscp"))
		ret = take_field(ps, w, PL_F_CNP_DSCP, false, 63);
	else if (!strcmp(w, "prio"))
		ret = take_field(ps, w, PL_F_CNP_PRIO, false, 7);
	else
		return 0;
	return ret ? -ret : 1;
}

/* mtu and roce-tos take one value directly. */
static int parse_scalar(struct parser *ps)
{
	const char *kw = pl_knob_names[ps->knob];
	uint32_t v;
	int ret = ps->knob == PL_K_MTU ? take_num(ps, kw, 68, 65536, &v) :
					 take_num(ps, kw, 0, 255, &v);

	if (!ret)
		emit(ps, PL_F_VALUE, 0, v);
	return ret;
}

static int (*const subs[PL_NKNOBS])(struct parser *, const char *) = {
	[PL_K_DCBX] = sub_dcbx,	    [PL_K_PAUSE] = sub_ethtool, [PL_K_ETS] = sub_ets,
	[PL_K_PFC] = sub_pfc,	    [PL_K_APP] = sub_app,	[PL_K_TRUST] = sub_trust,
	[PL_K_RING] = sub_ethtool,  [PL_K_COAL] = sub_ethtool,	[PL_K_ECN] = sub_ecn,
	[PL_K_CNP] = sub_cnp,
};

static int parse_knob(struct parser *ps)
{
	size_t before = ps->p->n;
	int n = 0, r = 0;

	if (ps->knob == PL_K_MTU || ps->knob == PL_K_TOS)
		return parse_scalar(ps);
	if (ps->knob == PL_K_TRUST || ps->knob == PL_K_DCBX)
		emit(ps, ps->knob == PL_K_TRUST ? PL_F_TRUST : PL_F_VALUE, 0, 0);
	ps->app_field = 0;
	for (const char *w; (w = peek(ps)); n++) {
		ps->i++;
		r = subs[ps->knob](ps, w);
		if (r < 0)
			return -r;
		if (!r) {
			ps->i--;
			break;
		}
	}
	if (ps->knob == PL_K_APP && ps->p->n == before)
		n = 0;	/* "add" without an entry */
	if (!n && peek(ps) && knob_by_name(peek(ps)) < 0)
		return bad(ps, "unknown argument '%s'", peek(ps));
	if (!n)
		return bad(ps, "%s", "needs arguments");
	if (ps->knob == PL_K_DCBX && !(last_op(ps)->val & (DCB_CAP_DCBX_HOST |
							    DCB_CAP_DCBX_LLD_MANAGED)))
		last_op(ps)->val |= DCB_CAP_DCBX_HOST;
	return 0;
}

int pl_net_parse(const char *cmd, int argc, char **argv, struct pl_net_patch *p)
{
	struct parser ps = { .cmd = cmd, .argc = argc, .argv = argv, .p = p };
	int ret = 0;

	if (!argc)
		return pl_usage_error(cmd, "%s", "nothing to set");
	while (!ret && ps.i < argc) {
		int k = knob_by_name(argv[ps.i]);

		if (k < 0)
			return pl_usage_error(cmd, "unknown knob '%s'", argv[ps.i]);
		ps.knob = (uint8_t)k;
		ps.i++;
		ret = parse_knob(&ps);
		if (!ret && ps.i < argc && knob_by_name(argv[ps.i]) < 0)
			ret = bad(&ps, "unknown argument '%s'", argv[ps.i]);
	}
	return ret;
}

int pl_net_parse_str(const char *cmd, const char *line, struct pl_net_patch *p)
{
	char *copy = xstrdup(line), *save = NULL;
	char **argv = NULL;
	int argc = 0, ret;

	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		argv = xrealloc(argv, (argc + 1) * sizeof(*argv));
		argv[argc++] = w;
	}
	ret = pl_net_parse(cmd, argc, argv, p);
	free(argv);
	free(copy);
	return ret;
}

/* ---- applying a patch to a state ---- */

static char who_buf[128];

const char *pl_net_who(const struct pl_net *st)
{
	snprintf(who_buf, sizeof(who_buf), "%s (%s%s)", st->link.ifname,
		 *st->driver ? "driver " : "", *st->driver ? st->driver : "virtual device");
	return who_buf;
}

struct applier {
	const struct pl_net *have;
	struct pl_net *want;
	char *why;
	size_t len;
	const struct pl_net_op *trust;
	bool ets_changed, pfc_changed;
};

static int refuse(struct applier *a, int err, const struct pl_net_op *op, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int refuse(struct applier *a, int err, const struct pl_net_op *op, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(a->why, a->len, "%s: ", pl_knob_names[op->knob]);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < a->len)
		vsnprintf(a->why + n, a->len - n, fmt, ap);
	va_end(ap);
	return -err;
}

static int unsupported(struct applier *a, const struct pl_net_op *op, int err)
{
	if (err && err != EOPNOTSUPP)
		return refuse(a, err, op, "cannot read %s: %s", pl_net_who(a->have), strerror(err));
	return refuse(a, EOPNOTSUPP, op, "not supported by %s", pl_net_who(a->have));
}

/* DCB must answer and carry the part (PL_DCB_*) the knob needs. */
static int need_dcb(struct applier *a, const struct pl_net_op *op, unsigned int part)
{
	if (a->have->dcb_err)
		return unsupported(a, op, a->have->dcb_err);
	if (!(a->have->dcb.have & part))
		return unsupported(a, op, 0);
	return 0;
}

int pl_net_tcs(const struct pl_net *st)
{
	int cap = st->dcb.ets.ets_cap;

	return cap > 0 && cap < IEEE_8021QAZ_MAX_TCS ? cap : IEEE_8021QAZ_MAX_TCS;
}

static int apply_ets(struct applier *a, const struct pl_net_op *op)
{
	struct ieee_ets *ets = &a->want->dcb.ets;
	int tcs = pl_net_tcs(a->have);
	int ret = need_dcb(a, op, PL_DCB_ETS);

	if (ret)
		return ret;
	if ((op->field == PL_F_TSA || op->field == PL_F_BW) && op->idx >= tcs)
		return refuse(a, EINVAL, op, "traffic class %d: %s has %d (0-%d)", op->idx,
			      pl_net_who(a->have), tcs, tcs - 1);
	if (op->field == PL_F_PRIO_TC && op->val >= (uint32_t)tcs)
		return refuse(a, EINVAL, op, "prio-tc %d:%u: %s has %d traffic classes (0-%d)",
			      op->idx, op->val, pl_net_who(a->have), tcs, tcs - 1);
	for (int i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		if (op->idx >= 0 && op->idx != i)
			continue;
		if (op->field == PL_F_TSA && i < tcs)
			ets->tc_tsa[i] = (uint8_t)op->val;
		else if (op->field == PL_F_BW && i < tcs)
			ets->tc_tx_bw[i] = (uint8_t)op->val;
		else if (op->field == PL_F_PRIO_TC)
			ets->prio_tc[i] = (uint8_t)op->val;
	}
	if (op->field == PL_F_WILLING)
		ets->willing = (uint8_t)op->val;
	a->ets_changed = true;
	return 0;
}

static int apply_pfc(struct applier *a, const struct pl_net_op *op)
{
	struct ieee_pfc *pfc = &a->want->dcb.pfc;
	int ret = need_dcb(a, op, PL_DCB_PFC);

	if (ret)
		return ret;
	if (op->field == PL_F_PFC_EN) {
		uint8_t bits = op->idx < 0 ? 0xff : (uint8_t)(1u << op->idx);

		pfc->pfc_en = op->val ? pfc->pfc_en | bits : pfc->pfc_en & ~bits;
	} else if (op->field == PL_F_MBC) {
		pfc->mbc = (uint8_t)op->val;
	} else {
		pfc->delay = (uint16_t)op->val;
	}
	a->pfc_changed = true;
	return 0;
}

static bool app_eq(const struct dcb_app *x, const struct dcb_app *y)
{
	return x->selector == y->selector && x->protocol == y->protocol &&
	       x->priority == y->priority;
}

static bool app_has(const struct pl_dcb *d, const struct dcb_app *app)
{
	for (size_t i = 0; i < d->napp; i++)
		if (app_eq(&d->app[i], app))
			return true;
	return false;
}

/* Remove the entries matching app (all priorities of its protocol if any_prio). */
static void app_remove(struct pl_dcb *d, const struct dcb_app *app, bool any_prio)
{
	size_t o = 0;

	for (size_t i = 0; i < d->napp; i++) {
		const struct dcb_app *e = &d->app[i];
		bool match = e->selector == app->selector && e->protocol == app->protocol &&
			     (any_prio || e->priority == app->priority);

		if (!match)
			d->app[o++] = *e;
	}
	d->napp = o;
}

static int apply_app(struct applier *a, const struct pl_net_op *op)
{
	struct pl_dcb *d = &a->want->dcb;
	int ret = need_dcb(a, op, PL_DCB_APP);

	if (ret)
		return ret;
	if (op->field != PL_F_APP_ADD)
		app_remove(d, &op->app, op->field == PL_F_APP_REPLACE);
	if (op->field == PL_F_APP_DEL || app_has(d, &op->app))
		return 0;
	if (d->napp >= PL_DCB_MAX_APPS)
		return refuse(a, ENOSPC, op, "more than %d APP entries", PL_DCB_MAX_APPS);
	d->app[d->napp++] = op->app;
	return 0;
}

static bool has_dscp_app(const struct pl_dcb *d)
{
	for (size_t i = 0; i < d->napp; i++)
		if (d->app[i].selector == IEEE_8021QAZ_APP_SEL_DSCP)
			return true;
	return false;
}

/*
 * Without apptrust (kernels before 6.2, drivers without the op), DSCP
 * trust follows the DSCP APP entries (mlx5 switches to it with the first
 * one): "trust dscp" then only needs such an entry, "trust pcp" none.
 */
static int apply_trust(struct applier *a)
{
	const struct pl_net_op *op = a->trust;
	bool wants_dscp = op->nlist && op->list[0] == IEEE_8021QAZ_APP_SEL_DSCP;
	int ret = need_dcb(a, op, PL_DCB_APP);

	if (ret)
		return ret;
	if (a->have->dcb.have & PL_DCB_TRUST) {
		memcpy(a->want->dcb.trust, op->list, op->nlist);
		a->want->dcb.ntrust = op->nlist;
		return 0;
	}
	if (op->nlist > 1 || (op->nlist && !wants_dscp && op->list[0] != PL_DCB_APP_SEL_PCP))
		return refuse(a, EOPNOTSUPP, op,
			      "%s has no apptrust (kernel before 6.2 or driver without it): only dscp or pcp",
			      pl_net_who(a->have));
	if (wants_dscp && !has_dscp_app(&a->want->dcb))
		return refuse(a, EOPNOTSUPP, op,
			      "%s has no apptrust: DSCP trust follows the DSCP APP entries; add one (app add dscp N prio P)",
			      pl_net_who(a->have));
	if (!wants_dscp && has_dscp_app(&a->want->dcb))
		return refuse(a, EOPNOTSUPP, op,
			      "%s has no apptrust: PCP trust needs the DSCP APP entries deleted",
			      pl_net_who(a->have));
	return 0;
}

static int apply_ethtool(struct applier *a, const struct pl_net_op *op)
{
	static const struct {
		unsigned int attr, max;
	} limits[] = {
		{ ETHTOOL_A_RINGS_RX, ETHTOOL_A_RINGS_RX_MAX },
		{ ETHTOOL_A_RINGS_TX, ETHTOOL_A_RINGS_TX_MAX },
		{ ETHTOOL_A_RINGS_RX_MINI, ETHTOOL_A_RINGS_RX_MINI_MAX },
		{ ETHTOOL_A_RINGS_RX_JUMBO, ETHTOOL_A_RINGS_RX_JUMBO_MAX },
	};
	const struct pl_et_kind *k = et_kind(op->knob);
	const struct pl_eattrs *have = op->knob == PL_K_COAL ? &a->have->coal :
				       op->knob == PL_K_RING ? &a->have->ring : &a->have->pause;
	struct pl_eattrs *want = op->knob == PL_K_COAL ? &a->want->coal :
				 op->knob == PL_K_RING ? &a->want->ring : &a->want->pause;
	int err = op->knob == PL_K_COAL ? a->have->coal_err :
		  op->knob == PL_K_RING ? a->have->ring_err : a->have->pause_err;
	const char *name = pl_et_attr_by_id(k, op->idx)->name;

	if (err || !pl_et_has(have, op->idx)) {
		if (err && err != EOPNOTSUPP)
			return refuse(a, err, op, "cannot read %s: %s", pl_net_who(a->have),
				      strerror(err));
		return refuse(a, EOPNOTSUPP, op, "%s not supported by %s", name,
			      pl_net_who(a->have));
	}
	for (size_t i = 0; op->knob == PL_K_RING && i < ARRAY_SIZE(limits); i++)
		if (limits[i].attr == (unsigned int)op->idx && pl_et_has(have, limits[i].max) &&
		    op->val > have->v[limits[i].max])
			return refuse(a, ERANGE, op, "%s %u: %s allows at most %u", name, op->val,
				      pl_net_who(a->have), have->v[limits[i].max]);
	pl_et_put(want, op->idx, op->val);
	return 0;
}

static int apply_ecn(struct applier *a, const struct pl_net_op *op)
{
	const struct pl_ecn *have = &a->have->ecn;
	struct pl_ecn *want = &a->want->ecn;

	if (!have->be)
		return refuse(a, EOPNOTSUPP, op, "not supported by %s: %s", pl_net_who(a->have),
			      have->why);
	if (have->be->np) {
		for (int p = 0; p < 8; p++) {
			if (op->idx >= 0 && op->idx != p)
				continue;
			if (have->np[p] < 0 || have->rp[p] < 0)
				return refuse(a, EIO, op, "cannot read the %s knobs in %s",
					      have->be->name, have->dir);
			if (op->field != PL_F_ECN_RP)
				want->np[p] = (int)op->val;
			if (op->field != PL_F_ECN_NP)
				want->rp[p] = (int)op->val;
		}
		return 0;
	}
	if (op->field != PL_F_ECN || have->enable < 0)
		return refuse(a, EOPNOTSUPP, op, "%s%s not supported by %s (%s)",
			      op->field == PL_F_ECN ? "enable" : "np/rp",
			      op->field == PL_F_ECN ? "" : " separately", pl_net_who(a->have),
			      have->be->name);
	want->enable = (int)op->val;
	if (op->idx >= 0 && have->roce_prio >= 0)
		want->roce_prio = op->idx;
	return 0;
}

static int apply_cnp(struct applier *a, const struct pl_net_op *op)
{
	const struct pl_ecn *have = &a->have->ecn;
	int *want = op->field == PL_F_CNP_DSCP ? &a->want->ecn.cnp_dscp : &a->want->ecn.cnp_prio;
	int cur = op->field == PL_F_CNP_DSCP ? have->cnp_dscp : have->cnp_prio;
	const char *what = op->field == PL_F_CNP_DSCP ? "dscp" : "prio";

	if (!have->be)
		return refuse(a, EOPNOTSUPP, op, "not supported by %s: %s", pl_net_who(a->have),
			      have->why);
	if (cur < 0)
		return refuse(a, EOPNOTSUPP, op, "%s not supported by %s (%s)", what,
			      pl_net_who(a->have), have->be->name);
	*want = (int)op->val;
	return 0;
}

static int apply_tos(struct applier *a, const struct pl_net_op *op)
{
	if (!a->have->rdma.n)
		return refuse(a, ENODEV, op, "no RDMA device on %s", a->have->link.ifname);
	if (!a->have->rdma.cm_cfs)
		return refuse(a, EOPNOTSUPP, op,
			      "no rdma_cm configfs (load rdma_cm and mount configfs on /sys/kernel/config)");
	for (size_t i = 0; i < a->want->rdma.n; i++)
		a->want->rdma.port[i].tos = (int)op->val;
	return 0;
}

static int apply_op(struct applier *a, const struct pl_net_op *op)
{
	const struct pl_link *l = &a->have->link;

	switch (op->knob) {
	case PL_K_DCBX: {
		int ret = need_dcb(a, op, PL_DCB_DCBX);

		if (!ret)
			a->want->dcb.dcbx = (uint8_t)op->val;
		return ret;
	}
	case PL_K_ETS:
		return apply_ets(a, op);
	case PL_K_PFC:
		return apply_pfc(a, op);
	case PL_K_APP:
		return apply_app(a, op);
	case PL_K_TRUST:
		a->trust = op;
		return 0;
	case PL_K_MTU:
		if ((l->max_mtu && op->val > l->max_mtu) || op->val < l->min_mtu)
			return refuse(a, ERANGE, op, "%u is outside what %s allows (%u-%u)",
				      op->val, pl_net_who(a->have), l->min_mtu, l->max_mtu);
		a->want->link.mtu = op->val;
		return 0;
	case PL_K_PAUSE:
	case PL_K_RING:
	case PL_K_COAL:
		return apply_ethtool(a, op);
	case PL_K_ECN:
		return apply_ecn(a, op);
	case PL_K_CNP:
		return apply_cnp(a, op);
	default:
		return apply_tos(a, op);
	}
}

/* Checks across the fields of the result, as drivers make them. */
static int check_result(struct applier *a)
{
	const struct ieee_ets *ets = &a->want->dcb.ets;
	struct pl_net_op ets_op = { .knob = PL_K_ETS }, pfc_op = { .knob = PL_K_PFC };
	int sum = 0, nets = 0, npfc = __builtin_popcount(a->want->dcb.pfc.pfc_en);

	for (int i = 0; a->ets_changed && i < pl_net_tcs(a->have); i++) {
		if (ets->tc_tsa[i] != IEEE_8021QAZ_TSA_ETS)
			continue;
		sum += ets->tc_tx_bw[i];
		nets++;
	}
	if (nets && sum != 100)
		return refuse(a, EINVAL, &ets_op,
			      "the bandwidths of the ETS traffic classes add up to %d %%, not 100", sum);
	if (a->pfc_changed && a->have->dcb.pfc.pfc_cap && npfc > a->have->dcb.pfc.pfc_cap)
		return refuse(a, EINVAL, &pfc_op, "%d priorities enabled; %s allows %d", npfc,
			      pl_net_who(a->have), a->have->dcb.pfc.pfc_cap);
	return a->trust ? apply_trust(a) : 0;
}

int pl_net_apply(const struct pl_net *have, const struct pl_net_patch *p, struct pl_net *want,
		 char *why, size_t len)
{
	struct applier a = { .have = have, .want = want, .why = why, .len = len };
	int ret = 0;

	*want = *have;
	if (len)
		*why = '\0';
	for (size_t i = 0; !ret && i < p->n; i++)
		ret = apply_op(&a, &p->v[i]);
	return ret ? ret : check_result(&a);
}

/* ---- differences ---- */

static void add_op(struct pl_net_patch *out, uint8_t knob, uint8_t field, int idx, uint32_t val)
{
	struct pl_net_op op = { .knob = knob, .field = field, .idx = idx, .val = val };

	pl_patch_add(out, &op);
}

static void diff_ets(const struct ieee_ets *f, const struct ieee_ets *t, struct pl_net_patch *o)
{
	if (f->willing != t->willing)
		add_op(o, PL_K_ETS, PL_F_WILLING, 0, t->willing);
	for (int i = 0; i < IEEE_8021QAZ_MAX_TCS; i++)
		if (f->tc_tsa[i] != t->tc_tsa[i])
			add_op(o, PL_K_ETS, PL_F_TSA, i, t->tc_tsa[i]);
	for (int i = 0; i < IEEE_8021QAZ_MAX_TCS; i++)
		if (f->tc_tx_bw[i] != t->tc_tx_bw[i])
			add_op(o, PL_K_ETS, PL_F_BW, i, t->tc_tx_bw[i]);
	for (int i = 0; i < IEEE_8021QAZ_MAX_TCS; i++)
		if (f->prio_tc[i] != t->prio_tc[i])
			add_op(o, PL_K_ETS, PL_F_PRIO_TC, i, t->prio_tc[i]);
}

static void diff_pfc(const struct ieee_pfc *f, const struct ieee_pfc *t, struct pl_net_patch *o)
{
	for (int i = 0; i < IEEE_8021QAZ_MAX_TCS; i++)
		if (((f->pfc_en ^ t->pfc_en) >> i) & 1)
			add_op(o, PL_K_PFC, PL_F_PFC_EN, i, (t->pfc_en >> i) & 1);
	if (f->mbc != t->mbc)
		add_op(o, PL_K_PFC, PL_F_MBC, 0, t->mbc);
	if (f->delay != t->delay)
		add_op(o, PL_K_PFC, PL_F_DELAY, 0, t->delay);
}

static void diff_app(const struct pl_dcb *f, const struct pl_dcb *t, struct pl_net_patch *o)
{
	struct pl_net_op op = { .knob = PL_K_APP, .field = PL_F_APP_ADD };

	for (size_t i = 0; i < t->napp; i++) {
		if (app_has(f, &t->app[i]))
			continue;
		op.app = t->app[i];
		pl_patch_add(o, &op);
	}
	op.field = PL_F_APP_DEL;
	for (size_t i = 0; i < f->napp; i++) {
		if (app_has(t, &f->app[i]))
			continue;
		op.app = f->app[i];
		pl_patch_add(o, &op);
	}
}

static void diff_ethtool(uint8_t knob, const struct pl_eattrs *f, const struct pl_eattrs *t,
			 struct pl_net_patch *o)
{
	const struct pl_et_kind *k = et_kind(knob);

	for (size_t i = 0; i < k->nattrs; i++) {
		unsigned int id = k->attrs[i].attr;

		if (!k->attrs[i].ro && pl_et_has(f, id) && pl_et_has(t, id) && f->v[id] != t->v[id])
			add_op(o, knob, PL_F_VALUE, id, t->v[id]);
	}
}

static void diff_ecn(const struct pl_ecn *f, const struct pl_ecn *t, struct pl_net_patch *o)
{
	if (!f->be || f->be != t->be)
		return;
	for (int p = 0; f->be->np && p < 8; p++) {
		bool np = f->np[p] != t->np[p], rp = f->rp[p] != t->rp[p];

		if ((np || rp) && t->np[p] == t->rp[p])
			add_op(o, PL_K_ECN, PL_F_ECN, p, t->np[p]);
		else if (np || rp) {
			if (np)
				add_op(o, PL_K_ECN, PL_F_ECN_NP, p, t->np[p]);
			if (rp)
				add_op(o, PL_K_ECN, PL_F_ECN_RP, p, t->rp[p]);
		}
	}
	if (f->enable != t->enable || f->roce_prio != t->roce_prio)
		add_op(o, PL_K_ECN, PL_F_ECN, t->roce_prio >= 0 ? t->roce_prio : -1, t->enable);
}

void pl_net_diff_knob(const struct pl_net *f, const struct pl_net *t, enum pl_knob k,
		      struct pl_net_patch *o)
{
	unsigned int both = f->dcb_err || t->dcb_err ? 0 : f->dcb.have & t->dcb.have;

	switch (k) {
	case PL_K_DCBX:
		if ((both & PL_DCB_DCBX) && f->dcb.dcbx != t->dcb.dcbx)
			add_op(o, k, PL_F_VALUE, 0, t->dcb.dcbx);
		break;
	case PL_K_ETS:
		if (both & PL_DCB_ETS)
			diff_ets(&f->dcb.ets, &t->dcb.ets, o);
		break;
	case PL_K_PFC:
		if (both & PL_DCB_PFC)
			diff_pfc(&f->dcb.pfc, &t->dcb.pfc, o);
		break;
	case PL_K_APP:
		if (both & PL_DCB_APP)
			diff_app(&f->dcb, &t->dcb, o);
		break;
	case PL_K_TRUST:
		if ((both & PL_DCB_TRUST) && (f->dcb.ntrust != t->dcb.ntrust ||
					      memcmp(f->dcb.trust, t->dcb.trust, t->dcb.ntrust))) {
			struct pl_net_op op = { .knob = k, .field = PL_F_TRUST };

			memcpy(op.list, t->dcb.trust, t->dcb.ntrust);
			op.nlist = (uint8_t)t->dcb.ntrust;
			pl_patch_add(o, &op);
		}
		break;
	case PL_K_MTU:
		if (f->link.mtu != t->link.mtu)
			add_op(o, k, PL_F_VALUE, 0, t->link.mtu);
		break;
	case PL_K_PAUSE:
		diff_ethtool(k, &f->pause, &t->pause, o);
		break;
	case PL_K_RING:
		diff_ethtool(k, &f->ring, &t->ring, o);
		break;
	case PL_K_COAL:
		diff_ethtool(k, &f->coal, &t->coal, o);
		break;
	case PL_K_ECN:
		diff_ecn(&f->ecn, &t->ecn, o);
		break;
	case PL_K_CNP:
		if (f->ecn.be && f->ecn.cnp_dscp != t->ecn.cnp_dscp)
			add_op(o, k, PL_F_CNP_DSCP, 0, t->ecn.cnp_dscp);
		if (f->ecn.be && f->ecn.cnp_prio != t->ecn.cnp_prio)
			add_op(o, k, PL_F_CNP_PRIO, 0, t->ecn.cnp_prio);
		break;
	default:
		for (size_t i = 0; i < f->rdma.n && i < t->rdma.n; i++) {
			if (f->rdma.port[i].tos == t->rdma.port[i].tos)
				continue;
			add_op(o, k, PL_F_VALUE, 0, t->rdma.port[i].tos);
			break;
		}
		break;
	}
}

void pl_net_describe(const struct pl_net *st, enum pl_knob k, struct pl_net_patch *out)
{
	const struct ieee_ets *ets = &st->dcb.ets;
	const struct ieee_pfc *pfc = &st->dcb.pfc;

	if (k == PL_K_DCBX)
		add_op(out, k, PL_F_VALUE, 0, st->dcb.dcbx);
	for (int i = 0; k == PL_K_PFC && i < IEEE_8021QAZ_MAX_TCS; i++)
		add_op(out, k, PL_F_PFC_EN, i, (pfc->pfc_en >> i) & 1);
	if (k == PL_K_PFC) {
		add_op(out, k, PL_F_MBC, 0, pfc->mbc);
		add_op(out, k, PL_F_DELAY, 0, pfc->delay);
	}
	for (int i = 0; k == PL_K_ETS && i < pl_net_tcs(st); i++)
		add_op(out, k, PL_F_TSA, i, ets->tc_tsa[i]);
	for (int i = 0; k == PL_K_ETS && i < pl_net_tcs(st); i++)
		add_op(out, k, PL_F_BW, i, ets->tc_tx_bw[i]);
	for (int i = 0; k == PL_K_ETS && i < IEEE_8021QAZ_MAX_TCS; i++)
		add_op(out, k, PL_F_PRIO_TC, i, ets->prio_tc[i]);
}

void pl_net_diff(const struct pl_net *from, const struct pl_net *to, struct pl_net_patch *out)
{
	for (int k = 0; k < PL_NKNOBS; k++)
		pl_net_diff_knob(from, to, k, out);
}

/* ---- printing ---- */

static bool is_pair_field(uint8_t field)
{
	return field == PL_F_TSA || field == PL_F_BW || field == PL_F_PRIO_TC ||
	       field == PL_F_PFC_EN;
}

static const char *field_word(const struct pl_net_op *op)
{
	static const char *const words[] = {
		[PL_F_WILLING] = "willing",   [PL_F_TSA] = "tc-tsa",	[PL_F_BW] = "tc-bw",
		[PL_F_PRIO_TC] = "prio-tc",   [PL_F_PFC_EN] = "prio-pfc", [PL_F_MBC] = "macsec-bypass",
		[PL_F_DELAY] = "delay",	      [PL_F_APP_ADD] = "add",	  [PL_F_APP_DEL] = "del",
		[PL_F_APP_REPLACE] = "replace", [PL_F_ECN] = "prio",	  [PL_F_ECN_NP] = "np",
		[PL_F_ECN_RP] = "rp",	      [PL_F_CNP_DSCP] = "dscp",	  [PL_F_CNP_PRIO] = "prio",
	};

	if (op->knob == PL_K_COAL || op->knob == PL_K_RING || op->knob == PL_K_PAUSE)
		return pl_et_attr_by_id(et_kind(op->knob), op->idx)->name;
	return op->field < ARRAY_SIZE(words) ? words[op->field] : NULL;
}

static char *onoff(uint32_t v)
{
	return xstrdup(v ? "on" : "off");
}

/*
 * A selector as a setter word: its name, or its number when the device
 * reported one purlinctl has no name for (pl_dcb_sel_parse() takes both).
 */
static void add_sel(struct strv *args, uint8_t sel)
{
	const char *name = pl_dcb_sel_name(sel);
	char num[4];

	if (!name) {
		snprintf(num, sizeof(num), "%u", sel);
		name = num;
	}
	strv_add(args, name);
}

/* The value words of op, after its field keyword. */
static void op_values(const struct pl_net_op *op, struct strv *args)
{
	char *w = NULL;

	if (is_pair_field(op->field)) {
		const char *v = op->field == PL_F_TSA ? pl_dcb_tsa_name((uint8_t)op->val) :
				op->field == PL_F_PFC_EN ? (op->val ? "on" : "off") : NULL;
		char idx[8];

		snprintf(idx, sizeof(idx), op->idx < 0 ? "all" : "%d", op->idx);
		w = v ? xasprintf("%s:%s", idx, v) : xasprintf("%s:%u", idx, op->val);
	} else if (op->knob == PL_K_APP) {
		add_sel(args, op->app.selector);
		w = xasprintf(op->app.selector == IEEE_8021QAZ_APP_SEL_ETHERTYPE ? "0x%04x" : "%u",
			      op->app.protocol);
		strv_add(args, w);
		free(w);
		strv_add(args, "prio");
		w = xasprintf("%u", op->app.priority);
	} else if (op->knob == PL_K_TRUST) {
		for (int i = 0; i < op->nlist; i++)
			add_sel(args, op->list[i]);
		if (!op->nlist)
			strv_add(args, "none");
		return;
	} else if (op->knob == PL_K_DCBX) {
		pl_dcb_dcbx_names((uint8_t)op->val, args);
		return;
	} else if (op->knob == PL_K_ECN) {
		w = op->idx < 0 ? xstrdup("all") : xasprintf("%d", op->idx);
		strv_add(args, w);
		free(w);
		w = onoff(op->val);
	} else if (op->field == PL_F_WILLING || op->field == PL_F_MBC ||
		   ((op->knob == PL_K_COAL || op->knob == PL_K_PAUSE) &&
		    pl_et_attr_by_id(et_kind(op->knob), op->idx)->type == PL_ET_BOOL)) {
		w = onoff(op->val);
	} else {
		w = xasprintf("%u", op->val);
	}
	strv_add(args, w);
	free(w);
}

void pl_net_format(const struct pl_net_patch *p, struct strv *args)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct pl_net_op *op = &p->v[i], *prev = i ? &p->v[i - 1] : NULL;
		bool same_knob = prev && prev->knob == op->knob && op->knob != PL_K_MTU &&
				 op->knob != PL_K_TOS && op->knob != PL_K_DCBX &&
				 op->knob != PL_K_TRUST;
		const char *fw = field_word(op);

		if (!same_knob)
			strv_add(args, pl_knob_names[op->knob]);
		if (fw && !(same_knob && prev->field == op->field &&
			    (is_pair_field(op->field) || op->knob == PL_K_APP)))
			strv_add(args, fw);
		op_values(op, args);
	}
}

char *pl_net_format_str(const struct pl_net_patch *p)
{
	struct strv args = { 0 };
	char *out;

	pl_net_format(p, &args);
	out = strv_join(&args, " ");
	strv_free(&args);
	return out;
}

char *pl_net_format_knob(const struct pl_net_patch *p, enum pl_knob k)
{
	struct strv args = { 0 };
	char *out;

	pl_net_format(p, &args);
	if (args.n && !strcmp(args.v[0], pl_knob_names[k]))
		strv_del(&args, args.v[0]);
	out = strv_join(&args, " ");
	strv_free(&args);
	return out;
}

bool pl_net_op_same_key(const struct pl_net_op *a, const struct pl_net_op *b)
{
	if (a->knob != b->knob)
		return false;
	switch (a->knob) {
	case PL_K_APP:
		return app_eq(&a->app, &b->app);
	case PL_K_ECN:
		return a->idx == b->idx;
	case PL_K_DCBX:
	case PL_K_TRUST:
	case PL_K_MTU:
	case PL_K_TOS:
		return true;
	default:
		return a->field == b->field && a->idx == b->idx;
	}
}
