// SPDX-License-Identifier: GPL-2.0
/*
 * Purlin core: subsystems, namespaces, ports, controllers and the request
 * lifecycle shared by every transport.
 */
#define pr_fmt(fmt) "purlin: " fmt

#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/slab.h>

#include "purlin.h"

#define CREATE_TRACE_POINTS
#include "purlin_trace.h"

DECLARE_RWSEM(purlin_cfg_sem);
LIST_HEAD(purlin_subsystems);
LIST_HEAD(purlin_ports);
struct purlin_subsys *purlin_disc_subsys;
/*
 * The discovery subsystem's NQN as configured (the root's discovery_nqn,
 * nvmet's persistent discovery NQN); Connects to the well-known
 * PURLIN_DISC_NQN reach it too.  Under purlin_cfg_sem.
 */
char purlin_disc_nqn[NVMF_NQN_SIZE + 1] = PURLIN_DISC_NQN;
struct purlin_counters purlin_live;

static atomic64_t disc_genctr = ATOMIC64_INIT(1);

/* Registered transports by trtype; guarded by purlin_cfg_sem. */
static const struct purlin_transport_ops *transports[256];

int purlin_transport_register(const struct purlin_transport_ops *ops)
{
	int ret = 0;

	down_write(&purlin_cfg_sem);
	if (transports[ops->trtype])
		ret = -EBUSY;
	else
		transports[ops->trtype] = ops;
	up_write(&purlin_cfg_sem);
	return ret;
}

void purlin_transport_unregister(const struct purlin_transport_ops *ops)
{
	down_write(&purlin_cfg_sem);
	transports[ops->trtype] = NULL;
	up_write(&purlin_cfg_sem);
}

/* What the discovery log shows may have changed; caller holds cfg_sem. */
void purlin_disc_changed(void)
{
	lockdep_assert_held_write(&purlin_cfg_sem);
	atomic64_inc(&disc_genctr);
	purlin_disc_log_changed();
}

u64 purlin_disc_genctr(void)
{
	return atomic64_read(&disc_genctr);
}

/* ---- requests ---------------------------------------------------------- */

static u16 purlin_check_ctrl_ready(struct purlin_req *req)
{
	struct purlin_ctrl *ctrl = req->sq->ctrl;

	if (!(READ_ONCE(ctrl->cc) & NVME_CC_ENABLE) ||
	    !(READ_ONCE(ctrl->csts) & NVME_CSTS_RDY))
		return NVME_SC_CMD_SEQ_ERROR | PURLIN_DNR;
	return 0;
}

/*
 * Parse a new command.  On an error the request is completed here and
 * false is returned; otherwise the transport maps the data and calls
 * purlin_req_execute().
 */
bool purlin_req_init(struct purlin_req *req, struct purlin_sq *sq,
		     const struct purlin_transport_ops *ops)
{
	struct nvme_command *cmd = req->cmd;
	u8 flags = cmd->common.flags;
	u16 status;

	/* Held until the transport frees the request: purlin_sq_destroy(). */
	percpu_ref_get(&sq->ref);
	req->sq = sq;
	req->ops = ops;
	req->ns = NULL;
	req->sg = NULL;
	req->sg_cnt = 0;
	req->transfer_len = 0;
	req->data_len = 0;
	req->to_host = false;
	req->data_len_min = false;
	req->connect = false;
	req->resv_slot = 0;
	req->execute = NULL;
	/* (req->poll: the transport's polling thread, if that is the caller.) */
	req->t_recv = purlin_clock(req->poll);
	req->t_exec = 0;
	memset(req->cqe, 0, sizeof(*req->cqe));
	req->cqe->command_id = cmd->common.command_id;
	trace_purlin_cmd_recv(req);

	if (!sq->sqhd_disabled)
		sq->sqhd = (sq->sqhd + 1) % sq->size;

	if (unlikely(flags & (NVME_CMD_FUSE_FIRST | NVME_CMD_FUSE_SECOND))) {
		status = NVME_SC_INVALID_FIELD | PURLIN_DNR;
		goto fail;
	}
	if (unlikely((flags & NVME_CMD_SGL_ALL) != NVME_CMD_SGL_METABUF)) {
		status = NVME_SC_INVALID_FIELD | PURLIN_DNR;
		goto fail;
	}

	if (unlikely(!sq->ctrl)) {
		if (cmd->common.opcode != nvme_fabrics_command ||
		    cmd->fabrics.fctype != nvme_fabrics_type_connect ||
		    test_and_set_bit(PURLIN_SQ_CONNECTING, &sq->flags))
			status = NVME_SC_CMD_SEQ_ERROR | PURLIN_DNR;
		else
			status = purlin_parse_connect(req);
		goto done;
	}

	/* Until the queue has authenticated, only authentication runs. */
	if (unlikely(sq->auth_required && !READ_ONCE(sq->authenticated)) &&
	    (cmd->common.opcode != nvme_fabrics_command ||
	     (cmd->fabrics.fctype != nvme_fabrics_type_auth_send &&
	      cmd->fabrics.fctype != nvme_fabrics_type_auth_receive))) {
		status = NVME_SC_AUTH_REQUIRED | PURLIN_DNR;
		goto fail;
	}
	/*
	 * A queue that has not authenticated (its Authentication Send and
	 * Receive pass above) does not keep the controller alive.
	 */
	if (likely(!sq->auth_required || READ_ONCE(sq->authenticated)))
		WRITE_ONCE(sq->ctrl->ka_seen, true);
	if (cmd->common.opcode == nvme_fabrics_command) {
		status = purlin_parse_fabrics(req);
		goto done;
	}
	status = purlin_check_ctrl_ready(req);
	if (status)
		goto fail;
	if (sq->qid == 0) {
		if (purlin_is_discovery(sq->ctrl))
			status = purlin_parse_discovery(req);
		else
			status = purlin_parse_admin(req);
	} else {
		status = purlin_parse_io(req);
	}
done:
	if (!status)
		return true;
fail:
	purlin_req_complete(req, status);
	return false;
}

