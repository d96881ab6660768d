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

#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/nvme-rdma.h>
#include <linux/slab.h>
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
	struct purlin_buf_waiter buf_waiter; /* .work is the wait work */

	struct delayed_work connect_timeout;
	struct work_struct release_work;
	struct list_head entry;		/* prl_queues, prl_lock */
};

/* A host must send its Fabrics Connect this soon after the CM connect. */
#define PRL_CONNECT_TIMEOUT	(30 * HZ)

static const struct purlin_transport_ops prl_rdma_ops;

/* Guards prl_queues and device lookups. */
static DEFINE_MUTEX(prl_lock);
static LIST_HEAD(prl_queues);
static atomic_t prl_next_vector = ATOMIC_INIT(0);

static struct ib_client prl_ib_client;

static void prl_queue_disconnect(struct prl_rdma_queue *queue);
static void prl_handle_command(struct prl_rdma_queue *queue,
			       struct prl_rdma_cmd *cmd);

/* ---- devices ------------------------------------------------------------ */

static void prl_device_release(struct kref *ref)
{
	struct prl_rdma_device *dev = container_of(ref, struct prl_rdma_device,
						   ref);

	ib_dealloc_pd(dev->pd);
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

/* Add rsp to a wait list and kick; false if the queue is going away. */
static bool prl_park(struct prl_rdma_rsp *rsp, struct list_head *list)
{
	struct prl_rdma_queue *queue = rsp->queue;
	unsigned long flags;

	spin_lock_irqsave(&queue->state_lock, flags);
	if (queue->state == PRL_Q_DISCONNECTING) {
		spin_unlock_irqrestore(&queue->state_lock, flags);
		return false;
	}
	list_add_tail(&rsp->entry, list);
	spin_unlock_irqrestore(&queue->state_lock, flags);
	prl_kick(queue);
	return true;
}

/*
 * A post failed: the queue is torn down, and the rsp waits for the drain
 * (WRs that did get posted may still be using its buffers).
 */
static void prl_post_failed(struct prl_rdma_rsp *rsp, const char *what,
			    int ret)
{
	struct prl_rdma_queue *queue = rsp->queue;
	unsigned long flags;

	pr_err("queue %u: posting %s failed: %d\n", queue->host_qid, what, ret);
	spin_lock_irqsave(&queue->state_lock, flags);
	list_add_tail(&rsp->entry, &queue->zombies);
	spin_unlock_irqrestore(&queue->state_lock, flags);
	prl_queue_disconnect(queue);
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
	pr_err("queue %u: %s failed: %s (%d); disconnecting\n",
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
	ret = ib_post_recv(queue->qp, &cmd->wr, NULL);
	if (ret)
		pr_err("queue %u: posting a receive failed: %d\n",
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
		pr_err("queue %u: capsule of %u bytes, shorter than a command; disconnecting\n",
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
	if (rsp->pool_nents) {
		purlin_bufpool_put(rsp->sgl, rsp->pool_nents);
		rsp->pool_nents = 0;
	}

	atomic_dec(&purlin_live.reqs);
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
	ret = ib_post_send(queue->qp, first, NULL);
	if (unlikely(ret))
		prl_post_failed(rsp, "a response", ret);
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
 * Take the data buffer, map it for the host's keyed SGL, and fetch
 * host-to-controller data or run the command.  Process context only
 * (rdma_rw_ctx_init allocates).  Returns false, with nothing lost, when a
 * chunk or send credit is missing; the caller parks the request.
 */
static bool prl_start(struct prl_rdma_rsp *rsp)
{
	struct prl_rdma_queue *queue = rsp->queue;
	struct purlin_req *req = &rsp->req;
	int ret;

	if (!rsp->keyed || !req->transfer_len)
		goto execute;

	if (!rsp->pool_nents) {
		ret = purlin_bufpool_get(rsp->sgl, req->transfer_len);
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
	if (!rsp->n_rdma) {
		ret = rdma_rw_ctx_init(&rsp->rw, queue->qp, queue->port_num,
				       req->sg, req->sg_cnt, 0,
				       rsp->remote_addr, rsp->rkey,
				       req->to_host ? DMA_TO_DEVICE :
						      DMA_FROM_DEVICE);
		if (ret < 0 || ret + 1 > queue->sq_wr_total) {
			if (ret > 0)
				rsp->n_rdma = ret;
			pr_err("queue %u: cannot map %u bytes of data: %d\n",
			       queue->host_qid, req->transfer_len, ret);
			purlin_req_complete(req, NVME_SC_DATA_XFER_ERROR);
			return true;
		}
		rsp->n_rdma = ret;
	}
	if (req->to_host)
		goto execute;

	if (!prl_take_credits(queue, rsp->n_rdma))
		return false;
	ret = rdma_rw_ctx_post(&rsp->rw, queue->qp, queue->port_num,
			       &rsp->read_cqe, NULL);
	if (unlikely(ret)) {
		rsp->read_posted = true;
		prl_post_failed(rsp, "an RDMA READ", ret);
	}
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
	if (!rsp->pool_nents)
		return !purlin_bufpool_wait(&queue->buf_waiter,
					    rsp->req.transfer_len);
	return atomic_read(&queue->sq_wr_avail) >= rsp->n_rdma;
}

/* Run the first waiter of list; true if the caller should go on. */
static bool prl_run_waiter(struct prl_rdma_queue *queue,
			   struct list_head *list, bool send)
{
	struct prl_rdma_rsp *rsp;
	unsigned long flags;

	spin_lock_irqsave(&queue->state_lock, flags);
	if (queue->state == PRL_Q_DISCONNECTING || list_empty(list)) {
		spin_unlock_irqrestore(&queue->state_lock, flags);
		return false;
	}
	rsp = list_first_entry(list, struct prl_rdma_rsp, entry);
	list_del_init(&rsp->entry);
	spin_unlock_irqrestore(&queue->state_lock, flags);

	if (send ? prl_post_response(rsp) : prl_start(rsp))
		return true;

	spin_lock_irqsave(&queue->state_lock, flags);
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
	u16 status;

	rsp = prl_get_rsp(queue);
	if (unlikely(!rsp)) {
		/*
		 * Only a host submitting past its queue size gets here (see
		 * prl_alloc_rsps()): drop its queue rather than wait.
		 */
		pr_err("queue %u: no response context free (host past its queue size); disconnecting\n",
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

	if (!purlin_req_init(&rsp->req, &queue->sq, &prl_rdma_ops))
		return;
	status = prl_map_sgl(rsp);
	if (status) {
		purlin_req_complete(&rsp->req, status);
		return;
	}
	if (!purlin_check_data_len(&rsp->req))
		return;
	if (likely(list_empty_careful(&queue->exec_waits)) && prl_start(rsp))
		return;
	if (!prl_park(rsp, &queue->exec_waits))
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
		pr_err("queue %u: QP event %s (%d)\n", queue->host_qid,
		       ib_event_msg(event->event), event->event);
		break;
	}
}

/*
 * Bring our own QP to RTS the way the CM would inside rdma_accept(), but
 * with the traffic class of the port instead of the one the host's request
 * carried: on the passive side the CM builds the address vector from the
 * REQ, so an accepted connection otherwise answers with the host's class.
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
			if (rdma_ah_get_ah_flags(&attr.ah_attr) & IB_AH_GRH)
				rdma_ah_retrieve_grh(&attr.ah_attr)->traffic_class =
					queue->tos;
		} else if (steps[i] == IB_QPS_RTS) {
			attr.max_rd_atomic = accept->initiator_depth;
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
	 * A port with its own ToS on an IB CM transport (InfiniBand, RoCE)
	 * takes the QP out of the CM's hands, see prl_qp_ready().  iWARP
	 * gets the ToS from the listener's id instead.
	 */
	queue->own_qp = queue->tos >= 0 &&
			rdma_cap_ib_cm(ib, queue->cm_id->port_num);
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
		pr_err("creating a QP failed: %d\n", ret);
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
	struct purlin_ctrl *ctrl;

	rdma_disconnect(queue->cm_id);
	cancel_delayed_work_sync(&queue->connect_timeout);
	/* The wait work sees DISCONNECTING and stops taking entries. */
	cancel_work_sync(&queue->buf_waiter.work);
	/*
	 * Flush every posted work request.  Commands run from completion
	 * handlers, so after the drain no command starts and sq.ctrl is
	 * stable.
	 */
	ib_drain_qp(queue->qp);
	ctrl = queue->sq.ctrl;
	prl_abort_waits(queue);
	if (ctrl && queue->host_qid == 0)
		purlin_aer_abort_all(ctrl);
	spin_lock_irq(&queue->rsp_lock);
	wait_event_lock_irq(queue->idle_wq, queue->nr_free == queue->nr_rsps,
			    queue->rsp_lock);
	spin_unlock_irq(&queue->rsp_lock);
	purlin_bufpool_cancel(&queue->buf_waiter);
	cancel_work_sync(&queue->buf_waiter.work);

	purlin_sq_destroy(&queue->sq);
	prl_destroy_qp(queue);
	rdma_destroy_id(queue->cm_id);
	prl_free_rsps(queue);
	prl_free_cmds(queue);
	prl_device_put(dev);

	/* Last: device removal waits for the queue to leave this list. */
	mutex_lock(&prl_lock);
	list_del(&queue->entry);
	mutex_unlock(&prl_lock);
	kfree(queue);
	atomic_dec(&purlin_live.queues);
	if (atomic_dec_and_test(&rport->nr_queues))
		complete(&rport->queues_gone);
}

/* Start tearing the queue down; any context.  The release work finishes. */
static void prl_queue_disconnect(struct prl_rdma_queue *queue)
{
	unsigned long flags;
	bool start;

	spin_lock_irqsave(&queue->state_lock, flags);
	start = queue->state != PRL_Q_DISCONNECTING;
	queue->state = PRL_Q_DISCONNECTING;
	spin_unlock_irqrestore(&queue->state_lock, flags);
	if (start)
		queue_work(purlin_wq, &queue->release_work);
}

static void prl_connect_timeout(struct work_struct *w)
{
	struct prl_rdma_queue *queue = container_of(to_delayed_work(w),
						    struct prl_rdma_queue,
						    connect_timeout);

	if (READ_ONCE(queue->sq.ctrl))
		return;
	pr_warn("queue %u: no Fabrics Connect within %u s; disconnecting\n",
		queue->host_qid, PRL_CONNECT_TIMEOUT / HZ);
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
		spin_unlock_irq(&queue->state_lock);
		prl_handle_command(queue, cmd);
		spin_lock_irq(&queue->state_lock);
	}
	spin_unlock_irq(&queue->state_lock);
}

static int prl_reject(struct rdma_cm_id *cm_id, u16 sts)
{
	struct prl_cm_rej rej = {
		.recfmt = cpu_to_le16(NVME_RDMA_CM_FMT_1_0),
		.sts = cpu_to_le16(sts),
	};

	pr_info("rejecting a connection: %s (%u)\n",
		nvme_rdma_cm_msg(sts), sts);
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
	/* The admin queue is not bound by the port's I/O queue size. */
	if (*qid == 0)
		max = max_t(u32, max, PRL_ADMIN_QUEUE_SIZE);
	/* hsqsize is 0's based; the receive queue holds hsqsize + 1. */
	*rqsize = le16_to_cpu(req->hsqsize) + 1;
	if (*rqsize < 2 || *rqsize > max)
		return NVME_RDMA_CM_INVALID_HSQSIZE;
	*sqsize = le16_to_cpu(req->hrqsize);
	if (*sqsize < 2 || *sqsize > max)
		return NVME_RDMA_CM_INVALID_HRQSIZE;
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
	INIT_LIST_HEAD(&queue->buf_waiter.entry);
	INIT_WORK(&queue->buf_waiter.work, prl_wait_work);
	INIT_DELAYED_WORK(&queue->connect_timeout, prl_connect_timeout);
	INIT_WORK(&queue->release_work, prl_release_work);
	INIT_LIST_HEAD(&queue->entry);
	purlin_sq_init(&queue->sq, port, qid, rqsize);

	queue->dev = prl_device_get(cm_id->device);
	if (!queue->dev)
		goto free_queue;
	ib = queue->dev->ib;
	if (prl_alloc_cmds(queue))
		goto put_dev;
	if (prl_alloc_rsps(queue))
		goto free_cmds;
	rep.recfmt = cpu_to_le16(NVME_RDMA_CM_FMT_1_0);
	rep.crqsize = cpu_to_le16(queue->recv_queue_size);
	accept.private_data = &rep;
	accept.private_data_len = sizeof(rep);
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
			pr_err("queue %u: QP to RTS failed: %d\n", qid, ret);
			goto destroy_qp;
		}
		accept.qp_num = queue->qp->qp_num;
	}
	for (i = 0; i < queue->recv_queue_size; i++)
		if (prl_post_recv(queue, &queue->cmds[i]))
			goto destroy_qp;

	/* From here on the release work owns the queue and the cm_id. */
	atomic_inc(&rport->nr_queues);
	atomic_inc(&purlin_live.queues);
	cm_id->context = queue;
	mutex_lock(&prl_lock);
	list_add_tail(&queue->entry, &prl_queues);
	mutex_unlock(&prl_lock);
	queue_delayed_work(purlin_wq, &queue->connect_timeout,
			   PRL_CONNECT_TIMEOUT);

	ret = rdma_accept(cm_id, &accept);
	if (ret) {
		pr_err("accepting queue %u failed: %d\n", qid, ret);
		prl_queue_disconnect(queue);
	}
	return 0;

destroy_qp:
	prl_destroy_qp(queue);
free_rsps:
	prl_free_rsps(queue);
free_cmds:
	prl_free_cmds(queue);
put_dev:
	prl_device_put(queue->dev);
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

/* Disconnect the device's queues; true once none is left. */
static bool prl_device_unused(struct ib_device *ib)
{
	struct prl_rdma_queue *queue;
	bool unused = true;

	mutex_lock(&prl_lock);
	list_for_each_entry(queue, &prl_queues, entry) {
		if (queue->dev->ib == ib) {
			prl_queue_disconnect(queue);
			unused = false;
		}
	}
	mutex_unlock(&prl_lock);
	return unused;
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
 * and wait until every one is freed (queues leave prl_queues only at the
 * very end of their release), so no QP, CQ or PD of ours outlives this.
 */
static void prl_ib_remove_one(struct ib_device *ib, void *client_data)
{
	struct prl_rdma_device *dev = client_data;

	mutex_lock(&prl_lock);
	dev->removing = true;
	ib_set_client_data(ib, &prl_ib_client, NULL);
	mutex_unlock(&prl_lock);
	while (!prl_device_unused(ib))
		msleep(100);
	prl_device_put(dev);
}

static struct ib_client prl_ib_client = {
	.name = "purlin",
	.add = prl_ib_add_one,
	.remove = prl_ib_remove_one,
};

int purlin_rdma_init(void)
{
	int ret;

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
