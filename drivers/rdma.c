// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe over RDMA transport: RDMA CM listeners, one RC queue pair per host
 * queue, capsules in pre-posted receive buffers, data with rdma_rw, and
 * responses sent (chained behind the RDMA WRITEs of read data).
 *
 * Per queue everything is allocated when the host connects: receive
 * contexts (recv_queue_size), response contexts (2 x recv_queue_size, each
 * embedding a struct purlin_req) and in-capsule buffers.  Data buffers come
 * from the bounded pool in bufpool.c.
 */
#define pr_fmt(fmt) "purlin: rdma: " fmt

#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/nvme-rdma.h>
#include <linux/slab.h>
#include <asm/unaligned.h>
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

struct prl_rdma_device {
	struct ib_device *ib;
	struct ib_pd *pd;
	struct kref ref;		/* one per queue */
	struct list_head entry;		/* prl_devices, prl_lock */
};

struct prl_rdma_port {
	enum prl_ctx_kind kind;		/* first: cm_id->context tag */
	struct purlin_port *port;
	struct rdma_cm_id *cm_id;	/* NULL while re-listening */
	struct mutex cm_lock;		/* guards cm_id */
	struct delayed_work relisten_work;
	atomic_t nr_queues;		/* queues accepted through it */
	wait_queue_head_t queues_wq;
	bool removing;			/* under cm_lock */
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

/* What a parked response waits for. */
enum prl_rsp_stage {
	PRL_WAIT_EXEC,		/* data buffer, then RDMA READ or execute */
	PRL_WAIT_SEND,		/* send queue space for the response */
};

struct prl_rdma_rsp {
	struct purlin_req req;
	struct nvme_completion nvme_cqe;
	struct ib_sge send_sge;
	struct ib_cqe send_cqe;
	struct ib_cqe read_cqe;
	struct ib_send_wr send_wr;
	struct prl_rdma_cmd *cmd;
	struct prl_rdma_queue *queue;
	struct rdma_rw_ctx rw;
	int n_rdma;			/* WRs of an active rw context */
	bool keyed;
	bool invalidate;
	u32 rkey;
	u64 remote_addr;
	int pool_nents;			/* chunks taken from the pool */
	enum prl_rsp_stage stage;
	struct list_head entry;		/* free_rsps or wait_rsps */
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
	struct prl_rdma_device *dev;
	struct prl_rdma_port *rport;

	u16 host_qid;
	u32 recv_queue_size;
	u32 send_queue_size;
	u32 inline_data_size;
	unsigned int inline_order;

	struct prl_rdma_cmd *cmds;
	struct nvme_command *cmd_bufs;
	u64 cmd_bufs_dma;
	struct prl_rdma_rsp *rsps;
	u32 nr_rsps;

	/* Guards free_rsps and nr_free. */
	spinlock_t rsp_lock;
	struct list_head free_rsps;
	u32 nr_free;
	wait_queue_head_t idle_wq;	/* teardown waits for nr_free */

	atomic_t sq_wr_avail;		/* send queue credits */

	/* Guards state, pending_cmds and wait_rsps. */
	spinlock_t state_lock;
	enum prl_queue_state state;
	struct list_head pending_cmds;	/* arrived before ESTABLISHED */
	struct list_head wait_rsps;	/* parked, in arrival order */
	struct purlin_buf_waiter buf_waiter;

	struct work_struct release_work;
	struct list_head entry;		/* prl_queues, prl_lock */
};

static const struct purlin_transport_ops prl_rdma_ops;

/* Guards prl_devices and prl_queues. */
static DEFINE_MUTEX(prl_lock);
static LIST_HEAD(prl_devices);
static LIST_HEAD(prl_queues);
static atomic_t prl_next_vector = ATOMIC_INIT(0);

static struct ib_client prl_ib_client;

static void prl_queue_disconnect(struct prl_rdma_queue *queue);
static void prl_handle_command(struct prl_rdma_queue *queue,
			       struct prl_rdma_cmd *cmd);
static void prl_process_waits(struct prl_rdma_queue *queue);

/* ---- devices ------------------------------------------------------------ */

static void prl_device_release(struct kref *ref)
{
	struct prl_rdma_device *dev = container_of(ref, struct prl_rdma_device,
						   ref);

	mutex_lock(&prl_lock);
	list_del(&dev->entry);
	mutex_unlock(&prl_lock);
	ib_dealloc_pd(dev->pd);
	kfree(dev);
}

static void prl_device_put(struct prl_rdma_device *dev)
{
	kref_put(&dev->ref, prl_device_release);
}

static struct prl_rdma_device *prl_device_get(struct ib_device *ib)
{
	struct prl_rdma_device *dev;

