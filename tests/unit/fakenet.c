// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated kernel behind pl_nl_xfer for the unit tests. Requests are
 * parsed with plain libnl (not purlinctl's parsers); replies are built as
 * the kernel builds them: dcbnl_ieee_fill() for IEEE_GET, the in-reply u8
 * status of dcbnl_ieee_set() (ETS, PFC, APP, trust in that order, missing
 * setters skipped), ethtool's GET replies that carry only supported
 * attributes, and NLMSG_ERROR with extended ACK text.
 */
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/genl/genl.h>

#include "fakenet.h"
#include "harness.h"

struct fake_dev fake_devs[4];
int fake_ndevs;
int fake_eperm;
enum fake_mangle fake_mangle;
int fake_mangle_on;
char fake_log[4096];

static void note_req(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void note_req(const char *fmt, ...)
{
	size_t len = strlen(fake_log);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(fake_log + len, sizeof(fake_log) - len, fmt, ap);
	va_end(ap);
	len = strlen(fake_log);
	if (len + 1 < sizeof(fake_log)) {
		fake_log[len] = '\n';
		fake_log[len + 1] = '\0';
	}
}

static struct fake_dev *by_name(const char *name)
{
	for (int i = 0; i < fake_ndevs; i++)
		if (!strcmp(fake_devs[i].name, name))
			return &fake_devs[i];
	return NULL;
}

static struct fake_dev *by_index(int ifindex)
{
	for (int i = 0; i < fake_ndevs; i++)
		if (fake_devs[i].ifindex == ifindex)
			return &fake_devs[i];
	return NULL;
}

struct nlmsghdr *fake_error(int err, const char *ext, const struct nlmsghdr *req, bool capped)
{
	size_t payload = capped ? 0 : req->nlmsg_len - NLMSG_HDRLEN;
	struct nl_msg *m = nlmsg_alloc_simple(NLMSG_ERROR, 0);
	struct nlmsgerr e = { .error = -err, .msg = *req };
	struct nlmsghdr *h;

	nlmsg_append(m, &e, sizeof(e), NLMSG_ALIGNTO);
	if (payload)
		nlmsg_append(m, (char *)req + NLMSG_HDRLEN, payload, NLMSG_ALIGNTO);
	if (ext && *ext) {
		nla_put_string(m, NLMSGERR_ATTR_MSG, ext);
		nlmsg_hdr(m)->nlmsg_flags |= NLM_F_ACK_TLVS;
	}
	if (capped)
		nlmsg_hdr(m)->nlmsg_flags |= NLM_F_CAPPED;
	h = malloc(nlmsg_hdr(m)->nlmsg_len);
	memcpy(h, nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len);
	nlmsg_free(m);
	return h;
}

struct nlmsghdr *fake_load_hex(const char *name, size_t *len)
{
	char *path = data_file(name), *hex = slurp(path);
	unsigned char *buf;
	size_t n;

	free(path);
	if (!hex)
		return NULL;
	n = strlen(pl_rstrip(hex)) / 2;
	buf = calloc(1, n + 4);
	for (size_t i = 0; i < n; i++)
		sscanf(hex + 2 * i, "%2hhx", &buf[i]);
	free(hex);
	*len = n;
	return (struct nlmsghdr *)buf;
}

/* ---- replies ---- */

static int refuse(struct pl_nl_reply *rep, int err, const char *ext)
{
	rep->err = err;
	snprintf(rep->ext, sizeof(rep->ext), "%s", ext ? ext : "");
	return -err;
}

static int send_reply(struct pl_nl_reply *rep, struct nl_msg *m)
{
	struct nlmsghdr *h = nlmsg_hdr(m);
	enum fake_mangle how = fake_mangle;

	if (fake_mangle_on && h->nlmsg_type != fake_mangle_on)
		how = FAKE_OK;
	else
		fake_mangle = FAKE_OK;
	if (how == FAKE_NO_REPLY) {
		nlmsg_free(m);
		return 0;
	}
	rep->msg = malloc(h->nlmsg_len);
	memcpy(rep->msg, h, h->nlmsg_len);
	nlmsg_free(m);
	if (how == FAKE_TRUNCATE)
		rep->msg->nlmsg_len -= 2;
	if (how == FAKE_WRONG_CMD) {
		unsigned char *cmd = (unsigned char *)rep->msg + NLMSG_HDRLEN + 1;

		if (rep->msg->nlmsg_type == FAKE_ETHTOOL_FAMILY)
			cmd--;	/* genlmsghdr.cmd is the first byte */
		if (rep->msg->nlmsg_type == RTM_NEWLINK)
			rep->msg->nlmsg_type = RTM_DELLINK;
		else
			*cmd ^= 0x40;
	}
	return 0;
}

/* ---- rtnetlink: links ---- */

static int link_get(const struct nlmsghdr *req, struct pl_nl_reply *rep)
{
	struct nlattr *tb[IFLA_MAX + 1];
	struct ifinfomsg ifi = { 0 };
	struct fake_dev *d;
	struct nl_msg *m;

	if (nlmsg_parse((struct nlmsghdr *)req, sizeof(ifi), tb, IFLA_MAX, NULL) ||
	    !tb[IFLA_IFNAME])
		return refuse(rep, EINVAL, NULL);
	d = by_name(nla_get_string(tb[IFLA_IFNAME]));
	if (!d)
		return refuse(rep, ENODEV, NULL);
	ifi.ifi_index = d->ifindex;
	ifi.ifi_flags = IFF_UP | IFF_RUNNING | 0x10000;	/* IFF_LOWER_UP: a carrier */
	m = nlmsg_alloc_simple(RTM_NEWLINK, 0);
	nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO);
	nla_put_string(m, IFLA_IFNAME, d->name);
	nla_put_u32(m, IFLA_TXQLEN, 1000);
	nla_put_u32(m, IFLA_MTU, d->mtu);
	nla_put_u32(m, IFLA_MIN_MTU, d->min_mtu);
	nla_put_u32(m, IFLA_MAX_MTU, d->max_mtu);
	return send_reply(rep, m);
}

static int link_set(const struct nlmsghdr *req, struct pl_nl_reply *rep)
{
	const struct ifinfomsg *ifi = nlmsg_data(req);
	struct nlattr *tb[IFLA_MAX + 1];
	struct fake_dev *d = by_index(ifi->ifi_index);
	uint32_t mtu;

	if (nlmsg_parse((struct nlmsghdr *)req, sizeof(*ifi), tb, IFLA_MAX, NULL))
		return refuse(rep, EINVAL, NULL);
	if (!d)
		return refuse(rep, ENODEV, NULL);
	if (!tb[IFLA_MTU])
		return 0;
	mtu = nla_get_u32(tb[IFLA_MTU]);
	note_req("link %s mtu %u", d->name, mtu);
	if (fake_eperm)
		return refuse(rep, EPERM, NULL);
	if (mtu > d->max_mtu)
		return refuse(rep, EINVAL, "mtu greater than device maximum");
	if (mtu < d->min_mtu)
		return refuse(rep, EINVAL, "mtu less than device minimum");
	d->mtu = mtu;
	return 0;
}

/* ---- DCB ---- */

static int app_type(uint8_t sel)
{
	return sel == PL_DCB_APP_SEL_PCP ? PL_DCB_ATTR_DCB_APP : DCB_ATTR_IEEE_APP;
}

static struct nl_msg *dcb_reply(int type, uint8_t cmd)
{
	struct dcbmsg dcb = { .dcb_family = AF_UNSPEC, .cmd = cmd };
	struct nl_msg *m = nlmsg_alloc_simple(type, 0);

	nlmsg_append(m, &dcb, sizeof(dcb), NLMSG_ALIGNTO);
	return m;
}

static int dcb_get(struct fake_dev *d, struct pl_nl_reply *rep)
{
	struct nl_msg *m = dcb_reply(RTM_GETDCB, DCB_CMD_IEEE_GET);
	struct nlattr *ieee, *app, *trust;

	nla_put_string(m, DCB_ATTR_IFNAME, d->name);
	ieee = nla_nest_start(m, DCB_ATTR_IEEE);
	if (d->ops & PL_DCB_ETS)
		nla_put(m, DCB_ATTR_IEEE_ETS, sizeof(d->st.ets), &d->st.ets);
	if (d->ops & PL_DCB_PFC)
		nla_put(m, DCB_ATTR_IEEE_PFC, sizeof(d->st.pfc), &d->st.pfc);
	app = nla_nest_start(m, DCB_ATTR_IEEE_APP_TABLE);
	for (size_t i = 0; i < d->st.napp; i++)
		nla_put(m, app_type(d->st.app[i].selector), sizeof(struct dcb_app), &d->st.app[i]);
	nla_nest_end_keep_empty(m, app);	/* the kernel always sends the table */
	if (d->apptrust_kernel && (d->ops & PL_DCB_TRUST)) {
		trust = nla_nest_start(m, PL_DCB_ATTR_APP_TRUST_TABLE);
		for (size_t i = 0; i < d->st.ntrust; i++)
			nla_put_u8(m, app_type(d->st.trust[i]), d->st.trust[i]);
		nla_nest_end_keep_empty(m, trust);
	}
	nla_nest_end(m, ieee);
	if (d->ops & PL_DCB_DCBX)
		nla_put_u8(m, DCB_ATTR_DCBX, d->st.dcbx);
	return send_reply(rep, m);
}

static bool app_present(const struct pl_dcb *st, const struct dcb_app *a, size_t *at)
{
	for (size_t i = 0; i < st->napp; i++) {
		if (!memcmp(&st->app[i], a, sizeof(*a))) {
			*at = i;
			return true;
		}
	}
	return false;
}

static int app_change(struct fake_dev *d, struct nlattr *table, bool del)
{
	struct nlattr *a;
	int rem;

	nla_for_each_nested(a, table, rem) {
		struct dcb_app app;
		size_t at;

		if (nla_len(a) < (int)sizeof(app))
			return -ERANGE;
		memcpy(&app, nla_data(a), sizeof(app));
		if (del && !app_present(&d->st, &app, &at))
			return -ENOENT;
		if (!del && app_present(&d->st, &app, &at))
			return -EEXIST;
		for (size_t i = 0; !del && d->dscp_exclusive && i < d->st.napp; i++) {
			struct dcb_app *e = &d->st.app[i];

			if (app.selector == IEEE_8021QAZ_APP_SEL_DSCP && e->selector == app.selector &&
			    e->protocol == app.protocol)
				*e = d->st.app[--d->st.napp];
		}
		if (del)
			d->st.app[at] = d->st.app[--d->st.napp];
		else
			d->st.app[d->st.napp++] = app;
	}
	return 0;
}

/* The parts of dcbnl_ieee_set() purlinctl uses, in the kernel's order. */
static int ieee_set(struct fake_dev *d, struct nlattr **ib)
{
	struct nlattr *a;
	int rem;

	if (ib[DCB_ATTR_IEEE_ETS] && (d->ops & PL_DCB_ETS) && !(d->noset & PL_DCB_ETS)) {
		uint8_t cap = d->st.ets.ets_cap;

		note_req("dcb %s ieee_set ets", d->name);
		if (d->set_err[0])
			return -d->set_err[0];
		memcpy(&d->st.ets, nla_data(ib[DCB_ATTR_IEEE_ETS]), sizeof(d->st.ets));
		d->st.ets.ets_cap = cap;
	}
	if (ib[DCB_ATTR_IEEE_PFC] && (d->ops & PL_DCB_PFC) && !(d->noset & PL_DCB_PFC)) {
		struct ieee_pfc *in = nla_data(ib[DCB_ATTR_IEEE_PFC]);

		note_req("dcb %s ieee_set pfc", d->name);
		if (d->set_err[1])
			return -d->set_err[1];
		d->st.pfc.pfc_en = in->pfc_en;
		d->st.pfc.mbc = in->mbc;
		d->st.pfc.delay = in->delay;
	}
	if (ib[DCB_ATTR_IEEE_APP_TABLE]) {
		note_req("dcb %s ieee_set app", d->name);
		if (d->set_err[2])
			return -d->set_err[2];
		rem = app_change(d, ib[DCB_ATTR_IEEE_APP_TABLE], false);
		if (rem)
			return rem;
	}
	if (ib[PL_DCB_ATTR_APP_TRUST_TABLE] && d->apptrust_kernel) {
		note_req("dcb %s ieee_set trust", d->name);
		if (!(d->ops & PL_DCB_TRUST) || (d->noset & PL_DCB_TRUST))
			return -EOPNOTSUPP;
		if (d->set_err[3])
			return -d->set_err[3];
		d->st.ntrust = 0;
		nla_for_each_nested(a, ib[PL_DCB_ATTR_APP_TRUST_TABLE], rem)
			d->st.trust[d->st.ntrust++] = nla_get_u8(a);
	}
	return 0;
}

static int dcb_request(const struct nlmsghdr *req, struct pl_nl_reply *rep)
{
	const struct dcbmsg *dcb = nlmsg_data(req);
	struct nlattr *tb[DCB_ATTR_DCBX + 1], *ib[PL_DCB_IEEE_MAX + 1];
	struct fake_dev *d;
	struct nl_msg *m;
	int err = 0;

	if (nlmsg_parse((struct nlmsghdr *)req, sizeof(*dcb), tb, DCB_ATTR_DCBX, NULL))
		return refuse(rep, EINVAL, NULL);
	if (req->nlmsg_type == RTM_SETDCB && fake_eperm)
		return refuse(rep, EPERM, NULL);
	if (!tb[DCB_ATTR_IFNAME])
		return refuse(rep, EINVAL, NULL);
	d = by_name(nla_get_string(tb[DCB_ATTR_IFNAME]));
	if (!d)
		return refuse(rep, ENODEV, NULL);
	if (!d->dcb)
		return refuse(rep, EOPNOTSUPP, NULL);
	switch (dcb->cmd) {
	case DCB_CMD_IEEE_GET:
		return dcb_get(d, rep);
	case DCB_CMD_SDCBX:
		note_req("dcb %s sdcbx 0x%x", d->name, nla_get_u8(tb[DCB_ATTR_DCBX]));
		if (!d->setdcbx)
			return refuse(rep, EOPNOTSUPP, NULL);
		if (!d->set_err[4])
			d->st.dcbx = nla_get_u8(tb[DCB_ATTR_DCBX]);
		m = dcb_reply(RTM_SETDCB, DCB_CMD_SDCBX);
		nla_put_u8(m, DCB_ATTR_DCBX, d->set_err[4] ? 1 : 0);
		return send_reply(rep, m);
	case DCB_CMD_IEEE_SET:
	case DCB_CMD_IEEE_DEL:
		if (!tb[DCB_ATTR_IEEE] ||
		    nla_parse_nested(ib, PL_DCB_IEEE_MAX, tb[DCB_ATTR_IEEE], NULL))
			return refuse(rep, EINVAL, NULL);
		if (dcb->cmd == DCB_CMD_IEEE_SET) {
			err = ieee_set(d, ib);
		} else if (ib[DCB_ATTR_IEEE_APP_TABLE]) {
			note_req("dcb %s ieee_del app", d->name);
			err = app_change(d, ib[DCB_ATTR_IEEE_APP_TABLE], true);
		}
		m = dcb_reply(RTM_SETDCB, dcb->cmd);
		nla_put_u8(m, DCB_ATTR_IEEE, (uint8_t)err);
		return send_reply(rep, m);
	default:
		return refuse(rep, EOPNOTSUPP, NULL);
	}
}

/* ---- ethtool ---- */

static const struct pl_et_kind *et_kind_of(uint8_t cmd, bool *set)
{
	static const struct pl_et_kind *const kinds[] = { &pl_et_coalesce, &pl_et_rings,
							 &pl_et_pause };

	for (size_t i = 0; i < 3; i++) {
		*set = cmd == kinds[i]->set;
		if (cmd == kinds[i]->get || *set)
			return kinds[i];
	}
	return NULL;
}

static int et_request(const struct nlmsghdr *req, struct pl_nl_reply *rep)
{
	const struct genlmsghdr *g = nlmsg_data(req);
	struct nlattr *tb[PL_ET_MAXATTR + 1], *hb[ETHTOOL_A_HEADER_MAX + 1];
	const struct pl_et_kind *k;
	struct pl_eattrs *vals;
	struct fake_dev *d;
	struct nlattr *hdr;
	struct nl_msg *m;
	bool set, ok;

	k = et_kind_of(g->cmd, &set);
	if (!k || genlmsg_parse((struct nlmsghdr *)req, 0, tb, k->max, NULL) || !tb[1] ||
	    nla_parse_nested(hb, ETHTOOL_A_HEADER_MAX, tb[1], NULL) ||
	    !hb[ETHTOOL_A_HEADER_DEV_NAME] || !(tb[1]->nla_type & NLA_F_NESTED))
		return refuse(rep, EINVAL, NULL);
	d = by_name(nla_get_string(hb[ETHTOOL_A_HEADER_DEV_NAME]));
	if (!d)
		return refuse(rep, ENODEV, NULL);
	ok = k == &pl_et_coalesce ? d->coal : k == &pl_et_rings ? d->rings : d->pause;
	vals = k == &pl_et_coalesce ? &d->coal_v : k == &pl_et_rings ? &d->ring_v : &d->pause_v;
	if (set) {
		note_req("ethtool %s %s_set", d->name, k->name);
		if (fake_eperm)
			return refuse(rep, EPERM, NULL);
		if (!ok)
			return refuse(rep, EOPNOTSUPP, NULL);
		for (unsigned int a = 2; a <= k->max; a++) {
			if (!tb[a])
				continue;
			if (k == &pl_et_coalesce && !((d->coal_mask >> a) & 1))
				return refuse(rep, EINVAL, "cannot modify an unsupported parameter");
			if (k == &pl_et_rings && a == ETHTOOL_A_RINGS_RX &&
			    nla_get_u32(tb[a]) > vals->v[ETHTOOL_A_RINGS_RX_MAX])
				return refuse(rep, EINVAL, "requested ring size exceeds maximum");
		}
		for (unsigned int a = 2; a <= k->max; a++) {
			const struct pl_et_attr *at = pl_et_attr_by_id(k, a);

			if (tb[a] && at)
				pl_et_put(vals, a, at->type == PL_ET_BOOL ? nla_get_u8(tb[a]) :
									    nla_get_u32(tb[a]));
		}
		return 0;
	}
	if (!ok)
		return refuse(rep, EOPNOTSUPP, NULL);
	m = nlmsg_alloc();
	genlmsg_put(m, 0, req->nlmsg_seq, FAKE_ETHTOOL_FAMILY, 0, 0, k->reply, 1);
	hdr = nla_nest_start(m, 1 | NLA_F_NESTED);
	nla_put_u32(m, ETHTOOL_A_HEADER_DEV_INDEX, d->ifindex);
	nla_put_string(m, ETHTOOL_A_HEADER_DEV_NAME, d->name);
	nla_nest_end(m, hdr);
	for (unsigned int a = 2; a <= PL_ET_MAXATTR; a++) {
		const struct pl_et_attr *at = pl_et_attr_by_id(k, a);

		if (!at || !pl_et_has(vals, a))
			continue;
		if (at->type == PL_ET_BOOL)
			nla_put_u8(m, a, vals->v[a]);
		else
			nla_put_u32(m, a, vals->v[a]);
	}
	return send_reply(rep, m);
}

static int ctrl_request(const struct nlmsghdr *req, struct pl_nl_reply *rep)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	struct nl_msg *m;

	if (genlmsg_parse((struct nlmsghdr *)req, 0, tb, CTRL_ATTR_MAX, NULL) ||
	    !tb[CTRL_ATTR_FAMILY_NAME])
		return refuse(rep, EINVAL, NULL);
	if (strcmp(nla_get_string(tb[CTRL_ATTR_FAMILY_NAME]), "ethtool"))
		return refuse(rep, ENOENT, NULL);
	m = nlmsg_alloc();
	genlmsg_put(m, 0, req->nlmsg_seq, GENL_ID_CTRL, 0, 0, CTRL_CMD_NEWFAMILY, 2);
	nla_put_string(m, CTRL_ATTR_FAMILY_NAME, "ethtool");
	nla_put_u16(m, CTRL_ATTR_FAMILY_ID, FAKE_ETHTOOL_FAMILY);
	return send_reply(rep, m);
}

