// SPDX-License-Identifier: GPL-2.0
/*
 * In-band authentication, DH-HMAC-CHAP (NVMe Base Specification 2.x,
 * "Authentication"; TP 8006), controller side.
 *
 * A host whose hosts/<nqn> entry has a dhchap_key must authenticate every
 * queue it connects to a subsystem that lists it in allowed_hosts: the
 * Connect completion carries AUTHREQ.ATR, and until the queue has
 * authenticated every command but Authentication Send / Receive is refused
 * with Authentication Required.  One transaction on a queue:
 *
 *   host                               controller
 *   Send Negotiate (t_id, hashes, groups) ->
 *                                   <- Receive Challenge (hash, group, S1,
 *                                      C1, our DH public value)
 *   Send Reply (R1, [C2, S2], host DH value) ->
 *                                   <- Receive Success1 ([R2]) or Failure1
 *   [Send Success2] or Send Failure2 ->
 *
 * R1 = HMAC(Kh', C1' | S1 | t_id | 0 | "HostHost" | hostnqn | 0 | subsysnqn)
 * R2 = HMAC(Kc', C2' | S2 | t_id | 0 | "Controller" | subsysnqn | 0 | hostnqn)
 * where Kh' is the host key transformed with the host NQN, Kc' the
 * controller key transformed with the subsystem NQN (key types 1-3:
 * HMAC(key, nqn | "NVMe-over-Fabrics") with the type's SHA-2), and C' is
 * the challenge itself with the null group, else HMAC(H(g^xy mod p), C).
 *
 * A queue that has not authenticated within the port's connect_timeout_ms
 * of its Connect is disconnected; a transaction left half way on an
 * authenticated queue (re-authentication) is freed at the same deadline.
 */
#define pr_fmt(fmt) "purlin: " fmt

#include <crypto/algapi.h>
#include <crypto/dh.h>
#include <crypto/hash.h>
#include <crypto/kpp.h>
#include <linux/capability.h>
#include <linux/crc32.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "purlin.h"

struct purlin_auth_hash {
	u8 id;
	u8 len;
	const char *hmac;
	const char *digest;
};

static const struct purlin_auth_hash purlin_auth_hashes[] = {
	{ NVME_AUTH_HASH_SHA256, 32, "hmac(sha256)", "sha256" },
	{ NVME_AUTH_HASH_SHA384, 48, "hmac(sha384)", "sha384" },
	{ NVME_AUTH_HASH_SHA512, 64, "hmac(sha512)", "sha512" },
};

static const struct purlin_auth_hash *purlin_auth_hash(u8 id)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(purlin_auth_hashes); i++)
		if (purlin_auth_hashes[i].id == id)
			return &purlin_auth_hashes[i];
	return NULL;
}

static const struct purlin_dh_group *purlin_dh_group(u8 id)
{
	const struct purlin_dh_group *g;

	for (g = purlin_dh_groups; g->name; g++)
		if (g->id == id)
			return g;
	return NULL;
}

/* ---- configuration ------------------------------------------------------ */

int purlin_auth_hash_parse(const char *s, u8 *id)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(purlin_auth_hashes); i++) {
		if (!sysfs_streq(s, purlin_auth_hashes[i].hmac))
			continue;
		/* Said now, not at the host's first Negotiate. */
		if (!crypto_has_shash(purlin_auth_hashes[i].hmac, 0, 0)) {
			pr_info("dhchap_hash: %s is not available in this kernel\n",
				purlin_auth_hashes[i].hmac);
			return -ENOENT;
		}
		*id = purlin_auth_hashes[i].id;
		return 0;
	}
	return -EINVAL;
}

const char *purlin_auth_hash_name(u8 id)
{
	const struct purlin_auth_hash *h = purlin_auth_hash(id);

	return h ? h->hmac : "unknown";
}

int purlin_auth_dhgroup_parse(const char *s, u8 *id)
{
	const struct purlin_dh_group *g;

	if (sysfs_streq(s, "null")) {
		*id = NVME_AUTH_DHGROUP_NULL;
		return 0;
	}
	for (g = purlin_dh_groups; g->name; g++) {
		if (!sysfs_streq(s, g->name))
			continue;
		if (!crypto_has_kpp("dh", 0, 0)) {
			pr_info("dhchap_dhgroup: no Diffie-Hellman (dh) in this kernel\n");
			return -ENOENT;
		}
		*id = g->id;
		return 0;
	}
	return -EINVAL;
}

const char *purlin_auth_dhgroup_name(u8 id)
{
	const struct purlin_dh_group *g = purlin_dh_group(id);

	if (id == NVME_AUTH_DHGROUP_NULL)
		return "null";
	return g ? g->name : "unknown";
}

void purlin_host_auth_init(struct purlin_host_auth *a)
{
	memset(a, 0, sizeof(*a));
	a->hash_id = NVME_AUTH_HASH_SHA256;
	a->dhgid = NVME_AUTH_DHGROUP_NULL;
}

void purlin_host_auth_clear(struct purlin_host_auth *a)
{
	memzero_explicit(a, sizeof(*a));
}