	mutex_lock(&prl_lock);
	list_for_each_entry(dev, &prl_devices, entry) {
		if (dev->ib == ib && kref_get_unless_zero(&dev->ref))
			goto out;
	}
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		goto out;
	dev->ib = ib;
	dev->pd = ib_alloc_pd(ib, 0);
	if (IS_ERR(dev->pd)) {
		kfree(dev);
		dev = NULL;
		goto out;
	}
	kref_init(&dev->ref);
	list_add(&dev->entry, &prl_devices);
out:
	mutex_unlock(&prl_lock);
	return dev;
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
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			pr_err("queue %u: receive failed: %s (%d)\n",
			       queue->host_qid,
			       ib_wc_status_msg(wc->status), wc->status);
			prl_queue_disconnect(queue);
		}
		return;
	}
	if (unlikely(wc->byte_len < sizeof(struct nvme_command))) {
		pr_err("queue %u: capsule of %u bytes, shorter than a command; disconnecting\n",
		       queue->host_qid, wc->byte_len);
		prl_queue_disconnect(queue);
		return;
	}
	cmd->byte_len = wc->byte_len;
	pr_debug("queue %u: capsule opcode 0x%x, %u bytes, state %d\n",
		 queue->host_qid, cmd->nvme_cmd->common.opcode, wc->byte_len,
		 READ_ONCE(queue->state));
	ib_dma_sync_single_for_cpu(ib, cmd->sge[0].addr, cmd->sge[0].length,
				   DMA_FROM_DEVICE);
	if (cmd->inline_page && wc->byte_len > sizeof(struct nvme_command))
		ib_dma_sync_single_for_cpu(ib, cmd->sge[1].addr,
					   cmd->sge[1].length,
					   DMA_FROM_DEVICE);

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
		list_del(&rsp->entry);
		queue->nr_free--;
	}
	spin_unlock_irqrestore(&queue->rsp_lock, flags);
	if (rsp)
		atomic_inc(&purlin_live.reqs);
	return rsp;
}

static enum dma_data_direction prl_rsp_dir(struct prl_rdma_rsp *rsp)
{
	return rsp->req.to_host ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
}

static void prl_rw_destroy(struct prl_rdma_rsp *rsp)
{
	struct prl_rdma_queue *queue = rsp->queue;

	if (!rsp->n_rdma)
		return;
	rdma_rw_ctx_destroy(&rsp->rw, queue->qp, queue->port_num,
			    rsp->req.sg, rsp->req.sg_cnt, prl_rsp_dir(rsp));
	rsp->n_rdma = 0;
}

/* The response context is done: give back its buffers and its receive. */
static void prl_release_rsp(struct prl_rdma_rsp *rsp)
{
	struct prl_rdma_queue *queue = rsp->queue;
	unsigned long flags;
	bool repost;

	prl_rw_destroy(rsp);
	if (rsp->pool_nents) {
		purlin_bufpool_put(rsp->sgl, rsp->pool_nents);
		rsp->pool_nents = 0;
	}
	spin_lock_irqsave(&queue->state_lock, flags);
	repost = queue->state == PRL_Q_LIVE;
	spin_unlock_irqrestore(&queue->state_lock, flags);
	if (repost && prl_post_recv(queue, rsp->cmd))
		prl_queue_disconnect(queue);

	atomic_dec(&purlin_live.reqs);
	spin_lock_irqsave(&queue->rsp_lock, flags);
	list_add_tail(&rsp->entry, &queue->free_rsps);
	if (++queue->nr_free == queue->nr_rsps)
		wake_up(&queue->idle_wq);
	spin_unlock_irqrestore(&queue->rsp_lock, flags);
}