static int fake_xfer(int proto, struct nl_msg *msg, struct pl_nl_reply *rep)
{
	const struct nlmsghdr *req = nlmsg_hdr(msg);

	if (proto == NETLINK_GENERIC && req->nlmsg_type == GENL_ID_CTRL)
		return ctrl_request(req, rep);
	if (proto == NETLINK_GENERIC && req->nlmsg_type == FAKE_ETHTOOL_FAMILY)
		return et_request(req, rep);
	if (proto != NETLINK_ROUTE)
		return refuse(rep, EPROTONOSUPPORT, NULL);
	switch (req->nlmsg_type) {
	case RTM_GETLINK:
		return link_get(req, rep);
	case RTM_NEWLINK:
	case RTM_SETLINK:
		return link_set(req, rep);
	case RTM_GETDCB:
	case RTM_SETDCB:
		return dcb_request(req, rep);
	default:
		return refuse(rep, EOPNOTSUPP, NULL);
	}
}

void fakenet_install(void)
{
	memset(fake_devs, 0, sizeof(fake_devs));
	fake_ndevs = 0;
	fake_eperm = 0;
	fake_mangle = FAKE_OK;
	fake_mangle_on = 0;
	fake_log[0] = '\0';
	pl_nl_close();
	pl_nl_xfer = fake_xfer;
}

