// SPDX-License-Identifier: GPL-2.0
/*
 * nvmf-wire fuzz: a seeded, reproducible stream of mutated capsules.
 *
 * The run keeps one controller (admin queue, I/O queue 1) and sends one
 * capsule per iteration, most of them mutations of a valid command:
 * opcodes (vendor, reserved), flags (fuse, PSDT, reserved bits), SGL
 * descriptors (types, subtypes, lengths, offsets, keys, in-capsule data),
 * namespaces (0, 0xffffffff, absent; a Flush of every namespace, which
 * must succeed), LBAs past the end, log page offsets past the end of the
 * log, reserved fields, Fabrics commands with any fctype.  Some iterations
 * instead open a fresh queue with random CM private data (admin queues
 * deeper than 32 entries are refused) and a random Connect (guessed
 * CNTLIDs, a host ID that is not the controller's, control characters in
 * the host NQN), send a truncated or oversize capsule, describe data with a
 * key the target cannot use, or drop queues abruptly with commands in
 * flight.  With --auth-subnqn and --auth-hostnqn (a subsystem on which that
 * host must authenticate; the fuzzer never knows its key), some iterations
 * open a queue there and send mutated DH-HMAC-CHAP messages (do_auth()).
 *
 * Determinism: iteration i draws every choice from its own generator,
 * seeded with (seed, i), so it sends the same capsule whatever happened
 * before it.  What only the live connection knows -- the cntlid, rkeys,
 * buffer addresses -- is filled in from it ("the data MR's key with a
 * wrong key byte", "4 KiB before the registered buffer").
 *
 * Every answer is checked: its cid is outstanding, its SQ id is the
 * queue's, its SQ head lies between what the target had received when it
 * took the command and what it has received now, its status is one the
 * specification defines, and commands that can only fail (an invalid
 * opcode, nsid, LBA range, SGL, field) do not succeed while untouched
 * valid ones do.  A command without an answer after cmd_timeout_ms is a
 * hang.  The target may drop a queue after a capsule that allows it (short
 * or oversize capsule, unusable key); then the run reconnects and counts
 * it.  A drop without such a cause is a finding.
 *
 * Memory the target may write into is the data MR of each queue, laid out
 * as: source (host-to-controller data), one 4 KiB block per cid (DSM
 * ranges, Connect data), sink (controller-to-host data), library scratch.
 * Descriptors meant to be valid always lie inside it; the invalid ones are
 * built to be invalid (wrong key byte, a key without remote access,
 * addresses outside the MR) and mark their queue as one the target may
 * drop.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nvmf-wire.h"

#define KIB		1024u
#define MIB		(1024u * 1024u)
#define MDTS_BYTES	MIB		/* what the target advertises (checked) */
#define SRC_IO		(MIB + 64 * KIB)
#define SRC_SMALL	(64 * KIB)
#define SINK_SIZE	(MIB + 64 * KIB)
#define CID_BLOCK	4096u
#define FRESH_SLOTS	8
#define MAX_NS		16
#define DISC_NQN	"nqn.2014-08.org.nvmexpress.discovery"

/* ---- random numbers ------------------------------------------------------ */

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The generator of one iteration and purpose (0: the capsule, 1: setup). */
static void rng_for(struct rng *r, uint64_t seed, uint64_t iter, int stream)
{
	r->s = seed ^ (iter + 1) * 0xd1342543de82ef95ull ^
	       (uint64_t)stream << 56;
	rnd(r);
}

static uint32_t below(struct rng *r, uint32_t n)
{
	return n ? (uint32_t)(rnd(r) % n) : 0;
}

/* True with probability pm / 1000. */
static bool chance(struct rng *r, unsigned int pm)
{
	return below(r, 1000) < pm;
}

/* Index into weights[n], chosen in proportion to the weights. */
static int pickw(struct rng *r, const unsigned int *w, int n)
{
	unsigned int sum = 0, x;
	int i;

	for (i = 0; i < n; i++)
		sum += w[i];
	x = below(r, sum);
	for (i = 0; i < n; i++) {
		if (x < w[i])
			return i;
		x -= w[i];
	}
	return n - 1;
}

#define PICKW(r, ...) ({ static const unsigned int w_[] = { __VA_ARGS__ }; \
			 pickw(r, w_, sizeof(w_) / sizeof(w_[0])); })

static uint32_t pick32(struct rng *r, const uint32_t *v, int n)
{
	return v[below(r, n)];
}

#define PICK(r, ...) ({ static const uint32_t v_[] = { __VA_ARGS__ }; \
			pick32(r, v_, sizeof(v_) / sizeof(v_[0])); })

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- state ------------------------------------------------------------------ */

enum effect {
	FX_NONE,
	FX_CC,		/* Property Set CC: the controller may be disabled */
	FX_KATO,	/* Set Features KATO */
	FX_NQ,		/* Set Features Number of Queues */
	FX_CONNECT,	/* Connect on a fresh queue */
	FX_SETUP,	/* the harness's own command (fz_exec) */
};

/* One command in flight, by cid. */
struct fz_rec {
	bool live;
	bool held;		/* an AER: held by design, no timeout */
	bool must_fail;		/* only an error status is right */
	uint16_t want;		/* ... and this one (SCT << 8 | SC), if not 0 */
	bool alt_ok;		/* ... or Invalid Log Page instead */
	bool must_pass;		/* untouched valid command: must succeed */
	bool must_drop;		/* no answer: the queue must go */
	bool done;		/* FX_SETUP: completed, cqe below */
	uint8_t effect;
	uint8_t cattr;		/* Connect: its CATTR */
	uint64_t iter;
	uint64_t seq;		/* the queue's capsule count after posting */
	uint64_t epoch;		/* f->cc_epoch when posted */
	int64_t t0;
	struct nvme_cqe cqe;
	char why[96];		/* why it must fail */
	char what[256];
};

struct fz_q {
	struct nw_queue q;
	const char *name;
	bool open;		/* q holds resources */
	bool up;		/* usable: not dropped */
	bool risky;		/* sent something that allows a drop */
	bool killed;		/* we dropped it on purpose */
	bool connected;		/* a Connect succeeded */
	bool sqfc_off;		/* ... and disabled SQ flow control */
	bool disc;		/* discovery controller */
	bool fresh;
	uint16_t hsqsize;
	uint32_t icd;		/* in-capsule data the target takes */
	size_t src_off, src_len, cid_off, sink_off, sink_len, region;
	struct fz_rec *recs;
	int nrecs;
	int inflight;		/* records live */
	int held;		/* AERs among them */
	int perr;		/* protocol errors already reported */
	char last[2][288];	/* the last capsules, for drop reports */
};

struct fz {
	const struct nw_target *t;
	const struct nw_fuzz_opts *o;
	struct fz_q admin, io, fresh;
	uint64_t iter;

	/* The target, as learned at the first setup. */
	bool learned;
	uint32_t icd;
	uint32_t mqes1;		/* CAP.MQES + 1 */
	uint32_t aerl;
	uint32_t nn;
	uint32_t err_log_size;	/* bytes: (ELPE + 1) * 64 */
	uint8_t vwc;		/* Identify Controller VWC */
	int nns;
	struct nw_ns ns[MAX_NS];
	uint16_t granted;	/* I/O queues granted */
	uint16_t cntlid;

	/* Main controller state. */
	bool ctrl_risky;	/* KATO touched: a drop is allowed */
	bool cc_dirty;		/* a Property Set CC succeeded */
	bool kato_dirty;
	uint64_t cc_epoch;	/* bumped by every Property Set CC posted */
	int cc_inflight;	/* Property Set CC records live */
	uint32_t fresh_qids;	/* I/O qids fresh queues connected (bit) */

	/* Counters. */
	uint64_t sent, total_caps, skipped, completed, success, by_sct[4], odd;
	uint64_t must_fail_seen, must_pass_seen, want_seen;
	uint64_t lost, held_lost, drops_expected, drops_self, drops_collateral;
	uint64_t drops_unexpected, reconnects, ctrl_resets;
	uint64_t fresh_n, cm_rejects, cm_no_rsc, connects_ok, connects_bad;
	uint64_t truncated, oversize, badkey, abrupt, raw;
	uint64_t auth_sessions, auth_msgs, auth_challenges, auth_failure1s;
	uint64_t auth_drops;
	int findings;
	uint64_t known;
	bool stop, hung;
	char first[512];
	uint64_t first_iter;
};

static volatile uint64_t g_iter;
static volatile uint64_t g_seed;
static const char *volatile g_cmdline;

static void on_watchdog(int sig)
{
	char buf[600];
	int n;

	(void)sig;
	n = snprintf(buf, sizeof(buf),
		     "FAIL fuzz: seed %llu iteration %llu: the client made no progress for too long (target hung?)\nfuzz: reproduce: %s --seed %llu --count %llu\n",
		     (unsigned long long)g_seed, (unsigned long long)g_iter,
		     g_cmdline ? g_cmdline : "nvmf-wire ... fuzz",
		     (unsigned long long)g_seed,
		     (unsigned long long)g_iter + 1);
	if (write(STDOUT_FILENO, buf, n) < 0)
		_exit(3);
	_exit(1);
}

/*
 * A finding.  Those with a tag the run was told is known (--known, an
 * open bug already reported) are printed as "known:" and counted, and the
 * run goes on; everything else fails the run.
 */
