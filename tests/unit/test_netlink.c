// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink messages of purlinctl net: what the builders put on the wire,
 * and how the parsers take recorded kernel replies (data/nl-*.hex),
 * replies built as the kernel builds them, in-reply DCB errors, and
 * malformed or truncated replies.
 */
#include <errno.h>
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

static int setup(void **state)
{
	(void)state;
	fakenet_install();
	return 0;
}

/* A copy of msg's header and payload that the test owns. */
static struct nlmsghdr *copy_msg(struct nl_msg *msg)
{
	struct nlmsghdr *h = malloc(nlmsg_hdr(msg)->nlmsg_len + 8);

	memcpy(h, nlmsg_hdr(msg), nlmsg_hdr(msg)->nlmsg_len);
	nlmsg_free(msg);
	return h;
}

static struct nl_msg *dcb_reply(int type, uint8_t cmd)
{
	struct dcbmsg dcb = { .dcb_family = AF_UNSPEC, .cmd = cmd };
	struct nl_msg *m = nlmsg_alloc_simple(type, 0);

	nlmsg_append(m, &dcb, sizeof(dcb), NLMSG_ALIGNTO);
	return m;
}

/* ---- DCB requests ---- */

static void test_dcb_get_request(void **state)
{
	/* Byte for byte what iproute2's dcb sends (after nlmsghdr). */
	static const uint8_t want[] = { 0x00, 0x15, 0x00, 0x00, 0x07, 0x00, 0x01, 0x00,
					0x6c, 0x6f, 0x00, 0x00 };
	struct nlmsghdr *h = copy_msg(pl_dcb_msg_get("lo"));

	(void)state;
	assert_int_equal(h->nlmsg_type, RTM_GETDCB);
	assert_int_equal(h->nlmsg_len, NLMSG_HDRLEN + sizeof(want));
	assert_true(h->nlmsg_flags & NLM_F_REQUEST);
	assert_memory_equal((char *)h + NLMSG_HDRLEN, want, sizeof(want));
	free(h);
}

static void test_dcb_set_request(void **state)
{
	struct nlattr *tb[DCB_ATTR_DCBX + 1], *ib[PL_DCB_IEEE_MAX + 1], *a;
	struct pl_dcb d = { 0 };
	struct nlmsghdr *h;
	int rem, n = 0;

	(void)state;
	d.ets.tc_tx_bw[3] = 50;
	d.pfc.pfc_en = 0x08;
	d.app[0] = (struct dcb_app){ IEEE_8021QAZ_APP_SEL_DSCP, 3, 26 };
	d.app[1] = (struct dcb_app){ PL_DCB_APP_SEL_PCP, 3, 3 };
	d.napp = 2;
	d.trust[0] = IEEE_8021QAZ_APP_SEL_DSCP;
	d.trust[1] = PL_DCB_APP_SEL_PCP;
	d.ntrust = 2;
	h = copy_msg(pl_dcb_msg_set("eth0", DCB_CMD_IEEE_SET, &d,
				    PL_DCB_ETS | PL_DCB_PFC | PL_DCB_APP | PL_DCB_TRUST));
	assert_int_equal(h->nlmsg_type, RTM_SETDCB);
	assert_int_equal(((struct dcbmsg *)nlmsg_data(h))->cmd, DCB_CMD_IEEE_SET);
	assert_int_equal(nlmsg_parse(h, sizeof(struct dcbmsg), tb, DCB_ATTR_DCBX, NULL), 0);
	assert_string_equal(nla_get_string(tb[DCB_ATTR_IFNAME]), "eth0");
	assert_true(tb[DCB_ATTR_IEEE]->nla_type & NLA_F_NESTED);
	assert_int_equal(nla_parse_nested(ib, PL_DCB_IEEE_MAX, tb[DCB_ATTR_IEEE], NULL), 0);
	/* whole structs, always */
	assert_int_equal(nla_len(ib[DCB_ATTR_IEEE_ETS]), 59);
	assert_int_equal(nla_len(ib[DCB_ATTR_IEEE_PFC]), 136);
	assert_int_equal(((struct ieee_pfc *)nla_data(ib[DCB_ATTR_IEEE_PFC]))->pfc_en, 0x08);
	/* IEEE selectors as DCB_ATTR_IEEE_APP, PCP as DCB_ATTR_DCB_APP */
	nla_for_each_nested(a, ib[DCB_ATTR_IEEE_APP_TABLE], rem) {
		assert_int_equal(nla_type(a), n ? PL_DCB_ATTR_DCB_APP : DCB_ATTR_IEEE_APP);
		assert_int_equal(nla_len(a), sizeof(struct dcb_app));
		n++;
	}
	assert_int_equal(n, 2);
	n = 0;
	nla_for_each_nested(a, ib[PL_DCB_ATTR_APP_TRUST_TABLE], rem) {
		assert_int_equal(nla_type(a), n ? PL_DCB_ATTR_DCB_APP : DCB_ATTR_IEEE_APP);
		assert_int_equal(nla_get_u8(a), n ? PL_DCB_APP_SEL_PCP : IEEE_8021QAZ_APP_SEL_DSCP);
		n++;
	}
	assert_int_equal(n, 2);
	free(h);

	/* only what is asked for */
	h = copy_msg(pl_dcb_msg_set("eth0", DCB_CMD_IEEE_SET, &d, PL_DCB_PFC));
	nlmsg_parse(h, sizeof(struct dcbmsg), tb, DCB_ATTR_DCBX, NULL);
	nla_parse_nested(ib, PL_DCB_IEEE_MAX, tb[DCB_ATTR_IEEE], NULL);
	assert_non_null(ib[DCB_ATTR_IEEE_PFC]);
	assert_null(ib[DCB_ATTR_IEEE_ETS]);
	assert_null(ib[DCB_ATTR_IEEE_APP_TABLE]);
	assert_null(ib[PL_DCB_ATTR_APP_TRUST_TABLE]);
	free(h);

	h = copy_msg(pl_dcb_msg_setdcbx("eth0", DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE));
	nlmsg_parse(h, sizeof(struct dcbmsg), tb, DCB_ATTR_DCBX, NULL);
	assert_int_equal(((struct dcbmsg *)nlmsg_data(h))->cmd, DCB_CMD_SDCBX);
	assert_int_equal(nla_get_u8(tb[DCB_ATTR_DCBX]), 0x09);
	free(h);
}