struct attr_val {
	unsigned int attr;
	uint32_t val;
};

static void put_all(struct pl_eattrs *a, const struct attr_val *v, size_t n, uint64_t *mask)
{
	for (size_t i = 0; i < n; i++) {
		pl_et_put(a, v[i].attr, v[i].val);
		if (mask)
			*mask |= 1ULL << v[i].attr;
	}
}

/* virtio_net: usecs and frames, rings of 256, no DCB, no pause. */
static void preset_virtio(struct fake_dev *d)
{
	static const struct attr_val coal[] = {
		{ ETHTOOL_A_COALESCE_RX_USECS, 0 }, { ETHTOOL_A_COALESCE_RX_MAX_FRAMES, 1 },
		{ ETHTOOL_A_COALESCE_TX_USECS, 0 }, { ETHTOOL_A_COALESCE_TX_MAX_FRAMES, 1 },
	};
	static const struct attr_val ring[] = {
		{ ETHTOOL_A_RINGS_RX, 256 }, { ETHTOOL_A_RINGS_TX, 256 },
		{ ETHTOOL_A_RINGS_RX_MAX, 256 }, { ETHTOOL_A_RINGS_TX_MAX, 256 },
	};

	d->max_mtu = 65535;
	d->coal = d->rings = true;
	put_all(&d->coal_v, coal, ARRAY_SIZE(coal), &d->coal_mask);
	put_all(&d->ring_v, ring, ARRAY_SIZE(ring), NULL);
}

