// SPDX-License-Identifier: GPL-2.0
/*
 * Limits per tenant: IOPS and bytes/s limits on a namespace (every host's
 * commands to it) and on a host (every queue of every controller that host
 * NQN has on this target).  Documentation/design.md ("Limits per tenant")
 * describes the model; the administrator's view is in admin-guide.md.
 *
 * Each limited object owns a bucket (struct purlin_qos).  A bucket keeps,
 * per dimension (commands, bytes), the time at which its tokens would be
 * back to zero if commands kept arriving at the limit (the "theoretical
 * arrival time" of a GCRA, the same thing as a token bucket refilled by
 * elapsed time): a command fits when that time is at most the burst ahead
 * of now, and advances it by its cost (1 / limit per command, bytes /
 * limit per byte).  Nothing is allocated per command and nothing sleeps on
 * the I/O path: a command that does not fit goes on the bucket's FIFO (a
 * list head in the request, which already exists), and the bucket's work
 * (purlin_io_wq, process context) releases the FIFO's head as soon as it
 * fits, in order, across every queue that shares the bucket.
 *
 * The path of a command: purlin_req_execute() -> purlin_qos_admit() (only
 * while some limit is set anywhere: a static branch) -> the host's bucket
 * -> the namespace's bucket -> the back end.  Released commands run from
 * the work, never from a polling thread (req->poll is cleared when one
 * waits): their bios are not polled.
 */
#define pr_fmt(fmt) "purlin: " fmt

#include <linux/jump_label.h>
#include <linux/math64.h>
#include <linux/slab.h>

#include "purlin.h"

/*
 * On while any bucket has a limit configured (counted): commands take the
 * slow path only then.
 */
DEFINE_STATIC_KEY_FALSE(purlin_qos_on);

/*
 * Serialises configuration changes of every bucket (limits, closing,
 * counting in purlin_qos_on).  Process context only; never held on the
 * I/O path.  Taken before a bucket's lock.
 */
static DEFINE_MUTEX(purlin_qos_mutex);

/* The stages a command passes, in order. */
enum {
	PURLIN_QOS_HOST,
	PURLIN_QOS_NS,
	PURLIN_QOS_DONE,
};

static void purlin_qos_work(struct work_struct *work);

void purlin_qos_init(struct purlin_qos *b)
{
	spin_lock_init(&b->lock);
	INIT_LIST_HEAD(&b->waiters);
	INIT_DELAYED_WORK(&b->work, purlin_qos_work);
	kref_init(&b->ref);
}

/* The tolerance: the burst, and at least two timer ticks (the work's). */
static u64 purlin_qos_tau(u32 burst_ms)
{
	u64 tau = (u64)(burst_ms ? burst_ms : PURLIN_QOS_DEF_BURST_MS) *
		  NSEC_PER_MSEC;

	return max_t(u64, tau, 2 * TICK_NSEC);
}

/* Recompute what the I/O path reads; caller holds b->lock. */
static void purlin_qos_derive(struct purlin_qos *b, u64 now)
{
	lockdep_assert_held(&b->lock);
	b->io_ns = b->iops ? div64_u64(NSEC_PER_SEC, b->iops) : 0;
	b->tau_ns = purlin_qos_tau(b->burst_ms);
	/* A fresh start: a debt run up under the old limit is forgiven. */
	b->tat_io = now;
	b->tat_bytes = now;
	WRITE_ONCE(b->limited, (b->iops || b->bps) && !b->closed);
}

/* Bytes the command moves: reads and writes only. */
static u32 purlin_qos_bytes(struct purlin_req *req)
{
	u8 op = req->cmd->common.opcode;

	return op == nvme_cmd_read || op == nvme_cmd_write ? req->data_len : 0;
}

static u64 purlin_qos_byte_ns(struct purlin_qos *b, u32 bytes)
{
	return div64_u64((u64)bytes * NSEC_PER_SEC, b->bps);
}

