/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A simulated kernel for purlinctl's netlink code: network devices with
 * (or without) DCB, ethtool coalescing, rings and pause, answering the
 * requests the way net/dcb/dcbnl.c, net/ethtool/ and rtnetlink do,
 * in-reply DCB errors and silently skipped attributes included.
 */
#ifndef PURLIN_TEST_FAKENET_H
#define PURLIN_TEST_FAKENET_H

#include <stdbool.h>
#include <stdint.h>

#include "netcfg.h"

#define FAKE_ETHTOOL_FAMILY 21

struct fake_dev {
	char name[16];
	int ifindex;
	uint32_t mtu, min_mtu, max_mtu;
	bool dcb;		/* has dcbnl_ops */
	unsigned int ops;	/* PL_DCB_* parts the driver reports */
	unsigned int noset;	/* parts whose setter is missing: skipped silently */
	int set_err[5];		/* in-reply errno for ETS, PFC, APP, TRUST, DCBX (by bit index) */
	bool apptrust_kernel;	/* kernel 6.2+: parses the trust table */
	bool dscp_exclusive;	/* one priority per DSCP (mlx5): a new entry drops the old */
	bool setdcbx;
	struct pl_dcb st;
	bool coal, rings, pause;
	uint64_t coal_mask;	/* attributes the driver supports */
	struct pl_eattrs coal_v, ring_v, pause_v;
};

enum fake_preset {
	FAKE_VIRTIO,	/* no DCB; virtio_net's coalescing and rings */
	FAKE_DCB_NIC,	/* a RoCE NIC: IEEE ETS/PFC/APP/apptrust, DCBX, ethtool all */
};

/* Mangle the next reply: cut it inside its last attribute, or change its command. */
enum fake_mangle {
	FAKE_OK,
	FAKE_TRUNCATE,
	FAKE_WRONG_CMD,
	FAKE_NO_REPLY,
};

extern struct fake_dev fake_devs[4];
extern int fake_ndevs;
extern int fake_eperm;			/* answer every SET with -EPERM */
extern enum fake_mangle fake_mangle;	/* applied to the next reply, then reset */
extern int fake_mangle_on;		/* ... of this nlmsg_type only (0: any) */
extern char fake_log[4096];		/* one line per request that changes state */

/* Reset the devices and install the simulated kernel as the transport. */
void fakenet_install(void);
struct fake_dev *fakenet_add(const char *name, enum fake_preset preset);

/* An NLMSG_ERROR for err (positive) answering req, with ext as extended ACK. */
struct nlmsghdr *fake_error(int err, const char *ext, const struct nlmsghdr *req, bool capped);
/* Bytes of a recorded reply in tests/unit/data (hex); *len set. Caller frees. */
struct nlmsghdr *fake_load_hex(const char *name, size_t *len);

#endif
