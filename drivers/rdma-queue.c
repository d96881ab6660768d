// SPDX-License-Identifier: GPL-2.0
/*
 * An NVMe/RDMA queue's life: the host's CM request is checked and
 * accepted on a QP of our own (prl_connect_request()), capsules that beat
 * ESTABLISHED are held until it (prl_queue_established()), a queue
 * without a Fabrics Connect by the port's deadline goes
 * (prl_connect_timeout()), and every way out ends in one release work
 * (prl_release_work()) that drains the QP, aborts what waits, lets the
 * core destroy the submission queue and frees everything.  Unauthenticated
 * queues are bounded per port and per peer address (prl_pending_add()).
 */
#define pr_fmt(fmt) "purlin: rdma: " fmt

#include <linux/inet.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <net/ipv6.h>
#include <rdma/ib_cm.h>

#include "rdma.h"

static atomic_t prl_next_vector = ATOMIC_INIT(0);

static void prl_pending_del(struct prl_rdma_queue *queue);
static void prl_release_work(struct work_struct *w);

/* ---- receive and response buffers -------------------------------------- */

static void prl_free_cmds(struct prl_rdma_device *dev, struct prl_cmds *rx)
{
	struct ib_device *ib = dev->ib;
	u32 i;

	if (!rx->cmds)
		return;
	for (i = 0; i < rx->nr; i++) {
		struct prl_rdma_cmd *cmd = &rx->cmds[i];

		if (!cmd->inline_page)
			continue;
		ib_dma_unmap_page(ib, cmd->sge[1].addr, cmd->sge[1].length,
				  DMA_FROM_DEVICE);
		__free_pages(cmd->inline_page, rx->inline_order);
	}
	if (rx->bufs) {
		ib_dma_unmap_single(ib, rx->bufs_dma,
				    rx->nr * sizeof(struct nvme_command),
				    DMA_FROM_DEVICE);
		kfree(rx->bufs);
	}
	kvfree(rx->cmds);
	rx->cmds = NULL;
	rx->bufs = NULL;
}

/*
 * nr receive buffers of inline bytes of in-capsule data each, for queue
 * (its own) or srq (shared: exactly one of the two is set).
 */
static int prl_alloc_cmds(struct prl_rdma_device *dev, struct prl_cmds *rx,
			  u32 nr, u32 inline_size,
			  struct prl_rdma_queue *queue, struct prl_srq *srq)
{
	struct ib_device *ib = dev->ib;
	size_t bytes = nr * sizeof(struct nvme_command);
	u32 lkey = dev->pd->local_dma_lkey;
	u32 i;

	rx->nr = nr;
	rx->inline_data_size = inline_size;
	rx->inline_order = get_order(inline_size);
	rx->cmds = kvcalloc(nr, sizeof(*rx->cmds), GFP_KERNEL);
	if (!rx->cmds)
		return -ENOMEM;
	rx->bufs = kzalloc(bytes, GFP_KERNEL);
	if (!rx->bufs)
		goto fail;
	rx->bufs_dma = ib_dma_map_single(ib, rx->bufs, bytes, DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ib, rx->bufs_dma)) {
		kfree(rx->bufs);
		rx->bufs = NULL;
		goto fail;
	}
	for (i = 0; i < nr; i++) {
		struct prl_rdma_cmd *cmd = &rx->cmds[i];

		cmd->queue = queue;
		cmd->srq = srq;
		cmd->nvme_cmd = &rx->bufs[i];
		cmd->sge[0].addr = rx->bufs_dma +
				   i * sizeof(struct nvme_command);
		cmd->sge[0].length = sizeof(struct nvme_command);
		cmd->sge[0].lkey = lkey;
		cmd->cqe.done = prl_recv_done;
		cmd->wr.wr_cqe = &cmd->cqe;
		cmd->wr.sg_list = cmd->sge;
		cmd->wr.num_sge = 1;
		INIT_LIST_HEAD(&cmd->entry);
		if (!inline_size)
			continue;
		/* Compound, as the pool's chunks (bufpool.c). */
		cmd->inline_page = alloc_pages(GFP_KERNEL | __GFP_COMP,
					       rx->inline_order);
		if (!cmd->inline_page)
			goto fail;
		cmd->sge[1].addr = ib_dma_map_page(ib, cmd->inline_page, 0,
						   inline_size,
						   DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(ib, cmd->sge[1].addr)) {
			__free_pages(cmd->inline_page, rx->inline_order);
			cmd->inline_page = NULL;
			goto fail;
		}
		cmd->sge[1].length = inline_size;
		cmd->sge[1].lkey = lkey;
		cmd->wr.num_sge = 2;
	}
	return 0;