/* When the command at the head may go (ns, CLOCK_MONOTONIC); b->lock. */
static u64 purlin_qos_ready_at(struct purlin_qos *b, struct purlin_req *req)
{
	u64 at = 0;

	lockdep_assert_held(&b->lock);
	if (b->io_ns)
		at = b->tat_io;
	if (b->bps && purlin_qos_bytes(req))
		at = max(at, b->tat_bytes);
	return at > b->tau_ns ? at - b->tau_ns : 0;
}

static bool purlin_qos_fits(struct purlin_qos *b, struct purlin_req *req,
			    u64 now)
{
	return purlin_qos_ready_at(b, req) <= now;
}

/*
 * Advance the bucket by the command's cost, from the later of its
 * theoretical arrival time and from: now for a command that arrives; for
 * one the work releases, the moment it would have gone had the work run
 * on time (purlin_qos_owed()).  Either way the time advances by at least
 * each command's cost and a command goes only when that time is within
 * the tolerance of now, so the long-run rate is at most the limit.
 */
static void purlin_qos_charge(struct purlin_qos *b, struct purlin_req *req,
			      u64 from)
{
	u32 bytes = purlin_qos_bytes(req);

	lockdep_assert_held(&b->lock);
	if (b->io_ns)
		b->tat_io = max(b->tat_io, from) + b->io_ns;
	if (b->bps && bytes)
		b->tat_bytes = max(b->tat_bytes, from) +
			       purlin_qos_byte_ns(b, bytes);
}

/*
 * When a waiting command would have gone had the bucket's work run on
 * time: once it joined the FIFO and the bucket's time let it.  The work
 * runs late by however long the scheduler takes; charged from its own
 * late now, a bucket whose FIFO never empties would lose that lateness at
 * every run (a limit of N would let fewer than N commands a second through
 * on a busy or slow machine).  Charged from this instead, a late run
 * releases at once what it owed, no more: with both limits set, the one
 * that did not hold the command back gets no credit for its wait.
 * Caller holds b->lock.
 */
static u64 purlin_qos_owed(struct purlin_qos *b, struct purlin_req *req)
{
	return max(req->qos_since, purlin_qos_ready_at(b, req));
}

/* Run the work when the head of the FIFO fits; caller holds b->lock. */
static void purlin_qos_arm(struct purlin_qos *b, u64 now)
{
	struct purlin_req *head;
	u64 at;

	lockdep_assert_held(&b->lock);
	head = list_first_entry(&b->waiters, struct purlin_req, qos_entry);
	at = purlin_qos_ready_at(b, head);
	mod_delayed_work(purlin_io_wq, &b->work,
			 at > now ? DIV_ROUND_UP_ULL(at - now, TICK_NSEC) : 0);
}

/*
 * Take the command's tokens from b, or queue it.  False: it is on b's FIFO
 * and belongs to the bucket's work from the moment b->lock is dropped (the
 * caller must not touch it any more).
 */
static bool purlin_qos_take(struct purlin_qos *b, struct purlin_req *req)
{
	unsigned long flags;
	bool go = true;
	u64 now;

	if (!READ_ONCE(b->limited))
		return true;
	spin_lock_irqsave(&b->lock, flags);
	/*
	 * A queue being torn down waits nowhere (purlin_qos_sq_gone()), nor
	 * does a command to a namespace being disabled: it may have looked
	 * the namespace up before the disable and reach a host bucket after
	 * purlin_qos_ns_gone() swept it (a write whose data came late), and
	 * the disable waits for its reference.  Both are set before the
	 * sweeps take this lock: seen here, or the command is swept.
	 */
	if (b->limited && !test_bit(PURLIN_SQ_QOS_OFF, &req->sq->flags) &&
	    !percpu_ref_is_dying(&req->ns->ref)) {
		now = ktime_get_ns();
		if (list_empty(&b->waiters) && purlin_qos_fits(b, req, now)) {
			purlin_qos_charge(b, req, now);
		} else {
			go = false;
			/* Released from the work: its bios are not polled. */
			req->poll = NULL;
			if (!req->qos_waited) {
				req->qos_waited = true;
				this_cpu_inc(req->ns->stats->c.throttled);
			}
			req->qos_since = now;
			list_add_tail(&req->qos_entry, &b->waiters);
			if (b->nr_waiting++ == 0)
				purlin_qos_arm(b, now);
		}
	}
	spin_unlock_irqrestore(&b->lock, flags);
	return go;
}

