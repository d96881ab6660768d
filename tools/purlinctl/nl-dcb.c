// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: DCB netlink messages. libnl has no DCB helpers, so these are
 * raw messages: nlmsghdr, struct dcbmsg, DCB_ATTR_IFNAME and the IEEE nest.
 * SET and DEL failures come back inside the reply (an s8 in DCB_ATTR_IEEE)
 * while the netlink ACK says 0; see pl_dcb_parse_status().
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/rtnetlink.h>

#include "nl-dcb.h"
#include "util.h"

struct name {
	uint8_t val;
	const char *name;
};

static const struct name selectors[] = {
	{ IEEE_8021QAZ_APP_SEL_ETHERTYPE, "ethtype" },
	{ IEEE_8021QAZ_APP_SEL_STREAM, "tcp" },
	{ IEEE_8021QAZ_APP_SEL_DGRAM, "udp" },
	{ IEEE_8021QAZ_APP_SEL_ANY, "port" },
	{ IEEE_8021QAZ_APP_SEL_DSCP, "dscp" },
	{ PL_DCB_APP_SEL_PCP, "pcp" },
};

static const struct name tsas[] = {
	{ IEEE_8021QAZ_TSA_STRICT, "strict" },
	{ IEEE_8021QAZ_TSA_CB_SHAPER, "cbs" },
	{ IEEE_8021QAZ_TSA_ETS, "ets" },
	{ IEEE_8021QAZ_TSA_VENDOR, "vendor" },
};

/* In bit order. */
static const struct name dcbx_modes[] = {
	{ DCB_CAP_DCBX_HOST, "host" },
	{ DCB_CAP_DCBX_LLD_MANAGED, "lld-managed" },
	{ DCB_CAP_DCBX_VER_CEE, "cee" },
	{ DCB_CAP_DCBX_VER_IEEE, "ieee" },
	{ DCB_CAP_DCBX_STATIC, "static" },
};

static const char *name_of(const struct name *t, size_t n, uint8_t val)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].val == val)
			return t[i].name;
	return NULL;
}

static int value_of(const struct name *t, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return t[i].val;
	return -1;
}

const char *pl_dcb_sel_name(uint8_t sel)
{
	return name_of(selectors, ARRAY_SIZE(selectors), sel);
}

/* A selector's name, or its number 1-255 (one the device may report). */
int pl_dcb_sel_parse(const char *name)
{
	char *end;
	unsigned long v;
	int sel = value_of(selectors, ARRAY_SIZE(selectors), name);

	if (sel >= 0 || !isdigit((unsigned char)name[0]))
		return sel;
	errno = 0;
	v = strtoul(name, &end, 10);
	return !errno && !*end && v >= 1 && v <= 255 ? (int)v : -1;
}

const char *pl_dcb_tsa_name(uint8_t tsa)
{
	return name_of(tsas, ARRAY_SIZE(tsas), tsa);
}

int pl_dcb_tsa_parse(const char *name)
{
	return value_of(tsas, ARRAY_SIZE(tsas), name);
}

void pl_dcb_dcbx_names(uint8_t mode, struct strv *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(dcbx_modes); i++)
		if (mode & dcbx_modes[i].val)
			strv_add(out, dcbx_modes[i].name);
}

int pl_dcb_dcbx_parse(const char *name)
{
	return value_of(dcbx_modes, ARRAY_SIZE(dcbx_modes), name);
}

/* PCP entries use DCB_ATTR_DCB_APP; the IEEE selectors DCB_ATTR_IEEE_APP. */
static int app_attr_type(uint8_t sel)
{
	return sel == PL_DCB_APP_SEL_PCP ? PL_DCB_ATTR_DCB_APP : DCB_ATTR_IEEE_APP;
}

static struct nl_msg *dcb_msg(int type, uint8_t cmd, const char *ifname)
{
	struct dcbmsg dcb = { .dcb_family = AF_UNSPEC, .cmd = cmd };
	struct nl_msg *msg = nlmsg_alloc_simple(type, NLM_F_REQUEST);

