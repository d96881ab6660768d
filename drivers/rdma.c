// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe over RDMA transport: RDMA CM listeners, one RC queue pair per host
 * queue, capsules in pre-posted receive buffers, data with rdma_rw, and
 * responses sent (chained behind the RDMA WRITEs of read data).
 *
 * Per queue everything is allocated when the host connects: receive
 * contexts (recv_queue_size), response contexts (recv_queue_size +
 * send_queue_size, each embedding a struct purlin_req) and in-capsule
 * buffers.  Data buffers come from the bounded pool in bufpool.c.
 */
#define pr_fmt(fmt) "purlin: rdma: " fmt

#include <linux/inet.h>
#include <linux/module.h>
#include <linux/nvme-rdma.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cm.h>
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
	struct kref ref;		/* the ib_client's, plus one per queue */
	bool removing;			/* under prl_lock: refuse new queues */
	struct completion *released;	/* set by device removal */
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

enum prl_queue_state {
	PRL_Q_CONNECTING,
	PRL_Q_LIVE,
	PRL_Q_DISCONNECTING,
};

struct prl_rdma_queue;

struct prl_rdma_cmd {
	struct ib_cqe cqe;
	struct ib_recv_wr wr;
	struct ib_sge sge[2];
	struct nvme_command *nvme_cmd;
	struct page *inline_page;
	u32 byte_len;
	struct scatterlist inline_sg;
	struct prl_rdma_queue *queue;
	struct list_head entry;		/* queue->pending_cmds */
};

struct prl_rdma_rsp {
	struct purlin_req req;
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
	struct list_head entry;		/* free_rsps, a wait list or zombies */
	struct scatterlist sgl[PRL_MAX_CHUNKS];
};

struct prl_rdma_queue {
	enum prl_ctx_kind kind;		/* first: cm_id->context tag */
	struct purlin_sq sq;
	struct rdma_cm_id *cm_id;
	struct ib_qp *qp;
	struct ib_cq *cq;
	u32 nr_cqe;
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
	unsigned int inline_order;

	struct prl_rdma_cmd *cmds;
	struct nvme_command *cmd_bufs;	/* kmalloc: DMA-mapped as one */
	u64 cmd_bufs_dma;
	struct prl_rdma_rsp *rsps;
	struct nvme_completion *cqe_bufs; /* kmalloc: DMA-mapped as one */
	u64 cqe_bufs_dma;
	u32 nr_rsps;

	/* Guards free_rsps and nr_free. */
	spinlock_t rsp_lock;
	struct list_head free_rsps;
	u32 nr_free;
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
	struct list_head send_waits;	/* responses short of send credits */
	struct list_head exec_waits;	/* commands short of chunks/credits */
	struct list_head zombies;	/* failed posts, released after drain */
	/*
	 * One context at a time starts commands (prl_start()), in arrival
	 * order: the command handler when nothing waits, else the wait
	 * work for the head of exec_waits.  Set by the one starting.
	 */
	bool exec_busy;
	int handlers;			/* prl_queue_established() running */
	/* The release work owns the queue (set by prl_connect_request()). */
	bool handed_over;
	struct purlin_buf_waiter buf_waiter; /* .work is the wait work */
	struct purlin_buf_acct buf_acct;	/* this queue's pool share */
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

/*
 * Bounds on what a peer can make the target hold (see admin-guide.md,
 * "Limits and hostile hosts").  The target's own QPs retry a send that
 * meets receiver-not-ready at most rnr_retry times (the host sets the
 * delay, at most 655 ms each) and one that is not acknowledged at most
 * retry_cnt times, waiting 4.096 us << ack_timeout each, whatever the
 * host's CM request asked: then the work request fails and the queue goes,
 * with everything it held.
 */
static unsigned int rnr_retry = 6;
module_param(rnr_retry, uint, 0444);
MODULE_PARM_DESC(rnr_retry, "RNR retries of the target's sends, 0-6 (7, infinite, is refused)");
static unsigned int retry_cnt = 6;
module_param(retry_cnt, uint, 0444);
MODULE_PARM_DESC(retry_cnt, "transport retries of the target's sends, 0-6");
static unsigned int ack_timeout = 19;
module_param(ack_timeout, uint, 0444);
MODULE_PARM_DESC(ack_timeout, "longest local ACK timeout, 4.096 us << N, N 1-20 (default 19: 2.1 s)");

static const struct purlin_transport_ops prl_rdma_ops;

/* Guards prl_queues and device lookups. */
static DEFINE_MUTEX(prl_lock);
static LIST_HEAD(prl_queues);
static atomic_t prl_next_vector = ATOMIC_INIT(0);

static struct ib_client prl_ib_client;

static void prl_queue_disconnect(struct prl_rdma_queue *queue);
static void prl_pending_del(struct prl_rdma_queue *queue);
static void prl_handle_command(struct prl_rdma_queue *queue,
			       struct prl_rdma_cmd *cmd);

/* ---- devices ------------------------------------------------------------ */

static void prl_device_release(struct kref *ref)
{
	struct prl_rdma_device *dev = container_of(ref, struct prl_rdma_device,
						   ref);

	ib_dealloc_pd(dev->pd);
	if (dev->released)
		complete(dev->released);
	kfree(dev);
}

static void prl_device_put(struct prl_rdma_device *dev)
{
	kref_put(&dev->ref, prl_device_release);
}

/* The device's state with a reference, or NULL while it is going. */
static struct prl_rdma_device *prl_device_get(struct ib_device *ib)
{
	struct prl_rdma_device *dev;

	mutex_lock(&prl_lock);
	dev = ib_get_client_data(ib, &prl_ib_client);
	if (dev && !dev->removing)
		kref_get(&dev->ref);
	else
		dev = NULL;
	mutex_unlock(&prl_lock);
	return dev;
}

/* ---- queue state ---------------------------------------------------------- */

static bool prl_queue_dying(struct prl_rdma_queue *queue)
{
	return READ_ONCE(queue->state) == PRL_Q_DISCONNECTING;
}

static void prl_kick(struct prl_rdma_queue *queue)
{
	queue_work(purlin_wq, &queue->buf_waiter.work);
}

/* Kick the wait work if anything waits; call before releasing a rsp. */
static void prl_kick_waiters(struct prl_rdma_queue *queue)
{
	smp_mb__after_atomic();
	if (!list_empty_careful(&queue->send_waits) ||
	    !list_empty_careful(&queue->exec_waits))
		prl_kick(queue);
}

/* Start tearing the queue down; caller holds state_lock.  Any context. */
static void __prl_queue_disconnect(struct prl_rdma_queue *queue)
{
	lockdep_assert_held(&queue->state_lock);
	if (queue->state == PRL_Q_DISCONNECTING)
		return;
	queue->state = PRL_Q_DISCONNECTING;
	/* Until then prl_connect_request() owns it, and starts the release. */
	if (queue->handed_over)
		queue_work(purlin_wq, &queue->release_work);
}

/*
 * Add rsp to a wait list and kick; false if the queue is going away.  All
 * under state_lock: once the lock is dropped the teardown may finish the
 * rsp and free the queue.
 */
static bool prl_park(struct prl_rdma_rsp *rsp, struct list_head *list)
{
	struct prl_rdma_queue *queue = rsp->queue;
	unsigned long flags;
	bool parked = false;

	spin_lock_irqsave(&queue->state_lock, flags);
	if (queue->state != PRL_Q_DISCONNECTING) {
		list_add_tail(&rsp->entry, list);
		prl_kick(queue);
		parked = true;
	}
	spin_unlock_irqrestore(&queue->state_lock, flags);
	return parked;
}

/*
 * Posting and teardown: a work request posted after the teardown drained
 * the QP would complete after the queue is freed.  A poster counts itself
 * in posting, then checks the state; prl_queue_disconnect() sets the state
 * and the release work waits for posting to reach 0 before it drains.
 * A poster holds a response context until it posted, and stays in an RCU
 * read-side section until it is done with the queue.
 */
static void prl_post_end(struct prl_rdma_queue *queue)
{
	/* RCU: the queue is freed after a grace period (kfree_rcu()). */
	if (atomic_dec_and_test(&queue->posting) && prl_queue_dying(queue))
		wake_up(&queue->idle_wq);
	rcu_read_unlock();
}

static bool prl_post_begin(struct prl_rdma_queue *queue)
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
 * A post failed: the queue is torn down, and the rsp waits for the drain
 * (WRs that did get posted may still be using its buffers).  Called
 * between prl_post_begin() and prl_post_end().
 */
static void prl_post_failed(struct prl_rdma_rsp *rsp, const char *what,
			    int ret)
{
	struct prl_rdma_queue *queue = rsp->queue;
	unsigned long flags;

	pr_err_ratelimited("queue %u: posting %s failed: %d\n",
			   queue->host_qid, what, ret);
	spin_lock_irqsave(&queue->state_lock, flags);
	list_add_tail(&rsp->entry, &queue->zombies);
	__prl_queue_disconnect(queue);
	spin_unlock_irqrestore(&queue->state_lock, flags);
}

/*
 * A work request failed.  Flushes are expected while the queue is being
 * torn down; on a live queue they mean the QP went to the error state
 * (for instance an unsignalled RDMA WRITE of read data failed: its own
 * completion is never reported), so the queue goes too.
 */
static void prl_wc_error(struct prl_rdma_queue *queue, struct ib_wc *wc,
			 const char *what)
{
	if (wc->status == IB_WC_WR_FLUSH_ERR && prl_queue_dying(queue))
		return;
	pr_err_ratelimited("queue %u: %s failed: %s (%d); disconnecting\n",
			   queue->host_qid, what, ib_wc_status_msg(wc->status),
			   wc->status);
	prl_queue_disconnect(queue);
}

/* ---- receive path -------------------------------------------------------- */

static int prl_post_recv(struct prl_rdma_queue *queue,
			 struct prl_rdma_cmd *cmd)
{
	struct ib_device *ib = queue->dev->ib;
	int ret;