static struct purlin_qos *purlin_qos_stage(struct purlin_req *req)
{
	switch (req->qos_stage) {
	case PURLIN_QOS_HOST:
		return req->sq->ctrl->host_qos;
	case PURLIN_QOS_NS:
		return &req->ns->qos;
	}
	return NULL;
}

/* Pass the stages from req->qos_stage on; false: it waits in one. */
static bool purlin_qos_pass(struct purlin_req *req)
{
	struct purlin_qos *b;

	for (; req->qos_stage < PURLIN_QOS_DONE; req->qos_stage++) {
		b = purlin_qos_stage(req);
		if (b && !purlin_qos_take(b, req))
			return false;
	}
	return true;
}

/*
 * The slow path of purlin_req_execute(), taken only while a limit is set
 * somewhere.  True: execute now.  False: the command waits, and the
 * bucket's work executes it.  Only I/O commands on a namespace that use
 * the device count: Read and Write (one command and their bytes), Write
 * Zeroes and Dataset Management (one command, no bytes).  Flush, admin,
 * Fabrics and anything else never wait.
 */
bool purlin_qos_admit(struct purlin_req *req)
{
	u8 op = req->cmd->common.opcode;

	if (!req->ns || !req->sq->qid)
		return true;
	if (op != nvme_cmd_read && op != nvme_cmd_write &&
	    op != nvme_cmd_write_zeroes && op != nvme_cmd_dsm)
		return true;
	req->qos_stage = PURLIN_QOS_HOST;
	req->qos_waited = false;
	return purlin_qos_pass(req);
}

/* Release what fits, in order; re-arm for the rest. */
static void purlin_qos_work(struct work_struct *work)
{
	struct purlin_qos *b = container_of(to_delayed_work(work),
					    struct purlin_qos, work);
	struct purlin_req *req, *tmp;
	LIST_HEAD(go);
	u64 now;

	spin_lock_irq(&b->lock);
	now = ktime_get_ns();
	list_for_each_entry_safe(req, tmp, &b->waiters, qos_entry) {
		if (b->limited) {
			if (!purlin_qos_fits(b, req, now))
				break;
			purlin_qos_charge(b, req, purlin_qos_owed(b, req));
		}
		list_move_tail(&req->qos_entry, &go);
		b->nr_waiting--;
	}
	if (b->nr_waiting)
		purlin_qos_arm(b, now);
	spin_unlock_irq(&b->lock);

	/*
	 * As many as every queue the bucket covers holds (thousands, after
	 * a limit is raised or removed): give way between them.
	 */
	list_for_each_entry_safe(req, tmp, &go, qos_entry) {
		list_del_init(&req->qos_entry);
		req->qos_stage++;
		if (purlin_qos_pass(req))
			purlin_req_run(req);
		cond_resched();
	}
}

/*
 * Take off b's FIFO the commands that belong to sq (NULL: any queue) and
 * use ns (NULL: any namespace), onto gone; with close, b stops holding
 * commands until purlin_qos_open().
 */
static void purlin_qos_sweep(struct purlin_qos *b, struct purlin_sq *sq,
			     struct purlin_ns *ns, bool close,
			     struct list_head *gone)
{
	struct purlin_req *req, *tmp;
	unsigned int before;

