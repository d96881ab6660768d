// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: netlink transport (libnl sockets with the kernel's own errno
 * and extended ACK text), strict attribute parsing and generic netlink
 * family lookup.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "nl.h"
#include "util.h"

int pl_nlerr_set(struct pl_nlerr *e, int err, const char *fmt, ...)
{
	va_list ap;

	if (e) {
		e->err = err;
		e->full = false;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return -err;
}

int pl_nla_parse(struct nlattr **tb, int max, const void *head, int len,
		 const struct nla_policy *pol)
{
	struct nlattr *nla;
	int rem;

	if (len < 0 || nla_parse(tb, max, (struct nlattr *)head, len, (struct nla_policy *)pol))
		return -EBADMSG;
	nla_for_each_attr(nla, (struct nlattr *)head, len, rem)
		;
	return rem ? -EBADMSG : 0;
}

int pl_nla_parse_nested(struct nlattr **tb, int max, const struct nlattr *nest,
			const struct nla_policy *pol)
{
	return pl_nla_parse(tb, max, nla_data(nest), nla_len(nest), pol);
}

int pl_nlmsg_attrs(const struct nlmsghdr *h, int hdrlen, struct nlattr **tb, int max,
		   const struct nla_policy *pol)
{
	int aligned = NLMSG_ALIGN(hdrlen);

	if (h->nlmsg_len < NLMSG_HDRLEN + (unsigned int)hdrlen)
		return -EBADMSG;
	if (h->nlmsg_len < NLMSG_HDRLEN + (unsigned int)aligned)
		return pl_nla_parse(tb, max, NULL, 0, pol);
	return pl_nla_parse(tb, max, (const char *)h + NLMSG_HDRLEN + aligned,
			    h->nlmsg_len - NLMSG_HDRLEN - aligned, pol);
}

int pl_nl_parse_error(const struct nlmsghdr *h, int *err, char *ext, size_t extlen)
{
	static const struct nla_policy pol[NLMSGERR_ATTR_MAX + 1] = {
		[NLMSGERR_ATTR_MSG] = { .type = NLA_STRING },
	};
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	const struct nlmsgerr *e;
	size_t off;

	if (extlen)
		*ext = '\0';
	if (h->nlmsg_type != NLMSG_ERROR ||
	    h->nlmsg_len < NLMSG_HDRLEN + sizeof(e->error))
		return -EBADMSG;
	e = (const struct nlmsgerr *)((const char *)h + NLMSG_HDRLEN);
	if (e->error > 0 || e->error < -4095)
		return -EBADMSG;
	*err = -e->error;
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return 0;
	if (h->nlmsg_len < NLMSG_HDRLEN + sizeof(*e))
		return -EBADMSG;
	off = NLMSG_HDRLEN + sizeof(*e);
	if (!(h->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < NLMSG_HDRLEN)
			return -EBADMSG;
		off += NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN);
	}
	if (off > h->nlmsg_len)
		return -EBADMSG;
	if (pl_nla_parse(tb, NLMSGERR_ATTR_MAX, (const char *)h + off, h->nlmsg_len - off, pol))
		return -EBADMSG;
	if (tb[NLMSGERR_ATTR_MSG] && extlen)
		snprintf(ext, extlen, "%.*s", nla_len(tb[NLMSGERR_ATTR_MSG]),
			 (const char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
	return 0;
}

/* ---- sockets ---- */

static struct nl_sock *socks[2];
static int family_cache_id;
static char family_cache_name[32];

static int sock_index(int proto)
{
	return proto == NETLINK_GENERIC ? 1 : 0;
}

static int sock_for(int proto, struct nl_sock **out)
{
	struct nl_sock **sk = &socks[sock_index(proto)];
	int one = 1;

	if (!*sk) {
		*sk = nl_socket_alloc();
		if (!*sk)
			return -ENOMEM;
		if (nl_connect(*sk, proto)) {
			nl_socket_free(*sk);
			*sk = NULL;
			return -EPROTONOSUPPORT;
		}
		/* Best effort: older kernels simply send no extended ACK. */
		setsockopt(nl_socket_get_fd(*sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	}
	*out = *sk;
	return 0;
}

void pl_nl_close(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(socks); i++) {
		if (socks[i])
			nl_socket_free(socks[i]);
		socks[i] = NULL;
	}
	family_cache_name[0] = '\0';
	family_cache_id = 0;
}

struct xfer {
	struct pl_nl_reply *rep;
	bool done;
};

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct xfer *x = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);

	if (!x->rep->msg) {
		x->rep->msg = xmalloc(h->nlmsg_len);
		memcpy(x->rep->msg, h, h->nlmsg_len);
	}
	return NL_OK;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct xfer *x = arg;

	(void)msg;
	x->done = true;
	return NL_STOP;
}

static int on_error(struct sockaddr_nl *who, struct nlmsgerr *err, void *arg)
{
	struct xfer *x = arg;
	const struct nlmsghdr *h = (const struct nlmsghdr *)((char *)err - NLMSG_HDRLEN);

	(void)who;
	if (pl_nl_parse_error(h, &x->rep->err, x->rep->ext, sizeof(x->rep->ext)))
		x->rep->err = err->error < 0 ? -err->error : EBADMSG;
	x->done = true;
	return NL_STOP;
}

static int real_xfer(int proto, struct nl_msg *req, struct pl_nl_reply *rep)
{
	struct xfer x = { .rep = rep };
	struct nl_cb *base, *cb;
	struct nl_sock *sk;
	int ret = sock_for(proto, &sk);

	if (ret)
		return ret;
	base = nl_socket_get_cb(sk);	/* a reference */
	cb = nl_cb_clone(base);
	nl_cb_put(base);
	if (!cb)
		return -ENOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &x);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &x);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &x);
	ret = nl_send_auto(sk, req) < 0 ? -EIO : 0;
	while (!ret && !x.done)
		if (nl_recvmsgs(sk, cb) < 0 && !x.done)
			ret = -EIO;
	nl_cb_put(cb);
	if (!ret && rep->err)
		ret = -rep->err;
	return ret;
}

