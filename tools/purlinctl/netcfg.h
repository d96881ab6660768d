/* SPDX-License-Identifier: GPL-2.0 */
/*
 * purlinctl: a network device's tuning state and changes to it.
 *
 * A change is a patch: a list of operations in the setter grammar of
 * `purlinctl net set` ("pfc prio-pfc 3:on", "mtu 4200"). Patches are
 * parsed from arguments, applied to a state read from the device (read-
 * modify-write), derived as the difference of two states, and printed
 * back as arguments; the undo file, the dry-run plan and the fixes of
 * `net check` are all patches. Executing a change applies one knob at a
 * time, reads it back, and undoes the knobs already applied on failure.
 */
#ifndef PURLINCTL_NETCFG_H
#define PURLINCTL_NETCFG_H

#include <stdbool.h>
#include <stdint.h>

#include "netsys.h"
#include "nl-dcb.h"
#include "nl-ethtool.h"
#include "nl-link.h"
#include "util.h"

/* In the order they are applied. */
enum pl_knob {
	PL_K_DCBX,
	PL_K_PAUSE,
	PL_K_ETS,
	PL_K_PFC,
	PL_K_APP,
	PL_K_TRUST,
	PL_K_MTU,
	PL_K_RING,
	PL_K_COAL,
	PL_K_ECN,
	PL_K_CNP,
	PL_K_TOS,
	PL_NKNOBS
};

enum pl_field {
	PL_F_VALUE,		/* dcbx, mtu, roce-tos; ethtool attributes by idx */
	PL_F_WILLING,		/* ets */
	PL_F_TSA,		/* ets, idx tc */
	PL_F_BW,		/* ets, idx tc */
	PL_F_PRIO_TC,		/* ets, idx prio */
	PL_F_PFC_EN,		/* pfc, idx prio */
	PL_F_MBC,		/* pfc */
	PL_F_DELAY,		/* pfc */
	PL_F_APP_ADD,
	PL_F_APP_DEL,
	PL_F_APP_REPLACE,	/* parsed only: del the protocol's others, add */
	PL_F_TRUST,		/* list */
	PL_F_ECN,		/* idx prio or -1 (all): np and rp */
	PL_F_ECN_NP,
	PL_F_ECN_RP,
	PL_F_CNP_DSCP,
	PL_F_CNP_PRIO,
};

struct pl_net_op {
	uint8_t knob;
	uint8_t field;
	int16_t idx;		/* priority, tc, ethtool attribute; -1 all */
	uint32_t val;
	struct dcb_app app;
	uint8_t list[PL_DCB_MAX_TRUST];
	uint8_t nlist;
};

struct pl_net_patch {
	struct pl_net_op *v;
	size_t n;
};

/* A device as read; *_err are positive errnos of the part's GET. */
struct pl_net {
	struct pl_link link;
	int speed;		/* Mb/s, -1 unknown */
	char driver[64];
	int dcb_err;
	struct pl_dcb dcb;
	int coal_err, ring_err, pause_err;
	struct pl_eattrs coal, ring, pause;
	struct pl_rdma rdma;
	struct pl_ecn ecn;
};

extern const char *const pl_knob_names[PL_NKNOBS];

/* Read everything; fails (with e) only when the link cannot be read. */
int pl_net_read(const char *ifname, struct pl_net *st, struct pl_nlerr *e);
/* Traffic classes of the device (ets_cap, 8 when it does not say). */
int pl_net_tcs(const struct pl_net *st);
/* "eth0 (driver virtio_net)" */
const char *pl_net_who(const struct pl_net *st);
/* st as `net show` prints it, in text or JSON (print.h; netshow.c). */
void pl_net_show(const struct pl_net *st);

void pl_patch_add(struct pl_net_patch *p, const struct pl_net_op *op);
void pl_patch_cat(struct pl_net_patch *p, const struct pl_net_patch *more);
void pl_patch_free(struct pl_net_patch *p);

/* Setter arguments into p; 0 or PL_EXIT_USAGE (reported under cmd). */
int pl_net_parse(const char *cmd, int argc, char **argv, struct pl_net_patch *p);
/* The same from one string split on blanks. */
int pl_net_parse_str(const char *cmd, const char *line, struct pl_net_patch *p);

/*
 * want = have with p applied. Returns 0, or -errno with why naming the
 * knob ("pfc: not supported by eth0 (driver virtio_net)").
 */
int pl_net_apply(const struct pl_net *have, const struct pl_net_patch *p, struct pl_net *want,
		 char *why, size_t len);

/* The operations that turn from into to (all knobs, or just knob k). */
void pl_net_diff(const struct pl_net *from, const struct pl_net *to, struct pl_net_patch *out);
void pl_net_diff_knob(const struct pl_net *from, const struct pl_net *to, enum pl_knob k,
		      struct pl_net_patch *out);

/* Knob k (dcbx, ets or pfc) of st in full, every priority and class. */
void pl_net_describe(const struct pl_net *st, enum pl_knob k, struct pl_net_patch *out);

/* p as setter arguments; consecutive operations of a knob share its keyword. */
void pl_net_format(const struct pl_net_patch *p, struct strv *args);
char *pl_net_format_str(const struct pl_net_patch *p);
/* The same without the keyword of knob k in front: "prio-pfc 3:on" for pfc. */
char *pl_net_format_knob(const struct pl_net_patch *p, enum pl_knob k);
/* Do a and b set the same thing (knob, field, index or APP entry)? */
bool pl_net_op_same_key(const struct pl_net_op *a, const struct pl_net_op *b);

/*
 * Change the device from have to want knob by knob, verifying each by
 * reading it back; on failure the knobs already changed are set back.
 * Errors are reported as "purlinctl: net IFNAME: KNOB ...: ...". have is
 * updated to what the device reads. Returns 0 or -errno, with the knob
 * that failed in *failed (when not NULL).
 */
int pl_net_execute(struct pl_net *have, const struct pl_net *want, enum pl_knob *failed);

#endif
