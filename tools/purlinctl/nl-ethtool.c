// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: ethtool netlink requests. A GET reply carries only what the
 * driver supports (coalescing parameters outside its supported mask, rings
 * with a zero maximum are left out), which is how "not supported" is told.
 */
#include <errno.h>
#include <string.h>

#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <netlink/genl/genl.h>

#include "nl-ethtool.h"
#include "util.h"

#define HEADER_ATTR 1	/* ETHTOOL_A_*_HEADER in every message */

static const struct pl_et_attr coalesce_attrs[] = {
	{ "adaptive-rx", ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, PL_ET_BOOL, false },
	{ "adaptive-tx", ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX, PL_ET_BOOL, false },
	{ "rx-usecs", ETHTOOL_A_COALESCE_RX_USECS, PL_ET_U32, false },
	{ "rx-frames", ETHTOOL_A_COALESCE_RX_MAX_FRAMES, PL_ET_U32, false },
	{ "rx-usecs-irq", ETHTOOL_A_COALESCE_RX_USECS_IRQ, PL_ET_U32, false },
	{ "rx-frames-irq", ETHTOOL_A_COALESCE_RX_MAX_FRAMES_IRQ, PL_ET_U32, false },
	{ "tx-usecs", ETHTOOL_A_COALESCE_TX_USECS, PL_ET_U32, false },
	{ "tx-frames", ETHTOOL_A_COALESCE_TX_MAX_FRAMES, PL_ET_U32, false },
	{ "tx-usecs-irq", ETHTOOL_A_COALESCE_TX_USECS_IRQ, PL_ET_U32, false },
	{ "tx-frames-irq", ETHTOOL_A_COALESCE_TX_MAX_FRAMES_IRQ, PL_ET_U32, false },
	{ "stats-block-usecs", ETHTOOL_A_COALESCE_STATS_BLOCK_USECS, PL_ET_U32, false },
	{ "pkt-rate-low", ETHTOOL_A_COALESCE_PKT_RATE_LOW, PL_ET_U32, false },
	{ "rx-usecs-low", ETHTOOL_A_COALESCE_RX_USECS_LOW, PL_ET_U32, false },
	{ "rx-frames-low", ETHTOOL_A_COALESCE_RX_MAX_FRAMES_LOW, PL_ET_U32, false },
	{ "tx-usecs-low", ETHTOOL_A_COALESCE_TX_USECS_LOW, PL_ET_U32, false },
	{ "tx-frames-low", ETHTOOL_A_COALESCE_TX_MAX_FRAMES_LOW, PL_ET_U32, false },
	{ "pkt-rate-high", ETHTOOL_A_COALESCE_PKT_RATE_HIGH, PL_ET_U32, false },
	{ "rx-usecs-high", ETHTOOL_A_COALESCE_RX_USECS_HIGH, PL_ET_U32, false },
	{ "rx-frames-high", ETHTOOL_A_COALESCE_RX_MAX_FRAMES_HIGH, PL_ET_U32, false },
	{ "tx-usecs-high", ETHTOOL_A_COALESCE_TX_USECS_HIGH, PL_ET_U32, false },
	{ "tx-frames-high", ETHTOOL_A_COALESCE_TX_MAX_FRAMES_HIGH, PL_ET_U32, false },
	{ "sample-interval", ETHTOOL_A_COALESCE_RATE_SAMPLE_INTERVAL, PL_ET_U32, false },
	{ "cqe-mode-rx", ETHTOOL_A_COALESCE_USE_CQE_MODE_RX, PL_ET_BOOL, false },
	{ "cqe-mode-tx", ETHTOOL_A_COALESCE_USE_CQE_MODE_TX, PL_ET_BOOL, false },
};

static const struct pl_et_attr ring_attrs[] = {
	{ "rx", ETHTOOL_A_RINGS_RX, PL_ET_U32, false },
	{ "tx", ETHTOOL_A_RINGS_TX, PL_ET_U32, false },
	{ "rx-mini", ETHTOOL_A_RINGS_RX_MINI, PL_ET_U32, false },
	{ "rx-jumbo", ETHTOOL_A_RINGS_RX_JUMBO, PL_ET_U32, false },
	{ "rx-buf-len", ETHTOOL_A_RINGS_RX_BUF_LEN, PL_ET_U32, false },
	{ "cqe-size", ETHTOOL_A_RINGS_CQE_SIZE, PL_ET_U32, false },
	{ "rx-max", ETHTOOL_A_RINGS_RX_MAX, PL_ET_U32, true },
	{ "tx-max", ETHTOOL_A_RINGS_TX_MAX, PL_ET_U32, true },
	{ "rx-mini-max", ETHTOOL_A_RINGS_RX_MINI_MAX, PL_ET_U32, true },
	{ "rx-jumbo-max", ETHTOOL_A_RINGS_RX_JUMBO_MAX, PL_ET_U32, true },
};

static const struct pl_et_attr pause_attrs[] = {
	{ "autoneg", ETHTOOL_A_PAUSE_AUTONEG, PL_ET_BOOL, false },
	{ "rx", ETHTOOL_A_PAUSE_RX, PL_ET_BOOL, false },
	{ "tx", ETHTOOL_A_PAUSE_TX, PL_ET_BOOL, false },
};