pl_nl_xfer_fn pl_nl_xfer = real_xfer;

void pl_nl_reply_clear(struct pl_nl_reply *rep)
{
	free(rep->msg);
	memset(rep, 0, sizeof(*rep));
}

int pl_nl_talk(int proto, struct nl_msg *req, struct pl_nl_reply *rep, struct pl_nlerr *e)
{
	int ret;

	memset(rep, 0, sizeof(*rep));
	if (!req)
		return pl_nlerr_set(e, ENOMEM, "cannot build the request");
	ret = pl_nl_xfer(proto, req, rep);
	nlmsg_free(req);
	if (ret)
		pl_nlerr_set(e, -ret, "%s", rep->ext);
	return ret;
}

int pl_nl_query(int proto, struct nl_msg *req, pl_nl_parse_fn parse, void *arg, const char *what,
		struct pl_nlerr *e)
{
	struct pl_nl_reply rep;
	int ret = pl_nl_talk(proto, req, &rep, e);

	if (!ret && (!rep.msg || parse(rep.msg, arg)))
		ret = pl_nlerr_set(e, EBADMSG, "malformed %s reply", what);
	pl_nl_reply_clear(&rep);
	return ret;
}

/* ---- generic netlink families ---- */

struct nl_msg *pl_genl_family_msg(const char *name)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0, 0,
			 CTRL_CMD_GETFAMILY, 1) ||
	    nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, name)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int pl_genl_family_parse(const struct nlmsghdr *h, int *id)
{
	static const struct nla_policy pol[CTRL_ATTR_MAX + 1] = {
		[CTRL_ATTR_FAMILY_ID] = { .type = NLA_U16 },
	};
	struct nlattr *tb[CTRL_ATTR_MAX + 1];

	if (h->nlmsg_type != GENL_ID_CTRL ||
	    pl_nlmsg_attrs(h, GENL_HDRLEN, tb, CTRL_ATTR_MAX, pol) ||
	    !tb[CTRL_ATTR_FAMILY_ID])
		return -EBADMSG;
	*id = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	return 0;
}

static int parse_family(const struct nlmsghdr *h, void *id)
{
	return pl_genl_family_parse(h, id);
}

int pl_genl_family(const char *name, struct pl_nlerr *e)
{
	int ret, id;

	if (family_cache_id && !strcmp(family_cache_name, name))
		return family_cache_id;
	ret = pl_nl_query(NETLINK_GENERIC, pl_genl_family_msg(name), parse_family, &id, name, e);
	if (ret == -ENOENT)
		return pl_nlerr_set(e, EOPNOTSUPP, "this kernel has no %s netlink family", name);
	if (ret)
		return ret;
	snprintf(family_cache_name, sizeof(family_cache_name), "%s", name);
	family_cache_id = id;
	return id;
}
