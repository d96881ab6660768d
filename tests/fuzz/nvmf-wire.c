// SPDX-License-Identifier: GPL-2.0
/*
 * nvmf-wire: NVMe/RDMA wire-level scenarios against a target.
 *
 * usage: nvmf-wire -a ADDR -s SVC -n SUBNQN [--hostnqn H] [--src ADDR]
 *                  [-t SECS] [-v] [--no-mw] [--duration SECS]
 *                  [--max-pending N] [--queues N] [--drop-secs N] SCENARIO...
 *        nvmf-wire -a ADDR -s SVC -n SUBNQN [--hostnqn H] fuzz --seed S
 *                  [--count N] [--time SECS] [--depth D] [--cmd-timeout MS]
 *                  [--keep-going] [--trace] [--known TAG,...]
 *                  [--auth-subnqn NQN --auth-hostnqn NQN]
 *        nvmf-wire -l
 * SCENARIO is a name from the list (-l) or "all".  Each scenario prints
 * "PASS name" or "FAIL name: why" (every finding, "; " apart); notes
 * ("note: name: ...") go to stderr.  A scenario running longer than -t
 * seconds (default 120) fails and ends the program.  The exit status is 1
 * if any scenario failed, 2 on usage errors.
 *
 * The target must export SUBNQN with namespace 1 (at least 8 MiB) and no
 * namespace 2, open to any host, on a port whose param_max_queue_size is
 * 1024.  Scenarios marked (extra) go beyond the first set.
 *
 * Scenarios marked (by name) are not part of "all": the hostile peers of
 * issue 16 (rnr-discovery, rnr-io, cm-flood, hijack, disc-ioq) and
 * small-defects.  They need the discovery controller on the same port;
 * --src connects from another local address (so that per-address limits
 * single the attacker out), --duration repeats an attack's rounds for that
 * many seconds at most (SIGUSR1 ends the attack after the round under way),
 * --max-pending (default 16, the target's param_max_pending_per_addr)
 * bounds the queues without a Fabrics Connect cm-flood may find held for
 * one address, --queues N (default 1, at most 16) stalls N queues at
 * once in rnr-discovery and rnr-io, and --drop-secs N (default 30) is how
 * long after it stalled or was accepted a queue may stay before the target
 * must have dropped it (longer on a slow kernel).
 *
 * "fuzz" is the randomized mode (fuzz.c): N iterations of mutated capsules
 * drawn from the seed, every answer checked, per-command timeout; it ends
 * with a summary line, a reproducer line and "PASS fuzz" or "FAIL fuzz:".
 * It needs the subsystem open to any host with at least one namespace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nvmf-wire.h"

struct ctx {
	struct nw_target t;
	const char *name;
	char why[1024];
	/* Hostile scenarios: repeat rounds this long; the pending bound. */
	unsigned int duration_s;
	int max_pending;
	int queues;		/* rnr-*: queues stalled at once */
	int64_t drop_ms;	/* a queue the peer stalls must be gone by then */
	/* auth: a subsystem and host that must authenticate. */
	const char *auth_subnqn;
	const char *auth_hostnqn;
};

