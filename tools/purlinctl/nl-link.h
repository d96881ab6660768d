/* SPDX-License-Identifier: GPL-2.0 */
/*
 * purlinctl: the link through rtnetlink (libnl-route builds the requests):
 * index, flags and MTU with its device limits.
 */
#ifndef PURLINCTL_NL_LINK_H
#define PURLINCTL_NL_LINK_H

#include <net/if.h>
#include <stdint.h>

#include "nl.h"

struct pl_link {
	int ifindex;
	char ifname[IF_NAMESIZE];
	unsigned int flags;	/* IFF_* */
	uint32_t mtu;
	uint32_t min_mtu, max_mtu;	/* 0 when the kernel does not say */
};

struct nl_msg *pl_link_msg_get(const char *ifname);
struct nl_msg *pl_link_msg_mtu(int ifindex, uint32_t mtu);
/* An RTM_NEWLINK reply; 0 or -EBADMSG. */
int pl_link_parse(const struct nlmsghdr *h, struct pl_link *out);

int pl_link_get(const char *ifname, struct pl_link *out, struct pl_nlerr *e);
int pl_link_set_mtu(int ifindex, uint32_t mtu, struct pl_nlerr *e);

#endif