/*
 * The host's SGL must describe exactly the data the command moves, or for
 * some commands at least that much (Linux sends Dataset Management ranges
 * in a buffer sized for the maximum number of ranges).  Transports call
 * this once they know transfer_len, before they take buffers or move data.
 */
bool purlin_check_data_len(struct purlin_req *req)
{
	if (likely(req->transfer_len == req->data_len) ||
	    (req->data_len_min && req->transfer_len > req->data_len))
		return true;
	purlin_req_complete(req, NVME_SC_SGL_INVALID_DATA | PURLIN_DNR);
	return false;
}

/* Hand a command to its back end (or its handler): it may go now. */
static __always_inline void __purlin_req_run(struct purlin_req *req)
{
	trace_purlin_cmd_exec(req);
	purlin_stats_start(req);
	req->execute(req);
}

/* A command that waited for a limit goes (qos.c). */
void purlin_req_run(struct purlin_req *req)
{
	__purlin_req_run(req);
}

/*
 * Run a parsed command whose data length purlin_check_data_len() passed.
 * While no limit is set anywhere the branch below is a patched-out jump
 * (a NOP); with one, a command over its limits waits in qos.c, which runs
 * it later.
 */
void purlin_req_execute(struct purlin_req *req)
{
	if (static_branch_unlikely(&purlin_qos_on) && !purlin_qos_admit(req))
		return;
	__purlin_req_run(req);
}

void purlin_req_set_result(struct purlin_req *req, u32 result)
{
	req->cqe->result.u32 = cpu_to_le32(result);
}

void purlin_req_complete(struct purlin_req *req, u16 status)
{
	struct purlin_sq *sq = req->sq;

	/*
	 * A Connect that failed, wherever it failed (bad SGL or length, no
	 * buffer, refused), may be retried on the queue: before the host can
	 * see this completion.
	 */
	if (unlikely(req->connect) && status)
		clear_bit(PURLIN_SQ_CONNECTING, &sq->flags);

	trace_purlin_cmd_done(req, status);
	req->cqe->status = cpu_to_le16(status << 1);
	req->cqe->sq_id = cpu_to_le16(sq->qid);
	req->cqe->sq_head = cpu_to_le16(sq->sqhd_disabled ? 0xffff :
					READ_ONCE(sq->sqhd));
	purlin_stats_account(req, status);
	if (req->ns) {
		if (req->resv_slot)
			purlin_resv_io_done(req);
		purlin_ns_put(req->ns);
		req->ns = NULL;
	}
	req->ops->queue_response(req);
}

static u16 purlin_sg_xfer(struct purlin_req *req, u32 off, void *buf,
			  size_t len, bool to_sg)
{
	size_t n;

	if (to_sg)
		n = sg_pcopy_from_buffer(req->sg, req->sg_cnt, buf, len, off);
	else
		n = sg_pcopy_to_buffer(req->sg, req->sg_cnt, buf, len, off);
	return n == len ? 0 : NVME_SC_SGL_INVALID_DATA | PURLIN_DNR;
}

u16 purlin_copy_to_sg(struct purlin_req *req, u32 off, const void *buf,
		      size_t len)
{
	return purlin_sg_xfer(req, off, (void *)buf, len, true);
}

u16 purlin_copy_from_sg(struct purlin_req *req, u32 off, void *buf,
			size_t len)
{
	return purlin_sg_xfer(req, off, buf, len, false);
}