	ib_dma_sync_single_for_device(ib, cmd->sge[0].addr, cmd->sge[0].length,
				      DMA_FROM_DEVICE);
	if (cmd->inline_page)
		ib_dma_sync_single_for_device(ib, cmd->sge[1].addr,
					      cmd->sge[1].length,
					      DMA_FROM_DEVICE);
	if (!prl_post_begin(queue))
		return -ESHUTDOWN;
	ret = ib_post_recv(queue->qp, &cmd->wr, NULL);
	prl_post_end(queue);
	if (ret)
		pr_err_ratelimited("queue %u: posting a receive failed: %d\n",
				   queue->host_qid, ret);
	return ret;
}

static void prl_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct prl_rdma_cmd *cmd = container_of(wc->wr_cqe,
						struct prl_rdma_cmd, cqe);
	struct prl_rdma_queue *queue = cmd->queue;
	struct ib_device *ib = queue->dev->ib;
	unsigned long flags;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		prl_wc_error(queue, wc, "receive");
		return;
	}
	if (unlikely(wc->byte_len < sizeof(struct nvme_command))) {
		pr_err_ratelimited("queue %u: capsule of %u bytes, shorter than a command; disconnecting\n",
				   queue->host_qid, wc->byte_len);
		prl_queue_disconnect(queue);
		return;
	}
	cmd->byte_len = wc->byte_len;
	ib_dma_sync_single_for_cpu(ib, cmd->sge[0].addr, cmd->sge[0].length,
				   DMA_FROM_DEVICE);
	if (cmd->inline_page && wc->byte_len > sizeof(struct nvme_command))
		ib_dma_sync_single_for_cpu(ib, cmd->sge[1].addr,
					   cmd->sge[1].length,
					   DMA_FROM_DEVICE);
	pr_debug("queue %u: capsule opcode 0x%x, %u bytes, state %d\n",
		 queue->host_qid, cmd->nvme_cmd->common.opcode, wc->byte_len,
		 READ_ONCE(queue->state));

	spin_lock_irqsave(&queue->state_lock, flags);
	switch (queue->state) {
	case PRL_Q_LIVE:
		spin_unlock_irqrestore(&queue->state_lock, flags);
		prl_handle_command(queue, cmd);
		return;
	case PRL_Q_CONNECTING:
		/* The capsule beat ESTABLISHED here: run it once live. */
		list_add_tail(&cmd->entry, &queue->pending_cmds);
		break;
	default:
		break;
	}
	spin_unlock_irqrestore(&queue->state_lock, flags);
}

/* ---- responses ------------------------------------------------------------ */

static struct prl_rdma_rsp *prl_get_rsp(struct prl_rdma_queue *queue)
{
	struct prl_rdma_rsp *rsp = NULL;
	unsigned long flags;

	spin_lock_irqsave(&queue->rsp_lock, flags);
	if (!list_empty(&queue->free_rsps)) {
		rsp = list_first_entry(&queue->free_rsps, struct prl_rdma_rsp,
				       entry);
		list_del_init(&rsp->entry);
		queue->nr_free--;
	}
	spin_unlock_irqrestore(&queue->rsp_lock, flags);
	if (rsp)
		atomic_inc(&purlin_live.reqs);
	return rsp;
}

static void prl_rw_destroy(struct prl_rdma_rsp *rsp)
{
	struct prl_rdma_queue *queue = rsp->queue;

	if (!rsp->n_rdma)
		return;
	rdma_rw_ctx_destroy(&rsp->rw, queue->qp, queue->port_num,
			    rsp->req.sg, rsp->req.sg_cnt,
			    rsp->req.to_host ? DMA_TO_DEVICE : DMA_FROM_DEVICE);
	rsp->n_rdma = 0;
}

/*
 * The response context is done: its buffers go back.  Any context.  The
 * queue may be freed once this returns, so callers touch the queue
 * before, never after.
 */
static void prl_release_rsp(struct prl_rdma_rsp *rsp)
{
	struct prl_rdma_queue *queue = rsp->queue;
	unsigned long flags;

	prl_rw_destroy(rsp);
	rsp->own_buf = false;
	if (rsp->pool_nents) {
		purlin_bufpool_put(rsp->sgl, rsp->pool_nents, rsp->accts,
				   rsp->nr_accts);
		/* The put wakes whoever waits on these chunks' accounts. */
		rsp->pool_nents = 0;
	}

	atomic_dec(&purlin_live.reqs);
	purlin_req_free(&rsp->req);
	spin_lock_irqsave(&queue->rsp_lock, flags);
	list_add_tail(&rsp->entry, &queue->free_rsps);
	if (++queue->nr_free == queue->nr_rsps)
		wake_up(&queue->idle_wq);
	spin_unlock_irqrestore(&queue->rsp_lock, flags);
}

static bool prl_take_credits(struct prl_rdma_queue *queue, int n)
{
	if (atomic_sub_return(n, &queue->sq_wr_avail) >= 0)
		return true;
	atomic_add(n, &queue->sq_wr_avail);
	return false;
}

static int prl_send_credits(struct prl_rdma_rsp *rsp)
{
	return 1 + (rsp->write_data ? rsp->n_rdma : 0);
}

/* Post the response, behind the RDMA WRITEs of read data.  Any context. */
static bool prl_post_response(struct prl_rdma_rsp *rsp)
{
	struct prl_rdma_queue *queue = rsp->queue;
	struct ib_send_wr *first = &rsp->send_wr;
	struct ib_device *ib = queue->dev->ib;
	int ret;

	if (!prl_take_credits(queue, prl_send_credits(rsp)))
		return false;
	if (rsp->write_data) {
		if (!ib_uses_virt_dma(ib))
			dma_sync_sg_for_device(ib->dma_device, rsp->req.sg,
					       rsp->req.sg_cnt, DMA_TO_DEVICE);
		first = rdma_rw_ctx_wrs(&rsp->rw, queue->qp, queue->port_num,
					NULL, &rsp->send_wr);
	}
	ib_dma_sync_single_for_device(ib, rsp->send_sge.addr,
				      rsp->send_sge.length, DMA_TO_DEVICE);
	if (unlikely(!prl_post_begin(queue))) {
		atomic_add(prl_send_credits(rsp), &queue->sq_wr_avail);
		prl_release_rsp(rsp);
		return true;
	}
	ret = ib_post_send(queue->qp, first, NULL);
	if (unlikely(ret))
		prl_post_failed(rsp, "a response", ret);
	prl_post_end(queue);
	return true;
}

static void prl_queue_response(struct purlin_req *req)
{
	struct prl_rdma_rsp *rsp = container_of(req, struct prl_rdma_rsp, req);
	struct prl_rdma_queue *queue = rsp->queue;

	pr_debug("queue %u: cid %u status 0x%x\n", queue->host_qid,
		 req->cqe->command_id, le16_to_cpu(req->cqe->status) >> 1);
	if (unlikely(prl_queue_dying(queue))) {
		prl_release_rsp(rsp);
		return;
	}
	/*
	 * The command is done with its receive buffer (capsule and in-capsule
	 * data): post it again before the response goes out.  The host reuses
	 * the command slot as soon as it has the response; a receive posted
	 * only when our SEND completes (on the host's ACK) would race its next
	 * capsule, which then meets receiver-not-ready NAKs and waits.
	 */
	if (unlikely(prl_post_recv(queue, rsp->cmd))) {
		/* Touch the queue before the rsp goes back, never after. */
		prl_queue_disconnect(queue);
		prl_release_rsp(rsp);
		return;
	}
	if (rsp->invalidate) {
		rsp->send_wr.opcode = IB_WR_SEND_WITH_INV;
		rsp->send_wr.ex.invalidate_rkey = rsp->rkey;
	} else {
		rsp->send_wr.opcode = IB_WR_SEND;
	}
	rsp->write_data = rsp->n_rdma && req->to_host && req->cqe->status == 0;

	if (likely(list_empty_careful(&queue->send_waits)) &&
	    prl_post_response(rsp))
		return;
	if (!prl_park(rsp, &queue->send_waits))
		prl_release_rsp(rsp);
}

