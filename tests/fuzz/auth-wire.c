// SPDX-License-Identifier: GPL-2.0
/*
 * nvmf-wire "auth": a hostile DH-HMAC-CHAP peer.  The target must require
 * authentication of the host (--auth-hostnqn, with a dhchap_key and the
 * ffdhe2048 group) on the subsystem (--auth-subnqn); the host never knows
 * the key.  Checked: Connect carries AUTHREQ.ATR; other commands are
 * refused before authentication; bad Authentication Send / Receive
 * fields; a short Negotiate; wrong transaction IDs and replays; Reply with
 * bad lengths and DH values 0, 1, p-1 and p; messages out of order; a
 * wrong response; Failure2 with another t_id; a Receive too short for the
 * challenge leaves it to be read again; the fifth Negotiate on a queue that
 * never authenticated is refused; a peer that stops after the challenge is
 * dropped.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmf-wire.h"

#define FCTYPE_AUTH_SEND	0x05
#define FCTYPE_AUTH_RECV	0x06
#define AUTHREQ_ATR		(1u << 17)
#define R_FAILED		1	/* Failure1 reason code explanations */
#define R_PAYLOAD		6
#define R_MESSAGE		7
/* Negotiates the target takes on a queue that has not authenticated. */
#define MAX_NEGOTIATES		4

static const char p2048_hex[] =
	"ffffffffffffffffadf85458a2bb4a9aafdc5620273d3cf1d8b9c583ce2d3695"
	"a9e13641146433fbcc939dce249b3ef97d2fe363630c75d8f681b202aec4617a"
	"d3df1ed5d5fd65612433f51f5f066ed0856365553ded1af3b557135e7f57c935"
	"984f0c70e0e68b77e2a689daf3efe8721df158a136ade73530acca4f483a797a"
	"bc0ab182b324fb61d108a94bb2c8e3fbb96adab760d7f4681d4f42a3de394df4"
	"ae56ede76372bb190b07a7c8ee0a6d709e02fce1cdf7e2ecc03404cd28342f61"
	"9172fe9ce98583ff8e4f1232eef28183c3fe3b1b4c6fad733bb5fcbc2ec22005"
	"c58ef1837d1683b2c6f34a26c1b2effa886b423861285c97ffffffffffffffff";

struct aw {
	struct nw_queue q;
	const struct nw_target *t;
	int negs;			/* Negotiates sent on this queue */
	char *why;
	size_t whylen;
	int fails;
	uint8_t p[256];
};