static void finding_tag(struct fz *f, uint64_t iter, const char *tag,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void finding_tag(struct fz *f, uint64_t iter, const char *tag,
			const char *fmt, ...)
{
	char msg[480];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (tag && f->o->known) {
		const char *k = f->o->known;
		size_t n = strlen(tag);

		while ((k = strstr(k, tag))) {
			if ((k == f->o->known || k[-1] == ',') &&
			    (k[n] == ',' || !k[n])) {
				if (!f->known++)
					printf("known: seed %llu iteration %llu: [%s] %s\n",
					       (unsigned long long)f->o->seed,
					       (unsigned long long)iter, tag, msg);
				return;
			}
			k += n;
		}
	}
	if (!f->findings++) {
		snprintf(f->first, sizeof(f->first), "%s", msg);
		f->first_iter = iter;
	}
	if (f->findings <= 50)
		printf("finding: seed %llu iteration %llu: %s%s%s%s\n",
		       (unsigned long long)f->o->seed,
		       (unsigned long long)iter, tag ? "[" : "", tag ? tag : "",
		       tag ? "] " : "", msg);
	if (!f->o->keep_going)
		f->stop = true;
}

#define finding(f, iter, ...) finding_tag(f, iter, NULL, __VA_ARGS__)

/* ---- queues -------------------------------------------------------------- */

static void fq_layout(struct fz_q *fq, size_t src, size_t sink)
{
	fq->src_off = 0;
	fq->src_len = src;
	fq->cid_off = src;
	fq->sink_off = src + (size_t)fq->q.nslots * CID_BLOCK;
	fq->sink_len = sink;
	fq->region = fq->sink_off + sink;
}

static size_t region_size(int nslots, size_t src, size_t sink)
{
	return src + (size_t)nslots * CID_BLOCK + sink;
}

/* Source data: the same bytes for the same seed. */
static void fill_source(struct fz *f, struct fz_q *fq)
{
	struct rng r = { f->o->seed ^ 0x50f7ull };
	size_t i, chunk = fq->src_len < 65536 ? fq->src_len : 65536;

	for (i = 0; i + 8 <= chunk; i += 8) {
		uint64_t v = rnd(&r);

		memcpy(fq->q.data + i, &v, 8);
	}
	for (i = chunk; i < fq->src_len; i += chunk)
		memcpy(fq->q.data + i, fq->q.data,
		       fq->src_len - i < chunk ? fq->src_len - i : chunk);
}

static int fq_open(struct fz *f, struct fz_q *fq, const char *name,
		   struct nw_conn_opts *o, size_t src, size_t sink, int *rej)
{
	int nslots = o->nslots ? o->nslots : o->hsqsize + 1, ret;

	memset(fq, 0, sizeof(*fq));
	fq->name = name;
	o->data_size = region_size(nslots, src, sink);
	ret = nw_connect(&fq->q, f->t, o, rej);
	if (ret != NW_CONN_OK)
		return ret;
	fq->open = fq->up = true;
	fq->hsqsize = o->hsqsize;
	fq->icd = o->qid ? f->icd : 0;
	fq->nrecs = fq->q.nslots;
	fq->recs = calloc(fq->nrecs, sizeof(*fq->recs));
	if (!fq->recs) {
		nw_abort(&fq->q);
		fq->open = fq->up = false;
		snprintf(nw_err, sizeof(nw_err), "out of memory");
		return NW_CONN_ERROR;
	}
	fq_layout(fq, src, sink);
	if (fq->region > o->data_size) {
		/* The library chose another slot count: never overrun its scratch. */
		nw_abort(&fq->q);
		free(fq->recs);
		fq->recs = NULL;
		fq->open = fq->up = false;
		snprintf(nw_err, sizeof(nw_err), "data layout: %d slots", nslots);
		return NW_CONN_ERROR;
	}
	fill_source(f, fq);
	return NW_CONN_OK;
}

static void fq_count_lost(struct fz *f, struct fz_q *fq)
{
	int i;

	for (i = 0; i < fq->nrecs; i++) {
		struct fz_rec *rec = &fq->recs[i];

		if (!rec->live)
			continue;
		if (rec->held)
			f->held_lost++;
		else if (!rec->must_drop)
			f->lost++;
		if (rec->effect == FX_CC)
			f->cc_inflight--;
		rec->live = false;
	}
	fq->inflight = fq->held = 0;
}

static void fq_close(struct fz *f, struct fz_q *fq, bool graceful)
{
	if (!fq->open)
		return;
	fq_count_lost(f, fq);
	f->total_caps += fq->q.capsules;
	if (graceful && fq->up)
		nw_close(&fq->q);
	else
		nw_abort(&fq->q);
	free(fq->recs);
	fq->recs = NULL;
	fq->open = fq->up = false;
}

/* ---- describing capsules ------------------------------------------------- */

static const char *opname(bool io, uint8_t op)
{
	if (op == NVME_OPC_FABRICS)
		return "Fabrics";
	if (io) {
		switch (op) {
		case 0x00: return "Flush";
		case 0x01: return "Write";
		case 0x02: return "Read";
		case 0x08: return "Write Zeroes";
		case 0x09: return "DSM";
		/* Reservations: Invalid Opcode only where they are off. */
		case 0x0d: return "Reservation Register";
		case 0x0e: return "Reservation Report";
		case 0x11: return "Reservation Acquire";
		case 0x15: return "Reservation Release";
		default: return NULL;
		}
	}
	switch (op) {
	case 0x02: return "Get Log Page";
	case 0x06: return "Identify";
	case 0x08: return "Abort";
	case 0x09: return "Set Features";
	case 0x0a: return "Get Features";
	case 0x0c: return "AER";
	case 0x18: return "Keep Alive";
	default: return NULL;
	}
}

static void describe(struct fz_q *fq, const struct nvme_sqe *s,
		     const struct nw_xfer *x, char *buf, size_t len)
{
	const char *n = opname(fq->q.qid != 0, s->opcode);
	uint32_t klen = s->dptr[8] | s->dptr[9] << 8 | s->dptr[10] << 16;
	uint32_t dlen;
	uint64_t addr;
	char sgl[64], op[40];

	memcpy(&addr, s->dptr, 8);
	memcpy(&dlen, s->dptr + 8, 4);
	if (s->opcode == NVME_OPC_FABRICS)
		snprintf(op, sizeof(op), "Fabrics fctype %#04x",
			 ((const uint8_t *)s)[4]);
	else if (n)
		snprintf(op, sizeof(op), "%s", n);
	else
		snprintf(op, sizeof(op), "opcode %#04x", s->opcode);
	if (s->dptr[15] >> 4 == 4)
		snprintf(sgl, sizeof(sgl), "sgl %#04x len %u", s->dptr[15],
			 klen);
	else
		snprintf(sgl, sizeof(sgl), "sgl %#04x off %#llx len %u",
			 s->dptr[15], (unsigned long long)le64toh(addr),
			 le32toh(dlen));
	snprintf(buf, len,
		 "%s queue %u: %s flags %#04x nsid %#x cdw10 %#x cdw11 %#x cdw12 %#x, %s%s",
		 fq->name, fq->q.qid, op, s->flags, le32toh(s->nsid),
		 le32toh(s->cdw10), le32toh(s->cdw11), le32toh(s->cdw12), sgl,
		 x->capsule_len_set ? ", truncated capsule" :
		 x->icd_len > fq->icd ? ", oversize capsule" :
		 x->icd_len ? ", +data" : "");
}

/* ---- one capsule --------------------------------------------------------- */

struct cap {
	struct fz_q *fq;
	struct nvme_sqe sqe;
	struct nw_xfer x;
	int cid;		/* the slot it goes out on (keep_cid) */
	/* What the command implies. */
	int64_t dlen;		/* data length; -1 unknown */
	bool to_host;
	bool dlen_min;		/* DSM: a longer SGL is fine */
	bool mutated;		/* anything but a valid command */
	bool valid_base;	/* the base command is a supported valid one */
	bool must_drop;
	bool risky;
	bool held;
	enum effect effect;
	char why[96];
	int reasons;		/* must_fail calls: more than one, any error */
	uint16_t want;		/* the first reason's status, if it has one */
	bool alt_ok;		/* want Invalid Field: Invalid Log Page will do */
};

static void cap_init(struct cap *c, struct fz_q *fq, uint8_t op)
{
	memset(c, 0, sizeof(*c));
	c->fq = fq;
	nw_sqe_init(&c->sqe, op);
	c->x.sgl = NW_SGL_NONE;
	c->cid = nw_free_cid(&fq->q);
	c->dlen = 0;
}

static void must_fail(struct cap *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void must_fail_va(struct cap *c, uint16_t want, const char *fmt,
			 va_list ap)
{
	c->mutated = true;
	c->reasons++;
	if (c->why[0])
		return;
	c->want = want;
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
}

static void must_fail(struct cap *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	must_fail_va(c, 0, fmt, ap);
	va_end(ap);
}

/*
 * The specification names the status for this reason (SCT << 8 | SC): a
 * command with no other reason to fail must get exactly that one.
 */
static bool is_connect(const struct cap *c);

static bool ns_active(const struct fz *f, uint32_t nsid)
{
	for (int i = 0; i < f->nns; i++)
		if (f->ns[i].nsid == nsid)
			return true;
	return false;
}
static void must_fail_sc(struct cap *c, uint16_t want, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void must_fail_sc(struct cap *c, uint16_t want, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	must_fail_va(c, want, fmt, ap);
	va_end(ap);
}

static uint8_t *cid_block(struct cap *c)
{
	return c->fq->q.data + c->fq->cid_off + (size_t)c->cid * CID_BLOCK;
}

static size_t cid_block_off(struct cap *c)
{
	return c->fq->cid_off + (size_t)c->cid * CID_BLOCK;
}

/* An offset for len bytes in [off, off + alen), else anywhere registered; -1: none. */
static int64_t place(struct fz_q *fq, struct rng *r, size_t off, size_t alen,
		     uint32_t len)
{
	size_t span;

	if (len <= alen) {
		span = alen - len;
	} else if (len <= fq->region) {
		off = 0;
		span = fq->region - len;
	} else {
		return -1;
	}
	/* Mostly 8-byte aligned, sometimes anywhere. */
	off += chance(r, 900) ? (below(r, span / 8 + 1) * 8) : below(r, span + 1);
	return (int64_t)off;
}

static uint32_t mutate_len(struct rng *r, uint32_t len)
{
	switch (below(r, 12)) {
	case 0: return 0;
	case 1: return len + 1;
	case 2: return len ? len - 1 : 1;
	case 3: return len * 2;
	case 4: return len / 2;
	case 5: return MDTS_BYTES;
	case 6: return MDTS_BYTES + 1;
	case 7: return 0xffffff;
	case 8: return below(r, 0x1000000);
	case 9: return below(r, 65536);
	case 10: return 4096;
	default: return 512;
	}
}

/* The check the target must make between an SGL's length and the command. */
static void check_len(struct cap *c, uint64_t sgl_len)
{
	if (c->dlen < 0)
		return;
	if (sgl_len == (uint64_t)c->dlen)
		return;
	if (c->dlen_min && sgl_len > (uint64_t)c->dlen)
		return;
	must_fail(c, "SGL length %llu for a %lld-byte command",
		  (unsigned long long)sgl_len, (long long)c->dlen);
}

/* Keyed data, valid placement: 0x40 on the MR or 0x4F through a window. */
static void sgl_keyed(struct cap *c, struct rng *r, bool inv, uint32_t len,
		      int64_t fixed)
{
	struct fz_q *fq = c->fq;
	int64_t off;

	if (len > 0xffffff)
		len = 0xffffff;
	if (fixed >= 0 && (size_t)fixed + len <= fq->region)
		off = fixed;
	else if (c->to_host || c->dlen < 0)
		off = place(fq, r, fq->sink_off, fq->sink_len, len);
	else
		off = place(fq, r, fq->src_off, fq->src_len, len);
	check_len(c, len);
	if (off < 0) {
		/*
		 * Longer than the registered buffer: only ever beyond MDTS,
		 * which the target must refuse before moving data.  Should
		 * it try, the HCA refuses the access (and the queue goes).
		 */
		nw_sgl_keyed(&c->sqe, inv ? NVME_SGL_KEYED_INV : NVME_SGL_KEYED,
			     (uintptr_t)fq->q.data, len, fq->q.dmr->rkey);
		c->x.sgl = NW_SGL_RAW;
		c->risky = true;
		if (len > MDTS_BYTES)
			must_fail(c, "keyed length %u beyond MDTS", len);
		return;
	}
	if (len > MDTS_BYTES)
		must_fail(c, "keyed length %u beyond MDTS", len);
	c->x.sgl = inv ? NW_SGL_KEYED_INV : NW_SGL_KEYED;
	c->x.off = (size_t)off;
	c->x.len = len;
}

/*
 * In-capsule data (0x01): descriptor offset/length and the bytes sent
 * after the SQE, from src (an offset in the data buffer).
 */
static void sgl_incap(struct cap *c, struct rng *r, uint32_t len, int64_t src,
		      bool mutate)
{
	struct fz_q *fq = c->fq;
	uint64_t off = 0, dl = len, sent = len, cap = fq->icd;

	if (mutate) {
		c->mutated = true;
		switch (below(r, 4)) {
		case 0:
			off = PICK(r, 1, 8, 512, 4096, 0x10000, 0xffffffff);
			if (chance(r, 300))
				off = cap + PICK(r, 0, 1, 4096);
			if (chance(r, 100))
				off = PICK(r, 0, 1, 2) ? ~0ull - 4095 : 1ull << 33;
			break;
		case 1:
			dl = mutate_len(r, len);
			if (chance(r, 200))
				dl = 0xffffffffu;
			break;
		case 2:
			sent = below(r, (uint32_t)cap + 1);
			break;
		default:
			off = below(r, 2048);
			dl = below(r, (uint32_t)cap + 1);
			sent = below(r, (uint32_t)cap + 1);
			break;
		}
	}
	if (sent > cap)
		sent = cap;	/* more would overflow the receive: not here */
	if (src < 0 || (size_t)src + sent > fq->region)
		src = place(fq, r, fq->src_off, fq->src_len, (uint32_t)sent);
	nw_sgl_data(&c->sqe, NVME_SGL_INCAPSULE, off, (uint32_t)dl);
	if (mutate && chance(r, 150))
		c->sqe.dptr[12 + below(r, 3)] = (uint8_t)rnd(r);	/* reserved */
	c->x.sgl = NW_SGL_RAW;
	c->x.icd_len = (uint32_t)sent;
	c->x.icd_off = (size_t)src;
	if (!fq->icd)
		must_fail(c, "in-capsule data on a queue without in-capsule buffers");
	else if (c->to_host)
		must_fail(c, "in-capsule descriptor for controller-to-host data");
	else if (off > cap || off > sent)
		must_fail(c, "in-capsule offset %#llx (%llu bytes sent)",
			  (unsigned long long)off, (unsigned long long)sent);
	else if (dl > cap - off || dl > sent - off)
		must_fail(c, "in-capsule length %llu at offset %llu (%llu bytes sent)",
			  (unsigned long long)dl, (unsigned long long)off,
			  (unsigned long long)sent);
	else
		check_len(c, dl);
}

/*
 * Reserved keyed subtypes (0x41..0x4e) carry a key: make it one that is
 * invalid by construction (the data MR's index with a wrong key byte), so
 * a target that wrongly used it could only fail, never reach memory.
 */
static void defuse_key(struct cap *c)
{
	uint32_t key = c->fq->q.dmr->rkey;

	if (c->sqe.dptr[15] >> 4 != 4)
		return;
	key = (key & ~0xffu) | (uint8_t)((key & 0xff) ^ 0x5a);
	key = htole32(key);
	memcpy(c->sqe.dptr + 11, &key, 4);
}

/* A descriptor type the target does not take, with random contents. */
static void sgl_weird(struct cap *c, struct rng *r)
{
	uint8_t type;
	int i;

	do {
		type = (uint8_t)PICK(r, 0x00, 0x02, 0x0f, 0x10, 0x11, 0x20, 0x21,
				     0x30, 0x31, 0x41, 0x42, 0x4e, 0x50, 0x5f,
				     0x60, 0x80, 0xf0, 0xff, 0x100);
		if (type == 0 && chance(r, 500))
			type = (uint8_t)rnd(r);
	} while (type == NVME_SGL_KEYED || type == NVME_SGL_KEYED_INV ||
		 type == NVME_SGL_INCAPSULE);
	for (i = 0; i < 15; i++)
		c->sqe.dptr[i] = (uint8_t)rnd(r);
	c->sqe.dptr[15] = type;
	defuse_key(c);
	c->x.sgl = NW_SGL_RAW;
	must_fail(c, "SGL descriptor type %#04x", type);
}

/*
 * A key or address the target cannot use: the transfer fails in the HCA
 * and the target should drop the queue.  Each variant is invalid by
 * construction, never a random key that might name someone's memory.
 */
static void sgl_badkey(struct cap *c, struct rng *r, uint32_t len)
{
	struct nw_queue *q = &c->fq->q;
	uint8_t type = chance(r, 800) ? NVME_SGL_KEYED : NVME_SGL_KEYED_INV;
	uint64_t addr = (uintptr_t)(q->data + c->fq->sink_off);
	uint32_t key = q->dmr->rkey;

	switch (below(r, 5)) {
	case 0:		/* the MR's index, a wrong key byte */
		key = (key & ~0xffu) | (uint8_t)((key & 0xff) + 1 + below(r, 255));
		break;
	case 1:		/* a key with no remote access (the receive MR) */
		key = q->rmr->rkey;
		break;
	case 2:		/* before the MR */
		addr = (uintptr_t)q->data - 4096 * (1 + below(r, 16));
		break;
	case 3:		/* across the end of the MR */
		addr = (uintptr_t)q->data + q->data_size - (len > 1 ? len / 2 : 0);
		if (len < 2)
			addr = (uintptr_t)q->data + q->data_size;
		break;
	default:	/* far away */
		addr = (uintptr_t)q->data + q->data_size + (1ull << 32) +
		       below(r, 1u << 20) * 4096ull;
		break;
	}
	nw_sgl_keyed(&c->sqe, type, addr, len, key);
	c->x.sgl = NW_SGL_RAW;
	c->risky = true;
	c->mutated = true;
}

/* Choose how data is described; valid most of the time. */
static void sgl_any(struct cap *c, struct rng *r, int64_t src)
{
	uint32_t len = c->dlen > 0 ? (uint32_t)c->dlen : 0;
	bool mut = chance(r, 120);

	if (c->dlen == 0 && !mut) {
		if (chance(r, 850)) {
			c->x.sgl = NW_SGL_NONE;
		} else {
			/* Keyed, length 0, a real key (0x40) or a window. */
			sgl_keyed(c, r, chance(r, 300), 0, -1);
		}
		return;
	}
	if (c->dlen < 0) {
		/* Unknown command: some small buffer, or none. */
		len = PICK(r, 0, 0, 16, 64, 512, 4096, 8192);
		if (!len) {
			c->x.sgl = NW_SGL_NONE;
			return;
		}
		mut = false;
	}
	if (mut)
		len = mutate_len(r, len);
	switch (PICKW(r, 480, 260, 200, 60)) {
	case 0:
		sgl_keyed(c, r, false, len, src);
		break;
	case 1:
		sgl_keyed(c, r, len != 0, len, src);
		break;
	case 2:
		if (c->fq->icd && !c->to_host && (c->dlen >= 0 || mut)) {
			sgl_incap(c, r, len, src, mut || chance(r, 60));
			break;
		}
		sgl_keyed(c, r, false, len, src);
		break;
	default:
		sgl_weird(c, r);
		break;
	}
}

/* Mutations any command may get on top: flags, reserved dwords. */
static void mutate_common(struct cap *c, struct rng *r)
{
	struct nvme_sqe *s = &c->sqe;

	if (chance(r, 40)) {
		s->flags = (uint8_t)rnd(r);
		if ((s->flags & 3) || (s->flags & 0xc0) != NVME_FLAGS_SGL)
			must_fail(c, "flags %#04x (fused or not SGL)", s->flags);
	} else if (chance(r, 30)) {
		s->flags |= (uint8_t)(below(r, 16) << 2);	/* reserved bits */
		c->mutated = true;
	}
	if (chance(r, 40)) {
		s->cdw2 = (uint32_t)rnd(r);
		s->cdw3 = (uint32_t)rnd(r);
		c->mutated = true;
	}
	if (chance(r, 30)) {
		s->mptr = rnd(r);
		c->mutated = true;
	}
}

/* ---- I/O commands ----------------------------------------------------------- */

static const struct nw_ns *pick_ns(struct fz *f, struct rng *r, struct cap *c,
				   uint32_t *nsid)
{
	const struct nw_ns *ns = &f->ns[below(r, f->nns)];

	*nsid = ns->nsid;
	if (chance(r, 130)) {
		c->mutated = true;
		switch (below(r, 4)) {
		case 0: *nsid = 0; break;
		case 1: *nsid = 0xffffffff; break;
		case 2: *nsid = f->nn + 1 + below(r, 4); break;
		default: *nsid = (uint32_t)rnd(r); break;
		}
		for (int i = 0; i < f->nns; i++)
			if (f->ns[i].nsid == *nsid)
				return &f->ns[i];
		must_fail_sc(c, SC_INVALID_NS, "nsid %#x is not an active namespace",
			     *nsid);
	}
	return ns;
}

/* An LBA range: valid mostly, past the end sometimes. */
static void pick_range(struct fz *f, struct rng *r, struct cap *c,
		       const struct nw_ns *ns, uint32_t max_nlb, uint64_t *slba,
		       uint32_t *nlb)
{
	(void)f;
	switch (PICKW(r, 600, 250, 80, 70)) {
	case 0: *nlb = 1 + below(r, 8); break;
	case 1: *nlb = 1 + below(r, 256); break;
	case 2: *nlb = 1 + below(r, max_nlb); break;
	default: *nlb = 1 + below(r, 65536); break;
	}
	if ((uint64_t)*nlb > ns->nsze)
		*nlb = (uint32_t)ns->nsze;
	*slba = rnd(r) % (ns->nsze - *nlb + 1);
	if (chance(r, 100)) {
		c->mutated = true;
		switch (below(r, 5)) {
		case 0: *slba = ns->nsze; break;
		case 1: *slba = ns->nsze - *nlb + 1 + below(r, *nlb); break;
		case 2: *slba = ~0ull - below(r, 4); break;
		case 3: *slba = 1ull << (33 + below(r, 30)); break;
		default: *slba = ns->nsze + below(r, 1u << 20); break;
		}
		if (*slba >= ns->nsze || *nlb > ns->nsze - *slba)
			must_fail_sc(c, SC_LBA_RANGE,
				     "LBA %#llx + %u beyond the namespace's %llu blocks",
				  (unsigned long long)*slba, *nlb,
				  (unsigned long long)ns->nsze);
	}
}

static void gen_io(struct fz *f, struct fz_q *fq, struct rng *r, struct cap *c)
{
	const struct nw_ns *ns;
	uint32_t nsid, nlb, max_nlb;
	uint64_t slba;
	int64_t src = -1;
	int kind = PICKW(r, 270, 270, 60, 80, 80, 40, 200);

	static const uint8_t ops[] = { NVME_IO_READ, NVME_IO_WRITE,
				       NVME_IO_FLUSH, 0x08, 0x09 };

	if (kind < 5) {
		cap_init(c, fq, ops[kind]);
		c->valid_base = true;
		ns = pick_ns(f, r, c, &nsid);
		if (kind == 2 && (nsid == 0xffffffff || chance(r, 150))) {
			/*
			 * Flush of every namespace (NSID FFFFFFFFh): valid
			 * unless VWC's Flush Behavior says it is not supported.
			 * Nothing else is mutated yet.
			 */
			nsid = 0xffffffff;
			c->mutated = false;
			c->why[0] = 0;
			c->reasons = 0;
			c->want = 0;
			if (((f->vwc >> 1) & 3) == 2)
				must_fail(c, "Flush of NSID 0xffffffff with VWC %#x",
					  f->vwc);
		}
		c->sqe.nsid = htole32(nsid);
		max_nlb = MDTS_BYTES >> ns->lba_shift;
		switch (kind) {
		case 0:
		case 1:
			pick_range(f, r, c, ns, max_nlb, &slba, &nlb);
			nw_rw_sqe(&c->sqe, ops[kind], nsid, slba, nlb);
			if (chance(r, 100)) {
				/* FUA, LR, PRINFO, DTYPE bits */
				c->sqe.cdw12 |= htole32((uint32_t)below(r, 65536) << 16);
				c->mutated = true;
			}
			c->dlen = (int64_t)nlb << ns->lba_shift;
			c->to_host = kind == 0;
			if ((uint64_t)c->dlen > MDTS_BYTES)
				must_fail(c, "%u blocks beyond MDTS", nlb);
			break;
		case 3:
			pick_range(f, r, c, ns, 65536, &slba, &nlb);
			c->sqe.cdw10 = htole32((uint32_t)slba);
			c->sqe.cdw11 = htole32((uint32_t)(slba >> 32));
			c->sqe.cdw12 = htole32(nlb - 1);
			if (chance(r, 100)) {
				c->sqe.cdw12 |= htole32((uint32_t)below(r, 65536) << 16);
				c->mutated = true;
			}
			break;
		case 4: {
			uint32_t nr = chance(r, 800) ? below(r, 8) : below(r, 256);
			uint8_t *b;
			uint32_t i;

			c->sqe.cdw10 = htole32(nr);
			c->sqe.cdw11 = htole32(chance(r, 700) ? 4 : (uint32_t)below(r, 8));
			c->dlen = (int64_t)(nr + 1) * 16;
			c->dlen_min = true;
			b = c->cid >= 0 ? cid_block(c) : NULL;
			src = c->cid >= 0 ? (int64_t)cid_block_off(c) : -1;
			if (!b)
				c->mutated = true;	/* ranges: whatever is there */
			for (i = 0; b && i <= nr; i++) {
				uint64_t s = rnd(r) % ns->nsze;
				uint32_t n = 1 + below(r, 64);

				if (n > ns->nsze - s)
					n = (uint32_t)(ns->nsze - s);
				if (chance(r, 30)) {
					s = ns->nsze - below(r, 4);
					n = 8;
					c->mutated = true;
					if (le32toh(c->sqe.cdw11) & 4)
						must_fail(c, "DSM deallocate range %u past the end", i);
				}
				memset(b + i * 16, 0, 16);
				memcpy(b + i * 16 + 4, &(uint32_t){ htole32(n) }, 4);
				memcpy(b + i * 16 + 8, &(uint64_t){ htole64(s) }, 8);
			}
			break;
		}
		default:
			break;
		}
	} else if (kind == 5) {
		cap_init(c, fq, NVME_OPC_FABRICS);
		((uint8_t *)&c->sqe)[4] = (uint8_t)PICK(r, 0x00, 0x01, 0x04, 0x05,
							0x06, 0x08, 0x7f, 0xff, 0x100);
		if (((uint8_t *)&c->sqe)[4] == 0)
			((uint8_t *)&c->sqe)[4] = (uint8_t)rnd(r);
		c->sqe.cdw10 = htole32((uint32_t)rnd(r) & 0xff);
		c->sqe.cdw11 = htole32(NVME_REG_CSTS);
		c->dlen = -1;
		must_fail(c, "Fabrics fctype %#04x on an I/O queue",
			  ((uint8_t *)&c->sqe)[4]);
	} else {
		uint8_t op;

		do {
			op = (uint8_t)(chance(r, 400) ? 0x80 + below(r, 128) :
				       rnd(r));
		} while (opname(true, op));
		cap_init(c, fq, op);
		c->sqe.nsid = htole32(chance(r, 700) ? f->ns[0].nsid :
				      (uint32_t)rnd(r));
		c->sqe.cdw10 = htole32((uint32_t)rnd(r));
		c->sqe.cdw11 = htole32((uint32_t)rnd(r));
		c->sqe.cdw12 = htole32((uint32_t)rnd(r));
		c->sqe.cdw13 = htole32((uint32_t)rnd(r));
		c->dlen = -1;
		must_fail_sc(c, SC_INVALID_OPCODE, "I/O opcode %#04x is not supported",
			     op);
	}
	if (chance(r, 30)) {
		c->sqe.cdw13 = htole32((uint32_t)rnd(r));
		c->sqe.cdw14 = htole32((uint32_t)rnd(r));
		c->sqe.cdw15 = htole32((uint32_t)rnd(r));
		c->mutated = true;
	}
	sgl_any(c, r, src);
	mutate_common(c, r);
}

/* ---- admin commands ------------------------------------------------------- */

static void gen_fabrics_admin(struct fz *f, struct fz_q *fq, struct rng *r,
			      struct cap *c)
{
	uint8_t *b = (uint8_t *)&c->sqe;
	uint32_t off, attrib;
	int kind = PICKW(r, 350, 250, 100, 300);

	cap_init(c, fq, NVME_OPC_FABRICS);
	c->valid_base = true;
	switch (kind) {
	case 0:		/* Property Get */
		b[4] = NVMF_FCTYPE_PROP_GET;
		off = PICK(r, 0x00, 0x08, 0x14, 0x1c, 0x00, 0x08, 0x14, 0x1c,
			   0x04, 0x0c, 0x10, 0x20, 0x24, 0x2c, 0xe00, 0x1000);
		if (chance(r, 100))
			off = (uint32_t)rnd(r);
		attrib = off == 0 ? 1 : 0;
		if (chance(r, 100)) {
			attrib = (uint32_t)rnd(r) & 0xff;
			c->mutated = true;
		}
		c->sqe.cdw10 = htole32(attrib);
		c->sqe.cdw11 = htole32(off);
		if (off != 0x00 && off != 0x08 && off != 0x14 && off != 0x1c &&
		    off != 0x20)
			must_fail(c, "Property Get of offset %#x", off);
		else if (off == 0x20 || (attrib & 7) != (off == 0 ? 1u : 0u) ||
			 (attrib & ~7u))
			c->mutated = true;	/* not asserted either way */
		break;
	case 1:		/* Property Set */
		b[4] = NVMF_FCTYPE_PROP_SET;
		off = chance(r, 850) ? NVME_REG_CC :
		      PICK(r, 0x00, 0x08, 0x1c, 0x20, 0x24, 0x100);
		c->sqe.cdw11 = htole32(off);
		switch (below(r, 5)) {
		case 0: c->sqe.cdw12 = htole32(1 | 6u << 16 | 4u << 20); break;
		case 1: c->sqe.cdw12 = htole32(1 | 6u << 16 | 4u << 20 | (1 + below(r, 3)) << 14); break;
		case 2: c->sqe.cdw12 = htole32(0); break;
		default: c->sqe.cdw12 = htole32((uint32_t)rnd(r)); break;
		}
		if (chance(r, 100))
			c->sqe.cdw13 = htole32((uint32_t)rnd(r));
		if (chance(r, 100))
			c->sqe.cdw10 = htole32((uint32_t)rnd(r) & 0xff);
		c->mutated = true;	/* changes the controller: no must-pass */
		if (off == NVME_REG_CC && !fq->fresh)
			c->effect = FX_CC;
		if (off != NVME_REG_CC && off != 0x20)
			must_fail(c, "Property Set of offset %#x", off);
		break;
	case 2:		/* Connect on a connected queue */
		b[4] = NVMF_FCTYPE_CONNECT;
		c->sqe.cdw10 = htole32((uint32_t)fq->q.qid << 16);
		c->sqe.cdw11 = htole32(fq->hsqsize);
		c->dlen = 1024;
		if (c->cid >= 0) {
			uint8_t *d = cid_block(c);
			int i;

			for (i = 0; i < 1024; i += 8)
				memcpy(d + i, &(uint64_t){ rnd(r) }, 8);
			snprintf((char *)d + 256, 256, "%s", f->t->subnqn);
			snprintf((char *)d + 512, 256, "%s", f->t->hostnqn);
		}
		sgl_any(c, r, c->cid >= 0 ? (int64_t)cid_block_off(c) : -1);
		if (fq->connected)
			must_fail(c, "Connect on a queue that already has one");
		else
			c->effect = FX_CONNECT;	/* may well succeed */
		return;
	default:	/* any fctype */
		b[4] = (uint8_t)PICK(r, 0x02, 0x03, 0x05, 0x06, 0x08, 0x0c, 0x7f,
				     0x80, 0xc0, 0xff, 0x100);
		if (!b[4])
			b[4] = (uint8_t)rnd(r);
		if (b[4] == NVMF_FCTYPE_PROP_SET || b[4] == NVMF_FCTYPE_PROP_GET)
			b[4] = 0xfe;
		c->sqe.cdw10 = htole32((uint32_t)rnd(r));
		c->sqe.cdw11 = htole32((uint32_t)rnd(r));
		c->dlen = -1;
		must_fail(c, "Fabrics fctype %#04x", b[4]);
		break;
	}
	if (chance(r, 50)) {
		for (int i = 5; i < 24; i++)	/* reserved bytes */
			b[i] = (uint8_t)rnd(r);
		c->mutated = true;
	}
	sgl_any(c, r, -1);
	mutate_common(c, r);
}

/*
 * The size of a log page, or what it cannot reach (ANA, discovery: the
 * size depends on the configuration).  An offset beyond it is Invalid Field.
 */
static uint64_t log_size(const struct fz *f, uint32_t lid)
{
	switch (lid) {
	case 0x01: return f->err_log_size;
	case 0x02: return 512;		/* SMART / Health */
	case 0x03: return 512;		/* Firmware Slot */
	case 0x04: return 4096;		/* Changed Namespace List */
	case 0x05: return 4096;		/* Commands Supported and Effects */
	default: return 0xffffffffull;
	}
}

static void gen_admin(struct fz *f, struct fz_q *fq, struct rng *r,
		      struct cap *c, bool disc)
{
	int kind = PICKW(r, 200, 170, 90, 80, 80, 30, 12, 140, 198);
	uint32_t nsid, v;
	uint8_t op;

	switch (kind) {
	case 0: {	/* Identify */
		uint32_t cns = chance(r, 880) ? below(r, 4) :
			       PICK(r, 0x04, 0x05, 0x06, 0x07, 0x08, 0x10, 0x11,
				    0x12, 0x13, 0x15, 0x1c, 0x55, 0xff);

		cap_init(c, fq, NVME_ADM_IDENTIFY);
		c->valid_base = true;
		if (disc && cns != 1 && chance(r, 700))
			cns = 1;
		nsid = 0;
		if (cns == 0 || cns == 3)
			nsid = f->ns[below(r, f->nns)].nsid;
		if (chance(r, 120)) {
			nsid = PICK(r, 0, 0xffffffff, 1025, 3, 1024, 0x100);
			if (chance(r, 300))
				nsid = (uint32_t)rnd(r);
			c->mutated = true;
			if (cns == 0 && (nsid == 0 || nsid > 1024) && !disc)
				must_fail(c, "Identify Namespace of nsid %#x", nsid);
		}
		c->sqe.nsid = htole32(nsid);
		c->sqe.cdw10 = htole32(cns);
		if (chance(r, 50)) {
			c->sqe.cdw10 |= htole32((uint32_t)below(r, 65536) << 16);
			c->sqe.cdw11 = htole32((uint32_t)rnd(r));
			c->mutated = true;
		}
		c->dlen = 4096;
		c->to_host = true;
		if (disc && cns != 1)
			must_fail(c, "Identify CNS %#x on a discovery controller", cns);
		else if (cns > 3)
			must_fail_sc(c, SC_INVALID_FIELD,
				     "Identify CNS %#x is not supported", cns);
		break;
	}
	case 1: {	/* Get Log Page */
		static const uint32_t lids[] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x0c };
		uint32_t lid = disc ? 0x70 : lids[below(r, 6)];
		uint32_t numd = PICK(r, 15, 127, 127, 1023, 1023, 3, 255, 2047);
		uint64_t lpo = 0;
		bool ok_lid = true;

		cap_init(c, fq, NVME_ADM_GET_LOG);
		c->valid_base = true;
		if (chance(r, 120)) {
			lid = PICK(r, 0x00, 0x06, 0x07, 0x08, 0x0d, 0x70, 0x80,
				   0xbf, 0xc0, 0xff);
			ok_lid = disc ? lid == 0x70 :
				 (lid >= 1 && lid <= 5) || lid == 0x0c ||
				 lid == 0x80;
			c->mutated = true;
		}
		if (chance(r, 80)) {
			numd = chance(r, 500) ? below(r, 0x40000) : (uint32_t)rnd(r);
			c->mutated = true;
		}
		if (chance(r, 80)) {
			lpo = PICK(r, 4, 512, 3, 4096, 2, 8192);
			if (chance(r, 300))
				lpo = rnd(r);
			c->mutated = true;
		}
		nsid = 0xffffffff;
		if (chance(r, 200)) {
			nsid = PICK(r, 0, 1, 2, 3, 0xfffffffe);
			c->mutated = true;
		}
		c->sqe.nsid = htole32(nsid);
		c->sqe.cdw10 = htole32(lid | (numd & 0xffff) << 16 |
				       (chance(r, 200) ? 1u << 15 : 0));
		c->sqe.cdw11 = htole32(numd >> 16);
		c->sqe.cdw12 = htole32((uint32_t)lpo);
		c->sqe.cdw13 = htole32((uint32_t)(lpo >> 32));
		if (chance(r, 50)) {
			c->sqe.cdw10 |= htole32(below(r, 128) << 8);	/* LSP */
			c->mutated = true;
		}
		c->dlen = ((int64_t)numd + 1) * 4;
		c->to_host = true;
		/*
		 * SMART of a namespace that is not there: the target may
		 * refuse it with its own status; it is no longer the one
		 * reason a refusal can have.
		 */
		if (lid == 0x02 && nsid && nsid != 0xffffffff && !ns_active(f, nsid))
			c->reasons++;
		/*
		 * An unsupported LID: Invalid Field (NVMe 2.0, Get Log
		 * Page), or Invalid Log Page, which the specification also
		 * defines for reserved LIDs.
		 */
		if (!ok_lid) {
			must_fail_sc(c, SC_INVALID_FIELD,
				     "Get Log Page LID %#04x is not supported", lid);
			c->alt_ok = true;
		}
		else if ((uint64_t)c->dlen > MDTS_BYTES)
			must_fail(c, "Get Log Page of %lld bytes, beyond MDTS",
				  (long long)c->dlen);
		else if (lpo & 3)
			must_fail(c, "Get Log Page offset %#llx not dword aligned",
				  (unsigned long long)lpo);
		else if (lpo > log_size(f, lid))
			must_fail_sc(c, SC_INVALID_FIELD,
				     "Get Log Page offset %#llx past the end of log %#04x",
				  (unsigned long long)lpo, lid);
		if ((uint64_t)c->dlen > MDTS_BYTES)
			c->dlen = -1;	/* any SGL will do: it must fail */
		break;
	}
	case 2:		/* Get Features */
		cap_init(c, fq, 0x0a);
		v = PICK(r, 0x07, 0x0f, 0x0b, 0x06, 0x81, 0x01, 0x02, 0x04,
			 0x05, 0x08, 0x80, 0xff);
		c->sqe.cdw10 = htole32(v | (chance(r, 150) ? below(r, 8) << 8 : 0));
		c->mutated = true;	/* which are supported is not asserted */
		c->dlen = v == 0x81 ? 16 : 0;
		c->to_host = true;
		if (v == 0x81)
			c->sqe.cdw11 = htole32(1);	/* EXHID */
		break;
	case 3:		/* Set Features */
		cap_init(c, fq, NVME_ADM_SET_FEATURES);
		v = PICK(r, 0x07, 0x07, 0x0b, 0x0b, 0x06, 0x0f, 0x81, 0x01,
			 0x04, 0x80, 0xff);
		c->sqe.cdw10 = htole32(v | (chance(r, 100) ? 1u << 31 : 0));
		switch (v) {
		case 0x07:
			c->sqe.cdw11 = htole32(chance(r, 700) ?
				(below(r, 8) | below(r, 8) << 16) : (uint32_t)rnd(r));
			if (!fq->fresh)
				c->effect = FX_NQ;
			if (disc)
				must_fail(c, "Set Features Number of Queues on a discovery controller");
			break;
		case 0x0f:
			c->sqe.cdw11 = htole32(PICK(r, 0, 1, 999, 5000, 120000, 0xffffffff));
			if (!fq->fresh)
				c->effect = FX_KATO;
			else
				c->risky = true;	/* it may expire */
			break;
		default:
			c->sqe.cdw11 = htole32((uint32_t)rnd(r));
			if (disc && v != 0x0b)
				must_fail(c, "Set Features FID %#04x on a discovery controller", v);
			break;
		}
		c->mutated = true;
		break;
	case 4:		/* Keep Alive */
		cap_init(c, fq, NVME_ADM_KEEP_ALIVE);
		c->valid_base = true;
		break;
	case 5:		/* Abort */
		cap_init(c, fq, 0x08);
		c->sqe.cdw10 = htole32((uint32_t)rnd(r));
		c->mutated = true;
		break;
	case 6:		/* Asynchronous Event Request: held */
		if (fq->held > (int)f->aerl)
			goto keep_alive;
		cap_init(c, fq, 0x0c);
		c->held = true;
		c->mutated = true;
		break;
	case 7:
		gen_fabrics_admin(f, fq, r, c);
		if (disc && c->effect == FX_CC)
			c->effect = FX_NONE;
		return;
	default:	/* unsupported admin opcodes */
		do {
			op = (uint8_t)PICK(r, 0x00, 0x01, 0x03, 0x04, 0x05, 0x0d,
					   0x10, 0x11, 0x14, 0x15, 0x19, 0x1a,
					   0x1c, 0x1d, 0x1e, 0x20, 0x24, 0x7c,
					   0x7e, 0x80, 0x81, 0x82, 0x84, 0x86,
					   0xc0, 0xc1, 0xc2, 0xfe, 0xff, 0x100);
			if (!op && chance(r, 500))
				op = (uint8_t)rnd(r);
		} while (opname(false, op));
		cap_init(c, fq, op);
		c->sqe.nsid = htole32(chance(r, 500) ? 0 : (uint32_t)rnd(r));
		c->sqe.cdw10 = htole32((uint32_t)rnd(r));
		c->sqe.cdw11 = htole32((uint32_t)rnd(r));
		c->dlen = -1;
		must_fail_sc(c, SC_INVALID_OPCODE,
			     "admin opcode %#04x is not supported", op);
		break;
	}
	if (0) {
keep_alive:
		cap_init(c, fq, NVME_ADM_KEEP_ALIVE);
		c->valid_base = true;
	}
	if (chance(r, 30)) {
		c->sqe.cdw14 = htole32((uint32_t)rnd(r));
		c->sqe.cdw15 = htole32((uint32_t)rnd(r));
		c->mutated = true;
	}
	sgl_any(c, r, -1);
	mutate_common(c, r);
}

/* ---- checking answers ----------------------------------------------------- */

static bool status_defined(uint16_t st)
{
	uint8_t sc = st & 0xff;

	if (st & 0x3800)	/* CRD, More: never asked for */
		return false;
	switch ((st >> 8) & 7) {
	case 0: return sc <= 0x2f || (sc >= 0x80 && sc <= 0x86);
	case 1: return sc <= 0x3f || (sc >= 0x80 && sc <= 0xc2);
	case 2: return sc >= 0x80 && sc <= 0x87;
	case 3: return sc <= 0x03 || (sc >= 0x60 && sc <= 0x71);
	default: return false;
	}
}

static void check_cqe(struct fz *f, struct fz_q *fq, const struct nw_done *d)
{
	uint16_t cid = le16toh(d->cqe.cid), raw = le16toh(d->cqe.status);
	uint16_t st = raw >> 1, h = le16toh(d->cqe.sq_head);
	struct fz_rec *rec;
	uint64_t n = fq->q.capsules;

	if (cid >= fq->nrecs || !fq->recs[cid].live)
		return;		/* the library reports it (protocol error) */
	rec = &fq->recs[cid];
	rec->live = false;
	fq->inflight--;
	if (rec->held)
		fq->held--;
	if (rec->effect == FX_CC)
		f->cc_inflight--;
	f->completed++;
	if (!st)
		f->success++;
	else if (status_defined(st))
		f->by_sct[(st >> 8) & 3]++;
	else
		f->odd++;
	if (f->o->trace > 1)
		printf("trace: %llu: answer cid %u status %#x sqhd %u result %#llx\n",
		       (unsigned long long)rec->iter, cid, st, h,
		       (unsigned long long)le64toh(d->cqe.result));

	if (st && !status_defined(st))
		finding(f, rec->iter, "status %#06x is not a defined status (%s)",
			st, rec->what);
	if (raw & 1)
		finding(f, rec->iter, "phase tag set in a fabrics completion (%s)",
			rec->what);
	if (le16toh(d->cqe.sq_id) != fq->q.qid)
		finding(f, rec->iter, "completion names SQ %u on queue %u (%s)",
			le16toh(d->cqe.sq_id), fq->q.qid, rec->what);

	/* SQ head: 0xffff exactly when the queue's Connect disabled SQ flow control. */
	{
		bool now_off = fq->sqfc_off;

		if (rec->effect == FX_CONNECT && !st)
			now_off = rec->cattr & 4;
		if (now_off) {
			if (h != 0xffff)
				finding(f, rec->iter, "SQ head %u with SQ flow control disabled (%s)",
					h, rec->what);
		} else if (h == 0xffff) {
			finding_tag(f, rec->iter, "sqhd-failed-connect", "SQ head 0xffff, but no successful Connect disabled SQ flow control%s (%s)",
				rec->effect == FX_CONNECT && (rec->cattr & 4) ?
				" (this Connect asked for it and failed)" : "",
				rec->what);
		} else {
			uint32_t size = fq->hsqsize + 1u;

			if (h >= size) {
				finding(f, rec->iter, "SQ head %u beyond the queue's %u entries (%s)",
					h, size, rec->what);
			} else if (n - rec->seq < size) {
				uint32_t lo = (uint32_t)(rec->seq % size);
				uint32_t ahead = (h + size - lo) % size;

				if (ahead > n - rec->seq)
					finding(f, rec->iter, "SQ head %u: the target had received capsule %llu (head %u) to %llu when it answered (%s)",
						h, (unsigned long long)rec->seq, lo,
						(unsigned long long)n, rec->what);
			}
		}
	}

	if (rec->must_drop)
		finding(f, rec->iter, "an answer (status %#x) to a capsule that should have dropped the queue (%s)",
			st, rec->what);
	if (rec->must_fail) {
		if (!st)
			finding(f, rec->iter, "success although %s (%s)", rec->why,
				rec->what);
		else if (rec->want && rec->epoch == f->cc_epoch &&
			 !f->cc_dirty && (st & SC_MASK) != rec->want &&
			 !(rec->want == SC_INVALID_FIELD && rec->alt_ok &&
			   (st & SC_MASK) == SC_INVALID_LOG_PAGE))
			finding(f, rec->iter, "status %#x, expected %#x, for %s (%s)",
				st & SC_MASK, rec->want, rec->why, rec->what);
		else
			f->must_fail_seen++;
		if (st && rec->want && (st & SC_MASK) == rec->want)
			f->want_seen++;
	}
	if (rec->must_pass && rec->epoch == f->cc_epoch && !f->cc_dirty) {
		if (st)
			finding(f, rec->iter, "valid command failed with status %#x (%s)",
				st, rec->what);
		else
			f->must_pass_seen++;
	}

	switch (rec->effect) {
	case FX_CC:
		if (!st)
			f->cc_dirty = true;
		break;
	case FX_KATO:
		if (!st)
			f->kato_dirty = true;
		break;
	case FX_NQ:
		if (!st)
			f->granted = (uint16_t)((le64toh(d->cqe.result) & 0xffff) + 1);
		break;
	case FX_CONNECT:
		if (!st) {
			fq->connected = true;
			fq->sqfc_off = rec->cattr & 4;
			if (fq->q.qid && fq->q.qid < 32)
				f->fresh_qids |= 1u << fq->q.qid;
		}
		rec->cqe = d->cqe;
		break;
	default:
		break;
	}
	rec->cqe = d->cqe;
	rec->done = true;
}

static void check_queue(struct fz *f, struct fz_q *fq)
{
	struct nw_done d;

	if (!fq->open)
		return;
	while (nw_completed(&fq->q) > 0 && nw_wait_cqe(&fq->q, &d, 0) == 1)
		check_cqe(f, fq, &d);
	if (fq->q.protocol_errors > fq->perr) {
		fq->perr = fq->q.protocol_errors;
		finding(f, f->iter, "%s queue %u: %s", fq->name, fq->q.qid,
			fq->q.protocol_msg);
	}
	if (fq->up && nw_dead(&fq->q)) {
		int i;
		bool dropped_for_it = false;

		fq->up = false;
		for (i = 0; i < fq->nrecs; i++)
			if (fq->recs[i].live && fq->recs[i].must_drop)
				dropped_for_it = true;
		if (fq->killed) {
			f->drops_self++;
		} else if (fq == &f->io && f->admin.up && !f->ctrl_risky &&
			   !fq->risky && !dropped_for_it &&
			   !nw_wait_cm_disconnect(&f->admin.q, 1000)) {
			/*
			 * The admin queue went too (its news came later): the
			 * I/O queue went with the controller.  The admin
			 * queue's own check says whether that was expected.
			 */
			f->drops_collateral++;
		} else if (fq == &f->fresh && fq->q.qid && !fq->risky &&
			   !dropped_for_it &&
			   (f->ctrl_risky || !f->admin.up ||
			    !nw_wait_cm_disconnect(&f->admin.q, 1000))) {
			/*
			 * A fresh I/O queue joins the main controller (its
			 * Connect names that cntlid): it goes with it, even
			 * when the news of the admin queue's drop is later.
			 */
			f->drops_collateral++;
		} else if (fq->risky || dropped_for_it ||
			   (fq == &f->io && (f->ctrl_risky || !f->admin.up))) {
			if (fq == &f->io && !f->admin.up)
				f->drops_collateral++;
			else
				f->drops_expected++;
		} else {
			f->drops_unexpected++;
			finding(f, f->iter, "the target dropped %s queue %u without a cause (%s); last capsules: [%s] [%s]",
				fq->name, fq->q.qid,
				fq->q.wc_errors ? fq->q.wc_error_msg :
				fq->q.disconnected ? "CM disconnect" : "flushed",
				fq->last[0], fq->last[1]);
		}
		fq_count_lost(f, fq);
	}
}

static void check_timeouts(struct fz *f, struct fz_q *fq)
{
	int64_t now = now_ms();
	int i;

	if (!fq->up)
		return;
	for (i = 0; i < fq->nrecs; i++) {
		struct fz_rec *rec = &fq->recs[i];

		if (!rec->live || rec->held ||
		    now - rec->t0 < (int64_t)f->o->cmd_timeout_ms)
			continue;
		if (rec->must_drop) {
			finding(f, rec->iter, "the target kept the queue %u s after %s",
				f->o->cmd_timeout_ms / 1000, rec->what);
			fq->up = false;	/* do not report it again */
			fq->killed = true;
			return;
		}
		f->hung = true;
		f->stop = true;
		finding(f, rec->iter, "no answer within %u ms (target hung?): %s",
			f->o->cmd_timeout_ms, rec->what);
		return;
	}
}

/* Handle whatever arrives within ms. */
static void pump(struct fz *f, int ms)
{
	struct nw_queue *qs[3];
	struct fz_q *fqs[3] = { &f->admin, &f->io, &f->fresh };
	int i;

	for (i = 0; i < 3; i++)
		qs[i] = fqs[i]->open ? &fqs[i]->q : NULL;
	nw_progress_any(qs, 3, ms);
	for (i = 0; i < 3; i++)
		check_queue(f, fqs[i]);
	for (i = 0; i < 3; i++)
		check_timeouts(f, fqs[i]);
}

/* ---- sending ------------------------------------------------------------------ */

/* Wait until q has a cid the library can use (pumping meanwhile). */
static bool wait_slot(struct fz *f, struct fz_q *fq)
{
	while (fq->up && !f->stop && nw_free_cid(&fq->q) < 0)
		pump(f, 5);
	return fq->up && !f->stop;
}

/* Post c; its cid, or -1 if its queue went away meanwhile. */
static int send_cap(struct fz *f, struct cap *c, bool setup)
{
	struct fz_q *fq = c->fq;
	struct fz_rec *rec;
	int cid;

	if (f->o->trace) {
		/* What was generated, before the queue's state can interfere. */
		char what[256];

		describe(fq, &c->sqe, &c->x, what, sizeof(what));
		printf("%s: %llu: %s%s%s%s\n", setup ? "setup" : "trace",
		       (unsigned long long)f->iter, what,
		       c->why[0] ? " [must fail: " : "", c->why,
		       c->why[0] ? "]" : "");
	}
	while (fq->up && !f->stop &&
	       fq->inflight - fq->held >= (int)f->o->depth)
		pump(f, 20);
	if (!fq->up || f->stop) {
		f->skipped++;
		return -1;
	}
	/*
	 * The cid chosen when the capsule was built (its per-cid data sits
	 * in that slot's block) is still free: only submissions take slots.
	 */
	if (c->cid >= 0 && c->cid < fq->q.nslots) {
		c->sqe.cid = htole16((uint16_t)c->cid);
		c->x.keep_cid = true;
	}
	if (c->risky)
		fq->risky = true;
	if (c->effect == FX_CC)
		f->cc_epoch++;
	if (c->effect == FX_KATO)
		f->ctrl_risky = true;

	cid = nw_submit(&fq->q, &c->sqe, &c->x);
	if (cid < 0) {
		if (!nw_dead(&fq->q)) {
			f->hung = f->stop = true;
			finding(f, f->iter, "cannot post on %s queue %u: %s",
				fq->name, fq->q.qid, nw_err);
		}
		check_queue(f, fq);
		f->skipped++;
		return -1;
	}
	rec = &fq->recs[cid];
	memset(rec, 0, sizeof(*rec));
	rec->live = true;
	rec->held = c->held;
	rec->must_fail = c->why[0] != 0;
	/*
	 * The one status expected, where the controller is known to be
	 * enabled: not on a fresh queue (before CC.EN only Fabrics commands
	 * run; Command Sequence Error may come first), except for its
	 * Connect, nor after a Property Set of CC that may have disabled it.
	 */
	rec->want = c->reasons == 1 && !f->cc_dirty && !f->cc_inflight &&
		    (fq != &f->fresh || is_connect(c)) ? c->want : 0;
	rec->alt_ok = c->alt_ok;
	rec->must_pass = !setup && c->valid_base && !c->mutated &&
			 !c->why[0] && !fq->fresh && !f->cc_dirty &&
			 !f->cc_inflight;
	rec->must_drop = c->must_drop;
	rec->effect = setup ? FX_SETUP : c->effect;
	rec->cattr = (uint8_t)(le32toh(c->sqe.cdw11) >> 16);
	rec->iter = f->iter;
	rec->seq = fq->q.capsules;
	rec->epoch = f->cc_epoch;
	rec->t0 = now_ms();
	snprintf(rec->why, sizeof(rec->why), "%s", c->why);
	describe(fq, &c->sqe, &c->x, rec->what, sizeof(rec->what));
	memcpy(fq->last[1], fq->last[0], sizeof(fq->last[1]));
	snprintf(fq->last[0], sizeof(fq->last[0]), "%llu: %s",
		 (unsigned long long)f->iter, rec->what);
	fq->inflight++;
	if (c->held)
		fq->held++;
	if (rec->effect == FX_CC)
		f->cc_inflight++;
	if (!setup)
		f->sent++;
	if (f->o->trace > 1)
		printf("trace: %llu: posted as cid %d\n",
		       (unsigned long long)f->iter, cid);
	return cid;
}

/* A command of the harness's own (not counted): wait for its answer. */
static int fz_exec(struct fz *f, struct fz_q *fq, struct nvme_sqe *sqe,
		   struct nvme_cqe *out)
{
	struct cap c;
	int cid;

	memset(&c, 0, sizeof(c));
	c.fq = fq;
	c.sqe = *sqe;
	c.x.sgl = NW_SGL_NONE;
	c.cid = -1;
	cid = send_cap(f, &c, true);
	if (cid < 0)
		return -1;
	while (fq->up && !f->stop && !fq->recs[cid].done)
		pump(f, 20);
	if (!fq->recs[cid].done)
		return -1;
	*out = fq->recs[cid].cqe;
	return 0;
}

/* ---- the controller ---------------------------------------------------------- */

static int learn(struct fz *f)
{
	struct nw_queue *a = &f->admin.q;
	size_t off = f->admin.sink_off;
	const uint8_t *id = a->data + off;
	uint16_t st;
	uint64_t cap;
	uint32_t v, i;

	if (nw_prop_get(a, NVME_REG_CAP, true, &cap, &st) || st) {
		snprintf(nw_err, sizeof(nw_err), "Property Get CAP: status %#x", st);
		return -1;
	}
	f->mqes1 = (uint32_t)(cap & 0xffff) + 1;
	if (nw_identify(a, 1, 0, off, &st) || st) {
		snprintf(nw_err, sizeof(nw_err), "Identify Controller: status %#x", st);
		return -1;
	}
	memcpy(&v, id + 1792, 4);
	f->icd = le32toh(v) * 16 - 64;
	f->aerl = id[259] + 1u;
	f->err_log_size = (id[262] + 1u) * 64;
	f->vwc = id[525];
	memcpy(&v, id + 516, 4);
	f->nn = le32toh(v);
	if (id[77] && (1u << (id[77] + 12)) != MDTS_BYTES)
		fprintf(stderr, "note: fuzz: MDTS %u: the generator assumes 1 MiB\n",
			id[77]);
	if (nw_identify(a, 2, 0, off, &st) || st) {
		snprintf(nw_err, sizeof(nw_err), "Identify active namespaces: status %#x", st);
		return -1;
	}
	{
		uint32_t list[MAX_NS];

		memcpy(list, id, sizeof(list));
		for (i = 0; i < MAX_NS && list[i]; i++)
			if (nw_ns_info(a, le32toh(list[i]), &f->ns[f->nns]) == 0)
				f->nns++;
	}
	if (!f->nns) {
		snprintf(nw_err, sizeof(nw_err), "no active namespace");
		return -1;
	}
	f->learned = true;
	return 0;
}

static int open_io(struct fz *f, uint64_t iter)
{
	struct nw_connect_args ca = { .cntlid = f->cntlid, .qid = 1 };
	struct nw_conn_opts o = { .qid = 1 };
	struct rng r;
	uint32_t res;
	uint16_t st;
	int rej, tries;

	rng_for(&r, f->o->seed, iter, 1);
	o.hsqsize = (uint16_t)PICK(&r, 31, 63, 127);
	if (o.hsqsize + 1u > f->mqes1)
		o.hsqsize = (uint16_t)(f->mqes1 - 1);
	o.hrqsize = o.hsqsize + 1;
	if (fq_open(f, &f->io, "I/O", &o, SRC_IO, SINK_SIZE, &rej)) {
		char b[sizeof(nw_err)];

		snprintf(b, sizeof(b), "I/O queue: %.480s", nw_err);
		memcpy(nw_err, b, sizeof(b));
		return -1;
	}
	ca.sqsize = o.hsqsize;
	ca.incapsule = f->icd >= 1024 && chance(&r, 500);
	for (tries = 0;; tries++) {
		if (nw_fabrics_connect(&f->io.q, f->t, &ca, &st, &res))
			return -1;
		/*
		 * QID in use: the target is still tearing the last queue 1
		 * down.  A failed Connect may be retried on the same queue.
		 */
		if ((st & SC_MASK) != SC_CONNECT_INVALID_PARAM ||
		    (res & 0xffffff) != 42 || tries >= 40)
			break;
		usleep(50000);
	}
	if (st) {
		snprintf(nw_err, sizeof(nw_err), "I/O Connect: status %#x result %#x",
			 st, res);
		return -1;
	}
	f->io.connected = true;
	return 0;
}

static int open_ctrl(struct fz *f, uint64_t iter)
{
	struct nw_conn_opts ao = { .qid = 0, .hrqsize = 32, .hsqsize = 31 };
	struct nw_connect_args ca = { .sqsize = 31, .cntlid = 0xffff };
	uint32_t res;
	uint16_t st;
	int rej;

	if (fq_open(f, &f->admin, "admin", &ao, SRC_SMALL, SINK_SIZE, &rej)) {
		char b[sizeof(nw_err)];

		snprintf(b, sizeof(b), "admin queue: %.480s", nw_err);
		memcpy(nw_err, b, sizeof(b));
		return -1;
	}
	if (nw_fabrics_connect(&f->admin.q, f->t, &ca, &st, &res))
		return -1;
	if (st) {
		snprintf(nw_err, sizeof(nw_err), "admin Connect: status %#x result %#x",
			 st, res);
		return -1;
	}
	f->admin.connected = true;
	f->cntlid = f->admin.q.cntlid;
	f->fresh_qids = 0;
	if (nw_enable_ctrl(&f->admin.q))
		return -1;
	if (!f->learned && learn(f))
		return -1;
	if (nw_set_num_queues(&f->admin.q, 4, &f->granted))
		return -1;
	f->ctrl_risky = f->cc_dirty = f->kato_dirty = false;
	return open_io(f, iter);
}

static void close_ctrl(struct fz *f, bool graceful)
{
	fq_close(f, &f->io, graceful);
	fq_close(f, &f->admin, graceful);
}

/* Bring the controller back if anything dropped; -1 when it cannot be. */
static int ensure(struct fz *f)
{
	int tries;

	if (f->admin.up && f->io.up && (f->cc_dirty || f->kato_dirty)) {
		struct nvme_sqe sqe;
		struct nvme_cqe cqe;

		/* Wait for the commands in flight, so their outcome is theirs. */
		while (f->admin.up && f->io.up && !f->stop &&
		       (f->admin.inflight > f->admin.held || f->io.inflight))
			pump(f, 20);
		if (f->stop)
			return -1;
		if (f->kato_dirty && f->admin.up) {
			nw_sqe_init(&sqe, NVME_ADM_SET_FEATURES);
			sqe.cdw10 = htole32(0x0f);
			if (!fz_exec(f, &f->admin, &sqe, &cqe))
				f->kato_dirty = false;
		}
		if (f->cc_dirty && f->admin.up) {
			nw_sqe_init(&sqe, NVME_OPC_FABRICS);
			((uint8_t *)&sqe)[4] = NVMF_FCTYPE_PROP_GET;
			sqe.cdw11 = htole32(NVME_REG_CSTS);
			if (!fz_exec(f, &f->admin, &sqe, &cqe) &&
			    !(le16toh(cqe.status) >> 1) &&
			    (le64toh(cqe.result) & 0xf) == 1) {
				f->cc_dirty = false;	/* still ready */
			} else {
				f->ctrl_resets++;
				close_ctrl(f, true);
			}
		}
	}
	if (f->stop)
		return -1;
	if (f->admin.up && f->io.up)
		return 0;
	for (tries = 0; tries < 3; tries++) {
		alarm(f->o->cmd_timeout_ms / 1000 + 60);
		if (!f->admin.up) {
			close_ctrl(f, false);
			if (!open_ctrl(f, f->iter))
				break;
		} else {
			fq_close(f, &f->io, false);
			if (!open_io(f, f->iter))
				break;
		}
		fprintf(stderr, "note: fuzz: iteration %llu: reconnecting failed: %s\n",
			(unsigned long long)f->iter, nw_err);
		close_ctrl(f, false);
		usleep(200000);
	}
	if (tries == 3) {
		finding(f, f->iter, "cannot set up a controller any more: %s", nw_err);
		f->stop = f->hung = true;
		return -1;
	}
	f->reconnects++;
	return 0;
}

/* ---- special iterations ----------------------------------------------------- */

/* A capsule shorter than an SQE, or longer than the receive buffer. */
static void do_length(struct fz *f, struct rng *r, bool shorter)
{
	struct fz_q *fq = chance(r, 650) ? &f->io : &f->admin;
	struct cap c;

	if (fq == &f->io)
		gen_io(f, fq, r, &c);
	else
		gen_admin(f, fq, r, &c, false);
	c.why[0] = 0;
	c.reasons = 0;
	c.want = 0;
	c.effect = FX_NONE;
	c.held = false;
	c.must_drop = true;
	c.risky = true;
	c.mutated = true;
	if (shorter) {
		c.x.capsule_len_set = true;
		c.x.capsule_len = below(r, 64);
		c.x.icd_len = 0;
		f->truncated++;
	} else {
		c.x.icd_len = fq->icd + 1 + below(r, 4096);
		c.x.icd_off = fq->src_off;
		f->oversize++;
	}
	send_cap(f, &c, false);
}

/* A valid read or write whose key or address the target cannot use. */
static void do_badkey(struct fz *f, struct rng *r)
{
	struct fz_q *fq = chance(r, 800) ? &f->io : &f->admin;
	const struct nw_ns *ns = &f->ns[below(r, f->nns)];
	uint32_t nlb = 1 + below(r, 16);
	struct cap c;

	if (fq == &f->io) {
		uint8_t op = chance(r, 500) ? NVME_IO_READ : NVME_IO_WRITE;

		cap_init(&c, fq, op);
		nw_rw_sqe(&c.sqe, op, ns->nsid, rnd(r) % (ns->nsze - nlb + 1), nlb);
		sgl_badkey(&c, r, nlb << ns->lba_shift);
	} else {
		cap_init(&c, fq, NVME_ADM_IDENTIFY);
		c.sqe.cdw10 = htole32(1);
		sgl_badkey(&c, r, 4096);
	}
	f->badkey++;
	send_cap(f, &c, false);
}

/* A transfer in flight, then the queue (or the controller) goes at once. */
static void do_abrupt(struct fz *f, struct rng *r)
{
	const struct nw_ns *ns = &f->ns[below(r, f->nns)];
	uint32_t nlb = (uint32_t)((64 * KIB) >> ns->lba_shift);
	uint8_t op = chance(r, 500) ? NVME_IO_READ : NVME_IO_WRITE;
	int how = PICKW(r, 450, 150, 150, 150, 100);
	struct cap c;

	cap_init(&c, &f->io, op);
	nw_rw_sqe(&c.sqe, op, ns->nsid, rnd(r) % (ns->nsze - nlb + 1), nlb);
	c.dlen = (int64_t)nlb << ns->lba_shift;
	c.to_host = op == NVME_IO_READ;
	sgl_keyed(&c, r, chance(r, 500), (uint32_t)c.dlen, -1);
	c.mutated = true;
	send_cap(f, &c, false);
	if (below(r, 2))
		nw_wait_sends(&f->io.q, 1000);	/* the target has it */
	f->abrupt++;
	switch (how) {
	case 0:		/* the I/O queue */
		f->io.killed = true;
		fq_close(f, &f->io, false);
		f->drops_self++;
		break;
	case 1:		/* the admin queue: the target ends the I/O queue */
		f->admin.killed = true;
		fq_close(f, &f->admin, false);
		f->drops_self++;
		break;
	case 2:		/* both */
		f->io.killed = f->admin.killed = true;
		close_ctrl(f, false);
		f->drops_self += 2;
		break;
	case 3:		/* I/O queue, gracefully */
		f->io.killed = true;
		fq_close(f, &f->io, true);
		f->drops_self++;
		break;
	default:	/* both, gracefully */
		f->io.killed = f->admin.killed = true;
		close_ctrl(f, true);
		f->drops_self += 2;
		break;
	}
}

/* A fully random SQE (made safe where it would name memory). */
/* ---- DH-HMAC-CHAP messages on a queue that must authenticate ----------- */

#define AUTH_SECP		0xe9
#define AUTH_DEADLINE_MIN_MS	2000	/* the target's is connect_timeout_ms */

/* A random or boundary DH value of len bytes. */
static void auth_dh_value(struct rng *r, uint8_t *y, unsigned int len)
{
	unsigned int i;

	if (!len)
		return;
	switch (below(r, 6)) {
	case 0: memset(y, 0, len); break;
	case 1: memset(y, 0, len); y[len - 1] = 1; break;
	case 2: memset(y, 0xff, len); break;
	case 3: memset(y, 0, len); y[len - 1] = 2; break;
	default:
		for (i = 0; i < len; i++)
			y[i] = (uint8_t)rnd(r);
		break;
	}
}

/* A message into m (the queue's data); its length, before mutation. */
static uint32_t auth_gen_msg(struct rng *r, uint8_t *m, uint16_t tid)
{
	uint32_t len, i;
	uint8_t hl;
	uint16_t dhvlen;

	switch (PICKW(r, 350, 300, 80, 80, 90, 100)) {
	case 0:		/* Negotiate */
		len = 72;
		memset(m, 0, len);
		m[1] = 0x00;
		m[4] = (uint8_t)tid;
		m[5] = (uint8_t)(tid >> 8);
		m[6] = chance(r, 50) ? (uint8_t)rnd(r) : 0;	/* SC_C */
		m[7] = (uint8_t)PICK(r, 1, 1, 1, 0, 2, 255);	/* NAPD */
		m[8] = chance(r, 900) ? 1 : (uint8_t)rnd(r);	/* AUTHID */
		m[10] = (uint8_t)PICK(r, 1, 1, 3, 0, 30, 31, 255);
		m[11] = (uint8_t)PICK(r, 1, 2, 6, 0, 30, 31, 255);
		for (i = 0; i < 60; i++)
			m[12 + i] = chance(r, 700) ? (uint8_t)below(r, 6) :
				    (uint8_t)rnd(r);
		if (chance(r, 600)) {
			/* One the target can take (SC_C, NAPD aside). */
			m[10] = m[10] && m[10] <= 30 ? m[10] : 1;
			m[11] = m[11] > 1 && m[11] <= 30 ? m[11] : 2;
			m[12] = 1;		/* SHA-256 */
			m[12 + 30] = 0;		/* null */
			m[12 + 31] = 1;		/* ffdhe2048 */
		}
		return len;
	case 1:		/* Reply */
		hl = (uint8_t)PICK(r, 32, 32, 32, 48, 64, 0, 255);
		/* The fuzz host's group is null; now and then ffdhe2048's. */
		dhvlen = (uint16_t)PICK(r, 0, 0, 0, 0, 256, 384, 512, 255);
		len = 16 + 2u * hl + dhvlen;
		memset(m, 0, 16);
		m[0] = 0x01;
		m[1] = 0x02;
		m[4] = (uint8_t)tid;
		m[5] = (uint8_t)(tid >> 8);
		m[6] = hl;
		m[8] = chance(r, 300) ? 1 : chance(r, 50) ? (uint8_t)rnd(r) : 0;
		m[10] = (uint8_t)dhvlen;
		m[11] = (uint8_t)(dhvlen >> 8);
		for (i = 12; i < 16; i++)	/* SEQNUM */
			m[i] = chance(r, 200) ? 0 : (uint8_t)rnd(r);
		for (i = 16; i < 16u + 2 * hl; i++)
			m[i] = (uint8_t)rnd(r);
		auth_dh_value(r, m + 16 + 2 * hl, dhvlen);
		return len;
	case 2:		/* Success2 */
		len = 16;
		memset(m, 0, len);
		m[0] = 0x01;
		m[1] = 0x04;
		m[4] = (uint8_t)tid;
		m[5] = (uint8_t)(tid >> 8);
		return len;
	case 3:		/* Failure2 */
		len = 8;
		memset(m, 0, len);
		m[1] = 0xf0;
		m[4] = (uint8_t)tid;
		m[5] = (uint8_t)(tid >> 8);
		m[6] = 1;
		m[7] = (uint8_t)below(r, 10);
		return len;
	case 4:		/* a controller's message, or an unknown one */
		len = 8 + below(r, 120);
		for (i = 0; i < len; i++)
			m[i] = (uint8_t)rnd(r);
		m[0] = (uint8_t)PICK(r, 0, 1, 2, 0xff);
		m[1] = (uint8_t)PICK(r, 0x01, 0x03, 0xf1, 0x05, 0x00, 0xff);
		return len;
	default:	/* bytes */
		len = 1 + below(r, 600);
		for (i = 0; i < len; i++)
			m[i] = (uint8_t)rnd(r);
		return len;
	}
}

/*
 * One session: Connect to the authenticating subsystem as the host that
 * must authenticate, then a few Authentication Send / Receive commands.
 * The target must answer every one with a status it defines, never say
 * Success1 (the fuzzer cannot know the key), keep to the transaction ID
 * of the Negotiate it took, and refuse everything else on the queue
 * afterwards; it may drop the queue only at its authentication deadline.
 */
static void do_auth(struct fz *f, struct rng *r)
{
	static struct nw_queue q;
	struct nw_target t = *f->t;
	struct nw_conn_opts o = { .qid = 0, .hrqsize = 32, .hsqsize = 31,
				  .data_size = 16 * KIB };
	struct nw_connect_args ca = { .sqsize = 31, .cntlid = 0xffff };
	int n = 1 + (int)below(r, 8), i, rej, got;
	uint16_t st, tid = 0;
	bool have_tid = false, ok;
	int64_t t0;
	uint32_t res;
	uint64_t v;

	t.subnqn = f->o->auth_subnqn;
	t.hostnqn = f->o->auth_hostnqn;
	f->auth_sessions++;
	memset(&q, 0, sizeof(q));
	if (nw_connect(&q, &t, &o, &rej) != NW_CONN_OK) {
		/* The port may be at its unauthenticated queue limit. */
		nw_abort(&q);
		return;
	}
	t0 = now_ms();
	if (nw_fabrics_connect(&q, &t, &ca, &st, &res)) {
		finding(f, f->iter, "auth: Connect: %s", nw_err);
		goto out;
	}
	if (st) {
		finding(f, f->iter, "auth: Connect refused with status %#x", st);
		goto out;
	}
	if (!(res & (1u << 17))) {
		finding(f, f->iter, "auth: Connect result %#x without AUTHREQ.ATR",
			res);
		goto out;
	}
	for (i = 0; i < n && !f->stop; i++) {
		struct nvme_sqe sqe;
		struct nw_done d;
		struct nw_xfer x = { .sgl = NW_SGL_KEYED };
		bool recv = chance(r, 450), bad_field = false;
		uint32_t len = 0, al;
		uint8_t *m = q.data;

		nw_sqe_init(&sqe, NVME_OPC_FABRICS);
		((uint8_t *)&sqe)[4] = recv ? 0x06 : 0x05;
		if (recv) {
			al = PICK(r, 4096, 4096, 4096, 304, 303, 16, 8,
				  0, 4097, 8192);
			memset(m, 0xa5, 8192);
		} else {
			uint16_t mt = chance(r, 800) && have_tid ? tid :
				      (uint16_t)rnd(r);

			len = auth_gen_msg(r, m, mt);
			al = chance(r, 850) ? len :
			     PICK(r, 0, 1, 5, 6, 71, 4096, 4097, 8192);
		}
		sqe.cdw10 = htole32((uint32_t)AUTH_SECP << 24 | 1u << 16 |
				    1u << 8);
		if (chance(r, 40)) {
			sqe.cdw10 = htole32((uint32_t)rnd(r));
			bad_field = (le32toh(sqe.cdw10) & 0xffffff00) !=
				    ((uint32_t)AUTH_SECP << 24 | 1u << 16 |
				     1u << 8);
		}
		sqe.cdw11 = htole32(al);
		bad_field |= !al || al > 4096;
		x.len = al > 8192 ? 8192 : al;
		x.sgl = x.len ? NW_SGL_KEYED : NW_SGL_NONE;
		f->auth_msgs++;
		got = nw_exec(&q, &sqe, &x, &d, f->o->cmd_timeout_ms);
		if (got) {
			int64_t ms = now_ms() - t0;

			if (ms < AUTH_DEADLINE_MIN_MS)
				finding(f, f->iter, "auth: the queue went %lld ms after its Connect (%s)",
					(long long)ms, nw_err);
			else
				f->auth_drops++;
			goto out;
		}
		st = nw_status(&d) & SC_MASK;
		if (bad_field && st != SC_INVALID_FIELD) {
			finding(f, f->iter, "auth: %s with CDW10 %#x AL %u: status %#x, not Invalid Field",
				recv ? "Receive" : "Send", le32toh(sqe.cdw10),
				al, st);
			goto out;
		}
		if (st != 0 && st != SC_INVALID_FIELD &&
		    st != SC_CMD_SEQ_ERROR && st != SC_INTERNAL) {
			finding(f, f->iter, "auth: %s: status %#x",
				recv ? "Receive" : "Send", st);
			goto out;
		}
		if (st)
			continue;
		if (!recv) {
			/* A Negotiate taken: its transaction from now on. */
			if (m[0] == 0 && m[1] == 0) {
				tid = (uint16_t)(m[4] | m[5] << 8);
				have_tid = true;
			}
			continue;
		}
		if (m[0] == 0x01 && m[1] == 0x01) {
			f->auth_challenges++;
		} else if (m[0] == 0x00 && m[1] == 0xf1) {
			f->auth_failure1s++;
		} else {
			finding(f, f->iter, "auth: a Receive gave message %02x/%02x%s",
				m[0], m[1], m[0] == 1 && m[1] == 3 ?
				" (Success1 to a host without the key)" : "");
			goto out;
		}
		if (!have_tid || (uint16_t)(m[4] | m[5] << 8) != tid) {
			finding(f, f->iter, "auth: message %02x/%02x with t_id %u; the Negotiate's was %u",
				m[0], m[1], m[4] | m[5] << 8, tid);
			goto out;
		}
	}
	/* Still nothing but authentication. */
	if (!f->stop) {
		ok = !nw_prop_get(&q, NVME_REG_CAP, true, &v, &st);
		if (ok && (st & SC_MASK) != SC_AUTH_REQUIRED)
			finding(f, f->iter, "auth: Property Get on the unauthenticated queue: status %#x",
				st);
		else if (!ok && now_ms() - t0 < AUTH_DEADLINE_MIN_MS)
			finding(f, f->iter, "auth: Property Get: %s", nw_err);
	}
out:
	if (chance(r, 500))
		nw_close(&q);
	else
		nw_abort(&q);
}

static void do_raw(struct fz *f, struct rng *r)
{
	struct fz_q *fq = chance(r, 600) ? &f->io : &f->admin;
	struct cap c;
	uint8_t *b;
	int i;

	cap_init(&c, fq, 0);
	b = (uint8_t *)&c.sqe;
	for (i = 0; i < 64; i++)
		b[i] = (uint8_t)rnd(r);
	if (chance(r, 500))
		c.sqe.flags = NVME_FLAGS_SGL;
	c.x.sgl = NW_SGL_RAW;
	c.dlen = -1;
	c.mutated = true;
	switch (c.sqe.dptr[15]) {
	case NVME_SGL_KEYED:
	case NVME_SGL_KEYED_INV: {
		uint32_t len = c.sqe.dptr[8] | c.sqe.dptr[9] << 8 |
			       (c.sqe.dptr[10] & 0x0f) << 16;

		if (chance(r, 500))
			sgl_badkey(&c, r, len);
		else
			sgl_keyed(&c, r, c.sqe.dptr[15] == NVME_SGL_KEYED_INV,
				  len, -1);
		break;
	}
	case NVME_SGL_INCAPSULE:
		if (fq->icd && chance(r, 500))
			c.x.icd_len = below(r, fq->icd + 1);
		break;
	default:
		defuse_key(&c);
		break;
	}
	/* The Fabrics Connect and AER are the only commands allowed to wait. */
	if (b[0] == 0x0c && fq == &f->admin)
		c.held = fq->held <= (int)f->aerl;
	if (b[0] == 0x0c && fq == &f->admin && !c.held)
		b[0] = 0x0d;
	if (b[0] == NVME_OPC_FABRICS && fq == &f->admin &&
	    b[4] == NVMF_FCTYPE_PROP_SET)
		c.effect = FX_CC;
	if (fq == &f->admin && b[0] == NVME_ADM_SET_FEATURES &&
	    (le32toh(c.sqe.cdw10) & 0xff) == 0x0f)
		c.effect = FX_KATO;
	if (fq == &f->admin && b[0] == NVME_ADM_SET_FEATURES &&
	    (le32toh(c.sqe.cdw10) & 0xff) == 0x07)
		c.effect = FX_NQ;
	f->raw++;
	send_cap(f, &c, false);
}

/* Expected NVMe/RDMA reject status for CM private data as the target sees it. */
static int cm_expect(struct fz *f, const uint8_t *pd, int len)
{
	uint8_t buf[32] = { 0 };
	uint16_t recfmt, qid, hrq, hsq;
	uint32_t max = f->mqes1;

	if (len > 32)
		len = 32;
	memcpy(buf, pd, len);
	if (nw_cm_pads)
		len = 32;	/* the IB CM pads to 56 bytes with zeroes */
	if (len < 8)
		return RDMA_CM_INVALID_LEN;
	memcpy(&recfmt, buf, 2);
	memcpy(&qid, buf + 2, 2);
	memcpy(&hrq, buf + 4, 2);
	memcpy(&hsq, buf + 6, 2);
	if (le16toh(recfmt))
		return RDMA_CM_INVALID_RECFMT;
	if (le16toh(qid) > 128)
		return RDMA_CM_INVALID_QID;
	/* Admin queues (discovery's too) hold 32 entries, whatever the port's size. */
	if (!le16toh(qid))
		max = 32;
	if (le16toh(hsq) + 1u < 2 || le16toh(hsq) + 1u > max)
		return RDMA_CM_INVALID_HSQSIZE;
	if (le16toh(hrq) < 2 || le16toh(hrq) > max)
		return RDMA_CM_INVALID_HRQSIZE;
	return 0;
}

/*
 * Nothing in flight or done on the main controller that changes what a
 * Connect to it may expect (its enable state, the queues granted, KATO).
 */
static bool admin_settled(struct fz *f)
{
	int i;

	if (!f->admin.up || !f->io.up || f->cc_dirty || f->ctrl_risky ||
	    f->admin.risky || f->io.risky)
		return false;
	for (i = 0; i < f->admin.nrecs; i++) {
		const struct fz_rec *rec = &f->admin.recs[i];

		if (rec->live && (rec->effect == FX_CC || rec->effect == FX_NQ ||
				  rec->effect == FX_KATO))
			return false;
	}
	return true;
}

/* Connect data and command for a fresh queue. */
static void gen_connect(struct fz *f, struct fz_q *fq, struct rng *r,
			struct cap *c, bool *expect_ok)
{
	uint16_t qid = fq->q.qid, sqsize = fq->hsqsize, cntlid;
	uint32_t kato = 0, recfmt = 0, cattr = 0;
	const char *sub = f->t->subnqn, *host = f->t->hostnqn;
	bool disc = false, io = qid != 0;
	char rnd_nqn[64];
	uint8_t *d;
	int i;

	cap_init(c, fq, NVME_OPC_FABRICS);
	((uint8_t *)&c->sqe)[4] = NVMF_FCTYPE_CONNECT;
	c->effect = FX_CONNECT;
	*expect_ok = true;
	/*
	 * The capsule sent before it may have been a Connect that succeeded:
	 * then this one may be refused for that first, whatever else is
	 * wrong with it.
	 */
	if (fq->connected)
		c->reasons++;
	cntlid = io ? f->cntlid : 0xffff;
	if (!io && chance(r, 200)) {
		sub = DISC_NQN;
		disc = true;
	}
	if (chance(r, 150)) {
		qid = (uint16_t)PICK(r, 0, 1, 2, 5, 128, 0xffff);
		if (qid != fq->q.qid)
			must_fail(c, "Connect QID %u on queue %u", qid, fq->q.qid);
	}
	if (chance(r, 80)) {
		recfmt = PICK(r, 1, 2, 0xffff);
		must_fail(c, "Connect RECFMT %u", recfmt);
	}
	if (chance(r, 150)) {
		sqsize = (uint16_t)PICK(r, 0, 1, 0xffff);
		if (chance(r, 500))
			sqsize = fq->hsqsize + 1;
		if (sqsize == 0 || sqsize > fq->hsqsize)
			must_fail(c, "Connect SQSIZE %u on a queue of %u", sqsize,
				  fq->hsqsize + 1);
	}
	if (chance(r, 200)) {
		cattr = below(r, 256);
		c->mutated = true;
	}
	if (chance(r, 150)) {
		kato = PICK(r, 1, 100, 1000, 30000, 0xffffffff);
		if (kato < 60000)
			fq->risky = true;	/* it may expire */
	}
	if (io && chance(r, 200)) {
		cntlid = (uint16_t)PICK(r, 0, 0xffff, 0xfffe, 1, 2);
		if (chance(r, 300))
			cntlid = (uint16_t)rnd(r);
		if (cntlid != f->cntlid)
			must_fail(c, "I/O Connect to cntlid %u (ours is %u)", cntlid,
				  f->cntlid);
	} else if (!io && chance(r, 100)) {
		cntlid = (uint16_t)rnd(r);	/* ignored for the admin queue */
		c->mutated = true;
	}
	if (chance(r, 120)) {
		switch (below(r, 4)) {
		case 0:
			snprintf(rnd_nqn, sizeof(rnd_nqn),
				 "nqn.2026-11.io.purlin.test:nope-%08x",
				 (uint32_t)rnd(r));
			sub = rnd_nqn;
			must_fail_sc(c, SC_CONNECT_INVALID_PARAM,
				     "Connect to subsystem %s", sub);
			break;
		case 1:
			sub = "";
			must_fail(c, "Connect with an empty SUBNQN");
			break;
		case 2:
			sub = NULL;	/* unterminated */
			must_fail(c, "Connect with an unterminated SUBNQN");
			break;
		default:
			sub = DISC_NQN;
			disc = true;
			if (io)
				must_fail(c, "I/O Connect to the discovery subsystem");
			break;
		}
	}
	if (chance(r, 100)) {
		switch (below(r, 4)) {
		case 0:
			host = "";
			must_fail(c, "Connect with an empty HOSTNQN");
			break;
		case 3:
			host = chance(r, 500) ?
			       "nqn.2014-08.org.nvmexpress:uuid:\x01" "f022" :
			       "nqn.2014-08.org.nvmexpress:uuid:f022\x1b[2J";
			must_fail(c, "Connect with a control character in the HOSTNQN");
			break;
		case 1:
			host = NULL;
			must_fail(c, "Connect with an unterminated HOSTNQN");
			break;
		default:
			host = "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-00000000f022";
			if (io)
				must_fail(c, "I/O Connect from another host NQN");
			break;
		}
	}
	fq->disc = disc;
	c->sqe.cdw10 = htole32(recfmt | (uint32_t)qid << 16);
	c->sqe.cdw11 = htole32(sqsize | cattr << 16);
	c->sqe.cdw12 = htole32(kato);
	d = cid_block(c);
	memset(d, 0, 1024);
	memcpy(d, f->t->hostid, 16);
	if (chance(r, 100)) {
		for (i = 0; i < 16; i++)
			d[i] = (uint8_t)rnd(r);
		/* The controller's NQN and CNTLID, but not its host ID. */
		if (io)
			must_fail(c, "I/O Connect with a host ID other than its controller's");
	}
	memcpy(d + 16, &(uint16_t){ htole16(cntlid) }, 2);
	if (sub)
		snprintf((char *)d + 256, 256, "%s", sub);
	else
		memset(d + 256, 'n', 256);
	if (host)
		snprintf((char *)d + 512, 256, "%s", host);
	else
		memset(d + 512, 'h', 256);
	if (chance(r, 80)) {
		for (i = 18; i < 256; i++)	/* reserved */
			d[i] = (uint8_t)rnd(r);
		c->mutated = true;
	}
	c->dlen = 1024;
	if (io && f->icd >= 1024 && chance(r, 500))
		sgl_incap(c, r, 1024, (int64_t)cid_block_off(c), chance(r, 60));
	else if (chance(r, 40))
		sgl_weird(c, r);
	else
		sgl_keyed(c, r, chance(r, 300), chance(r, 60) ?
			  mutate_len(r, 1024) : 1024, (int64_t)cid_block_off(c));
	mutate_common(c, r);
	if (io && qid < 32 && (f->fresh_qids & 1u << qid)) {
		/* An earlier fresh queue had it: its teardown may lag. */
		*expect_ok = false;
	} else if (io && qid == fq->q.qid && admin_settled(f)) {
		/* Only a free queue id within the grant can be installed. */
		if (qid > f->granted)
			must_fail(c, "I/O Connect for qid %u with %u queues granted",
				  qid, f->granted);
		else if (qid == f->io.q.qid)
			must_fail(c, "I/O Connect for qid %u, which is connected",
				  qid);
	}
	if (io && !admin_settled(f))
		*expect_ok = false;
	if (c->why[0])
		*expect_ok = false;
}

static bool is_connect(const struct cap *c)
{
	return c->sqe.opcode == NVME_OPC_FABRICS &&
	       ((const uint8_t *)&c->sqe)[4] == NVMF_FCTYPE_CONNECT;
}

/*
 * A capsule on a fresh queue: before a successful Connect only a Connect
 * can succeed (and then it counts as the queue's Connect).
 */
static void before_connect(struct fz_q *fq, struct cap *c)
{
	if (is_connect(c) && !fq->connected) {
		c->effect = FX_CONNECT;
		return;
	}
	c->effect = FX_NONE;
	if (!fq->connected) {
		c->held = false;
		must_fail(c, "a command before a successful Connect");
	}
}

static void do_fresh(struct fz *f, struct rng *r)
{
	struct fz_q *fq = &f->fresh;
	struct nw_conn_opts o = { 0 };
	uint8_t raw[56];
	int rej, want, ret, i, burst, cid;
	bool expect_ok;
	struct cap c;

	f->fresh_n++;
	switch (PICKW(r, 400, 400, 120, 80)) {
	case 0:
		o.qid = 0;
		break;
	case 1:
		o.qid = (uint16_t)PICK(r, 1, 2, 2, 3, 4, 5);
		break;
	case 2:		/* fields out of range */
		o.qid = (uint16_t)PICK(r, 0, 1, 2, 128, 129, 200, 0xffff);
		o.recfmt = chance(r, 800) ? 0 : (uint16_t)PICK(r, 1, 0xffff);
		o.hsqsize = (uint16_t)PICK(r, 0, 1, 2, 31, 127, 1022, 1023,
					   1024, 0xfffe, 0xffff);
		o.hrqsize = (uint16_t)PICK(r, 0, 1, 2, 32, 128, 1024, 1025,
					   0xffff);
		if (chance(r, 500))
			o.hrqsize = o.hsqsize + 1;
		break;
	default:	/* raw bytes */
		o.pdata_raw = true;
		o.pdata_len = (uint8_t)below(r, 57);
		for (i = 0; i < (int)sizeof(raw); i++)
			raw[i] = (uint8_t)rnd(r);
		if (chance(r, 600))
			raw[0] = raw[1] = 0;
		if (chance(r, 600))
			raw[3] = 0;
		o.pdata = raw;
		break;
	}
	if (!o.pdata_raw && o.hsqsize == 0 && o.hrqsize == 0 &&
	    o.recfmt == 0 && (o.qid <= 5)) {
		o.hsqsize = (uint16_t)PICK(r, 1, 7, 15, 31, 63);
		o.hrqsize = chance(r, 800) ? o.hsqsize + 1 :
			    (uint16_t)(2 + below(r, 64));
	}
	if (o.pdata_raw) {
		uint8_t pd[32] = { 0 };

		memcpy(pd, raw, o.pdata_len > 32 ? 32 : o.pdata_len);
		want = cm_expect(f, pd, o.pdata_len);
		memcpy(&o.hsqsize, raw + 6, 2);
		o.hsqsize = le16toh(o.hsqsize);
		memcpy(&o.qid, raw + 2, 2);
		o.qid = le16toh(o.qid);
		if (o.pdata_len < 8) {
			o.hsqsize = 0;
			o.qid = 0;
		}
	} else {
		struct nvme_rdma_cm_req q = {
			.recfmt = htole16(o.recfmt), .qid = htole16(o.qid),
			.hrqsize = htole16(o.hrqsize), .hsqsize = htole16(o.hsqsize),
		};

		want = cm_expect(f, (const uint8_t *)&q, sizeof(q));
	}
	o.nslots = o.hsqsize + 1 < FRESH_SLOTS ? o.hsqsize + 1 : FRESH_SLOTS;
	if (o.nslots < 1)
		o.nslots = 1;
	o.timeout_ms = 10000;
	ret = fq_open(f, fq, "fresh", &o, SRC_IO, SINK_SIZE, &rej);
	fq->fresh = true;
	if (ret == NW_CONN_REJECTED) {
		f->cm_rejects++;
		if (rej == RDMA_CM_NO_RSC)
			f->cm_no_rsc++;
		else if (!want)
			finding(f, f->iter, "CM request (qid %u hsqsize %u) rejected with NVMe/RDMA status %d",
				o.qid, o.hsqsize, rej);
		else if (rej != want)
			finding(f, f->iter, "CM request rejected with status %d, expected %d (qid %u hsqsize %u, %s private data)",
				rej, want, o.qid, o.hsqsize,
				o.pdata_raw ? "raw" : "NVMe/RDMA");
		return;
	}
	if (ret != NW_CONN_OK) {
		finding(f, f->iter, "CM request (qid %u) neither accepted nor rejected: %s",
			o.qid, nw_err);
		return;
	}
	if (want)
		finding(f, f->iter, "CM request accepted, expected reject status %d (qid %u hsqsize %u)",
			want, o.qid, o.hsqsize);
	if (fq->q.crqsize != fq->hsqsize + 1u)
		finding(f, f->iter, "CM accept crqsize %u for hsqsize %u",
			fq->q.crqsize, fq->hsqsize);
	fq->icd = fq->q.qid ? f->icd : 0;

	/* Something before the Connect, now and then. */
	if (chance(r, 100)) {
		if (fq->q.qid)
			gen_io(f, fq, r, &c);
		else
			gen_admin(f, fq, r, &c, false);
		before_connect(fq, &c);
		send_cap(f, &c, false);
	}
	while (fq->up && fq->inflight && !f->stop)
		pump(f, 20);
	if (!wait_slot(f, fq))
		goto out;
	gen_connect(f, fq, r, &c, &expect_ok);
	if (fq->connected)
		expect_ok = false;	/* the command before was a Connect */
	cid = send_cap(f, &c, false);
	if (cid >= 0) {
		/* Wait for the Connect's answer. */
		while (fq->up && fq->inflight && !f->stop)
			pump(f, 20);
		if (fq->connected)
			f->connects_ok++;
		else
			f->connects_bad++;
		if (expect_ok && !fq->connected && fq->up && !f->stop)
			finding(f, f->iter, "a valid Connect was refused with status %#x result %#llx (%s)",
				le16toh(fq->recs[cid].cqe.status) >> 1,
				(unsigned long long)le64toh(fq->recs[cid].cqe.result),
				fq->recs[cid].what);
	}
	/* A few more capsules on it. */
	burst = (int)below(r, 4);
	for (i = 0; i < burst && fq->up && !f->stop; i++) {
		if (!wait_slot(f, fq))
			break;
		if (fq->q.qid) {
			gen_io(f, fq, r, &c);
		} else if (i == 0 && fq->connected && chance(r, 500)) {
			cap_init(&c, fq, NVME_OPC_FABRICS);
			((uint8_t *)&c.sqe)[4] = NVMF_FCTYPE_PROP_SET;
			c.sqe.cdw11 = htole32(NVME_REG_CC);
			c.sqe.cdw12 = htole32(1 | 6u << 16 | 4u << 20);
		} else {
			gen_admin(f, fq, r, &c, fq->disc);
		}
		before_connect(fq, &c);
		if (c.held && fq->held >= 1)
			c.held = false, c.sqe.opcode = NVME_ADM_KEEP_ALIVE;
		send_cap(f, &c, false);
	}
	while (fq->up && fq->inflight > fq->held && !f->stop)
		pump(f, 20);
out:
	fq->killed = true;
	fq_close(f, fq, chance(r, 650));
}

/* ---- the run ------------------------------------------------------------------ */

static void summary(struct fz *f, double secs)
{
	printf("fuzz: seed %llu: %llu iterations, %llu capsules (+%llu setup), %llu answers: %llu success, %llu generic, %llu command specific, %llu media, %llu path, %llu undefined; %llu refused as they must be (%llu with the specification's status), %llu valid passed; no answer: %llu lost with a queue, %llu held AERs; drops: %llu expected, %llu collateral, %llu ours, %llu unexpected; %llu reconnects, %llu controller resets; fresh queues %llu (CM rejects %llu, Connect ok %llu / refused %llu); truncated %llu, oversize %llu, bad keys %llu, abrupt %llu, raw %llu; %llu not sent (queue gone); %.1f s, %.1f capsules/s; findings %d\n",
	       (unsigned long long)f->o->seed, (unsigned long long)f->iter,
	       (unsigned long long)f->sent,
	       (unsigned long long)(f->total_caps + f->truncated - f->sent),
	       (unsigned long long)f->completed, (unsigned long long)f->success,
	       (unsigned long long)f->by_sct[0], (unsigned long long)f->by_sct[1],
	       (unsigned long long)f->by_sct[2], (unsigned long long)f->by_sct[3],
	       (unsigned long long)f->odd,
	       (unsigned long long)f->must_fail_seen,
	       (unsigned long long)f->want_seen,
	       (unsigned long long)f->must_pass_seen,
	       (unsigned long long)f->lost, (unsigned long long)f->held_lost,
	       (unsigned long long)f->drops_expected,
	       (unsigned long long)f->drops_collateral,
	       (unsigned long long)f->drops_self,
	       (unsigned long long)f->drops_unexpected,
	       (unsigned long long)f->reconnects,
	       (unsigned long long)f->ctrl_resets,
	       (unsigned long long)f->fresh_n, (unsigned long long)f->cm_rejects,
	       (unsigned long long)f->connects_ok,
	       (unsigned long long)f->connects_bad,
	       (unsigned long long)f->truncated, (unsigned long long)f->oversize,
	       (unsigned long long)f->badkey, (unsigned long long)f->abrupt,
	       (unsigned long long)f->raw, (unsigned long long)f->skipped, secs,
	       secs > 0 ? f->sent / secs : 0.0,
	       f->findings);
	if (f->o->auth_subnqn)
		printf("fuzz: auth: %llu sessions, %llu messages, %llu challenges, %llu Failure1, %llu queues dropped at the deadline\n",
		       (unsigned long long)f->auth_sessions,
		       (unsigned long long)f->auth_msgs,
		       (unsigned long long)f->auth_challenges,
		       (unsigned long long)f->auth_failure1s,
		       (unsigned long long)f->auth_drops);
	if (f->known)
		printf("fuzz: %llu known finding(s) (--known %s), the first printed above\n",
		       (unsigned long long)f->known, f->o->known);
}

int nw_fuzz(const struct nw_target *t, const struct nw_fuzz_opts *o)
{
	static struct fz fz;
	struct fz *f = &fz;
	int64_t t0 = now_ms(), last_note = t0;
	uint64_t i;
	double secs;
	struct rng r;

	memset(f, 0, sizeof(*f));
	f->t = t;
	f->o = o;
	/*
	 * Thousands of queues come and go: never arm a CQ (see nw_poll_only),
	 * or the guest's soft-RoCE may use a freed CQ and WARN.
	 */
	nw_poll_only = true;
	g_seed = o->seed;
	g_cmdline = o->cmdline;
	signal(SIGALRM, on_watchdog);
	alarm(o->cmd_timeout_ms / 1000 + 90);
	if (open_ctrl(f, 0)) {
		finding(f, 0, "controller setup: %s", nw_err);
		f->stop = f->hung = true;
	}
	f->reconnects = 0;
	for (i = 0; !f->stop && (!o->count || i < o->count); i++) {
		int64_t now = now_ms();

		if (o->time_s && now - t0 >= (int64_t)o->time_s * 1000)
			break;
		f->iter = g_iter = i;
		alarm(o->cmd_timeout_ms / 1000 + 90);
		pump(f, 0);
		if (f->stop || ensure(f))
			break;
		if (now - last_note >= 10000) {
			fprintf(stderr, "note: fuzz: iteration %llu, %llu capsules, %.0f/s, %llu drops\n",
				(unsigned long long)i, (unsigned long long)f->sent,
				f->sent * 1000.0 / (now - t0 + 1),
				(unsigned long long)(f->drops_expected +
						     f->drops_self +
						     f->drops_collateral));
			last_note = now;
		}
		if (!wait_slot(f, &f->admin) || !wait_slot(f, &f->io)) {
			if (f->stop || ensure(f))
				break;
		}
		rng_for(&r, o->seed, i, 0);
		if (o->auth_subnqn) {
			struct rng ra;

			/* Its own stream: without it, the same capsules. */
			rng_for(&ra, o->seed, i, 1);
			if (chance(&ra, 10)) {
				do_auth(f, &ra);
				pump(f, 0);
				continue;
			}
		}
		switch (PICKW(&r, 560, 300, 40, 8, 7, 15, 5, 65)) {
		case 0: {
			struct cap c;

			gen_io(f, &f->io, &r, &c);
			send_cap(f, &c, false);
			break;
		}
		case 1: {
			struct cap c;

			gen_admin(f, &f->admin, &r, &c, false);
			send_cap(f, &c, false);
			break;
		}
		case 2:
			do_fresh(f, &r);
			break;
		case 3:
			do_length(f, &r, true);
			break;
		case 4:
			do_length(f, &r, false);
			break;
		case 5:
			do_badkey(f, &r);
			break;
		case 6:
			do_abrupt(f, &r);
			break;
		default:
			do_raw(f, &r);
			break;
		}
		pump(f, 0);
	}
	f->iter = g_iter = i;
	/* Everything still in flight must be answered. */
	while (!f->stop && ((f->admin.up && f->admin.inflight > f->admin.held) ||
			    (f->io.up && f->io.inflight)))
		pump(f, 50);
	alarm(60);
	close_ctrl(f, !f->hung);
	fq_close(f, &f->fresh, false);
	alarm(0);
	secs = (now_ms() - t0) / 1000.0;
	summary(f, secs);
	printf("fuzz: reproduce: %s --seed %llu --count %llu\n",
	       o->cmdline ? o->cmdline : "nvmf-wire ... fuzz",
	       (unsigned long long)o->seed,
	       (unsigned long long)(f->findings ? f->first_iter + 1 : f->iter));
	if (f->findings) {
		printf("FAIL fuzz: seed %llu: %d finding(s), the first at iteration %llu: %s\n",
		       (unsigned long long)o->seed, f->findings,
		       (unsigned long long)f->first_iter, f->first);
		return 1;
	}
	printf("PASS fuzz\n");
	return 0;
}
