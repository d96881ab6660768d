/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RDMA transport's own types and the calls between its files:
 *   rdma.c        devices (ib_client), ports and listeners, the transport
 *                 ops, module parameters
 *   rdma-queue.c  a queue's life: CM request, QP, buffers, Connect
 *                 deadline, ESTABLISHED, teardown and release
 *   rdma-io.c     the data path: receive -> command -> map -> fetch ->
 *                 execute (core) -> response -> send
 *   rdma-poll.c   polling threads that own polled queues' CQs
 * Everything here is prefixed prl_ (the transport's own); the core's API
 * is purlin_ (purlin.h).
 */
#ifndef PURLIN_RDMA_H
#define PURLIN_RDMA_H

#include <linux/bottom_half.h>
#include <linux/llist.h>
#include <linux/nvme-rdma.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>

#include "purlin.h"

/* CM private data, as the NVMe/RDMA transport binding defines it. */
struct prl_cm_req {
	__le16 recfmt;
	__le16 qid;
	__le16 hrqsize;
	__le16 hsqsize;
	__le16 cntlid;
	u8 rsvd[22];
};

struct prl_cm_rep {
	__le16 recfmt;
	__le16 crqsize;
	u8 rsvd[28];
};

struct prl_cm_rej {
	__le16 recfmt;
	__le16 sts;
};

enum prl_ctx_kind { PRL_CTX_LISTENER, PRL_CTX_QUEUE };

/*
 * Per RDMA device, created when the device appears (ib_client add) and
 * released after it goes and its last queue is freed.
 */
struct prl_rdma_device {
	struct ib_device *ib;
	struct ib_pd *pd;
	/* The ib_client's, plus one per queue and one per SRQ. */
	struct kref ref;
	bool removing;			/* under prl_lock: refuse new queues */
	struct completion *released;	/* set by device removal */
	/* Guards srqs (struct prl_srq.entry); process context only. */
	struct mutex srq_lock;
	struct list_head srqs;
	/* Does the device raise Last WQE Reached (prl_drain_qp())? */
	int last_wqe;			/* PRL_LAST_WQE_*, READ/WRITE_ONCE */
};

enum {
	PRL_LAST_WQE_UNKNOWN,
	PRL_LAST_WQE_YES,
	PRL_LAST_WQE_NO,
};

struct prl_rdma_port {
	enum prl_ctx_kind kind;		/* first: cm_id->context tag */
	struct purlin_port *port;
	struct rdma_cm_id *cm_id;	/* NULL while re-listening */
	struct mutex cm_lock;		/* guards cm_id and removing */
	struct delayed_work relisten_work;
	/* Queues accepted through the port, plus one held by the port. */
	atomic_t nr_queues;
	struct completion queues_gone;
	bool removing;
	/*
	 * Queues accepted that have no controller yet (no Fabrics Connect
	 * done): bounded per port and per peer address (port->max_pending,
	 * port->max_pending_per_addr).  Guards pending and nr_pending.
	 */
	spinlock_t pending_lock;
	struct list_head pending;
	unsigned int nr_pending;
};

/*
 * Capsules a queue on an SRQ may hold before it is established: a host
 * sends nothing but its Fabrics Connect until that is answered.
 */
#define PRL_MAX_EARLY_SRQ	2

enum prl_queue_state {
	PRL_Q_CONNECTING,
	PRL_Q_LIVE,
	PRL_Q_DISCONNECTING,
};

struct prl_rdma_queue;
struct prl_srq;

/*
 * A receive buffer: a capsule and its in-capsule data.  Either a queue's
 * own (posted to its QP's receive queue; srq NULL) or a shared receive
 * queue's (srq set; queue is the one whose capsule it last received, set
 * at the receive).  From its receive completion until it is posted again
 * it belongs to the command it carries: a shared one must always go back
 * to its SRQ (prl_cmd_drop(), prl_release_rsp()), whatever becomes of
 * the queue, or the SRQ would lose it.
 */
struct prl_rdma_cmd {
	struct ib_cqe cqe;
	struct ib_recv_wr wr;
	struct ib_sge sge[2];
	struct nvme_command *nvme_cmd;
	struct page *inline_page;
	u32 byte_len;
	struct scatterlist inline_sg;
	struct prl_rdma_queue *queue;
	struct prl_srq *srq;
	struct list_head entry;		/* queue->pending_cmds */
};

/* A set of receive buffers, a queue's own or an SRQ's. */
struct prl_cmds {
	struct prl_rdma_cmd *cmds;
	struct nvme_command *bufs;	/* kmalloc: DMA-mapped as one */
	u64 bufs_dma;
	u32 nr;
	u32 inline_data_size;
	unsigned int inline_order;
};

/*
 * A shared receive queue (port attribute param_srq_size): the receive
 * buffers of the I/O queues of one RDMA device that ask for the same SRQ
 * size and in-capsule data size, so that memory does not grow with the
 * number of connected queues.  Each queue using it holds a reference;
 * the last one frees it after its QP is destroyed.  On dev->srqs.
 */
struct prl_srq {
	struct ib_srq *srq;
	struct prl_rdma_device *dev;	/* a device reference */
	struct kref ref;
	struct list_head entry;		/* dev->srqs, dev->srq_lock */
	struct prl_cmds rx;
};

struct prl_rdma_rsp {
	struct purlin_req req;
	/*
	 * The command, copied from a shared receive buffer, which goes back
	 * to its SRQ as soon as the command is parsed (unless it carries
	 * in-capsule data the command still needs).
	 */
	struct nvme_command cmd_copy;
	struct ib_sge send_sge;
	struct ib_cqe send_cqe;
	struct ib_cqe read_cqe;
	struct ib_send_wr send_wr;
	struct prl_rdma_cmd *cmd;
	struct prl_rdma_queue *queue;
	struct rdma_rw_ctx rw;
	int n_rdma;			/* WRs of the rw context, 0 = none */
	bool keyed;
	bool invalidate;
	bool write_data;		/* RDMA WRITEs go in front of the SEND */
	bool read_posted;		/* a post failed: release after drain */
	u32 rkey;
	u64 remote_addr;
	int pool_nents;			/* chunks taken from the pool */
	/* What those chunks are charged to (purlin_bufpool_get()). */
	struct purlin_buf_acct *accts[2];
	int nr_accts;
	bool own_buf;			/* data in queue->connect_page */
	/* A polled queue's command that may block runs here (rdma-io.c). */
	struct work_struct exec_work;
	struct list_head entry;		/* a wait list or zombies */
	struct llist_node free_node;	/* queue->free_rsps */
	struct prl_rdma_rsp *batch_next; /* queue->batch_rsp */
	struct scatterlist sgl[PURLIN_MAX_CHUNKS];
};

struct prl_rdma_queue {
	enum prl_ctx_kind kind;		/* first: cm_id->context tag */
	struct purlin_sq sq;
	struct rdma_cm_id *cm_id;
	struct ib_qp *qp;
	struct ib_cq *cq;
	u32 nr_cqe;
	/*
	 * A polled queue (rdma-poll.c): its CQ is its own and its poller's
	 * thread reaps it; set at attach, before the first post, and
	 * cleared at detach, after the drain.  NULL: a CQ of the core's pool.
	 */
	struct prl_poller *poller;
	struct purlin_poll_ctx *poll_ctx;
	struct list_head poll_entry;	/* poller->queues, poller->lock */
	u64 poll_ns;			/* port->poll_usecs at connect */
	/*
	 * Posts the polling thread defers to the end of its pass, to post
	 * them with one call each (prl_batching(), prl_post_deferred()):
	 * receive reposts chained through their wr.next; responses listed
	 * through batch_next, their work requests chained from batch_send.
	 * The thread's alone; empty outside its passes.
	 */
	struct ib_recv_wr *batch_recv;
	struct ib_recv_wr *batch_recv_last;
	struct ib_send_wr *batch_send;
	struct prl_rdma_rsp *batch_rsp;
	struct prl_rdma_rsp *batch_rsp_last;
	unsigned int batch_n;		/* responses in batch_rsp */
	u32 port_num;
	/*
	 * The QP is ours, not the CM's: we move it to RTS before accepting,
	 * with the port's traffic class in its address vector, and destroy
	 * it ourselves.  The CM then never touches it.
	 */
	bool own_qp;
	int tos;			/* port->tos at connect time */
	struct prl_rdma_device *dev;
	struct prl_rdma_port *rport;

	u16 host_qid;
	u32 recv_queue_size;
	u32 send_queue_size;
	u32 inline_data_size;

	/* Receive buffers: the queue's own, or (srq set) the SRQ's. */
	struct prl_cmds rx;
	struct prl_srq *srq;
	struct completion last_wqe;	/* on an SRQ: the QP's Last WQE event */
	struct prl_rdma_rsp *rsps;
	struct nvme_completion *cqe_bufs; /* kmalloc: DMA-mapped as one */
	u64 cqe_bufs_dma;
	u32 nr_rsps;

	/*
	 * Free response contexts: anyone puts (prl_release_rsp(), any
	 * context), only the command handler takes (prl_get_rsp()): the
	 * queue's one receive completion context, or before the queue is
	 * live prl_queue_established(), never both at once.  nr_free counts
	 * them, for the teardown.
	 */
	struct llist_head free_rsps;
	atomic_t nr_free;
	wait_queue_head_t idle_wq;	/* teardown waits for nr_free */

	/* Threads between prl_post_begin() and prl_post_end(). */
	atomic_t posting;

	atomic_t sq_wr_avail;		/* send queue credits */
	int sq_wr_total;

	/*
	 * Guards state and the lists below.  Only the wait work takes
	 * entries off send_waits and exec_waits; anyone may add to them and
	 * kick it.  Responses waiting for send credits (which hold data
	 * chunks) never wait behind commands waiting for chunks.
	 */
	spinlock_t state_lock;
	enum prl_queue_state state;
	struct list_head pending_cmds;	/* arrived before ESTABLISHED */
	u32 nr_pending_cmds;		/* bounded by recv_queue_size */
	struct list_head send_waits;	/* responses short of send credits */
	struct list_head exec_waits;	/* commands short of chunks/credits */
	struct list_head zombies;	/* failed posts, released after drain */
	/*
	 * One context at a time starts commands (prl_start()), in arrival
	 * order: the command handler when nothing waits, else the wait
	 * work for the head of exec_waits.  Bit PRL_EXEC_BUSY, taken by the
	 * one starting (test_and_set_bit_lock(); the command handler's
	 * common case without state_lock) and released after it put back
	 * what it could not start (clear_bit_unlock()).
	 */
	unsigned long exec_busy;
	int handlers;			/* prl_queue_established() running */
	/* The release work owns the queue (set by prl_connect_request()). */
	bool handed_over;
	struct purlin_buf_waiter buf_waiter; /* .work is the wait work */
	struct purlin_buf_acct buf_acct;	/* this queue's pool share */
	struct purlin_buf_stash buf_stash;	/* chunks it keeps back */
	/*
	 * The Fabrics Connect's data lands here, not in the pool: a host's
	 * Connect never waits behind what other peers hold.
	 */
	struct page *connect_page;

	/*
	 * Until it has a controller of a normal subsystem: on rport->pending
	 * (pending_lock).
	 */
	struct list_head pending_entry;
	struct sockaddr_storage peer_addr;
	bool vouched;			/* see prl_pending_add() */

	struct delayed_work connect_timeout;
	struct work_struct release_work;
	struct list_head entry;		/* prl_queues, prl_lock */
	struct rcu_head rcu;
};

/* rdma.c */
extern unsigned int prl_rnr_retry, prl_retry_cnt, prl_ack_timeout;
extern const struct purlin_transport_ops prl_rdma_ops;
/* Guards prl_queues and device lookups. */
extern struct mutex prl_lock;
extern struct list_head prl_queues;	/* every queue, prl_lock */
struct prl_rdma_device *prl_device_get(struct ib_device *ib);
void prl_device_put(struct prl_rdma_device *dev);
int prl_listener_event(struct prl_rdma_port *rport, struct rdma_cm_id *cm_id,
		       struct rdma_cm_event *event);

/* rdma-queue.c */
int prl_cm_handler(struct rdma_cm_id *cm_id, struct rdma_cm_event *event);
void __prl_queue_disconnect(struct prl_rdma_queue *queue);
void prl_queue_disconnect(struct prl_rdma_queue *queue);

static inline bool prl_queue_dying(struct prl_rdma_queue *queue)
{
	return READ_ONCE(queue->state) == PRL_Q_DISCONNECTING;
}

/*
 * Posting and teardown: a work request posted after the teardown drained
 * the QP would complete after the queue is freed.  A poster counts itself
 * in posting, then checks the state; prl_queue_disconnect() sets the state
 * and the release work waits for posting to reach 0 before it drains.
 * A poster holds a response context until it posted, and stays in an RCU
 * read-side section until it is done with the queue.
 */
static inline void prl_post_end(struct prl_rdma_queue *queue)
{
	/* RCU: the queue is freed after a grace period (kfree_rcu()). */
	if (atomic_dec_and_test(&queue->posting) && prl_queue_dying(queue))
		wake_up(&queue->idle_wq);
	rcu_read_unlock();
}

static inline bool prl_post_begin(struct prl_rdma_queue *queue)
{
	rcu_read_lock();
	atomic_inc(&queue->posting);
	smp_mb__after_atomic();
	if (likely(!prl_queue_dying(queue)))
		return true;
	prl_post_end(queue);
	return false;
}

/*
 * A polled queue's sends posted from task context (its polling thread, or
 * the worker of a command that may block) are posted with bottom halves
 * off: soft-RoCE, on kernels where it runs its send work in a tasklet
 * (6.1; later ones use a workqueue), then runs it at prl_send_bh_on() in
 * the poster's context instead of waking ksoftirqd for it (two context
 * switches per post); for a hardware NIC a post is a doorbell either way.
 * Other queues, interrupt and softirq context, or interrupts off, post as
 * they are.  Taken outside prl_post_begin()/prl_post_end(), so the softirq
 * work does not run inside their RCU section.
 */
static inline bool prl_send_bh_off(struct prl_rdma_queue *queue)
{
	if (!queue->poller || !in_task() || irqs_disabled())
		return false;
	local_bh_disable();
	return true;
}

static inline void prl_send_bh_on(bool off)
{
	if (off)
		local_bh_enable();
}

/* exec_busy's bit. */
#define PRL_EXEC_BUSY		0

/* rdma-poll.c */
struct prl_poller;
int prl_poll_attach(struct prl_rdma_queue *queue);
void prl_poll_detach(struct prl_rdma_queue *queue);
int prl_poll_init(void);
void prl_poll_exit(void);

/* rdma-io.c */
int prl_post_recv(struct prl_rdma_queue *queue, struct prl_rdma_cmd *cmd);
int prl_srq_post(struct prl_srq *srq, struct prl_rdma_cmd *cmd);
void prl_cmd_drop(struct prl_rdma_cmd *cmd);
void prl_recv_done(struct ib_cq *cq, struct ib_wc *wc);
void prl_handle_command(struct prl_rdma_queue *queue, struct prl_rdma_cmd *cmd);
void prl_read_done(struct ib_cq *cq, struct ib_wc *wc);
void prl_queue_response(struct purlin_req *req);
void prl_send_done(struct ib_cq *cq, struct ib_wc *wc);
void prl_release_rsp(struct prl_rdma_rsp *rsp);
void prl_wait_work(struct work_struct *work);
void prl_execute_work(struct work_struct *work);
unsigned int prl_post_deferred(struct prl_rdma_queue *queue);

#endif /* PURLIN_RDMA_H */
