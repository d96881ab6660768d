/* SPDX-License-Identifier: GPL-2.0 */
/*
 * purlinctl: what a netdev has outside netlink: its driver, the RDMA ports
 * on top of it, the RDMA CM default ToS (configfs) and the vendor ECN /
 * DCQCN knobs (sysfs, debugfs, configfs; there is no common interface).
 */
#ifndef PURLINCTL_NETSYS_H
#define PURLINCTL_NETSYS_H

#include <stdbool.h>
#include <stddef.h>

#include "nl.h"
#include "util.h"

/* Prefix of every /sys path ("" normally; the unit tests use a tree). */
extern const char *pl_sys_root;

#define PL_MAX_RDMA 8

struct pl_rdma_port {
	char ibdev[64];
	int port;
	char state[32];		/* "ACTIVE" */
	char link_layer[32];	/* "Ethernet" */
	bool tos_group;		/* rdma_cm configfs group exists */
	int tos;		/* default_roce_tos (0 without a group) */
};

struct pl_rdma {
	size_t n;
	struct pl_rdma_port port[PL_MAX_RDMA];
	bool cm_cfs;		/* /sys/kernel/config/rdma_cm exists */
};

/* How a vendor exposes ECN/DCQCN; NULL entries are knobs it lacks. */
struct pl_ecn_backend {
	const char *name;
	bool hex;		/* values are written as 0x.. */
	const char *np, *rp;	/* per-priority enables, "%d" is the priority */
	const char *enable;	/* one global enable */
	const char *roce_prio;	/* the priority a global enable applies to */
	const char *cnp_dscp, *cnp_prio;
	const char *apply;	/* written 1 after a change */
};

struct pl_ecn {
	const struct pl_ecn_backend *be;	/* NULL: no knob */
	char dir[256];
	char why[256];		/* without a backend: why, and what would give one */
	int np[8], rp[8];	/* -1: unknown */
	int enable, roce_prio, cnp_dscp, cnp_prio;	/* -1: no such knob */
};

/* The link speed in Mb/s (sysfs "speed"), or -1 when unknown (no carrier, virtual). */
int pl_sys_speed(const char *ifname);
/* The names in /sys/class/net, sorted. */
void pl_sys_netdevs(struct strv *out);
/* Driver of ifname ("" for a virtual device without one). */
void pl_sys_driver(const char *ifname, char *buf, size_t len);
/* The RDMA ports whose netdev is ifname. */
void pl_sys_rdma(const char *ifname, struct pl_rdma *out);
/* Set the RDMA CM default ToS of one port (creating its configfs group). */
int pl_sys_set_tos(const struct pl_rdma_port *p, int tos, struct pl_nlerr *e);

void pl_ecn_read(const char *ifname, const char *driver, const struct pl_rdma *rdma,
		 struct pl_ecn *out);
/* Write the knobs whose values differ between cur and want. */
int pl_ecn_write(const struct pl_ecn *cur, const struct pl_ecn *want, struct pl_nlerr *e);

#endif