	spin_lock_irq(&b->lock);
	if (close) {
		b->closed = true;
		WRITE_ONCE(b->limited, false);
	}
	before = b->nr_waiting;
	list_for_each_entry_safe(req, tmp, &b->waiters, qos_entry) {
		if ((sq && req->sq != sq) || (ns && req->ns != ns))
			continue;
		list_move_tail(&req->qos_entry, gone);
		b->nr_waiting--;
	}
	/* The head may have gone: the work is due when the new one fits. */
	if (b->nr_waiting && b->nr_waiting != before)
		purlin_qos_arm(b, ktime_get_ns());
	spin_unlock_irq(&b->lock);
}

/* Complete what a sweep took with Abort Requested; process context. */
static void purlin_qos_abort(struct list_head *gone)
{
	struct purlin_req *req, *tmp;

	list_for_each_entry_safe(req, tmp, gone, qos_entry) {
		list_del_init(&req->qos_entry);
		purlin_req_complete(req, NVME_SC_ABORT_REQ);
		cond_resched();
	}
}

/*
 * Set one of a bucket's limits (qos_iops, qos_bps: 0 = none; qos_burst_ms:
 * 0 = the default).  Takes effect at once: the debt run up under the old
 * limits is forgiven and the waiters are looked at again (all released
 * when no limit is left).  -EINVAL, nothing changed, for a value out of
 * range.  Process context.
 */
int purlin_qos_set(struct purlin_qos *b, enum purlin_qos_param p, u64 val)
{
	static const u64 max[] = {
		[PURLIN_QOS_IOPS] = PURLIN_QOS_MAX_IOPS,
		[PURLIN_QOS_BPS] = PURLIN_QOS_MAX_BPS,
		[PURLIN_QOS_BURST_MS] = PURLIN_QOS_MAX_BURST_MS,
	};
	bool was, now;

	if (val > max[p])
		return -EINVAL;
	mutex_lock(&purlin_qos_mutex);
	was = b->iops || b->bps;
	spin_lock_irq(&b->lock);
	if (p == PURLIN_QOS_IOPS)
		WRITE_ONCE(b->iops, val);
	else if (p == PURLIN_QOS_BPS)
		WRITE_ONCE(b->bps, val);
	else
		WRITE_ONCE(b->burst_ms, val);
	now = b->iops || b->bps;
	spin_unlock_irq(&b->lock);
	/* On before the bucket holds anything, off after it let all go. */
	if (!was && now)
		static_branch_inc(&purlin_qos_on);
	spin_lock_irq(&b->lock);
	purlin_qos_derive(b, ktime_get_ns());
	spin_unlock_irq(&b->lock);
	mod_delayed_work(purlin_io_wq, &b->work, 0);
	if (was && !now)
		static_branch_dec(&purlin_qos_on);
	mutex_unlock(&purlin_qos_mutex);
	return 0;
}

/* One of the limits as configured, for configfs. */
u64 purlin_qos_get(struct purlin_qos *b, enum purlin_qos_param p)
{
	if (p == PURLIN_QOS_IOPS)
		return READ_ONCE(b->iops);
	if (p == PURLIN_QOS_BPS)
		return READ_ONCE(b->bps);
	return READ_ONCE(b->burst_ms);
}

/* A namespace is enabled: its limits hold commands again. */
void purlin_qos_open(struct purlin_qos *b)
{
	spin_lock_irq(&b->lock);
	b->closed = false;
	purlin_qos_derive(b, ktime_get_ns());
	spin_unlock_irq(&b->lock);
}

/*
 * The namespace is being disabled (no new command finds it; its reference
 * is killed): the commands that wait for it, in its own bucket and in the
 * host buckets of the subsystem's controllers, are aborted, and its bucket
 * holds nothing more until it is enabled again.  Commands for it that
 * reach a bucket later wait nowhere (purlin_qos_take()): the disable's
 * wait for the namespace's references never waits on a limit.
 */