static void note(struct ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "note: %s: ", c->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int failf(struct ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int failf(struct ctx *c, const char *fmt, ...)
{
	size_t n = strlen(c->why);
	va_list ap;

	/* Several findings in one scenario: keep them all, "; " apart. */
	if (n && n + 3 < sizeof(c->why)) {
		strcpy(c->why + n, "; ");
		n += 2;
	}
	if (n + 1 >= sizeof(c->why))
		return -1;
	va_start(ap, fmt);
	vsnprintf(c->why + n, sizeof(c->why) - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Fail with the library's last error. */
#define LIBFAIL(c, what) failf(c, "%s: %s", what, nw_err)
#define CHECK(cond, ...) \
	do { if (!(cond)) { failf(c, __VA_ARGS__); goto out; } } while (0)
#define TRY(call, what) \
	do { if (call) { LIBFAIL(c, what); goto out; } } while (0)

/* Compare status fields: DNR and SCT/SC must match, CRD/More ignored. */
static bool st_is(uint16_t got, uint16_t want)
{
	if (!want)
		return got == 0;
	return (got & (SC_DNR | SC_MASK)) == want;
}

static int64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Check the queue for protocol errors the library saw. */
static int check_proto(struct ctx *c, struct nw_queue *q, const char *what)
{
	if (q->protocol_errors)
		return failf(c, "%s: %d protocol error(s), last: %s", what,
			     q->protocol_errors, q->protocol_msg);
	return 0;
}

static void fill_pattern(uint8_t *p, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
	size_t i;

	for (i = 0; i < len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, len - i < 8 ? len - i : 8);
	}
}

/*
 * Run one command and check its status, and that nothing went wrong on
 * the wire meanwhile (a remote invalidation of the wrong key, say).
 */
static int expect_cmd(struct ctx *c, struct nw_queue *q, struct nvme_sqe *sqe,
		      const struct nw_xfer *x, uint16_t want, const char *what)
{
	int perr = q->protocol_errors;
	struct nw_done d;

	if (nw_exec(q, sqe, x, &d, 10000))
		return failf(c, "%s: %s", what, nw_err);
	if (q->protocol_errors != perr)
		return failf(c, "%s: %s", what, q->protocol_msg);
	if (!st_is(nw_status(&d), want))
		return failf(c, "%s: status %#x, expected %#x", what,
			     nw_status(&d), want);
	if (le16toh(d.cqe.sq_id) != q->qid)
		return failf(c, "%s: completion for SQ %u on queue %u", what,
			     le16toh(d.cqe.sq_id), q->qid);
	return 0;
}

/* A finding that leaves the queue usable does not end the scenario. */
#define EXPECT(q, sqe, x, want, what) \
	do { \
		if (expect_cmd(c, q, sqe, x, want, what) && nw_dead(q)) \
			goto out; \
	} while (0)

/*
 * Scenarios with an admin queue a and an I/O queue io: a finding that
 * kills a queue is recorded, a new controller is set up, and the
 * scenario goes on with the next case.
 */
static int reopen(struct ctx *c, struct nw_queue *a, struct nw_queue *io)
{
	note(c, "a queue died; continuing on a new controller");
	nw_close(io);
	nw_close(a);
	if (nw_ctrl_open(&c->t, a, io, 31, 0))
		return failf(c, "new controller after a dead queue: %s",
			     nw_err);
	return 0;
}

#define EXPECT_RE(q, sqe, x, want, what) \
	do { \
		if (expect_cmd(c, q, sqe, x, want, what) && \
		    (nw_dead(&a) || nw_dead(&io)) && reopen(c, &a, &io)) \
			goto out; \
	} while (0)

/* A fresh controller answers Property Get VS: the target is alive. */
static int healthy(struct ctx *c, const char *when)
{
	struct nw_queue a;
	uint16_t st;
	uint64_t vs;
	int ret = -1;

	if (nw_ctrl_open(&c->t, &a, NULL, 0, 0)) {
		failf(c, "target unhealthy %s: %s", when, nw_err);
		goto out;
	}
	if (nw_prop_get(&a, NVME_REG_VS, false, &vs, &st) || st) {
		failf(c, "target unhealthy %s: Property Get VS: %s", when,
		      st ? "bad status" : nw_err);
		goto out;
	}
	ret = 0;
out:
	nw_close(&a);
	return ret;
}

/* In-capsule data size from Identify Controller (IOCCSZ). */
static int ctrl_icd(struct ctx *c, struct nw_queue *admin, uint32_t *icd,
		    uint16_t *maxcmd)
{
	const uint8_t *id = admin->data;
	uint32_t ioccsz;
	uint16_t st, mc;

	if (nw_identify(admin, 1, 0, 0, &st))
		return LIBFAIL(c, "Identify Controller");
	if (st)
		return failf(c, "Identify Controller: status %#x", st);
	memcpy(&ioccsz, id + 1792, 4);
	ioccsz = le32toh(ioccsz);
	memcpy(&mc, id + 514, 2);
	if (ioccsz < 4)
		return failf(c, "IOCCSZ %u", ioccsz);
	*icd = ioccsz * 16 - 64;
	if (maxcmd)
		*maxcmd = le16toh(mc);
	return 0;
}

/* ---- qdepth-1024 ----------------------------------------------------------- */

#define QD 1024
#define BS 4096

/* Post QD commands (all before reading any completion), collect them all. */
static int batch(struct ctx *c, struct nw_queue *io, const struct nw_ns *ns,
		 uint8_t opcode, size_t base, const char *what)
{
	uint32_t nlb = BS >> ns->lba_shift;
	static bool seen[QD];
	struct nvme_sqe sqe;
	struct nw_done d;
	int64_t t0 = ms_now();
	int i, ret, inv = 0;

	memset(seen, 0, sizeof(seen));
	for (i = 0; i < QD; i++) {
		struct nw_xfer x = {
			.sgl = (i & 1) ? NW_SGL_KEYED_INV : NW_SGL_KEYED,
			.off = base + (size_t)i * BS,
			.len = BS,
		};

		nw_rw_sqe(&sqe, opcode, ns->nsid, (uint64_t)i * nlb, nlb);
		if (nw_submit(io, &sqe, &x) < 0)
			return failf(c, "%s: submitting command %d: %s", what,
				     i, nw_err);
	}
	if (nw_outstanding(io) != QD)
		return failf(c, "%s: %d outstanding after posting, expected %d",
			     what, nw_outstanding(io), QD);
	for (i = 0; i < QD; i++) {
		ret = nw_wait_cqe(io, &d, 60000);
		if (ret <= 0)
			return failf(c, "%s: after %d of %d completions: %s",
				     what, i, QD, nw_err);
		uint16_t cid = le16toh(d.cqe.cid);

		if (cid >= QD || seen[cid])
			return failf(c, "%s: completion for cid %u seen twice or unknown",
				     what, cid);
		seen[cid] = true;
		if (nw_status(&d))
			return failf(c, "%s: cid %u status %#x", what, cid,
				     nw_status(&d));
		if (le16toh(d.cqe.sq_id) != 1)
			return failf(c, "%s: cid %u: SQ id %u", what, cid,
				     le16toh(d.cqe.sq_id));
		if (le16toh(d.cqe.sq_head) > 1023)
			return failf(c, "%s: cid %u: SQ head %u beyond the queue",
				     what, cid, le16toh(d.cqe.sq_head));
		inv += d.invalidated;
	}
	if (check_proto(c, io, what))
		return -1;
	note(c, "%s: %d commands outstanding at once, all completed in %lld ms (%d remote invalidations)",
	     what, QD, (long long)(ms_now() - t0), inv);
	return 0;
}

static int sc_qdepth(struct ctx *c)
{
	struct nw_queue a = { 0 }, io = { 0 };
	struct nw_conn_opts ao = { .qid = 0, .hrqsize = 32, .hsqsize = 31 };
	struct nw_conn_opts iop = {
		.qid = 1, .hrqsize = 1024, .hsqsize = 1023, .nslots = QD,
		.data_size = 2 * QD * BS,
	};
	struct nw_connect_args ca = { .sqsize = 31, .cntlid = 0xffff };
	struct nw_ns ns;
	uint16_t st, granted, maxcmd;
	uint32_t res, icd;
	int rej, i, ret = -1;

	if (nw_connect(&a, &c->t, &ao, &rej)) {
		LIBFAIL(c, "admin CM connect");
		goto out;
	}
	CHECK(a.crqsize == 32, "admin queue: accept crqsize %u, expected 32",
	      a.crqsize);
	TRY(nw_fabrics_connect(&a, &c->t, &ca, &st, &res), "admin Connect");
	CHECK(!st, "admin Connect: status %#x", st);
	TRY(nw_enable_ctrl(&a), "enable");
	if (ctrl_icd(c, &a, &icd, &maxcmd))
		goto out;
	CHECK(maxcmd >= QD, "Identify Controller MAXCMD %u < %u", maxcmd, QD);
	TRY(nw_ns_info(&a, 1, &ns), "Identify Namespace 1");
	CHECK(ns.nsze << ns.lba_shift >= (uint64_t)QD * BS,
	      "namespace 1 too small (%llu blocks)",
	      (unsigned long long)ns.nsze);
	TRY(nw_set_num_queues(&a, 1, &granted), "Set Features");

	if (nw_connect(&io, &c->t, &iop, &rej)) {
		failf(c, "I/O queue with hsqsize 1023: %s", nw_err);
		goto out;
	}
	CHECK(io.crqsize == QD, "I/O queue: accept crqsize %u, expected %u",
	      io.crqsize, QD);
	ca.sqsize = 1023;
	ca.cntlid = a.cntlid;
	ca.qid = 1;
	TRY(nw_fabrics_connect(&io, &c->t, &ca, &st, &res), "I/O Connect");
	CHECK(!st, "I/O queue Connect with sqsize 1023: status %#x result %#x",
	      st, res);

	if (batch(c, &io, &ns, NVME_IO_READ, 0, "1024 READs"))
		goto out;

	/* Verify pass: 1024 WRITEs of distinct data, then 1024 READs. */
	for (i = 0; i < QD; i++)
		fill_pattern(io.data + (size_t)i * BS, BS, 0x5eed0000 + i);
	memset(io.data + (size_t)QD * BS, 0, (size_t)QD * BS);
	if (batch(c, &io, &ns, NVME_IO_WRITE, 0, "1024 WRITEs"))
		goto out;
	if (batch(c, &io, &ns, NVME_IO_READ, (size_t)QD * BS,
		  "1024 READs back"))
		goto out;
	for (i = 0; i < QD; i++) {
		uint8_t want[BS];

		fill_pattern(want, BS, 0x5eed0000 + i);
		CHECK(!memcmp(want, io.data + (size_t)(QD + i) * BS, BS),
		      "block %d read back differs from what was written", i);
	}
	ret = c->why[0] ? -1 : 0;
out:
	nw_close(&io);
	nw_close(&a);
	return ret;
}

/* ---- cm-reject ------------------------------------------------------------- */

static int sc_cm_reject(struct ctx *c)
{
	static const uint8_t short_pd[4] = { 0, 0, 0, 0 }; /* recfmt, qid */
	struct rc {
		const char *what;
		bool raw;
		const void *pd;
		uint8_t len;
		uint16_t recfmt, qid, hrqsize, hsqsize;
		int want;
		bool padded;	/* the IB CM pads it to zeroes */
	} cases[] = {
		{ "no private data", true, NULL, 0, 0, 0, 0, 0,
		  RDMA_CM_INVALID_LEN, true },
		{ "4 bytes of private data", true, short_pd, 4, 0, 0, 0, 0,
		  RDMA_CM_INVALID_LEN, true },
		{ "recfmt 1", false, NULL, 0, 1, 0, 32, 31,
		  RDMA_CM_INVALID_RECFMT, false },
		{ "qid 5000", false, NULL, 0, 0, 5000, 32, 31,
		  RDMA_CM_INVALID_QID, false },
		{ "hsqsize 0", false, NULL, 0, 0, 0, 32, 0,
		  RDMA_CM_INVALID_HSQSIZE, false },
		{ "hsqsize 65535", false, NULL, 0, 0, 0, 32, 65535,
		  RDMA_CM_INVALID_HSQSIZE, false },
		{ "hrqsize 0", false, NULL, 0, 0, 0, 0, 31,
		  RDMA_CM_INVALID_HRQSIZE, false },
		/* Boundaries. */
		{ "qid 129", false, NULL, 0, 0, 129, 32, 31,
		  RDMA_CM_INVALID_QID, false },
		{ "I/O hsqsize 1024 (1025 entries)", false, NULL, 0, 0, 1, 32,
		  1024, RDMA_CM_INVALID_HSQSIZE, false },
		{ "I/O hrqsize 65535", false, NULL, 0, 0, 1, 65535, 31,
		  RDMA_CM_INVALID_HRQSIZE, false },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rc *k = &cases[i];
		struct nw_conn_opts o = {
			.qid = k->qid, .recfmt = k->recfmt,
			.hrqsize = k->hrqsize, .hsqsize = k->hsqsize,
			.pdata_raw = k->raw, .pdata = k->pd,
			.pdata_len = k->len, .nslots = 4,
		};
		struct nw_queue q;
		int sts, r;

		r = nw_connect(&q, &c->t, &o, &sts);
		if (r == NW_CONN_OK) {
			nw_close(&q);
			failf(c, "%s: accepted", k->what);
			continue;
		}
		if (r != NW_CONN_REJECTED) {
			failf(c, "%s: %s", k->what, nw_err);
			continue;
		}
		if (sts == k->want)
			continue;
		/*
		 * Over the IB CM (IB and RoCE) the target always receives 56
		 * bytes of private data, zero-padded: it cannot tell missing
		 * or short data from zeroes, which read as hsqsize 0.
		 */
		if (k->padded && nw_cm_pads && sts == RDMA_CM_INVALID_HSQSIZE) {
			note(c, "%s: rejected with sts %d (INVALID_HSQSIZE): the IB CM zero-pads private data, so INVALID_LEN (1) cannot be detected on this transport",
			     k->what, sts);
			continue;
		}
		failf(c, "%s: reject sts %d, expected %d", k->what, sts,
		      k->want);
	}
	return healthy(c, "after the rejects") || c->why[0] ? -1 : 0;
}

/* ---- cmd-before-connect ------------------------------------------------------ */

static int sc_cmd_before_connect(struct ctx *c)
{
	struct nw_conn_opts ao = { .qid = 0, .hrqsize = 32, .hsqsize = 31 };
	struct nw_conn_opts iop = { .qid = 1, .hrqsize = 32, .hsqsize = 31 };
	struct nw_connect_args ca = { .sqsize = 31, .cntlid = 0xffff };
	struct nw_queue a = { 0 }, io = { 0 };
	struct nw_xfer id = { .sgl = NW_SGL_KEYED, .len = 4096 };
	struct nvme_sqe sqe;
	uint16_t st;
	uint64_t v;
	uint32_t res;
	int rej, ret = -1;

	if (nw_connect(&a, &c->t, &ao, &rej)) {
		LIBFAIL(c, "admin CM connect");
		goto out;
	}
	nw_sqe_init(&sqe, NVME_ADM_IDENTIFY);
	sqe.cdw10 = htole32(1);
	EXPECT(&a, &sqe, &id, SC_CMD_SEQ_ERROR | SC_DNR, "Identify before Connect");
	TRY(nw_prop_get(&a, NVME_REG_CAP, true, &v, &st), "Property Get");
	CHECK(st_is(st, SC_CMD_SEQ_ERROR | SC_DNR),
	      "Property Get before Connect: status %#x, expected %#x", st,
	      SC_CMD_SEQ_ERROR | SC_DNR);
	nw_sqe_init(&sqe, NVME_ADM_KEEP_ALIVE);
	EXPECT(&a, &sqe, NULL, SC_CMD_SEQ_ERROR | SC_DNR, "Keep Alive before Connect");

	/* The queue still accepts its Connect. */
	TRY(nw_fabrics_connect(&a, &c->t, &ca, &st, &res), "admin Connect");
	CHECK(!st, "admin Connect after refused commands: status %#x", st);
	/* Connected but CC.EN = 0: not ready for admin commands. */
	nw_sqe_init(&sqe, NVME_ADM_IDENTIFY);
	sqe.cdw10 = htole32(1);
	EXPECT(&a, &sqe, &id, SC_CMD_SEQ_ERROR | SC_DNR, "Identify before CC.EN=1");
	TRY(nw_enable_ctrl(&a), "enable");
	TRY(nw_set_num_queues(&a, 1, NULL), "Set Features");

	/* An I/O queue before its Connect. */
	if (nw_connect(&io, &c->t, &iop, &rej)) {
		LIBFAIL(c, "I/O CM connect");
		goto out;
	}
	nw_rw_sqe(&sqe, NVME_IO_READ, 1, 0, 1);
	id.len = 512;
	EXPECT(&io, &sqe, &id, SC_CMD_SEQ_ERROR | SC_DNR, "READ before I/O queue Connect");
	if (check_proto(c, &a, "admin queue") ||
	    check_proto(c, &io, "I/O queue"))
		goto out;
	ret = c->why[0] ? -1 : 0;
out:
	nw_close(&io);
	nw_close(&a);
	return ret;
}

/* ---- connect-bad -------------------------------------------------------------- */

static int expect_connect(struct ctx *c, struct nw_queue *q,
			  const struct nw_connect_args *ca, uint16_t want,
			  bool check_res, uint32_t want_res, const char *what)
{
	uint16_t st;
	uint32_t res;

	if (nw_fabrics_connect(q, &c->t, ca, &st, &res))
		return failf(c, "%s: %s", what, nw_err);
	if (!st_is(st, want))
		return failf(c, "%s: status %#x, expected %#x", what, st, want);
	if (check_res && (res & 0xffffff) != want_res)
		return failf(c, "%s: IATTR/IPO %#x, expected %#x (IATTR %u IPO %u)",
			     what, res & 0xffffff, want_res, want_res >> 16,
			     want_res & 0xffff);
	return 0;
}

#define IP_DATA(off)	(1u << 16 | (off))	/* IATTR 1: in the data */
#define IP_SQE(off)	(off)			/* IATTR 0: in the SQE */
#define CD_CNTLID	16
#define CD_SUBNQN	256
#define CD_HOSTNQN	512
#define SQE_QID		42
#define SQE_SQSIZE	44

/* A Connect expectation that leaves the queue usable does not end it. */
#define EXPECT_CONNECT(q, ca, want, chk, res, what) \
	do { \
		if (expect_connect(c, q, ca, want, chk, res, what) && \
		    nw_dead(q)) \
			goto out; \
	} while (0)

static int sc_connect_bad(struct ctx *c)
{
	struct nw_conn_opts ao = { .qid = 0, .hrqsize = 32, .hsqsize = 31 };
	struct nw_conn_opts iop = { .qid = 1, .hrqsize = 32, .hsqsize = 31 };
	struct nw_conn_opts io2p = { .qid = 2, .hrqsize = 32, .hsqsize = 31 };
	struct nw_queue a = { 0 }, io = { 0 }, io2 = { 0 };
	struct nw_connect_args ok = { .sqsize = 31, .cntlid = 0xffff };
	struct nw_connect_args ca;
	struct nvme_sqe sqe;
	struct nw_xfer x = { .sgl = NW_SGL_KEYED, .len = 512 };
	uint16_t st, idst, idcntlid;
	uint32_t res;
	int rej, ret = -1;
	const uint16_t inval = SC_CONNECT_INVALID_PARAM | SC_DNR;

	if (nw_connect(&a, &c->t, &ao, &rej)) {
		LIBFAIL(c, "admin CM connect");
		goto out;
	}
	ca = ok;
	ca.subnqn = "nqn.2026-11.io.purlin.test:not-exported";
	EXPECT_CONNECT(&a, &ca, inval, true, IP_DATA(CD_SUBNQN),
		       "admin Connect to a subsystem not exported");
	ca = ok;
	ca.unterminated_subnqn = true;
	EXPECT_CONNECT(&a, &ca, inval, true, IP_DATA(CD_SUBNQN),
		       "admin Connect with an unterminated SUBNQN");
	ca = ok;
	ca.unterminated_hostnqn = true;
	EXPECT_CONNECT(&a, &ca, inval, true, IP_DATA(CD_HOSTNQN),
		       "admin Connect with an unterminated HOSTNQN");
	ca = ok;
	ca.recfmt = 1;
	EXPECT_CONNECT(&a, &ca, SC_CONNECT_FORMAT | SC_DNR, false, 0,
		       "admin Connect with RECFMT 1");
	ca = ok;
	ca.sqsize = 0;
	EXPECT_CONNECT(&a, &ca, inval, true, IP_SQE(SQE_SQSIZE),
		       "admin Connect with SQSIZE 0");
	ca = ok;
	ca.sqsize = 32;		/* 33 entries on a queue of 32 */
	EXPECT_CONNECT(&a, &ca, inval, true, IP_SQE(SQE_SQSIZE),
		       "admin Connect with SQSIZE 32 > hsqsize 31");
	ca = ok;
	ca.qid = 1;
	EXPECT_CONNECT(&a, &ca, inval, true, IP_SQE(SQE_QID),
		       "Connect with QID 1 on the admin queue");

	/* A failed Connect may be retried on the same queue. */
	TRY(nw_fabrics_connect(&a, &c->t, &ok, &st, &res),
	    "admin Connect after failed ones");
	CHECK(!st, "admin Connect after failed ones: status %#x", st);
	EXPECT_CONNECT(&a, &ok, SC_CMD_SEQ_ERROR | SC_DNR, false, 0,
		       "second Connect on a connected admin queue");
	TRY(nw_enable_ctrl(&a), "enable");
	TRY(nw_identify(&a, 1, 0, 0, &idst), "Identify Controller");
	CHECK(!idst, "Identify Controller: status %#x", idst);
	memcpy(&idcntlid, a.data + 78, 2);
	CHECK(le16toh(idcntlid) == a.cntlid,
	      "Identify Controller CNTLID %u, Connect returned %u",
	      le16toh(idcntlid), a.cntlid);
	TRY(nw_set_num_queues(&a, 1, NULL), "Set Features");

	if (nw_connect(&io, &c->t, &iop, &rej)) {
		LIBFAIL(c, "I/O CM connect");
		goto out;
	}
	ca = ok;
	ca.qid = 1;
	ca.cntlid = (uint16_t)(a.cntlid + 100);
	EXPECT_CONNECT(&io, &ca, inval, true, IP_DATA(CD_CNTLID),
		       "I/O Connect to a cntlid that does not exist");
	ca.cntlid = 0xffff;
	EXPECT_CONNECT(&io, &ca, inval, true, IP_DATA(CD_CNTLID),
		       "I/O Connect with cntlid 0xffff");
	ca.cntlid = a.cntlid;
	ca.hostnqn = "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-00000000dead";
	TRY(nw_fabrics_connect(&io, &c->t, &ca, &st, &res),
	    "I/O Connect from another host NQN");
	if (!st_is(st, inval) &&
	    !st_is(st, (SC_CONNECT_INVALID_PARAM + 2) | SC_DNR))
		failf(c, "I/O Connect from another host NQN: status %#x, expected Connect Invalid Parameters or Invalid Host",
		      st);
	ca.hostnqn = NULL;
	TRY(nw_fabrics_connect(&io, &c->t, &ca, &st, &res),
	    "I/O Connect after failed ones");
	CHECK(!st, "I/O Connect after failed ones: status %#x", st);
	EXPECT_CONNECT(&io, &ca, SC_CMD_SEQ_ERROR | SC_DNR, false, 0,
		       "second Connect on a connected I/O queue");
	nw_rw_sqe(&sqe, NVME_IO_READ, 1, 0, 1);
	EXPECT(&io, &sqe, &x, 0, "READ on the I/O queue");

	/* A second queue 1 on the same controller: the qid is in use. */
	{
		struct nw_queue dup = { 0 };

		if (nw_connect(&dup, &c->t, &iop, &rej)) {
			LIBFAIL(c, "second qid 1 CM connect");
			goto out;
		}
		ca = ok;
		ca.qid = 1;
		ca.cntlid = a.cntlid;
		if (nw_fabrics_connect(&dup, &c->t, &ca, &st, &res)) {
			LIBFAIL(c, "I/O Connect for a qid in use");
		} else if (st_is(st, SC_CMD_SEQ_ERROR | SC_DNR)) {
			/* What Linux nvmet answers. */
		} else if (!st_is(st, inval)) {
			failf(c, "I/O Connect for qid 1 already in use: status %#x, expected %#x or %#x",
			      st, inval, SC_CMD_SEQ_ERROR | SC_DNR);
		} else if ((res & 0xffffff) != IP_SQE(SQE_QID)) {
			failf(c, "I/O Connect for qid 1 already in use: IATTR/IPO %#x, expected %#x (IATTR 0 IPO %u: the QID)",
			      res & 0xffffff, IP_SQE(SQE_QID), SQE_QID);
		}
		nw_close(&dup);
	}
	nw_rw_sqe(&sqe, NVME_IO_READ, 1, 0, 1);
	EXPECT(&io, &sqe, &x, 0, "READ on queue 1 after the refused duplicate");

	/* qid 2 with one I/O queue granted: the qid is the bad parameter. */
	if (nw_connect(&io2, &c->t, &io2p, &rej)) {
		LIBFAIL(c, "second I/O CM connect");
		goto out;
	}
	ca = ok;
	ca.qid = 2;
	ca.cntlid = a.cntlid;
	EXPECT_CONNECT(&io2, &ca, inval, true, IP_SQE(SQE_QID),
		       "I/O Connect for qid 2 with 1 I/O queue granted");
	if (check_proto(c, &a, "admin queue") ||
	    check_proto(c, &io, "I/O queue"))
		goto out;
	ret = c->why[0] ? -1 : 0;
out:
	nw_close(&io2);
	nw_close(&io);
	nw_close(&a);
	return ret;
}

/* ---- sgl-bad -------------------------------------------------------------------- */

static int sc_sgl_bad(struct ctx *c)
{
	struct nw_queue a = { 0 }, io = { 0 };
	const uint16_t bad_type = SC_SGL_INVALID_TYPE | SC_DNR;
	const uint16_t bad_len = SC_SGL_INVALID_DATA | SC_DNR;
	const uint16_t bad_off = SC_SGL_INVALID_OFFSET | SC_DNR;
	const uint16_t bad_field = SC_INVALID_FIELD | SC_DNR;
	static const uint8_t types[] = { 0x20, 0x30, 0x50, 0x5f };
	static const uint8_t flagses[] = { 0x00, 0x80, 0xc0, 0x41, 0x42, 0x43 };
	struct nvme_sqe sqe;
	struct nw_xfer x;
	struct nw_ns ns;
	uint32_t icd, nlb;
	char what[128];
	size_t i;
	int ret = -1;

	if (nw_ctrl_open(&c->t, &a, &io, 31, 0)) {
		LIBFAIL(c, "controller setup");
		goto out;
	}
	TRY(nw_ns_info(&a, 1, &ns), "Identify Namespace");
	if (ctrl_icd(c, &a, &icd, NULL))
		goto out;
	CHECK(icd >= 1024, "in-capsule data size %u: too small to test", icd);
	nlb = 4096 >> ns.lba_shift;

	/* Invalid descriptor types (keyed-looking otherwise). */
	for (i = 0; i < sizeof(types); i++) {
		nw_rw_sqe(&sqe, NVME_IO_READ, 1, 0, nlb);
		nw_sgl_keyed(&sqe, types[i], (uintptr_t)io.data, 4096,
			     io.dmr->rkey);
		x = (struct nw_xfer){ .sgl = NW_SGL_RAW };
		snprintf(what, sizeof(what), "READ with SGL type %#x",
			 types[i]);
		EXPECT_RE(&io, &sqe, &x, bad_type, what);
	}

	/* Keyed lengths. */
	{
		static const uint32_t lens[] = {
			(1u << 20) + 1, 2u << 20, 0xffffff,	/* > 1 MiB */
			2048, 8192, 0, 4095,			/* != 4096 */
		};

		for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			nw_rw_sqe(&sqe, NVME_IO_READ, 1, 0, nlb);
			x = (struct nw_xfer){
				.sgl = (i & 1) ? NW_SGL_KEYED_INV : NW_SGL_KEYED,
				.len = 4096, .desc_len_set = true,
				.desc_len = lens[i],
			};
			snprintf(what, sizeof(what),
				 "4 KiB READ with keyed length %#x", lens[i]);
			EXPECT_RE(&io, &sqe, &x, bad_len, what);
		}
		nw_rw_sqe(&sqe, NVME_IO_WRITE, 1, 0, nlb);
		x = (struct nw_xfer){ .sgl = NW_SGL_KEYED, .len = 4096,
				      .desc_len_set = true, .desc_len = 2048 };
		EXPECT_RE(&io, &sqe, &x, bad_len, "4 KiB WRITE with keyed length 2048");
		nw_sqe_init(&sqe, NVME_IO_FLUSH);
		sqe.nsid = htole32(1);
		x = (struct nw_xfer){ .sgl = NW_SGL_KEYED, .len = 4096 };
		EXPECT_RE(&io, &sqe, &x, bad_len, "Flush with a 4 KiB keyed SGL");
	}

	/* In-capsule data: a good one first. */
	fill_pattern(io.data, 4096, 77);
	nw_rw_sqe(&sqe, NVME_IO_WRITE, 1, 0, nlb);
	x = (struct nw_xfer){ .sgl = NW_SGL_INCAPSULE, .off = 0, .len = 4096 };
	EXPECT_RE(&io, &sqe, &x, 0, "4 KiB in-capsule WRITE");
	memset(io.data + 65536, 0, 4096);
	nw_rw_sqe(&sqe, NVME_IO_READ, 1, 0, nlb);
	x = (struct nw_xfer){ .sgl = NW_SGL_KEYED, .off = 65536, .len = 4096 };
	EXPECT_RE(&io, &sqe, &x, 0, "READ back the in-capsule WRITE");
	CHECK(!memcmp(io.data, io.data + 65536, 4096),
	      "in-capsule WRITE: data read back differs");

	{
		struct icase {
			const char *what;
			uint64_t off;
			uint32_t len;	/* descriptor length */
			uint32_t sent;	/* bytes after the SQE */
			uint32_t nlb4k;	/* command length in 4 KiB */
			uint16_t want;
		} ic[] = {
			{ "in-capsule offset icd+1", icd + 1, 4096, 4096, 1,
			  bad_off },
			{ "in-capsule offset 2^64-4096", 0xfffffffffffff000ull,
			  4096, 4096, 1, bad_off },
			{ "in-capsule offset 8 GiB", 1ull << 33, 4096, 4096, 1,
			  bad_off },
			{ "in-capsule length icd+4096", 0, icd + 4096, 4096,
			  (icd + 4096) / 4096, bad_len },
			{ "in-capsule offset 512 length icd", 512, icd, icd, 1,
			  bad_len },
			{ "in-capsule length 0xffffffff", 0, 0xffffffffu, 4096,
			  1, bad_len },
			{ "in-capsule length 4096 with 512 bytes sent", 0,
			  4096, 512, 1, bad_len },
			{ "in-capsule offset 1024 with 512 bytes sent", 1024,
			  512, 512, 1, bad_off },
			{ "in-capsule length 2048 for a 4 KiB WRITE", 0, 2048,
			  2048, 1, bad_len },
		};

		for (i = 0; i < sizeof(ic) / sizeof(ic[0]); i++) {
			nw_rw_sqe(&sqe, NVME_IO_WRITE, 1, 0,
				  ic[i].nlb4k * nlb);
			nw_sgl_data(&sqe, NVME_SGL_INCAPSULE, ic[i].off,
				    ic[i].len);
			x = (struct nw_xfer){ .sgl = NW_SGL_RAW,
					      .icd_len = ic[i].sent };
			EXPECT_RE(&io, &sqe, &x, ic[i].want,        ic[i].what);
		}
	}
	nw_rw_sqe(&sqe, NVME_IO_READ, 1, 0, nlb);
	nw_sgl_data(&sqe, NVME_SGL_INCAPSULE, 0, 4096);
	x = (struct nw_xfer){ .sgl = NW_SGL_RAW };
	EXPECT_RE(&io, &sqe, &x, bad_field, "READ with an in-capsule descriptor");

	/* PSDT other than SGL, and fused commands. */
	for (i = 0; i < sizeof(flagses); i++) {
		nw_rw_sqe(&sqe, NVME_IO_READ, 1, 0, nlb);
		x = (struct nw_xfer){ .sgl = NW_SGL_KEYED, .len = 4096 };
		/* nw_submit keeps the flags byte as set here. */
		sqe.flags = flagses[i];
		snprintf(what, sizeof(what), "READ with flags %#x", flagses[i]);
		EXPECT_RE(&io, &sqe, &x, bad_field, what);
	}

	/* The queue still works. */
	nw_rw_sqe(&sqe, NVME_IO_READ, 1, 0, nlb);
	x = (struct nw_xfer){ .sgl = NW_SGL_KEYED_INV, .len = 4096 };
	EXPECT_RE(&io, &sqe, &x, 0, "READ after the bad SGLs");
	if (check_proto(c, &io, "I/O queue"))
		goto out;
	ret = c->why[0] ? -1 : 0;
out:
	nw_close(&io);
	nw_close(&a);
	return ret;
}

/* ---- io-bad ------------------------------------------------------------------------ */

static int sc_io_bad(struct ctx *c)
{
	struct nw_queue a = { 0 }, io = { 0 };
	const uint16_t bad_ns = SC_INVALID_NS | SC_DNR;
	const uint16_t lba = SC_LBA_RANGE | SC_DNR;
	const uint16_t bad_op = SC_INVALID_OPCODE | SC_DNR;
	const uint16_t bad_field = SC_INVALID_FIELD | SC_DNR;
	static const uint32_t nsids[] = { 0, 0xffffffff, 2, 1024, 1025 };
	struct nvme_sqe sqe;
	struct nw_xfer x;
	struct nw_ns ns;
	uint32_t nlb;
	char what[128];
	size_t i;
	int ret = -1;

	if (nw_ctrl_open(&c->t, &a, &io, 31, 0)) {
		LIBFAIL(c, "controller setup");
		goto out;
	}
	TRY(nw_ns_info(&a, 1, &ns), "Identify Namespace");
	nlb = 4096 >> ns.lba_shift;

	for (i = 0; i < sizeof(nsids) / sizeof(nsids[0]); i++) {
		nw_rw_sqe(&sqe, (i & 1) ? NVME_IO_WRITE : NVME_IO_READ,
			  nsids[i], 0, nlb);
		x = (struct nw_xfer){ .sgl = NW_SGL_KEYED, .len = 4096 };
		snprintf(what, sizeof(what), "%s to nsid %#x",
			 (i & 1) ? "WRITE" : "READ", nsids[i]);
		EXPECT_RE(&io, &sqe, &x, bad_ns, what);
	}
	{
		struct lcase {
			const char *what;
			uint64_t slba;
			uint32_t nlb;
			uint16_t want;
		} lc[] = {
			{ "READ at LBA nsze", ns.nsze, 1, lba },
			{ "READ crossing the end", ns.nsze - 1, 2, lba },
			{ "READ at LBA 2^64-1", ~0ull, 1, lba },
			{ "READ at LBA 2^63", 1ull << 63, 1, lba },
			{ "READ of the last block", ns.nsze - 1, 1, 0 },
		};

		for (i = 0; i < sizeof(lc) / sizeof(lc[0]); i++) {
			uint32_t len = lc[i].nlb << ns.lba_shift;

			nw_rw_sqe(&sqe, NVME_IO_READ, 1, lc[i].slba, lc[i].nlb);
			x = (struct nw_xfer){ .sgl = NW_SGL_KEYED_INV,
					      .len = len };
			EXPECT_RE(&io, &sqe, &x, lc[i].want,        lc[i].what);
		}
	}
	/* 65536 blocks: beyond MDTS (1 MiB). */
	nw_rw_sqe(&sqe, NVME_IO_READ, 1, 0, 65536);
	x = (struct nw_xfer){ .sgl = NW_SGL_NONE };
	EXPECT_RE(&io, &sqe, &x, bad_field, "READ of 65536 blocks (beyond MDTS)");

	{
		/* Opcodes and the ONCS bit that would make them valid. */
		static const struct { uint8_t op; int oncs; } ops[] = {
			{ 0x7e, -1 }, { 0x80, -1 }, { 0xff, -1 },
			{ 0x05, 0 },	/* Compare */
			{ 0x04, 1 },	/* Write Uncorrectable */
			{ 0x09, 2 },	/* Dataset Management */
			{ 0x08, 3 },	/* Write Zeroes */
			{ 0x0d, 5 },	/* Reservation Register */
		};
		const uint8_t *id = a.data + 8192;
		uint16_t idst, oncs;

		TRY(nw_identify(&a, 1, 0, 8192, &idst), "Identify Controller");
		memcpy(&oncs, id + 520, 2);
		oncs = le16toh(oncs);
		for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
			if (ops[i].oncs >= 0 && (oncs & (1u << ops[i].oncs)))
				continue;	/* supported: not ours to test */
			nw_sqe_init(&sqe, ops[i].op);
			sqe.nsid = htole32(1);
			snprintf(what, sizeof(what), "I/O opcode %#x (ONCS %#x)",
				 ops[i].op, oncs);
			EXPECT_RE(&io, &sqe, NULL, bad_op, what);
		}
	}
	{
		/* Property Get on an I/O queue. */
		nw_sqe_init(&sqe, NVME_OPC_FABRICS);
		((uint8_t *)&sqe)[4] = NVMF_FCTYPE_PROP_GET;
		sqe.cdw11 = htole32(NVME_REG_CSTS);
		EXPECT_RE(&io, &sqe, NULL, bad_op, "Property Get on an I/O queue");
	}
	{
		/* Vendor specific, reserved, and queue creation (not on fabrics). */
		static const uint8_t ops[] = { 0xc1, 0x03, 0x01, 0x05, 0x7e };

		for (i = 0; i < sizeof(ops); i++) {
			nw_sqe_init(&sqe, ops[i]);
			snprintf(what, sizeof(what), "admin opcode %#x", ops[i]);
			EXPECT_RE(&a, &sqe, NULL, bad_op, what);
		}
	}
	/* Get Log Page, 512 bytes, of an unknown LID. */
	nw_sqe_init(&sqe, NVME_ADM_GET_LOG);
	sqe.nsid = htole32(0xffffffff);
	sqe.cdw10 = htole32(0x55 | 127u << 16);
	x = (struct nw_xfer){ .sgl = NW_SGL_KEYED_INV, .len = 512 };
	EXPECT_RE(&a, &sqe, &x, bad_field, "Get Log Page LID 0x55");
	/* ... and a known one still works. */
	sqe.cdw10 = htole32(0x02 | 127u << 16);
	EXPECT_RE(&a, &sqe, &x, 0, "Get Log Page SMART");
	nw_sqe_init(&sqe, NVME_ADM_IDENTIFY);
	sqe.cdw10 = htole32(0x55);
	x = (struct nw_xfer){ .sgl = NW_SGL_KEYED, .len = 4096 };
	EXPECT_RE(&a, &sqe, &x, bad_field, "Identify CNS 0x55");
	nw_sqe_init(&sqe, NVME_ADM_SET_FEATURES);
	sqe.cdw10 = htole32(0x55);
	EXPECT_RE(&a, &sqe, NULL, bad_field, "Set Features FID 0x55");

	/*
	 * Asynchronous Event Requests: AERL + 1 are held, one more gets
	 * "Asynchronous Event Request Limit Exceeded".  The held ones stay
	 * outstanding into the teardown.
	 */
	{
		const uint8_t *id = a.data + 4096;
		uint16_t idst;
		int aerl, k, got = 0;
		struct nw_done d;

		TRY(nw_identify(&a, 1, 0, 4096, &idst), "Identify Controller");
		aerl = id[259] + 1;
		for (k = 0; k <= aerl; k++) {
			nw_sqe_init(&sqe, 0x0c);
			if (nw_submit(&a, &sqe, NULL) < 0) {
				LIBFAIL(c, "posting an AER");
				goto out;
			}
		}
		while (nw_wait_cqe(&a, &d, got ? 300 : 5000) > 0) {
			got++;
			if ((nw_status(&d) & SC_MASK) != 0x105)
				failf(c, "AER %d of %d: status %#x, expected %#x (AER limit exceeded)",
				      le16toh(d.cqe.cid), aerl + 1,
				      nw_status(&d), 0x105 | SC_DNR);
		}
		if (got != 1)
			failf(c, "%d AERs with AERL %d: %d completed at once, expected 1",
			      aerl + 1, aerl, got);
	}

	if (check_proto(c, &a, "admin queue") ||
	    check_proto(c, &io, "I/O queue"))
		goto out;
	ret = c->why[0] ? -1 : 0;
out:
	nw_close(&io);
	nw_close(&a);
	return ret;
}

/* ---- short-capsule -------------------------------------------------------------- */

/* Wait until the target drops q; 0 if it did, describing how in *how. */
static int wait_dropped(struct nw_queue *q, int timeout_ms, char *how,
			size_t hlen)
{
	int64_t end = ms_now() + nw_scaled_ms(timeout_ms);

	while (!nw_dead(q) && ms_now() < end)
		if (nw_progress(q, 200) < 0)
			break;
	if (!nw_dead(q))
		return -1;
	snprintf(how, hlen, "%s%s%s",
		 q->disconnected ? rdma_event_str(q->cm_event_last) : "",
		 q->disconnected && (q->flushed || q->wc_errors) ? ", " : "",
		 q->wc_errors ? q->wc_error_msg :
		 q->flushed ? "completions flushed" : "");
	return 0;
}

/*
 * Send a capsule of len bytes (64 = a whole SQE; more = in-capsule bytes
 * after it; -1 = 512 bytes more than the queue's in-capsule size) on
 * stage's queue and expect the target to drop that queue.
 */
static int capsule_one(struct ctx *c, int len, int stage)
{
	static const char *const stages[] = {
		"a fresh admin queue", "a live admin queue", "a live I/O queue",
	};
	struct nw_conn_opts ao = { .qid = 0, .hrqsize = 32, .hsqsize = 31 };
	struct nw_queue a = { 0 }, io = { 0 }, *q;
	struct nvme_sqe sqe;
	struct nw_xfer x = { .sgl = NW_SGL_RAW };
	struct nw_done d;
	char how[200];
	uint32_t icd;
	int rej, ret = -1;

	if (stage == 0) {
		if (nw_connect(&a, &c->t, &ao, &rej)) {
			LIBFAIL(c, "admin CM connect");
			goto out;
		}
	} else if (nw_ctrl_open(&c->t, &a, stage == 2 ? &io : NULL, 31, 0)) {
		LIBFAIL(c, "controller setup");
		goto out;
	}
	q = stage == 2 ? &io : &a;
	if (len < 0) {
		if (ctrl_icd(c, &a, &icd, NULL))
			goto out;
		len = 64 + icd + 512;
	}
	if (len < 64) {
		x.capsule_len_set = true;
		x.capsule_len = len;
	} else {
		x.icd_len = len - 64;
	}
	if (stage == 2) {
		nw_rw_sqe(&sqe, NVME_IO_WRITE, 1, 0, 1);
		nw_sgl_data(&sqe, NVME_SGL_INCAPSULE, 0, 512);
	} else {
		nw_sqe_init(&sqe, NVME_ADM_KEEP_ALIVE);
		nw_sgl_keyed(&sqe, NVME_SGL_KEYED, 0, 0, 0);
	}
	if (nw_submit(q, &sqe, &x) < 0) {
		failf(c, "posting a %d-byte capsule: %s", len, nw_err);
		goto out;
	}
	if (wait_dropped(q, 15000, how, sizeof(how))) {
		failf(c, "%d-byte capsule on %s: queue still up after %d s",
		      len, stages[stage], nw_scaled_ms(15000) / 1000);
		goto out;
	}
	if (q->done_head != q->done_tail) {
		nw_wait_cqe(q, &d, 0);
		failf(c, "%d-byte capsule on %s: got a completion (status %#x)",
		      len, stages[stage], nw_status(&d));
		goto out;
	}
	note(c, "%d-byte capsule on %s: target dropped the queue (%s)", len,
	     stages[stage], how);
	if (stage == 2) {
		/* Losing an I/O queue leaves the controller alone. */
		uint64_t v;
		uint16_t st;

		TRY(nw_prop_get(&a, NVME_REG_CSTS, false, &v, &st),
		    "Property Get CSTS after losing the I/O queue");
		CHECK(!st && (v & 1) && !(v & 2),
		      "after losing the I/O queue: CSTS %#llx status %#x",
		      (unsigned long long)v, st);
	}
	ret = 0;
out:
	nw_close(&io);
	nw_close(&a);
	return ret;
}

static int sc_short_capsule(struct ctx *c)
{
	/* Short capsules, then oversize ones (beyond the receive buffer). */
	if (capsule_one(c, 32, 1) || capsule_one(c, 0, 0) ||
	    capsule_one(c, 63, 2) || capsule_one(c, 1, 1) ||
	    capsule_one(c, 128, 1) || capsule_one(c, -1, 2))
		return -1;
	return healthy(c, "after short capsules");
}

/* ---- abrupt ------------------------------------------------------------------------ */

static int sc_abrupt(struct ctx *c)
{
	struct nw_queue a = { 0 }, io = { 0 };
	struct nvme_sqe sqe;
	struct nw_ns ns;
	int iter, i, ret = -1;

	for (iter = 0; iter < 5; iter++) {
		if (nw_ctrl_open(&c->t, &a, &io, 127, 64 * 131072)) {
			failf(c, "iteration %d: controller setup: %s", iter,
			      nw_err);
			goto out;
		}
		if (nw_ns_info(&a, 1, &ns)) {
			failf(c, "iteration %d: %s", iter, nw_err);
			goto out;
		}
		for (i = 0; i < 64; i++) {
			/* Mostly 4 KiB, every fourth 128 KiB; odd rounds
			 * turn every third into a WRITE (RDMA READ by the
			 * target). */
			uint32_t len = (i % 4 == 0) ? 131072 : 4096;
			uint8_t op = (iter & 1) && i % 3 == 0 ?
				     NVME_IO_WRITE : NVME_IO_READ;
			struct nw_xfer x = {
				.sgl = (i & 1) ? NW_SGL_KEYED_INV : NW_SGL_KEYED,
				.off = (size_t)i * 131072,
				.len = len,
			};

			nw_rw_sqe(&sqe, op, 1, (uint64_t)i * (131072 >> ns.lba_shift),
				  len >> ns.lba_shift);
			if (nw_submit(&io, &sqe, &x) < 0) {
				failf(c, "iteration %d: submit %d: %s", iter,
				      i, nw_err);
				goto out;
			}
		}
		/*
		 * Gone, without a word, while the target moves data: once
		 * the target has every capsule (odd rounds), or at once.
		 */
		if (iter & 1) {
			if (nw_wait_sends(&io, 10000)) {
				failf(c, "iteration %d: %s", iter, nw_err);
				goto out;
			}
			note(c, "iteration %d: dropped with %d of 64 completions in", iter,
			     nw_completed(&io));
		}
		nw_abort(&io);
		nw_abort(&a);
	}
	ret = healthy(c, "after abrupt disconnects");
out:
	nw_abort(&io);
	nw_abort(&a);
	return ret;
}

/* ---- silent-peer (extra) ----------------------------------------------------------- */

static int sc_silent_peer(struct ctx *c)
{
	struct nw_queue a = { 0 }, io = { 0 };
	struct nvme_sqe sqe;
	struct nw_ns ns;
	int iter, i, ret = -1;

	if (nw_ctrl_open(&c->t, &a, NULL, 0, 0) || nw_ns_info(&a, 1, &ns)) {
		LIBFAIL(c, "namespace geometry");
		goto out;
	}
	nw_close(&a);
	/*
	 * Only the host's QP goes (no DREQ, the CM id stays): the target
	 * must notice through its failing transfers and drop the queue by
	 * itself.  WRITE commands leave target RDMA READs in flight; READ
	 * commands leave RDMA WRITEs chained before the response SENDs.
	 * The queues ask for a transport retry count of 6: the target's QP
	 * takes it from the CM REQ, and rxe retries forever with 7 (what the
	 * Linux host asks for), so it would never see its transfers fail.
	 */
	for (iter = 0; iter < 2; iter++) {
		uint8_t op = iter ? NVME_IO_READ : NVME_IO_WRITE;
		const char *kind = iter ? "READ" : "WRITE";
		int64_t t0;

		/*
		 * With a keep-alive timeout too: when every command happens
		 * to complete before the QP goes, nothing is in flight to
		 * fail, and only keep-alive expiry can tell the target.
		 */
		nw_retry_count = 6;
		ret = nw_ctrl_open_kato(&c->t, &a, &io, 127, 64 * 131072, 5000);
		nw_retry_count = 7;
		if (ret) {
			ret = -1;
			failf(c, "silent %s round: controller setup: %s", kind,
			      nw_err);
			goto out;
		}
		for (i = 0; i < 64; i++) {
			struct nw_xfer x = { .sgl = NW_SGL_KEYED,
					     .off = (size_t)i * 131072,
					     .len = 131072 };

			nw_rw_sqe(&sqe, op, 1,
				  (uint64_t)i * (131072 >> ns.lba_shift),
				  131072 >> ns.lba_shift);
			if (nw_submit(&io, &sqe, &x) < 0) {
				failf(c, "silent %s round: submit %d: %s", kind,
				      i, nw_err);
				goto out;
			}
		}
		/* The target has every capsule; data is still moving. */
		if (nw_wait_sends(&io, 10000)) {
			failf(c, "silent %s round: %s", kind, nw_err);
			goto out;
		}
		note(c, "silent %s round: QP dropped with %d of 64 completions in",
		     kind, nw_completed(&io));
		t0 = ms_now();
		nw_drop_qp(&io);
		if (nw_wait_cm_disconnect(&io, 30000))
			failf(c, "silent %s round: the target did not drop the I/O queue within 30 s of losing its peer QP (64 x 128 KiB %ss, KATO 5 s)",
			      kind, kind);
		else
			note(c, "silent %s round: target dropped the I/O queue %lld ms after the host QP vanished",
			     kind, (long long)(ms_now() - t0));
		nw_abort(&io);
		nw_abort(&a);
	}
	if (c->why[0])
		goto out;
	ret = healthy(c, "after the silent peers");
out:
	nw_abort(&io);
	nw_abort(&a);
	return ret;
}

/* ---- bad-rkey (extra) -------------------------------------------------------------- */

/*
 * A keyed SGL with a key the host never registered: the target's data
 * transfer fails, its QP goes to the error state, and it must tear the
 * queue down (so the host learns).  WRITE: the target's RDMA READ fails;
 * READ: its RDMA WRITE, chained before the response SEND, fails.
 */
static int sc_bad_rkey(struct ctx *c)
{
	static const uint8_t ops[] = { NVME_IO_WRITE, NVME_IO_READ };
	struct nw_queue a = { 0 }, io = { 0 };
	struct nvme_sqe sqe;
	struct nw_xfer x = { .sgl = NW_SGL_RAW };
	struct nw_done d;
	size_t k;
	int ret = -1;

	for (k = 0; k < sizeof(ops); k++) {
		const char *kind = ops[k] == NVME_IO_WRITE ? "WRITE" : "READ";
		int64_t t0;

		if (nw_ctrl_open(&c->t, &a, &io, 31, 0)) {
			LIBFAIL(c, "controller setup");
			goto out;
		}
		nw_rw_sqe(&sqe, ops[k], 1, 0, 8);
		nw_sgl_keyed(&sqe, NVME_SGL_KEYED, (uintptr_t)io.data, 4096,
			     io.dmr->rkey ^ 0x5a5a5a00);
		if (nw_submit(&io, &sqe, &x) < 0) {
			failf(c, "%s with a bad rkey: %s", kind, nw_err);
			goto out;
		}
		t0 = ms_now();
		if (nw_wait_cm_disconnect(&io, 15000)) {
			nw_progress(&io, 0);
			failf(c, "%s with an unregistered rkey: the target kept the I/O queue connected for %d s after its %s failed (host side: %s%s)",
			      kind, nw_scaled_ms(15000) / 1000, ops[k] == NVME_IO_WRITE ? "RDMA READ" : "RDMA WRITE",
			      io.wc_errors ? io.wc_error_msg :
			      io.flushed ? "host QP flushed" : "no error",
			      io.done_head != io.done_tail ? ", a completion arrived" : "");
		} else {
			note(c, "%s with an unregistered rkey: target dropped the queue after %lld ms",
			     kind, (long long)(ms_now() - t0));
		}
		while (io.done_head != io.done_tail) {
			nw_wait_cqe(&io, &d, 0);
			if (!nw_status(&d))
				failf(c, "%s with an unregistered rkey completed with success",
				      kind);
		}
		nw_close(&io);
		nw_close(&a);
	}
	if (healthy(c, "after the bad keys"))
		goto out;
	ret = 0;
out:
	nw_close(&io);
	nw_close(&a);
	return ret;
}

/* ---- kato (extra) ------------------------------------------------------------------ */

static int sc_kato(struct ctx *c)
{
	struct nw_queue a = { 0 }, io = { 0 };
	struct nvme_sqe sqe;
	struct nw_done d;
	int64_t t0, t1, t_last = 0;
	int i, ret = -1;

	if (nw_ctrl_open_kato(&c->t, &a, &io, 31, 0, 1000)) {
		LIBFAIL(c, "controller setup with KATO 1000");
		goto out;
	}
	/* Keep Alive every 300 ms for 3 s keeps it. */
	for (i = 0; i < 10; i++) {
		nw_sqe_init(&sqe, NVME_ADM_KEEP_ALIVE);
		t_last = ms_now();
		if (nw_exec(&a, &sqe, NULL, &d, 5000) || nw_status(&d)) {
			failf(c, "Keep Alive %d: %s", i,
			      nw_status(&d) ? "bad status" : nw_err);
			goto out;
		}
		nw_progress(&io, 300);
		CHECK(!nw_dead(&a) && !nw_dead(&io),
		      "controller dropped although Keep Alive came every 300 ms (KATO 1000)");
	}
	/* Silence: gone within 2 KATO periods (plus slack for emulation). */
	t0 = ms_now();
	while ((!nw_dead(&a) || !nw_dead(&io)) &&
	       ms_now() - t0 < nw_scaled_ms(10000)) {
		nw_progress(&a, 50);
		nw_progress(&io, 50);
	}
	/*
	 * Measured from the last Keep Alive's sending: the target cannot
	 * have seen it earlier, so no expiry may come less than KATO after
	 * it.  (From the end of the 300 ms wait after it, as before, the
	 * check asked for KATO plus that wait plus the round trip, more than
	 * a target owes: the debug kernel's 883 ms failed it.)
	 */
	t1 = ms_now() - t_last;
	CHECK(nw_dead(&a) && nw_dead(&io),
	      "controller still up 10 s after the last command with KATO 1000 (admin %s, I/O %s)",
	      nw_dead(&a) ? "dropped" : "up", nw_dead(&io) ? "dropped" : "up");
	CHECK(t1 >= 1000, "keep-alive expiry %lld ms after the last Keep Alive was sent (KATO 1000)",
	      (long long)t1);
	note(c, "silent controller dropped %lld ms after the last Keep Alive was sent (KATO 1000)",
	     (long long)t1);
	nw_close(&io);
	nw_close(&a);
	return healthy(c, "after the keep-alive expiry");
out:
	nw_close(&io);
	nw_close(&a);
	return ret;
}

/* ---- too-many ---------------------------------------------------------------------- */

static int flood(struct ctx *c, struct nw_queue *q, int n, bool io,
		 uint32_t nlb, const char *what)
{
	struct nvme_sqe sqe;
	struct nw_done d;
	int i, got = 0, bad = 0, ret;
	uint16_t first_bad = 0;
	int64_t t0 = ms_now();

	for (i = 0; i < n; i++) {
		struct nw_xfer x = { .sgl = NW_SGL_KEYED, .off = (size_t)i * 4096,
				     .len = 4096 };

		if (io) {
			nw_rw_sqe(&sqe, NVME_IO_READ, 1, (uint64_t)i * nlb, nlb);
		} else {
			nw_sqe_init(&sqe, NVME_ADM_KEEP_ALIVE);
			x.sgl = NW_SGL_NONE;
		}
		if (nw_submit(q, &sqe, &x) < 0) {
			note(c, "%s: posting stopped after %d commands: %s",
			     what, i, nw_err);
			break;
		}
	}
	n = i;
	ret = 1;
	while (got < n) {
		ret = nw_wait_cqe(q, &d, 30000);
		if (ret <= 0)
			break;
		got++;
		if (nw_status(&d) && !bad++)
			first_bad = nw_status(&d);
	}
	if (got == n) {
		note(c, "%s: all %d commands completed in %lld ms (%d with an error status); RC flow control (RNR) held back what did not fit",
		     what, n, (long long)(ms_now() - t0), bad);
	} else if (ret == 0) {
		return failf(c, "%s: %d of %d commands completed, then nothing for 30 s on a connected queue",
			     what, got, n);
	} else {
		char how[200] = "";

		wait_dropped(q, 1, how, sizeof(how));
		note(c, "%s: %d of %d commands completed, then the queue was dropped (%s)",
		     what, got, n, how);
	}
	if (bad)
		return failf(c, "%s: %d completion(s) with an error, first status %#x",
			     what, bad, first_bad);
	if (q->protocol_errors)
		return failf(c, "%s: protocol: %s", what, q->protocol_msg);
	return 0;
}

static int sc_too_many(struct ctx *c)
{
	struct nw_conn_opts iop = {
		.qid = 1, .hrqsize = 32, .hsqsize = 31, .nslots = 128,
		.data_size = 128 * 4096,
	};
	struct nw_connect_args ca = { .sqsize = 31, .qid = 1 };
	struct nw_queue a = { 0 }, io = { 0 }, a2 = { 0 };
	struct nw_conn_opts ao = { .qid = 0, .hrqsize = 32, .hsqsize = 31,
				   .nslots = 128 };
	struct nw_connect_args aca = { .sqsize = 31, .cntlid = 0xffff };
	struct nw_ns ns;
	uint16_t st;
	uint32_t res;
	int rej, ret = -1;

	if (nw_ctrl_open(&c->t, &a, NULL, 0, 0)) {
		LIBFAIL(c, "controller setup");
		goto out;
	}
	TRY(nw_ns_info(&a, 1, &ns), "Identify Namespace");
	TRY(nw_set_num_queues(&a, 1, NULL), "Set Features");
	if (nw_connect(&io, &c->t, &iop, &rej)) {
		LIBFAIL(c, "I/O CM connect");
		goto out;
	}
	ca.cntlid = a.cntlid;
	TRY(nw_fabrics_connect(&io, &c->t, &ca, &st, &res), "I/O Connect");
	CHECK(!st, "I/O Connect: status %#x", st);
	note(c, "I/O queue receive depth (crqsize) %u, posting 128 READs",
	     io.crqsize);
	if (flood(c, &io, 128, true, 4096 >> ns.lba_shift, "I/O queue"))
		goto out;

	/* The admin queue: 128 Keep Alives on 32 receives. */
	if (nw_connect(&a2, &c->t, &ao, &rej)) {
		LIBFAIL(c, "admin CM connect");
		goto out;
	}
	TRY(nw_fabrics_connect(&a2, &c->t, &aca, &st, &res), "admin Connect");
	CHECK(!st, "admin Connect: status %#x", st);
	TRY(nw_enable_ctrl(&a2), "enable");
	if (flood(c, &a2, 128, false, 0, "admin queue"))
		goto out;
	nw_close(&a2);
	nw_close(&io);
	nw_close(&a);
	return healthy(c, "after the flood");
out:
	nw_close(&a2);
	nw_close(&io);
	nw_close(&a);
	return ret;
}

/* ---- hostile peers (by name only) ---------------------------------------------------- */

/*
 * Issue 16: a peer that is no host of the target's tries to stall, exhaust
 * or take over it.  These run only by name, not under "all": the guest test
 * purlin-hostile runs each from a second local address (--src) while the
 * stock host connects and verifies data.  --duration SECS repeats an
 * attack's rounds for that long (one round at least), so that the attack
 * lasts while the stock host works; every round notes "attack in place"
 * once the peer holds what it came to hold.
 */
#define DISC_NQN	"nqn.2014-08.org.nvmexpress.discovery"
#define MIB		(1u << 20)
#define DROP_MS		30000	/* default --drop-secs, in ms */
#define FLOOD_N		200
#define MAX_ATTACK_QUEUES 16	/* --queues */

/* SIGUSR1: finish the round under way, then end the attack. */
static volatile sig_atomic_t stop_rounds;

static void on_usr1(int sig)
{
	(void)sig;
	stop_rounds = 1;
}

/*
 * Repeat round() until the duration has passed or SIGUSR1 came (one round
 * at least), then check that the target still serves us.
 */
static int rounds(struct ctx *c, int (*round)(struct ctx *c, int n))
{
	int64_t end = ms_now() + (int64_t)c->duration_s * 1000;
	int n = 0;

	do {
		if (round(c, n++) || c->why[0])
			return -1;
	} while (ms_now() < end && !stop_rounds);
	note(c, "%d round(s) of the attack%s", n,
	     stop_rounds ? ", stopped by SIGUSR1" : "");
	return healthy(c, "after the attack");
}

/* An admin queue to subnqn (NULL: the target's): CM connect, Connect, enable. */
static int admin_open(struct ctx *c, struct nw_queue *q, const char *subnqn,
		      size_t data_size, const char *what)
{
	struct nw_conn_opts ao = { .qid = 0, .hrqsize = 32, .hsqsize = 31,
				   .data_size = data_size };
	struct nw_connect_args ca = { .sqsize = 31, .cntlid = 0xffff,
				      .subnqn = subnqn };
	uint16_t st;
	uint32_t res;
	int rej;

	if (nw_connect(q, &c->t, &ao, &rej))
		return failf(c, "%s: admin CM connect: %s", what, nw_err);
	if (nw_fabrics_connect(q, &c->t, &ca, &st, &res))
		return failf(c, "%s: admin Connect: %s", what, nw_err);
	if (st)
		return failf(c, "%s: admin Connect: status %#x result %#x",
			     what, st, res);
	if (nw_enable_ctrl(q))
		return failf(c, "%s: enable: %s", what, nw_err);
	return 0;
}

/*
 * The n queues hold commands whose responses cannot be delivered (no
 * receive posted): the target must give up on its SENDs and drop each
 * queue within --drop-secs of t0.
 */
static int expect_drops(struct ctx *c, struct nw_queue *qs, int n, int64_t t0,
			int round, const char *what)
{
	int i, left = 0, outstanding = 0, answered = 0;
	char how[200] = "";

	for (i = 0; i < n; i++) {
		int64_t rem = t0 + c->drop_ms - ms_now();

		if (wait_dropped(&qs[i], rem > 1 ? (int)rem : 1, how,
				 sizeof(how))) {
			left++;
			outstanding += nw_outstanding(&qs[i]);
		}
		answered += nw_completed(&qs[i]);
	}
	if (left)
		return failf(c, "round %d: %s: %d of %d queue(s) still connected %d s later (%d commands outstanding, %d answered): the target's SENDs wait on receiver-not-ready for ever",
			     round + 1, what, left, n, (int)(c->drop_ms / 1000),
			     outstanding, answered);
	note(c, "round %d: %s: the target dropped %s %lld ms later (%s)",
	     round + 1, what, n > 1 ? "every queue" : "the queue",
	     (long long)(ms_now() - t0), how);
	if (answered)
		return failf(c, "round %d: %s: %d completions arrived with no receive posted",
			     round + 1, what, answered);
	return 0;
}

/* ---- rnr-discovery --------------------------------------------------------------- */

/*
 * On each of --queues discovery admin queues (32 entries): use up the
 * posted receives with Keep Alives, post none again, then as many 1 MiB
 * discovery log reads as the queue holds.
 */
static int rnr_disc_round(struct ctx *c, int round)
{
	const uint32_t numd = MIB / 4 - 1;
	struct nw_queue qs[MAX_ATTACK_QUEUES];
	struct nvme_sqe sqe;
	struct nw_done d;
	char what[200];
	int i, k, n = 0, ka = 0, ret = -1;
	int64_t t0;

	memset(qs, 0, sizeof(qs));
	for (k = 0; k < c->queues; k++) {
		struct nw_queue *q = &qs[k];

		if (admin_open(c, q, DISC_NQN, MIB, "discovery controller"))
			goto out;
		q->no_repost = true;
		while (q->recv_posted > 0) {
			nw_sqe_init(&sqe, NVME_ADM_KEEP_ALIVE);
			if (nw_exec(q, &sqe, NULL, &d, 10000)) {
				failf(c, "round %d: Keep Alive %d: %s",
				      round + 1, ka, nw_err);
				goto out;
			}
			if (nw_status(&d)) {
				failf(c, "round %d: Keep Alive %d on the discovery controller: status %#x",
				      round + 1, ka, nw_status(&d));
				goto out;
			}
			ka++;
		}
	}
	t0 = ms_now();
	for (k = 0; k < c->queues; k++) {
		struct nw_queue *q = &qs[k];

		for (i = 0; i < q->nslots; i++) {
			struct nw_xfer x = { .sgl = NW_SGL_KEYED, .off = 0,
					     .len = MIB };

			nw_sqe_init(&sqe, NVME_ADM_GET_LOG);
			sqe.cdw10 = htole32(0x70 | (numd & 0xffff) << 16);
			sqe.cdw11 = htole32(numd >> 16);
			if (nw_submit(q, &sqe, &x) < 0)
				break;
			n++;
		}
		if (i < q->nslots && !nw_dead(q)) {
			failf(c, "round %d: posting Get Log Page %d: %s",
			      round + 1, n, nw_err);
			goto out;
		}
	}
	snprintf(what, sizeof(what),
		 "%d Get Log Page (discovery log, NUMD 1 MiB, keyed 1 MiB) on %d discovery admin queue(s) of 32 entries with no receive posted",
		 n, c->queues);
	note(c, "attack in place (round %d): %s", round + 1, what);
	if (expect_drops(c, qs, c->queues, t0, round, what))
		goto out;
	ret = 0;
out:
	for (k = 0; k < c->queues; k++)
		nw_close(&qs[k]);
	return ret;
}

static int sc_rnr_disc(struct ctx *c)
{
	return rounds(c, rnr_disc_round);
}

/* ---- rnr-io ---------------------------------------------------------------------- */

/*
 * One controller with --queues I/O queues of 128 entries (or CAP.MQES),
 * each with one receive posted, for its Connect's response, and none after
 * it; then as many 1 MiB READs as the queues hold.
 */
static int rnr_io_round(struct ctx *c, int round)
{
	struct nw_queue a = { 0 }, qs[MAX_ATTACK_QUEUES];
	struct nvme_sqe sqe;
	struct nw_ns ns;
	uint16_t st, granted, hsq = 127;
	uint64_t cap;
	uint32_t res;
	char what[200];
	int i, k, n = 0, rej, ret = -1;
	int64_t t0;

	memset(qs, 0, sizeof(qs));
	if (nw_ctrl_open(&c->t, &a, NULL, 0, 0)) {
		failf(c, "round %d: controller setup: %s", round + 1, nw_err);
		goto out;
	}
	TRY(nw_ns_info(&a, 1, &ns), "Identify Namespace 1");
	TRY(nw_prop_get(&a, NVME_REG_CAP, true, &cap, &st), "Property Get CAP");
	CHECK(!st, "Property Get CAP: status %#x", st);
	if ((cap & 0xffff) < hsq)
		hsq = cap & 0xffff;
	TRY(nw_set_num_queues(&a, c->queues, &granted), "Set Features");
	CHECK(granted >= c->queues, "%u I/O queues granted, %d asked for",
	      granted, c->queues);
	for (k = 0; k < c->queues; k++) {
		struct nw_conn_opts iop = {
			.qid = k + 1, .hsqsize = hsq, .hrqsize = hsq + 1,
			.data_size = MIB,
			.recv_count_set = true, .recv_count = 1,
			.no_repost = true,
		};
		struct nw_connect_args ca = {
			.qid = k + 1, .sqsize = hsq, .cntlid = a.cntlid,
			.incapsule = true,
		};

		if (nw_connect(&qs[k], &c->t, &iop, &rej)) {
			failf(c, "round %d: I/O CM connect %d (hsqsize %u): %s",
			      round + 1, k + 1, hsq, nw_err);
			goto out;
		}
		TRY(nw_fabrics_connect(&qs[k], &c->t, &ca, &st, &res),
		    "I/O Connect");
		CHECK(!st, "I/O Connect %d: status %#x", k + 1, st);
		CHECK(qs[k].recv_posted == 0,
		      "%d receives posted after the Connect, expected 0",
		      qs[k].recv_posted);
	}
	t0 = ms_now();
	for (k = 0; k < c->queues; k++) {
		struct nw_queue *q = &qs[k];

		for (i = 0; i < q->nslots; i++) {
			struct nw_xfer x = { .sgl = NW_SGL_KEYED, .off = 0,
					     .len = MIB };

			nw_rw_sqe(&sqe, NVME_IO_READ, 1, 0, MIB >> ns.lba_shift);
			if (nw_submit(q, &sqe, &x) < 0)
				break;
			n++;
		}
		if (i < q->nslots && !nw_dead(q)) {
			failf(c, "round %d: posting READ %d: %s", round + 1, n,
			      nw_err);
			goto out;
		}
	}
	snprintf(what, sizeof(what),
		 "%d READs of 1 MiB (keyed 1 MiB) on %d I/O queue(s) of %u entries with no receive posted",
		 n, c->queues, hsq + 1);
	note(c, "attack in place (round %d): %s", round + 1, what);
	if (expect_drops(c, qs, c->queues, t0, round, what))
		goto out;
	ret = 0;
out:
	for (k = 0; k < c->queues; k++)
		nw_close(&qs[k]);
	nw_close(&a);
	return ret;
}

static int sc_rnr_io(struct ctx *c)
{
	return rounds(c, rnr_io_round);
}

/* ---- cm-flood -------------------------------------------------------------------- */

static int cm_flood_round(struct ctx *c, int round)
{
	struct nw_queue *qs = calloc(FLOOD_N, sizeof(*qs));
	int64_t *t_acc = calloc(FLOOD_N, sizeof(*t_acc));
	int accepted = 0, no_rsc = 0, other = 0, errors = 0, first_other = 0;
	int live, max_live = 0, late = 0, i, j, ret = -1;
	int64_t t0 = ms_now(), t_end, worst = 0;
	char first_err[sizeof(nw_err)] = "";

	if (!qs || !t_acc) {
		failf(c, "out of memory");
		goto out;
	}
	for (i = 0; i < FLOOD_N; i++) {
		struct nw_conn_opts o = {
			.qid = 0, .hrqsize = 32, .hsqsize = 31, .nslots = 1,
			.data_size = 4096, .timeout_ms = 5000,
		};
		int sts, r = nw_connect(&qs[i], &c->t, &o, &sts);

		if (r == NW_CONN_OK) {
			t_acc[i] = ms_now();
			accepted++;
			/* How many of ours the target holds now. */
			for (live = 0, j = 0; j <= i; j++)
				if (qs[j].id && nw_wait_cm_disconnect(&qs[j], 0))
					live++;
			if (live > max_live)
				max_live = live;
		} else if (r == NW_CONN_REJECTED) {
			if (sts == RDMA_CM_NO_RSC)
				no_rsc++;
			else if (!other++)
				first_other = sts;
		} else {
			if (!errors++)
				snprintf(first_err, sizeof(first_err), "%s", nw_err);
			if (errors >= 3)
				break;
		}
	}
	t_end = ms_now();
	note(c, "attack in place (round %d): %d CM connects (admin, hsqsize 31) in %lld ms, none followed by a Fabrics Connect: %d accepted, at most %d held at once; %d rejected with NO_RSC, %d rejected otherwise, %d neither",
	     round + 1, i < FLOOD_N ? i + 1 : FLOOD_N, (long long)(t_end - t0),
	     accepted, max_live, no_rsc, other, errors);
	if (max_live > c->max_pending)
		failf(c, "round %d: %d queues without a Fabrics Connect held at once for one source address (%s), expected at most %d",
		      round + 1, max_live, c->t.src ? c->t.src : "any", c->max_pending);
	if (other)
		failf(c, "round %d: %d connects rejected with NVMe/RDMA status %d (the first), expected NO_RSC (%d)",
		      round + 1, other, first_other, RDMA_CM_NO_RSC);
	if (errors)
		failf(c, "round %d: %d connects neither accepted nor rejected (the first: %s)",
		      round + 1, errors, first_err);
	if (!accepted)
		failf(c, "round %d: no connect accepted at all", round + 1);

	/* Each accepted queue must go at the target's Connect deadline. */
	for (;;) {
		int64_t now = ms_now();

		live = 0;
		for (j = 0; j < FLOOD_N; j++) {
			if (!qs[j].id || !t_acc[j])
				continue;
			if (!nw_wait_cm_disconnect(&qs[j], 0)) {
				if (now - t_acc[j] > worst)
					worst = now - t_acc[j];
				if (now - t_acc[j] > c->drop_ms)
					late++;
				t_acc[j] = 0;
				nw_abort(&qs[j]);
			} else if (now - t_acc[j] <= c->drop_ms) {
				live++;
			}
		}
		if (!live)
			break;
		usleep(50000);
	}
	for (j = 0; j < FLOOD_N; j++)
		if (qs[j].id && t_acc[j])
			late++;
	if (late)
		failf(c, "round %d: %d of %d accepted queues without a Fabrics Connect were not dropped within %d s of their accept",
		      round + 1, late, accepted, (int)(c->drop_ms / 1000));
	else if (accepted)
		note(c, "round %d: the target dropped all %d accepted queues, the last %lld ms after its accept",
		     round + 1, accepted, (long long)worst);
	ret = c->why[0] ? -1 : 0;
out:
	for (j = 0; qs && j < FLOOD_N; j++)
		if (qs[j].id)
			nw_close(&qs[j]);
	free(qs);
	free(t_acc);
	return ret;
}

static int sc_cm_flood(struct ctx *c)
{
	return rounds(c, cm_flood_round);
}

/* ---- hijack ---------------------------------------------------------------------- */

/* A fresh CM connection for I/O queue 1 in q if it is gone or connected. */
static int io_cm(struct ctx *c, struct nw_queue *q, bool *connected)
{
	struct nw_conn_opts iop = { .qid = 1, .hrqsize = 32, .hsqsize = 31,
				    .nslots = 4, .data_size = 65536 };
	int rej;

	if (q->id && !nw_dead(q) && !*connected)
		return 0;
	nw_close(q);
	*connected = false;
	if (nw_connect(q, &c->t, &iop, &rej))
		return failf(c, "I/O CM connect: %s", nw_err);
	return 0;
}

/*
 * I/O queue Connect on q (a new CM connection when needed); retried
 * while the target still tears down an earlier queue 1 (QID in use).
 */
static int io_connect(struct ctx *c, struct nw_queue *q, bool *connected,
		      const struct nw_connect_args *ca, uint16_t *st)
{
	uint32_t res;
	int tries;

	for (tries = 0; tries < 40; tries++) {
		if (io_cm(c, q, connected))
			return -1;
		if (nw_fabrics_connect(q, &c->t, ca, st, &res)) {
			if (nw_dead(q))
				continue;	/* dropped meanwhile: again */
			return failf(c, "I/O Connect to CNTLID %u: %s",
				     ca->cntlid, nw_err);
		}
		if (!*st)
			*connected = true;
		if (!ca->hostid && st_is(*st, SC_CONNECT_INVALID_PARAM | SC_DNR) &&
		    (res & 0xffffff) == SQE_QID) {
			usleep(50000);
			continue;
		}
		return 0;
	}
	return failf(c, "I/O Connect to CNTLID %u: no answer on 40 queues",
		     ca->cntlid);
}

static int hijack_round(struct ctx *c, int round)
{
	const uint16_t inval = SC_CONNECT_INVALID_PARAM | SC_DNR;
	struct nw_queue a = { 0 }, q = { 0 }, adm[8];
	struct nw_connect_args ca;
	struct nvme_sqe sqe;
	struct nw_xfer x;
	struct nw_ns ns;
	uint16_t st, granted, ids[8];
	uint8_t xid[16];
	char taken[256] = "", wrong[256] = "", list[80] = "";
	int i, k, nadm = 0, hijacked = 0, nwrong = 0, small = 0, ret = -1;
	bool connected = false;

	memset(adm, 0, sizeof(adm));
	memcpy(xid, c->t.hostid, 16);
	xid[0] ^= 0xa5;
	xid[15] ^= 0x5a;
	if (nw_ctrl_open(&c->t, &a, NULL, 0, 0)) {
		failf(c, "round %d: controller setup: %s", round + 1, nw_err);
		goto out;
	}
	TRY(nw_ns_info(&a, 1, &ns), "Identify Namespace 1");
	TRY(nw_set_num_queues(&a, 4, &granted), "Set Features");
	note(c, "attack in place (round %d): controller %u (host NQN %s) has %u I/O queues granted, none connected; I/O queue Connects with its NQN and another host ID",
	     round + 1, a.cntlid, c->t.hostnqn, granted);

	/* Its NQN, another host ID: its CNTLID, then guesses 1..64. */
	for (i = 0; i <= 64; i++) {
		ca = (struct nw_connect_args){
			.sqsize = 31, .qid = 1, .cntlid = i ? i : a.cntlid,
			.hostid = xid, .incapsule = true,
		};
		if (io_connect(c, &q, &connected, &ca, &st))
			goto out;
		if (!st) {
			if (!hijacked++ || strlen(taken) < 200)
				snprintf(taken + strlen(taken),
					 sizeof(taken) - strlen(taken), "%s%u",
					 hijacked > 1 ? "," : "", ca.cntlid);
		} else if (!st_is(st, inval)) {
			if (!nwrong++ || strlen(wrong) < 200)
				snprintf(wrong + strlen(wrong),
					 sizeof(wrong) - strlen(wrong),
					 "%sCNTLID %u: %#x", nwrong > 1 ? ", " : "",
					 ca.cntlid, st);
		}
	}
	if (hijacked)
		failf(c, "round %d: %d I/O queue Connect(s) with the victim's host NQN and another host ID were accepted into a controller (CNTLID %s; the victim's is %u)",
		      round + 1, hijacked, taken, a.cntlid);
	if (nwrong)
		failf(c, "round %d: %d Connect(s) with another host ID refused with a status other than %#x: %s",
		      round + 1, nwrong, inval, wrong);

	/* Another host NQN, the victim's host ID and CNTLID. */
	ca = (struct nw_connect_args){
		.sqsize = 31, .qid = 1, .cntlid = a.cntlid, .incapsule = true,
		.hostnqn = "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000a77ac",
	};
	if (io_connect(c, &q, &connected, &ca, &st))
		goto out;
	if (!st_is(st, inval) &&
	    !st_is(st, (SC_CONNECT_INVALID_PARAM + 2) | SC_DNR))
		failf(c, "round %d: I/O Connect from another host NQN to CNTLID %u: status %#x, expected Connect Invalid Parameters or Invalid Host",
		      round + 1, a.cntlid, st);

	/* The victim itself: its host ID and CNTLID still work. */
	ca = (struct nw_connect_args){
		.sqsize = 31, .qid = 1, .cntlid = a.cntlid, .incapsule = true,
	};
	if (io_connect(c, &q, &connected, &ca, &st))
		goto out;
	CHECK(!st, "round %d: the host's own I/O Connect (its host ID, CNTLID %u) after the attempts: status %#x",
	      round + 1, a.cntlid, st);
	nw_rw_sqe(&sqe, NVME_IO_READ, 1, 0, 4096 >> ns.lba_shift);
	x = (struct nw_xfer){ .sgl = NW_SGL_KEYED, .len = 4096 };
	EXPECT(&q, &sqe, &x, 0, "READ on the host's own I/O queue");

	/* CNTLIDs of controllers created back to back. */
	for (nadm = 0; nadm < 8; nadm++) {
		struct nw_conn_opts ao = { .qid = 0, .hrqsize = 32,
					   .hsqsize = 31, .nslots = 4,
					   .data_size = 65536 };
		struct nw_connect_args aca = { .sqsize = 31, .cntlid = 0xffff };
		uint32_t res;
		int rej;

		if (nw_connect(&adm[nadm], &c->t, &ao, &rej)) {
			failf(c, "admin CM connect %d: %s", nadm, nw_err);
			goto out;
		}
		if (nw_fabrics_connect(&adm[nadm], &c->t, &aca, &st, &res) ||
		    st) {
			failf(c, "admin Connect %d: %s", nadm,
			      st ? "refused" : nw_err);
			nadm++;
			goto out;
		}
		ids[nadm] = adm[nadm].cntlid;
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s%u", nadm ? " " : "", ids[nadm]);
	}
	for (i = 0; i < 8; i++) {
		if (ids[i] < 1 || ids[i] > 0xffef)
			failf(c, "round %d: CNTLID %u outside 1..0xffef", round + 1,
			      ids[i]);
		for (k = 0; k < i; k++)
			if (ids[k] == ids[i])
				failf(c, "round %d: CNTLID %u given to two live controllers",
				      round + 1, ids[i]);
		if (i && ids[i] > ids[i - 1] && ids[i] - ids[i - 1] <= 4)
			small++;
	}
	if (small == 7)
		failf(c, "round %d: the CNTLIDs of 8 controllers created back to back follow each other (%s): the next one is guessable",
		      round + 1, list);
	else
		note(c, "round %d: CNTLIDs of 8 controllers created back to back: %s",
		     round + 1, list);
	ret = c->why[0] ? -1 : 0;
out:
	for (i = 0; i < nadm; i++)
		nw_close(&adm[i]);
	nw_close(&q);
	nw_close(&a);
	return ret;
}

static int sc_hijack(struct ctx *c)
{
	return rounds(c, hijack_round);
}

/* ---- disc-ioq -------------------------------------------------------------------- */

static int disc_ioq_round(struct ctx *c, int round)
{
	static const uint16_t deep[] = { 127, 32 };
	struct nw_queue d = { 0 }, q = { 0 };
	struct nw_conn_opts iop = { .qid = 1, .hrqsize = 32, .hsqsize = 31,
				    .nslots = 4, .data_size = 65536 };
	struct nw_connect_args ca = { .sqsize = 31, .qid = 1,
				      .subnqn = DISC_NQN, .incapsule = true };
	struct nvme_sqe sqe;
	struct nw_xfer x;
	uint16_t st;
	uint32_t res;
	size_t i;
	int rej, r, ret = -1;

	/* Admin queues deeper than 32 entries: refused in the CM. */
	for (i = 0; i < sizeof(deep) / sizeof(deep[0]); i++) {
		struct nw_conn_opts o = { .qid = 0, .hsqsize = deep[i],
					  .hrqsize = deep[i] + 1, .nslots = 4,
					  .data_size = 65536 };

		r = nw_connect(&q, &c->t, &o, &rej);
		if (r == NW_CONN_OK) {
			failf(c, "round %d: admin queue with hsqsize %u (%u entries) accepted, expected a reject with INVALID_HSQSIZE (%d): admin queues hold 32",
			      round + 1, deep[i], deep[i] + 1,
			      RDMA_CM_INVALID_HSQSIZE);
			nw_close(&q);
		} else if (r != NW_CONN_REJECTED) {
			failf(c, "round %d: admin queue with hsqsize %u: %s",
			      round + 1, deep[i], nw_err);
		} else if (rej != RDMA_CM_INVALID_HSQSIZE) {
			failf(c, "round %d: admin queue with hsqsize %u: reject status %d, expected INVALID_HSQSIZE (%d)",
			      round + 1, deep[i], rej, RDMA_CM_INVALID_HSQSIZE);
		}
	}

	/* A discovery controller of 32 entries works. */
	if (admin_open(c, &d, DISC_NQN, 0, "discovery controller"))
		goto out;
	note(c, "attack in place (round %d): discovery controller %u; asking it for an I/O queue",
	     round + 1, d.cntlid);

	r = nw_connect(&q, &c->t, &iop, &rej);
	if (r == NW_CONN_REJECTED) {
		note(c, "round %d: I/O queue CM connect rejected (status %d)",
		     round + 1, rej);
	} else if (r != NW_CONN_OK) {
		failf(c, "round %d: I/O queue CM connect: %s", round + 1, nw_err);
	} else {
		ca.cntlid = d.cntlid;
		TRY(nw_fabrics_connect(&q, &c->t, &ca, &st, &res),
		    "I/O Connect to the discovery controller");
		if (!st_is(st, SC_CONNECT_INVALID_PARAM | SC_DNR))
			failf(c, "round %d: I/O queue 1 Connect to the discovery controller (CNTLID %u): status %#x, expected %#x",
			      round + 1, d.cntlid, st,
			      SC_CONNECT_INVALID_PARAM | SC_DNR);
		nw_close(&q);
	}

	/* The discovery controller still answers. */
	nw_sqe_init(&sqe, NVME_ADM_GET_LOG);
	sqe.cdw10 = htole32(0x70 | 1023u << 16);
	x = (struct nw_xfer){ .sgl = NW_SGL_KEYED, .len = 4096 };
	EXPECT(&d, &sqe, &x, 0, "discovery Get Log Page afterwards");
	ret = c->why[0] ? -1 : 0;
out:
	nw_close(&q);
	nw_close(&d);
	return ret;
}

static int sc_disc_ioq(struct ctx *c)
{
	return rounds(c, disc_ioq_round);
}

/* ---- small-defects --------------------------------------------------------------- */

/* Bad Connect data descriptors: each must fail; then the good Connect succeeds. */
static int bad_then_good_connect(struct ctx *c, struct nw_queue *q,
				 const struct nw_connect_args *good,
				 const char *what)
{
	struct bc {
		const char *what;
		bool type_set;
		uint8_t type;
		uint32_t len;	/* 0xffffffff: unchanged */
	} bad[] = {
		{ "keyed SGL of length 0", false, 0, 0 },
		{ "SGL type 0x20", true, 0x20, 0xffffffff },
		{ "keyed SGL of 512 bytes", false, 0, 512 },
	};
	struct nw_connect_args ca;
	uint16_t st;
	uint32_t res;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ca = *good;
		ca.incapsule = false;
		ca.sgl_type_set = bad[i].type_set;
		ca.sgl_type = bad[i].type;
		ca.desc_len_set = bad[i].len != 0xffffffff;
		ca.desc_len = bad[i].len;
		if (nw_fabrics_connect(q, &c->t, &ca, &st, &res))
			return failf(c, "%s Connect with a %s: %s", what,
				     bad[i].what, nw_err);
		if (!st)
			return failf(c, "%s Connect with a %s succeeded", what,
				     bad[i].what);
		note(c, "%s Connect with a %s: status %#x", what, bad[i].what,
		     st);
	}
	if (nw_fabrics_connect(q, &c->t, good, &st, &res))
		return failf(c, "%s Connect after the bad ones: %s", what, nw_err);
	if (st)
		return failf(c, "%s Connect after Connects with bad SGLs: status %#x%s",
			     what, st,
			     st_is(st, SC_CMD_SEQ_ERROR | SC_DNR) ?
			     " (Command Sequence Error: a failed Connect left the queue marked as connecting)" : "");
	return 0;
}