static bool prl_queue_dying(struct prl_rdma_queue *queue)
{
	return READ_ONCE(queue->state) == PRL_Q_DISCONNECTING;
}

/* Park rsp until resources return; false if the queue is going away. */
static bool prl_park(struct prl_rdma_rsp *rsp, enum prl_rsp_stage stage,
		     bool head)
{
	struct prl_rdma_queue *queue = rsp->queue;
	unsigned long flags;
	bool parked = false;

	spin_lock_irqsave(&queue->state_lock, flags);
	if (queue->state != PRL_Q_DISCONNECTING) {
		rsp->stage = stage;
		if (head)
			list_add(&rsp->entry, &queue->wait_rsps);
		else
			list_add_tail(&rsp->entry, &queue->wait_rsps);
		parked = true;
	}
	spin_unlock_irqrestore(&queue->state_lock, flags);
	return parked;
}

static bool prl_take_credits(struct prl_rdma_queue *queue, int n)
{
	if (atomic_sub_return(n, &queue->sq_wr_avail) >= 0)
		return true;
	atomic_add(n, &queue->sq_wr_avail);
	return false;
}

/* Post the response, behind the RDMA WRITEs of any read data.  */
static bool prl_post_response(struct prl_rdma_rsp *rsp)
{
	struct prl_rdma_queue *queue = rsp->queue;
	struct ib_send_wr *first = &rsp->send_wr;
	int ret;

	if (!prl_take_credits(queue, 1 + rsp->n_rdma))
		return false;
	if (rsp->n_rdma)
		first = rdma_rw_ctx_wrs(&rsp->rw, queue->qp, queue->port_num,
					NULL, &rsp->send_wr);
	ib_dma_sync_single_for_device(queue->dev->ib, rsp->send_sge.addr,
				      rsp->send_sge.length, DMA_TO_DEVICE);
	ret = ib_post_send(queue->qp, first, NULL);
	if (ret) {
		pr_err("queue %u: posting a response failed: %d\n",
		       queue->host_qid, ret);
		atomic_add(1 + rsp->n_rdma, &queue->sq_wr_avail);
		prl_release_rsp(rsp);
		prl_queue_disconnect(queue);
	}
	return true;
}

static void prl_queue_response(struct purlin_req *req)
{
	struct prl_rdma_rsp *rsp = container_of(req, struct prl_rdma_rsp, req);
	struct prl_rdma_queue *queue = rsp->queue;
	int ret;

	pr_debug("queue %u: cid %u status 0x%x\n", queue->host_qid,
		 req->cqe->command_id, le16_to_cpu(req->cqe->status) >> 1);
	if (unlikely(prl_queue_dying(queue))) {
		prl_release_rsp(rsp);
		return;
	}
	if (rsp->invalidate) {
		rsp->send_wr.opcode = IB_WR_SEND_WITH_INV;
		rsp->send_wr.ex.invalidate_rkey = rsp->rkey;
	} else {
		rsp->send_wr.opcode = IB_WR_SEND;
	}

	if (rsp->keyed && req->to_host && req->sg_cnt &&
	    req->cqe->status == 0) {
		ret = rdma_rw_ctx_init(&rsp->rw, queue->qp, queue->port_num,
				       req->sg, req->sg_cnt, 0,
				       rsp->remote_addr, rsp->rkey,
				       DMA_TO_DEVICE);
		if (ret < 0) {
			pr_err("queue %u: mapping read data failed: %d\n",
			       queue->host_qid, ret);
			req->cqe->status =
				cpu_to_le16(NVME_SC_DATA_XFER_ERROR << 1);
		} else {
			rsp->n_rdma = ret;
		}
	}

	if (!list_empty_careful(&queue->wait_rsps) ||
	    !prl_post_response(rsp)) {
		if (!prl_park(rsp, PRL_WAIT_SEND, false))
			prl_release_rsp(rsp);
		else
			prl_process_waits(queue);
	}
}

