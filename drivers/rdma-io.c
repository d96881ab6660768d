// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe/RDMA data path, in the order a command takes it:
 *
 *   prl_recv_done()        a capsule arrived in a pre-posted receive buffer
 *   prl_handle_command()   take a response context; the core parses the
 *                          command (purlin_req_init()); its SGL is mapped
 *   prl_map_sgl()          keyed (the host's memory) or in-capsule data
 *   prl_start()            in steps, each done once:
 *     prl_get_data_buf()   data buffer from the pool (a Connect: the
 *                          queue's own page)
 *     prl_map_data()       rdma_rw context for the host's buffer
 *     prl_fetch()          an RDMA READ of host-to-controller data, or
 *                          purlin_req_execute() (the back end) at once
 *   prl_read_done()        the data is here: execute
 *   prl_queue_response()   the core completed the request: repost the
 *                          receive buffer, send the response
 *   prl_post_response()    SEND (behind the RDMA WRITEs of read data)
 *   prl_send_done()        the context and its buffers go back
 *
 * A command short of data chunks or send credits waits on the queue's
 * lists (exec_waits, send_waits) for the wait work, prl_wait_work(); see
 * rdma.h for the queue's fields and their locks.
 */
#define pr_fmt(fmt) "purlin: rdma: " fmt

#include <linux/slab.h>

#include "rdma.h"

static struct prl_rdma_rsp *prl_get_rsp(struct prl_rdma_queue *queue);
static u16 prl_map_sgl(struct prl_rdma_rsp *rsp);
static u16 prl_map_keyed(struct prl_rdma_rsp *rsp,
			 struct nvme_keyed_sgl_desc *sgl, bool invalidate);
static u16 prl_map_inline(struct prl_rdma_rsp *rsp, struct nvme_sgl_desc *sgl);
static bool prl_start(struct prl_rdma_rsp *rsp);
static bool prl_post_response(struct prl_rdma_rsp *rsp);
static void prl_abandon_rsp(struct prl_rdma_rsp *rsp);
static void prl_post_deferred_recvs(struct prl_rdma_queue *queue);
static bool prl_park(struct prl_rdma_rsp *rsp, struct list_head *list);
static void prl_kick(struct prl_rdma_queue *queue);
static void prl_kick_waiters(struct prl_rdma_queue *queue);
static void prl_rw_destroy(struct prl_rdma_rsp *rsp);
static bool prl_take_credits(struct prl_rdma_queue *queue, int n);
static int prl_send_credits(struct prl_rdma_rsp *rsp);
static void prl_post_failed(struct prl_rdma_rsp *rsp, const char *what,
			    int ret);
static void prl_wc_error(struct prl_rdma_queue *queue, struct ib_wc *wc,
			 const char *what);

/* ---- receive ----------------------------------------------------------- */

static void prl_sync_recv(struct ib_device *ib, struct prl_rdma_cmd *cmd)
{
	ib_dma_sync_single_for_device(ib, cmd->sge[0].addr, cmd->sge[0].length,
				      DMA_FROM_DEVICE);
	if (cmd->inline_page)
		ib_dma_sync_single_for_device(ib, cmd->sge[1].addr,
					      cmd->sge[1].length,
					      DMA_FROM_DEVICE);
}

/*
 * Post a shared receive buffer to its SRQ.  The SRQ outlives every queue
 * that uses it, and a buffer is only ever posted by the one command that
 * holds it, whose queue holds a reference: no posting guard.
 */
int prl_srq_post(struct prl_srq *srq, struct prl_rdma_cmd *cmd)
{
	int ret;

	prl_sync_recv(srq->dev->ib, cmd);
	ret = ib_post_srq_recv(srq->srq, &cmd->wr, NULL);
	if (ret)
		pr_err_ratelimited("%s: posting a shared receive failed: %d\n",
				   dev_name(&srq->dev->ib->dev), ret);
	return ret;
}

/*
 * A shared buffer a receive completion took goes back to its SRQ.
 * purlin_live.srq_held counts the buffers taken and not back: one that
 * cannot be posted again stays counted (the SRQ is one short for good).
 */
static int prl_srq_give_back(struct prl_rdma_cmd *cmd)
{
	int ret = prl_srq_post(cmd->srq, cmd);

	if (!ret)
		atomic_dec(&purlin_live.srq_held);
	return ret;
}

/*
 * A receive buffer whose capsule is not run (its queue is going, or the
 * capsule was refused): a shared one goes back to its SRQ at once; a
 * queue's own stays unposted, its queue is being torn down.
 */
void prl_cmd_drop(struct prl_rdma_cmd *cmd)
{
	if (cmd->srq)
		prl_srq_give_back(cmd);
}

/*
 * Does the caller defer its posts?  A polled queue's thread, in a pass: it
 * posts what the pass deferred at its end, one receive chain and one send
 * chain per queue (prl_post_deferred()).
 */
static bool prl_batching(struct prl_rdma_queue *queue)
{
	struct purlin_poll_ctx *ctx = queue->poll_ctx;

	return ctx && ctx->task == current && in_task() && ctx->in_pass;
}

/* Post a chain of receives; -ESHUTDOWN if the queue is going. */
static int prl_post_recvs(struct prl_rdma_queue *queue,
			  struct ib_recv_wr *first)
{
	int ret;

	if (!prl_post_begin(queue))
		return -ESHUTDOWN;
	ret = ib_post_recv(queue->qp, first, NULL);
	prl_post_end(queue);
	if (unlikely(ret))
		pr_err_ratelimited("queue %u: posting receive(s) failed: %d\n",
				   queue->host_qid, ret);
	return ret;
}

int prl_post_recv(struct prl_rdma_queue *queue,
		  struct prl_rdma_cmd *cmd)
{
	if (cmd->srq)
		return prl_srq_give_back(cmd);
	prl_sync_recv(queue->dev->ib, cmd);
	cmd->wr.next = NULL;
	if (prl_batching(queue)) {
		if (queue->batch_recv_last)
			queue->batch_recv_last->next = &cmd->wr;
		else
			queue->batch_recv = &cmd->wr;
		queue->batch_recv_last = &cmd->wr;
		return 0;
	}
	return prl_post_recvs(queue, &cmd->wr);
}

void prl_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct prl_rdma_cmd *cmd = container_of(wc->wr_cqe,
						struct prl_rdma_cmd, cqe);
	struct prl_rdma_queue *queue;
	struct ib_device *ib;
	unsigned long flags;

	/* A shared buffer serves whichever queue's QP took it. */
	if (cmd->srq) {
		atomic_inc(&purlin_live.srq_held);
		cmd->queue = wc->qp->qp_context;
	}
	queue = cmd->queue;
	ib = queue->dev->ib;
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		prl_wc_error(queue, wc, "receive");
		prl_cmd_drop(cmd);
		return;
	}
	if (unlikely(wc->byte_len < sizeof(struct nvme_command))) {
		pr_err_ratelimited("queue %u: capsule of %u bytes, shorter than a command; disconnecting\n",
				   queue->host_qid, wc->byte_len);
		prl_queue_disconnect(queue);
		prl_cmd_drop(cmd);
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

	/*
	 * Live is final until the disconnect, which prl_handle_command()
	 * checks under the lock: no lock to see it.  The acquire pairs with
	 * prl_queue_established()'s release, after the early capsules ran.
	 */
	if (likely(smp_load_acquire(&queue->state) == PRL_Q_LIVE)) {
		prl_handle_command(queue, cmd);
		return;
	}
	spin_lock_irqsave(&queue->state_lock, flags);
	switch (queue->state) {
	case PRL_Q_LIVE:
		spin_unlock_irqrestore(&queue->state_lock, flags);
		prl_handle_command(queue, cmd);
		return;
	case PRL_Q_CONNECTING:
		/*
		 * The capsule beat ESTABLISHED here: run it once live.  No
		 * more than the queue's size, which a receive queue of its
		 * own would hold; on an SRQ, whose buffers would not stop a
		 * host, and until its Connect has made a controller, no more
		 * than a host sends before its Connect is answered (the
		 * Connect itself).  (An in-capsule Connect runs before the
		 * queue is live, and the host may start I/O at once.)
		 */
		if (queue->nr_pending_cmds <
		    (queue->srq && !READ_ONCE(queue->sq.ctrl) ?
		     PRL_MAX_EARLY_SRQ : queue->recv_queue_size)) {
			queue->nr_pending_cmds++;
			list_add_tail(&cmd->entry, &queue->pending_cmds);
			spin_unlock_irqrestore(&queue->state_lock, flags);
			return;
		}
		pr_err_ratelimited("queue %u: more capsules than its size before it was established; disconnecting\n",
				   queue->host_qid);
		__prl_queue_disconnect(queue);
		break;
	default:
		break;
	}
	spin_unlock_irqrestore(&queue->state_lock, flags);
	prl_cmd_drop(cmd);
}

/* ---- command: parse and map -------------------------------------------- */

/* A new capsule, in process context (CQ work or the CM handler). */
void prl_handle_command(struct prl_rdma_queue *queue,
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
		prl_cmd_drop(cmd);
		return;
	}
	rsp->cmd = cmd;
	rsp->req.cmd = cmd->nvme_cmd;
	if (cmd->srq) {
		rsp->cmd_copy = *cmd->nvme_cmd;
		rsp->req.cmd = &rsp->cmd_copy;
	}
	rsp->n_rdma = 0;
	rsp->keyed = false;
	rsp->invalidate = false;
	rsp->write_data = false;
	rsp->read_posted = false;
	rsp->pool_nents = 0;
	rsp->own_buf = false;
	/* For its clock until prl_execute() says where it runs. */
	rsp->req.poll = queue->poll_ctx;

	if (!purlin_req_init(&rsp->req, &queue->sq, &prl_rdma_ops))
		return;
	status = prl_map_sgl(rsp);
	if (status) {
		purlin_req_complete(&rsp->req, status);
		return;
	}
	/*
	 * A shared buffer whose data the command does not use goes back now:
	 * a command that waits (for data chunks, a limit, the back end) must
	 * not keep buffers every queue of the device lives on.
	 */
	if (cmd->srq && !rsp->req.sg) {
		rsp->cmd = NULL;
		prl_srq_give_back(cmd);
	}
	if (!purlin_check_data_len(&rsp->req))
		return;

	/*
	 * The common case without the lock: nobody starting a command and
	 * nothing waiting.  The bit first: its acquire sees a waiter the
	 * wait work put back before it released the bit.
	 */
	if (likely(!test_and_set_bit_lock(PRL_EXEC_BUSY, &queue->exec_busy))) {
		if (likely(list_empty_careful(&queue->exec_waits)))
			goto start;
		clear_bit_unlock(PRL_EXEC_BUSY, &queue->exec_busy);
	}
	spin_lock_irqsave(&queue->state_lock, flags);
	if (queue->state == PRL_Q_DISCONNECTING)
		goto abort;
	if (test_bit(PRL_EXEC_BUSY, &queue->exec_busy) ||
	    !list_empty(&queue->exec_waits)) {
		/* Behind whatever waits: commands start in order. */
		list_add_tail(&rsp->entry, &queue->exec_waits);
		prl_kick(queue);
		spin_unlock_irqrestore(&queue->state_lock, flags);
		return;
	}
	/* Others take the bit under the lock only: it is ours. */
	set_bit(PRL_EXEC_BUSY, &queue->exec_busy);
	spin_unlock_irqrestore(&queue->state_lock, flags);
start:
	/* (A disconnect may come during the start too: it copes.) */
	if (unlikely(READ_ONCE(queue->state) == PRL_Q_DISCONNECTING))
		started = false;
	else
		started = prl_start(rsp);
	if (likely(started)) {
		clear_bit_unlock(PRL_EXEC_BUSY, &queue->exec_busy);
		/* Against the wait work, which left the list to the bit's holder. */
		smp_mb__after_atomic();
		if (unlikely(!list_empty_careful(&queue->exec_waits)))
			prl_kick(queue);
		return;
	}
	spin_lock_irqsave(&queue->state_lock, flags);
	if (queue->state == PRL_Q_DISCONNECTING) {
		clear_bit_unlock(PRL_EXEC_BUSY, &queue->exec_busy);
		goto abort;
	}
	/* Kicked: what it lacked may have come back already. */
	list_add_tail(&rsp->entry, &queue->exec_waits);
	clear_bit_unlock(PRL_EXEC_BUSY, &queue->exec_busy);
	prl_kick(queue);
	spin_unlock_irqrestore(&queue->state_lock, flags);
	return;
abort:
	spin_unlock_irqrestore(&queue->state_lock, flags);
	purlin_req_complete(&rsp->req, NVME_SC_ABORT_QUEUE);
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
			return NVME_SC_SGL_INVALID_TYPE | PURLIN_DNR;
		return prl_map_inline(rsp, sgl);
	default:
		return NVME_SC_SGL_INVALID_TYPE | PURLIN_DNR;
	}
}