/* One REQ with initiator depth and responder resources 0. */
static int rd_zero(struct ctx *c, struct nw_queue *a, struct nw_queue *q,
		   uint16_t qid, const struct nw_ns *ns)
{
	bool io = qid != 0;
	struct nw_conn_opts o = { .qid = qid, .hrqsize = 32, .hsqsize = 31,
				  .rd_set = true, .initiator_depth = 0,
				  .responder_resources = 0 };
	struct nw_connect_args ca = { .sqsize = 31, .cntlid = 0xffff };
	const char *what = io ? "I/O queue" : "admin queue";
	struct nvme_sqe sqe;
	struct nw_xfer x;
	uint16_t st;
	uint32_t res;
	int rej, r;

	r = nw_connect(q, &c->t, &o, &rej);
	if (r == NW_CONN_REJECTED) {
		note(c, "%s: CM REQ with responder resources 0 rejected (status %d)",
		     what, rej);
		return 0;
	}
	if (r != NW_CONN_OK)
		return failf(c, "%s: CM REQ with responder resources 0: %s",
			     what, nw_err);
	if (io) {
		ca.qid = qid;
		ca.cntlid = a->cntlid;
		ca.incapsule = true;
	}
	/* The admin queue's Connect data is read by the target (RDMA READ). */
	if (nw_fabrics_connect(q, &c->t, &ca, &st, &res))
		return failf(c, "%s accepted with responder resources 0: Connect (keyed SGL) got no answer: %s",
			     what, nw_err);
	if (st)
		return failf(c, "%s accepted with responder resources 0: Connect status %#x",
			     what, st);
	if (!io)
		return 0;
	fill_pattern(q->data, 4096, 16);
	nw_rw_sqe(&sqe, NVME_IO_WRITE, 1, 0, 4096 >> ns->lba_shift);
	x = (struct nw_xfer){ .sgl = NW_SGL_KEYED, .len = 4096 };
	return expect_cmd(c, q, &sqe, &x, 0,
			  "keyed WRITE on an I/O queue accepted with responder resources 0");
}