u16 purlin_zero_sg(struct purlin_req *req, u32 off, size_t len)
{
	struct sg_mapping_iter it;
	size_t done = 0, skip = off;

	sg_miter_start(&it, req->sg, req->sg_cnt, SG_MITER_TO_SG | SG_MITER_ATOMIC);
	while (done < len && sg_miter_next(&it)) {
		size_t l = it.length, o = 0;

		if (skip >= l) {
			skip -= l;
			continue;
		}
		o = skip;
		skip = 0;
		l = min(l - o, len - done);
		memset(it.addr + o, 0, l);
		done += l;
	}
	sg_miter_stop(&it);
	return done == len ? 0 : NVME_SC_SGL_INVALID_DATA | PURLIN_DNR;
}

/* ---- queues ------------------------------------------------------------ */

static void purlin_sq_ref_release(struct percpu_ref *ref)
{
	struct purlin_sq *sq = container_of(ref, struct purlin_sq, ref);

	complete(&sq->free_done);
}

int purlin_sq_init(struct purlin_sq *sq, struct purlin_port *port, u16 qid,
		   u16 size)
{
	sq->ctrl = NULL;
	sq->port = port;
	sq->qid = qid;
	sq->size = size;
	sq->sqhd = 0;
	sq->sqhd_disabled = false;
	sq->flags = 0;
	memset(&sq->peer, 0, sizeof(sq->peer));
	purlin_auth_sq_init(sq);
	init_completion(&sq->free_done);
	return percpu_ref_init(&sq->ref, purlin_sq_ref_release, 0, GFP_KERNEL);
}

/* Undo purlin_sq_init() for a queue that never took a command. */
void purlin_sq_exit(struct purlin_sq *sq)
{
	percpu_ref_exit(&sq->ref);
}

/* The transport is done with a request purlin_req_init() was given. */
void purlin_req_free(struct purlin_req *req)
{
	percpu_ref_put(&req->sq->ref);
}

/*
 * The transport calls this once no new command can reach the queue (its
 * QP is drained): held AERs are aborted, then this waits until the
 * transport has freed every request (purlin_req_free()).  Losing the admin
 * queue ends the controller (its I/O queues are disconnected too); hosts
 * delete I/O queues on their own before they shut the controller down
 * through the admin queue.
 */
void purlin_sq_destroy(struct purlin_sq *sq)
{
	struct purlin_ctrl *ctrl = sq->ctrl;

	if (ctrl && sq->qid == 0)
		purlin_aer_abort_all(ctrl);
	/* Commands waiting for a limit would hold the wait below. */
	if (ctrl && sq->qid)
		purlin_qos_sq_gone(sq);
	percpu_ref_kill(&sq->ref);
	wait_for_completion(&sq->free_done);
	percpu_ref_exit(&sq->ref);
	purlin_auth_sq_exit(sq);
	if (!ctrl)
		return;
	mutex_lock(&ctrl->lock);
	if (ctrl->sqs[sq->qid] == sq)
		ctrl->sqs[sq->qid] = NULL;
	mutex_unlock(&ctrl->lock);
	if (sq->qid == 0)
		purlin_ctrl_fatal(ctrl);
	sq->ctrl = NULL;
	purlin_ctrl_put(ctrl);
}

/* ---- subsystems --------------------------------------------------------- */

struct purlin_subsys *purlin_subsys_alloc(const char *nqn,
					  enum purlin_subsys_type type)
{
	struct purlin_subsys *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	s->subsysnqn = kstrdup(nqn, GFP_KERNEL);
	if (!s->subsysnqn) {
		kfree(s);
		return NULL;
	}
	kref_init(&s->ref);
	INIT_LIST_HEAD(&s->entry);
	s->type = type;
	mutex_init(&s->lock);
	INIT_LIST_HEAD(&s->ctrls);
	ida_init(&s->cntlid_ida);
	xa_init(&s->namespaces);
	INIT_LIST_HEAD(&s->hosts);
	s->version = NVME_VS(1, 3, 0);
	s->cntlid_min = 1;
	s->cntlid_max = NVME_CNTLID_MAX;
	s->max_qid = PURLIN_MAX_QID;
	/* A serial that is unique enough until the administrator sets one. */
	snprintf(s->serial, sizeof(s->serial), "%016llx",
		 get_random_u64());
	strscpy(s->model, "Purlin", sizeof(s->model));
	strscpy(s->firmware, PURLIN_VERSION, sizeof(s->firmware));
	atomic_inc(&purlin_live.subsystems);
	return s;
}