static int purlin_b64_val(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* RFC 4648 base64 with padding; -EINVAL on anything else. */
static int purlin_b64_decode(const char *s, size_t n, u8 *out, size_t max)
{
	size_t i, o = 0;
	u32 acc = 0;
	int bits = 0, pad = 0, ret = -EINVAL;

	if (!n || n % 4)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		int v;

		if (s[i] == '=') {
			/* Only at the end, at most two. */
			if (i < n - 2)
				goto out;
			pad++;
			continue;
		}
		if (pad)
			goto out;
		v = purlin_b64_val(s[i]);
		if (v < 0)
			goto out;
		acc = acc << 6 | v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o == max)
				goto out;
			out[o++] = acc >> bits;
		}
	}
	ret = o;
out:
	memzero_explicit(&acc, sizeof(acc));	/* it held key bits */
	return ret;
}

/*
 * Parse "DHHC-1:<tt>:<base64 of key and CRC-32>:" (a trailing newline is
 * allowed).  tt is the transformation, 00 to 03; the key is 32, 48 or 64
 * bytes; the CRC-32 (little endian) must match.  Nothing is written to key
 * unless the secret is valid.
 */
int purlin_dhchap_parse(const char *s, struct purlin_dhchap_key *key)
{
	u8 raw[PURLIN_DHCHAP_MAX_KEY + 4];
	size_t n = strlen(s);
	const char *b64;
	int len, ret = -EINVAL;
	__le32 crc;

	if (n && s[n - 1] == '\n')
		n--;
	if (n + 1 > PURLIN_DHCHAP_MAX_STR || n < 12 ||
	    strncmp(s, "DHHC-1:", 7) || s[9] != ':' || s[n - 1] != ':' ||
	    s[7] != '0' || s[8] < '0' || s[8] > '3') {
		pr_info("dhchap secret: not of the form DHHC-1:0[0-3]:<base64>:\n");
		return -EINVAL;
	}
	b64 = s + 10;
	len = purlin_b64_decode(b64, n - 11, raw, sizeof(raw));
	if (len < 0) {
		pr_info("dhchap secret: bad base64\n");
		goto out;
	}
	len -= 4;
	if (len != 32 && len != 48 && len != 64) {
		pr_info("dhchap secret: key of %d bytes; 32, 48 or 64 expected\n",
			len);
		goto out;
	}
	crc = cpu_to_le32(~crc32_le(~0U, raw, len));
	if (memcmp(&crc, raw + len, 4)) {
		pr_info("dhchap secret: CRC-32 mismatch\n");
		goto out;
	}
	key->len = len;
	key->type = s[8] - '0';
	memcpy(key->key, raw, len);
	memcpy(key->str, s, n);
	key->str[n] = '\0';
	ret = 0;
out:
	memzero_explicit(raw, sizeof(raw));
	return ret;
}

/*
 * What reading dhchap_key or dhchap_ctrl_key gives (the files are 0600):
 * the secret to a reader with CAP_SYS_ADMIN, which saving the
 * configuration needs (purlinctl save, nvmetcli), else only its type,
 * "DHHC-1:<tt>:<hidden>:".  Empty when no key is set.
 */
ssize_t purlin_dhchap_show(const struct purlin_dhchap_key *key, char *page)
{
	if (!key->len)
		return sprintf(page, "\n");
	if (capable(CAP_SYS_ADMIN))
		return sprintf(page, "%s\n", key->str);
	return sprintf(page, "DHHC-1:%02u:<hidden>:\n", key->type);
}

/* Caller holds purlin_cfg_sem.  The host must authenticate: it has a key. */
bool purlin_auth_required(struct purlin_subsys *subsys, const char *hostnqn)
{
	struct purlin_host *h;

	lockdep_assert_held(&purlin_cfg_sem);
	if (subsys->type == PURLIN_SUBSYS_DISCOVERY || subsys->allow_any_host)
		return false;
	h = purlin_subsys_host(subsys, hostnqn);
	return h && h->auth.host_key.len;
}

/* A copy of the host's settings; false when it has no key (any more). */
static bool purlin_auth_host_settings(const char *hostnqn,
				      struct purlin_host_auth *a)
{
	struct purlin_host *h;
	bool found = false;

	down_read(&purlin_cfg_sem);
	list_for_each_entry(h, &purlin_hosts, entry) {
		if (strcmp(purlin_host_nqn(h), hostnqn))
			continue;
		if (h->auth.host_key.len) {
			*a = h->auth;
			found = true;
		}
		break;
	}
	up_read(&purlin_cfg_sem);
	return found;
}

/* ---- crypto ------------------------------------------------------------- */

struct purlin_kv {
	const void *p;
	size_t len;
};

/* out = HMAC(alg, key, v[0] | v[1] | ...), or a plain digest with no key. */
static int purlin_auth_mac(const char *alg, const u8 *key, unsigned int klen,
			   const struct purlin_kv *v, int nv, u8 *out)
{
	struct crypto_shash *tfm;
	struct shash_desc *desc;
	int i, ret;

	tfm = crypto_alloc_shash(alg, 0, 0);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	desc = kmalloc(sizeof(*desc) + crypto_shash_descsize(tfm), GFP_KERNEL);
	if (!desc) {
		ret = -ENOMEM;
		goto free_tfm;
	}
	desc->tfm = tfm;
	ret = key ? crypto_shash_setkey(tfm, key, klen) : 0;
	if (!ret)
		ret = crypto_shash_init(desc);
	for (i = 0; i < nv && !ret; i++)
		ret = crypto_shash_update(desc, v[i].p, v[i].len);
	if (!ret)
		ret = crypto_shash_final(desc, out);
	kfree_sensitive(desc);
free_tfm:
	crypto_free_shash(tfm);
	return ret;
}