static void prl_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct prl_rdma_rsp *rsp = container_of(wc->wr_cqe,
						struct prl_rdma_rsp, send_cqe);
	struct prl_rdma_queue *queue = rsp->queue;

	atomic_add(prl_send_credits(rsp), &queue->sq_wr_avail);
	if (unlikely(wc->status != IB_WC_SUCCESS))
		prl_wc_error(queue, wc, "send");
	prl_kick_waiters(queue);
	prl_release_rsp(rsp);
}

/* ---- data path ------------------------------------------------------------ */

static void prl_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct prl_rdma_rsp *rsp = container_of(wc->wr_cqe,
						struct prl_rdma_rsp, read_cqe);
	struct prl_rdma_queue *queue = rsp->queue;

	atomic_add(rsp->n_rdma, &queue->sq_wr_avail);
	prl_kick_waiters(queue);
	/* Unmap before the back end reads what the host sent. */
	prl_rw_destroy(rsp);
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		prl_wc_error(queue, wc, "RDMA READ");
		purlin_req_complete(&rsp->req, NVME_SC_DATA_XFER_ERROR);
		return;
	}
	purlin_req_execute(&rsp->req);
}

/*
 * The accounts a take is charged to: the queue's share, and its
 * controller's or (discovery) the share all discovery controllers have.
 * sq.ctrl is stable here: commands only start once it is set.
 */
static void prl_pick_accts(struct prl_rdma_rsp *rsp)
{
	struct prl_rdma_queue *queue = rsp->queue;
	struct purlin_ctrl *ctrl = queue->sq.ctrl;

	rsp->accts[0] = &queue->buf_acct;
	rsp->accts[1] = purlin_is_discovery(ctrl) ? &purlin_disc_acct :
						    &ctrl->buf_acct;
	rsp->nr_accts = 2;
}

/*
 * Take the data buffer, map it for the host's keyed SGL, and fetch
 * host-to-controller data or run the command.  Process context only
 * (rdma_rw_ctx_init allocates).  Returns false, with nothing lost, when a
 * chunk or send credit is missing; the caller parks the request.
 */
static bool prl_start(struct prl_rdma_rsp *rsp)
{
	struct prl_rdma_queue *queue = rsp->queue;
	struct purlin_req *req = &rsp->req;
	/* What the command moves: never more than its SGL describes. */
	u32 len = req->data_len;
	int ret;

	if (!rsp->keyed || !len)
		goto execute;

	if (!rsp->pool_nents && !rsp->own_buf) {
		if (!queue->sq.ctrl) {
			/* Only a Connect runs before there is a controller. */
			if (WARN_ON_ONCE(len > PAGE_SIZE)) {
				purlin_req_complete(req, NVME_SC_INTERNAL);
				return true;
			}
			sg_init_table(rsp->sgl, 1);
			sg_set_page(rsp->sgl, queue->connect_page, len, 0);
			rsp->own_buf = true;
			req->sg = rsp->sgl;
			req->sg_cnt = 1;
		} else {
			prl_pick_accts(rsp);
			ret = purlin_bufpool_get(rsp->sgl, len, &queue->buf_waiter,
						 rsp->accts, rsp->nr_accts);
			if (ret == -EAGAIN)
				return false;
			if (ret < 0) {
				purlin_req_complete(req, NVME_SC_INTERNAL);
				return true;
			}
			rsp->pool_nents = ret;
			req->sg = rsp->sgl;
			req->sg_cnt = ret;
		}
	}
	if (!rsp->n_rdma) {
		ret = rdma_rw_ctx_init(&rsp->rw, queue->qp, queue->port_num,
				       req->sg, req->sg_cnt, 0,
				       rsp->remote_addr, rsp->rkey,
				       req->to_host ? DMA_TO_DEVICE :
						      DMA_FROM_DEVICE);
		if (ret < 0 || ret + 1 > queue->sq_wr_total) {
			if (ret > 0)
				rsp->n_rdma = ret;
			pr_err_ratelimited("queue %u: cannot map %u bytes of data: %d\n",
					   queue->host_qid, len, ret);
			purlin_req_complete(req, NVME_SC_DATA_XFER_ERROR);
			return true;
		}
		rsp->n_rdma = ret;
	}
	if (req->to_host)
		goto execute;

	if (!prl_take_credits(queue, rsp->n_rdma))
		return false;
	if (unlikely(!prl_post_begin(queue))) {
		atomic_add(rsp->n_rdma, &queue->sq_wr_avail);
		purlin_req_complete(req, NVME_SC_ABORT_QUEUE);
		return true;
	}
	ret = rdma_rw_ctx_post(&rsp->rw, queue->qp, queue->port_num,
			       &rsp->read_cqe, NULL);
	if (unlikely(ret)) {
		rsp->read_posted = true;
		prl_post_failed(rsp, "an RDMA READ", ret);
	}
	prl_post_end(queue);
	return true;
execute:
	purlin_req_execute(req);
	return true;
}

/* Could rsp proceed now?  Checked after parking it, against lost wakeups. */
static bool prl_can_retry(struct prl_rdma_rsp *rsp, bool send)
{
	struct prl_rdma_queue *queue = rsp->queue;

	smp_mb();
	if (send)
		return atomic_read(&queue->sq_wr_avail) >= prl_send_credits(rsp);
	/* Short of chunks: the pool queued buf_waiter, whose work retries. */
	if (!rsp->pool_nents && !rsp->own_buf)
		return false;
	return atomic_read(&queue->sq_wr_avail) >= rsp->n_rdma;
}

/* Run the first waiter of list; true if the caller should go on. */
static bool prl_run_waiter(struct prl_rdma_queue *queue,
			   struct list_head *list, bool send)
{
	struct prl_rdma_rsp *rsp;
	unsigned long flags;
	bool done;

	spin_lock_irqsave(&queue->state_lock, flags);
	if (queue->state == PRL_Q_DISCONNECTING || list_empty(list) ||
	    (!send && queue->exec_busy)) {
		spin_unlock_irqrestore(&queue->state_lock, flags);
		return false;
	}
	rsp = list_first_entry(list, struct prl_rdma_rsp, entry);
	list_del_init(&rsp->entry);
	if (!send)
		queue->exec_busy = true;
	spin_unlock_irqrestore(&queue->state_lock, flags);

	done = send ? prl_post_response(rsp) : prl_start(rsp);

	spin_lock_irqsave(&queue->state_lock, flags);
	if (!send)
		queue->exec_busy = false;
	if (done) {
		spin_unlock_irqrestore(&queue->state_lock, flags);
		return true;
	}
	if (queue->state == PRL_Q_DISCONNECTING) {
		spin_unlock_irqrestore(&queue->state_lock, flags);
		if (send)
			prl_release_rsp(rsp);
		else
			purlin_req_complete(&rsp->req, NVME_SC_ABORT_QUEUE);
		return false;
	}
	list_add(&rsp->entry, list);
	spin_unlock_irqrestore(&queue->state_lock, flags);
	return prl_can_retry(rsp, send);
}

/* The only consumer of the wait lists; send waiters always go first. */
static void prl_wait_work(struct work_struct *work)
{
	struct prl_rdma_queue *queue = container_of(work, struct prl_rdma_queue,
						    buf_waiter.work);

	while (prl_run_waiter(queue, &queue->send_waits, true) ||
	       prl_run_waiter(queue, &queue->exec_waits, false))
		;
}

static u16 prl_map_keyed(struct prl_rdma_rsp *rsp,
			 struct nvme_keyed_sgl_desc *sgl, bool invalidate)
{
	struct purlin_req *req = &rsp->req;
	u32 len = get_unaligned_le24(sgl->length);

	if (len > PRL_MAX_XFER)
		return NVME_SC_SGL_INVALID_DATA | PRL_DNR;
	req->transfer_len = len;
	rsp->remote_addr = le64_to_cpu(sgl->addr);
	rsp->rkey = get_unaligned_le32(sgl->key);
	rsp->keyed = true;
	/* Only ever the key of this command's own descriptor. */
	rsp->invalidate = invalidate;
	return 0;
}