fail:
	prl_free_cmds(dev, rx);
	return -ENOMEM;
}

/* ---- shared receive queues ---------------------------------------------- */

static void prl_srq_event(struct ib_event *event, void *ctx)
{
	struct prl_srq *srq = ctx;

	pr_err_ratelimited("%s: SRQ event %s (%d)\n",
			   dev_name(&srq->dev->ib->dev),
			   ib_event_msg(event->event), event->event);
}

/*
 * Free an SRQ whose last queue is gone: every queue that used it has
 * destroyed its QP, so no receive completes into it any more; what is
 * still posted goes with it.  Called with dev->srq_lock held (kref_put_mutex).
 */
static void prl_srq_release(struct kref *ref)
{
	struct prl_srq *srq = container_of(ref, struct prl_srq, ref);
	struct prl_rdma_device *dev = srq->dev;

	lockdep_assert_held(&dev->srq_lock);
	list_del(&srq->entry);
	mutex_unlock(&dev->srq_lock);
	ib_destroy_srq(srq->srq);
	prl_free_cmds(dev, &srq->rx);
	kfree(srq);
	atomic_dec(&purlin_live.srqs);
	prl_device_put(dev);
}

static void prl_srq_put(struct prl_srq *srq)
{
	kref_put_mutex(&srq->ref, prl_srq_release, &srq->dev->srq_lock);
}

/*
 * The device's SRQ of size receive buffers of inline bytes each, shared
 * (a reference), created on first use.  NULL with *err set when it cannot
 * be had; -EOPNOTSUPP: the device has no SRQs (the caller uses a receive
 * queue of its own).
 */
static struct prl_srq *prl_srq_get(struct prl_rdma_device *dev, u32 size,
				   u32 inline_size, int *err)
{
	struct ib_device *ib = dev->ib;
	struct ib_srq_init_attr attr = {};
	struct prl_srq *srq;
	u32 i;

	if (!ib->attrs.max_srq ||
	    ib->attrs.max_srq_sge < (inline_size ? 2 : 1)) {
		*err = -EOPNOTSUPP;
		return NULL;
	}
	size = min_t(u32, size, ib->attrs.max_srq_wr);
	mutex_lock(&dev->srq_lock);
	list_for_each_entry(srq, &dev->srqs, entry) {
		if (srq->rx.nr == size &&
		    srq->rx.inline_data_size == inline_size) {
			kref_get(&srq->ref);
			goto out;
		}
	}
	*err = -ENOMEM;
	srq = kzalloc(sizeof(*srq), GFP_KERNEL);
	if (!srq)
		goto out;
	srq->dev = dev;
	kref_init(&srq->ref);
	if (prl_alloc_cmds(dev, &srq->rx, size, inline_size, NULL, srq))
		goto free_srq;
	attr.event_handler = prl_srq_event;
	attr.srq_context = srq;
	attr.srq_type = IB_SRQT_BASIC;
	attr.attr.max_wr = size;
	attr.attr.max_sge = inline_size ? 2 : 1;
	srq->srq = ib_create_srq(dev->pd, &attr);
	if (IS_ERR(srq->srq)) {
		*err = PTR_ERR(srq->srq);
		pr_err_ratelimited("%s: creating an SRQ of %u failed: %d\n",
				   dev_name(&ib->dev), size, *err);
		goto free_cmds;
	}
	for (i = 0; i < size; i++) {
		*err = prl_srq_post(srq, &srq->rx.cmds[i]);
		if (*err)
			goto destroy;
	}
	kref_get(&dev->ref);
	atomic_inc(&purlin_live.srqs);
	list_add_tail(&srq->entry, &dev->srqs);
	goto out;

destroy:
	ib_destroy_srq(srq->srq);
free_cmds:
	prl_free_cmds(dev, &srq->rx);
free_srq:
	kfree(srq);
	srq = NULL;
out:
	mutex_unlock(&dev->srq_lock);
	return srq;
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
	vfree(queue->rsps);
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
	/*
	 * vmalloc, not kvcalloc(): the array (1.5 KiB a context, 256 for a
	 * queue of 128) would come whole from the page allocator, rounded
	 * up to a power of two: a quarter more than it needs, per queue.
	 * Nothing of a context is DMA-mapped.
	 */
	queue->rsps = vzalloc(array_size(queue->nr_rsps, sizeof(*queue->rsps)));
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
		INIT_WORK(&rsp->exec_work, prl_execute_work);
		INIT_LIST_HEAD(&rsp->entry);
		llist_add(&rsp->free_node, &queue->free_rsps);
	}
	atomic_set(&queue->nr_free, queue->nr_rsps);
	return 0;