/* The key the responses are keyed with: transformed with nqn (types 1-3). */
static int purlin_auth_transform(const struct purlin_dhchap_key *key,
				 const char *nqn, u8 *out, unsigned int *len)
{
	const struct purlin_auth_hash *h;
	struct purlin_kv v[] = {
		{ nqn, strlen(nqn) },
		{ "NVMe-over-Fabrics", 17 },
	};

	if (!key->type) {
		memcpy(out, key->key, key->len);
		*len = key->len;
		return 0;
	}
	h = purlin_auth_hash(key->type);
	*len = h->len;
	return purlin_auth_mac(h->hmac, key->key, key->len, v, ARRAY_SIZE(v),
			       out);
}

/*
 * The transaction on one queue; sq->auth_lock.  It is freed when it ends:
 * on success, after Failure1 or Failure2, and at the queue's deadline.
 */
enum purlin_auth_step {
	PURLIN_AUTH_SEND_CHALLENGE,	/* the next Receive gets it */
	PURLIN_AUTH_WAIT_REPLY,
	PURLIN_AUTH_SEND_SUCCESS1,
	PURLIN_AUTH_WAIT_SUCCESS2,	/* bidirectional */
	PURLIN_AUTH_SEND_FAILURE1,
};

/*
 * Negotiates a queue may send before it authenticates (again): a peer that
 * only starts transactions (each a Diffie-Hellman key generation) is
 * refused after that, and its deadline ends the queue.
 */
#define PURLIN_AUTH_MAX_NEGOTIATES	4

struct purlin_sq_auth {
	enum purlin_auth_step step;
	u8 reason;			/* Failure1 reason code explanation */
	u16 tid;
	u32 s1;
	u32 s2;
	bool bidi;
	const struct purlin_auth_hash *hash;
	const struct purlin_dh_group *group;	/* NULL: the null group */
	struct purlin_host_auth keys;	/* the host's, at Negotiate */
	u8 c1[PURLIN_DHCHAP_MAX_HASH];
	u8 r2[PURLIN_DHCHAP_MAX_HASH];	/* our response to C2 */
	struct crypto_kpp *kpp;
	u8 *pub;			/* our public value, group->len */
	u8 *skey;			/* g^xy mod p, group->len */
};

static void purlin_auth_free(struct purlin_sq_auth *a)
{
	if (!a)
		return;
	if (a->kpp)
		crypto_free_kpp(a->kpp);
	kfree(a->pub);
	kfree_sensitive(a->skey);
	kfree_sensitive(a);
}