static u16 prl_map_inline(struct prl_rdma_rsp *rsp, struct nvme_sgl_desc *sgl)
{
	struct prl_rdma_cmd *cmd = rsp->cmd;
	struct purlin_req *req = &rsp->req;
	u64 off = le64_to_cpu(sgl->addr);
	u32 len = le32_to_cpu(sgl->length);
	u32 size = rsp->queue->inline_data_size;
	u32 received = cmd->byte_len - sizeof(struct nvme_command);

	if (req->to_host)
		return NVME_SC_INVALID_FIELD | PRL_DNR;
	/* Offset and length are checked on their own: no sum can wrap. */
	if (off > size || off > received)
		return NVME_SC_SGL_INVALID_OFFSET | PRL_DNR;
	if (len > size - off || len > received - off)
		return NVME_SC_SGL_INVALID_DATA | PRL_DNR;
	req->transfer_len = len;
	if (!len)
		return 0;
	sg_init_table(&cmd->inline_sg, 1);
	sg_set_page(&cmd->inline_sg, cmd->inline_page, len, off);
	req->sg = &cmd->inline_sg;
	req->sg_cnt = 1;
	return 0;
}

static u16 prl_map_sgl(struct prl_rdma_rsp *rsp)
{
	struct nvme_keyed_sgl_desc *ksgl = &rsp->req.cmd->common.dptr.ksgl;
	struct nvme_sgl_desc *sgl = &rsp->req.cmd->common.dptr.sgl;

	switch (sgl->type) {
	case NVME_KEY_SGL_FMT_DATA_DESC << 4 | NVME_SGL_FMT_INVALIDATE:
		return prl_map_keyed(rsp, ksgl, true);
	case NVME_KEY_SGL_FMT_DATA_DESC << 4 | NVME_SGL_FMT_ADDRESS:
		return prl_map_keyed(rsp, ksgl, false);
	case NVME_SGL_FMT_DATA_DESC << 4 | NVME_SGL_FMT_OFFSET:
		if (!rsp->queue->inline_data_size)
			return NVME_SC_SGL_INVALID_TYPE | PRL_DNR;
		return prl_map_inline(rsp, sgl);
	default:
		return NVME_SC_SGL_INVALID_TYPE | PRL_DNR;
	}
}

/* A new capsule, in process context (CQ work or the CM handler). */
static void prl_handle_command(struct prl_rdma_queue *queue,
			       struct prl_rdma_cmd *cmd)
{
	struct prl_rdma_rsp *rsp;
	unsigned long flags;
	bool started;
	u16 status;

	rsp = prl_get_rsp(queue);
	if (unlikely(!rsp)) {
		/*
		 * Only a host submitting past its queue size gets here (see
		 * prl_alloc_rsps()): drop its queue rather than wait.
		 */
		pr_err_ratelimited("queue %u: no response context free (host past its queue size); disconnecting\n",
				   queue->host_qid);
		prl_queue_disconnect(queue);
		return;
	}
	rsp->cmd = cmd;
	rsp->req.cmd = cmd->nvme_cmd;
	rsp->n_rdma = 0;
	rsp->keyed = false;
	rsp->invalidate = false;
	rsp->write_data = false;
	rsp->read_posted = false;
	rsp->pool_nents = 0;
	rsp->own_buf = false;

	if (!purlin_req_init(&rsp->req, &queue->sq, &prl_rdma_ops))
		return;
	status = prl_map_sgl(rsp);
	if (status) {
		purlin_req_complete(&rsp->req, status);
		return;
	}
	if (!purlin_check_data_len(&rsp->req))
		return;

	spin_lock_irqsave(&queue->state_lock, flags);
	if (queue->state == PRL_Q_DISCONNECTING)
		goto abort;
	if (queue->exec_busy || !list_empty(&queue->exec_waits)) {
		/* Behind whatever waits: commands start in order. */
		list_add_tail(&rsp->entry, &queue->exec_waits);
		prl_kick(queue);
		spin_unlock_irqrestore(&queue->state_lock, flags);
		return;
	}
	queue->exec_busy = true;
	spin_unlock_irqrestore(&queue->state_lock, flags);
	started = prl_start(rsp);
	spin_lock_irqsave(&queue->state_lock, flags);
	queue->exec_busy = false;
	if (!started) {
		if (queue->state == PRL_Q_DISCONNECTING)
			goto abort;
		/* Kicked below: what it lacked may have come back already. */
		list_add_tail(&rsp->entry, &queue->exec_waits);
	}
	if (!list_empty(&queue->exec_waits))
		prl_kick(queue);
	spin_unlock_irqrestore(&queue->state_lock, flags);
	return;
abort:
	spin_unlock_irqrestore(&queue->state_lock, flags);
	purlin_req_complete(&rsp->req, NVME_SC_ABORT_QUEUE);
}

/* ---- queue setup and teardown ------------------------------------------- */

static void prl_free_cmds(struct prl_rdma_queue *queue)
{
	struct ib_device *ib = queue->dev->ib;
	u32 i;

	if (!queue->cmds)
		return;
	for (i = 0; i < queue->recv_queue_size; i++) {
		struct prl_rdma_cmd *cmd = &queue->cmds[i];

		if (!cmd->inline_page)
			continue;
		ib_dma_unmap_page(ib, cmd->sge[1].addr, cmd->sge[1].length,
				  DMA_FROM_DEVICE);
		__free_pages(cmd->inline_page, queue->inline_order);
	}
	if (queue->cmd_bufs) {
		ib_dma_unmap_single(ib, queue->cmd_bufs_dma,
				    queue->recv_queue_size *
				    sizeof(struct nvme_command),
				    DMA_FROM_DEVICE);
		kfree(queue->cmd_bufs);
	}
	kvfree(queue->cmds);
	queue->cmds = NULL;
}

static int prl_alloc_cmds(struct prl_rdma_queue *queue)
{
	struct ib_device *ib = queue->dev->ib;
	size_t bytes = queue->recv_queue_size * sizeof(struct nvme_command);
	u32 lkey = queue->dev->pd->local_dma_lkey;
	u32 i;

	queue->cmds = kvcalloc(queue->recv_queue_size, sizeof(*queue->cmds),
			       GFP_KERNEL);
	if (!queue->cmds)
		return -ENOMEM;
	queue->cmd_bufs = kzalloc(bytes, GFP_KERNEL);
	if (!queue->cmd_bufs)
		goto fail;
	queue->cmd_bufs_dma = ib_dma_map_single(ib, queue->cmd_bufs, bytes,
						DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ib, queue->cmd_bufs_dma)) {
		kfree(queue->cmd_bufs);
		queue->cmd_bufs = NULL;
		goto fail;
	}
	for (i = 0; i < queue->recv_queue_size; i++) {
		struct prl_rdma_cmd *cmd = &queue->cmds[i];

		cmd->queue = queue;
		cmd->nvme_cmd = &queue->cmd_bufs[i];
		cmd->sge[0].addr = queue->cmd_bufs_dma +
				   i * sizeof(struct nvme_command);
		cmd->sge[0].length = sizeof(struct nvme_command);
		cmd->sge[0].lkey = lkey;
		cmd->cqe.done = prl_recv_done;
		cmd->wr.wr_cqe = &cmd->cqe;
		cmd->wr.sg_list = cmd->sge;
		cmd->wr.num_sge = 1;
		INIT_LIST_HEAD(&cmd->entry);
		if (!queue->inline_data_size)
			continue;
		cmd->inline_page = alloc_pages(GFP_KERNEL, queue->inline_order);
		if (!cmd->inline_page)
			goto fail;
		cmd->sge[1].addr = ib_dma_map_page(ib, cmd->inline_page, 0,
						   queue->inline_data_size,
						   DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(ib, cmd->sge[1].addr)) {
			__free_pages(cmd->inline_page, queue->inline_order);
			cmd->inline_page = NULL;
			goto fail;
		}
		cmd->sge[1].length = queue->inline_data_size;
		cmd->sge[1].lkey = lkey;
		cmd->wr.num_sge = 2;
	}
	return 0;
fail:
	prl_free_cmds(queue);
	return -ENOMEM;
}

static void prl_free_rsps(struct prl_rdma_queue *queue)
{
	if (queue->cqe_bufs) {
		ib_dma_unmap_single(queue->dev->ib, queue->cqe_bufs_dma,
				    queue->nr_rsps * sizeof(*queue->cqe_bufs),
				    DMA_TO_DEVICE);
		kfree(queue->cqe_bufs);
		queue->cqe_bufs = NULL;
	}
	kvfree(queue->rsps);
	queue->rsps = NULL;
}