const struct pl_et_kind pl_et_coalesce = {
	"coalesce", ETHTOOL_MSG_COALESCE_GET, ETHTOOL_MSG_COALESCE_SET,
	ETHTOOL_MSG_COALESCE_GET_REPLY, ETHTOOL_A_COALESCE_USE_CQE_MODE_RX,
	coalesce_attrs, ARRAY_SIZE(coalesce_attrs),
};

const struct pl_et_kind pl_et_rings = {
	"ring", ETHTOOL_MSG_RINGS_GET, ETHTOOL_MSG_RINGS_SET, ETHTOOL_MSG_RINGS_GET_REPLY,
	ETHTOOL_A_RINGS_CQE_SIZE, ring_attrs, ARRAY_SIZE(ring_attrs),
};

const struct pl_et_kind pl_et_pause = {
	"pause", ETHTOOL_MSG_PAUSE_GET, ETHTOOL_MSG_PAUSE_SET, ETHTOOL_MSG_PAUSE_GET_REPLY,
	ETHTOOL_A_PAUSE_TX, pause_attrs, ARRAY_SIZE(pause_attrs),
};

const struct pl_et_attr *pl_et_attr_by_name(const struct pl_et_kind *k, const char *name)
{
	for (size_t i = 0; i < k->nattrs; i++)
		if (!strcmp(k->attrs[i].name, name))
			return &k->attrs[i];
	return NULL;
}

const struct pl_et_attr *pl_et_attr_by_id(const struct pl_et_kind *k, unsigned int attr)
{
	for (size_t i = 0; i < k->nattrs; i++)
		if (k->attrs[i].attr == attr)
			return &k->attrs[i];
	return NULL;
}

struct nl_msg *pl_et_msg(int family, const struct pl_et_kind *k, bool set, const char *ifname,
			 const struct pl_eattrs *vals)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nlattr *hdr;
	int bad = 0;

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0, set ? k->set : k->get, 1))
		goto fail;
	hdr = nla_nest_start(msg, HEADER_ATTR | NLA_F_NESTED);
	if (!hdr || nla_put_string(msg, ETHTOOL_A_HEADER_DEV_NAME, ifname) ||
	    nla_nest_end(msg, hdr))
		goto fail;
	for (size_t i = 0; set && i < k->nattrs; i++) {
		const struct pl_et_attr *a = &k->attrs[i];

		if (a->ro || !pl_et_has(vals, a->attr))
			continue;
		if (a->type == PL_ET_BOOL)
			bad |= nla_put_u8(msg, a->attr, !!vals->v[a->attr]);
		else
			bad |= nla_put_u32(msg, a->attr, vals->v[a->attr]);
	}
	if (!bad)
		return msg;
fail:
	nlmsg_free(msg);
	return NULL;
}

int pl_et_parse(const struct nlmsghdr *h, int family, const struct pl_et_kind *k,
		struct pl_eattrs *out)
{
	struct nla_policy pol[PL_ET_MAXATTR + 1] = { [HEADER_ATTR] = { .type = NLA_NESTED } };
	struct nlattr *tb[PL_ET_MAXATTR + 1];
	const struct genlmsghdr *g = (const void *)((const char *)h + NLMSG_HDRLEN);

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < k->nattrs; i++)
		pol[k->attrs[i].attr].type = k->attrs[i].type == PL_ET_BOOL ? NLA_U8 : NLA_U32;
	if (h->nlmsg_type != family || h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN ||
	    g->cmd != k->reply || pl_nlmsg_attrs(h, GENL_HDRLEN, tb, k->max, pol))
		return -EBADMSG;
	for (size_t i = 0; i < k->nattrs; i++) {
		const struct pl_et_attr *a = &k->attrs[i];

		if (!tb[a->attr])
			continue;
		pl_et_put(out, a->attr, a->type == PL_ET_BOOL ? nla_get_u8(tb[a->attr]) != 0 :
							      nla_get_u32(tb[a->attr]));
	}
	return 0;
}

static int family(struct pl_nlerr *e)
{
	return pl_genl_family("ethtool", e);
}

struct get {
	int family;
	const struct pl_et_kind *k;
	struct pl_eattrs *out;
};

static int parse_get(const struct nlmsghdr *h, void *arg)
{
	struct get *g = arg;

	return pl_et_parse(h, g->family, g->k, g->out);
}

int pl_et_get(const char *ifname, const struct pl_et_kind *k, struct pl_eattrs *out,
	      struct pl_nlerr *e)
{
	struct get g = { .family = family(e), .k = k, .out = out };
	char what[32];

	if (g.family < 0)
		return g.family;
	snprintf(what, sizeof(what), "ethtool %s", k->name);
	return pl_nl_query(NETLINK_GENERIC, pl_et_msg(g.family, k, false, ifname, NULL), parse_get,
			   &g, what, e);
}

int pl_et_set(const char *ifname, const struct pl_et_kind *k, const struct pl_eattrs *vals,
	      struct pl_nlerr *e)
{
	struct pl_nl_reply rep;
	int id = family(e), ret;

	if (id < 0)
		return id;
	ret = pl_nl_talk(NETLINK_GENERIC, pl_et_msg(id, k, true, ifname, vals), &rep, e);
	pl_nl_reply_clear(&rep);
	return ret;
}
