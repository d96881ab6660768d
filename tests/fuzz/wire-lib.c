// SPDX-License-Identifier: GPL-2.0
/*
 * nvmf-wire library: NVMe/RDMA queues from userspace.  See nvmf-wire.h.
 *
 * Each queue has its own CM event channel, completion channel, PD, CQ and
 * RC QP.  Every command occupies a slot (its cid is the slot index) until
 * both its SEND has completed and its response capsule has arrived.
 * Receives are reposted as soon as a response is copied out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "nvmf-wire.h"

char nw_err[512];
int nw_verbose;
bool nw_use_mw = true;
int nw_retry_count = 7;
int nw_time_scale = 1;
bool nw_cm_pads;
bool nw_poll_only;

int nw_scaled_ms(int ms)
{
	long long v = (long long)ms * nw_time_scale;

	return v > INT_MAX ? INT_MAX : (int)v;
}

/* Work request ids: kind in the top half, index in the bottom. */
enum { WR_RECV = 1, WR_SEND = 2, WR_BIND = 3 };
#define WRID(kind, idx)	((uint64_t)(kind) << 32 | (uint32_t)(idx))
#define WR_KIND(id)	((int)((id) >> 32))
#define WR_IDX(id)	((uint32_t)(id))

#define CAPSULE		64
#define RECV_SLOT	64	/* larger than a CQE: oversize responses show */
#define SCRATCH		8192	/* library-owned tail of the data buffer */

struct nw_slot {
	bool busy;
	bool send_done;
	bool cqe_done;
	int nwr;
	uint8_t sgl_type;
	uint32_t rkey;
	struct ibv_mw *mw;
	uint32_t mw_rkey;
	bool mw_bound;		/* bound and not (yet) invalidated */
};

static void set_err(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static void set_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(nw_err, sizeof(nw_err), fmt, ap);
	va_end(ap);
	if (nw_verbose)
		fprintf(stderr, "nvmf-wire: %s\n", nw_err);
}

static void dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void dbg(const char *fmt, ...)
{
	va_list ap;

	if (nw_verbose < 2)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "nvmf-wire: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void proto_err(struct nw_queue *q, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void proto_err(struct nw_queue *q, const char *fmt, ...)
{
	va_list ap;

	q->protocol_errors++;
	va_start(ap, fmt);
	vsnprintf(q->protocol_msg, sizeof(q->protocol_msg), fmt, ap);
	va_end(ap);
	if (nw_verbose) {
		va_start(ap, fmt);
		fprintf(stderr, "nvmf-wire: queue %u: protocol: ", q->qid);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		va_end(ap);
	}
}

/* ---- CM events ----------------------------------------------------------- */

static void note_cm_event(struct nw_queue *q, struct rdma_cm_event *ev)
{
	q->cm_event_last = ev->event;
	dbg("queue %u: CM event %s (status %d)", q->qid,
	    rdma_event_str(ev->event), ev->status);
	switch (ev->event) {
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		q->disconnected = true;
		break;
	default:
		break;
	}
}

/* Handle the CM events already queued; returns how many. */
static int drain_cm_events(struct nw_queue *q)
{
	struct rdma_cm_event *ev;
	int n = 0;

	while (q->ch && rdma_get_cm_event(q->ch, &ev) == 0) {
		note_cm_event(q, ev);
		rdma_ack_cm_event(ev);
		n++;
	}
	return n;
}

/*
 * Wait for one CM event of the given kind (or a failure) during setup.
 * Returns the event (to be acked by the caller) or NULL.
 */
static struct rdma_cm_event *wait_cm_event(struct nw_queue *q, int timeout_ms)
{
	struct pollfd pfd = { .fd = q->ch->fd, .events = POLLIN };
	int64_t end = now_ms() + nw_scaled_ms(timeout_ms);
	struct rdma_cm_event *ev;

	for (;;) {
		if (rdma_get_cm_event(q->ch, &ev) == 0)
			return ev;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			set_err("rdma_get_cm_event: %s", strerror(errno));
			return NULL;
		}
		int left = (int)(end - now_ms());

		if (left <= 0) {
			set_err("timed out waiting for a CM event");
			return NULL;
		}
		if (poll(&pfd, 1, left) < 0 && errno != EINTR) {
			set_err("poll: %s", strerror(errno));
			return NULL;
		}
	}
}

static int expect_cm_event(struct nw_queue *q, enum rdma_cm_event_type want,
			   int timeout_ms)
{
	struct rdma_cm_event *ev = wait_cm_event(q, timeout_ms);
	int ret = 0;

	if (!ev)
		return -1;
	if (ev->event != want) {
		set_err("CM event %s (status %d), expected %s",
			rdma_event_str(ev->event), ev->status,
			rdma_event_str(want));
		ret = -1;
	}
	rdma_ack_cm_event(ev);
	return ret;
}

/* ---- completions ----------------------------------------------------------- */

static int post_recv(struct nw_queue *q, int idx)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(q->rbuf + (size_t)idx * RECV_SLOT),
		.length = RECV_SLOT,
		.lkey = q->rmr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = WRID(WR_RECV, idx),
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;
	int ret = ibv_post_recv(q->qp, &wr, &bad);

	if (ret)
		set_err("ibv_post_recv: %s", strerror(ret));
	else
		q->recv_posted++;
	return ret;
}

static void slot_put(struct nw_queue *q, int idx)
{
	struct nw_slot *s = &q->slots[idx];

	s->busy = false;
	q->nfree++;
}

static void slot_maybe_free(struct nw_queue *q, int idx)
{
	struct nw_slot *s = &q->slots[idx];

	if (s->busy && s->send_done && s->cqe_done)
		slot_put(q, idx);
}

static void push_done(struct nw_queue *q, const struct nw_done *d)
{
	int next = (q->done_tail + 1) % q->done_cap;

	if (next == q->done_head) {
		proto_err(q, "more completions than commands (cid %u)",
			  le16toh(d->cqe.cid));
		return;
	}
	q->done[q->done_tail] = *d;
	q->done_tail = next;
}