static int prl_alloc_rsps(struct prl_rdma_queue *queue)
{
	struct ib_device *ib = queue->dev->ib;
	size_t bytes;
	u32 i;

	/*
	 * A context is busy from its capsule's arrival until its SEND
	 * completes.  A host keeps at most R commands whose responses it
	 * has not received (its queue size), and a response it has received
	 * but whose SEND completion we have not seen holds a send credit (at
	 * most S of those), so R + S contexts are enough for any host that
	 * respects its queue size.
	 */
	queue->nr_rsps = queue->recv_queue_size + queue->send_queue_size;
	bytes = queue->nr_rsps * sizeof(*queue->cqe_bufs);
	queue->rsps = kvcalloc(queue->nr_rsps, sizeof(*queue->rsps),
			       GFP_KERNEL);
	queue->cqe_bufs = kzalloc(bytes, GFP_KERNEL);
	if (!queue->rsps || !queue->cqe_bufs)
		goto fail;
	queue->cqe_bufs_dma = ib_dma_map_single(ib, queue->cqe_bufs, bytes,
						DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ib, queue->cqe_bufs_dma))
		goto fail;
	for (i = 0; i < queue->nr_rsps; i++) {
		struct prl_rdma_rsp *rsp = &queue->rsps[i];

		rsp->queue = queue;
		rsp->req.cqe = &queue->cqe_bufs[i];
		rsp->send_sge.addr = queue->cqe_bufs_dma +
				     i * sizeof(*queue->cqe_bufs);
		rsp->send_sge.length = sizeof(*queue->cqe_bufs);
		rsp->send_sge.lkey = queue->dev->pd->local_dma_lkey;
		rsp->send_cqe.done = prl_send_done;
		rsp->read_cqe.done = prl_read_done;
		rsp->send_wr.wr_cqe = &rsp->send_cqe;
		rsp->send_wr.sg_list = &rsp->send_sge;
		rsp->send_wr.num_sge = 1;
		rsp->send_wr.send_flags = IB_SEND_SIGNALED;
		list_add_tail(&rsp->entry, &queue->free_rsps);
	}
	queue->nr_free = queue->nr_rsps;
	return 0;
fail:
	kfree(queue->cqe_bufs);
	queue->cqe_bufs = NULL;
	kvfree(queue->rsps);
	queue->rsps = NULL;
	return -ENOMEM;
}

static void prl_qp_event(struct ib_event *event, void *ctx)
{
	struct prl_rdma_queue *queue = ctx;

	switch (event->event) {
	case IB_EVENT_COMM_EST:
		rdma_notify(queue->cm_id, event->event);
		break;
	case IB_EVENT_QP_LAST_WQE_REACHED:
		break;
	default:
		pr_err_ratelimited("queue %u: QP event %s (%d)\n",
				   queue->host_qid, ib_event_msg(event->event),
				   event->event);
		break;
	}
}

/*
 * Bring our own QP to RTS the way the CM would inside rdma_accept(), but
 * with our own limits: the CM would apply the RNR retry count, transport
 * retry count and ACK timeout of the host's REQ to our QP (7, "forever",
 * lets one peer hold our sends and their buffers without end), and would
 * answer with the traffic class of the REQ instead of the port's.
 */
static int prl_qp_ready(struct prl_rdma_queue *queue,
			const struct rdma_conn_param *accept)
{
	static const enum ib_qp_state steps[] = {
		IB_QPS_INIT, IB_QPS_RTR, IB_QPS_RTS,
	};
	struct ib_qp_attr attr;
	int mask, ret, i;

	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		memset(&attr, 0, sizeof(attr));
		attr.qp_state = steps[i];
		ret = rdma_init_qp_attr(queue->cm_id, &attr, &mask);
		if (ret)
			return ret;
		if (steps[i] == IB_QPS_RTR) {
			attr.max_dest_rd_atomic = accept->responder_resources;
			if (queue->tos >= 0 &&
			    (rdma_ah_get_ah_flags(&attr.ah_attr) & IB_AH_GRH))
				rdma_ah_retrieve_grh(&attr.ah_attr)->traffic_class =
					queue->tos;
		} else if (steps[i] == IB_QPS_RTS) {
			attr.max_rd_atomic = accept->initiator_depth;
			/* Never the host's "forever" (7) or 0 (no timeout). */
			if (!(mask & IB_QP_RNR_RETRY) || attr.rnr_retry > rnr_retry)
				attr.rnr_retry = rnr_retry;
			if (!(mask & IB_QP_RETRY_CNT) || attr.retry_cnt > retry_cnt)
				attr.retry_cnt = retry_cnt;
			if (!attr.timeout || attr.timeout > ack_timeout)
				attr.timeout = ack_timeout;
			mask |= IB_QP_RNR_RETRY | IB_QP_RETRY_CNT |
				IB_QP_TIMEOUT;
		}
		ret = ib_modify_qp(queue->qp, &attr, mask);
		if (ret)
			return ret;
	}
	return 0;
}

static int prl_create_qp(struct prl_rdma_queue *queue)
{
	struct ib_device *ib = queue->dev->ib;
	struct ib_qp_init_attr attr = {};
	int vector = 0, ret;

	if (queue->host_qid)
		vector = atomic_inc_return(&prl_next_vector) %
			 ib->num_comp_vectors;
	/*
	 * Signalled completions: every posted receive, plus per response
	 * context at most one RDMA READ and one SEND, plus the drain WRs.
	 */
	queue->nr_cqe = queue->recv_queue_size + 2 * queue->nr_rsps + 2;
	queue->cq = ib_cq_pool_get(ib, queue->nr_cqe, vector,
				   IB_POLL_WORKQUEUE);
	if (IS_ERR(queue->cq)) {
		ret = PTR_ERR(queue->cq);
		queue->cq = NULL;
		return ret;
	}

	attr.event_handler = prl_qp_event;
	attr.qp_context = queue;
	attr.send_cq = queue->cq;
	attr.recv_cq = queue->cq;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	attr.port_num = queue->cm_id->port_num;
	/* One spare WR each way for ib_drain_qp(). */
	attr.cap.max_send_wr = queue->send_queue_size + 1;
	attr.cap.max_rdma_ctxs = queue->nr_rsps;
	attr.cap.max_send_sge = max_t(u32, 1, min_t(u32, ib->attrs.max_send_sge,
						  PRL_MAX_CHUNKS));
	attr.cap.max_recv_wr = queue->recv_queue_size + 1;
	attr.cap.max_recv_sge = queue->inline_data_size ? 2 : 1;

	/*
	 * On an IB CM transport (InfiniBand, RoCE) the QP is out of the CM's
	 * hands, see prl_qp_ready().  iWARP retries are TCP's, and it gets
	 * the ToS from the listener's id.
	 */
	queue->own_qp = rdma_cap_ib_cm(ib, queue->cm_id->port_num);
	if (queue->own_qp) {
		queue->qp = ib_create_qp(queue->dev->pd, &attr);
		ret = PTR_ERR_OR_ZERO(queue->qp);
		if (ret)
			queue->qp = NULL;
	} else {
		ret = rdma_create_qp(queue->cm_id, queue->dev->pd, &attr);
		if (!ret)
			queue->qp = queue->cm_id->qp;
	}
	if (ret) {
		pr_err_ratelimited("creating a QP failed: %d\n", ret);
		ib_cq_pool_put(queue->cq, queue->nr_cqe);
		queue->cq = NULL;
		return ret;
	}
	queue->sq_wr_total = attr.cap.max_send_wr - 1;
	atomic_set(&queue->sq_wr_avail, queue->sq_wr_total);
	return 0;
}

static void prl_destroy_qp(struct prl_rdma_queue *queue)
{
	if (queue->qp) {
		if (queue->own_qp)
			ib_destroy_qp(queue->qp);
		else
			rdma_destroy_qp(queue->cm_id);
		queue->qp = NULL;
	}
	if (queue->cq) {
		ib_cq_pool_put(queue->cq, queue->nr_cqe);
		queue->cq = NULL;
	}
}

/* Finish what is parked or failed; the QP is drained, the work stopped. */
static void prl_abort_waits(struct prl_rdma_queue *queue)
{
	struct prl_rdma_rsp *rsp, *tmp;
	LIST_HEAD(sends);
	LIST_HEAD(execs);
	LIST_HEAD(zombies);

	spin_lock_irq(&queue->state_lock);
	list_splice_init(&queue->send_waits, &sends);
	list_splice_init(&queue->exec_waits, &execs);
	list_splice_init(&queue->zombies, &zombies);
	INIT_LIST_HEAD(&queue->pending_cmds);
	spin_unlock_irq(&queue->state_lock);

	list_for_each_entry_safe(rsp, tmp, &sends, entry) {
		list_del_init(&rsp->entry);
		prl_release_rsp(rsp);
	}
	list_for_each_entry_safe(rsp, tmp, &execs, entry) {
		list_del_init(&rsp->entry);
		purlin_req_complete(&rsp->req, NVME_SC_ABORT_QUEUE);
	}
	list_for_each_entry_safe(rsp, tmp, &zombies, entry) {
		list_del_init(&rsp->entry);
		if (rsp->read_posted)
			purlin_req_complete(&rsp->req, NVME_SC_ABORT_QUEUE);
		else
			prl_release_rsp(rsp);
	}
}