fail:
	kfree(queue->cqe_bufs);
	queue->cqe_bufs = NULL;
	vfree(queue->rsps);
	queue->rsps = NULL;
	return -ENOMEM;
}

/* ---- queue pair -------------------------------------------------------- */

static void prl_qp_event(struct ib_event *event, void *ctx)
{
	struct prl_rdma_queue *queue = ctx;

	switch (event->event) {
	case IB_EVENT_COMM_EST:
		rdma_notify(queue->cm_id, event->event);
		break;
	case IB_EVENT_QP_LAST_WQE_REACHED:
		/* The QP takes no more of the SRQ's buffers: prl_drain_qp(). */
		WRITE_ONCE(queue->dev->last_wqe, PRL_LAST_WQE_YES);
		complete(&queue->last_wqe);
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
			/*
			 * On an SRQ a host may find no receive posted for a
			 * while: let it retry after 0.64 ms, not the CM's
			 * 655 ms.
			 */
			if (queue->srq) {
				attr.min_rnr_timer = IB_RNR_TIMER_000_64;
				mask |= IB_QP_MIN_RNR_TIMER;
			}
			if (queue->tos >= 0 &&
			    (rdma_ah_get_ah_flags(&attr.ah_attr) & IB_AH_GRH))
				rdma_ah_retrieve_grh(&attr.ah_attr)->traffic_class =
					queue->tos;
		} else if (steps[i] == IB_QPS_RTS) {
			attr.max_rd_atomic = accept->initiator_depth;
			/* Never the host's "forever" (7) or 0 (no timeout). */
			if (!(mask & IB_QP_RNR_RETRY) || attr.rnr_retry > prl_rnr_retry)
				attr.rnr_retry = prl_rnr_retry;
			if (!(mask & IB_QP_RETRY_CNT) || attr.retry_cnt > prl_retry_cnt)
				attr.retry_cnt = prl_retry_cnt;
			if (!attr.timeout || attr.timeout > prl_ack_timeout)
				attr.timeout = prl_ack_timeout;
			mask |= IB_QP_RNR_RETRY | IB_QP_RETRY_CNT |
				IB_QP_TIMEOUT;
		}
		ret = ib_modify_qp(queue->qp, &attr, mask);
		if (ret)
			return ret;
	}
	return 0;
}

static void prl_destroy_cq(struct prl_rdma_queue *queue)
{
	if (queue->poller) {
		prl_poll_detach(queue);
	} else if (queue->cq) {
		ib_cq_pool_put(queue->cq, queue->nr_cqe);
		queue->cq = NULL;
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
	 * context at most one RDMA READ and one SEND, plus the drain WRs.
	 * Receives from an SRQ: as many as it holds, whatever the host
	 * promised (a host past its queue size must not overflow a CQ that
	 * other queues share).
	 */
	queue->nr_cqe = (queue->srq ? queue->srq->rx.nr :
			 queue->recv_queue_size) + 2 * queue->nr_rsps + 2;
	if (queue->host_qid &&
	    queue->rport->port->cq_mode == PURLIN_CQ_POLL) {
		queue->poll_ns = (u64)queue->rport->port->poll_usecs *
				 NSEC_PER_USEC;
		ret = prl_poll_attach(queue);
		if (ret) {
			pr_err_ratelimited("queue %u: no polled CQ: %d\n",
					   queue->host_qid, ret);
			return ret;
		}
	} else {
		queue->cq = ib_cq_pool_get(ib, queue->nr_cqe, vector,
					   IB_POLL_WORKQUEUE);
		if (IS_ERR(queue->cq)) {
			ret = PTR_ERR(queue->cq);
			queue->cq = NULL;
			return ret;
		}
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
						  PURLIN_MAX_CHUNKS));
	if (queue->srq) {
		attr.srq = queue->srq->srq;
	} else {
		attr.cap.max_recv_wr = queue->recv_queue_size + 1;
		attr.cap.max_recv_sge = queue->inline_data_size ? 2 : 1;
	}

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
		prl_destroy_cq(queue);
		return ret;
	}
	queue->sq_wr_total = attr.cap.max_send_wr - 1;
	atomic_set(&queue->sq_wr_avail, queue->sq_wr_total);
	return 0;
}

/*
 * Flush every work request of the QP and wait until each completion it
 * will ever have has been handled (the CQ's own context handles them).  A
 * QP on an SRQ: newer kernels' ib_drain_qp() would poll our CQ from this
 * context while the CQ's context polls it too.  Instead, the order the
 * InfiniBand specification gives: the error state and a drained send
 * queue, the Last WQE Reached event, then a second drained send queue,
 * whose marker completes behind any receive the QP completed before the
 * event (send and receive share the CQ).  Not every device raises the
 * event (soft-RoCE does not): the first wait on a device that times out
 * (a second) says so, and its queues then drain with the two markers
 * alone.
 */