	if (!msg)
		return NULL;
	if (nlmsg_append(msg, &dcb, sizeof(dcb), NLMSG_ALIGNTO) ||
	    nla_put_string(msg, DCB_ATTR_IFNAME, ifname)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

struct nl_msg *pl_dcb_msg_get(const char *ifname)
{
	return dcb_msg(RTM_GETDCB, DCB_CMD_IEEE_GET, ifname);
}

static int put_apps(struct nl_msg *msg, const struct pl_dcb *d)
{
	struct nlattr *nest = nla_nest_start(msg, DCB_ATTR_IEEE_APP_TABLE | NLA_F_NESTED);

	if (!nest)
		return -1;
	for (size_t i = 0; i < d->napp; i++)
		if (nla_put(msg, app_attr_type(d->app[i].selector), sizeof(d->app[i]), &d->app[i]))
			return -1;
	return nla_nest_end_keep_empty(msg, nest);
}

static int put_trust(struct nl_msg *msg, const struct pl_dcb *d)
{
	struct nlattr *nest = nla_nest_start(msg, PL_DCB_ATTR_APP_TRUST_TABLE | NLA_F_NESTED);

	if (!nest)
		return -1;
	for (size_t i = 0; i < d->ntrust; i++)
		if (nla_put_u8(msg, app_attr_type(d->trust[i]), d->trust[i]))
			return -1;
	/* libnl drops empty nests; an empty trust table is a valid setting */
	return nla_nest_end_keep_empty(msg, nest);
}

struct nl_msg *pl_dcb_msg_set(const char *ifname, uint8_t cmd, const struct pl_dcb *d,
			      unsigned int what)
{
	struct nl_msg *msg = dcb_msg(RTM_SETDCB, cmd, ifname);
	struct nlattr *ieee;

	if (!msg)
		return NULL;
	ieee = nla_nest_start(msg, DCB_ATTR_IEEE | NLA_F_NESTED);
	if (!ieee ||
	    ((what & PL_DCB_ETS) && nla_put(msg, DCB_ATTR_IEEE_ETS, sizeof(d->ets), &d->ets)) ||
	    ((what & PL_DCB_PFC) && nla_put(msg, DCB_ATTR_IEEE_PFC, sizeof(d->pfc), &d->pfc)) ||
	    ((what & PL_DCB_APP) && put_apps(msg, d)) ||
	    ((what & PL_DCB_TRUST) && put_trust(msg, d)) ||
	    nla_nest_end(msg, ieee)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

struct nl_msg *pl_dcb_msg_setdcbx(const char *ifname, uint8_t mode)
{
	struct nl_msg *msg = dcb_msg(RTM_SETDCB, DCB_CMD_SDCBX, ifname);

	if (msg && nla_put_u8(msg, DCB_ATTR_DCBX, mode)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* The dcbmsg of h if it is a reply of type and cmd. */
static const struct dcbmsg *dcb_header(const struct nlmsghdr *h, int type, uint8_t cmd)
{
	const struct dcbmsg *dcb = (const void *)((const char *)h + NLMSG_HDRLEN);

	if (h->nlmsg_type != type || h->nlmsg_len < NLMSG_HDRLEN + sizeof(*dcb) ||
	    dcb->cmd != cmd)
		return NULL;
	return dcb;
}

/*
 * The entries of an APP table (struct dcb_app) or a trust table (u8
 * selectors): DCB_ATTR_IEEE_APP, or DCB_ATTR_DCB_APP for PCP.
 */
static int parse_table(const struct nlattr *table, void *dst, size_t size, size_t max, size_t *n)
{
	struct nlattr *a;
	int rem;

	nla_for_each_nested(a, (struct nlattr *)table, rem) {
		int type = nla_type(a);

		if (type != DCB_ATTR_IEEE_APP && type != PL_DCB_ATTR_DCB_APP)
			continue;
		if (nla_len(a) < (int)size || *n >= max)
			return -EBADMSG;
		memcpy((char *)dst + (*n)++ * size, nla_data(a), size);
	}
	return rem ? -EBADMSG : 0;
}

static int app_cmp(const void *a, const void *b)
{
	const struct dcb_app *x = a, *y = b;

	if (x->selector != y->selector)
		return x->selector - y->selector;
	if (x->protocol != y->protocol)
		return x->protocol - y->protocol;
	return x->priority - y->priority;
}

int pl_dcb_parse_get(const struct nlmsghdr *h, struct pl_dcb *out)
{
	static const struct nla_policy top[DCB_ATTR_DCBX + 1] = {
		[DCB_ATTR_IEEE] = { .type = NLA_NESTED },
		[DCB_ATTR_DCBX] = { .type = NLA_U8 },
	};
	static const struct nla_policy ieee[PL_DCB_IEEE_MAX + 1] = {
		[DCB_ATTR_IEEE_ETS] = { .minlen = sizeof(struct ieee_ets) },
		[DCB_ATTR_IEEE_PFC] = { .minlen = sizeof(struct ieee_pfc) },
		[DCB_ATTR_IEEE_APP_TABLE] = { .type = NLA_NESTED },
		[PL_DCB_ATTR_APP_TRUST_TABLE] = { .type = NLA_NESTED },
	};
	struct nlattr *tb[DCB_ATTR_DCBX + 1], *ib[PL_DCB_IEEE_MAX + 1];

	memset(out, 0, sizeof(*out));
	if (!dcb_header(h, RTM_GETDCB, DCB_CMD_IEEE_GET) ||
	    pl_nlmsg_attrs(h, sizeof(struct dcbmsg), tb, DCB_ATTR_DCBX, top) ||
	    !tb[DCB_ATTR_IEEE] ||
	    pl_nla_parse_nested(ib, PL_DCB_IEEE_MAX, tb[DCB_ATTR_IEEE], ieee))
		return -EBADMSG;
	if (ib[DCB_ATTR_IEEE_ETS]) {
		memcpy(&out->ets, nla_data(ib[DCB_ATTR_IEEE_ETS]), sizeof(out->ets));
		out->have |= PL_DCB_ETS;
	}
	if (ib[DCB_ATTR_IEEE_PFC]) {
		memcpy(&out->pfc, nla_data(ib[DCB_ATTR_IEEE_PFC]), sizeof(out->pfc));
		out->have |= PL_DCB_PFC;
	}
	if (ib[DCB_ATTR_IEEE_APP_TABLE]) {
		if (parse_table(ib[DCB_ATTR_IEEE_APP_TABLE], out->app, sizeof(out->app[0]),
				PL_DCB_MAX_APPS, &out->napp))
			return -EBADMSG;
		/*
		 * The kernel lists the table newest first: an entry deleted and
		 * added back (undo) would move. It is a set; read it in order.
		 */
		qsort(out->app, out->napp, sizeof(out->app[0]), app_cmp);
		out->have |= PL_DCB_APP;
	}
	if (ib[PL_DCB_ATTR_APP_TRUST_TABLE]) {
		if (parse_table(ib[PL_DCB_ATTR_APP_TRUST_TABLE], out->trust, 1, PL_DCB_MAX_TRUST,
				&out->ntrust))
			return -EBADMSG;
		out->have |= PL_DCB_TRUST;
	}
	if (tb[DCB_ATTR_DCBX]) {
		out->dcbx = nla_get_u8(tb[DCB_ATTR_DCBX]);
		out->have |= PL_DCB_DCBX;
	}
	return 0;
}

int pl_dcb_parse_status(const struct nlmsghdr *h, uint8_t cmd, int *status)
{
	static const struct nla_policy pol[DCB_ATTR_DCBX + 1] = {
		[DCB_ATTR_IEEE] = { .type = NLA_U8 },
		[DCB_ATTR_DCBX] = { .type = NLA_U8 },
	};
	struct nlattr *tb[DCB_ATTR_DCBX + 1];
	int attr = cmd == DCB_CMD_SDCBX ? DCB_ATTR_DCBX : DCB_ATTR_IEEE;
	int8_t val;

	if (!dcb_header(h, RTM_SETDCB, cmd) ||
	    pl_nlmsg_attrs(h, sizeof(struct dcbmsg), tb, DCB_ATTR_DCBX, pol) || !tb[attr])
		return -EBADMSG;
	val = (int8_t)nla_get_u8(tb[attr]);
	if (cmd == DCB_CMD_SDCBX)
		*status = val ? -EINVAL : 0;	/* the driver's u8: 0 applied, 1 refused */
	else if (val > 0)
		return -EBADMSG;
	else
		*status = val;
	return 0;
}

static int parse_get(const struct nlmsghdr *h, void *out)
{
	return pl_dcb_parse_get(h, out);
}

int pl_dcb_get(const char *ifname, struct pl_dcb *out, struct pl_nlerr *e)
{
	return pl_nl_query(NETLINK_ROUTE, pl_dcb_msg_get(ifname), parse_get, out, "DCB", e);
}

struct status {
	uint8_t cmd;
	int status;
};

static int parse_status(const struct nlmsghdr *h, void *arg)
{
	struct status *st = arg;

	return pl_dcb_parse_status(h, st->cmd, &st->status);
}

static int set_reply(struct nl_msg *req, uint8_t cmd, struct pl_nlerr *e)
{
	struct status st = { .cmd = cmd };
	int ret = pl_nl_query(NETLINK_ROUTE, req, parse_status, &st, "DCB", e);

	if (!ret && st.status)
		ret = pl_nlerr_set(e, -st.status, "reported in the DCB reply");
	return ret;
}

int pl_dcb_set(const char *ifname, uint8_t cmd, const struct pl_dcb *d, unsigned int what,
	       struct pl_nlerr *e)
{
	return set_reply(pl_dcb_msg_set(ifname, cmd, d, what), cmd, e);
}

int pl_dcb_setdcbx(const char *ifname, uint8_t mode, struct pl_nlerr *e)
{
	return set_reply(pl_dcb_msg_setdcbx(ifname, mode), DCB_CMD_SDCBX, e);
}