static void prl_release_work(struct work_struct *w)
{
	struct prl_rdma_queue *queue = container_of(w, struct prl_rdma_queue,
						    release_work);
	struct prl_rdma_port *rport = queue->rport;
	struct prl_rdma_device *dev = queue->dev;

	rdma_disconnect(queue->cm_id);
	cancel_delayed_work_sync(&queue->connect_timeout);
	prl_pending_del(queue);
	/* Capsules that beat ESTABLISHED may still be being started. */
	spin_lock_irq(&queue->state_lock);
	wait_event_lock_irq(queue->idle_wq, !queue->handlers,
			    queue->state_lock);
	spin_unlock_irq(&queue->state_lock);
	/*
	 * Off prl_queues before purlin_sq_destroy() may free the controller:
	 * prl_vouchers() reads sq.ctrl of listed queues under prl_lock.  A
	 * disconnecting queue needs no finding: port and device removal wait
	 * on their own counts.
	 */
	mutex_lock(&prl_lock);
	list_del(&queue->entry);
	mutex_unlock(&prl_lock);
	/* The wait work sees DISCONNECTING and stops taking entries. */
	cancel_work_sync(&queue->buf_waiter.work);
	/* Nothing retries now: chunks set aside for it go to the others. */
	purlin_bufpool_cancel(&queue->buf_waiter);
	/* Nobody posts from here on (prl_post_begin()). */
	smp_mb();
	wait_event(queue->idle_wq, !atomic_read(&queue->posting));
	/*
	 * Flush every posted work request.  Commands run from completion
	 * handlers, so after the drain no command starts and sq.ctrl is
	 * stable.
	 */
	ib_drain_qp(queue->qp);
	/* No prl_start() can run now: the cancel is final for the pool. */
	purlin_bufpool_cancel(&queue->buf_waiter);
	prl_abort_waits(queue);
	/* Aborts held AERs and waits for every request's purlin_req_free(). */
	purlin_sq_destroy(&queue->sq);
	spin_lock_irq(&queue->rsp_lock);
	wait_event_lock_irq(queue->idle_wq, queue->nr_free == queue->nr_rsps,
			    queue->rsp_lock);
	spin_unlock_irq(&queue->rsp_lock);
	purlin_bufpool_cancel(&queue->buf_waiter);
	cancel_work_sync(&queue->buf_waiter.work);

	prl_destroy_qp(queue);
	rdma_destroy_id(queue->cm_id);
	prl_free_rsps(queue);
	prl_free_cmds(queue);
	__free_page(queue->connect_page);

	prl_device_put(dev);
	/* A poster may still be in prl_post_end(), under RCU. */
	kfree_rcu(queue, rcu);
	atomic_dec(&purlin_live.queues);
	if (atomic_dec_and_test(&rport->nr_queues))
		complete(&rport->queues_gone);
}

/* Start tearing the queue down; any context.  The release work finishes. */
static void prl_queue_disconnect(struct prl_rdma_queue *queue)
{
	unsigned long flags;

	spin_lock_irqsave(&queue->state_lock, flags);
	__prl_queue_disconnect(queue);
	spin_unlock_irqrestore(&queue->state_lock, flags);
}

static bool prl_same_addr(const struct sockaddr_storage *a,
			  const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return ipv6_addr_equal(&((const struct sockaddr_in6 *)a)->sin6_addr,
				       &((const struct sockaddr_in6 *)b)->sin6_addr);
	return !memcmp(a, b, sizeof(*a));
}

/*
 * Count queue among the port's unauthenticated queues (no controller yet,
 * or a discovery controller: anyone may have one), unless the port or the
 * peer's address is at its limit.  Queues that got a controller of a
 * normal subsystem meanwhile are dropped from the list here.  sq.ctrl is
 * only cleared after the queue left the list.
 *
 * A Linux host connects all its I/O queues at the RDMA CM before it sends
 * any of their Fabrics Connects.  An I/O queue from an address that already
 * has an admin queue with a controller of a normal subsystem on this port
 * is vouched for: those count apart, up to PRL_MAX_QID per such admin
 * queue, so a many-core host is not refused by the per-address limit.
 */
static bool prl_pending_add(struct prl_rdma_port *rport,
			    struct prl_rdma_queue *queue, unsigned int vouch)
{
	struct purlin_port *port = rport->port;
	struct prl_rdma_queue *q, *tmp;
	unsigned int same = 0, same_vouched = 0;
	bool ok;

	queue->vouched = vouch > 0;
	spin_lock(&rport->pending_lock);
	list_for_each_entry_safe(q, tmp, &rport->pending, pending_entry) {
		struct purlin_ctrl *ctrl = smp_load_acquire(&q->sq.ctrl);

		if (ctrl && !purlin_is_discovery(ctrl)) {
			list_del_init(&q->pending_entry);
			if (!q->vouched)
				rport->nr_pending--;
			continue;
		}
		if (!prl_same_addr(&q->peer_addr, &queue->peer_addr))
			continue;
		if (q->vouched)
			same_vouched++;
		else
			same++;
	}
	if (queue->vouched)
		ok = same_vouched < vouch * PRL_MAX_QID;
	else
		ok = rport->nr_pending < port->max_pending &&
		     same < port->max_pending_per_addr;
	if (ok) {
		list_add_tail(&queue->pending_entry, &rport->pending);
		if (!queue->vouched)
			rport->nr_pending++;
	}
	spin_unlock(&rport->pending_lock);
	return ok;
}

/*
 * Admin queues from queue's address on its port that have a controller of
 * a normal subsystem: what vouches for its I/O queues.
 */
static unsigned int prl_vouchers(struct prl_rdma_port *rport,
				 struct prl_rdma_queue *queue)
{
	struct prl_rdma_queue *q;
	unsigned int n = 0;

	if (!queue->host_qid)
		return 0;
	mutex_lock(&prl_lock);
	list_for_each_entry(q, &prl_queues, entry) {
		struct purlin_ctrl *ctrl = smp_load_acquire(&q->sq.ctrl);

		if (q->rport == rport && !q->host_qid && ctrl &&
		    !purlin_is_discovery(ctrl) && !prl_queue_dying(q) &&
		    prl_same_addr(&q->peer_addr, &queue->peer_addr))
			n++;
	}
	mutex_unlock(&prl_lock);
	return n;
}

static void prl_pending_del(struct prl_rdma_queue *queue)
{
	struct prl_rdma_port *rport = queue->rport;

	spin_lock(&rport->pending_lock);
	if (!list_empty(&queue->pending_entry)) {
		list_del_init(&queue->pending_entry);
		if (!queue->vouched)
			rport->nr_pending--;
	}
	spin_unlock(&rport->pending_lock);
}

static void prl_connect_timeout(struct work_struct *w)
{
	struct prl_rdma_queue *queue = container_of(to_delayed_work(w),
						    struct prl_rdma_queue,
						    connect_timeout);

	if (READ_ONCE(queue->sq.ctrl))
		return;
	pr_warn_ratelimited("queue %u from %pISc: no Fabrics Connect within %u ms; disconnecting\n",
			    queue->host_qid, &queue->peer_addr,
			    queue->rport->port->connect_timeout_ms);
	prl_queue_disconnect(queue);
}

/*
 * Run the capsules that arrived before ESTABLISHED, then go live.  Until
 * the state is LIVE the receive handler only appends to pending_cmds, so
 * commands are handled in order and by one context at a time.
 */
static void prl_queue_established(struct prl_rdma_queue *queue)
{
	struct prl_rdma_cmd *cmd;

	spin_lock_irq(&queue->state_lock);
	while (queue->state == PRL_Q_CONNECTING) {
		if (list_empty(&queue->pending_cmds)) {
			queue->state = PRL_Q_LIVE;
			break;
		}
		cmd = list_first_entry(&queue->pending_cmds,
				       struct prl_rdma_cmd, entry);
		list_del_init(&cmd->entry);
		/* The teardown waits for this before it drains the QP. */
		queue->handlers++;
		spin_unlock_irq(&queue->state_lock);
		prl_handle_command(queue, cmd);
		spin_lock_irq(&queue->state_lock);
		if (!--queue->handlers && queue->state == PRL_Q_DISCONNECTING)
			wake_up(&queue->idle_wq);
	}
	spin_unlock_irq(&queue->state_lock);
}

static int prl_reject(struct rdma_cm_id *cm_id, u16 sts)
{
	struct prl_cm_rej rej = {
		.recfmt = cpu_to_le16(NVME_RDMA_CM_FMT_1_0),
		.sts = cpu_to_le16(sts),
	};

	pr_info_ratelimited("rejecting a connection from %pISc: %s (%u)\n",
			    &cm_id->route.addr.dst_addr, nvme_rdma_cm_msg(sts),
			    sts);
	return rdma_reject(cm_id, &rej, sizeof(rej),
			   IB_CM_REJ_CONSUMER_DEFINED);
}