static int sc_small_defects(struct ctx *c)
{
	struct nw_conn_opts ao = { .qid = 0, .hrqsize = 32, .hsqsize = 31 };
	struct nw_conn_opts iop = { .qid = 1, .hrqsize = 32, .hsqsize = 31 };
	struct nw_connect_args aok = { .sqsize = 31, .cntlid = 0xffff };
	struct nw_connect_args iok = { .sqsize = 31, .qid = 1, .incapsule = true };
	struct nw_queue a = { 0 }, io = { 0 }, q = { 0 };
	static const struct { const char *nqn; uint8_t ch; } ctl[] = {
		{ "nqn.2014-08.org.nvmexpress:uuid:\x01" "abc", 0x01 },
		{ "nqn.2014-08.org.nvmexpress:uuid:\x1b[2Jabc", 0x1b },
		{ "nqn.2014-08.org.nvmexpress:uuid:abc\ndef", 0x0a },
		{ "nqn.2014-08.org.nvmexpress:uuid:abc\x7f", 0x7f },
	};
	static const uint64_t lpos[] = { 4096, 8192, 1ull << 32 };
	struct nvme_sqe sqe;
	struct nw_xfer x;
	struct nw_ns ns;
	uint16_t st;
	uint32_t res;
	size_t i;
	int rej, ret = -1;

	/* (i) Connects that fail before they run do not block the next one. */
	if (nw_connect(&a, &c->t, &ao, &rej)) {
		LIBFAIL(c, "admin CM connect");
		goto out;
	}
	if (bad_then_good_connect(c, &a, &aok, "admin")) {
		/* On with the other defects, on a new controller. */
		nw_close(&a);
		if (admin_open(c, &a, NULL, 0, "new controller"))
			goto out;
	} else {
		TRY(nw_enable_ctrl(&a), "enable");
	}
	TRY(nw_ns_info(&a, 1, &ns), "Identify Namespace 1");
	TRY(nw_set_num_queues(&a, 2, NULL), "Set Features");
	if (nw_connect(&io, &c->t, &iop, &rej)) {
		LIBFAIL(c, "I/O CM connect");
		goto out;
	}
	iok.cntlid = a.cntlid;
	if (bad_then_good_connect(c, &io, &iok, "I/O queue")) {
		nw_close(&io);
		if (nw_connect(&io, &c->t, &iop, &rej)) {
			LIBFAIL(c, "I/O CM connect");
			goto out;
		}
		TRY(nw_fabrics_connect(&io, &c->t, &iok, &st, &res),
		    "I/O Connect on a new queue");
		CHECK(!st, "I/O Connect on a new queue: status %#x", st);
	}

	/* (ii) Log Page Offset past the end of the log: Invalid Field. */
	for (i = 0; i < sizeof(lpos) / sizeof(lpos[0]); i++) {
		struct nw_done d;
		char what[96];

		nw_sqe_init(&sqe, NVME_ADM_GET_LOG);
		sqe.nsid = htole32(0xffffffff);
		sqe.cdw10 = htole32(0x02 | 127u << 16);	/* SMART, 512 bytes */
		sqe.cdw12 = htole32((uint32_t)lpos[i]);
		sqe.cdw13 = htole32((uint32_t)(lpos[i] >> 32));
		x = (struct nw_xfer){ .sgl = NW_SGL_KEYED, .len = 512 };
		snprintf(what, sizeof(what),
			 "Get Log Page SMART (512 bytes) at offset %#llx",
			 (unsigned long long)lpos[i]);
		if (nw_exec(&a, &sqe, &x, &d, 10000)) {
			failf(c, "%s: %s", what, nw_err);
			goto out;
		}
		if ((nw_status(&d) & SC_MASK) != SC_INVALID_FIELD)
			failf(c, "%s: status %#x, expected Invalid Field (%#x)",
			      what, nw_status(&d), SC_INVALID_FIELD);
	}
	nw_sqe_init(&sqe, NVME_ADM_GET_LOG);
	sqe.nsid = htole32(0xffffffff);
	sqe.cdw10 = htole32(0x02 | 63u << 16);
	sqe.cdw12 = htole32(256);
	x = (struct nw_xfer){ .sgl = NW_SGL_KEYED, .len = 256 };
	EXPECT(&a, &sqe, &x, 0, "Get Log Page SMART, 256 bytes at offset 256");

	/* (iii) Flush of every namespace. */
	nw_sqe_init(&sqe, NVME_IO_FLUSH);
	sqe.nsid = htole32(0xffffffff);
	EXPECT(&io, &sqe, NULL, 0, "Flush with NSID 0xffffffff");

	/* (iv) Host NQNs with control characters. */
	if (nw_connect(&q, &c->t, &ao, &rej)) {
		LIBFAIL(c, "admin CM connect");
		goto out;
	}
	for (i = 0; i < sizeof(ctl) / sizeof(ctl[0]); i++) {
		struct nw_connect_args ca = aok;

		ca.hostnqn = ctl[i].nqn;
		TRY(nw_fabrics_connect(&q, &c->t, &ca, &st, &res),
		    "Connect with a control character in the host NQN");
		if (!st_is(st, SC_CONNECT_INVALID_PARAM | SC_DNR)) {
			failf(c, "admin Connect with control character %#04x in the host NQN: status %#x, expected %#x",
			      ctl[i].ch, st, SC_CONNECT_INVALID_PARAM | SC_DNR);
			if (!st)
				break;	/* connected: no more Connects here */
		}
	}
	nw_close(&q);

	/* (v) Responder resources 0 in the CM REQ: rejected, or it works. */
	rd_zero(c, &a, &q, 0, &ns);
	nw_close(&q);
	rd_zero(c, &a, &q, 2, &ns);
	nw_close(&q);
	if (check_proto(c, &a, "admin queue") ||
	    check_proto(c, &io, "I/O queue"))
		goto out;
	ret = c->why[0] ? -1 : 0;
out:
	nw_close(&q);
	nw_close(&io);
	nw_close(&a);
	if (!ret)
		ret = healthy(c, "after the small defects");
	return ret;
}