static void prl_drain_qp(struct prl_rdma_queue *queue)
{
	struct prl_rdma_device *dev = queue->dev;
	int was;

	if (!queue->srq) {
		ib_drain_qp(queue->qp);
		return;
	}
	ib_drain_sq(queue->qp);
	if (READ_ONCE(dev->last_wqe) != PRL_LAST_WQE_NO &&
	    !wait_for_completion_timeout(&queue->last_wqe, HZ)) {
		was = cmpxchg(&dev->last_wqe, PRL_LAST_WQE_UNKNOWN,
			      PRL_LAST_WQE_NO);
		if (was == PRL_LAST_WQE_UNKNOWN)
			pr_info("%s raises no Last WQE Reached event: queues on its shared receive queues drain without it\n",
				dev_name(&dev->ib->dev));
		else if (was == PRL_LAST_WQE_YES)
			pr_warn_ratelimited("queue %u: no Last WQE Reached event from %s within 1 s\n",
					    queue->host_qid,
					    dev_name(&dev->ib->dev));
	}
	ib_drain_sq(queue->qp);
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
	prl_destroy_cq(queue);
}

/* ---- unauthenticated queues -------------------------------------------- */

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
 * a discovery controller: anyone may have one, or a host that has not
 * authenticated the queue yet), unless the port or the
 * peer's address is at its limit.  Queues admitted meanwhile
 * (purlin_sq_admitted()) are dropped from the list here.  sq.ctrl is
 * only cleared after the queue left the list.
 *
 * A Linux host connects all its I/O queues at the RDMA CM before it sends
 * any of their Fabrics Connects.  An I/O queue from an address that already
 * has an admitted admin queue on this port is vouched for: those count apart, up to PURLIN_MAX_QID per such admin
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

		if (ctrl && purlin_sq_admitted(&q->sq, ctrl)) {
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
		ok = same_vouched < vouch * PURLIN_MAX_QID;
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
 * Admitted admin queues (purlin_sq_admitted()) from queue's address on its
 * port: what vouches for its I/O queues.
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
		    purlin_sq_admitted(&q->sq, ctrl) && !prl_queue_dying(q) &&
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

/* ---- connection -------------------------------------------------------- */

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
	if (*qid > PURLIN_MAX_QID)
		return NVME_RDMA_CM_INVALID_QID;
	/* Admin queues, discovery's included, hold PURLIN_ADMIN_QUEUE_SIZE. */
	if (*qid == 0)
		max = PURLIN_ADMIN_QUEUE_SIZE;
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
	init_llist_head(&queue->free_rsps);
	init_waitqueue_head(&queue->idle_wq);
	init_completion(&queue->last_wqe);
	spin_lock_init(&queue->state_lock);
	queue->state = PRL_Q_CONNECTING;
	INIT_LIST_HEAD(&queue->pending_cmds);
	INIT_LIST_HEAD(&queue->send_waits);
	INIT_LIST_HEAD(&queue->exec_waits);
	INIT_LIST_HEAD(&queue->zombies);
	purlin_buf_waiter_init(&queue->buf_waiter, prl_wait_work);
	purlin_buf_stash_init(&queue->buf_stash);
	purlin_buf_acct_init(&queue->buf_acct,
			     PURLIN_QUEUE_POOL_SHARE(purlin_bufpool_total(),
						  rqsize));
	INIT_DELAYED_WORK(&queue->connect_timeout, prl_connect_timeout);
	INIT_WORK(&queue->release_work, prl_release_work);
	INIT_LIST_HEAD(&queue->entry);
	INIT_LIST_HEAD(&queue->pending_entry);
	INIT_LIST_HEAD(&queue->poll_entry);
	memcpy(&queue->peer_addr, &cm_id->route.addr.dst_addr,
	       sizeof(queue->peer_addr));
	if (purlin_sq_init(&queue->sq, port, qid, rqsize))
		goto free_queue;
	queue->sq.peer = queue->peer_addr;

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
	/*
	 * iWARP has no receiver-not-ready NAK: a SEND that finds the SRQ
	 * empty ends the connection.  Such queues, and any whose SRQ cannot
	 * be had, get receive buffers of their own.
	 */
	if (qid && port->srq_size && rdma_cap_ib_cm(ib, cm_id->port_num)) {
		queue->srq = prl_srq_get(queue->dev, port->srq_size,
					 queue->inline_data_size, &ret);
		if (!queue->srq)
			pr_info_ratelimited("%s: no shared receive queue (%d): queue %u gets its own\n",
					    dev_name(&ib->dev), ret, qid);
	}
	if (!queue->srq &&
	    prl_alloc_cmds(queue->dev, &queue->rx, queue->recv_queue_size,
			   queue->inline_data_size, queue, NULL))
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
	for (i = 0; i < queue->rx.nr; i++)
		if (prl_post_recv(queue, &queue->rx.cmds[i]))
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
	prl_drain_qp(queue);
destroy_qp:
	prl_destroy_qp(queue);
free_rsps:
	prl_free_rsps(queue);
free_cmds:
	prl_free_cmds(queue->dev, &queue->rx);
	if (queue->srq)
		prl_srq_put(queue->srq);
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
			/* Seen without the lock by prl_recv_done(). */
			smp_store_release(&queue->state, PRL_Q_LIVE);
			break;
		}
		cmd = list_first_entry(&queue->pending_cmds,
				       struct prl_rdma_cmd, entry);
		list_del_init(&cmd->entry);
		queue->nr_pending_cmds--;
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