static const char *kind_name(int kind)
{
	switch (kind) {
	case WR_RECV: return "receive";
	case WR_SEND: return "send";
	case WR_BIND: return "memory window bind";
	default: return "?";
	}
}

static void handle_wc(struct nw_queue *q, const struct ibv_wc *wc)
{
	int kind = WR_KIND(wc->wr_id);
	uint32_t idx = WR_IDX(wc->wr_id);
	struct nw_done d = { 0 };
	struct nw_slot *s;
	uint16_t cid;

	if (kind == WR_RECV)
		q->recv_posted--;
	if (wc->status != IBV_WC_SUCCESS) {
		if (wc->status == IBV_WC_WR_FLUSH_ERR) {
			q->flushed++;
		} else if (!q->wc_errors++) {
			snprintf(q->wc_error_msg, sizeof(q->wc_error_msg),
				 "%s completion failed: %s (%d)",
				 kind_name(kind), ibv_wc_status_str(wc->status),
				 wc->status);
			dbg("queue %u: %s", q->qid, q->wc_error_msg);
		}
		if (kind == WR_SEND && idx < (uint32_t)q->nslots) {
			q->slots[idx].send_done = true;
			q->sq_used -= q->slots[idx].nwr;
		}
		return;
	}

	switch (kind) {
	case WR_SEND:
		s = &q->slots[idx];
		s->send_done = true;
		q->sq_used -= s->nwr;
		slot_maybe_free(q, idx);
		return;
	case WR_BIND:
		return;
	case WR_RECV:
		break;
	default:
		proto_err(q, "completion with unknown wr_id %#llx",
			  (unsigned long long)wc->wr_id);
		return;
	}

	memcpy(&d.cqe, q->rbuf + (size_t)idx * RECV_SLOT, sizeof(d.cqe));
	d.byte_len = wc->byte_len;
	/*
	 * rxe copies the kernel's work completion to userspace as is, and
	 * the kernel's IB_WC_WITH_INVALIDATE (1 << 2) is libibverbs'
	 * IBV_WC_IP_CSUM_OK, which an RC receive never carries otherwise.
	 */
	d.invalidated = wc->wc_flags & (IBV_WC_WITH_INV | IBV_WC_IP_CSUM_OK);
	d.inv_rkey = d.invalidated ? wc->invalidated_rkey : 0;
	d.sgl_type = 0xff;
	if (!q->disconnected && !q->no_repost && post_recv(q, idx))
		q->wc_errors++;
	if (wc->byte_len != sizeof(struct nvme_cqe))
		proto_err(q, "response capsule of %u bytes (expected 16)",
			  wc->byte_len);
	if (wc->wc_flags & IBV_WC_WITH_IMM)
		proto_err(q, "response capsule with immediate data");

	cid = le16toh(d.cqe.cid);
	if (cid >= q->nslots || !q->slots[cid].busy ||
	    q->slots[cid].cqe_done) {
		proto_err(q, "completion for cid %u, which is not outstanding",
			  cid);
		push_done(q, &d);
		return;
	}
	s = &q->slots[cid];
	s->cqe_done = true;
	d.sgl_type = s->sgl_type;
	d.rkey = s->rkey;
	if (d.invalidated) {
		if (s->sgl_type != NVME_SGL_KEYED_INV)
			proto_err(q, "cid %u: remote invalidation of rkey %#x for a command with SGL type %#x",
				  cid, d.inv_rkey, s->sgl_type);
		else if (d.inv_rkey != s->rkey)
			proto_err(q, "cid %u: target invalidated rkey %#x, the command carried %#x",
				  cid, d.inv_rkey, s->rkey);
		else
			s->mw_bound = false;
	}
	push_done(q, &d);
	slot_maybe_free(q, cid);
}

static int poll_cq_all(struct nw_queue *q)
{
	struct ibv_wc wc[32];
	int n, i, total = 0;

	while ((n = ibv_poll_cq(q->cq, 32, wc)) > 0) {
		for (i = 0; i < n; i++)
			handle_wc(q, &wc[i]);
		total += n;
	}
	if (n < 0) {
		set_err("ibv_poll_cq failed");
		return -1;
	}
	return total;
}

bool nw_dead(struct nw_queue *q)
{
	return q->disconnected || q->wc_errors || q->flushed;
}

int nw_outstanding(struct nw_queue *q)
{
	return q->nslots - q->nfree;
}

int nw_progress(struct nw_queue *q, int timeout_ms)
{
	struct pollfd pfd[2];
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n;

	n = poll_cq_all(q);
	if (n)
		return n;
	if (nw_poll_only) {
		n = drain_cm_events(q);
		if (n)
			return n;
		pfd[0] = (struct pollfd){ .fd = q->ch->fd, .events = POLLIN };
		if (poll(pfd, 1, timeout_ms < 1 ? timeout_ms : 1) < 0 &&
		    errno != EINTR) {
			set_err("poll: %s", strerror(errno));
			return -1;
		}
		return drain_cm_events(q) + poll_cq_all(q);
	}
	if (ibv_req_notify_cq(q->cq, 0)) {
		set_err("ibv_req_notify_cq failed");
		return -1;
	}
	n = poll_cq_all(q);
	n += drain_cm_events(q);
	if (n)
		return n;
	pfd[0] = (struct pollfd){ .fd = q->cc->fd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = q->ch->fd, .events = POLLIN };
	if (poll(pfd, 2, timeout_ms) < 0 && errno != EINTR) {
		set_err("poll: %s", strerror(errno));
		return -1;
	}
	if (pfd[0].revents && ibv_get_cq_event(q->cc, &ev_cq, &ev_ctx) == 0)
		ibv_ack_cq_events(ev_cq, 1);
	n = drain_cm_events(q);
	n += poll_cq_all(q);
	return n;
}