/* ---- runner ---------------------------------------------------------------------- */

/* ---- auth (by name) ----------------------------------------------------------- */

static int sc_auth(struct ctx *c)
{
	struct nw_target t = c->t;

	if (!c->auth_subnqn || !c->auth_hostnqn) {
		failf(c, "needs --auth-subnqn and --auth-hostnqn");
		return -1;
	}
	t.subnqn = c->auth_subnqn;
	t.hostnqn = c->auth_hostnqn;
	if (nw_auth_hostile(&t, nw_scaled_ms(30000), c->why, sizeof(c->why)))
		return -1;
	return healthy(c, "after the hostile authentication");
}

/* A reservation command to namespace 1: opcode, dword 10 and 11. */
static void resv_sqe(struct nvme_sqe *sqe, uint8_t op, uint32_t cdw10,
		     uint32_t cdw11)
{
	nw_sqe_init(sqe, op);
	sqe->nsid = htole32(1);
	sqe->cdw10 = htole32(cdw10);
	sqe->cdw11 = htole32(cdw11);
}

/* Two keys (CRKEY, then NRKEY or PRKEY) at the start of the queue's data. */
static void resv_keys(struct nw_queue *q, uint64_t k0, uint64_t k1)
{
	uint64_t k[2] = { htole64(k0), htole64(k1) };

	memcpy(q->data, k, sizeof(k));
}