static u16 prl_map_keyed(struct prl_rdma_rsp *rsp,
			 struct nvme_keyed_sgl_desc *sgl, bool invalidate)
{
	struct purlin_req *req = &rsp->req;
	u32 len = get_unaligned_le24(sgl->length);

	if (len > PURLIN_MAX_XFER)
		return NVME_SC_SGL_INVALID_DATA | PURLIN_DNR;
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
		return NVME_SC_INVALID_FIELD | PURLIN_DNR;
	/* Offset and length are checked on their own: no sum can wrap. */
	if (off > size || off > received)
		return NVME_SC_SGL_INVALID_OFFSET | PURLIN_DNR;
	if (len > size - off || len > received - off)
		return NVME_SC_SGL_INVALID_DATA | PURLIN_DNR;
	req->transfer_len = len;
	if (!len)
		return 0;
	sg_init_table(&cmd->inline_sg, 1);
	sg_set_page(&cmd->inline_sg, cmd->inline_page, len, off);
	req->sg = &cmd->inline_sg;
	req->sg_cnt = 1;
	return 0;
}

/* ---- data buffer, fetch, execute --------------------------------------- */

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
 * The data buffer of a keyed transfer: a Connect's is the queue's own page
 * (there is no controller to charge yet), anything else takes chunks from
 * the pool.  1: got it; 0: short of chunks, retry when the pool calls;
 * -1: the request was completed with an error.
 */