static void purlin_subsys_release(struct kref *ref)
{
	struct purlin_subsys *s = container_of(ref, struct purlin_subsys, ref);

	WARN_ON(!list_empty(&s->ctrls));
	WARN_ON(!xa_empty(&s->namespaces));
	xa_destroy(&s->namespaces);
	ida_destroy(&s->cntlid_ida);
	kfree(s->subsysnqn);
	kfree(s);
	atomic_dec(&purlin_live.subsystems);
}

void purlin_subsys_put(struct purlin_subsys *subsys)
{
	kref_put(&subsys->ref, purlin_subsys_release);
}

/* Ask every controller of the subsystem to go; does not wait. */
void purlin_subsys_del_ctrls(struct purlin_subsys *subsys)
{
	struct purlin_ctrl *ctrl;

	mutex_lock(&subsys->lock);
	list_for_each_entry(ctrl, &subsys->ctrls, entry)
		purlin_ctrl_fatal(ctrl);
	mutex_unlock(&subsys->lock);
}

/*
 * The subsystem named nqn if the port exports it, with a reference.
 * Caller holds purlin_cfg_sem.
 */
struct purlin_subsys *purlin_find_subsys(struct purlin_port *port,
					 const char *nqn)
{
	struct purlin_subsys_link *l;

	lockdep_assert_held(&purlin_cfg_sem);
	if (!strcmp(nqn, PURLIN_DISC_NQN) || !strcmp(nqn, purlin_disc_nqn)) {
		kref_get(&purlin_disc_subsys->ref);
		return purlin_disc_subsys;
	}
	list_for_each_entry(l, &port->subsystems, entry) {
		if (!strcmp(l->subsys->subsysnqn, nqn)) {
			kref_get(&l->subsys->ref);
			return l->subsys;
		}
	}
	return NULL;
}

/* Printable ASCII only (0x20-0x7e): names and strings hosts see or send. */
bool purlin_printable(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return false;
	return true;
}

/* The entry of hostnqn in subsys's allowed_hosts, if any; cfg_sem held. */
struct purlin_host *purlin_subsys_host(struct purlin_subsys *subsys,
				       const char *hostnqn)
{
	struct purlin_host_link *l;

	lockdep_assert_held(&purlin_cfg_sem);
	list_for_each_entry(l, &subsys->hosts, entry)
		if (!strcmp(purlin_host_nqn(l->host), hostnqn))
			return l->host;
	return NULL;
}

/* Caller holds purlin_cfg_sem. */
bool purlin_host_allowed(struct purlin_subsys *subsys, const char *hostnqn)
{
	if (subsys->type == PURLIN_SUBSYS_DISCOVERY || subsys->allow_any_host)
		return true;
	return purlin_subsys_host(subsys, hostnqn);
}

/* ---- namespaces -------------------------------------------------------- */

static void purlin_ns_ref_release(struct percpu_ref *ref)
{
	struct purlin_ns *ns = container_of(ref, struct purlin_ns, ref);

	complete(&ns->disable_done);
}

/* Open the device and make the namespace visible to hosts. */
int purlin_ns_enable(struct purlin_ns *ns)
{
	struct purlin_subsys *subsys = ns->subsys;
	int ret = 0;

	/*
	 * enable_lock keeps device_path and buffered_io stable; opening the
	 * backing store may block for long (a stalled network file system),
	 * so subsys->lock is only taken to publish the namespace.
	 */
	mutex_lock(&ns->enable_lock);
	if (ns->enabled)
		goto unlock;
	ret = -EINVAL;
	if (!ns->device_path)
		goto unlock;
	/* The back end, once: a block device, else a regular file. */
	ns->backend = &purlin_bdev_ops;
	ret = ns->backend->open(ns);
	if (ret == -ENOTBLK) {
		ns->backend = &purlin_file_ops;
		ret = ns->backend->open(ns);
	}
	if (ret)
		goto unlock;
	init_completion(&ns->disable_done);
	ret = percpu_ref_init(&ns->ref, purlin_ns_ref_release, 0, GFP_KERNEL);
	if (ret)
		goto close;
	/* resv_file: a PTPL state kept there comes back (resv.c). */
	ret = purlin_resv_load(ns);
	if (ret)
		goto exit_ref;
	mutex_lock(&subsys->lock);
	ret = xa_insert(&subsys->namespaces, ns->nsid, ns, GFP_KERNEL);
	if (ret) {
		mutex_unlock(&subsys->lock);
		goto exit_ref;
	}
	ns->poll_off = false;
	purlin_qos_open(&ns->qos);
	ns->enabled = true;
	subsys->nr_namespaces++;
	mutex_unlock(&subsys->lock);
	atomic_inc(&purlin_live.namespaces);
	pr_info("subsystem %s: namespace %u enabled (%s, %llu bytes)\n",
		subsys->subsysnqn, ns->nsid, ns->device_path, ns->size);
	purlin_subsys_ns_changed(subsys, ns->nsid);
	mutex_unlock(&ns->enable_lock);
	return 0;

exit_ref:
	percpu_ref_exit(&ns->ref);
close:
	ns->backend->close(ns);
unlock:
	mutex_unlock(&ns->enable_lock);
	return ret;
}