/* A RoCE NIC as it comes: 8 ETS classes, no PFC, PCP trust, global pause on. */
static void preset_nic(struct fake_dev *d)
{
	static const uint8_t bw[8] = { 13, 13, 13, 13, 12, 12, 12, 12 };
	static const struct attr_val coal[] = {
		{ ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, 0 }, { ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX, 0 },
		{ ETHTOOL_A_COALESCE_RX_USECS, 8 },	   { ETHTOOL_A_COALESCE_RX_MAX_FRAMES, 128 },
		{ ETHTOOL_A_COALESCE_TX_USECS, 16 },	   { ETHTOOL_A_COALESCE_TX_MAX_FRAMES, 32 },
	};
	static const struct attr_val ring[] = {
		{ ETHTOOL_A_RINGS_RX, 1024 }, { ETHTOOL_A_RINGS_TX, 1024 },
		{ ETHTOOL_A_RINGS_RX_MAX, 8192 }, { ETHTOOL_A_RINGS_TX_MAX, 8192 },
	};
	static const struct attr_val pause[] = {
		{ ETHTOOL_A_PAUSE_AUTONEG, 0 }, { ETHTOOL_A_PAUSE_RX, 1 }, { ETHTOOL_A_PAUSE_TX, 1 },
	};

	d->max_mtu = 9978;
	d->dcb = d->apptrust_kernel = d->setdcbx = true;
	d->ops = PL_DCB_ETS | PL_DCB_PFC | PL_DCB_APP | PL_DCB_TRUST | PL_DCB_DCBX;
	d->st.ets.ets_cap = 8;
	for (int i = 0; i < 8; i++) {
		d->st.ets.tc_tsa[i] = IEEE_8021QAZ_TSA_ETS;
		d->st.ets.tc_tx_bw[i] = bw[i];
		d->st.ets.prio_tc[i] = (uint8_t)i;
	}
	d->st.pfc.pfc_cap = 8;
	d->st.pfc.requests[3] = 7;
	d->st.trust[0] = PL_DCB_APP_SEL_PCP;
	d->st.ntrust = 1;
	d->st.dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
	d->coal = d->rings = d->pause = true;
	put_all(&d->coal_v, coal, ARRAY_SIZE(coal), &d->coal_mask);
	put_all(&d->ring_v, ring, ARRAY_SIZE(ring), NULL);
	put_all(&d->pause_v, pause, ARRAY_SIZE(pause), NULL);
}

struct fake_dev *fakenet_add(const char *name, enum fake_preset preset)
{
	struct fake_dev *d = &fake_devs[fake_ndevs++];

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->ifindex = fake_ndevs + 1;
	d->mtu = 1500;
	d->min_mtu = 68;
	if (preset == FAKE_VIRTIO)
		preset_virtio(d);
	else
		preset_nic(d);
	return d;
}
