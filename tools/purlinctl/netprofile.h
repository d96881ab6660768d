/* SPDX-License-Identifier: GPL-2.0 */
/*
 * purlinctl: the lossless RoCE profile. The auditor grades a device item
 * by item (pass/warn/fail, the reason and the fix as `net set` arguments);
 * the tune planner is the fixes of the items that do not pass; the undo
 * file keeps the settings a tune replaced.
 */
#ifndef PURLINCTL_NETPROFILE_H
#define PURLINCTL_NETPROFILE_H

#include <stdbool.h>

#include "netcfg.h"

#define PL_PROFILE_NAME "roce-lossless"
#define PL_STATE_DIR "/var/lib/purlin"

struct pl_profile {
	int prio;		/* RoCE priority (3) */
	int dscp;		/* RoCE DSCP (26) */
	int cnp_prio;		/* 6 */
	int cnp_dscp;		/* 48 */
	bool jumbo;		/* MTU 9000 rather than 4200 */
};

void pl_profile_defaults(struct pl_profile *pr);
/* The MTU tune sets, and the least MTU check passes. */
unsigned int pl_profile_mtu(const struct pl_profile *pr);
unsigned int pl_profile_min_mtu(const struct pl_profile *pr);
/* The largest RoCE path MTU (256-4096) a netdev MTU carries. */
unsigned int pl_path_mtu(unsigned int mtu);

enum pl_grade {
	PL_PASS,
	PL_WARN,
	PL_FAIL,
	PL_NA,		/* the device has no such feature: nothing to grade */
	PL_NGRADES,
};

struct pl_check_item {
	const char *name;
	enum pl_grade grade;
	char reason[256];
	struct pl_net_patch fix;	/* `net set` arguments; empty if none exists */
	char advice[256];		/* what to do when fix is empty */
	bool dropped;			/* the device refused the fix: left out of the plan */
};

#define PL_MAX_ITEMS 16

struct pl_audit {
	size_t n;
	struct pl_check_item item[PL_MAX_ITEMS];
};

const char *pl_grade_name(enum pl_grade g);
void pl_audit(const struct pl_net *st, const struct pl_profile *pr, struct pl_audit *out);
void pl_audit_free(struct pl_audit *a);

/*
 * The tune plan: the fixes of every item that does not pass, in one patch;
 * items that cannot be fixed on this device are left in skipped.
 */
void pl_profile_plan(const struct pl_audit *a, struct pl_net_patch *fix, struct strv *skipped);
/*
 * The device refused knob k: if only optional (WARN) items set it, drop
 * them from the plan and return true; a required item makes it false.
 */
bool pl_profile_drop(struct pl_audit *a, enum pl_knob k);

/* The undo file of a device: PURLIN_STATE_DIR or /var/lib/purlin, net-IFNAME.json. */
char *pl_undo_path(const char *ifname);
/*
 * Read the operations saved for ifname; 0 (none saved: p empty), or an
 * exit code after reporting a malformed file.
 */
int pl_undo_load(const char *path, const char *ifname, struct pl_net_patch *p);
/*
 * Save undo (how to go back) merged over what path holds: an older entry
 * for the same setting wins, since it has the state before any tune.
 */
int pl_undo_save(const char *path, const char *ifname, const struct pl_net_patch *undo);

#endif
