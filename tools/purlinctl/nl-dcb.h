/* SPDX-License-Identifier: GPL-2.0 */
/*
 * purlinctl: DCB netlink in IEEE mode (RTM_GETDCB/RTM_SETDCB with a
 * struct dcbmsg header): ETS, PFC, the APP table, APP trust and DCBX.
 */
#ifndef PURLINCTL_NL_DCB_H
#define PURLINCTL_NL_DCB_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/dcbnl.h>

#include "nl.h"
#include "util.h"

/*
 * Names the Debian 6.1 uapi headers lack (apptrust arrived in 6.2); the
 * values are the kernel's ABI.
 */
#define PL_DCB_ATTR_APP_TRUST_TABLE 11	/* DCB_ATTR_DCB_APP_TRUST_TABLE */
#define PL_DCB_ATTR_DCB_APP 2		/* DCB_ATTR_DCB_APP (non-IEEE selectors) */
#define PL_DCB_APP_SEL_PCP 255		/* DCB_APP_SEL_PCP */
#define PL_IEEE_APP_SEL_MAX 255		/* IEEE_8021QAZ_APP_SEL_MAX */
#define PL_DCB_IEEE_MAX PL_DCB_ATTR_APP_TRUST_TABLE

#define PL_DCB_MAX_APPS 128
#define PL_DCB_MAX_TRUST 8

/* What a reply carried (the kernel leaves out what the driver lacks). */
enum {
	PL_DCB_ETS = 1 << 0,
	PL_DCB_PFC = 1 << 1,
	PL_DCB_APP = 1 << 2,
	PL_DCB_TRUST = 1 << 3,
	PL_DCB_DCBX = 1 << 4,
};

struct pl_dcb {
	unsigned int have;
	struct ieee_ets ets;
	struct ieee_pfc pfc;
	struct dcb_app app[PL_DCB_MAX_APPS];
	size_t napp;
	uint8_t trust[PL_DCB_MAX_TRUST];
	size_t ntrust;
	uint8_t dcbx;
};

/* IEEE_GET for ifname. */
struct nl_msg *pl_dcb_msg_get(const char *ifname);
/*
 * IEEE_SET or IEEE_DEL (cmd) carrying the parts of d named in what
 * (PL_DCB_ETS, PFC, APP: d->app entries, TRUST); whole structs always.
 */
struct nl_msg *pl_dcb_msg_set(const char *ifname, uint8_t cmd, const struct pl_dcb *d,
			      unsigned int what);
/* SDCBX with mode (DCB_CAP_DCBX_* bits). */
struct nl_msg *pl_dcb_msg_setdcbx(const char *ifname, uint8_t mode);

/* An IEEE_GET reply into out (APP entries sorted); 0 or -EBADMSG. */
int pl_dcb_parse_get(const struct nlmsghdr *h, struct pl_dcb *out);
/*
 * The status inside an IEEE_SET/IEEE_DEL/SDCBX reply: *status is 0 or a
 * negative errno (the s8 in DCB_ATTR_IEEE; a refused DCBX mode gives
 * -EINVAL). Returns 0 or -EBADMSG.
 */
int pl_dcb_parse_status(const struct nlmsghdr *h, uint8_t cmd, int *status);

/* Through the transport: 0 or -errno with e filled. */
int pl_dcb_get(const char *ifname, struct pl_dcb *out, struct pl_nlerr *e);
int pl_dcb_set(const char *ifname, uint8_t cmd, const struct pl_dcb *d, unsigned int what,
	       struct pl_nlerr *e);
int pl_dcb_setdcbx(const char *ifname, uint8_t mode, struct pl_nlerr *e);

/* Names of selectors ("dscp", "udp", ...) and TSAs ("ets", ...); NULL if unknown. */
const char *pl_dcb_sel_name(uint8_t sel);
int pl_dcb_sel_parse(const char *name);
const char *pl_dcb_tsa_name(uint8_t tsa);
int pl_dcb_tsa_parse(const char *name);
/* DCBX modes (DCB_CAP_DCBX_* bits: "host", "ieee", ...): the names of mode's bits, in bit order. */
void pl_dcb_dcbx_names(uint8_t mode, struct strv *out);
/* The bit of a name, or -1. */
int pl_dcb_dcbx_parse(const char *name);

#endif