int nw_progress_any(struct nw_queue *const *qs, int n, int timeout_ms)
{
	struct pollfd pfd[16];
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int i, k, np = 0, got = 0;

	if (n > 8)
		n = 8;
	for (i = 0; i < n; i++) {
		struct nw_queue *q = qs[i];

		if (!q || !q->qp)
			continue;
		k = poll_cq_all(q);
		if (k < 0)
			return -1;
		got += k;
	}
	if (got)
		return got;
	for (i = 0; i < n; i++) {
		struct nw_queue *q = qs[i];

		if (!q || !q->qp)
			continue;
		if (!nw_poll_only && ibv_req_notify_cq(q->cq, 0)) {
			set_err("ibv_req_notify_cq failed");
			return -1;
		}
		k = poll_cq_all(q);
		if (k < 0)
			return -1;
		got += k + drain_cm_events(q);
		/* The CQ channel never fires in poll-only mode: a dummy slot. */
		pfd[np++] = (struct pollfd){ .fd = nw_poll_only ? -1 : q->cc->fd,
					     .events = POLLIN };
		pfd[np++] = (struct pollfd){ .fd = q->ch->fd, .events = POLLIN };
	}
	if (got || !np)
		return got;
	if (nw_poll_only && timeout_ms > 1)
		timeout_ms = 1;
	if (poll(pfd, np, timeout_ms) < 0 && errno != EINTR) {
		set_err("poll: %s", strerror(errno));
		return -1;
	}
	for (i = 0, k = 0; i < n; i++) {
		struct nw_queue *q = qs[i];

		if (!q || !q->qp)
			continue;
		if (pfd[k].revents &&
		    ibv_get_cq_event(q->cc, &ev_cq, &ev_ctx) == 0)
			ibv_ack_cq_events(ev_cq, 1);
		k += 2;
		got += drain_cm_events(q);
		got += poll_cq_all(q) > 0;
	}
	return got;
}

int nw_free_cid(struct nw_queue *q)
{
	int i;

	for (i = 0; i < q->nslots; i++) {
		int idx = (q->slot_hint + i) % q->nslots;

		if (!q->slots[idx].busy)
			return idx;
	}
	return -1;
}

int nw_wait_cqe(struct nw_queue *q, struct nw_done *d, int timeout_ms)
{
	int64_t end = now_ms() + nw_scaled_ms(timeout_ms);

	for (;;) {
		if (q->done_head != q->done_tail) {
			*d = q->done[q->done_head];
			q->done_head = (q->done_head + 1) % q->done_cap;
			return 1;
		}
		if (nw_dead(q)) {
			if (q->wc_errors)
				set_err("queue %u dead: %s", q->qid,
					q->wc_error_msg);
			else if (q->disconnected)
				set_err("queue %u disconnected (%s)", q->qid,
					rdma_event_str(q->cm_event_last));
			else
				set_err("queue %u: completions flushed",
					q->qid);
			return -1;
		}
		int left = (int)(end - now_ms());

		if (left <= 0) {
			set_err("queue %u: no completion within %d ms (%d outstanding)",
				q->qid, nw_scaled_ms(timeout_ms), nw_outstanding(q));
			return 0;
		}
		if (nw_progress(q, left) < 0)
			return -1;
	}
}

/* ---- submission -------------------------------------------------------------- */

void nw_sqe_init(struct nvme_sqe *sqe, uint8_t opcode)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = opcode;
	sqe->flags = NVME_FLAGS_SGL;
}

void nw_sgl_keyed(struct nvme_sqe *sqe, uint8_t type, uint64_t addr,
		  uint32_t len, uint32_t key)
{
	uint64_t a = htole64(addr);
	uint32_t k = htole32(key);

	memcpy(sqe->dptr, &a, 8);
	sqe->dptr[8] = len & 0xff;
	sqe->dptr[9] = (len >> 8) & 0xff;
	sqe->dptr[10] = (len >> 16) & 0xff;
	memcpy(sqe->dptr + 11, &k, 4);
	sqe->dptr[15] = type;
}

void nw_sgl_data(struct nvme_sqe *sqe, uint8_t type, uint64_t addr,
		 uint32_t len)
{
	uint64_t a = htole64(addr);
	uint32_t l = htole32(len);

	memset(sqe->dptr, 0, sizeof(sqe->dptr));
	memcpy(sqe->dptr, &a, 8);
	memcpy(sqe->dptr + 8, &l, 4);
	sqe->dptr[15] = type;
}

static int wait_until(struct nw_queue *q, bool (*cond)(struct nw_queue *, int),
		      int arg, int timeout_ms, const char *what)
{
	int64_t end = now_ms() + nw_scaled_ms(timeout_ms);

	while (!cond(q, arg)) {
		if (nw_dead(q)) {
			set_err("queue %u dead while waiting for %s", q->qid,
				what);
			return -1;
		}
		int left = (int)(end - now_ms());

		if (left <= 0) {
			set_err("queue %u: timed out waiting for %s", q->qid,
				what);
			return -1;
		}
		if (nw_progress(q, left) < 0)
			return -1;
	}
	return 0;
}

static bool have_free_slot(struct nw_queue *q, int unused)
{
	(void)unused;
	return q->nfree > 0;
}

static bool have_send_room(struct nw_queue *q, int need)
{
	return q->sq_used + need <= q->max_send_wr;
}

static bool sends_done(struct nw_queue *q, int unused)
{
	int i;

	(void)unused;
	for (i = 0; i < q->nslots; i++)
		if (q->slots[i].busy && !q->slots[i].send_done)
			return false;
	return true;
}

int nw_wait_sends(struct nw_queue *q, int timeout_ms)
{
	return wait_until(q, sends_done, 0, timeout_ms, "send completions");
}

int nw_completed(struct nw_queue *q)
{
	return (q->done_tail - q->done_head + q->done_cap) % q->done_cap;
}

