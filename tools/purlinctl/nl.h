/* SPDX-License-Identifier: GPL-2.0 */
/*
 * purlinctl: netlink transport shared by the DCB, ethtool and link code.
 * Messages are built and parsed by pure functions over libnl buffers;
 * only pl_nl_talk() touches a socket, through a hook the unit tests
 * replace with a simulated kernel.
 */
#ifndef PURLINCTL_NL_H
#define PURLINCTL_NL_H

#include <stdbool.h>
#include <stddef.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

/* Why a request failed: a positive errno and the kernel's words, if any. */
struct pl_nlerr {
	int err;
	char msg[256];
	bool full;	/* msg says it all; no strerror needed */
};

/* What came back for one request: the first reply message, or an error. */
struct pl_nl_reply {
	struct nlmsghdr *msg;	/* malloc'd copy, NULL for a bare ACK */
	int err;		/* positive errno from NLMSG_ERROR, 0 */
	char ext[256];		/* extended ACK message, "" */
};

/*
 * Send req (NETLINK_ROUTE or NETLINK_GENERIC) and wait for its ACK or
 * error. Returns 0 or -errno; rep is filled either way.
 */
typedef int (*pl_nl_xfer_fn)(int proto, struct nl_msg *req, struct pl_nl_reply *rep);
extern pl_nl_xfer_fn pl_nl_xfer;

/* pl_nl_xfer() on req, which is freed; errors land in e (may be NULL). */
int pl_nl_talk(int proto, struct nl_msg *req, struct pl_nl_reply *rep, struct pl_nlerr *e);
void pl_nl_reply_clear(struct pl_nl_reply *rep);
/*
 * pl_nl_talk() and parse the reply with parse(reply, arg); no reply, or
 * one parse refuses, is -EBADMSG "malformed WHAT reply".
 */
typedef int (*pl_nl_parse_fn)(const struct nlmsghdr *h, void *arg);
int pl_nl_query(int proto, struct nl_msg *req, pl_nl_parse_fn parse, void *arg, const char *what,
		struct pl_nlerr *e);
/* Close the sockets and forget resolved families. */
void pl_nl_close(void);

/* Record err (positive) and a printf message in e; returns -err. */
int pl_nlerr_set(struct pl_nlerr *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Errno and extended ACK text of an NLMSG_ERROR message; -EBADMSG if malformed. */
int pl_nl_parse_error(const struct nlmsghdr *h, int *err, char *ext, size_t extlen);

/*
 * nla_parse() that also refuses attributes running past the end and
 * policy violations: 0 or -EBADMSG.
 */
int pl_nla_parse(struct nlattr **tb, int max, const void *head, int len,
		 const struct nla_policy *pol);
int pl_nla_parse_nested(struct nlattr **tb, int max, const struct nlattr *nest,
			const struct nla_policy *pol);
/* The attributes of h after a fixed header of hdrlen bytes. */
int pl_nlmsg_attrs(const struct nlmsghdr *h, int hdrlen, struct nlattr **tb, int max,
		   const struct nla_policy *pol);

/* Generic netlink family lookup (CTRL_CMD_GETFAMILY). */
struct nl_msg *pl_genl_family_msg(const char *name);
int pl_genl_family_parse(const struct nlmsghdr *h, int *id);
/* Resolved id of family name (cached), or -errno. */
int pl_genl_family(const char *name, struct pl_nlerr *e);

#endif