/* Validate the host's CM private data; 0 or an NVMe/RDMA reject status. */
static u16 prl_check_cm_req(struct purlin_port *port,
			    const struct rdma_conn_param *param,
			    u16 *qid, u32 *rqsize, u32 *sqsize)
{
	const struct prl_cm_req *req = param->private_data;
	u32 max = port->max_queue_size;

	if (!req || param->private_data_len < offsetof(struct prl_cm_req, cntlid))
		return NVME_RDMA_CM_INVALID_LEN;
	if (le16_to_cpu(req->recfmt) != NVME_RDMA_CM_FMT_1_0)
		return NVME_RDMA_CM_INVALID_RECFMT;
	*qid = le16_to_cpu(req->qid);
	if (*qid > PRL_MAX_QID)
		return NVME_RDMA_CM_INVALID_QID;
	/* Admin queues, discovery's included, hold PRL_ADMIN_QUEUE_SIZE. */
	if (*qid == 0)
		max = PRL_ADMIN_QUEUE_SIZE;
	/* hsqsize is 0's based; the receive queue holds hsqsize + 1. */
	*rqsize = le16_to_cpu(req->hsqsize) + 1;
	if (*rqsize < 2 || *rqsize > max)
		return NVME_RDMA_CM_INVALID_HSQSIZE;
	*sqsize = le16_to_cpu(req->hrqsize);
	if (*sqsize < 2 || *sqsize > max)
		return NVME_RDMA_CM_INVALID_HRQSIZE;
	/*
	 * The CM reports the host's responder resources as our initiator
	 * depth: with none, our RDMA READs of the host's data never run.
	 */
	if (!param->initiator_depth)
		return NVME_RDMA_CM_NO_RSC;
	return 0;
}

static int prl_connect_request(struct rdma_cm_id *cm_id,
			       struct rdma_cm_event *event)
{
	struct prl_rdma_port *rport = cm_id->context;
	struct purlin_port *port = rport->port;
	struct rdma_conn_param *param = &event->param.conn;
	struct prl_cm_rep rep = {};
	struct rdma_conn_param accept = {};
	struct prl_rdma_queue *queue;
	struct ib_device *ib;
	u32 rqsize, sqsize, i;
	u16 qid, sts;
	bool dead;
	int ret;

	sts = prl_check_cm_req(port, param, &qid, &rqsize, &sqsize);
	if (sts)
		goto reject;

	sts = NVME_RDMA_CM_NO_RSC;
	queue = kzalloc(sizeof(*queue), GFP_KERNEL);
	if (!queue)
		goto reject;
	queue->kind = PRL_CTX_QUEUE;
	queue->cm_id = cm_id;
	queue->port_num = cm_id->port_num;
	queue->rport = rport;
	queue->host_qid = qid;
	queue->recv_queue_size = rqsize;
	queue->send_queue_size = sqsize;
	queue->inline_data_size = qid ? port->inline_data_size : 0;
	queue->tos = port->tos;
	queue->inline_order = get_order(queue->inline_data_size);
	spin_lock_init(&queue->rsp_lock);
	INIT_LIST_HEAD(&queue->free_rsps);
	init_waitqueue_head(&queue->idle_wq);
	spin_lock_init(&queue->state_lock);
	queue->state = PRL_Q_CONNECTING;
	INIT_LIST_HEAD(&queue->pending_cmds);
	INIT_LIST_HEAD(&queue->send_waits);
	INIT_LIST_HEAD(&queue->exec_waits);
	INIT_LIST_HEAD(&queue->zombies);
	purlin_buf_waiter_init(&queue->buf_waiter, prl_wait_work);
	purlin_buf_acct_init(&queue->buf_acct,
			     PRL_QUEUE_POOL_SHARE(purlin_bufpool_total(),
						  rqsize));
	INIT_DELAYED_WORK(&queue->connect_timeout, prl_connect_timeout);
	INIT_WORK(&queue->release_work, prl_release_work);
	INIT_LIST_HEAD(&queue->entry);
	INIT_LIST_HEAD(&queue->pending_entry);
	memcpy(&queue->peer_addr, &cm_id->route.addr.dst_addr,
	       sizeof(queue->peer_addr));
	if (purlin_sq_init(&queue->sq, port, qid, rqsize))
		goto free_queue;

	if (!prl_pending_add(rport, queue, prl_vouchers(rport, queue))) {
		pr_warn_ratelimited("port %u: refusing a queue from %pISc: too many unauthenticated queues\n",
				    le16_to_cpu(port->disc_addr.portid),
				    &queue->peer_addr);
		goto exit_sq;
	}
	queue->dev = prl_device_get(cm_id->device);
	if (!queue->dev)
		goto del_pending;
	ib = queue->dev->ib;
	queue->connect_page = alloc_page(GFP_KERNEL);
	if (!queue->connect_page)
		goto put_dev;
	if (prl_alloc_cmds(queue))
		goto free_page;
	if (prl_alloc_rsps(queue))
		goto free_cmds;
	rep.recfmt = cpu_to_le16(NVME_RDMA_CM_FMT_1_0);
	rep.crqsize = cpu_to_le16(queue->recv_queue_size);
	accept.private_data = &rep;
	accept.private_data_len = sizeof(rep);
	/* The host's side: it waits for our receives as long as it likes. */
	accept.rnr_retry_count = 7;
	accept.flow_control = 1;
	/*
	 * The CM reports the host's values from our side already: its
	 * responder resources are our initiator depth (RDMA READs we issue).
	 */
	accept.initiator_depth = min_t(u8, param->initiator_depth,
				       ib->attrs.max_qp_init_rd_atom);
	accept.responder_resources = min_t(u8, param->responder_resources,
					   ib->attrs.max_qp_rd_atom);

	if (prl_create_qp(queue))
		goto free_rsps;
	if (queue->own_qp) {
		ret = prl_qp_ready(queue, &accept);
		if (ret) {
			pr_err_ratelimited("queue %u: QP to RTS failed: %d\n",
					   qid, ret);
			goto destroy_qp;
		}
		accept.qp_num = queue->qp->qp_num;
	}
	for (i = 0; i < queue->recv_queue_size; i++)
		if (prl_post_recv(queue, &queue->cmds[i]))
			goto drain_qp;

	/*
	 * From here on the release work owns the queue and the cm_id.  A
	 * completion may already have marked the queue disconnecting (a
	 * receive flushed): its release starts only now, after the timer is
	 * armed, so the release's cancel always finds it.
	 */
	atomic_inc(&rport->nr_queues);
	atomic_inc(&purlin_live.queues);
	cm_id->context = queue;
	queue_delayed_work(purlin_wq, &queue->connect_timeout,
			   msecs_to_jiffies(port->connect_timeout_ms));
	mutex_lock(&prl_lock);
	list_add_tail(&queue->entry, &prl_queues);
	mutex_unlock(&prl_lock);
	spin_lock_irq(&queue->state_lock);
	queue->handed_over = true;
	dead = queue->state == PRL_Q_DISCONNECTING;
	if (dead)
		queue_work(purlin_wq, &queue->release_work);
	spin_unlock_irq(&queue->state_lock);
	if (dead) {
		/* Refused, not destroyed: the release work destroys the id. */
		prl_reject(cm_id, NVME_RDMA_CM_NO_RSC);
		return 0;
	}

	ret = rdma_accept(cm_id, &accept);
	if (ret) {
		pr_err_ratelimited("accepting queue %u failed: %d\n", qid, ret);
		prl_queue_disconnect(queue);
	}
	return 0;

drain_qp:
	/* Receives that were posted complete (flushed) before the QP goes. */
	ib_drain_qp(queue->qp);
destroy_qp:
	prl_destroy_qp(queue);
free_rsps:
	prl_free_rsps(queue);
free_cmds:
	prl_free_cmds(queue);
free_page:
	__free_page(queue->connect_page);
put_dev:
	prl_device_put(queue->dev);
del_pending:
	prl_pending_del(queue);
exit_sq:
	purlin_sq_exit(&queue->sq);
free_queue:
	kfree(queue);
reject:
	prl_reject(cm_id, sts);
	/* Non-zero: the CM destroys this cm_id. */
	return -ECONNREFUSED;
}

static int prl_listen(struct prl_rdma_port *rport);

static void prl_relisten_work(struct work_struct *w)
{
	struct prl_rdma_port *rport = container_of(to_delayed_work(w),
						   struct prl_rdma_port,
						   relisten_work);

	if (!prl_listen(rport))
		return;
	mutex_lock(&rport->cm_lock);
	if (!rport->removing)
		queue_delayed_work(purlin_wq, &rport->relisten_work, HZ);
	mutex_unlock(&rport->cm_lock);
}