static void prl_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct prl_rdma_rsp *rsp = container_of(wc->wr_cqe,
						struct prl_rdma_rsp, send_cqe);
	struct prl_rdma_queue *queue = rsp->queue;

	atomic_add(1 + rsp->n_rdma, &queue->sq_wr_avail);
	prl_release_rsp(rsp);
	if (unlikely(wc->status != IB_WC_SUCCESS &&
		     wc->status != IB_WC_WR_FLUSH_ERR)) {
		pr_err("queue %u: send failed: %s (%d)\n", queue->host_qid,
		       ib_wc_status_msg(wc->status), wc->status);
		prl_queue_disconnect(queue);
	}
	if (!list_empty_careful(&queue->wait_rsps))
		prl_process_waits(queue);
}

/* ---- data path ------------------------------------------------------------ */

static void prl_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct prl_rdma_rsp *rsp = container_of(wc->wr_cqe,
						struct prl_rdma_rsp, read_cqe);
	struct prl_rdma_queue *queue = rsp->queue;

	atomic_add(rsp->n_rdma, &queue->sq_wr_avail);
	prl_rw_destroy(rsp);
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			pr_err("queue %u: RDMA READ failed: %s (%d)\n",
			       queue->host_qid,
			       ib_wc_status_msg(wc->status), wc->status);
			prl_queue_disconnect(queue);
		}
		purlin_req_complete(&rsp->req, NVME_SC_DATA_XFER_ERROR);
		return;
	}
	purlin_req_execute(&rsp->req);
	if (!list_empty_careful(&queue->wait_rsps))
		prl_process_waits(queue);
}

/*
 * Get the data buffer and, for host-to-controller data, fetch it.
 * Returns false when the request has to wait for resources.
 */
static bool prl_start(struct prl_rdma_rsp *rsp)
{
	struct prl_rdma_queue *queue = rsp->queue;
	struct purlin_req *req = &rsp->req;
	int ret;

	if (rsp->keyed && req->transfer_len && !rsp->pool_nents) {
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

	if (rsp->keyed && req->transfer_len && !req->to_host) {
		ret = rdma_rw_ctx_init(&rsp->rw, queue->qp, queue->port_num,
				       req->sg, req->sg_cnt, 0,
				       rsp->remote_addr, rsp->rkey,
				       DMA_FROM_DEVICE);
		if (ret < 0) {
			purlin_req_complete(req, NVME_SC_DATA_XFER_ERROR);
			return true;
		}
		rsp->n_rdma = ret;
		if (!prl_take_credits(queue, ret)) {
			prl_rw_destroy(rsp);
			return false;
		}
		ret = rdma_rw_ctx_post(&rsp->rw, queue->qp, queue->port_num,
				       &rsp->read_cqe, NULL);
		if (ret) {
			pr_err("queue %u: posting RDMA READ failed: %d\n",
			       queue->host_qid, ret);
			atomic_add(rsp->n_rdma, &queue->sq_wr_avail);
			prl_rw_destroy(rsp);
			purlin_req_complete(req, NVME_SC_DATA_XFER_ERROR);
			prl_queue_disconnect(queue);
		}
		return true;
	}
	purlin_req_execute(req);
	return true;
}

/* Retry parked requests in order until one still cannot proceed. */
static void prl_process_waits(struct prl_rdma_queue *queue)
{
	struct prl_rdma_rsp *rsp;
	unsigned long flags;
	bool done;

	for (;;) {
		spin_lock_irqsave(&queue->state_lock, flags);
		if (list_empty(&queue->wait_rsps) ||
		    queue->state == PRL_Q_DISCONNECTING) {
			spin_unlock_irqrestore(&queue->state_lock, flags);
			return;
		}
		rsp = list_first_entry(&queue->wait_rsps, struct prl_rdma_rsp,
				       entry);
		list_del_init(&rsp->entry);
		spin_unlock_irqrestore(&queue->state_lock, flags);

		if (rsp->stage == PRL_WAIT_SEND)
			done = prl_post_response(rsp);
		else
			done = prl_start(rsp);
		if (done)
			continue;
		if (!prl_park(rsp, rsp->stage, true)) {
			purlin_req_complete(&rsp->req, NVME_SC_ABORT_QUEUE);
			return;
		}
		if (rsp->stage == PRL_WAIT_EXEC && rsp->pool_nents == 0 &&
		    !purlin_bufpool_wait(&queue->buf_waiter,
					 rsp->req.transfer_len))
			continue;	/* chunks came back meanwhile */
		return;
	}
}

static void prl_buf_waiter_work(struct work_struct *work)
{
	struct prl_rdma_queue *queue = container_of(work, struct prl_rdma_queue,
						    buf_waiter.work);

	prl_process_waits(queue);
}

static u16 prl_map_keyed(struct prl_rdma_rsp *rsp,
			 struct nvme_keyed_sgl_desc *sgl)
{
	struct purlin_req *req = &rsp->req;
	u32 len = get_unaligned_le24(sgl->length);

	req->transfer_len = len;
	rsp->remote_addr = le64_to_cpu(sgl->addr);
	rsp->rkey = get_unaligned_le32(sgl->key);
	rsp->keyed = true;
	if (!len)
		return 0;
	if (len > PRL_MAX_XFER)
		return NVME_SC_SGL_INVALID_DATA | PRL_DNR;
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
		rsp->invalidate = true;
		fallthrough;
	case NVME_KEY_SGL_FMT_DATA_DESC << 4 | NVME_SGL_FMT_ADDRESS:
		return prl_map_keyed(rsp, ksgl);
	case NVME_SGL_FMT_DATA_DESC << 4 | NVME_SGL_FMT_OFFSET:
		if (!rsp->queue->inline_data_size)
			return NVME_SC_SGL_INVALID_TYPE | PRL_DNR;
		return prl_map_inline(rsp, sgl);
	default:
		return NVME_SC_SGL_INVALID_TYPE | PRL_DNR;
	}
}