/*
 * Hide the namespace, wait for its in-flight commands, close the device.
 * subsys->lock is not held across the wait: completions that release
 * namespace references may need it (Connect on a shared CQ context).
 */
void purlin_ns_disable(struct purlin_ns *ns)
{
	struct purlin_subsys *subsys = ns->subsys;

	mutex_lock(&ns->enable_lock);
	mutex_lock(&subsys->lock);
	if (!ns->enabled) {
		mutex_unlock(&subsys->lock);
		mutex_unlock(&ns->enable_lock);
		return;
	}
	xa_erase(&subsys->namespaces, ns->nsid);
	mutex_unlock(&subsys->lock);

	/* Lookups that found ns before the erase have taken their ref. */
	synchronize_rcu();
	percpu_ref_kill(&ns->ref);
	/* Commands waiting for a limit hold references: aborted. */
	purlin_qos_ns_gone(ns);
	wait_for_completion(&ns->disable_done);
	percpu_ref_exit(&ns->ref);
	ns->backend->close(ns);

	mutex_lock(&subsys->lock);
	ns->enabled = false;
	subsys->nr_namespaces--;
	mutex_unlock(&subsys->lock);
	purlin_subsys_ns_changed(subsys, ns->nsid);
	mutex_unlock(&ns->enable_lock);
	atomic_dec(&purlin_live.namespaces);
	pr_info("subsystem %s: namespace %u disabled\n", subsys->subsysnqn,
		ns->nsid);
}

/*
 * Re-read the size of an enabled namespace's device or file; hosts are
 * told (Namespace Attribute Changed) when it changed.
 */
int purlin_ns_revalidate(struct purlin_ns *ns)
{
	struct purlin_subsys *subsys = ns->subsys;
	bool changed = false;
	u64 size;
	int ret = 0;

	mutex_lock(&ns->enable_lock);
	if (!ns->enabled) {
		ret = -ENODEV;
		goto unlock;
	}
	size = ns->backend->size(ns);
	mutex_lock(&subsys->lock);
	if (size != ns->size) {
		pr_info("subsystem %s: namespace %u resized from %llu to %llu bytes\n",
			subsys->subsysnqn, ns->nsid, ns->size, size);
		WRITE_ONCE(ns->size, size);
		changed = true;
	}
	mutex_unlock(&subsys->lock);
	if (changed)
		purlin_subsys_ns_changed(subsys, ns->nsid);
unlock:
	mutex_unlock(&ns->enable_lock);
	return ret;
}

struct purlin_ns *purlin_ns_get(struct purlin_subsys *subsys, u32 nsid)
{
	struct purlin_ns *ns;

	rcu_read_lock();
	ns = xa_load(&subsys->namespaces, nsid);
	if (ns && !percpu_ref_tryget_live(&ns->ref))
		ns = NULL;
	rcu_read_unlock();
	return ns;
}

void purlin_ns_put(struct purlin_ns *ns)
{
	percpu_ref_put(&ns->ref);
}

/* ---- ports ------------------------------------------------------------- */

/* Caller holds purlin_cfg_sem for writing. */
int purlin_port_enable(struct purlin_port *port)
{
	const struct purlin_transport_ops *ops;
	int ret;

	lockdep_assert_held_write(&purlin_cfg_sem);
	if (port->enabled)
		return 0;
	ops = transports[port->disc_addr.trtype];
	if (!ops)
		return -EPROTONOSUPPORT;
	if (!try_module_get(THIS_MODULE))
		return -ENODEV;
	port->ops = ops;
	ret = ops->add_port(port);
	if (ret) {
		port->ops = NULL;
		module_put(THIS_MODULE);
		return ret;
	}
	port->enabled = true;
	return 0;
}

/*
 * Called without purlin_cfg_sem (the wait below may need queues to finish
 * commands that take it), serialised against purlin_port_enable() by the
 * caller.  Disconnects the port's queues and waits for them.
 */
void purlin_port_disable(struct purlin_port *port)
{
	down_write(&purlin_cfg_sem);
	if (!port->enabled) {
		up_write(&purlin_cfg_sem);
		return;
	}
	port->enabled = false;
	up_write(&purlin_cfg_sem);
	port->ops->remove_port(port);
	port->ops = NULL;
	module_put(THIS_MODULE);
}