static int find_free_slot(struct nw_queue *q)
{
	int i;

	for (i = 0; i < q->nslots; i++) {
		int idx = (q->slot_hint + i) % q->nslots;

		if (!q->slots[idx].busy) {
			q->slot_hint = idx + 1;
			return idx;
		}
	}
	return -1;
}

/* A fresh (unbound) type 2 window for the slot; false if unsupported. */
static bool slot_window(struct nw_queue *q, struct nw_slot *s)
{
	if (q->no_mw || !nw_use_mw)
		return false;
	if (s->mw && s->mw_bound) {
		/* The target did not invalidate it: start over. */
		ibv_dealloc_mw(s->mw);
		s->mw = NULL;
		s->mw_bound = false;
	}
	if (!s->mw) {
		s->mw = ibv_alloc_mw(q->pd, IBV_MW_TYPE_2);
		if (!s->mw) {
			fprintf(stderr,
				"nvmf-wire: note: no type 2 memory windows (%s): 0x4F descriptors carry the MR's rkey as 0x40\n",
				strerror(errno));
			q->no_mw = true;
			return false;
		}
		s->mw_rkey = s->mw->rkey;
	}
	return true;
}

int nw_submit(struct nw_queue *q, struct nvme_sqe *sqe,
	      const struct nw_xfer *x)
{
	static const struct nw_xfer none = { .sgl = NW_SGL_NONE };
	struct ibv_send_wr wr[2], *bad, *first;
	struct ibv_sge sge[2];
	struct nw_slot *s;
	uint32_t icd_len, dlen;
	size_t icd_off;
	int idx, nwr = 1, nsge = 0;
	int ret;

	if (!x)
		x = &none;
	if (nw_dead(q)) {
		set_err("queue %u is dead", q->qid);
		return -1;
	}
	if (x->keep_cid) {
		idx = sqe->cid;
		if (idx >= q->nslots) {
			set_err("cid %d beyond the queue's %d slots", idx,
				q->nslots);
			return -1;
		}
		if (wait_until(q, have_free_slot, 0, 10000, "a free slot"))
			return -1;
		if (q->slots[idx].busy) {
			set_err("cid %d is busy", idx);
			return -1;
		}
	} else {
		if (wait_until(q, have_free_slot, 0, 10000, "a free slot"))
			return -1;
		idx = find_free_slot(q);
	}
	s = &q->slots[idx];
	memset(wr, 0, sizeof(wr));

	dlen = x->desc_len_set ? x->desc_len : x->len;
	icd_len = x->icd_len;
	icd_off = x->icd_off;
	s->rkey = 0;
	s->sgl_type = sqe->dptr[15];
	switch (x->sgl) {
	case NW_SGL_RAW:
		break;
	case NW_SGL_NONE:
		nw_sgl_keyed(sqe, NVME_SGL_KEYED, 0, 0, 0);
		s->sgl_type = NVME_SGL_KEYED;
		break;
	case NW_SGL_KEYED_INV:
		if (x->len && slot_window(q, s)) {
			struct ibv_send_wr *b = &wr[0];

			s->mw_rkey = ibv_inc_rkey(s->mw_rkey);
			b->wr_id = WRID(WR_BIND, idx);
			b->opcode = IBV_WR_BIND_MW;
			b->bind_mw.mw = s->mw;
			b->bind_mw.rkey = s->mw_rkey;
			b->bind_mw.bind_info.mr = q->dmr;
			b->bind_mw.bind_info.addr = (uintptr_t)(q->data + x->off);
			b->bind_mw.bind_info.length = x->len;
			b->bind_mw.bind_info.mw_access_flags =
				IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
			s->mw_bound = true;
			nwr = 2;
			nw_sgl_keyed(sqe, NVME_SGL_KEYED_INV,
				     (uintptr_t)(q->data + x->off), dlen,
				     s->mw_rkey);
			s->sgl_type = NVME_SGL_KEYED_INV;
			s->rkey = s->mw_rkey;
			break;
		}
		/* No window: the plain MR key, described as 0x40. */
		/* fallthrough */
	case NW_SGL_KEYED:
		nw_sgl_keyed(sqe, NVME_SGL_KEYED, (uintptr_t)(q->data + x->off),
			     dlen, q->dmr->rkey);
		s->sgl_type = NVME_SGL_KEYED;
		s->rkey = q->dmr->rkey;
		break;
	case NW_SGL_INCAPSULE:
		nw_sgl_data(sqe, NVME_SGL_INCAPSULE, 0, dlen);
		s->sgl_type = NVME_SGL_INCAPSULE;
		if (!icd_len) {
			icd_len = x->len;
			icd_off = x->off;
		}
		break;
	}
	if (!x->keep_cid)
		sqe->cid = htole16(idx);
	if (icd_off + icd_len > q->data_size) {
		set_err("in-capsule data beyond the data buffer");
		return -1;
	}
	if (wait_until(q, have_send_room, nwr, 10000, "send queue room"))
		return -1;

	memcpy(q->sbuf + (size_t)idx * CAPSULE, sqe, sizeof(*sqe));
	if (!x->capsule_len_set || x->capsule_len) {
		sge[nsge].addr = (uintptr_t)(q->sbuf + (size_t)idx * CAPSULE);
		sge[nsge].length = x->capsule_len_set ? x->capsule_len : CAPSULE;
		sge[nsge].lkey = q->smr->lkey;
		nsge++;
	}
	if (icd_len) {
		sge[nsge].addr = (uintptr_t)(q->data + icd_off);
		sge[nsge].length = icd_len;
		sge[nsge].lkey = q->dmr->lkey;
		nsge++;
	}
	first = &wr[nwr - 1];
	first->wr_id = WRID(WR_SEND, idx);
	first->opcode = IBV_WR_SEND;
	first->send_flags = IBV_SEND_SIGNALED;
	first->sg_list = nsge ? sge : NULL;
	first->num_sge = nsge;
	if (nwr == 2) {
		wr[0].next = &wr[1];
		first = &wr[0];
	}

	s->busy = true;
	s->send_done = false;
	s->cqe_done = false;
	s->nwr = nwr;
	q->nfree--;
	q->sq_used += nwr;
	ret = ibv_post_send(q->qp, first, &bad);
	if (ret) {
		set_err("ibv_post_send: %s", strerror(ret));
		q->sq_used -= nwr;
		slot_put(q, idx);
		return -1;
	}
	if (!x->capsule_len_set || x->capsule_len >= CAPSULE)
		q->capsules++;
	/*
	 * The provider names a window by ibv_mw->rkey when binding it; keep
	 * it current for the next bind (ibv_bind_mw() does this for type 1).
	 */
	if (nwr == 2)
		s->mw->rkey = s->mw_rkey;
	dbg("queue %u: cid %d opcode %#x sgl %#x len %u", q->qid, idx,
	    sqe->opcode, s->sgl_type, dlen);
	return idx;
}