static int prl_get_data_buf(struct prl_rdma_rsp *rsp)
{
	struct prl_rdma_queue *queue = rsp->queue;
	struct purlin_req *req = &rsp->req;
	/* What the command moves: never more than its SGL describes. */
	u32 len = req->data_len;
	int ret;

	if (!queue->sq.ctrl) {
		/* Only a Connect runs before there is a controller. */
		if (WARN_ON_ONCE(len > PAGE_SIZE)) {
			purlin_req_complete(req, NVME_SC_INTERNAL);
			return -1;
		}
		sg_init_table(rsp->sgl, 1);
		sg_set_page(rsp->sgl, queue->connect_page, len, 0);
		rsp->own_buf = true;
		req->sg = rsp->sgl;
		req->sg_cnt = 1;
		return 1;
	}
	prl_pick_accts(rsp);
	ret = purlin_bufpool_get(rsp->sgl, len, &queue->buf_waiter, rsp->accts,
				 rsp->nr_accts, &queue->buf_stash);
	if (ret == -EAGAIN)
		return 0;
	if (ret < 0) {
		purlin_req_complete(req, NVME_SC_INTERNAL);
		return -1;
	}
	rsp->pool_nents = ret;
	req->sg = rsp->sgl;
	req->sg_cnt = ret;
	return 1;
}

