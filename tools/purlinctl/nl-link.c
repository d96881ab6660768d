// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: link requests built with libnl-route and a strict parser for
 * the RTM_NEWLINK answer (name, flags, MTU and the device's MTU range).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/route/link.h>

#include "nl-link.h"

struct nl_msg *pl_link_msg_get(const char *ifname)
{
	struct nl_msg *msg = NULL;

	return rtnl_link_build_get_request(0, ifname, &msg) ? NULL : msg;
}

struct nl_msg *pl_link_msg_mtu(int ifindex, uint32_t mtu)
{
	struct rtnl_link *orig = rtnl_link_alloc(), *change = rtnl_link_alloc();
	struct nl_msg *msg = NULL;

	if (orig && change) {
		rtnl_link_set_ifindex(orig, ifindex);
		rtnl_link_set_mtu(change, mtu);
		if (rtnl_link_build_change_request(orig, change, 0, &msg))
			msg = NULL;
	}
	rtnl_link_put(orig);
	rtnl_link_put(change);
	return msg;
}

int pl_link_parse(const struct nlmsghdr *h, struct pl_link *out)
{
	static const struct nla_policy pol[IFLA_MAX_MTU + 1] = {
		[IFLA_IFNAME] = { .type = NLA_STRING },
		[IFLA_MTU] = { .type = NLA_U32 },
		[IFLA_MIN_MTU] = { .type = NLA_U32 },
		[IFLA_MAX_MTU] = { .type = NLA_U32 },
	};
	const struct ifinfomsg *ifi = (const void *)((const char *)h + NLMSG_HDRLEN);
	struct nlattr *tb[IFLA_MAX_MTU + 1];

	memset(out, 0, sizeof(*out));
	if (h->nlmsg_type != RTM_NEWLINK ||
	    pl_nlmsg_attrs(h, sizeof(*ifi), tb, IFLA_MAX_MTU, pol) ||
	    !tb[IFLA_IFNAME] || !tb[IFLA_MTU])
		return -EBADMSG;
	out->ifindex = ifi->ifi_index;
	out->flags = ifi->ifi_flags;
	snprintf(out->ifname, sizeof(out->ifname), "%.*s", nla_len(tb[IFLA_IFNAME]),
		 (const char *)nla_data(tb[IFLA_IFNAME]));
	out->mtu = nla_get_u32(tb[IFLA_MTU]);
	if (tb[IFLA_MIN_MTU])
		out->min_mtu = nla_get_u32(tb[IFLA_MIN_MTU]);
	if (tb[IFLA_MAX_MTU])
		out->max_mtu = nla_get_u32(tb[IFLA_MAX_MTU]);
	return 0;
}

static int parse_link(const struct nlmsghdr *h, void *out)
{
	return pl_link_parse(h, out);
}

int pl_link_get(const char *ifname, struct pl_link *out, struct pl_nlerr *e)
{
	return pl_nl_query(NETLINK_ROUTE, pl_link_msg_get(ifname), parse_link, out, "link", e);
}

int pl_link_set_mtu(int ifindex, uint32_t mtu, struct pl_nlerr *e)
{
	struct pl_nl_reply rep;
	int ret = pl_nl_talk(NETLINK_ROUTE, pl_link_msg_mtu(ifindex, mtu), &rep, e);

	pl_nl_reply_clear(&rep);
	return ret;
}