/* ---- controllers --------------------------------------------------------- */

/*
 * ctrl->lock orders this against Set Features KATO, which (re)arms or
 * cancels the work under it: a KATO of 0 set while this runs is seen here,
 * and nothing re-arms the work after it.
 *
 * While the admin queue has yet to authenticate (after its Connect, or
 * after a failed re-authentication) the host can send nothing that keeps
 * the controller alive, and may spend longer than the KATO computing a
 * large Diffie-Hellman group: the authentication deadline
 * (purlin_auth_arm(), armed whenever the queue is not authenticated)
 * bounds the controller then, not the keep-alive timer.
 */
static void purlin_ka_work(struct work_struct *work)
{
	struct purlin_ctrl *ctrl = container_of(to_delayed_work(work),
						struct purlin_ctrl, ka_work);
	struct purlin_sq *admin;
	u32 kato;

	mutex_lock(&ctrl->lock);
	kato = ctrl->kato;
	if (!kato) {
		mutex_unlock(&ctrl->lock);
		return;
	}
	admin = ctrl->sqs[0];
	if ((ctrl->auth_required && admin && !READ_ONCE(admin->authenticated)) ||
	    xchg(&ctrl->ka_seen, false)) {
		queue_delayed_work(purlin_wq, &ctrl->ka_work,
				   msecs_to_jiffies(kato));
		mutex_unlock(&ctrl->lock);
		return;
	}
	mutex_unlock(&ctrl->lock);
	pr_warn_ratelimited("controller %u (%s): keep-alive timeout (%u ms), tearing down\n",
			    ctrl->cntlid, ctrl->hostnqn, kato);
	purlin_ctrl_fatal(ctrl);
}

static void purlin_ctrl_free_work(struct work_struct *work);

static void purlin_fatal_work(struct work_struct *work)
{
	struct purlin_ctrl *ctrl = container_of(work, struct purlin_ctrl,
						fatal_work);

	ctrl->ops->delete_ctrl(ctrl);
}

void purlin_ctrl_fatal(struct purlin_ctrl *ctrl)
{
	mutex_lock(&ctrl->lock);
	if (ctrl->fatal) {
		mutex_unlock(&ctrl->lock);
		return;
	}
	ctrl->fatal = true;
	ctrl->csts |= NVME_CSTS_CFS;
	mutex_unlock(&ctrl->lock);
	queue_work(purlin_wq, &ctrl->fatal_work);
}

/*
 * A controller ID nobody can guess from the last one: a random start in
 * [cntlid_min, cntlid_max], the first free ID from there, wrapping.
 */
static int purlin_cntlid_alloc(struct purlin_subsys *subsys)
{
	u16 min = subsys->cntlid_min, max = subsys->cntlid_max;
	u16 start = min + get_random_u32_below(max - min + 1);
	int id;

	id = ida_alloc_range(&subsys->cntlid_ida, start, max, GFP_KERNEL);
	if (id == -ENOSPC && start > min)
		id = ida_alloc_range(&subsys->cntlid_ida, min, start - 1,
				     GFP_KERNEL);
	return id;
}

/*
 * Caller holds purlin_cfg_sem for reading from the access check on, so a
 * change of the subsystem's hosts either comes before the check or sees
 * the new controller (purlin_revoke_ctrls()).
 */