int prl_cm_handler(struct rdma_cm_id *cm_id,
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

/* ---- teardown ---------------------------------------------------------- */

/* Start tearing the queue down; caller holds state_lock.  Any context. */
void __prl_queue_disconnect(struct prl_rdma_queue *queue)
{
	lockdep_assert_held(&queue->state_lock);
	if (queue->state == PRL_Q_DISCONNECTING)
		return;
	WRITE_ONCE(queue->state, PRL_Q_DISCONNECTING);
	/* Until then prl_connect_request() owns it, and starts the release. */
	if (queue->handed_over)
		queue_work(purlin_wq, &queue->release_work);
}

/* Start tearing the queue down; any context.  The release work finishes. */
void prl_queue_disconnect(struct prl_rdma_queue *queue)
{
	unsigned long flags;

	spin_lock_irqsave(&queue->state_lock, flags);
	__prl_queue_disconnect(queue);
	spin_unlock_irqrestore(&queue->state_lock, flags);
}

/* Finish what is parked or failed; the QP is drained, the work stopped. */
static void prl_abort_waits(struct prl_rdma_queue *queue)
{
	struct prl_rdma_rsp *rsp, *tmp;
	LIST_HEAD(sends);
	LIST_HEAD(execs);
	LIST_HEAD(zombies);
	LIST_HEAD(early);
	struct prl_rdma_cmd *cmd, *ctmp;

	spin_lock_irq(&queue->state_lock);
	list_splice_init(&queue->send_waits, &sends);
	list_splice_init(&queue->exec_waits, &execs);
	list_splice_init(&queue->zombies, &zombies);
	list_splice_init(&queue->pending_cmds, &early);
	queue->nr_pending_cmds = 0;
	spin_unlock_irq(&queue->state_lock);

	/* Capsules never started: an SRQ's buffers go back to it. */
	list_for_each_entry_safe(cmd, ctmp, &early, entry) {
		list_del_init(&cmd->entry);
		prl_cmd_drop(cmd);
	}
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
	prl_drain_qp(queue);
	/* No prl_start() can run now: the cancel is final for the pool. */
	purlin_bufpool_cancel(&queue->buf_waiter);
	prl_abort_waits(queue);
	/*
	 * Before the controller's account can go (the last queue's
	 * purlin_sq_destroy() may free it); commands still out put their
	 * chunks back to the pool.
	 */
	purlin_buf_stash_close(&queue->buf_stash);
	/* Aborts held AERs and waits for every request's purlin_req_free(). */
	purlin_sq_destroy(&queue->sq);
	wait_event(queue->idle_wq,
		   atomic_read(&queue->nr_free) == queue->nr_rsps);
	purlin_bufpool_cancel(&queue->buf_waiter);
	cancel_work_sync(&queue->buf_waiter.work);

	prl_destroy_qp(queue);
	/* After the QP: nothing of this queue's receives the SRQ's any more. */
	if (queue->srq)
		prl_srq_put(queue->srq);
	rdma_destroy_id(queue->cm_id);
	prl_free_rsps(queue);
	prl_free_cmds(dev, &queue->rx);
	__free_page(queue->connect_page);

	prl_device_put(dev);
	/* A poster may still be in prl_post_end(), under RCU. */
	kfree_rcu(queue, rcu);
	atomic_dec(&purlin_live.queues);
	if (atomic_dec_and_test(&rport->nr_queues))
		complete(&rport->queues_gone);
}