int nw_exec(struct nw_queue *q, struct nvme_sqe *sqe,
	    const struct nw_xfer *x, struct nw_done *d, int timeout_ms)
{
	int cid = nw_submit(q, sqe, x), ret;

	if (cid < 0)
		return -1;
	for (;;) {
		ret = nw_wait_cqe(q, d, timeout_ms);
		if (ret <= 0) {
			char buf[sizeof(nw_err)];

			snprintf(buf, sizeof(buf), "opcode %#x cid %d: %.450s",
				 sqe->opcode, cid, nw_err);
			memcpy(nw_err, buf, sizeof(nw_err));
			return -1;
		}
		if (le16toh(d->cqe.cid) == cid)
			return 0;
		proto_err(q, "completion for cid %u while waiting for cid %d",
			  le16toh(d->cqe.cid), cid);
	}
}

/* ---- queue setup and teardown ------------------------------------------------ */

static void nw_free(struct nw_queue *q)
{
	int i;

	/*
	 * Windows first: a bound type 2 window holds a reference on its QP,
	 * and rxe's QP destroy waits for it (50 s, then a WARNING).
	 */
	for (i = 0; q->slots && i < q->nslots; i++)
		if (q->slots[i].mw)
			ibv_dealloc_mw(q->slots[i].mw);
	if (q->id && q->qp)
		rdma_destroy_qp(q->id);
	q->qp = NULL;
	if (q->dmr)
		ibv_dereg_mr(q->dmr);
	if (q->smr)
		ibv_dereg_mr(q->smr);
	if (q->rmr)
		ibv_dereg_mr(q->rmr);
	if (q->cq)
		ibv_destroy_cq(q->cq);
	if (q->cc)
		ibv_destroy_comp_channel(q->cc);
	if (q->pd)
		ibv_dealloc_pd(q->pd);
	if (q->id)
		rdma_destroy_id(q->id);
	if (q->ch)
		rdma_destroy_event_channel(q->ch);
	free(q->data);
	free(q->sbuf);
	free(q->rbuf);
	free(q->slots);
	free(q->done);
	memset(q, 0, sizeof(*q));
}

void nw_abort(struct nw_queue *q)
{
	nw_free(q);
}

void nw_drop_qp(struct nw_queue *q)
{
	int i;

	for (i = 0; q->slots && i < q->nslots; i++) {
		if (q->slots[i].mw)
			ibv_dealloc_mw(q->slots[i].mw);
		q->slots[i].mw = NULL;
	}
	if (q->id && q->qp)
		rdma_destroy_qp(q->id);
	q->qp = NULL;
}

int nw_wait_cm_disconnect(struct nw_queue *q, int timeout_ms)
{
	struct pollfd pfd = { .fd = q->ch->fd, .events = POLLIN };
	int64_t end = now_ms() + nw_scaled_ms(timeout_ms);

	for (;;) {
		drain_cm_events(q);
		if (q->disconnected)
			return 0;
		int left = (int)(end - now_ms());

		if (left <= 0)
			return -1;
		poll(&pfd, 1, left);
	}
}

void nw_close(struct nw_queue *q)
{
	int64_t end;

	if (!q->id)
		return;
	if (q->established && !q->disconnected) {
		rdma_disconnect(q->id);
		end = now_ms() + nw_scaled_ms(3000);
		while (!q->disconnected && now_ms() < end)
			if (nw_progress(q, 200) < 0)
				break;
	}
	nw_free(q);
}

static void *zalloc_aligned(size_t size)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, size ? size : 4096))
		return NULL;
	memset(p, 0, size);
	return p;
}