u16 purlin_ctrl_alloc(struct purlin_subsys *subsys, struct purlin_sq *sq,
		      const char *hostnqn, const uuid_t *hostid, u32 kato,
		      bool auth, struct purlin_ctrl **ctrlp)
{
	struct purlin_ctrl *ctrl;
	int id;

	lockdep_assert_held(&purlin_cfg_sem);
	ctrl = kzalloc(sizeof(*ctrl), GFP_KERNEL);
	if (!ctrl)
		return NVME_SC_INTERNAL;
	ctrl->stats = purlin_stats_alloc();
	if (!ctrl->stats) {
		kfree(ctrl);
		return NVME_SC_INTERNAL;
	}
	spin_lock_init(&ctrl->err_lock);
	purlin_buf_acct_init(&ctrl->buf_acct,
			     PURLIN_CTRL_POOL_SHARE(purlin_bufpool_total()));
	id = purlin_cntlid_alloc(subsys);
	if (id < 0) {
		purlin_stats_free(ctrl->stats);
		kfree(ctrl);
		return NVME_SC_CONNECT_CTRL_BUSY | PURLIN_DNR;
	}
	kref_init(&ctrl->ref);
	mutex_init(&ctrl->lock);
	INIT_DELAYED_WORK(&ctrl->ka_work, purlin_ka_work);
	INIT_WORK(&ctrl->fatal_work, purlin_fatal_work);
	INIT_WORK(&ctrl->dir_add_work, purlin_ctrl_dir_add_work);
	INIT_WORK(&ctrl->free_work, purlin_ctrl_free_work);
	ctrl->cntlid = id;
	ctrl->subsys = subsys;
	ctrl->port = sq->port;
	ctrl->ops = sq->port->ops;
	ctrl->portid = le16_to_cpu(sq->port->disc_addr.portid);
	strscpy(ctrl->hostnqn, hostnqn, sizeof(ctrl->hostnqn));
	uuid_copy(&ctrl->hostid, hostid);
	ctrl->host_addr = sq->peer;
	ctrl->kato = min_t(u32, kato, 3600 * 1000);
	if (subsys->type == PURLIN_SUBSYS_DISCOVERY && !ctrl->kato)
		ctrl->kato = PURLIN_DISC_KATO_MS;
	ctrl->sqs[0] = sq;
	if (subsys->type != PURLIN_SUBSYS_DISCOVERY)
		ctrl->host_qos = purlin_qos_host_get(hostnqn);
	ctrl->auth_required = auth;
	sq->auth_required = auth;
	kref_get(&subsys->ref);
	/* Published last: the transport reads other queues' ctrl locklessly. */
	smp_store_release(&sq->ctrl, ctrl);

	mutex_lock(&subsys->lock);
	list_add_tail(&ctrl->entry, &subsys->ctrls);
	mutex_unlock(&subsys->lock);
	/* Runs before the free_work queued by the release (ordered queue). */
	if (subsys->type != PURLIN_SUBSYS_DISCOVERY)
		queue_work(purlin_ctrl_wq, &ctrl->dir_add_work);

	if (ctrl->kato) {
		ctrl->ka_seen = true;
		queue_delayed_work(purlin_wq, &ctrl->ka_work,
				   msecs_to_jiffies(ctrl->kato));
	}
	atomic_inc(&purlin_live.ctrls);
	pr_info_ratelimited("controller %u created for %s on %s\n",
			    ctrl->cntlid, hostnqn, subsys->subsysnqn);
	*ctrlp = ctrl;
	return 0;
}

/*
 * Install sq as an I/O queue of controller cntlid.  The queue must come
 * from the host that owns the controller: its NQN and its host ID, through
 * the controller's port, and the host must still be allowed.  Caller holds
 * purlin_cfg_sem for reading (see purlin_ctrl_alloc()).  *bad_qid tells a
 * refused queue id (not granted, or already connected) from an unknown
 * controller.
 */
u16 purlin_ctrl_find_install(struct purlin_subsys *subsys, u16 cntlid,
			     const char *hostnqn, const uuid_t *hostid,
			     struct purlin_sq *sq, bool *bad_qid)
{
	struct purlin_ctrl *ctrl;
	u16 status = NVME_SC_CONNECT_INVALID_PARAM | PURLIN_DNR;
	u16 max_qid;

	lockdep_assert_held(&purlin_cfg_sem);
	if (!purlin_host_allowed(subsys, hostnqn))
		return NVME_SC_CONNECT_INVALID_HOST | PURLIN_DNR;
	max_qid = subsys->max_qid;

	/*
	 * A controller found here has a reference from its admin queue: its
	 * release first marks it fatal under ctrl->lock, which we check.
	 */
	mutex_lock(&subsys->lock);
	list_for_each_entry(ctrl, &subsys->ctrls, entry) {
		if (ctrl->cntlid != cntlid)
			continue;
		if (strcmp(ctrl->hostnqn, hostnqn) ||
		    !uuid_equal(&ctrl->hostid, hostid) ||
		    ctrl->port != sq->port)
			break;
		mutex_lock(&ctrl->lock);
		if (ctrl->fatal || !(ctrl->csts & NVME_CSTS_RDY) ||
		    !ctrl->sqs[0]) {
			status = NVME_SC_CONNECT_CTRL_BUSY;
		} else if (ctrl->auth_required &&
			   !READ_ONCE(ctrl->sqs[0]->authenticated)) {
			/* A re-authentication of the admin queue failed. */
			status = NVME_SC_AUTH_REQUIRED | PURLIN_DNR;
		} else if (sq->qid > min_not_zero(ctrl->nr_io_queues, max_qid) ||
			   ctrl->sqs[sq->qid]) {
			status = NVME_SC_CONNECT_INVALID_PARAM | PURLIN_DNR;
			*bad_qid = true;
		} else {
			ctrl->sqs[sq->qid] = sq;
			sq->auth_required = ctrl->auth_required;
			kref_get(&ctrl->ref);
			smp_store_release(&sq->ctrl, ctrl);
			status = 0;
		}
		mutex_unlock(&ctrl->lock);
		break;
	}
	mutex_unlock(&subsys->lock);
	return status;
}