static int purlin_kpp_run(struct crypto_kpp *tfm, const u8 *in,
			  unsigned int in_len, u8 *out, unsigned int out_len)
{
	struct scatterlist src, dst;
	struct kpp_request *req;
	DECLARE_CRYPTO_WAIT(wait);
	int ret;

	req = kpp_request_alloc(tfm, GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	if (in)
		sg_init_one(&src, in, in_len);
	sg_init_one(&dst, out, out_len);
	kpp_request_set_input(req, in ? &src : NULL, in_len);
	kpp_request_set_output(req, &dst, out_len);
	kpp_request_set_callback(req, CRYPTO_TFM_REQ_MAY_BACKLOG,
				 crypto_req_done, &wait);
	if (in)
		ret = crypto_wait_req(crypto_kpp_compute_shared_secret(req),
				      &wait);
	else
		ret = crypto_wait_req(crypto_kpp_generate_public_key(req),
				      &wait);
	kpp_request_free(req);
	return ret;
}

/* A fresh private exponent and our public value g^x mod p. */
static int purlin_auth_dh_start(struct purlin_sq_auth *a)
{
	const struct purlin_dh_group *g = a->group;
	static const u8 two = 2;
	u8 priv[64];
	struct dh params = {
		.key = priv,
		.key_size = g->priv_len,
		.p = g->p,
		.p_size = g->len,
		.g = &two,
		.g_size = 1,
	};
	unsigned int len;
	u8 *packed;
	int ret;

	a->kpp = crypto_alloc_kpp("dh", 0, 0);
	if (IS_ERR(a->kpp)) {
		ret = PTR_ERR(a->kpp);
		a->kpp = NULL;
		return ret;
	}
	a->pub = kzalloc(g->len, GFP_KERNEL);
	if (!a->pub)
		return -ENOMEM;
	/* Top byte non-zero: an exponent of the full size. */
	do {
		get_random_bytes(priv, g->priv_len);
	} while (!priv[0]);
	len = crypto_dh_key_len(&params);
	packed = kmalloc(len, GFP_KERNEL);
	if (!packed) {
		ret = -ENOMEM;
		goto out;
	}
	ret = crypto_dh_encode_key(packed, len, &params);
	if (!ret)
		ret = crypto_kpp_set_secret(a->kpp, packed, len);
	kfree_sensitive(packed);
	if (!ret)
		ret = purlin_kpp_run(a->kpp, NULL, 0, a->pub, g->len);
out:
	memzero_explicit(priv, sizeof(priv));
	return ret;
}

/* 1 < y < p - 1, y of the group's length (big endian). */
static bool purlin_auth_dh_value_ok(const struct purlin_dh_group *g,
				    const u8 *y)
{
	unsigned int i;
	int cmp = 0;

	/* y against p - 1: p is odd, so p - 1 differs in its last byte only. */
	for (i = 0; i < g->len && !cmp; i++) {
		u8 pb = g->p[i] - (i == g->len - 1 ? 1 : 0);

		cmp = y[i] < pb ? -1 : y[i] > pb ? 1 : 0;
	}
	if (cmp >= 0)
		return false;		/* y >= p - 1 */
	for (i = 0; i < g->len - 1; i++)
		if (y[i])
			return true;
	return y[g->len - 1] > 1;
}

/* C' of the response: C itself, or HMAC(H(session key), C). */
static int purlin_auth_challenge(struct purlin_sq_auth *a, const u8 *c,
				 u8 *out)
{
	u8 hkey[PURLIN_DHCHAP_MAX_HASH];
	struct purlin_kv v = { c, a->hash->len };
	struct purlin_kv sk = { a->skey, a->group ? a->group->len : 0 };
	int ret;

	if (!a->group) {
		memcpy(out, c, a->hash->len);
		return 0;
	}
	ret = purlin_auth_mac(a->hash->digest, NULL, 0, &sk, 1, hkey);
	if (!ret)
		ret = purlin_auth_mac(a->hash->hmac, hkey, a->hash->len, &v, 1,
				      out);
	memzero_explicit(hkey, sizeof(hkey));
	return ret;
}

/* R1 (host = true) or R2 for challenge c, sequence number seq. */
static int purlin_auth_response(struct purlin_sq_auth *a, bool host,
				const u8 *c, u32 seq, const char *hostnqn,
				const char *subsysnqn, u8 *out)
{
	const struct purlin_dhchap_key *key = host ? &a->keys.host_key :
						     &a->keys.ctrl_key;
	const char *first = host ? hostnqn : subsysnqn;
	const char *second = host ? subsysnqn : hostnqn;
	u8 tkey[PURLIN_DHCHAP_MAX_HASH], cc[PURLIN_DHCHAP_MAX_HASH];
	static const u8 zero;
	__le32 s = cpu_to_le32(seq);
	__le16 t = cpu_to_le16(a->tid);
	struct purlin_kv v[] = {
		{ cc, a->hash->len },
		{ &s, 4 },
		{ &t, 2 },
		{ &zero, 1 },		/* SC_C: no secure channel */
		{ host ? "HostHost" : "Controller", host ? 8 : 10 },
		{ first, strlen(first) },
		{ &zero, 1 },
		{ second, strlen(second) },
	};
	unsigned int tlen;
	int ret;

	ret = purlin_auth_transform(key, host ? hostnqn : subsysnqn, tkey,
				    &tlen);
	if (!ret)
		ret = purlin_auth_challenge(a, c, cc);
	if (!ret)
		ret = purlin_auth_mac(a->hash->hmac, tkey, tlen, v,
				      ARRAY_SIZE(v), out);
	memzero_explicit(tkey, sizeof(tkey));
	memzero_explicit(cc, sizeof(cc));
	return ret;
}

/* ---- the transaction ---------------------------------------------------- */

/* The deadline from now; auth_lock (or no command runs on sq yet). */
static void purlin_auth_arm(struct purlin_sq *sq)
{
	unsigned long delay =
		msecs_to_jiffies(READ_ONCE(sq->port->connect_timeout_ms));

	sq->auth_deadline = jiffies + delay;
	mod_delayed_work(purlin_wq, &sq->auth_timeout, delay);
}

static void purlin_auth_timeout_work(struct work_struct *w)
{
	struct purlin_sq *sq = container_of(to_delayed_work(w),
					    struct purlin_sq, auth_timeout);
	struct purlin_ctrl *ctrl = sq->ctrl;
	bool expired;

	mutex_lock(&sq->auth_lock);
	/*
	 * An instance that was running when the deadline was moved (a new
	 * Negotiate, a failed re-authentication) leaves it to the one
	 * mod_delayed_work() queued.
	 */
	if (time_before(jiffies, sq->auth_deadline)) {
		mutex_unlock(&sq->auth_lock);
		return;
	}
	purlin_auth_free(sq->auth);
	sq->auth = NULL;
	expired = !sq->authenticated;
	mutex_unlock(&sq->auth_lock);
	if (!expired)
		return;
	pr_warn_ratelimited("controller %u (%s): queue %u not authenticated within %u ms; disconnecting\n",
			    ctrl->cntlid, ctrl->hostnqn, sq->qid,
			    READ_ONCE(sq->port->connect_timeout_ms));
	if (sq->qid == 0)
		purlin_ctrl_fatal(ctrl);
	else
		ctrl->ops->disconnect_sq(sq);
}

void purlin_auth_sq_init(struct purlin_sq *sq)
{
	sq->auth_required = false;
	sq->auth_negotiates = 0;
	sq->authenticated = false;
	sq->auth = NULL;
	mutex_init(&sq->auth_lock);
	INIT_DELAYED_WORK(&sq->auth_timeout, purlin_auth_timeout_work);
}

/* The queue's Connect succeeded and it must authenticate: the deadline. */
void purlin_auth_connected(struct purlin_sq *sq)
{
	mutex_lock(&sq->auth_lock);
	purlin_auth_arm(sq);
	mutex_unlock(&sq->auth_lock);
}

/* No command runs on the queue any more; sq->ctrl is still set. */
void purlin_auth_sq_exit(struct purlin_sq *sq)
{
	cancel_delayed_work_sync(&sq->auth_timeout);
	purlin_auth_free(sq->auth);
	sq->auth = NULL;
	mutex_destroy(&sq->auth_lock);
}

static const char *const purlin_auth_reasons[] = {
	[NVME_AUTH_DHCHAP_FAILURE_FAILED] = "authentication failed",
	[NVME_AUTH_DHCHAP_FAILURE_NOT_USABLE] = "no DH-HMAC-CHAP in the Negotiate",
	[NVME_AUTH_DHCHAP_FAILURE_CONCAT_MISMATCH] = "secure channel concatenation asked",
	[NVME_AUTH_DHCHAP_FAILURE_HASH_UNUSABLE] = "the host does not offer dhchap_hash",
	[NVME_AUTH_DHCHAP_FAILURE_DHGROUP_UNUSABLE] = "the host does not offer dhchap_dhgroup",
	[NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD] = "incorrect payload",
	[NVME_AUTH_DHCHAP_FAILURE_INCORRECT_MESSAGE] = "message out of order",
};

/* End the transaction with Failure1 (reason) on the next Receive. */
static void purlin_auth_fail(struct purlin_sq *sq, u8 reason)
{
	struct purlin_sq_auth *a = sq->auth;

	lockdep_assert_held(&sq->auth_lock);
	pr_info_ratelimited("controller %u (%s): queue %u: Failure1: %s\n",
			    sq->ctrl->cntlid, sq->ctrl->hostnqn, sq->qid,
			    purlin_auth_reasons[reason]);
	a->step = PURLIN_AUTH_SEND_FAILURE1;
	a->reason = reason;
}

/* The transaction failed or was abandoned: the queue must start again. */
static void purlin_auth_end(struct purlin_sq *sq, bool failed)
{
	lockdep_assert_held(&sq->auth_lock);
	purlin_auth_free(sq->auth);
	sq->auth = NULL;
	if (failed && sq->authenticated) {
		/* A failed re-authentication: the queue is closed again. */
		WRITE_ONCE(sq->authenticated, false);
		purlin_auth_arm(sq);
	}
}

static void purlin_auth_negotiate(struct purlin_sq *sq, const u8 *buf,
				  u32 len)
{
	const struct nvmf_auth_dhchap_negotiate_data *d = (const void *)buf;
	const struct nvmf_auth_dhchap_protocol_descriptor *p = NULL;
	struct purlin_ctrl *ctrl = sq->ctrl;
	struct purlin_sq_auth *a;
	bool hash_ok = false, group_ok = false;
	int i, ret;

	lockdep_assert_held(&sq->auth_lock);
	purlin_auth_free(sq->auth);
	sq->auth = a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return;
	a->tid = le16_to_cpu(d->t_id);
	if (d->sc_c) {
		purlin_auth_fail(sq, NVME_AUTH_DHCHAP_FAILURE_CONCAT_MISMATCH);
		return;
	}
	if (!d->napd || len < sizeof(*d) + d->napd * sizeof(*p)) {
		purlin_auth_fail(sq, NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD);
		return;
	}
	for (i = 0; i < d->napd; i++) {
		if (d->auth_protocol[i].dhchap.authid == NVME_AUTH_DHCHAP_AUTH_ID) {
			p = &d->auth_protocol[i].dhchap;
			break;
		}
	}
	if (!p) {
		purlin_auth_fail(sq, NVME_AUTH_DHCHAP_FAILURE_NOT_USABLE);
		return;
	}
	if (p->halen > 30 || p->dhlen > 30) {
		purlin_auth_fail(sq, NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD);
		return;
	}
	if (!purlin_auth_host_settings(ctrl->hostnqn, &a->keys)) {
		pr_info_ratelimited("controller %u (%s): authentication refused: the host has no key\n",
				    ctrl->cntlid, ctrl->hostnqn);
		purlin_auth_fail(sq, NVME_AUTH_DHCHAP_FAILURE_FAILED);
		return;
	}
	for (i = 0; i < p->halen; i++)
		hash_ok |= p->idlist[i] == a->keys.hash_id;
	for (i = 0; i < p->dhlen; i++)
		group_ok |= p->idlist[30 + i] == a->keys.dhgid;
	if (!hash_ok) {
		purlin_auth_fail(sq, NVME_AUTH_DHCHAP_FAILURE_HASH_UNUSABLE);
		return;
	}
	if (!group_ok) {
		purlin_auth_fail(sq, NVME_AUTH_DHCHAP_FAILURE_DHGROUP_UNUSABLE);
		return;
	}
	a->hash = purlin_auth_hash(a->keys.hash_id);
	a->group = purlin_dh_group(a->keys.dhgid);
	/* Not guessable from another queue's; zero is not a sequence number. */
	do {
		a->s1 = get_random_u32();
	} while (!a->s1);
	get_random_bytes(a->c1, a->hash->len);
	if (a->group) {
		ret = purlin_auth_dh_start(a);
		if (ret) {
			pr_warn_ratelimited("controller %u: %s: error %d\n",
					    ctrl->cntlid, a->group->name, ret);
			purlin_auth_fail(sq, NVME_AUTH_DHCHAP_FAILURE_FAILED);
			return;
		}
	}
	a->step = PURLIN_AUTH_SEND_CHALLENGE;
}

static void purlin_auth_reply(struct purlin_sq *sq, const u8 *buf, u32 len)
{
	const struct nvmf_auth_dhchap_reply_data *d = (const void *)buf;
	struct purlin_ctrl *ctrl = sq->ctrl;
	struct purlin_sq_auth *a = sq->auth;
	unsigned int hl = a->hash->len;
	unsigned int dhvlen = a->group ? a->group->len : 0;
	const u8 *y = d->rval + 2 * hl;
	u8 r1[PURLIN_DHCHAP_MAX_HASH];
	int ret;

	lockdep_assert_held(&sq->auth_lock);
	/*
	 * S2 must be non-zero when the host asks the controller to
	 * authenticate; without that it may be anything (Linux hosts since
	 * 6.6 always send one).
	 */
	if (d->hl != hl || le16_to_cpu(d->dhvlen) != dhvlen ||
	    len != sizeof(*d) + 2 * hl + dhvlen || d->cvalid > 1 ||
	    (d->cvalid && !d->seqnum)) {
		purlin_auth_fail(sq, NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD);
		return;
	}
	if (d->cvalid && !a->keys.ctrl_key.len) {
		pr_info_ratelimited("controller %u (%s): the host asks the controller to authenticate, and it has no dhchap_ctrl_key\n",
				    ctrl->cntlid, ctrl->hostnqn);
		purlin_auth_fail(sq, NVME_AUTH_DHCHAP_FAILURE_FAILED);
		return;
	}
	if (a->group) {
		if (!purlin_auth_dh_value_ok(a->group, y)) {
			pr_info_ratelimited("controller %u (%s): invalid DH value\n",
					    ctrl->cntlid, ctrl->hostnqn);
			purlin_auth_fail(sq, NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD);
			return;
		}
		a->skey = kzalloc(dhvlen, GFP_KERNEL);
		ret = a->skey ? purlin_kpp_run(a->kpp, y, dhvlen, a->skey,
					       dhvlen) : -ENOMEM;
		if (ret) {
			purlin_auth_fail(sq, NVME_AUTH_DHCHAP_FAILURE_FAILED);
			return;
		}
	}
	ret = purlin_auth_response(a, true, a->c1, a->s1, ctrl->hostnqn,
				   ctrl->subsys->subsysnqn, r1);
	if (ret || crypto_memneq(r1, d->rval, hl)) {
		memzero_explicit(r1, sizeof(r1));
		pr_info_ratelimited("controller %u (%s): queue %u: authentication failed%s\n",
				    ctrl->cntlid, ctrl->hostnqn, sq->qid,
				    ret ? " (crypto error)" : "");
		purlin_auth_fail(sq, NVME_AUTH_DHCHAP_FAILURE_FAILED);
		return;
	}
	memzero_explicit(r1, sizeof(r1));
	if (d->cvalid) {
		a->bidi = true;
		a->s2 = le32_to_cpu(d->seqnum);
		ret = purlin_auth_response(a, false, d->rval + hl, a->s2,
					   ctrl->hostnqn,
					   ctrl->subsys->subsysnqn, a->r2);
		if (ret) {
			purlin_auth_fail(sq, NVME_AUTH_DHCHAP_FAILURE_FAILED);
			return;
		}
	}
	a->step = PURLIN_AUTH_SEND_SUCCESS1;
}

static void purlin_auth_succeeded(struct purlin_sq *sq)
{
	struct purlin_sq_auth *a = sq->auth;
	struct purlin_ctrl *ctrl = sq->ctrl;

	lockdep_assert_held(&sq->auth_lock);
	if (sq->qid == 0)
		pr_info_ratelimited("controller %u (%s): %sauthenticated (%s, %s%s)\n",
				    ctrl->cntlid, ctrl->hostnqn,
				    sq->authenticated ? "re-" : "",
				    a->hash->hmac,
				    a->group ? a->group->name : "null",
				    a->bidi ? ", bidirectional" : "");
	WRITE_ONCE(sq->authenticated, true);
	sq->auth_negotiates = 0;
	cancel_delayed_work(&sq->auth_timeout);
	/* The transaction and its secrets are of no more use. */
	purlin_auth_free(a);
	sq->auth = NULL;
}

/* A message from the host; an NVMe status when the command itself fails. */
static u16 purlin_auth_host_msg(struct purlin_sq *sq, const u8 *buf, u32 len)
{
	const struct nvmf_auth_dhchap_failure_data *h = (const void *)buf;
	struct purlin_sq_auth *a = sq->auth;

	lockdep_assert_held(&sq->auth_lock);
	if (len < 6)
		return NVME_SC_INVALID_FIELD | PURLIN_DNR;
	if (h->auth_type == NVME_AUTH_COMMON_MESSAGES &&
	    h->auth_id == NVME_AUTH_DHCHAP_MESSAGE_NEGOTIATE) {
		if (len < sizeof(struct nvmf_auth_dhchap_negotiate_data))
			return NVME_SC_INVALID_FIELD | PURLIN_DNR;
		if (sq->auth_negotiates >= PURLIN_AUTH_MAX_NEGOTIATES) {
			pr_info_ratelimited("controller %u (%s): queue %u: %u authentications started and none succeeded; refusing more\n",
					    sq->ctrl->cntlid, sq->ctrl->hostnqn,
					    sq->qid, sq->auth_negotiates);
			/*
			 * On an authenticated queue too: it is closed
			 * again, and its deadline ends it.
			 */
			purlin_auth_end(sq, true);
			return NVME_SC_CMD_SEQ_ERROR | PURLIN_DNR;
		}
		purlin_auth_negotiate(sq, buf, len);
		if (!sq->auth)
			return NVME_SC_INTERNAL;
		sq->auth_negotiates++;
		if (sq->authenticated)	/* re-authentication: bounded too */
			purlin_auth_arm(sq);
		return 0;
	}
	/* Everything else belongs to a transaction. */
	if (!a) {
		/*
		 * The Linux host sends Success2 after a unidirectional
		 * transaction too, when this side already ended it.
		 */
		if (sq->authenticated &&
		    h->auth_type == NVME_AUTH_DHCHAP_MESSAGES &&
		    h->auth_id == NVME_AUTH_DHCHAP_MESSAGE_SUCCESS2)
			return 0;
		return NVME_SC_CMD_SEQ_ERROR | PURLIN_DNR;
	}
	if (le16_to_cpu(h->t_id) != a->tid) {
		if (a->step != PURLIN_AUTH_SEND_FAILURE1)
			purlin_auth_fail(sq, NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD);
		return 0;
	}
	if (h->auth_id == NVME_AUTH_DHCHAP_MESSAGE_FAILURE2) {
		/* The host gave up (either message type is taken). */
		pr_info_ratelimited("controller %u (%s): queue %u: the host ended authentication (Failure2, reason %u/%u)\n",
				    sq->ctrl->cntlid, sq->ctrl->hostnqn, sq->qid,
				    len >= sizeof(*h) ? h->rescode : 0,
				    len >= sizeof(*h) ? h->rescode_exp : 0);
		purlin_auth_end(sq, true);
		return 0;
	}
	if (a->step == PURLIN_AUTH_SEND_FAILURE1)
		return 0;		/* already failed: Failure1 is next */
	if (h->auth_type != NVME_AUTH_DHCHAP_MESSAGES)
		goto bad_message;
	switch (h->auth_id) {
	case NVME_AUTH_DHCHAP_MESSAGE_REPLY:
		if (a->step != PURLIN_AUTH_WAIT_REPLY)
			goto bad_message;
		if (len < sizeof(struct nvmf_auth_dhchap_reply_data)) {
			purlin_auth_fail(sq, NVME_AUTH_DHCHAP_FAILURE_INCORRECT_PAYLOAD);
			return 0;
		}
		purlin_auth_reply(sq, buf, len);
		return 0;
	case NVME_AUTH_DHCHAP_MESSAGE_SUCCESS2:
		if (a->step == PURLIN_AUTH_WAIT_SUCCESS2) {
			purlin_auth_succeeded(sq);
			return 0;
		}
		goto bad_message;
	}
bad_message:
	purlin_auth_fail(sq, NVME_AUTH_DHCHAP_FAILURE_INCORRECT_MESSAGE);
	return 0;
}

/*
 * The message for the host's Receive into buf (PURLIN_AUTH_MAX_LEN bytes):
 * its length, or 0 with *status set.  The transaction moves on only once
 * the host has it (purlin_auth_ctrl_msg_sent()).
 */
static u32 purlin_auth_ctrl_msg(struct purlin_sq *sq, u8 *buf, u16 *status)
{
	struct purlin_sq_auth *a = sq->auth;
	u32 len;

	lockdep_assert_held(&sq->auth_lock);
	if (!a || a->step == PURLIN_AUTH_WAIT_REPLY ||
	    a->step == PURLIN_AUTH_WAIT_SUCCESS2) {
		*status = NVME_SC_CMD_SEQ_ERROR | PURLIN_DNR;
		return 0;
	}
	switch (a->step) {
	case PURLIN_AUTH_SEND_CHALLENGE: {
		struct nvmf_auth_dhchap_challenge_data *d = (void *)buf;
		unsigned int dhvlen = a->group ? a->group->len : 0;

		d->auth_type = NVME_AUTH_DHCHAP_MESSAGES;
		d->auth_id = NVME_AUTH_DHCHAP_MESSAGE_CHALLENGE;
		d->t_id = cpu_to_le16(a->tid);
		d->hl = a->hash->len;
		d->hashid = a->hash->id;
		d->dhgid = a->group ? a->group->id : NVME_AUTH_DHGROUP_NULL;
		d->dhvlen = cpu_to_le16(dhvlen);
		d->seqnum = cpu_to_le32(a->s1);
		memcpy(d->cval, a->c1, a->hash->len);
		if (dhvlen)
			memcpy(d->cval + a->hash->len, a->pub, dhvlen);
		len = sizeof(*d) + a->hash->len + dhvlen;
		return len;
	}
	case PURLIN_AUTH_SEND_SUCCESS1: {
		struct nvmf_auth_dhchap_success1_data *d = (void *)buf;

		d->auth_type = NVME_AUTH_DHCHAP_MESSAGES;
		d->auth_id = NVME_AUTH_DHCHAP_MESSAGE_SUCCESS1;
		d->t_id = cpu_to_le16(a->tid);
		d->hl = a->hash->len;
		len = sizeof(*d);
		if (a->bidi) {
			d->rvalid = 1;
			memcpy(d->rval, a->r2, a->hash->len);
			len += a->hash->len;
		}
		return len;
	}
	default: {	/* PURLIN_AUTH_SEND_FAILURE1 */
		struct nvmf_auth_dhchap_failure_data *d = (void *)buf;

		d->auth_type = NVME_AUTH_COMMON_MESSAGES;
		d->auth_id = NVME_AUTH_DHCHAP_MESSAGE_FAILURE1;
		d->t_id = cpu_to_le16(a->tid);
		d->rescode = NVME_AUTH_DHCHAP_FAILURE_REASON_FAILED;
		d->rescode_exp = a->reason;
		return sizeof(*d);
	}
	}
}

/* The host has the message purlin_auth_ctrl_msg() built: the next step. */
static void purlin_auth_ctrl_msg_sent(struct purlin_sq *sq)
{
	struct purlin_sq_auth *a = sq->auth;

	lockdep_assert_held(&sq->auth_lock);
	switch (a->step) {
	case PURLIN_AUTH_SEND_CHALLENGE:
		a->step = PURLIN_AUTH_WAIT_REPLY;
		break;
	case PURLIN_AUTH_SEND_SUCCESS1:
		if (a->bidi)
			a->step = PURLIN_AUTH_WAIT_SUCCESS2;
		else
			purlin_auth_succeeded(sq);
		break;
	case PURLIN_AUTH_SEND_FAILURE1:
		purlin_auth_end(sq, true);
		break;
	default:
		WARN_ON_ONCE(1);
	}
}

static void purlin_auth_work(struct work_struct *w)
{
	struct purlin_req *req = container_of(w, struct purlin_req, work);
	struct purlin_sq *sq = req->sq;
	u32 len = req->data_len;
	u16 status = 0;
	u8 *buf;

	buf = kzalloc(PURLIN_AUTH_MAX_LEN, GFP_KERNEL);
	if (!buf) {
		status = NVME_SC_INTERNAL;
		goto done;
	}
	if (req->to_host) {
		u32 n;

		/*
		 * A Receive too short for the message leaves the transaction
		 * where it was: the host may ask again.  (Once copied, the
		 * data is the transport's to deliver; if it cannot, the
		 * queue is torn down.)
		 */
		mutex_lock(&sq->auth_lock);
		n = purlin_auth_ctrl_msg(sq, buf, &status);
		if (!status && n > len)
			status = NVME_SC_INVALID_FIELD | PURLIN_DNR;
		/* The rest of the host's buffer is zeroed, not left over. */
		if (!status)
			status = purlin_copy_to_sg(req, 0, buf, len);
		if (!status)
			purlin_auth_ctrl_msg_sent(sq);
		mutex_unlock(&sq->auth_lock);
	} else {
		status = purlin_copy_from_sg(req, 0, buf, len);
		if (!status) {
			mutex_lock(&sq->auth_lock);
			status = purlin_auth_host_msg(sq, buf, len);
			mutex_unlock(&sq->auth_lock);
		}
	}
	kfree_sensitive(buf);
done:
	clear_bit(PURLIN_SQ_AUTH_BUSY, &sq->flags);
	purlin_req_complete(req, status);
}

static void purlin_execute_auth(struct purlin_req *req)
{
	/*
	 * Diffie-Hellman takes a while: not in the transport's context,
	 * and not among keep-alive and teardown work on purlin_wq (the
	 * deadline work there only waits for auth_lock).  The
	 * host sends one message and waits for the answer: a queue with
	 * several in flight is refused the others (cleared by
	 * purlin_auth_work()).
	 */
	if (test_and_set_bit(PURLIN_SQ_AUTH_BUSY, &req->sq->flags)) {
		purlin_req_complete(req, NVME_SC_CMD_SEQ_ERROR | PURLIN_DNR);
		return;
	}
	INIT_WORK(&req->work, purlin_auth_work);
	queue_work(purlin_auth_wq, &req->work);
}

/* Authentication Send or Receive, on any queue of a controller. */
u16 purlin_parse_auth(struct purlin_req *req)
{
	struct nvmf_auth_common_command *c = &req->cmd->auth_common;
	u32 len = le32_to_cpu(c->al_tl);

	if (!req->sq->auth_required)
		return NVME_SC_INVALID_FIELD | PURLIN_DNR;
	if (c->secp != NVME_AUTH_DHCHAP_PROTOCOL_IDENTIFIER ||
	    c->spsp0 != 0x01 || c->spsp1 != 0x01 ||
	    !len || len > PURLIN_AUTH_MAX_LEN)
		return NVME_SC_INVALID_FIELD | PURLIN_DNR;
	req->data_len = len;
	req->to_host = c->fctype == nvme_fabrics_type_auth_receive;
	req->execute = purlin_execute_auth;
	return 0;
}
