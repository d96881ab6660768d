/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-band authentication (DH-HMAC-CHAP, NVMe Base Specification 2.x,
 * "Authentication"): per-host secrets and the per-queue transaction.
 * auth.c, Documentation/design.md "Authentication".
 */
#ifndef PURLIN_AUTH_H
#define PURLIN_AUTH_H

#include <linux/mutex.h>
#include <linux/nvme.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#define PURLIN_DHCHAP_MAX_KEY		64	/* secret bytes: 32, 48 or 64 */
#define PURLIN_DHCHAP_MAX_HASH		64	/* SHA-512 */
/* "DHHC-1:tt:" + base64 of 68 bytes + ":" and a NUL, rounded up. */
#define PURLIN_DHCHAP_MAX_STR		112
/* Largest Authentication Send / Receive transfer taken or given. */
#define PURLIN_AUTH_MAX_LEN		4096

struct purlin_sq;
struct purlin_subsys;
struct purlin_req;

/* An RFC 7919 group (auth-groups.c). */
struct purlin_dh_group {
	u8 id;				/* NVME_AUTH_DHGROUP_* */
	const char *name;
	const u8 *p;			/* prime, big endian */
	unsigned int len;		/* bytes of p and of public values */
	unsigned int priv_len;		/* private exponent bytes */
};
extern const struct purlin_dh_group purlin_dh_groups[];

/* A DH-HMAC-CHAP secret as configured (DHHC-1 representation). */
struct purlin_dhchap_key {
	u8 len;				/* 0: no key */
	u8 type;			/* transformation: 0 none, 1-3 SHA-2 */
	u8 key[PURLIN_DHCHAP_MAX_KEY];
	char str[PURLIN_DHCHAP_MAX_STR];
};

/* A host's settings (hosts/<nqn>/dhchap_*), under purlin_cfg_sem. */
struct purlin_host_auth {
	struct purlin_dhchap_key host_key;
	struct purlin_dhchap_key ctrl_key;
	u8 hash_id;			/* NVME_AUTH_HASH_* */
	u8 dhgid;			/* NVME_AUTH_DHGROUP_* */
};

int purlin_dhchap_parse(const char *s, struct purlin_dhchap_key *key);
ssize_t purlin_dhchap_show(const struct purlin_dhchap_key *key, char *page);
int purlin_auth_hash_parse(const char *s, u8 *id);
const char *purlin_auth_hash_name(u8 id);
int purlin_auth_dhgroup_parse(const char *s, u8 *id);
const char *purlin_auth_dhgroup_name(u8 id);
void purlin_host_auth_init(struct purlin_host_auth *a);
void purlin_host_auth_clear(struct purlin_host_auth *a);

bool purlin_auth_required(struct purlin_subsys *subsys, const char *hostnqn);
void purlin_auth_sq_init(struct purlin_sq *sq);
void purlin_auth_connected(struct purlin_sq *sq);
void purlin_auth_sq_exit(struct purlin_sq *sq);
u16 purlin_parse_auth(struct purlin_req *req);

#endif /* PURLIN_AUTH_H */