int nw_connect(struct nw_queue *q, const struct nw_target *t,
	       const struct nw_conn_opts *o, int *rej_sts)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	struct addrinfo *src = NULL;
	struct nvme_rdma_cm_req req = { 0 };
	struct rdma_conn_param param = { 0 };
	struct ibv_qp_init_attr qa = { 0 };
	struct ibv_device_attr da;
	struct rdma_cm_event *ev;
	int timeout = o->timeout_ms ? o->timeout_ms : 10000;
	int access, ret, i;

	memset(q, 0, sizeof(*q));
	if (rej_sts)
		*rej_sts = 0;
	q->qid = o->qid;
	q->nslots = o->nslots ? o->nslots : o->hsqsize + 1;
	if (q->nslots < 1 || q->nslots > 4096)
		q->nslots = 32;
	q->nrecv = q->nslots + 1;
	q->max_send_wr = 2 * q->nslots + 2;
	q->data_size = (o->data_size ? o->data_size : (2u << 20) + 65536) +
		       SCRATCH;

	q->ch = rdma_create_event_channel();
	if (!q->ch) {
		set_err("rdma_create_event_channel: %s", strerror(errno));
		goto fail;
	}
	set_nonblock(q->ch->fd);
	if (rdma_create_id(q->ch, &q->id, q, RDMA_PS_TCP)) {
		set_err("rdma_create_id: %s", strerror(errno));
		goto fail;
	}
	ret = getaddrinfo(t->addr, t->svc, &hints, &ai);
	if (ret) {
		set_err("getaddrinfo %s:%s: %s", t->addr, t->svc,
			gai_strerror(ret));
		goto fail;
	}
	if (t->src) {
		struct addrinfo sh = { .ai_socktype = SOCK_STREAM,
				       .ai_family = ai->ai_family,
				       .ai_flags = AI_NUMERICHOST };

		ret = getaddrinfo(t->src, NULL, &sh, &src);
		if (ret) {
			set_err("source address %s: %s", t->src,
				gai_strerror(ret));
			goto fail;
		}
	}
	if (rdma_resolve_addr(q->id, src ? src->ai_addr : NULL, ai->ai_addr,
			      timeout)) {
		set_err("rdma_resolve_addr%s%s: %s", src ? " from " : "",
			src ? t->src : "", strerror(errno));
		goto fail;
	}
	freeaddrinfo(ai);
	ai = NULL;
	if (src)
		freeaddrinfo(src);
	src = NULL;
	if (expect_cm_event(q, RDMA_CM_EVENT_ADDR_RESOLVED, timeout))
		goto fail;
	if (rdma_resolve_route(q->id, timeout)) {
		set_err("rdma_resolve_route: %s", strerror(errno));
		goto fail;
	}
	if (expect_cm_event(q, RDMA_CM_EVENT_ROUTE_RESOLVED, timeout))
		goto fail;

	/* The IB CM (IB, RoCE) pads REQ private data to a fixed size. */
	nw_cm_pads = q->id->verbs->device->transport_type == IBV_TRANSPORT_IB;
	if (ibv_query_device(q->id->verbs, &da)) {
		set_err("ibv_query_device failed");
		goto fail;
	}
	q->pd = ibv_alloc_pd(q->id->verbs);
	q->cc = ibv_create_comp_channel(q->id->verbs);
	if (!q->pd || !q->cc) {
		set_err("ibv_alloc_pd/ibv_create_comp_channel: %s",
			strerror(errno));
		goto fail;
	}
	set_nonblock(q->cc->fd);
	q->cq = ibv_create_cq(q->id->verbs, q->max_send_wr + q->nrecv + 8,
			      NULL, q->cc, 0);
	if (!q->cq) {
		set_err("ibv_create_cq: %s", strerror(errno));
		goto fail;
	}

	q->rbuf = zalloc_aligned((size_t)q->nrecv * RECV_SLOT);
	q->sbuf = zalloc_aligned((size_t)q->nslots * CAPSULE);
	q->data = zalloc_aligned(q->data_size);
	q->slots = calloc(q->nslots, sizeof(*q->slots));
	q->done_cap = 2 * q->nslots + 16;
	q->done = calloc(q->done_cap, sizeof(*q->done));
	if (!q->rbuf || !q->sbuf || !q->data || !q->slots || !q->done) {
		set_err("out of memory");
		goto fail;
	}
	q->nfree = q->nslots;
	q->rmr = ibv_reg_mr(q->pd, q->rbuf, (size_t)q->nrecv * RECV_SLOT,
			    IBV_ACCESS_LOCAL_WRITE);
	q->smr = ibv_reg_mr(q->pd, q->sbuf, (size_t)q->nslots * CAPSULE, 0);
	access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
		 IBV_ACCESS_REMOTE_WRITE;
	q->dmr = ibv_reg_mr(q->pd, q->data, q->data_size,
			    access | IBV_ACCESS_MW_BIND);
	if (!q->dmr) {
		q->no_mw = true;
		q->dmr = ibv_reg_mr(q->pd, q->data, q->data_size, access);
	}
	if (!q->rmr || !q->smr || !q->dmr) {
		set_err("ibv_reg_mr: %s", strerror(errno));
		goto fail;
	}

	qa.send_cq = q->cq;
	qa.recv_cq = q->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.sq_sig_all = 0;
	qa.cap.max_send_wr = q->max_send_wr;
	qa.cap.max_recv_wr = q->nrecv;
	qa.cap.max_send_sge = 2;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(q->id, q->pd, &qa)) {
		set_err("rdma_create_qp: %s", strerror(errno));
		goto fail;
	}
	q->qp = q->id->qp;
	q->no_repost = o->no_repost;
	{
		int n = o->recv_count_set ? o->recv_count : q->nrecv;

		if (n < 0 || n > q->nrecv) {
			set_err("%d receives asked for, the queue has %d buffers",
				n, q->nrecv);
			goto fail;
		}
		for (i = 0; i < n; i++)
			if (post_recv(q, i))
				goto fail;
	}

	if (o->pdata_raw) {
		param.private_data = o->pdata;
		param.private_data_len = o->pdata_len;
	} else {
		req.recfmt = htole16(o->recfmt);
		req.qid = htole16(o->qid);
		req.hrqsize = htole16(o->hrqsize);
		req.hsqsize = htole16(o->hsqsize);
		param.private_data = &req;
		param.private_data_len = sizeof(req);
	}
	param.responder_resources = da.max_qp_rd_atom < 16 ?
				    da.max_qp_rd_atom : 16;
	param.initiator_depth = 0;
	if (o->rd_set) {
		param.responder_resources = o->responder_resources;
		param.initiator_depth = o->initiator_depth;
	}
	param.flow_control = 1;
	param.retry_count = nw_retry_count;
	param.rnr_retry_count = 7;
	if (rdma_connect(q->id, &param)) {
		set_err("rdma_connect: %s", strerror(errno));
		goto fail;
	}
	ev = wait_cm_event(q, timeout);
	if (!ev)
		goto fail;
	if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
		const struct nvme_rdma_cm_rep *rep = ev->param.conn.private_data;

		if (rep && ev->param.conn.private_data_len >= sizeof(*rep)) {
			q->crqsize = le16toh(rep->crqsize);
			if (le16toh(rep->recfmt) != 0)
				proto_err(q, "accept with recfmt %u",
					  le16toh(rep->recfmt));
		} else {
			proto_err(q, "accept without NVMe/RDMA private data");
		}
		rdma_ack_cm_event(ev);
		q->established = true;
		dbg("queue %u: established, crqsize %u", q->qid, q->crqsize);
		return NW_CONN_OK;
	}
	if (ev->event == RDMA_CM_EVENT_REJECTED) {
		const struct nvme_rdma_cm_rej *rej = ev->param.conn.private_data;
		int sts = -1;

		if (ev->status == 28 /* IB_CM_REJ_CONSUMER_DEFINED */ && rej &&
		    ev->param.conn.private_data_len >= sizeof(*rej))
			sts = le16toh(rej->sts);
		set_err("rejected: reason %d, NVMe/RDMA status %d",
			ev->status, sts);
		if (rej_sts)
			*rej_sts = sts;
		rdma_ack_cm_event(ev);
		nw_free(q);
		return NW_CONN_REJECTED;
	}
	set_err("connect: CM event %s (status %d)", rdma_event_str(ev->event),
		ev->status);
	rdma_ack_cm_event(ev);