/*
 * Map the data buffer for the host's keyed SGL (an rdma_rw context:
 * process context only, it allocates).  False if the request was
 * completed with an error.
 */
static bool prl_map_data(struct prl_rdma_rsp *rsp)
{
	struct prl_rdma_queue *queue = rsp->queue;
	struct purlin_req *req = &rsp->req;
	int ret;

	ret = rdma_rw_ctx_init(&rsp->rw, queue->qp, queue->port_num, req->sg,
			       req->sg_cnt, 0, rsp->remote_addr, rsp->rkey,
			       req->to_host ? DMA_TO_DEVICE : DMA_FROM_DEVICE);
	if (ret < 0 || ret + 1 > queue->sq_wr_total) {
		if (ret > 0)
			rsp->n_rdma = ret;
		pr_err_ratelimited("queue %u: cannot map %u bytes of data: %d\n",
				   queue->host_qid, req->data_len, ret);
		purlin_req_complete(req, NVME_SC_DATA_XFER_ERROR);
		return false;
	}
	rsp->n_rdma = ret;
	return true;
}

/*
 * Fetch host-to-controller data: post the RDMA READs; prl_read_done()
 * executes.  False, with nothing lost, when short of send credits.
 */
static bool prl_fetch(struct prl_rdma_rsp *rsp)
{
	struct prl_rdma_queue *queue = rsp->queue;
	bool bh;
	int ret;

	if (!prl_take_credits(queue, rsp->n_rdma))
		return false;
	bh = prl_send_bh_off(queue);
	if (unlikely(!prl_post_begin(queue))) {
		prl_send_bh_on(bh);
		atomic_add(rsp->n_rdma, &queue->sq_wr_avail);
		purlin_req_complete(&rsp->req, NVME_SC_ABORT_QUEUE);
		return true;
	}
	ret = rdma_rw_ctx_post(&rsp->rw, queue->qp, queue->port_num,
			       &rsp->read_cqe, NULL);
	if (unlikely(ret)) {
		rsp->read_posted = true;
		prl_post_failed(rsp, "an RDMA READ", ret);
	}
	prl_post_end(queue);
	prl_send_bh_on(bh);
	return true;
}