/*
 * Reservation commands with malformed payloads: short and long data,
 * reserved actions and types, IEKEY where it is not taken, Report without
 * the extended format or with a length past MDTS, keys that do not match,
 * a controller without a host ID.
 * Each gets its own status; the target stays healthy.  Needs namespace 1
 * with resv_enable set.
 */
static int sc_resv_bad(struct ctx *c)
{
	struct nw_queue a = { 0 }, io = { 0 };
	const uint16_t bad_field = SC_INVALID_FIELD | SC_DNR;
	const uint16_t conflict = SC_RESV_CONFLICT | SC_DNR;
	struct nvme_sqe sqe;
	struct nw_xfer x;
	struct nw_done d;
	uint32_t gen;
	int ret = -1;
	static const struct rcase {
		const char *what;
		uint8_t op;
		uint32_t cdw10, cdw11, len;
		uint16_t want;
	} cases[] = {
		{ "Register with 8 bytes", 0x0d, 0, 0, 8, SC_SGL_INVALID_DATA | SC_DNR },
		{ "Register with 4096 bytes", 0x0d, 0, 0, 4096, SC_SGL_INVALID_DATA | SC_DNR },
		{ "Register with no data", 0x0d, 0, 0, 0, SC_SGL_INVALID_DATA | SC_DNR },
		{ "Register action 3", 0x0d, 3, 0, 16, SC_INVALID_FIELD | SC_DNR },
		{ "Register action 7", 0x0d, 7, 0, 16, SC_INVALID_FIELD | SC_DNR },
		{ "Register CPTPL 01b", 0x0d, 1u << 30, 0, 16, SC_INVALID_FIELD | SC_DNR },
		/* Linux's block layer sends Release in a 16-byte buffer. */
		{ "Release with 16 bytes (not registered)", 0x15, 0, 0, 16,
		  SC_RESV_CONFLICT | SC_DNR },
		{ "Release with 4 bytes", 0x15, 0, 0, 4, SC_SGL_INVALID_DATA | SC_DNR },
		{ "Acquire with 8 bytes", 0x11, 1 << 8, 0, 8, SC_SGL_INVALID_DATA | SC_DNR },
		{ "Report without EDS", 0x0e, 15, 0, 64, SC_HOSTID_INCONSIST | SC_DNR },
		{ "Report of NUMD 0x40000 (past MDTS)", 0x0e, 0x40000, 1, 4096,
		  SC_INVALID_FIELD | SC_DNR },
		{ "Report of NUMD 0xffffffff", 0x0e, 0xffffffff, 1, 4096,
		  SC_INVALID_FIELD | SC_DNR },
		{ "Report of 64 bytes into 4096", 0x0e, 15, 1, 4096,
		  SC_SGL_INVALID_DATA | SC_DNR },
	};
	size_t i;

	if (nw_ctrl_open(&c->t, &a, &io, 31, 0)) {
		LIBFAIL(c, "controller setup");
		goto out;
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		resv_keys(&io, 0x77, 0x77);
		resv_sqe(&sqe, cases[i].op, cases[i].cdw10, cases[i].cdw11);
		x = (struct nw_xfer){ .sgl = cases[i].len ? NW_SGL_KEYED : NW_SGL_NONE,
				      .len = cases[i].len };
		EXPECT_RE(&io, &sqe, &x, cases[i].want, cases[i].what);
	}
	x = (struct nw_xfer){ .sgl = NW_SGL_KEYED, .len = 16 };
	/* Reservation commands name one namespace: 0 and FFFFFFFFh do not. */
	resv_keys(&io, 0, 0x77);
	resv_sqe(&sqe, 0x0d, 0, 0);
	sqe.nsid = 0;
	EXPECT_RE(&io, &sqe, &x, SC_INVALID_NS | SC_DNR, "Register to NSID 0");
	resv_sqe(&sqe, 0x0d, 0, 0);
	sqe.nsid = htole32(0xffffffff);
	EXPECT_RE(&io, &sqe, &x, SC_INVALID_NS | SC_DNR,
		  "Register to NSID FFFFFFFFh");
	/* Not registered: Acquire and Release conflict. */
	resv_keys(&io, 0x77, 0);
	resv_sqe(&sqe, 0x11, 1 << 8, 0);
	EXPECT_RE(&io, &sqe, &x, conflict, "Acquire before Register");
	resv_sqe(&sqe, 0x0d, 0, 0);
	resv_keys(&io, 0, 0x77);
	EXPECT_RE(&io, &sqe, &x, 0, "Register key 0x77");
	resv_keys(&io, 0x77, 0);
	resv_sqe(&sqe, 0x11, 1 << 3 | 1 << 8, 0);
	EXPECT_RE(&io, &sqe, &x, bad_field, "Acquire with IEKEY");
	resv_sqe(&sqe, 0x11, 0, 0);
	EXPECT_RE(&io, &sqe, &x, bad_field, "Acquire of type 0");
	resv_sqe(&sqe, 0x11, 7 << 8, 0);
	EXPECT_RE(&io, &sqe, &x, bad_field, "Acquire of type 7");
	resv_sqe(&sqe, 0x11, 3 | 1 << 8, 0);
	EXPECT_RE(&io, &sqe, &x, bad_field, "Acquire action 3");
	resv_keys(&io, 0x78, 0);
	resv_sqe(&sqe, 0x11, 1 << 8, 0);
	EXPECT_RE(&io, &sqe, &x, conflict, "Acquire with a wrong key");
	x.len = 8;
	resv_sqe(&sqe, 0x15, 2, 0);
	EXPECT_RE(&io, &sqe, &x, bad_field, "Release action 2");
	resv_sqe(&sqe, 0x15, 0, 0);
	EXPECT_RE(&io, &sqe, &x, conflict, "Release with a wrong key");
	/* A Report of 4 bytes: the generation alone. */
	memset(io.data, 0xff, 8);
	resv_sqe(&sqe, 0x0e, 0, 1);
	x = (struct nw_xfer){ .sgl = NW_SGL_KEYED, .len = 4 };
	if (nw_exec(&io, &sqe, &x, &d, 10000)) {
		LIBFAIL(c, "Report of 4 bytes");
		goto out;
	}
	memcpy(&gen, io.data, 4);
	if (nw_status(&d) || !le32toh(gen) || io.data[4] != 0xff)
		failf(c, "Report of 4 bytes: status %#x, generation %u, byte 4 %#x",
		      nw_status(&d), le32toh(gen), io.data[4]);
	/* A controller with a null Host Identifier cannot register. */
	{
		struct nw_target t0 = c->t;
		struct nw_queue a0 = { 0 }, io0 = { 0 };

		memset(t0.hostid, 0, sizeof(t0.hostid));
		if (nw_ctrl_open(&t0, &a0, &io0, 31, 0)) {
			LIBFAIL(c, "controller with a null host ID");
		} else {
			resv_keys(&io0, 0, 0x99);
			resv_sqe(&sqe, 0x0d, 0, 0);
			x = (struct nw_xfer){ .sgl = NW_SGL_KEYED, .len = 16 };
			expect_cmd(c, &io0, &sqe, &x, SC_HOSTID_INCONSIST | SC_DNR,
				   "Register from a null host ID");
		}
		nw_close(&io0);
		nw_close(&a0);
	}
	/* Unregister: the namespace is left as it was. */
	resv_keys(&io, 0x77, 0);
	resv_sqe(&sqe, 0x0d, 1, 0);
	x = (struct nw_xfer){ .sgl = NW_SGL_KEYED, .len = 16 };
	EXPECT_RE(&io, &sqe, &x, 0, "Unregister");
	ret = c->why[0] ? -1 : 0;
out:
	nw_close(&io);
	nw_close(&a);
	if (ret)
		return -1;
	return healthy(c, "after the malformed reservation commands");
}