/*
 * Access was taken away (a host left allowed_hosts or /hosts, or
 * attr_allow_any_host went off): every controller whose host no longer
 * qualifies goes, as when its subsystem leaves the port.  Caller holds
 * purlin_cfg_sem for writing, after the change.
 */
void purlin_revoke_ctrls(void)
{
	struct purlin_subsys *subsys;
	struct purlin_ctrl *ctrl;

	lockdep_assert_held_write(&purlin_cfg_sem);
	list_for_each_entry(subsys, &purlin_subsystems, entry) {
		mutex_lock(&subsys->lock);
		list_for_each_entry(ctrl, &subsys->ctrls, entry) {
			if (purlin_host_allowed(subsys, ctrl->hostnqn) ||
			    READ_ONCE(ctrl->fatal))
				continue;
			pr_info("controller %u (%s) of %s: host no longer allowed, tearing down\n",
				ctrl->cntlid, ctrl->hostnqn, subsys->subsysnqn);
			purlin_ctrl_fatal(ctrl);
		}
		mutex_unlock(&subsys->lock);
	}
}

/*
 * The rest of the release: the controller's configfs directory goes first
 * (configfs.c: after that no reader can reach the controller), then its
 * cntlid (so a new controller cannot take the directory's name before it
 * is gone) and its memory.  On purlin_ctrl_wq, or directly for a discovery
 * controller, which has no directory.
 */
static void purlin_ctrl_free(struct purlin_ctrl *ctrl)
{
	struct purlin_subsys *subsys = ctrl->subsys;

	purlin_ctrl_dir_del(ctrl);
	ida_free(&subsys->cntlid_ida, ctrl->cntlid);
	pr_info_ratelimited("controller %u of %s freed\n", ctrl->cntlid,
			    subsys->subsysnqn);
	purlin_stats_free(ctrl->stats);
	kfree(ctrl);
	purlin_subsys_put(subsys);
	atomic_dec(&purlin_live.ctrls);
}

static void purlin_ctrl_free_work(struct work_struct *work)
{
	purlin_ctrl_free(container_of(work, struct purlin_ctrl, free_work));
}

static void purlin_ctrl_release(struct kref *ref)
{
	struct purlin_ctrl *ctrl = container_of(ref, struct purlin_ctrl, ref);
	struct purlin_subsys *subsys = ctrl->subsys;

	mutex_lock(&subsys->lock);
	/* Emptied: purlin_ctrl_dir_add_work() tells a released controller. */
	list_del_init(&ctrl->entry);
	mutex_unlock(&subsys->lock);
	cancel_delayed_work_sync(&ctrl->ka_work);
	cancel_work_sync(&ctrl->fatal_work);
	WARN_ON(ctrl->buf_acct.held);
	purlin_qos_put(ctrl->host_qos);
	if (purlin_is_discovery(ctrl))
		purlin_ctrl_free(ctrl);
	else
		queue_work(purlin_ctrl_wq, &ctrl->free_work);
}

void purlin_ctrl_put(struct purlin_ctrl *ctrl)
{
	kref_put(&ctrl->ref, purlin_ctrl_release);
}

void purlin_ctrl_set_cc(struct purlin_ctrl *ctrl, u32 cc)
{
	u32 old;

	mutex_lock(&ctrl->lock);
	old = ctrl->cc;
	ctrl->cc = cc;
	if ((cc & NVME_CC_ENABLE) && !(old & NVME_CC_ENABLE)) {
		if (((cc >> NVME_CC_MPS_SHIFT) & 0xf) != 0 ||
		    ((cc >> NVME_CC_AMS_SHIFT) & 0x7) != 0 ||
		    ((cc >> NVME_CC_CSS_SHIFT) & 0x7) != 0 ||
		    ((cc >> NVME_CC_IOSQES_SHIFT) & 0xf) != 6 ||
		    ((cc >> NVME_CC_IOCQES_SHIFT) & 0xf) != 4)
			ctrl->csts = NVME_CSTS_CFS;
		else
			ctrl->csts |= NVME_CSTS_RDY;
	}
	if (!(cc & NVME_CC_ENABLE) && (old & NVME_CC_ENABLE))
		ctrl->csts &= ~NVME_CSTS_RDY;
	if (cc & NVME_CC_SHN_MASK)
		ctrl->csts = (ctrl->csts & ~NVME_CSTS_SHST_MASK) |
			     NVME_CSTS_SHST_CMPLT;
	else
		ctrl->csts &= ~NVME_CSTS_SHST_MASK;
	mutex_unlock(&ctrl->lock);
}