static void prl_handle_command(struct prl_rdma_queue *queue,
			       struct prl_rdma_cmd *cmd)
{
	struct prl_rdma_rsp *rsp;
	u16 status;

	rsp = prl_get_rsp(queue);
	if (unlikely(!rsp)) {
		/* The host sent more than its receive credits allow. */
		pr_err("queue %u: no response context free; disconnecting\n",
		       queue->host_qid);
		prl_queue_disconnect(queue);
		return;
	}
	rsp->cmd = cmd;
	rsp->req.cmd = cmd->nvme_cmd;
	rsp->req.cqe = &rsp->nvme_cqe;
	rsp->n_rdma = 0;
	rsp->keyed = false;
	rsp->invalidate = false;
	rsp->pool_nents = 0;

	if (!purlin_req_init(&rsp->req, &queue->sq, &prl_rdma_ops))
		return;
	status = prl_map_sgl(rsp);
	if (status) {
		purlin_req_complete(&rsp->req, status);
		return;
	}
	if (!purlin_check_data_len(&rsp->req, rsp->req.data_len))
		return;
	if (!list_empty_careful(&queue->wait_rsps) || !prl_start(rsp)) {
		if (!prl_park(rsp, PRL_WAIT_EXEC, false))
			purlin_req_complete(&rsp->req, NVME_SC_ABORT_QUEUE);
		else
			prl_process_waits(queue);
	}
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
	struct ib_device *ib = queue->dev->ib;
	u32 i;

	if (!queue->rsps)
		return;
	for (i = 0; i < queue->nr_rsps; i++) {
		struct prl_rdma_rsp *rsp = &queue->rsps[i];

		if (rsp->send_sge.addr)
			ib_dma_unmap_single(ib, rsp->send_sge.addr,
					    sizeof(rsp->nvme_cqe),
					    DMA_TO_DEVICE);
	}
	kvfree(queue->rsps);
	queue->rsps = NULL;
}

