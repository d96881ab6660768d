// SPDX-License-Identifier: GPL-2.0
/*
 * Purlin: module entry points.  The init ladder below and its mirror in
 * purlin_exit() are the only places that order the subsystems' lifetimes.
 */
#define pr_fmt(fmt) "purlin: " fmt

#include <linux/module.h>

#include "purlin.h"

static unsigned int data_pool_mb = 64;
module_param(data_pool_mb, uint, 0444);
MODULE_PARM_DESC(data_pool_mb,
		 "Size of the data buffer pool in MiB (default 64, at least 4 MiB)");

struct workqueue_struct *purlin_wq;
/* Blocking back-end work (file back end); never waits on purlin_wq. */
struct workqueue_struct *purlin_io_wq;
struct workqueue_struct *purlin_resv_wq;
/*
 * Authentication messages (auth.c): Diffie-Hellman takes long, and a peer
 * that has not authenticated must not delay keep-alive or teardown work.
 */
struct workqueue_struct *purlin_auth_wq;
/*
 * Controllers' configfs directories and the frees that wait for them
 * (configfs.c): ordered, so a directory is added before it is removed.
 */
struct workqueue_struct *purlin_ctrl_wq;

/* Live objects, for tests and administrators: one line, key=value pairs. */
static int purlin_live_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf,
			  "subsystems=%d namespaces=%d ports=%d ctrls=%d queues=%d reqs=%d srqs=%d srq_held=%d pool_free=%u\n",
			  atomic_read(&purlin_live.subsystems),
			  atomic_read(&purlin_live.namespaces),
			  atomic_read(&purlin_live.ports),
			  atomic_read(&purlin_live.ctrls),
			  atomic_read(&purlin_live.queues),
			  atomic_read(&purlin_live.reqs),
			  atomic_read(&purlin_live.srqs),
			  atomic_read(&purlin_live.srq_held),
			  purlin_bufpool_free_chunks());
}

/* Read-only: "modprobe purlin live=..." is refused, not a NULL call. */
int purlin_param_read_only(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static const struct kernel_param_ops purlin_live_ops = {
	.set = purlin_param_read_only,
	.get = purlin_live_get,
};
module_param_cb(live, &purlin_live_ops, NULL, 0444);
MODULE_PARM_DESC(live, "Live object counts (read-only)");

static int __init purlin_init(void)
{
	int ret;

	ret = purlin_bufpool_init(data_pool_mb);
	if (ret)
		return ret;
	ret = -ENOMEM;
	purlin_wq = alloc_workqueue("purlin", WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!purlin_wq)
		goto exit_pool;
	purlin_io_wq = alloc_workqueue("purlin_io", WQ_MEM_RECLAIM | WQ_UNBOUND,
				       0);
	if (!purlin_io_wq)
		goto destroy_wq;
	/*
	 * Reservation commands: they wait on resv->lock, held across a
	 * resv_file write, so a host sending many must not hold up the I/O
	 * on purlin_io_wq.  Queue teardown waits for them: a rescuer.
	 */
	purlin_resv_wq = alloc_workqueue("purlin_resv",
					 WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!purlin_resv_wq)
		goto destroy_io_wq;
	/* Queue teardown (on purlin_wq) waits for its requests: a rescuer. */
	purlin_auth_wq = alloc_workqueue("purlin_auth",
					 WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!purlin_auth_wq)
		goto destroy_resv_wq;
	purlin_ctrl_wq = alloc_ordered_workqueue("purlin_ctrl", 0);
	if (!purlin_ctrl_wq)
		goto destroy_auth_wq;
	purlin_disc_subsys = purlin_subsys_alloc(PURLIN_DISC_NQN,
						 PURLIN_SUBSYS_DISCOVERY);
	if (!purlin_disc_subsys)
		goto destroy_ctrl_wq;
	ret = purlin_rdma_init();
	if (ret)
		goto put_disc;
	ret = purlin_configfs_init();
	if (ret)
		goto exit_rdma;
	pr_info("version %s loaded\n", PURLIN_VERSION);
	return 0;

exit_rdma:
	purlin_rdma_exit();
put_disc:
	purlin_subsys_put(purlin_disc_subsys);
destroy_ctrl_wq:
	destroy_workqueue(purlin_ctrl_wq);
destroy_auth_wq:
	destroy_workqueue(purlin_auth_wq);
destroy_resv_wq:
	destroy_workqueue(purlin_resv_wq);
destroy_io_wq:
	destroy_workqueue(purlin_io_wq);
destroy_wq:
	destroy_workqueue(purlin_wq);
exit_pool:
	purlin_bufpool_exit();
	return ret;
}

static void __exit purlin_exit(void)
{
	purlin_configfs_exit();
	purlin_rdma_exit();
	purlin_subsys_put(purlin_disc_subsys);
	destroy_workqueue(purlin_ctrl_wq);
	destroy_workqueue(purlin_auth_wq);
	destroy_workqueue(purlin_resv_wq);
	destroy_workqueue(purlin_io_wq);
	destroy_workqueue(purlin_wq);
	purlin_bufpool_exit();
	pr_info("unloaded\n");
}

module_init(purlin_init);
module_exit(purlin_exit);

MODULE_DESCRIPTION("Purlin NVMe over Fabrics RDMA target");
MODULE_AUTHOR("The Purlin developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(PURLIN_VERSION);
/* DH-HMAC-CHAP (auth.c): hashes and Diffie-Hellman from the crypto API. */
MODULE_SOFTDEP("pre: crypto-hmac crypto-sha256 crypto-sha512 crypto-dh");