fail:
	if (ai)
		freeaddrinfo(ai);
	if (src)
		freeaddrinfo(src);
	{
		char keep[sizeof(nw_err)];

		memcpy(keep, nw_err, sizeof(keep));
		nw_free(q);
		memcpy(nw_err, keep, sizeof(keep));
	}
	return NW_CONN_ERROR;
}

/* ---- NVMe-oF helpers -------------------------------------------------------- */

static size_t scratch_off(struct nw_queue *q)
{
	return q->data_size - SCRATCH;
}

int nw_fabrics_connect(struct nw_queue *q, const struct nw_target *t,
		       const struct nw_connect_args *a, uint16_t *status,
		       uint32_t *result)
{
	size_t off = scratch_off(q);
	struct nvmf_connect_data *cd = (void *)(q->data + off);
	struct nvme_sqe sqe;
	struct nw_xfer x = {
		.sgl = a->incapsule ? NW_SGL_INCAPSULE : NW_SGL_KEYED,
		.off = off,
		.len = sizeof(*cd),
	};
	struct nw_done d;

	memset(cd, 0, sizeof(*cd));
	memcpy(cd->hostid, a->hostid ? a->hostid : t->hostid,
	       sizeof(cd->hostid));
	cd->cntlid = htole16(a->cntlid);
	if (a->unterminated_subnqn)
		memset(cd->subsysnqn, 'n', sizeof(cd->subsysnqn));
	else
		snprintf(cd->subsysnqn, sizeof(cd->subsysnqn), "%s",
			 a->subnqn ? a->subnqn : t->subnqn);
	if (a->unterminated_hostnqn)
		memset(cd->hostnqn, 'h', sizeof(cd->hostnqn));
	else
		snprintf(cd->hostnqn, sizeof(cd->hostnqn), "%s",
			 a->hostnqn ? a->hostnqn : t->hostnqn);

	nw_sqe_init(&sqe, NVME_OPC_FABRICS);
	if (a->desc_len_set) {
		x.desc_len_set = true;
		x.desc_len = a->desc_len;
	}
	if (a->sgl_type_set) {
		nw_sgl_keyed(&sqe, a->sgl_type, (uintptr_t)(q->data + off),
			     a->desc_len_set ? a->desc_len : sizeof(*cd),
			     q->dmr->rkey);
		x.sgl = NW_SGL_RAW;
	}
	((uint8_t *)&sqe)[4] = NVMF_FCTYPE_CONNECT;
	sqe.cdw10 = htole32(a->recfmt | (uint32_t)a->qid << 16);
	sqe.cdw11 = htole32(a->sqsize);
	sqe.cdw12 = htole32(a->kato);
	if (nw_exec(q, &sqe, &x, &d, 10000))
		return -1;
	*status = nw_status(&d);
	if (result)
		*result = (uint32_t)le64toh(d.cqe.result);
	if (!*status && q->qid == 0)
		q->cntlid = (uint16_t)le64toh(d.cqe.result);
	return 0;
}

int nw_prop_get(struct nw_queue *q, uint32_t off, bool eight, uint64_t *val,
		uint16_t *status)
{
	struct nvme_sqe sqe;
	struct nw_done d;

	nw_sqe_init(&sqe, NVME_OPC_FABRICS);
	((uint8_t *)&sqe)[4] = NVMF_FCTYPE_PROP_GET;
	sqe.cdw10 = htole32(eight ? 1 : 0);
	sqe.cdw11 = htole32(off);
	if (nw_exec(q, &sqe, NULL, &d, 10000))
		return -1;
	*status = nw_status(&d);
	*val = le64toh(d.cqe.result);
	return 0;
}

int nw_prop_set(struct nw_queue *q, uint32_t off, uint64_t val,
		uint16_t *status)
{
	struct nvme_sqe sqe;
	struct nw_done d;

	nw_sqe_init(&sqe, NVME_OPC_FABRICS);
	((uint8_t *)&sqe)[4] = NVMF_FCTYPE_PROP_SET;
	sqe.cdw10 = htole32(0);
	sqe.cdw11 = htole32(off);
	sqe.cdw12 = htole32((uint32_t)val);
	sqe.cdw13 = htole32((uint32_t)(val >> 32));
	if (nw_exec(q, &sqe, NULL, &d, 10000))
		return -1;
	*status = nw_status(&d);
	return 0;
}

