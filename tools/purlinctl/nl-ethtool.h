/* SPDX-License-Identifier: GPL-2.0 */
/*
 * purlinctl: ethtool generic netlink (family "ethtool", kernel 5.7+):
 * interrupt coalescing, ring sizes and link-level pause. Each kind is a
 * table of the attributes purlinctl knows, named as ethtool(8) names them.
 */
#ifndef PURLINCTL_NL_ETHTOOL_H
#define PURLINCTL_NL_ETHTOOL_H

#include <stdbool.h>
#include <stdint.h>

#include "nl.h"

#define PL_ET_MAXATTR 31

enum pl_et_type {
	PL_ET_U32,
	PL_ET_BOOL,	/* u8 0/1, "on"/"off" */
};

struct pl_et_attr {
	const char *name;
	uint16_t attr;
	uint8_t type;
	bool ro;	/* reported only (a maximum) */
};

struct pl_et_kind {
	const char *name;		/* "coalesce", "ring", "pause" */
	uint8_t get, set, reply;	/* ETHTOOL_MSG_* */
	uint16_t max;			/* highest attribute parsed */
	const struct pl_et_attr *attrs;
	size_t nattrs;
};

extern const struct pl_et_kind pl_et_coalesce;
extern const struct pl_et_kind pl_et_rings;
extern const struct pl_et_kind pl_et_pause;

/* Values by attribute number; have has bit N when attribute N is present. */
struct pl_eattrs {
	uint64_t have;
	uint32_t v[PL_ET_MAXATTR + 1];
};

static inline bool pl_et_has(const struct pl_eattrs *a, unsigned int attr)
{
	return attr <= PL_ET_MAXATTR && (a->have >> attr) & 1;
}

static inline void pl_et_put(struct pl_eattrs *a, unsigned int attr, uint32_t val)
{
	a->have |= 1ULL << attr;
	a->v[attr] = val;
}

const struct pl_et_attr *pl_et_attr_by_name(const struct pl_et_kind *k, const char *name);
const struct pl_et_attr *pl_et_attr_by_id(const struct pl_et_kind *k, unsigned int attr);

/* A GET (set false) or a SET of the attributes present in vals. */
struct nl_msg *pl_et_msg(int family, const struct pl_et_kind *k, bool set, const char *ifname,
			 const struct pl_eattrs *vals);
/* A GET reply of kind k; attributes purlinctl does not know are ignored. */
int pl_et_parse(const struct nlmsghdr *h, int family, const struct pl_et_kind *k,
		struct pl_eattrs *out);

/* Through the transport: 0 or -errno with e filled. */
int pl_et_get(const char *ifname, const struct pl_et_kind *k, struct pl_eattrs *out,
	      struct pl_nlerr *e);
int pl_et_set(const char *ifname, const struct pl_et_kind *k, const struct pl_eattrs *vals,
	      struct pl_nlerr *e);

#endif