/* A polled queue's command that may block, off its polling thread. */
void prl_execute_work(struct work_struct *work)
{
	purlin_req_execute(&container_of(work, struct prl_rdma_rsp,
					 exec_work)->req);
}

/*
 * Execute: the back end runs the command.  In a polled queue's thread,
 * reads and writes run there (the block back end may poll their bios,
 * req->poll, io-bdev.c); anything else may block (Connect's locks, Flush,
 * Write Zeroes, Deallocate), and a blocked thread would stall every queue
 * it polls and the polled bios only it reaps: a worker runs those.
 */
static void prl_execute(struct prl_rdma_rsp *rsp)
{
	struct purlin_poll_ctx *ctx = rsp->queue->poll_ctx;
	struct purlin_req *req = &rsp->req;
	u8 op = req->cmd->common.opcode;

	req->poll = NULL;
	if (ctx && ctx->task == current) {
		if (op != nvme_cmd_read && op != nvme_cmd_write) {
			queue_work(purlin_io_wq, &rsp->exec_work);
			return;
		}
		req->poll = ctx;
	}
	purlin_req_execute(req);
}

/*
 * Start a command whose SGL is mapped: data buffer, rdma_rw context, then
 * fetch its data from the host or (no data, in-capsule data, or data for
 * the host) execute it now.  Each step is done once: a retry after a
 * wait resumes where it stopped.  Returns false, with nothing lost, when a
 * chunk or send credit is missing; the caller parks the request.
 */
static bool prl_start(struct prl_rdma_rsp *rsp)
{
	struct purlin_req *req = &rsp->req;
	int got;

	if (rsp->keyed && req->data_len) {
		if (!rsp->pool_nents && !rsp->own_buf) {
			got = prl_get_data_buf(rsp);
			if (got <= 0)
				return got < 0;
		}
		if (!rsp->n_rdma && !prl_map_data(rsp))
			return true;
		if (!req->to_host)
			return prl_fetch(rsp);
	}
	prl_execute(rsp);
	return true;
}

void prl_read_done(struct ib_cq *cq, struct ib_wc *wc)
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
	prl_execute(rsp);
}

/* ---- response and send ------------------------------------------------- */