/* ---- DCB replies ---- */

/* An IEEE_GET reply: ETS and PFC when asked, two APP entries, a trust table. */
static struct nlmsghdr *ieee_reply(bool ets, bool pfc, bool trust, int ets_len)
{
	struct nl_msg *m = dcb_reply(RTM_GETDCB, DCB_CMD_IEEE_GET);
	struct dcb_app apps[2] = { { IEEE_8021QAZ_APP_SEL_DSCP, 3, 26 },
				   { PL_DCB_APP_SEL_PCP, 5, 5 } };
	struct ieee_ets e = { .ets_cap = 8, .tc_tx_bw = { 50, 50 } };
	struct ieee_pfc p = { .pfc_cap = 8, .pfc_en = 0x08, .requests = { [3] = 11 } };
	struct nlattr *ieee, *t;

	nla_put_string(m, DCB_ATTR_IFNAME, "eth0");
	ieee = nla_nest_start(m, DCB_ATTR_IEEE);
	if (ets)
		nla_put(m, DCB_ATTR_IEEE_ETS, ets_len, &e);
	if (pfc)
		nla_put(m, DCB_ATTR_IEEE_PFC, sizeof(p), &p);
	t = nla_nest_start(m, DCB_ATTR_IEEE_APP_TABLE);
	nla_put(m, DCB_ATTR_IEEE_APP, sizeof(apps[0]), &apps[0]);
	nla_put(m, PL_DCB_ATTR_DCB_APP, sizeof(apps[1]), &apps[1]);
	nla_nest_end(m, t);
	if (trust) {
		t = nla_nest_start(m, PL_DCB_ATTR_APP_TRUST_TABLE);
		nla_put_u8(m, DCB_ATTR_IEEE_APP, IEEE_8021QAZ_APP_SEL_DSCP);
		nla_put_u8(m, PL_DCB_ATTR_DCB_APP, PL_DCB_APP_SEL_PCP);
		nla_nest_end(m, t);
	}
	nla_nest_end(m, ieee);
	nla_put_u8(m, DCB_ATTR_DCBX, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
	return copy_msg(m);
}

static void test_dcb_parse_full(void **state)
{
	struct nlmsghdr *h = ieee_reply(true, true, true, sizeof(struct ieee_ets));
	struct pl_dcb d;

	(void)state;
	assert_int_equal(pl_dcb_parse_get(h, &d), 0);
	assert_int_equal(d.have, PL_DCB_ETS | PL_DCB_PFC | PL_DCB_APP | PL_DCB_TRUST | PL_DCB_DCBX);
	assert_int_equal(d.ets.ets_cap, 8);
	assert_int_equal(d.ets.tc_tx_bw[1], 50);
	assert_int_equal(d.pfc.pfc_en, 0x08);
	assert_int_equal(d.pfc.requests[3], 11);
	assert_int_equal(d.napp, 2);
	assert_int_equal(d.app[0].protocol, 26);
	assert_int_equal(d.app[1].selector, PL_DCB_APP_SEL_PCP);
	assert_int_equal(d.ntrust, 2);
	assert_int_equal(d.trust[0], IEEE_8021QAZ_APP_SEL_DSCP);
	assert_int_equal(d.trust[1], PL_DCB_APP_SEL_PCP);
	assert_int_equal(d.dcbx, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
	free(h);
}

/* The kernel lists the APP table newest first; it is read back sorted. */
static void test_dcb_parse_app_order(void **state)
{
	static const struct dcb_app in[] = {
		{ IEEE_8021QAZ_APP_SEL_DSCP, 5, 26 }, { IEEE_8021QAZ_APP_SEL_DGRAM, 3, 4791 },
		{ IEEE_8021QAZ_APP_SEL_DSCP, 1, 10 }, { IEEE_8021QAZ_APP_SEL_DSCP, 3, 26 },
	};
	static const struct dcb_app want[] = {
		{ IEEE_8021QAZ_APP_SEL_DGRAM, 3, 4791 }, { IEEE_8021QAZ_APP_SEL_DSCP, 1, 10 },
		{ IEEE_8021QAZ_APP_SEL_DSCP, 3, 26 }, { IEEE_8021QAZ_APP_SEL_DSCP, 5, 26 },
	};
	struct nl_msg *m = dcb_reply(RTM_GETDCB, DCB_CMD_IEEE_GET);
	struct nlattr *ieee, *t;
	struct nlmsghdr *h;
	struct pl_dcb d;

	(void)state;
	nla_put_string(m, DCB_ATTR_IFNAME, "eth0");
	ieee = nla_nest_start(m, DCB_ATTR_IEEE);
	t = nla_nest_start(m, DCB_ATTR_IEEE_APP_TABLE);
	for (size_t i = 0; i < ARRAY_SIZE(in); i++)
		nla_put(m, DCB_ATTR_IEEE_APP, sizeof(in[i]), &in[i]);
	nla_nest_end(m, t);
	nla_nest_end(m, ieee);
	h = copy_msg(m);
	assert_int_equal(pl_dcb_parse_get(h, &d), 0);
	assert_int_equal(d.napp, ARRAY_SIZE(want));
	assert_memory_equal(d.app, want, sizeof(want));
	free(h);
}

static void test_dcb_parse_partial(void **state)
{
	struct nlmsghdr *h = ieee_reply(false, true, false, 0);
	struct pl_dcb d;

	(void)state;
	/* a driver without ETS getters and a kernel without apptrust */
	assert_int_equal(pl_dcb_parse_get(h, &d), 0);
	assert_int_equal(d.have, PL_DCB_PFC | PL_DCB_APP | PL_DCB_DCBX);
	free(h);
}

static void test_dcb_parse_malformed(void **state)
{
	struct nlmsghdr *h;
	struct pl_dcb d;

	(void)state;
	/* a short ETS struct */
	h = ieee_reply(true, true, true, 40);
	assert_int_equal(pl_dcb_parse_get(h, &d), -EBADMSG);
	free(h);
	/* the last attribute runs past the end */
	h = ieee_reply(true, true, true, sizeof(struct ieee_ets));
	h->nlmsg_len -= 3;
	assert_int_equal(pl_dcb_parse_get(h, &d), -EBADMSG);
	/* shorter than its struct dcbmsg */
	h->nlmsg_len = NLMSG_HDRLEN + 2;
	assert_int_equal(pl_dcb_parse_get(h, &d), -EBADMSG);
	/* another command's reply */
	h->nlmsg_len = NLMSG_HDRLEN + 4;
	((struct dcbmsg *)nlmsg_data(h))->cmd = DCB_CMD_IEEE_SET;
	assert_int_equal(pl_dcb_parse_get(h, &d), -EBADMSG);
	/* no IEEE nest at all */
	((struct dcbmsg *)nlmsg_data(h))->cmd = DCB_CMD_IEEE_GET;
	assert_int_equal(pl_dcb_parse_get(h, &d), -EBADMSG);
	free(h);
}

static struct nlmsghdr *status_reply(uint8_t cmd, int attr, int val)
{
	struct nl_msg *m = dcb_reply(RTM_SETDCB, cmd);

	if (attr)
		nla_put_u8(m, attr, (uint8_t)val);
	return copy_msg(m);
}

static void test_dcb_status(void **state)
{
	struct nlmsghdr *h;
	int status = 1;

	(void)state;
	/* the ACK said 0; the reply carries -EINVAL as an s8 */
	h = status_reply(DCB_CMD_IEEE_SET, DCB_ATTR_IEEE, -EINVAL);
	assert_int_equal(pl_dcb_parse_status(h, DCB_CMD_IEEE_SET, &status), 0);
	assert_int_equal(status, -EINVAL);
	free(h);
	h = status_reply(DCB_CMD_IEEE_DEL, DCB_ATTR_IEEE, 0);
	assert_int_equal(pl_dcb_parse_status(h, DCB_CMD_IEEE_DEL, &status), 0);
	assert_int_equal(status, 0);
	assert_int_equal(pl_dcb_parse_status(h, DCB_CMD_IEEE_SET, &status), -EBADMSG);
	free(h);
	h = status_reply(DCB_CMD_IEEE_SET, DCB_ATTR_IEEE, 5);
	assert_int_equal(pl_dcb_parse_status(h, DCB_CMD_IEEE_SET, &status), -EBADMSG);
	free(h);
	h = status_reply(DCB_CMD_IEEE_SET, 0, 0);
	assert_int_equal(pl_dcb_parse_status(h, DCB_CMD_IEEE_SET, &status), -EBADMSG);
	free(h);
	/* DCBX: the driver's u8, 1 for refused */
	h = status_reply(DCB_CMD_SDCBX, DCB_ATTR_DCBX, 1);
	assert_int_equal(pl_dcb_parse_status(h, DCB_CMD_SDCBX, &status), 0);
	assert_int_equal(status, -EINVAL);
	free(h);
}

static void test_dcb_transport(void **state)
{
	struct fake_dev *nic, *virt;
	struct pl_nlerr e = { 0 };
	struct pl_dcb d;

	(void)state;
	nic = fakenet_add("eth1", FAKE_DCB_NIC);
	virt = fakenet_add("eth0", FAKE_VIRTIO);
	(void)virt;
	assert_int_equal(pl_dcb_get("eth0", &d, &e), -EOPNOTSUPP);
	assert_int_equal(pl_dcb_get("eth9", &d, &e), -ENODEV);
	assert_int_equal(pl_dcb_get("eth1", &d, &e), 0);
	assert_int_equal(d.ntrust, 1);

	/* in-reply errors */
	nic->set_err[1] = EINVAL;
	d.pfc.pfc_en = 0x08;
	assert_int_equal(pl_dcb_set("eth1", DCB_CMD_IEEE_SET, &d, PL_DCB_PFC, &e), -EINVAL);
	assert_int_equal(e.err, EINVAL);
	assert_string_equal(e.msg, "reported in the DCB reply");
	assert_int_equal(nic->st.pfc.pfc_en, 0);
	/* a missing setter is skipped: the kernel says 0 */
	nic->set_err[1] = 0;
	nic->noset = PL_DCB_PFC;
	assert_int_equal(pl_dcb_set("eth1", DCB_CMD_IEEE_SET, &d, PL_DCB_PFC, &e), 0);
	assert_int_equal(nic->st.pfc.pfc_en, 0);
	/* no CAP_NET_ADMIN */
	fake_eperm = 1;
	assert_int_equal(pl_dcb_set("eth1", DCB_CMD_IEEE_SET, &d, PL_DCB_PFC, &e), -EPERM);
	assert_int_equal(pl_dcb_setdcbx("eth1", 0x09, &e), -EPERM);
	fake_eperm = 0;
	nic->set_err[4] = 1;
	assert_int_equal(pl_dcb_setdcbx("eth1", 0x0a, &e), -EINVAL);
	nic->setdcbx = false;
	assert_int_equal(pl_dcb_setdcbx("eth1", 0x0a, &e), -EOPNOTSUPP);
}

static void test_dcb_mangled(void **state)
{
	static const enum fake_mangle how[] = { FAKE_TRUNCATE, FAKE_WRONG_CMD, FAKE_NO_REPLY };
	struct pl_nlerr e = { 0 };
	struct pl_dcb d;

	(void)state;
	fakenet_add("eth1", FAKE_DCB_NIC);
	for (size_t i = 0; i < ARRAY_SIZE(how); i++) {
		fake_mangle = how[i];
		assert_int_equal(pl_dcb_get("eth1", &d, &e), -EBADMSG);
		assert_string_equal(e.msg, "malformed DCB reply");
		fake_mangle = how[i];
		assert_int_equal(pl_dcb_set("eth1", DCB_CMD_IEEE_SET, &d, PL_DCB_PFC, &e), -EBADMSG);
	}
}

/* ---- errors and extended ACKs ---- */

static void test_recorded_errors(void **state)
{
	struct nlmsghdr *h;
	char ext[256];
	size_t len;
	int err = -1;

	(void)state;
	h = fake_load_hex("nl-dcb-eopnotsupp.hex", &len);
	assert_non_null(h);
	assert_int_equal(h->nlmsg_len, len);
	assert_int_equal(pl_nl_parse_error(h, &err, ext, sizeof(ext)), 0);
	assert_int_equal(err, EOPNOTSUPP);
	assert_string_equal(ext, "");
	free(h);

	h = fake_load_hex("nl-link-mtu-extack.hex", &len);
	assert_int_equal(pl_nl_parse_error(h, &err, ext, sizeof(ext)), 0);
	assert_int_equal(err, EINVAL);
	assert_string_equal(ext, "mtu greater than device maximum");
	/* the message text cut off */
	h->nlmsg_len -= 8;
	assert_int_equal(pl_nl_parse_error(h, &err, ext, sizeof(ext)), -EBADMSG);
	free(h);

	h = fake_load_hex("nl-ethtool-eopnotsupp.hex", &len);
	assert_int_equal(pl_nl_parse_error(h, &err, ext, sizeof(ext)), 0);
	assert_int_equal(err, EOPNOTSUPP);
	free(h);

	h = fake_load_hex("nl-ack.hex", &len);
	assert_int_equal(pl_nl_parse_error(h, &err, ext, sizeof(ext)), 0);
	assert_int_equal(err, 0);
	free(h);
}

static void test_constructed_errors(void **state)
{
	struct nlmsghdr *req = copy_msg(pl_dcb_msg_get("eth0")), *h;
	char ext[256];
	int err;

	(void)state;
	/* capped: only the request's header is echoed */
	h = fake_error(EINVAL, "cannot modify an unsupported parameter", req, true);
	assert_int_equal(pl_nl_parse_error(h, &err, ext, sizeof(ext)), 0);
	assert_int_equal(err, EINVAL);
	assert_string_equal(ext, "cannot modify an unsupported parameter");
	free(h);
	h = fake_error(ENODEV, "x", req, false);
	assert_int_equal(pl_nl_parse_error(h, &err, ext, sizeof(ext)), 0);
	assert_int_equal(err, ENODEV);
	assert_string_equal(ext, "x");
	/* a positive error, and a message too short for its error */
	((struct nlmsgerr *)nlmsg_data(h))->error = 5;
	assert_int_equal(pl_nl_parse_error(h, &err, ext, sizeof(ext)), -EBADMSG);
	h->nlmsg_len = NLMSG_HDRLEN + 2;
	assert_int_equal(pl_nl_parse_error(h, &err, ext, sizeof(ext)), -EBADMSG);
	free(h);
	/* not an error message */
	assert_int_equal(pl_nl_parse_error(req, &err, ext, sizeof(ext)), -EBADMSG);
	free(req);
}

/* ---- generic netlink and ethtool ---- */

static void test_recorded_family(void **state)
{
	struct nlmsghdr *h;
	size_t len;
	int id = 0;

	(void)state;
	h = fake_load_hex("nl-genl-ctrl-ethtool.hex", &len);
	assert_int_equal(pl_genl_family_parse(h, &id), 0);
	assert_int_equal(id, 21);
	h->nlmsg_type = 99;
	assert_int_equal(pl_genl_family_parse(h, &id), -EBADMSG);
	free(h);
	assert_int_equal(pl_genl_family("ethtool", NULL), FAKE_ETHTOOL_FAMILY);
	assert_int_equal(pl_genl_family("nosuch", NULL), -EOPNOTSUPP);
}

static void test_recorded_ethtool(void **state)
{
	struct pl_eattrs v;
	struct nlmsghdr *h;
	size_t len;

	(void)state;
	h = fake_load_hex("nl-ethtool-coalesce-virtio.hex", &len);
	assert_int_equal(pl_et_parse(h, 21, &pl_et_coalesce, &v), 0);
	assert_true(pl_et_has(&v, ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX));
	assert_int_equal(v.v[ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX], 0);
	assert_false(pl_et_has(&v, ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX));
	assert_int_equal(v.v[ETHTOOL_A_COALESCE_RX_MAX_FRAMES], 1);
	assert_int_equal(v.v[ETHTOOL_A_COALESCE_TX_MAX_FRAMES], 1);
	assert_true(pl_et_has(&v, ETHTOOL_A_COALESCE_RX_USECS));
	assert_false(pl_et_has(&v, ETHTOOL_A_COALESCE_RX_USECS_IRQ));
	/* a reply of another kind, another family, or cut short */
	assert_int_equal(pl_et_parse(h, 21, &pl_et_rings, &v), -EBADMSG);
	assert_int_equal(pl_et_parse(h, 22, &pl_et_coalesce, &v), -EBADMSG);
	h->nlmsg_len -= 2;
	assert_int_equal(pl_et_parse(h, 21, &pl_et_coalesce, &v), -EBADMSG);
	free(h);

	h = fake_load_hex("nl-ethtool-rings-virtio.hex", &len);
	assert_int_equal(pl_et_parse(h, 21, &pl_et_rings, &v), 0);
	assert_int_equal(v.v[ETHTOOL_A_RINGS_RX], 256);
	assert_int_equal(v.v[ETHTOOL_A_RINGS_TX_MAX], 256);
	assert_false(pl_et_has(&v, ETHTOOL_A_RINGS_RX_MINI));
	free(h);
}

static void test_ethtool_request(void **state)
{
	struct nlattr *tb[PL_ET_MAXATTR + 1], *hb[ETHTOOL_A_HEADER_MAX + 1];
	struct pl_eattrs v = { 0 };
	struct nlmsghdr *h;

	(void)state;
	pl_et_put(&v, ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, 1);
	pl_et_put(&v, ETHTOOL_A_COALESCE_RX_USECS, 8);
	h = copy_msg(pl_et_msg(21, &pl_et_coalesce, true, "eth0", &v));
	assert_int_equal(h->nlmsg_type, 21);
	assert_int_equal(((struct genlmsghdr *)nlmsg_data(h))->cmd, ETHTOOL_MSG_COALESCE_SET);
	assert_int_equal(genlmsg_parse(h, 0, tb, PL_ET_MAXATTR, NULL), 0);
	assert_true(tb[1]->nla_type & NLA_F_NESTED);
	nla_parse_nested(hb, ETHTOOL_A_HEADER_MAX, tb[1], NULL);
	assert_string_equal(nla_get_string(hb[ETHTOOL_A_HEADER_DEV_NAME]), "eth0");
	assert_int_equal(nla_len(tb[ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX]), 1);
	assert_int_equal(nla_get_u32(tb[ETHTOOL_A_COALESCE_RX_USECS]), 8);
	assert_null(tb[ETHTOOL_A_COALESCE_TX_USECS]);
	free(h);

	/* maxima are never sent */
	memset(&v, 0, sizeof(v));
	pl_et_put(&v, ETHTOOL_A_RINGS_RX, 512);
	pl_et_put(&v, ETHTOOL_A_RINGS_RX_MAX, 4096);
	h = copy_msg(pl_et_msg(21, &pl_et_rings, true, "eth0", &v));
	genlmsg_parse(h, 0, tb, ETHTOOL_A_RINGS_MAX, NULL);
	assert_int_equal(nla_get_u32(tb[ETHTOOL_A_RINGS_RX]), 512);
	assert_null(tb[ETHTOOL_A_RINGS_RX_MAX]);
	free(h);
}

static void test_ethtool_transport(void **state)
{
	struct fake_dev *d = fakenet_add("eth0", FAKE_VIRTIO);
	struct pl_nlerr e = { 0 };
	struct pl_eattrs v = { 0 };

	(void)state;
	assert_int_equal(pl_et_get("eth0", &pl_et_pause, &v, &e), -EOPNOTSUPP);
	assert_int_equal(pl_et_get("eth7", &pl_et_rings, &v, &e), -ENODEV);
	pl_et_put(&v, ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, 1);
	assert_int_equal(pl_et_set("eth0", &pl_et_coalesce, &v, &e), -EINVAL);
	assert_string_equal(e.msg, "cannot modify an unsupported parameter");
	memset(&v, 0, sizeof(v));
	pl_et_put(&v, ETHTOOL_A_COALESCE_TX_MAX_FRAMES, 0);
	assert_int_equal(pl_et_set("eth0", &pl_et_coalesce, &v, &e), 0);
	assert_int_equal(d->coal_v.v[ETHTOOL_A_COALESCE_TX_MAX_FRAMES], 0);
	fake_mangle = FAKE_TRUNCATE;
	assert_int_equal(pl_et_get("eth0", &pl_et_coalesce, &v, &e), -EBADMSG);
	assert_string_equal(e.msg, "malformed ethtool coalesce reply");
}

/* ---- links ---- */

static void test_recorded_link(void **state)
{
	struct pl_link l;
	struct nlmsghdr *h;
	size_t len;

	(void)state;
	h = fake_load_hex("nl-link-veth.hex", &len);
	assert_int_equal(pl_link_parse(h, &l), 0);
	assert_string_equal(l.ifname, "v0");
	assert_int_equal(l.mtu, 1500);
	assert_int_equal(l.min_mtu, 68);
	assert_int_equal(l.max_mtu, 65535);
	assert_int_equal(l.ifindex, 3);
	h->nlmsg_len = NLMSG_HDRLEN + 8;
	assert_int_equal(pl_link_parse(h, &l), -EBADMSG);
	free(h);
}

static void test_link_requests(void **state)
{
	struct nlattr *tb[IFLA_MAX + 1];
	struct pl_nlerr e = { 0 };
	struct nlmsghdr *h;
	struct pl_link l;

	(void)state;
	h = copy_msg(pl_link_msg_mtu(7, 4200));
	assert_true(h->nlmsg_type == RTM_NEWLINK || h->nlmsg_type == RTM_SETLINK);
	assert_int_equal(((struct ifinfomsg *)nlmsg_data(h))->ifi_index, 7);
	nlmsg_parse(h, sizeof(struct ifinfomsg), tb, IFLA_MAX, NULL);
	assert_int_equal(nla_get_u32(tb[IFLA_MTU]), 4200);
	assert_null(tb[IFLA_IFNAME]);
	free(h);

	fakenet_add("eth0", FAKE_VIRTIO);
	assert_int_equal(pl_link_get("eth0", &l, &e), 0);
	assert_int_equal(pl_link_set_mtu(l.ifindex, 70000, &e), -EINVAL);
	assert_string_equal(e.msg, "mtu greater than device maximum");
	assert_int_equal(pl_link_get("nope", &l, &e), -ENODEV);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_dcb_get_request, setup),
		cmocka_unit_test_setup(test_dcb_set_request, setup),
		cmocka_unit_test_setup(test_dcb_parse_full, setup),
		cmocka_unit_test_setup(test_dcb_parse_app_order, setup),
		cmocka_unit_test_setup(test_dcb_parse_partial, setup),
		cmocka_unit_test_setup(test_dcb_parse_malformed, setup),
		cmocka_unit_test_setup(test_dcb_status, setup),
		cmocka_unit_test_setup(test_dcb_transport, setup),
		cmocka_unit_test_setup(test_dcb_mangled, setup),
		cmocka_unit_test_setup(test_recorded_errors, setup),
		cmocka_unit_test_setup(test_constructed_errors, setup),
		cmocka_unit_test_setup(test_recorded_family, setup),
		cmocka_unit_test_setup(test_recorded_ethtool, setup),
		cmocka_unit_test_setup(test_ethtool_request, setup),
		cmocka_unit_test_setup(test_ethtool_transport, setup),
		cmocka_unit_test_setup(test_recorded_link, setup),
		cmocka_unit_test_setup(test_link_requests, setup),
	};

	return cmocka_run_group_tests_name("netlink", tests, NULL, NULL);
}