static void awfail(struct aw *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void awfail(struct aw *a, const char *fmt, ...)
{
	size_t n = strlen(a->why);
	va_list ap;

	if (n && n + 2 < a->whylen) {
		strcpy(a->why + n, "; ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(a->why + n, a->whylen - n, fmt, ap);
	va_end(ap);
	a->fails++;
}

/* Authentication Send (len bytes of q->data) or Receive (into q->data). */
static int auth_cmd(struct aw *a, bool recv, uint32_t len, uint8_t secp,
		    uint16_t *st)
{
	struct nvme_sqe sqe;
	struct nw_done d;
	struct nw_xfer x = { .sgl = len ? NW_SGL_KEYED : NW_SGL_NONE,
			     .off = 0, .len = len };

	nw_sqe_init(&sqe, NVME_OPC_FABRICS);
	((uint8_t *)&sqe)[4] = recv ? FCTYPE_AUTH_RECV : FCTYPE_AUTH_SEND;
	sqe.cdw10 = htole32((uint32_t)secp << 24 | 1u << 16 | 1u << 8);
	sqe.cdw11 = htole32(len);
	if (nw_exec(&a->q, &sqe, &x, &d, 30000))
		return -1;
	*st = nw_status(&d) & SC_MASK;
	return 0;
}

static int open_queue(struct aw *a);

/* A Send; a Negotiate beyond the target's limit goes on a new queue. */
static int send_msg(struct aw *a, uint32_t len, uint16_t *st)
{
	if (len >= 2 && a->q.data[0] == 0 && a->q.data[1] == 0) {
		if (a->negs == MAX_NEGOTIATES) {
			uint8_t m[72];

			memcpy(m, a->q.data, sizeof(m));
			nw_close(&a->q);
			if (open_queue(a))
				return -1;
			memcpy(a->q.data, m, sizeof(m));
		}
		a->negs++;
	}
	return auth_cmd(a, false, len, 0xe9, st);
}

/* Receive into q->data; 0 and the message, or -1 (a failure noted). */
static int recv_msg(struct aw *a, const char *what)
{
	uint16_t st;

	memset(a->q.data, 0xa5, 4096);
	if (auth_cmd(a, true, 4096, 0xe9, &st)) {
		awfail(a, "%s: Receive: %s", what, nw_err);
		return -1;
	}
	if (st) {
		awfail(a, "%s: Receive status %#x", what, st);
		return -1;
	}
	return 0;
}

static void put16(uint8_t *p, uint16_t v) { p[0] = v; p[1] = v >> 8; }
static uint16_t get16(const uint8_t *p) { return p[0] | p[1] << 8; }

static void negotiate(struct aw *a, uint16_t tid, uint8_t napd)
{
	uint8_t *m = a->q.data;

	memset(m, 0, 72);
	m[0] = 0;		/* common messages */
	m[1] = 0;		/* Negotiate */
	put16(m + 4, tid);
	m[7] = napd;
	m[8] = 1;		/* DH-HMAC-CHAP */
	m[10] = 1;		/* one hash */
	m[11] = 2;		/* two groups */
	m[12] = 1;		/* SHA-256 */
	m[12 + 30] = 0;		/* null */
	m[12 + 31] = 1;		/* ffdhe2048 */
}

/* Expect Failure1 with reason explanation want on the next Receive. */
static void expect_failure1(struct aw *a, const char *what, int want)
{
	const uint8_t *m = a->q.data;

	if (recv_msg(a, what))
		return;
	if (m[0] != 0 || m[1] != 0xf1)
		awfail(a, "%s: got message %02x/%02x, not Failure1", what,
		       m[0], m[1]);
	else if (m[7] != want)
		awfail(a, "%s: Failure1 reason %u, not %u", what, m[7], want);
}

/* Negotiate then the challenge; its DH value is kept in y (256 bytes). */
static int start(struct aw *a, uint16_t tid, const char *what, uint8_t *y,
		 uint32_t *s1)
{
	const uint8_t *m = a->q.data;
	uint16_t st;

	negotiate(a, tid, 1);
	if (send_msg(a, 72, &st) || st) {
		awfail(a, "%s: Negotiate: %s", what, st ? "status" : nw_err);
		return -1;
	}
	if (recv_msg(a, what))
		return -1;
	if (m[0] != 1 || m[1] != 1 || get16(m + 4) != tid || m[6] != 32 ||
	    m[8] != 1 || m[9] != 1 || get16(m + 10) != 256) {
		awfail(a, "%s: not the expected challenge (%02x/%02x t_id %u hl %u hash %u group %u dhvlen %u)",
		       what, m[0], m[1], get16(m + 4), m[6], m[8], m[9],
		       get16(m + 10));
		return -1;
	}
	if (y)
		memcpy(y, m + 16 + 32, 256);
	if (s1)
		*s1 = m[12] | m[13] << 8 | m[14] << 16 | (uint32_t)m[15] << 24;
	return 0;
}

/* A Reply: hl bytes of (wrong) response, DH value y of dhvlen bytes. */
static uint32_t reply(struct aw *a, uint16_t tid, uint8_t hl,
		      const uint8_t *y, uint16_t dhvlen)
{
	uint8_t *m = a->q.data;

	memset(m, 0, 16 + 2 * hl + dhvlen);
	m[0] = 1;
	m[1] = 2;
	put16(m + 4, tid);
	m[6] = hl;
	put16(m + 10, dhvlen);
	memset(m + 16, 0x5a, hl);
	memcpy(m + 16 + 2 * hl, y, dhvlen);
	return 16 + 2 * hl + dhvlen;
}

/* A Failure2 (the host gives up: authentication failed); its length. */
static uint32_t failure2(struct aw *a, uint16_t tid)
{
	uint8_t *m = a->q.data;

	memset(m, 0, 8);
	m[1] = 0xf0;
	put16(m + 4, tid);
	m[6] = 1;
	m[7] = 1;
	return 8;
}

static void reply_case(struct aw *a, uint16_t tid, const char *what,
		       const uint8_t *y, uint8_t hl, uint16_t reply_tid,
		       int want)
{
	uint8_t ty[256];
	uint16_t st;

	if (start(a, tid, what, ty, NULL))
		return;
	if (send_msg(a, reply(a, reply_tid, hl, y ? y : ty, 256), &st) || st) {
		awfail(a, "%s: Reply: %s", what, st ? "status" : nw_err);
		return;
	}
	expect_failure1(a, what, want);
}

static int open_queue(struct aw *a)
{
	const struct nw_target *t = a->t;
	struct nw_conn_opts o = { .qid = 0, .hrqsize = 32, .hsqsize = 31 };
	struct nw_connect_args ca = { .sqsize = 31, .cntlid = 0xffff };
	uint16_t st;
	uint32_t res;
	int rej;

	if (nw_connect(&a->q, t, &o, &rej) ||
	    nw_fabrics_connect(&a->q, t, &ca, &st, &res)) {
		awfail(a, "connect: %s", nw_err);
		return -1;
	}
	if (st) {
		awfail(a, "Connect refused: status %#x", st);
		return -1;
	}
	if (!(res & AUTHREQ_ATR)) {
		awfail(a, "Connect result %#x without AUTHREQ.ATR", res);
		return -1;
	}
	a->negs = 0;
	return 0;
}

static void expect_status(struct aw *a, const char *what, int got, uint16_t st,
			  uint16_t want)
{
	if (got)
		awfail(a, "%s: %s", what, nw_err);
	else if (st != want)
		awfail(a, "%s: status %#x, not %#x", what, st, want);
}

int nw_auth_hostile(const struct nw_target *t, int drop_ms, char *why,
		    size_t whylen)
{
	struct aw a = { .t = t, .why = why, .whylen = whylen };
	uint8_t y[256];
	uint64_t v;
	uint16_t st;
	int i, r;

	for (i = 0; i < 256; i++)
		sscanf(p2048_hex + 2 * i, "%2hhx", &a.p[i]);
	if (open_queue(&a))
		goto out;

	/* Nothing but authentication before authenticating. */
	r = nw_prop_get(&a.q, NVME_REG_CAP, true, &v, &st);
	expect_status(&a, "Property Get before authentication", r,
		      st & SC_MASK, SC_AUTH_REQUIRED);
	r = nw_identify(&a.q, 1, 0, 0, &st);
	expect_status(&a, "Identify before authentication", r, st & SC_MASK,
		      SC_AUTH_REQUIRED);
	r = nw_prop_set(&a.q, NVME_REG_CC, 0x460001, &st);
	expect_status(&a, "Property Set CC.EN before authentication", r,
		      st & SC_MASK, SC_AUTH_REQUIRED);

	/* Command fields. */
	r = auth_cmd(&a, true, 4096, 0xe9, &st);
	expect_status(&a, "Receive before Negotiate", r, st, SC_CMD_SEQ_ERROR);
	r = auth_cmd(&a, false, 72, 0x00, &st);
	expect_status(&a, "Send with SECP 0", r, st, SC_INVALID_FIELD);
	r = auth_cmd(&a, false, 0, 0xe9, &st);
	expect_status(&a, "Send of 0 bytes", r, st, SC_INVALID_FIELD);
	r = auth_cmd(&a, false, 8192, 0xe9, &st);
	expect_status(&a, "Send of 8 KiB", r, st, SC_INVALID_FIELD);
	r = auth_cmd(&a, true, 1 << 20, 0xe9, &st);
	expect_status(&a, "Receive of 1 MiB", r, st, SC_INVALID_FIELD);

	/* Negotiate without a protocol: Failure1, incorrect payload. */
	negotiate(&a, 1, 0);
	if (!send_msg(&a, 8, &st) && !st)
		expect_failure1(&a, "Negotiate without protocols", R_PAYLOAD);
	else
		awfail(&a, "short Negotiate: Send failed");
	r = auth_cmd(&a, true, 4096, 0xe9, &st);
	expect_status(&a, "Receive after Failure1", r, st, SC_CMD_SEQ_ERROR);

	/* Replies with bad fields and DH values. */
	reply_case(&a, 2, "Reply with another t_id", NULL, 32, 99, R_PAYLOAD);
	reply_case(&a, 3, "Reply with hl 48", NULL, 48, 3, R_PAYLOAD);
	memset(y, 0, sizeof(y));
	reply_case(&a, 4, "DH value 0", y, 32, 4, R_PAYLOAD);
	y[255] = 1;
	reply_case(&a, 5, "DH value 1", y, 32, 5, R_PAYLOAD);
	memcpy(y, a.p, 256);
	reply_case(&a, 6, "DH value p", y, 32, 6, R_PAYLOAD);
	y[255] -= 1;
	reply_case(&a, 7, "DH value p-1", y, 32, 7, R_PAYLOAD);
	memset(y, 0xff, sizeof(y));
	reply_case(&a, 8, "DH value 2^2048-1", y, 32, 8, R_PAYLOAD);
	/* A well-formed Reply with a response made up: authentication fails. */
	reply_case(&a, 9, "a made-up response", NULL, 32, 9, R_FAILED);

	/* Out of order: a Reply before the challenge was read; Success2. */
	negotiate(&a, 10, 1);
	if (!send_msg(&a, 72, &st) && !st &&
	    !send_msg(&a, reply(&a, 10, 32, a.p, 256), &st) && !st)
		expect_failure1(&a, "Reply before the challenge", R_MESSAGE);
	else
		awfail(&a, "Reply before the challenge: Send failed");
	if (!start(&a, 11, "Success2 for Reply", NULL, NULL)) {
		memset(a.q.data, 0, 16);
		a.q.data[0] = 1;
		a.q.data[1] = 4;
		put16(a.q.data + 4, 11);
		if (send_msg(&a, 16, &st) || st)
			awfail(&a, "Success2 out of order: Send failed");
		else
			expect_failure1(&a, "Success2 instead of Reply",
					R_MESSAGE);
	}
	/* A replayed Reply (an earlier transaction's) after a new Negotiate. */
	if (!start(&a, 12, "replay", y, NULL)) {
		reply(&a, 9, 32, y, 256);
		if (send_msg(&a, 16 + 64 + 256, &st) || st)
			awfail(&a, "replay: Send failed");
		else
			expect_failure1(&a, "a replayed Reply", R_PAYLOAD);
	}
	/* Failure2 of another transaction: Failure1; of this one: ended. */
	if (!start(&a, 13, "Failure2", NULL, NULL)) {
		if (send_msg(&a, failure2(&a, 14), &st) || st)
			awfail(&a, "Failure2 with another t_id: Send failed");
		else
			expect_failure1(&a, "Failure2 with another t_id",
					R_PAYLOAD);
	}
	if (!start(&a, 15, "Failure2", NULL, NULL)) {
		r = send_msg(&a, failure2(&a, 15), &st);
		expect_status(&a, "Failure2", r, st, 0);
		r = auth_cmd(&a, true, 4096, 0xe9, &st);
		expect_status(&a, "Receive after Failure2", r, st,
			      SC_CMD_SEQ_ERROR);
	}
	/* A Receive too short for the challenge: refused, read again. */
	negotiate(&a, 16, 1);
	if (send_msg(&a, 72, &st) || st) {
		awfail(&a, "short Receive: Negotiate failed");
	} else {
		r = auth_cmd(&a, true, 64, 0xe9, &st);
		expect_status(&a, "Receive of 64 bytes for the challenge", r,
			      st, SC_INVALID_FIELD);
		if (!recv_msg(&a, "the challenge after a short Receive") &&
		    (a.q.data[1] != 1 || get16(a.q.data + 4) != 16))
			awfail(&a, "after a short Receive: message %02x/%02x t_id %u, not the challenge",
			       a.q.data[0], a.q.data[1],
			       get16(a.q.data + 4));
	}
	/* Still refused. */
	r = nw_prop_get(&a.q, NVME_REG_VS, false, &v, &st);
	expect_status(&a, "Property Get after the failures", r, st & SC_MASK,
		      SC_AUTH_REQUIRED);

	/* The queue's Negotiates are counted: past the limit, refused. */
	while (a.negs < MAX_NEGOTIATES) {
		negotiate(&a, 17, 1);
		r = send_msg(&a, 72, &st);
		expect_status(&a, "Negotiate within the limit", r, st, 0);
		if (r)
			break;
	}
	negotiate(&a, 18, 1);
	r = auth_cmd(&a, false, 72, 0xe9, &st);
	expect_status(&a, "a Negotiate past the limit", r, st,
		      SC_CMD_SEQ_ERROR);
	nw_close(&a.q);

	/* A peer that stops after the challenge: the target drops it. */
	if (open_queue(&a))
		goto out;
	if (!start(&a, 20, "stop half way", NULL, NULL) &&
	    nw_wait_cm_disconnect(&a.q, drop_ms))
		awfail(&a, "a queue stopped after the challenge was not dropped within %d ms",
		       drop_ms);
	nw_abort(&a.q);
out:
	nw_abort(&a.q);
	return a.fails ? -1 : 0;
}