void prl_queue_response(struct purlin_req *req)
{
	struct prl_rdma_rsp *rsp = container_of(req, struct prl_rdma_rsp, req);
	struct prl_rdma_queue *queue = rsp->queue;
	struct prl_rdma_cmd *cmd;

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
	cmd = rsp->cmd;
	rsp->cmd = NULL;
	/* (A shared buffer may have gone back when the command was parsed.) */
	if (cmd && unlikely(prl_post_recv(queue, cmd))) {
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
	/* Its receive goes out before it does, whoever posts it. */
	if (prl_batching(queue) && queue->batch_recv)
		prl_post_deferred_recvs(queue);
	if (!prl_park(rsp, &queue->send_waits))
		prl_release_rsp(rsp);
}

/* The receives the polling thread deferred (prl_post_recv()). */
static void prl_post_deferred_recvs(struct prl_rdma_queue *queue)
{
	struct ib_recv_wr *first = queue->batch_recv;
	int ret;

	queue->batch_recv = NULL;
	queue->batch_recv_last = NULL;
	/* Going (-ESHUTDOWN): its own receive buffers go with it. */
	ret = prl_post_recvs(queue, first);
	if (unlikely(ret && ret != -ESHUTDOWN))
		prl_queue_disconnect(queue);
}

/*
 * Post what the polling thread deferred in its pass: the receives, then
 * the responses behind them (each response's RDMA WRITEs and SEND, one
 * response after the other), one call each.  The thread only.  Returns
 * the number of responses.
 */
unsigned int prl_post_deferred(struct prl_rdma_queue *queue)
{
	struct prl_rdma_rsp *rsp = queue->batch_rsp, *next;
	const struct ib_send_wr *bad = queue->batch_send;
	unsigned int n = queue->batch_n;
	struct ib_send_wr *wr;
	bool bh;
	int ret;

	if (queue->batch_recv)
		prl_post_deferred_recvs(queue);
	if (!rsp)
		return 0;
	queue->batch_rsp = NULL;
	queue->batch_rsp_last = NULL;
	queue->batch_n = 0;
	bh = prl_send_bh_off(queue);
	if (unlikely(!prl_post_begin(queue))) {
		prl_send_bh_on(bh);
		for (; rsp; rsp = next) {
			next = rsp->batch_next;
			prl_abandon_rsp(rsp);
		}
		return 0;
	}
	ret = ib_post_send(queue->qp, queue->batch_send, &bad);
	if (unlikely(ret)) {
		/*
		 * The responses whose SEND went out before the one that
		 * failed complete as usual (their completions, by this
		 * thread, release them); the rest wait for the drain.
		 */
		for (wr = queue->batch_send; rsp && wr && wr != bad;
		     wr = wr->next)
			if (wr == &rsp->send_wr)
				rsp = rsp->batch_next;
		for (; rsp; rsp = next) {
			next = rsp->batch_next;
			prl_post_failed(rsp, "responses", ret);
		}
	}
	prl_post_end(queue);
	prl_send_bh_on(bh);
	return n;
}

/* Post the response, behind the RDMA WRITEs of read data.  Any context. */
static bool prl_post_response(struct prl_rdma_rsp *rsp)
{
	struct prl_rdma_queue *queue = rsp->queue;
	struct ib_send_wr *first = &rsp->send_wr;
	struct ib_device *ib = queue->dev->ib;
	bool bh;
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
	rsp->send_wr.next = NULL;
	if (prl_batching(queue)) {
		/* Behind the pass's other responses: prl_post_deferred(). */
		rsp->batch_next = NULL;
		if (queue->batch_rsp_last) {
			queue->batch_rsp_last->send_wr.next = first;
			queue->batch_rsp_last->batch_next = rsp;
		} else {
			queue->batch_send = first;
			queue->batch_rsp = rsp;
		}
		queue->batch_rsp_last = rsp;
		queue->batch_n++;
		return true;
	}
	bh = prl_send_bh_off(queue);
	if (unlikely(!prl_post_begin(queue))) {
		prl_send_bh_on(bh);
		prl_abandon_rsp(rsp);
		return true;
	}
	ret = ib_post_send(queue->qp, first, NULL);
	if (unlikely(ret))
		prl_post_failed(rsp, "a response", ret);
	prl_post_end(queue);
	prl_send_bh_on(bh);
	return true;
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

/* A response that took its credits and will not be posted (queue going). */
static void prl_abandon_rsp(struct prl_rdma_rsp *rsp)
{
	atomic_add(prl_send_credits(rsp), &rsp->queue->sq_wr_avail);
	prl_release_rsp(rsp);
}

void prl_send_done(struct ib_cq *cq, struct ib_wc *wc)
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

/* ---- waiting for chunks and send credits ------------------------------- */

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
	bool done, dying;

	/*
	 * Busy: the command handler is starting one, and kicks again when
	 * it is done if the list is not empty.
	 */
	spin_lock_irqsave(&queue->state_lock, flags);
	if (queue->state == PRL_Q_DISCONNECTING || list_empty(list) ||
	    (!send && test_and_set_bit_lock(PRL_EXEC_BUSY, &queue->exec_busy))) {
		spin_unlock_irqrestore(&queue->state_lock, flags);
		return false;
	}
	rsp = list_first_entry(list, struct prl_rdma_rsp, entry);
	list_del_init(&rsp->entry);
	spin_unlock_irqrestore(&queue->state_lock, flags);

	done = send ? prl_post_response(rsp) : prl_start(rsp);

	spin_lock_irqsave(&queue->state_lock, flags);
	dying = queue->state == PRL_Q_DISCONNECTING;
	/* Back at the head, before the bit goes (see prl_handle_command()). */
	if (!done && !dying)
		list_add(&rsp->entry, list);
	if (!send)
		clear_bit_unlock(PRL_EXEC_BUSY, &queue->exec_busy);
	spin_unlock_irqrestore(&queue->state_lock, flags);
	if (done)
		return true;
	if (dying) {
		if (send)
			prl_release_rsp(rsp);
		else
			purlin_req_complete(&rsp->req, NVME_SC_ABORT_QUEUE);
		return false;
	}
	return prl_can_retry(rsp, send);
}

/* The only consumer of the wait lists; send waiters always go first. */
void prl_wait_work(struct work_struct *work)
{
	struct prl_rdma_queue *queue = container_of(work, struct prl_rdma_queue,
						    buf_waiter.work);

	while (prl_run_waiter(queue, &queue->send_waits, true) ||
	       prl_run_waiter(queue, &queue->exec_waits, false))
		;
}

/* ---- response contexts ------------------------------------------------- */

/* The command handler only (one context at a time, see rdma.h). */
static struct prl_rdma_rsp *prl_get_rsp(struct prl_rdma_queue *queue)
{
	struct llist_node *node = llist_del_first(&queue->free_rsps);

	if (!node)
		return NULL;
	atomic_dec(&queue->nr_free);
	atomic_inc(&purlin_live.reqs);
	return llist_entry(node, struct prl_rdma_rsp, free_node);
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
void prl_release_rsp(struct prl_rdma_rsp *rsp)
{
	struct prl_rdma_queue *queue = rsp->queue;

	prl_rw_destroy(rsp);
	rsp->own_buf = false;
	/* Not posted again yet (the queue is going): a shared one must be. */
	if (rsp->cmd) {
		prl_cmd_drop(rsp->cmd);
		rsp->cmd = NULL;
	}
	if (rsp->pool_nents) {
		purlin_bufpool_put(rsp->sgl, rsp->pool_nents, rsp->accts,
				   rsp->nr_accts, &queue->buf_stash);
		/* The put wakes whoever waits on these chunks' accounts. */
		rsp->pool_nents = 0;
	}

	atomic_dec(&purlin_live.reqs);
	purlin_req_free(&rsp->req);
	/*
	 * The teardown may free the queue as soon as the count is whole:
	 * RCU keeps it for the wake (kfree_rcu()); the rsp is not touched
	 * after it is back on the list.
	 */
	rcu_read_lock();
	llist_add(&rsp->free_node, &queue->free_rsps);
	if (atomic_inc_return(&queue->nr_free) == queue->nr_rsps &&
	    /* ordered after the count by the fully ordered increment */
	    waitqueue_active(&queue->idle_wq))
		wake_up(&queue->idle_wq);
	rcu_read_unlock();
}

/* ---- queue state and posting ------------------------------------------- */

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