int nw_enable_ctrl(struct nw_queue *q)
{
	uint32_t cc = 1 | 6u << 16 | 4u << 20;
	int64_t end = now_ms() + nw_scaled_ms(10000);
	uint16_t st;
	uint64_t v;

	if (nw_prop_set(q, NVME_REG_CC, cc, &st))
		return -1;
	if (st) {
		set_err("Property Set CC: status %#x", st);
		return -1;
	}
	for (;;) {
		if (nw_prop_get(q, NVME_REG_CSTS, false, &v, &st))
			return -1;
		if (st) {
			set_err("Property Get CSTS: status %#x", st);
			return -1;
		}
		if (v & 2) {
			set_err("CSTS.CFS set after enabling (CSTS %#llx)",
				(unsigned long long)v);
			return -1;
		}
		if (v & 1)
			return 0;
		if (now_ms() > end) {
			set_err("CSTS.RDY not set within 10 s");
			return -1;
		}
		usleep(10000);
	}
}

int nw_set_num_queues(struct nw_queue *q, uint16_t nr, uint16_t *granted)
{
	struct nvme_sqe sqe;
	struct nw_done d;

	nw_sqe_init(&sqe, NVME_ADM_SET_FEATURES);
	sqe.cdw10 = htole32(0x07);
	sqe.cdw11 = htole32((uint32_t)(nr - 1) | (uint32_t)(nr - 1) << 16);
	if (nw_exec(q, &sqe, NULL, &d, 10000))
		return -1;
	if (nw_status(&d)) {
		set_err("Set Features Number of Queues: status %#x",
			nw_status(&d));
		return -1;
	}
	if (granted)
		*granted = (uint16_t)((le64toh(d.cqe.result) & 0xffff) + 1);
	return 0;
}

int nw_identify(struct nw_queue *q, uint8_t cns, uint32_t nsid, size_t off,
		uint16_t *status)
{
	struct nvme_sqe sqe;
	struct nw_xfer x = { .sgl = NW_SGL_KEYED_INV, .off = off, .len = 4096 };
	struct nw_done d;

	nw_sqe_init(&sqe, NVME_ADM_IDENTIFY);
	sqe.nsid = htole32(nsid);
	sqe.cdw10 = htole32(cns);
	memset(q->data + off, 0xa5, 4096);
	if (nw_exec(q, &sqe, &x, &d, 10000))
		return -1;
	*status = nw_status(&d);
	return 0;
}

int nw_ns_info(struct nw_queue *admin, uint32_t nsid, struct nw_ns *ns)
{
	size_t off = scratch_off(admin);
	const uint8_t *id = admin->data + off;
	uint64_t nsze;
	uint16_t st;
	int fmt;

	if (nw_identify(admin, 0, nsid, off, &st))
		return -1;
	if (st) {
		set_err("Identify Namespace %u: status %#x", nsid, st);
		return -1;
	}
	memcpy(&nsze, id, 8);
	ns->nsid = nsid;
	ns->nsze = le64toh(nsze);
	fmt = id[26] & 0xf;
	ns->lba_shift = id[128 + 4 * fmt + 2];
	if (!ns->nsze || ns->lba_shift < 9 || ns->lba_shift > 16) {
		set_err("namespace %u: nsze %llu, LBA shift %u", nsid,
			(unsigned long long)ns->nsze, ns->lba_shift);
		return -1;
	}
	return 0;
}

int nw_ctrl_open(const struct nw_target *t, struct nw_queue *admin,
		 struct nw_queue *io, uint16_t io_hsqsize, size_t io_data)
{
	return nw_ctrl_open_kato(t, admin, io, io_hsqsize, io_data, 0);
}

int nw_ctrl_open_kato(const struct nw_target *t, struct nw_queue *admin,
		      struct nw_queue *io, uint16_t io_hsqsize, size_t io_data,
		      uint32_t kato)
{
	struct nw_conn_opts ao = { .qid = 0, .hrqsize = 32, .hsqsize = 31 };
	struct nw_connect_args ca = {
		.sqsize = 31, .cntlid = 0xffff, .qid = 0, .kato = kato,
	};
	uint16_t st, granted;
	uint32_t res;
	int rej;

	if (nw_connect(admin, t, &ao, &rej)) {
		char buf[sizeof(nw_err)];

		snprintf(buf, sizeof(buf), "admin queue: %.480s", nw_err);
		memcpy(nw_err, buf, sizeof(buf));
		return -1;
	}
	if (nw_fabrics_connect(admin, t, &ca, &st, &res))
		return -1;
	if (st) {
		set_err("admin Connect: status %#x result %#x", st, res);
		return -1;
	}
	if (nw_enable_ctrl(admin))
		return -1;
	if (!io)
		return 0;
	if (nw_set_num_queues(admin, 1, &granted))
		return -1;
	if (granted < 1) {
		set_err("Number of Queues granted %u", granted);
		return -1;
	}
	struct nw_conn_opts io_o = {
		.qid = 1, .hrqsize = io_hsqsize + 1, .hsqsize = io_hsqsize,
		.data_size = io_data,
	};
	if (nw_connect(io, t, &io_o, &rej)) {
		char buf[sizeof(nw_err)];

		snprintf(buf, sizeof(buf), "I/O queue: %.480s", nw_err);
		memcpy(nw_err, buf, sizeof(buf));
		return -1;
	}
	ca.sqsize = io_hsqsize;
	ca.cntlid = admin->cntlid;
	ca.qid = 1;
	ca.incapsule = true;	/* as the Linux host sends it */
	if (nw_fabrics_connect(io, t, &ca, &st, &res))
		return -1;
	if (st) {
		set_err("I/O queue Connect: status %#x result %#x", st, res);
		return -1;
	}
	io->cntlid = admin->cntlid;
	return 0;
}

void nw_rw_sqe(struct nvme_sqe *sqe, uint8_t opcode, uint32_t nsid,
	       uint64_t slba, uint32_t nlb)
{
	nw_sqe_init(sqe, opcode);
	sqe->nsid = htole32(nsid);
	sqe->cdw10 = htole32((uint32_t)slba);
	sqe->cdw11 = htole32((uint32_t)(slba >> 32));
	sqe->cdw12 = htole32((nlb - 1) & 0xffff);
}
