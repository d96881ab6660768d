// SPDX-License-Identifier: GPL-2.0
/*
 * NVMe over RDMA transport: RDMA CM listeners, one RC queue pair per host
 * queue, capsules in pre-posted receive buffers, data with rdma_rw, and
 * responses sent (chained behind the RDMA WRITEs of read data).  This file
 * has the RDMA devices (an ib_client), the ports' listeners and the
 * transport's ops; a queue's life is in rdma-queue.c, the data path in
 * rdma-io.c, the types in rdma.h.
 *
 * Per queue everything is allocated when the host connects: receive
 * contexts (recv_queue_size), response contexts (recv_queue_size +
 * send_queue_size, each embedding a struct purlin_req) and in-capsule
 * buffers.  Data buffers come from the bounded pool in bufpool.c.
 */
#define pr_fmt(fmt) "purlin: rdma: " fmt

#include <linux/inet.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <net/ipv6.h>

#include "rdma.h"

/*
 * Bounds on what a peer can make the target hold (see admin-guide.md,
 * "Limits and hostile hosts").  The target's own QPs retry a send that
 * meets receiver-not-ready at most rnr_retry times (the host sets the
 * delay, at most 655 ms each) and one that is not acknowledged at most
 * retry_cnt times, waiting 4.096 us << ack_timeout each, whatever the
 * host's CM request asked: then the work request fails and the queue goes,
 * with everything it held.
 */
unsigned int prl_rnr_retry = 6;
module_param_named(rnr_retry, prl_rnr_retry, uint, 0444);
MODULE_PARM_DESC(rnr_retry, "RNR retries of the target's sends, 0-6 (7, infinite, is refused)");
unsigned int prl_retry_cnt = 6;
module_param_named(retry_cnt, prl_retry_cnt, uint, 0444);
MODULE_PARM_DESC(retry_cnt, "transport retries of the target's sends, 0-6");
unsigned int prl_ack_timeout = 19;
module_param_named(ack_timeout, prl_ack_timeout, uint, 0444);
MODULE_PARM_DESC(ack_timeout, "longest local ACK timeout, 4.096 us << N, N 1-20 (default 19: 2.1 s)");

DEFINE_MUTEX(prl_lock);
LIST_HEAD(prl_queues);

static struct ib_client prl_ib_client;

/* ---- devices ----------------------------------------------------------- */

static void prl_device_release(struct kref *ref)
{
	struct prl_rdma_device *dev = container_of(ref, struct prl_rdma_device,
						   ref);

	ib_dealloc_pd(dev->pd);
	if (dev->released)
		complete(dev->released);
	kfree(dev);
}

void prl_device_put(struct prl_rdma_device *dev)
{
	kref_put(&dev->ref, prl_device_release);
}

/* The device's state with a reference, or NULL while it is going. */
struct prl_rdma_device *prl_device_get(struct ib_device *ib)
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

/* ---- ports ------------------------------------------------------------- */

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

int prl_listener_event(struct prl_rdma_port *rport,
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

static int prl_add_port(struct purlin_port *port)
{
	struct prl_rdma_port *rport;
	int ret;

	lockdep_assert_held_write(&purlin_cfg_sem);
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

static void prl_disconnect_sq(struct purlin_sq *sq)
{
	prl_queue_disconnect(container_of(sq, struct prl_rdma_queue, sq));
}

const struct purlin_transport_ops prl_rdma_ops = {
	.name = "rdma",
	.trtype = NVMF_TRTYPE_RDMA,
	.add_port = prl_add_port,
	.remove_port = prl_remove_port,
	.queue_response = prl_queue_response,
	.delete_ctrl = prl_delete_ctrl,
	.disconnect_sq = prl_disconnect_sq,
};

/* ---- device removal ---------------------------------------------------- */

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
	mutex_init(&dev->srq_lock);
	INIT_LIST_HEAD(&dev->srqs);
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

	prl_rnr_retry = min(prl_rnr_retry, 6U);
	prl_retry_cnt = min(prl_retry_cnt, 6U);
	prl_ack_timeout = clamp(prl_ack_timeout, 1U, 20U);

	ret = prl_poll_init();
	if (ret)
		return ret;
	ret = ib_register_client(&prl_ib_client);
	if (ret)
		goto exit_poll;
	ret = purlin_transport_register(&prl_rdma_ops);
	if (ret)
		goto unregister;
	return 0;
unregister:
	ib_unregister_client(&prl_ib_client);
exit_poll:
	prl_poll_exit();
	return ret;
}

void purlin_rdma_exit(void)
{
	purlin_transport_unregister(&prl_rdma_ops);
	ib_unregister_client(&prl_ib_client);
	/* Every queue is gone: the polling threads stop. */
	prl_poll_exit();
}