/* ---- set-features ---------------------------------------------------------------- */

/*
 * Set Features Number of Queues once an I/O queue exists: Command Sequence
 * Error and the count stays; 65536 submission queues (0's based FFFFh):
 * Invalid Field.  Features Purlin does not implement (LBA Range Type,
 * Autonomous Power State Transition, Host Controlled Thermal Management,
 * Software Progress Marker, a reserved one): Invalid Field.
 * purlin-host-gaps asks the stock host first; a host that keeps some of
 * these from user space (6.12's, 7.2's) leaves them to this.
 */
static int sc_set_features(struct ctx *c)
{
	static const uint8_t unimpl[] = { 0x03, 0x0c, 0x10, 0x80, 0x7f };
	struct nw_queue a = { 0 }, io = { 0 };
	struct nvme_sqe sqe;
	struct nw_done d;
	char what[64];
	uint32_t v;
	size_t i;
	int ret = -1;

	TRY(nw_ctrl_open(&c->t, &a, &io, 31, 0), "controller with one I/O queue");
	nw_sqe_init(&sqe, NVME_ADM_SET_FEATURES);
	sqe.cdw10 = htole32(0x07);
	sqe.cdw11 = htole32(0);
	EXPECT(&a, &sqe, NULL, SC_CMD_SEQ_ERROR | SC_DNR,
	       "Set Features Number of Queues with an I/O queue");
	nw_sqe_init(&sqe, NVME_ADM_SET_FEATURES);
	sqe.cdw10 = htole32(0x07);
	sqe.cdw11 = htole32(0xffff);
	EXPECT(&a, &sqe, NULL, SC_INVALID_FIELD | SC_DNR,
	       "Set Features Number of Queues, NSQR FFFFh");
	nw_sqe_init(&sqe, NVME_ADM_GET_FEATURES);
	sqe.cdw10 = htole32(0x07);
	TRY(nw_exec(&a, &sqe, NULL, &d, 10000), "Get Features Number of Queues");
	CHECK(!nw_status(&d), "Get Features Number of Queues: status %#x", nw_status(&d));
	v = (uint32_t)le64toh(d.cqe.result);
	CHECK(v == 0, "Number of Queues after the refused Sets: %#x, expected 0 (one of each)", v);
	for (i = 0; i < sizeof(unimpl); i++) {
		nw_sqe_init(&sqe, NVME_ADM_SET_FEATURES);
		sqe.cdw10 = htole32(unimpl[i]);
		snprintf(what, sizeof(what), "Set Features %#x", unimpl[i]);
		EXPECT(&a, &sqe, NULL, SC_INVALID_FIELD | SC_DNR, what);
	}
	ret = c->why[0] ? -1 : 0;
out:
	nw_close(&io);
	nw_close(&a);
	return ret;
}