void purlin_qos_ns_gone(struct purlin_ns *ns)
{
	struct purlin_subsys *subsys = ns->subsys;
	struct purlin_ctrl *ctrl;
	LIST_HEAD(gone);

	purlin_qos_sweep(&ns->qos, NULL, NULL, true, &gone);
	mutex_lock(&subsys->lock);
	list_for_each_entry(ctrl, &subsys->ctrls, entry)
		if (ctrl->host_qos)
			purlin_qos_sweep(ctrl->host_qos, NULL, ns, false,
					 &gone);
	mutex_unlock(&subsys->lock);
	purlin_qos_abort(&gone);
}

/*
 * An I/O queue is being torn down (its QP drained): from now on its
 * commands wait nowhere, and those that wait are aborted, so that
 * purlin_sq_destroy() does not wait on a limit.
 */
void purlin_qos_sq_gone(struct purlin_sq *sq)
{
	struct purlin_ctrl *ctrl = sq->ctrl;
	struct purlin_subsys *subsys = ctrl->subsys;
	struct purlin_ns *ns;
	unsigned long nsid;
	LIST_HEAD(gone);

	set_bit(PURLIN_SQ_QOS_OFF, &sq->flags);
	/* Ordered by each bucket's lock against purlin_qos_take(). */
	if (ctrl->host_qos)
		purlin_qos_sweep(ctrl->host_qos, sq, NULL, false, &gone);
	/* What is in the xarray is enabled and not freed: subsys->lock. */
	mutex_lock(&subsys->lock);
	xa_for_each(&subsys->namespaces, nsid, ns)
		purlin_qos_sweep(&ns->qos, sq, NULL, false, &gone);
	mutex_unlock(&subsys->lock);
	purlin_qos_abort(&gone);
}

/*
 * The bucket's owner goes (a namespace's configfs item is released, a
 * host entry removed): its limit is dropped and every waiter released.
 * The caller then drops its reference (host buckets) or frees the bucket
 * with purlin_qos_exit() (namespace buckets, which have no waiter left).
 */
void purlin_qos_close(struct purlin_qos *b)
{
	bool was;

	mutex_lock(&purlin_qos_mutex);
	was = b->iops || b->bps;
	spin_lock_irq(&b->lock);
	b->iops = 0;
	b->bps = 0;
	b->closed = true;
	WRITE_ONCE(b->limited, false);
	spin_unlock_irq(&b->lock);
	mod_delayed_work(purlin_io_wq, &b->work, 0);
	if (was)
		static_branch_dec(&purlin_qos_on);
	mutex_unlock(&purlin_qos_mutex);
}

/* Nothing waits and the bucket is closed: stop its work for good. */
void purlin_qos_exit(struct purlin_qos *b)
{
	WARN_ON(b->nr_waiting);
	/* A closed bucket's work never re-arms itself. */
	cancel_delayed_work_sync(&b->work);
}

/* ---- host buckets: shared by the host entry and its controllers --------- */

struct purlin_qos *purlin_qos_alloc(void)
{
	struct purlin_qos *b = kzalloc(sizeof(*b), GFP_KERNEL);

	if (b)
		purlin_qos_init(b);
	return b;
}

static void purlin_qos_release(struct kref *ref)
{
	struct purlin_qos *b = container_of(ref, struct purlin_qos, ref);

	purlin_qos_exit(b);
	kfree(b);
}

void purlin_qos_put(struct purlin_qos *b)
{
	if (b)
		kref_put(&b->ref, purlin_qos_release);
}

/*
 * The bucket of hosts/<hostnqn>, with a reference, for a new controller;
 * NULL when there is no such entry.  Caller holds purlin_cfg_sem.  A host
 * entry made after the controller does not limit it.
 */
struct purlin_qos *purlin_qos_host_get(const char *hostnqn)
{
	struct purlin_host *h;

	lockdep_assert_held(&purlin_cfg_sem);
	list_for_each_entry(h, &purlin_hosts, entry) {
		if (strcmp(purlin_host_nqn(h), hostnqn))
			continue;
		kref_get(&h->qos->ref);
		return h->qos;
	}
	return NULL;
}