static int prl_listener_event(struct prl_rdma_port *rport,
			      struct rdma_cm_id *cm_id,
			      struct rdma_cm_event *event)
{
	switch (event->event) {
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		/*
		 * Hand the id to the CM to destroy (non-zero return) unless
		 * remove_port already owns it and is destroying it.
		 */
		mutex_lock(&rport->cm_lock);
		if (rport->cm_id != cm_id) {
			mutex_unlock(&rport->cm_lock);
			return 0;
		}
		rport->cm_id = NULL;
		if (!rport->removing)
			queue_delayed_work(purlin_wq, &rport->relisten_work, HZ);
		mutex_unlock(&rport->cm_lock);
		pr_info("port %u: listener lost (%s); listening again when possible\n",
			le16_to_cpu(rport->port->disc_addr.portid),
			rdma_event_msg(event->event));
		return 1;
	default:
		return 0;
	}
}

static int prl_cm_handler(struct rdma_cm_id *cm_id,
			  struct rdma_cm_event *event)
{
	enum prl_ctx_kind *kind = cm_id->context;
	struct prl_rdma_queue *queue;

	if (event->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return prl_connect_request(cm_id, event);
	if (*kind == PRL_CTX_LISTENER)
		return prl_listener_event(cm_id->context, cm_id, event);

	queue = cm_id->context;
	pr_debug("queue %u: %s\n", queue->host_qid,
		 rdma_event_msg(event->event));
	switch (event->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		prl_queue_established(queue);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		prl_queue_disconnect(queue);
		break;
	default:
		break;
	}
	/* Queue ids are destroyed by their release work, never by the CM. */
	return 0;
}

/* ---- ports ------------------------------------------------------------ */

static int prl_port_sockaddr(struct purlin_port *port,
			     struct sockaddr_storage *addr)
{
	unsigned short af;

	switch (port->disc_addr.adrfam) {
	case NVMF_ADDR_FAMILY_IP4:
		af = AF_INET;
		break;
	case NVMF_ADDR_FAMILY_IP6:
		af = AF_INET6;
		break;
	default:
		return -EINVAL;
	}
	return inet_pton_with_scope(&init_net, af, port->disc_addr.traddr,
				    port->disc_addr.trsvcid, addr);
}

static int prl_listen(struct prl_rdma_port *rport)
{
	struct purlin_port *port = rport->port;
	struct sockaddr_storage addr;
	struct rdma_cm_id *cm_id;
	int ret;

	ret = prl_port_sockaddr(port, &addr);
	if (ret)
		return ret;
	cm_id = rdma_create_id(&init_net, prl_cm_handler, rport, RDMA_PS_TCP,
			       IB_QPT_RC);
	if (IS_ERR(cm_id))
		return PTR_ERR(cm_id);
	if (addr.ss_family == AF_INET6) {
		ret = rdma_set_afonly(cm_id, 1);
		if (ret)
			goto destroy;
	}
	/* iWARP providers take the ToS of accepted connections from here. */
	if (port->tos >= 0)
		rdma_set_service_type(cm_id, port->tos);
	ret = rdma_bind_addr(cm_id, (struct sockaddr *)&addr);
	if (ret)
		goto destroy;
	ret = rdma_listen(cm_id, 128);
	if (ret)
		goto destroy;
	mutex_lock(&rport->cm_lock);
	if (rport->removing) {
		mutex_unlock(&rport->cm_lock);
		ret = -ESHUTDOWN;
		goto destroy;
	}
	rport->cm_id = cm_id;
	mutex_unlock(&rport->cm_lock);
	pr_info("port %u: listening on %s:%s\n",
		le16_to_cpu(port->disc_addr.portid), port->disc_addr.traddr,
		port->disc_addr.trsvcid);
	return 0;
destroy:
	rdma_destroy_id(cm_id);
	return ret;
}

static int prl_add_port(struct purlin_port *port)
{
	struct prl_rdma_port *rport;
	int ret;

	rport = kzalloc(sizeof(*rport), GFP_KERNEL);
	if (!rport)
		return -ENOMEM;
	rport->kind = PRL_CTX_LISTENER;
	rport->port = port;
	mutex_init(&rport->cm_lock);
	INIT_DELAYED_WORK(&rport->relisten_work, prl_relisten_work);
	atomic_set(&rport->nr_queues, 1);
	init_completion(&rport->queues_gone);
	spin_lock_init(&rport->pending_lock);
	INIT_LIST_HEAD(&rport->pending);
	ret = prl_listen(rport);
	if (ret) {
		pr_err("port %u: cannot listen on %s:%s: %d\n",
		       le16_to_cpu(port->disc_addr.portid),
		       port->disc_addr.traddr, port->disc_addr.trsvcid, ret);
		kfree(rport);
		return ret;
	}
	port->priv = rport;
	return 0;
}

static void prl_remove_port(struct purlin_port *port)
{
	struct prl_rdma_port *rport = port->priv;
	struct prl_rdma_queue *queue;
	struct rdma_cm_id *cm_id;

	mutex_lock(&rport->cm_lock);
	rport->removing = true;
	cm_id = rport->cm_id;
	rport->cm_id = NULL;
	mutex_unlock(&rport->cm_lock);
	if (cm_id)
		rdma_destroy_id(cm_id);	/* no new connections after this */
	cancel_delayed_work_sync(&rport->relisten_work);

	mutex_lock(&prl_lock);
	list_for_each_entry(queue, &prl_queues, entry)
		if (queue->rport == rport)
			prl_queue_disconnect(queue);
	mutex_unlock(&prl_lock);
	if (!atomic_dec_and_test(&rport->nr_queues))
		wait_for_completion(&rport->queues_gone);
	port->priv = NULL;
	kfree(rport);
}

static void prl_delete_ctrl(struct purlin_ctrl *ctrl)
{
	struct prl_rdma_queue *queue;

	mutex_lock(&prl_lock);
	list_for_each_entry(queue, &prl_queues, entry)
		if (queue->sq.ctrl == ctrl)
			prl_queue_disconnect(queue);
	mutex_unlock(&prl_lock);
}

static const struct purlin_transport_ops prl_rdma_ops = {
	.name = "rdma",
	.trtype = NVMF_TRTYPE_RDMA,
	.add_port = prl_add_port,
	.remove_port = prl_remove_port,
	.queue_response = prl_queue_response,
	.delete_ctrl = prl_delete_ctrl,
};

/* ---- device removal -------------------------------------------------- */

/* Disconnect every queue of the device. */
static void prl_device_disconnect(struct ib_device *ib)
{
	struct prl_rdma_queue *queue;

	mutex_lock(&prl_lock);
	list_for_each_entry(queue, &prl_queues, entry)
		if (queue->dev->ib == ib)
			prl_queue_disconnect(queue);
	mutex_unlock(&prl_lock);
}

static int prl_ib_add_one(struct ib_device *ib)
{
	struct prl_rdma_device *dev;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->ib = ib;
	dev->pd = ib_alloc_pd(ib, 0);
	if (IS_ERR(dev->pd)) {
		int ret = PTR_ERR(dev->pd);

		kfree(dev);
		return ret;
	}
	kref_init(&dev->ref);
	ib_set_client_data(ib, &prl_ib_client, dev);
	return 0;
}

/*
 * The device is going: refuse new queues, disconnect the existing ones
 * and wait until the last of them has dropped its device reference (the
 * release frees the PD last), so no QP, CQ or PD of ours outlives this.
 * A queue that took its reference just before removing was set may reach
 * prl_queues only after the first pass: each second without the release
 * disconnects again.
 */
static void prl_ib_remove_one(struct ib_device *ib, void *client_data)
{
	struct prl_rdma_device *dev = client_data;
	DECLARE_COMPLETION_ONSTACK(released);

	mutex_lock(&prl_lock);
	dev->removing = true;
	dev->released = &released;
	ib_set_client_data(ib, &prl_ib_client, NULL);
	mutex_unlock(&prl_lock);
	prl_device_disconnect(ib);
	prl_device_put(dev);
	while (!wait_for_completion_timeout(&released, HZ))
		prl_device_disconnect(ib);
}

static struct ib_client prl_ib_client = {
	.name = "purlin",
	.add = prl_ib_add_one,
	.remove = prl_ib_remove_one,
};

int purlin_rdma_init(void)
{
	int ret;

	rnr_retry = min(rnr_retry, 6U);
	retry_cnt = min(retry_cnt, 6U);
	ack_timeout = clamp(ack_timeout, 1U, 20U);

	ret = ib_register_client(&prl_ib_client);
	if (ret)
		return ret;
	ret = purlin_transport_register(&prl_rdma_ops);
	if (ret)
		ib_unregister_client(&prl_ib_client);
	return ret;
}

void purlin_rdma_exit(void)
{
	purlin_transport_unregister(&prl_rdma_ops);
	ib_unregister_client(&prl_ib_client);
}