static const struct scenario {
	const char *name;
	int (*fn)(struct ctx *c);
	const char *help;
	bool by_name;		/* not part of "all" */
} scenarios[] = {
	{ "qdepth-1024", sc_qdepth,
	  "I/O queue of 1024 entries, 1024 READs outstanding, WRITE+READ verify", false },
	{ "cm-reject", sc_cm_reject,
	  "CM connects with bad private data are rejected with the right sts", false },
	{ "cmd-before-connect", sc_cmd_before_connect,
	  "commands before Fabrics Connect get Command Sequence Error", false },
	{ "connect-bad", sc_connect_bad,
	  "Fabrics Connect with bad NQNs, format, sizes, cntlid; double Connect", false },
	{ "sgl-bad", sc_sgl_bad,
	  "invalid SGL types, keyed and in-capsule lengths/offsets, PSDT, fused", false },
	{ "io-bad", sc_io_bad,
	  "bad nsid, LBA range, opcodes, log page", false },
	{ "short-capsule", sc_short_capsule,
	  "capsules shorter than 64 bytes (or beyond the receive buffer) drop the queue", false },
	{ "abrupt", sc_abrupt,
	  "destroy the QP with 64 transfers in flight, 5 times", false },
	{ "too-many", sc_too_many,
	  "more commands than the receive depth, without waiting", false },
	{ "silent-peer", sc_silent_peer,
	  "(extra) host QP vanishes mid-transfer without a DREQ: the target drops the queue", false },
	{ "bad-rkey", sc_bad_rkey,
	  "(extra) a keyed SGL with an unregistered key: the target drops the queue", false },
	{ "kato", sc_kato,
	  "(extra) Keep Alive keeps a KATO 1000 controller; silence ends it", false },
	{ "rnr-discovery", sc_rnr_disc,
	  "(by name) discovery admin queue(s), no receives, 1 MiB log reads: dropped within 30 s",
	  true },
	{ "rnr-io", sc_rnr_io,
	  "(by name) I/O queue(s), no receives, 1 MiB READs filling them: dropped within 30 s",
	  true },
	{ "cm-flood", sc_cm_flood,
	  "(by name) 200 CM connects without Connect: at most --max-pending held, the rest NO_RSC, all dropped",
	  true },
	{ "hijack", sc_hijack,
	  "(by name) I/O Connects with a victim's NQN, another host ID and guessed CNTLIDs; CNTLID order",
	  true },
	{ "disc-ioq", sc_disc_ioq,
	  "(by name) the discovery controller takes no I/O queue; admin queues hold at most 32",
	  true },
	{ "auth", sc_auth,
	  "(by name) DH-HMAC-CHAP out of order, bad lengths, t_id, replays, DH values 0/1/p-1/p, a peer stopping half way",
	  true },
	{ "resv-bad", sc_resv_bad,
	  "(by name) reservation commands with short or long data, reserved actions and types, Report without EDS or past MDTS (namespace 1 with resv_enable)",
	  true },
	{ "set-features", sc_set_features,
	  "(by name) Set Features Number of Queues with an I/O queue: Command Sequence Error; NSQR FFFFh and unimplemented features: Invalid Field",
	  true },
	{ "small-defects", sc_small_defects,
	  "(by name) Connect retry after a bad SGL, LPO past the end, Flush NSID ~0, control characters, responder resources 0",
	  true },
};
#define NSCEN (sizeof(scenarios) / sizeof(scenarios[0]))

/* Watchdog: a scenario that hangs fails on its own line. */
static const char *volatile current;
static unsigned int scenario_timeout = 120;

static void on_alarm(int sig)
{
	char buf[200];
	int n;

	(void)sig;
	n = snprintf(buf, sizeof(buf), "FAIL %s: timed out after %d s\n",
		     current ? current : "?",
		     nw_scaled_ms((int)scenario_timeout));
	if (write(STDOUT_FILENO, buf, n) < 0)
		_exit(3);
	_exit(1);
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"usage: nvmf-wire -a ADDR -s SVC -n SUBNQN [--hostnqn NQN] [--src ADDR] [-t SECS] [-v]\n"
		"                 [--no-mw] [--duration SECS] [--max-pending N] [--queues N]\n"
		"                 [--drop-secs N] SCENARIO...|all\n"
		"       nvmf-wire -a ADDR -s SVC -n SUBNQN [--hostnqn NQN] fuzz --seed S [--count N]\n"
		"                 [--time SECS] [--depth D] [--cmd-timeout MS] [--keep-going] [--trace]\n"
		"                 [--known TAG,...] [--auth-subnqn NQN --auth-hostnqn NQN]\n"
		"       nvmf-wire -l\nscenarios:\n");
	for (i = 0; i < NSCEN; i++)
		fprintf(f, "  %-20s %s\n", scenarios[i].name,
			scenarios[i].help);
	fprintf(f, "  %-20s %s\n", "fuzz",
		"randomized, seeded capsules (not part of \"all\")");
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && end != s && !*end;
}

static int run(struct ctx *c, const struct scenario *s)
{
	int64_t t0 = ms_now();
	int ret;

	c->name = s->name;
	c->why[0] = 0;
	current = s->name;
	alarm((unsigned int)nw_scaled_ms((int)scenario_timeout));
	ret = s->fn(c);
	alarm(0);
	if (c->why[0])
		ret = -1;	/* a finding was recorded */
	if (!ret) {
		printf("PASS %s\n", s->name);
	} else {
		if (!c->why[0])
			snprintf(c->why, sizeof(c->why), "failed (%s)", nw_err);
		printf("FAIL %s: %s\n", s->name, c->why);
	}
	fprintf(stderr, "note: %s: took %lld ms\n", s->name,
		(long long)(ms_now() - t0));
	fflush(stdout);
	fflush(stderr);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "hostnqn", required_argument, NULL, 'H' },
		{ "no-mw", no_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ "seed", required_argument, NULL, 'S' },
		{ "count", required_argument, NULL, 'C' },
		{ "time", required_argument, NULL, 'T' },
		{ "depth", required_argument, NULL, 'D' },
		{ "cmd-timeout", required_argument, NULL, 'O' },
		{ "keep-going", no_argument, NULL, 'K' },
		{ "trace", no_argument, NULL, 'R' },
		{ "known", required_argument, NULL, 'k' },
		{ "src", required_argument, NULL, 'A' },
		{ "duration", required_argument, NULL, 'U' },
		{ "max-pending", required_argument, NULL, 'P' },
		{ "queues", required_argument, NULL, 'Q' },
		{ "drop-secs", required_argument, NULL, 'X' },
		{ "auth-subnqn", required_argument, NULL, 'Y' },
		{ "auth-hostnqn", required_argument, NULL, 'Z' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctx c = { .max_pending = 16, .queues = 1, .drop_ms = DROP_MS };
	struct nw_fuzz_opts fo = {
		.depth = 8, .cmd_timeout_ms = 15000,
	};
	bool seed_set = false, fuzz = false;
	char hostnqn[256], cmdline[1024];
	int opt, i, failed = 0;
	uint64_t v;
	size_t k;
	FILE *ur;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("PURLIN_TIMEOUT_SCALE")) {
		if (!parse_u64(getenv("PURLIN_TIMEOUT_SCALE"), &v) || !v ||
		    v > 100) {
			fprintf(stderr, "nvmf-wire: PURLIN_TIMEOUT_SCALE must be 1-100\n");
			return 2;
		}
		nw_time_scale = (int)v;
	}
	signal(SIGALRM, on_alarm);
	signal(SIGUSR1, on_usr1);
	while ((opt = getopt_long(argc, argv, "a:s:n:t:lvh", lo, NULL)) != -1) {
		switch (opt) {
		case 'a': c.t.addr = optarg; break;
		case 's': c.t.svc = optarg; break;
		case 'n': c.t.subnqn = optarg; break;
		case 'H': c.t.hostnqn = optarg; break;
		case 'Y': c.auth_subnqn = optarg; break;
		case 'Z': c.auth_hostnqn = optarg; break;
		case 't': scenario_timeout = (unsigned int)atoi(optarg); break;
		case 'M': nw_use_mw = false; break;
		case 'v': nw_verbose++; break;
		case 'l':
			for (k = 0; k < NSCEN; k++)
				printf("%s\n", scenarios[k].name);
			return 0;
		case 'h': usage(stdout); return 0;
		case 'S':
			if (!parse_u64(optarg, &fo.seed))
				goto bad_number;
			seed_set = true;
			break;
		case 'C':
			if (!parse_u64(optarg, &fo.count))
				goto bad_number;
			break;
		case 'T':
			if (!parse_u64(optarg, &v) || v > 1000000)
				goto bad_number;
			fo.time_s = (unsigned int)v;
			break;
		case 'D':
			if (!parse_u64(optarg, &v) || !v || v > 64)
				goto bad_number;
			fo.depth = (unsigned int)v;
			break;
		case 'O':
			if (!parse_u64(optarg, &v) || v < 100 || v > 600000)
				goto bad_number;
			fo.cmd_timeout_ms = (unsigned int)v;
			break;
		case 'K': fo.keep_going = true; break;
		case 'R': fo.trace++; break;
		case 'k': fo.known = optarg; break;
		case 'A': c.t.src = optarg; break;
		case 'U':
			if (!parse_u64(optarg, &v) || v > 3600)
				goto bad_number;
			c.duration_s = (unsigned int)v;
			break;
		case 'P':
			if (!parse_u64(optarg, &v) || v > 100000)
				goto bad_number;
			c.max_pending = (int)v;
			break;
		case 'Q':
			if (!parse_u64(optarg, &v) || !v || v > MAX_ATTACK_QUEUES)
				goto bad_number;
			c.queues = (int)v;
			break;
		case 'X':
			if (!parse_u64(optarg, &v) || !v || v > 3600)
				goto bad_number;
			c.drop_ms = (int64_t)v * 1000;
			break;
		default: usage(stderr); return 2;
		}
	}
	for (i = optind; i < argc; i++)
		if (!strcmp(argv[i], "fuzz"))
			fuzz = true;
	if (fuzz && (argc - optind != 1 || !seed_set ||
		     (!fo.count && !fo.time_s))) {
		fprintf(stderr, "nvmf-wire: fuzz runs alone and needs --seed and --count or --time\n");
		usage(stderr);
		return 2;
	}
	if (!c.t.addr || !c.t.svc || !c.t.subnqn || optind >= argc) {
		usage(stderr);
		return 2;
	}
	if (fuzz) {
		/* The seed determines everything, the host identity too. */
		uint64_t x = fo.seed ^ 0x4057;

		for (k = 0; k < 16; k++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			c.t.hostid[k] = (uint8_t)(x >> 56);
		}
	} else {
		ur = fopen("/dev/urandom", "r");
		if (!ur || fread(c.t.hostid, 1, 16, ur) != 16)
			memset(c.t.hostid, 0x5a, 16);
		if (ur)
			fclose(ur);
	}
	c.t.hostid[6] = (c.t.hostid[6] & 0x0f) | 0x40;
	c.t.hostid[8] = (c.t.hostid[8] & 0x3f) | 0x80;
	if (!c.t.hostnqn) {
		const uint8_t *u = c.t.hostid;

		snprintf(hostnqn, sizeof(hostnqn),
			 "nqn.2014-08.org.nvmexpress:uuid:%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8],
			 u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
		c.t.hostnqn = hostnqn;
	}

	if (fuzz) {
		if (!c.auth_subnqn != !c.auth_hostnqn) {
			fprintf(stderr, "nvmf-wire: fuzz: --auth-subnqn and --auth-hostnqn go together\n");
			return 2;
		}
		fo.auth_subnqn = c.auth_subnqn;
		fo.auth_hostnqn = c.auth_hostnqn;
		snprintf(cmdline, sizeof(cmdline),
			 "nvmf-wire -a %s -s %s -n %s%s%s%s%s%s%s%s fuzz --depth %u --cmd-timeout %u%s%s",
			 c.t.addr, c.t.svc, c.t.subnqn,
			 c.t.hostnqn == hostnqn ? "" : " --hostnqn ",
			 c.t.hostnqn == hostnqn ? "" : c.t.hostnqn,
			 nw_use_mw ? "" : " --no-mw",
			 c.auth_subnqn ? " --auth-subnqn " : "",
			 c.auth_subnqn ? c.auth_subnqn : "",
			 c.auth_hostnqn ? " --auth-hostnqn " : "",
			 c.auth_hostnqn ? c.auth_hostnqn : "",
			 fo.depth, fo.cmd_timeout_ms,
			 fo.known ? " --known " : "", fo.known ? fo.known : "");
		fo.cmdline = cmdline;
		/* The reproducer has the nominal limit; the run, the scaled one. */
		fo.cmd_timeout_ms = (unsigned int)nw_scaled_ms((int)fo.cmd_timeout_ms);
		return nw_fuzz(&c.t, &fo);
	}
	for (i = optind; i < argc; i++) {
		bool all = !strcmp(argv[i], "all"), found = false;

		for (k = 0; k < NSCEN; k++) {
			if ((all && !scenarios[k].by_name) ||
			    !strcmp(argv[i], scenarios[k].name)) {
				failed += run(&c, &scenarios[k]);
				found = true;
			}
		}
		if (!found) {
			fprintf(stderr, "nvmf-wire: no scenario %s\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	return failed ? 1 : 0;
bad_number:
	fprintf(stderr, "nvmf-wire: bad number for an option: %s\n", optarg);
	return 2;
}