static int prl_alloc_rsps(struct prl_rdma_queue *queue)
{
	struct ib_device *ib = queue->dev->ib;
	u32 i;

	queue->nr_rsps = 2 * queue->recv_queue_size;
	queue->rsps = kvcalloc(queue->nr_rsps, sizeof(*queue->rsps),
			       GFP_KERNEL);
	if (!queue->rsps)
		return -ENOMEM;
	for (i = 0; i < queue->nr_rsps; i++) {
		struct prl_rdma_rsp *rsp = &queue->rsps[i];
		u64 dma;

		dma = ib_dma_map_single(ib, &rsp->nvme_cqe,
					sizeof(rsp->nvme_cqe), DMA_TO_DEVICE);
		if (ib_dma_mapping_error(ib, dma)) {
			prl_free_rsps(queue);
			return -ENOMEM;
		}
		rsp->queue = queue;
		rsp->send_sge.addr = dma;
		rsp->send_sge.length = sizeof(rsp->nvme_cqe);
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
	 * context at most one RDMA READ and one SEND.
	 */
	queue->nr_cqe = queue->recv_queue_size + 2 * queue->nr_rsps;
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
	attr.cap.max_send_wr = queue->send_queue_size;
	attr.cap.max_rdma_ctxs = queue->send_queue_size;
	attr.cap.max_send_sge = max_t(u32, 1, min_t(u32, ib->attrs.max_send_sge,
						  PRL_MAX_CHUNKS));
	attr.cap.max_recv_wr = queue->recv_queue_size;
	attr.cap.max_recv_sge = queue->inline_data_size ? 2 : 1;

	ret = rdma_create_qp(queue->cm_id, queue->dev->pd, &attr);
	if (ret) {
		pr_err("creating a QP failed: %d\n", ret);
		ib_cq_pool_put(queue->cq, queue->nr_cqe);
		queue->cq = NULL;
		return ret;
	}
	queue->qp = queue->cm_id->qp;
	atomic_set(&queue->sq_wr_avail, attr.cap.max_send_wr);
	return 0;
}

static void prl_destroy_qp(struct prl_rdma_queue *queue)
{
	if (queue->qp) {
		rdma_destroy_qp(queue->cm_id);
		queue->qp = NULL;
	}
	if (queue->cq) {
		ib_cq_pool_put(queue->cq, queue->nr_cqe);
		queue->cq = NULL;
	}
}

static void prl_queue_free(struct prl_rdma_queue *queue)
{
	prl_free_rsps(queue);
	prl_free_cmds(queue);
	prl_device_put(queue->dev);
	if (atomic_dec_and_test(&queue->rport->nr_queues))
		wake_up(&queue->rport->queues_wq);
	kfree(queue);
	atomic_dec(&purlin_live.queues);
}

/* Abort requests parked waiting for resources; the queue is going. */
static void prl_abort_waits(struct prl_rdma_queue *queue)
{
	struct prl_rdma_rsp *rsp, *tmp;
	unsigned long flags;
	LIST_HEAD(list);

	spin_lock_irqsave(&queue->state_lock, flags);
	list_splice_init(&queue->wait_rsps, &list);
	INIT_LIST_HEAD(&queue->pending_cmds);
	spin_unlock_irqrestore(&queue->state_lock, flags);
	purlin_bufpool_cancel(&queue->buf_waiter);
	cancel_work_sync(&queue->buf_waiter.work);

	list_for_each_entry_safe(rsp, tmp, &list, entry) {
		list_del_init(&rsp->entry);
		if (rsp->stage == PRL_WAIT_SEND)
			prl_release_rsp(rsp);
		else
			purlin_req_complete(&rsp->req, NVME_SC_ABORT_QUEUE);
	}
}

static void prl_release_work(struct work_struct *w)
{
	struct prl_rdma_queue *queue = container_of(w, struct prl_rdma_queue,
						    release_work);
	struct purlin_ctrl *ctrl;

	mutex_lock(&prl_lock);
	list_del_init(&queue->entry);
	mutex_unlock(&prl_lock);

	/*
	 * No more receives, and every posted work request flushed.  Commands
	 * run from completion handlers, so once the drain is through no new
	 * command can start, and sq.ctrl is stable.
	 */
	ib_drain_qp(queue->qp);
	ctrl = queue->sq.ctrl;
	prl_abort_waits(queue);
	if (ctrl && queue->host_qid == 0)
		purlin_aer_abort_all(ctrl);
	wait_event(queue->idle_wq,
		   READ_ONCE(queue->nr_free) == queue->nr_rsps);

	purlin_sq_destroy(&queue->sq);
	prl_destroy_qp(queue);
	rdma_destroy_id(queue->cm_id);
	prl_queue_free(queue);
}

/* Start tearing the queue down (any context); the release work finishes. */
static void prl_queue_disconnect(struct prl_rdma_queue *queue)
{
	unsigned long flags;
	bool start;

	spin_lock_irqsave(&queue->state_lock, flags);
	start = queue->state != PRL_Q_DISCONNECTING;
	queue->state = PRL_Q_DISCONNECTING;
	spin_unlock_irqrestore(&queue->state_lock, flags);
	if (!start)
		return;
	rdma_disconnect(queue->cm_id);
	queue_work(purlin_wq, &queue->release_work);
}

static void prl_queue_established(struct prl_rdma_queue *queue)
{
	struct prl_rdma_cmd *cmd;
	unsigned long flags;

	spin_lock_irqsave(&queue->state_lock, flags);
	if (queue->state != PRL_Q_CONNECTING) {
		spin_unlock_irqrestore(&queue->state_lock, flags);
		return;
	}
	queue->state = PRL_Q_LIVE;
	while (!list_empty(&queue->pending_cmds)) {
		cmd = list_first_entry(&queue->pending_cmds,
				       struct prl_rdma_cmd, entry);
		list_del_init(&cmd->entry);
		spin_unlock_irqrestore(&queue->state_lock, flags);
		prl_handle_command(queue, cmd);
		spin_lock_irqsave(&queue->state_lock, flags);
	}
	spin_unlock_irqrestore(&queue->state_lock, flags);
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
	u32 rqsize, sqsize;
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
	queue->inline_order = get_order(queue->inline_data_size);
	spin_lock_init(&queue->rsp_lock);
	INIT_LIST_HEAD(&queue->free_rsps);
	init_waitqueue_head(&queue->idle_wq);
	spin_lock_init(&queue->state_lock);
	queue->state = PRL_Q_CONNECTING;
	INIT_LIST_HEAD(&queue->pending_cmds);
	INIT_LIST_HEAD(&queue->wait_rsps);
	INIT_LIST_HEAD(&queue->buf_waiter.entry);
	INIT_WORK(&queue->buf_waiter.work, prl_buf_waiter_work);
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
	if (prl_create_qp(queue))
		goto free_rsps;
	for (ret = 0; ret < queue->recv_queue_size; ret++)
		if (prl_post_recv(queue, &queue->cmds[ret]))
			goto destroy_qp;

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

	atomic_inc(&rport->nr_queues);
	atomic_inc(&purlin_live.queues);
	cm_id->context = queue;
	mutex_lock(&prl_lock);
	list_add_tail(&queue->entry, &prl_queues);
	mutex_unlock(&prl_lock);

	ret = rdma_accept(cm_id, &accept);
	if (ret) {
		pr_err("accepting queue %u failed: %d\n", qid, ret);
		/* The CM reports no further event: tear down here. */
		spin_lock_irq(&queue->state_lock);
		queue->state = PRL_Q_DISCONNECTING;
		spin_unlock_irq(&queue->state_lock);
		queue_work(purlin_wq, &queue->release_work);
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
	atomic_set(&rport->nr_queues, 0);
	init_waitqueue_head(&rport->queues_wq);
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
	wait_event(rport->queues_wq, atomic_read(&rport->nr_queues) == 0);
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
	return 0;
}

static void prl_ib_remove_one(struct ib_device *ib, void *client_data)
{
	/* Disconnect every queue on the device and wait until they are gone. */
	while (!prl_device_unused(ib))
		msleep(100);
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
