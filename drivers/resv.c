// SPDX-License-Identifier: GPL-2.0
/*
 * Persistent reservations (NVMe Base 2.0, 8.19): Reservation Register,
 * Report, Acquire and Release; the access rules I/O commands meet; the
 * Reservation Notification Mask and Reservation Persistence features; the
 * namespace's state as text for configfs (resv_state).
 *
 * Registrants are hosts, keyed by the 128-bit Host Identifier each
 * controller got from its Connect: every controller of one host shares the
 * host's registration.  The state (struct purlin_resv) changes only under
 * its mutex, from reservation commands (run on purlin_resv_wq) and configfs.
 * The I/O path never takes that mutex: after every change the state is
 * copied into an immutable snapshot published with RCU, NULL while no
 * reservation is held, so an I/O command to a namespace without a
 * reservation costs one pointer test (purlin_resv_check()).  Memory for a
 * change (a registrant, the next snapshot) is allocated before the mutex is
 * taken, so a change either happens whole or not at all.
 *
 * Preempt and Abort preempts as Preempt does, then completes only after
 * every I/O command to the namespace that passed the access check before
 * the new reservation was published has completed (purlin_resv_drain()):
 * none is aborted, and none of a preempted host's finishes after the
 * Acquire; every later one meets the new reservation (Reservation
 * Conflict).
 *
 * Persist Through Power Loss to disk: with resv_file set, a change made
 * while the PTPL state is 1 (or that turns it from 1 to 0) is written to
 * that file (resv-file.c) before the command that made it completes.  The
 * write happens under resv->lock on purlin_resv_wq, after the change is made
 * in memory and before it is published to the I/O path or its notices are
 * sent; when it fails the change is undone (struct purlin_resv_undo, taken
 * before it, with the registrants it removed kept aside until then) and
 * the command fails with Internal Error, so nothing changed.  At namespace
 * enable a file holding ptpl=1 is loaded (purlin_resv_load()).  Every
 * writer holds a namespace reference (a command, or Set Features through
 * purlin_resv_feat_ns()), so disable and teardown, which wait for those,
 * wait for a write in progress; resv->file changes only while disabled.
 */
#define pr_fmt(fmt) "purlin: " fmt

#include <linux/ctype.h>
#include <linux/delay.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "purlin.h"

/* Command dword 10 fields of the reservation commands. */
#define PURLIN_RESV_ACTION(cdw10)	((cdw10) & 7)
#define PURLIN_RESV_IEKEY		(1 << 3)
#define PURLIN_RESV_RTYPE(cdw10)	(((cdw10) >> 8) & 0xff)
#define PURLIN_RESV_CPTPL(cdw10)	((cdw10) >> 30)

enum {
	PURLIN_RREGA_REGISTER,
	PURLIN_RREGA_UNREGISTER,
	PURLIN_RREGA_REPLACE,
};

enum {
	PURLIN_RACQA_ACQUIRE,
	PURLIN_RACQA_PREEMPT,
	PURLIN_RACQA_PREEMPT_ABORT,
};

enum {
	PURLIN_RRELA_RELEASE,
	PURLIN_RRELA_CLEAR,
};

/* Reservation Notification log page types (and mask bits). */
enum {
	PURLIN_RESV_NOTICE_EMPTY,
	PURLIN_RESV_NOTICE_REG_PREEMPTED,
	PURLIN_RESV_NOTICE_RELEASED,
	PURLIN_RESV_NOTICE_PREEMPTED,
};

#define PURLIN_RESV_MASK_ALL	(1 << PURLIN_RESV_NOTICE_REG_PREEMPTED | \
				 1 << PURLIN_RESV_NOTICE_RELEASED | \
				 1 << PURLIN_RESV_NOTICE_PREEMPTED)

/* Report: the extended data structure (EDS = 1), 64-byte header ... */
struct purlin_resv_status {
	__le32 gen;
	u8 rtype;
	__le16 regctl;
	u8 rsvd7[2];
	u8 ptpls;
	u8 rsvd10[54];
} __packed;

/* ... then one 64-byte Registered Controller extended structure each. */
struct purlin_resv_regctl {
	__le16 cntlid;
	u8 rcsts;
	u8 rsvd3[5];
	__le64 rkey;
	u8 hostid[16];
	u8 rsvd32[32];
} __packed;

/* Reservation Notification log page. */
struct purlin_resv_log_page {
	__le64 count;
	u8 type;
	u8 nr_avail;
	u8 rsvd10[2];
	__le32 nsid;
	u8 rsvd16[48];
} __packed;

static_assert(sizeof(struct purlin_resv_status) == 64);
static_assert(sizeof(struct purlin_resv_regctl) == 64);
static_assert(sizeof(struct purlin_resv_log_page) == 64);

/* A notice to send once the change is made. */
struct purlin_resv_notify {
	uuid_t hostid;
	u8 type;
};

/* The state before a change, to put back when the file write fails. */
struct purlin_resv_undo {
	u32 nr_regs;
	u32 generation;
	u8 type;
	bool ptpl;
	int holder;			/* index into regs, or -1 */
	struct {
		uuid_t hostid;
		u64 rkey;
	} regs[PURLIN_RESV_MAX_REGS];
};

/*
 * What one change needs, allocated before resv->lock is taken: the next
 * snapshot, a registrant to add, and the notices it causes (at most one
 * per registrant).  With resv_file set: a page for the state's text, the
 * undo record, and the registrants the change removed (gone: freed with
 * the op, after the change stands or was undone).
 */
struct purlin_resv_op {
	struct purlin_resv_snap *snap;
	struct purlin_registrant *reg;
	char *text;
	struct list_head gone;
	u32 nr_notify;
	struct purlin_resv_notify notify[PURLIN_RESV_MAX_REGS];
	struct purlin_resv_undo undo;
};

int purlin_resv_init(struct purlin_resv *resv)
{
	resv->inflight = alloc_percpu(struct purlin_resv_inflight);
	if (!resv->inflight)
		return -ENOMEM;
	mutex_init(&resv->lock);
	mutex_init(&resv->drain_lock);
	INIT_LIST_HEAD(&resv->regs);
	return 0;
}

/* Drop every registrant and the reservation.  Caller holds resv->lock. */
static void purlin_resv_free_regs(struct purlin_resv *resv)
{
	struct purlin_registrant *reg, *tmp;

	lockdep_assert_held(&resv->lock);
	list_for_each_entry_safe(reg, tmp, &resv->regs, entry) {
		list_del(&reg->entry);
		kfree(reg);
	}
	resv->nr_regs = 0;
	resv->holder = NULL;
	resv->type = PURLIN_RESV_NONE;
}

/*
 * The namespace object goes: no command can reach it (it was disabled,
 * which waited for every command holding it), so no snapshot reader is
 * left either.
 */
void purlin_resv_exit(struct purlin_resv *resv)
{
	mutex_lock(&resv->lock);
	purlin_resv_free_regs(resv);
	kfree(resv->file);
	resv->file = NULL;
	kfree(rcu_dereference_protected(resv->snap, true));
	RCU_INIT_POINTER(resv->snap, NULL);
	mutex_unlock(&resv->lock);
	mutex_destroy(&resv->lock);
	mutex_destroy(&resv->drain_lock);
	free_percpu(resv->inflight);
}

/* Commands counted in slot idx, summed over the CPUs. */
static unsigned long purlin_resv_inflight(struct purlin_resv *resv,
					  unsigned int idx)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(resv->inflight, cpu)->n[idx]);
	return sum;
}

/*
 * Preempt and Abort: wait until every command counted before now (all
 * that could have passed the access check under the reservation that was
 * just replaced) has completed.  New commands count in the other slot and
 * meet the new reservation.  The old slot only goes down from here, so a
 * sum of zero means it is empty.  Commands complete or their queue's
 * teardown completes them, so this ends.
 */
static void purlin_resv_drain(struct purlin_resv *resv)
{
	unsigned int old;

	mutex_lock(&resv->drain_lock);
	old = resv->epoch & 1;
	/* After the publish: whoever sees the new slot sees the new snap. */
	smp_store_release(&resv->epoch, resv->epoch + 1);
	/* Every check that read the old slot has counted itself in it. */
	synchronize_rcu();
	while (true) {
		smp_mb();
		if (!purlin_resv_inflight(resv, old))
			break;
		msleep(1);
	}
	mutex_unlock(&resv->drain_lock);
}

/* An I/O command to a namespace with reservations on: count, then check. */
u16 purlin_resv_check_counted(struct purlin_req *req)
{
	struct purlin_resv *resv = &req->ns->resv;
	unsigned int idx;
	u16 status;

	rcu_read_lock();
	idx = smp_load_acquire(&resv->epoch) & 1;
	this_cpu_inc(resv->inflight->n[idx]);
	req->resv_slot = idx + 1;
	status = purlin_resv_ns_check(req->ns, req);
	rcu_read_unlock();
	return status;
}

/* The command is done (purlin_req_complete()): it leaves its slot. */
void purlin_resv_io_done(struct purlin_req *req)
{
	/* What the command did happens before a drain sees it gone. */
	smp_mb();
	this_cpu_dec(req->ns->resv.inflight->n[req->resv_slot - 1]);
	req->resv_slot = 0;
}

static bool purlin_resv_all_regs(u8 type)
{
	return type == PURLIN_RESV_WE_AR || type == PURLIN_RESV_EA_AR;
}

static bool purlin_resv_holds(struct purlin_resv *resv,
			      struct purlin_registrant *reg)
{
	if (resv->type == PURLIN_RESV_NONE)
		return false;
	return purlin_resv_all_regs(resv->type) || resv->holder == reg;
}

static struct purlin_registrant *purlin_resv_find(struct purlin_resv *resv,
						  const uuid_t *hostid)
{
	struct purlin_registrant *reg;

	lockdep_assert_held(&resv->lock);
	list_for_each_entry(reg, &resv->regs, entry)
		if (uuid_equal(&reg->hostid, hostid))
			return reg;
	return NULL;
}

/*
 * Publish the state for the I/O path: *spare becomes the snapshot (or
 * NULL goes in while no reservation is held) and the old one is freed
 * after a grace period.  Cannot fail.  Caller holds resv->lock.
 */
static void purlin_resv_publish(struct purlin_resv *resv,
				struct purlin_resv_snap **spare)
{
	struct purlin_resv_snap *snap = NULL, *old;
	struct purlin_registrant *reg;

	lockdep_assert_held(&resv->lock);
	if (resv->type != PURLIN_RESV_NONE) {
		snap = *spare;
		*spare = NULL;
		snap->type = resv->type;
		if (resv->holder)
			uuid_copy(&snap->holder, &resv->holder->hostid);
		else
			memset(&snap->holder, 0, sizeof(snap->holder));
		snap->nr_regs = 0;
		list_for_each_entry(reg, &resv->regs, entry)
			uuid_copy(&snap->regs[snap->nr_regs++], &reg->hostid);
	}
	old = rcu_replace_pointer(resv->snap, snap,
				  lockdep_is_held(&resv->lock));
	if (old)
		kfree_rcu(old, rcu);
}

static void purlin_resv_notice(struct purlin_resv_op *op, const uuid_t *hostid,
			       u8 type)
{
	if (op->nr_notify < ARRAY_SIZE(op->notify)) {
		uuid_copy(&op->notify[op->nr_notify].hostid, hostid);
		op->notify[op->nr_notify++].type = type;
	}
}

/* A notice for every registrant but skip (the host that made the change). */
static void purlin_resv_notice_others(struct purlin_resv *resv,
				      struct purlin_resv_op *op,
				      struct purlin_registrant *skip, u8 type)
{
	struct purlin_registrant *reg;

	list_for_each_entry(reg, &resv->regs, entry)
		if (reg != skip)
			purlin_resv_notice(op, &reg->hostid, type);
}

/* The holder's reservation ends (Release, or the holder unregisters). */
static void purlin_resv_drop(struct purlin_resv *resv,
			     struct purlin_resv_op *op,
			     struct purlin_registrant *by)
{
	u8 type = resv->type;

	resv->type = PURLIN_RESV_NONE;
	resv->holder = NULL;
	if (type != PURLIN_RESV_WE && type != PURLIN_RESV_EA)
		purlin_resv_notice_others(resv, op, by,
					  PURLIN_RESV_NOTICE_RELEASED);
}

/*
 * reg leaves (unregisters, or is preempted: notice then tells it).  A
 * holder's reservation goes with it unless all registrants hold it and
 * others remain.  Caller holds resv->lock.
 */
static void purlin_resv_remove(struct purlin_resv *resv,
			       struct purlin_resv_op *op,
			       struct purlin_registrant *reg, u8 notice)
{
	lockdep_assert_held(&resv->lock);
	list_move(&reg->entry, &op->gone);
	resv->nr_regs--;
	if (purlin_resv_all_regs(resv->type)) {
		if (!resv->nr_regs)
			resv->type = PURLIN_RESV_NONE;
	} else if (resv->holder == reg) {
		purlin_resv_drop(resv, op, reg);
	}
	if (notice)
		purlin_resv_notice(op, &reg->hostid, notice);
}

static u16 purlin_resv_register(struct purlin_resv *resv,
				struct purlin_resv_op *op,
				const uuid_t *hostid, u32 cdw10,
				u64 crkey, u64 nrkey)
{
	struct purlin_registrant *reg = purlin_resv_find(resv, hostid);
	bool iekey = cdw10 & PURLIN_RESV_IEKEY;

	switch (PURLIN_RESV_ACTION(cdw10)) {
	case PURLIN_RREGA_REGISTER:
		if (reg)
			return reg->rkey == nrkey ? 0 :
			       NVME_SC_RESERVATION_CONFLICT | PURLIN_DNR;
		break;
	case PURLIN_RREGA_UNREGISTER:
		if (!reg || (!iekey && reg->rkey != crkey))
			return NVME_SC_RESERVATION_CONFLICT | PURLIN_DNR;
		purlin_resv_remove(resv, op, reg, 0);
		return 0;
	case PURLIN_RREGA_REPLACE:
		if (reg) {
			if (!iekey && reg->rkey != crkey)
				return NVME_SC_RESERVATION_CONFLICT | PURLIN_DNR;
			reg->rkey = nrkey;
			return 0;
		}
		/* A host that is not registered may only replace blind. */
		if (!iekey)
			return NVME_SC_RESERVATION_CONFLICT | PURLIN_DNR;
		break;
	default:
		return NVME_SC_INVALID_FIELD | PURLIN_DNR;
	}
	if (resv->nr_regs >= PURLIN_RESV_MAX_REGS)
		return NVME_SC_CAP_EXCEEDED | PURLIN_DNR;
	reg = op->reg;
	op->reg = NULL;
	uuid_copy(&reg->hostid, hostid);
	reg->rkey = nrkey;
	list_add_tail(&reg->entry, &resv->regs);
	resv->nr_regs++;
	return 0;
}

/* Unregister every registrant but self whose key is key; how many went. */
static u32 purlin_resv_preempt_key(struct purlin_resv *resv,
				   struct purlin_resv_op *op,
				   struct purlin_registrant *self, u64 key,
				   bool any_key)
{
	struct purlin_registrant *reg, *tmp;
	u32 n = 0;

	list_for_each_entry_safe(reg, tmp, &resv->regs, entry) {
		if (reg == self || (!any_key && reg->rkey != key))
			continue;
		purlin_resv_remove(resv, op, reg,
				   PURLIN_RESV_NOTICE_REG_PREEMPTED);
		n++;
	}
	return n;
}

static void purlin_resv_take(struct purlin_resv *resv,
			     struct purlin_registrant *reg, u8 rtype)
{
	resv->type = rtype;
	resv->holder = purlin_resv_all_regs(rtype) ? NULL : reg;
}

static u16 purlin_resv_acquire(struct purlin_resv *resv,
			       struct purlin_resv_op *op,
			       const uuid_t *hostid, u32 cdw10,
			       u64 crkey, u64 prkey)
{
	struct purlin_registrant *reg = purlin_resv_find(resv, hostid);
	u8 rtype = PURLIN_RESV_RTYPE(cdw10);
	u8 action = PURLIN_RESV_ACTION(cdw10);

	/* IEKEY applies to Register only (RESCAP IEK_13). */
	if ((cdw10 & PURLIN_RESV_IEKEY) || action > PURLIN_RACQA_PREEMPT_ABORT ||
	    rtype == PURLIN_RESV_NONE || rtype >= PURLIN_RESV_TYPES)
		return NVME_SC_INVALID_FIELD | PURLIN_DNR;
	if (!reg || reg->rkey != crkey)
		return NVME_SC_RESERVATION_CONFLICT | PURLIN_DNR;

	if (action == PURLIN_RACQA_ACQUIRE) {
		if (resv->type == PURLIN_RESV_NONE) {
			purlin_resv_take(resv, reg, rtype);
			return 0;
		}
		if (resv->type == rtype && purlin_resv_holds(resv, reg))
			return 0;
		return NVME_SC_RESERVATION_CONFLICT | PURLIN_DNR;
	}

	/* Preempt, or Preempt and Abort (see the top of this file). */
	if (resv->type == PURLIN_RESV_NONE) {
		if (!purlin_resv_preempt_key(resv, op, reg, prkey, false))
			return NVME_SC_RESERVATION_CONFLICT | PURLIN_DNR;
		return 0;
	}
	if (purlin_resv_all_regs(resv->type)) {
		if (!prkey) {
			purlin_resv_preempt_key(resv, op, reg, 0, true);
			purlin_resv_take(resv, reg, rtype);
			return 0;
		}
		if (!purlin_resv_preempt_key(resv, op, reg, prkey, false))
			return NVME_SC_RESERVATION_CONFLICT | PURLIN_DNR;
		return 0;
	}
	if (resv->holder->rkey == prkey) {
		/*
		 * The holder is preempted (or changes the type): the
		 * reservation passes on, it is not released, so the holder
		 * leaves without the Reservation Released notices.
		 */
		resv->holder = NULL;
		resv->type = PURLIN_RESV_NONE;
		purlin_resv_preempt_key(resv, op, reg, prkey, false);
		purlin_resv_take(resv, reg, rtype);
		return 0;
	}
	if (!prkey)
		return NVME_SC_INVALID_FIELD | PURLIN_DNR;
	if (!purlin_resv_preempt_key(resv, op, reg, prkey, false))
		return NVME_SC_RESERVATION_CONFLICT | PURLIN_DNR;
	return 0;
}

static u16 purlin_resv_release(struct purlin_resv *resv,
			       struct purlin_resv_op *op,
			       const uuid_t *hostid, u32 cdw10, u64 crkey)
{
	struct purlin_registrant *reg = purlin_resv_find(resv, hostid);
	u8 action = PURLIN_RESV_ACTION(cdw10);

	if ((cdw10 & PURLIN_RESV_IEKEY) || action > PURLIN_RRELA_CLEAR)
		return NVME_SC_INVALID_FIELD | PURLIN_DNR;
	if (!reg || reg->rkey != crkey)
		return NVME_SC_RESERVATION_CONFLICT | PURLIN_DNR;
	if (action == PURLIN_RRELA_CLEAR) {
		purlin_resv_notice_others(resv, op, reg,
					  PURLIN_RESV_NOTICE_PREEMPTED);
		list_splice_init(&resv->regs, &op->gone);
		resv->nr_regs = 0;
		resv->holder = NULL;
		resv->type = PURLIN_RESV_NONE;
		resv->generation++;
		return 0;
	}
	/* Releasing what one does not hold succeeds and changes nothing. */
	if (!purlin_resv_holds(resv, reg))
		return 0;
	if (PURLIN_RESV_RTYPE(cdw10) != resv->type)
		return NVME_SC_INVALID_FIELD | PURLIN_DNR;
	purlin_resv_drop(resv, op, reg);
	return 0;
}

static void purlin_resv_op_free(struct purlin_resv_op *op)
{
	struct purlin_registrant *reg, *tmp;

	list_for_each_entry_safe(reg, tmp, &op->gone, entry)
		kfree(reg);
	kfree(op->text);
	kfree(op->snap);
	kfree(op->reg);
	kfree(op);
}

/* text: a page for the state's text (resv_file set). */
static struct purlin_resv_op *purlin_resv_op_alloc(bool reg, bool text)
{
	struct purlin_resv_op *op = kzalloc(sizeof(*op), GFP_KERNEL);

	if (!op)
		return NULL;
	INIT_LIST_HEAD(&op->gone);
	op->snap = kzalloc(sizeof(*op->snap), GFP_KERNEL);
	if (reg)
		op->reg = kzalloc(sizeof(*op->reg), GFP_KERNEL);
	if (text)
		op->text = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!op->snap || (reg && !op->reg) || (text && !op->text)) {
		purlin_resv_op_free(op);
		return NULL;
	}
	return op;
}

/* The state as resv_state shows it.  Caller holds resv->lock. */
static ssize_t purlin_resv_format(struct purlin_resv *resv, char *page)
{
	struct purlin_registrant *reg;
	ssize_t n;

	lockdep_assert_held(&resv->lock);
	n = scnprintf(page, PAGE_SIZE, "generation=%u type=%u ptpl=%u\n",
		      resv->generation, resv->type, resv->ptpl);
	list_for_each_entry(reg, &resv->regs, entry)
		n += scnprintf(page + n, PAGE_SIZE - n,
			       "registrant hostid=%pUb rkey=0x%016llx holder=%u\n",
			       &reg->hostid, reg->rkey,
			       purlin_resv_holds(resv, reg));
	return n;
}

/* Record the state before a change.  Caller holds resv->lock. */
static void purlin_resv_save_undo(struct purlin_resv *resv,
				  struct purlin_resv_undo *u)
{
	struct purlin_registrant *reg;
	u32 i = 0;

	lockdep_assert_held(&resv->lock);
	u->generation = resv->generation;
	u->type = resv->type;
	u->ptpl = resv->ptpl;
	u->holder = -1;
	list_for_each_entry(reg, &resv->regs, entry) {
		uuid_copy(&u->regs[i].hostid, &reg->hostid);
		u->regs[i].rkey = reg->rkey;
		if (resv->holder == reg)
			u->holder = i;
		i++;
	}
	u->nr_regs = i;
}

/*
 * Put back the state recorded in op->undo, and drop the change's notices.
 * Every registrant the state had is still in resv->regs or op->gone (a
 * change frees none), so there are enough to refill; the others (one
 * Register added) go with the op.  Caller holds resv->lock.
 */
static void purlin_resv_undo(struct purlin_resv *resv,
			     struct purlin_resv_op *op)
{
	struct purlin_resv_undo *u = &op->undo;
	struct purlin_registrant *reg;
	LIST_HEAD(pool);
	u32 i;

	lockdep_assert_held(&resv->lock);
	list_splice_init(&resv->regs, &pool);
	list_splice_init(&op->gone, &pool);
	resv->holder = NULL;
	for (i = 0; i < u->nr_regs; i++) {
		reg = list_first_entry(&pool, struct purlin_registrant, entry);
		list_move_tail(&reg->entry, &resv->regs);
		uuid_copy(&reg->hostid, &u->regs[i].hostid);
		reg->rkey = u->regs[i].rkey;
		if (u->holder == i)
			resv->holder = reg;
	}
	list_splice(&pool, &op->gone);
	resv->nr_regs = u->nr_regs;
	resv->generation = u->generation;
	resv->type = u->type;
	WRITE_ONCE(resv->ptpl, u->ptpl);
	op->nr_notify = 0;
}

/*
 * The file write failed: the NVMe status the command completes with.
 * Nothing changed, whatever the cause; a full or read-only file system,
 * a missing directory or a permission error will fail again (DNR).
 */
static u16 purlin_resv_file_status(struct purlin_ns *ns, int err)
{
	pr_err_ratelimited("subsystem %s: namespace %u: resv_file %s: write failed (%d); the reservation change is refused\n",
			   ns->subsys->subsysnqn, ns->nsid, ns->resv.file, err);
	if (err == -ENOMEM || err == -EINTR)
		return NVME_SC_INTERNAL;
	return NVME_SC_INTERNAL | PURLIN_DNR;
}

/* The inode of a namespace's file back end, which no state write may touch. */
static const struct inode *purlin_resv_keep(struct purlin_resv *resv)
{
	struct purlin_ns *ns = container_of(resv, struct purlin_ns, resv);

	return ns->backend == &purlin_file_ops ? file_inode(ns->file) : NULL;
}

/*
 * Write the state to resv_file if it must be kept: PTPL is 1 now, or was
 * before the change (then the file gets ptpl=0, which enable never loads).
 * Caller holds resv->lock; text is a page.  *replaced: see
 * purlin_resv_file_write().
 */
static int purlin_resv_persist(struct purlin_resv *resv, char *text,
			       bool was_ptpl, bool *replaced)
{
	ssize_t n;

	lockdep_assert_held(&resv->lock);
	*replaced = false;
	if (!resv->file || (!was_ptpl && !resv->ptpl))
		return 0;
	n = purlin_resv_format(resv, text);
	return purlin_resv_file_write(resv->file, text, n,
				      purlin_resv_keep(resv), replaced);
}

/*
 * A write failed after its rename (the directory's fsync): the file holds
 * the change that was refused and undone.  Put the undone state back in
 * it, as far as the file system still lets us, so that an enable does not
 * load a change no host was told of.  Caller holds resv->lock.
 */
static void purlin_resv_persist_undone(struct purlin_ns *ns, char *text)
{
	struct purlin_resv *resv = &ns->resv;
	bool replaced;
	ssize_t n;
	int err;

	lockdep_assert_held(&resv->lock);
	n = purlin_resv_format(resv, text);
	err = purlin_resv_file_write(resv->file, text, n,
				     purlin_resv_keep(resv), &replaced);
	if (err)
		pr_err_ratelimited("subsystem %s: namespace %u: resv_file %s may hold a refused change (%d)\n",
				   ns->subsys->subsysnqn, ns->nsid,
				   resv->file, err);
}

/* Register, Acquire and Release: read the keys, change, tell, complete. */
static void purlin_resv_change_work(struct work_struct *w)
{
	struct purlin_req *req = container_of(w, struct purlin_req, work);
	struct purlin_ctrl *ctrl = req->sq->ctrl;
	struct purlin_ns *ns = req->ns;
	struct purlin_resv *resv = &ns->resv;
	u32 cdw10 = le32_to_cpu(req->cmd->common.cdw10);
	u8 opcode = req->cmd->common.opcode;
	struct purlin_resv_op *op;
	__le64 keys[2] = {};
	u16 status;
	u32 i;

	status = purlin_copy_from_sg(req, 0, keys, req->data_len);
	if (status)
		goto complete;
	if (opcode == nvme_cmd_resv_register &&
	    PURLIN_RESV_CPTPL(cdw10) == 1) {
		status = NVME_SC_INVALID_FIELD | PURLIN_DNR;
		goto complete;
	}
	/* resv->file is stable while the namespace is enabled. */
	op = purlin_resv_op_alloc(opcode == nvme_cmd_resv_register,
				  resv->file != NULL);
	if (!op) {
		status = NVME_SC_INTERNAL;
		goto complete;
	}

	mutex_lock(&resv->lock);
	if (resv->file)
		purlin_resv_save_undo(resv, &op->undo);
	switch (opcode) {
	case nvme_cmd_resv_register:
		status = purlin_resv_register(resv, op, &ctrl->hostid, cdw10,
					      le64_to_cpu(keys[0]),
					      le64_to_cpu(keys[1]));
		if (!status && PURLIN_RESV_CPTPL(cdw10))
			WRITE_ONCE(resv->ptpl, PURLIN_RESV_CPTPL(cdw10) == 3);
		break;
	case nvme_cmd_resv_acquire:
		status = purlin_resv_acquire(resv, op, &ctrl->hostid, cdw10,
					     le64_to_cpu(keys[0]),
					     le64_to_cpu(keys[1]));
		break;
	default:
		status = purlin_resv_release(resv, op, &ctrl->hostid, cdw10,
					     le64_to_cpu(keys[0]));
		break;
	}
	/*
	 * GEN counts every successful Register (even one that changes
	 * nothing), Preempt, Preempt and Abort and Clear.
	 */
	if (!status && (opcode == nvme_cmd_resv_register ||
			(opcode == nvme_cmd_resv_acquire &&
			 PURLIN_RESV_ACTION(cdw10) != PURLIN_RACQA_ACQUIRE)))
		resv->generation++;
	if (!status && resv->file) {
		bool replaced;
		int err = purlin_resv_persist(resv, op->text, op->undo.ptpl,
					      &replaced);

		if (err) {
			purlin_resv_undo(resv, op);
			status = purlin_resv_file_status(ns, err);
			if (replaced)
				purlin_resv_persist_undone(ns, op->text);
		}
	}
	if (!status)
		purlin_resv_publish(resv, &op->snap);
	mutex_unlock(&resv->lock);

	for (i = 0; i < op->nr_notify; i++)
		purlin_resv_event(ns->subsys, ns->nsid, &op->notify[i].hostid,
				  op->notify[i].type);
	purlin_resv_op_free(op);
	if (!status && opcode == nvme_cmd_resv_acquire &&
	    PURLIN_RESV_ACTION(cdw10) == PURLIN_RACQA_PREEMPT_ABORT)
		purlin_resv_drain(resv);
complete:
	purlin_req_complete(req, status);
}

/* The controller of this subsystem a registered host has, or FFFFh. */
static u16 purlin_resv_cntlid(struct purlin_subsys *subsys,
			      const uuid_t *hostid)
{
	struct purlin_ctrl *ctrl;
	u16 cntlid = 0xffff;

	mutex_lock(&subsys->lock);
	list_for_each_entry(ctrl, &subsys->ctrls, entry) {
		if (uuid_equal(&ctrl->hostid, hostid) && !READ_ONCE(ctrl->fatal)) {
			cntlid = ctrl->cntlid;
			break;
		}
	}
	mutex_unlock(&subsys->lock);
	return cntlid;
}

/*
 * Reservation Report: the extended data structure only, since host
 * identifiers here are 128 bits; one Registered Controller entry per
 * registered host, as much as the host's buffer holds.
 */
static void purlin_resv_report_work(struct work_struct *w)
{
	struct purlin_req *req = container_of(w, struct purlin_req, work);
	struct purlin_ns *ns = req->ns;
	struct purlin_resv *resv = &ns->resv;
	size_t size = sizeof(struct purlin_resv_status) +
		      PURLIN_RESV_MAX_REGS * sizeof(struct purlin_resv_regctl);
	struct purlin_resv_status *hdr;
	struct purlin_resv_regctl *rc;
	struct purlin_registrant *reg;
	u32 n = 0, len;
	u16 status;

	if (!(le32_to_cpu(req->cmd->common.cdw11) & 1)) {
		purlin_req_complete(req, NVME_SC_HOST_ID_INCONSIST | PURLIN_DNR);
		return;
	}
	hdr = kzalloc(size, GFP_KERNEL);
	if (!hdr) {
		purlin_req_complete(req, NVME_SC_INTERNAL);
		return;
	}
	rc = (struct purlin_resv_regctl *)(hdr + 1);
	mutex_lock(&resv->lock);
	hdr->gen = cpu_to_le32(resv->generation);
	hdr->rtype = resv->type;
	hdr->regctl = cpu_to_le16(resv->nr_regs);
	hdr->ptpls = resv->ptpl;
	list_for_each_entry(reg, &resv->regs, entry) {
		rc[n].cntlid = cpu_to_le16(purlin_resv_cntlid(ns->subsys,
							      &reg->hostid));
		rc[n].rcsts = purlin_resv_holds(resv, reg);
		rc[n].rkey = cpu_to_le64(reg->rkey);
		memcpy(rc[n].hostid, &reg->hostid, sizeof(rc[n].hostid));
		n++;
	}
	mutex_unlock(&resv->lock);

	len = min_t(u32, req->data_len, sizeof(*hdr) + n * sizeof(*rc));
	status = purlin_copy_to_sg(req, 0, hdr, len);
	if (!status)
		status = purlin_zero_sg(req, len, req->data_len - len);
	kfree(hdr);
	purlin_req_complete(req, status);
}

static void purlin_execute_resv(struct purlin_req *req)
{
	if (req->cmd->common.opcode == nvme_cmd_resv_report)
		INIT_WORK(&req->work, purlin_resv_report_work);
	else
		INIT_WORK(&req->work, purlin_resv_change_work);
	queue_work(purlin_resv_wq, &req->work);
}

/*
 * A reservation command to req->ns (found, ANA-accessible).  They wait on
 * a mutex and allocate, so they run on purlin_resv_wq, never in the
 * transport's receive or polling context.
 */
u16 purlin_parse_resv(struct purlin_req *req)
{
	struct nvme_command *cmd = req->cmd;
	u32 numd;

	if (!READ_ONCE(req->ns->resv.enabled))
		return NVME_SC_INVALID_OPCODE | PURLIN_DNR;
	/*
	 * Registrations are keyed by the host ID: a host without one would
	 * share its registration with every other such host.
	 */
	if (uuid_is_null(&req->sq->ctrl->hostid))
		return NVME_SC_HOST_ID_INCONSIST | PURLIN_DNR;
	switch (cmd->common.opcode) {
	case nvme_cmd_resv_register:
	case nvme_cmd_resv_acquire:
		req->data_len = 2 * sizeof(__le64);
		break;
	case nvme_cmd_resv_release:
		/*
		 * Eight bytes (CRKEY); Linux's block layer sends its
		 * Release and Clear in the 16-byte buffer of the other two.
		 */
		req->data_len = sizeof(__le64);
		req->data_len_min = true;
		break;
	case nvme_cmd_resv_report:
		numd = le32_to_cpu(cmd->common.cdw10);
		if (numd >= PURLIN_MAX_XFER / 4)
			return NVME_SC_INVALID_FIELD | PURLIN_DNR;
		req->data_len = (numd + 1) * 4;
		req->to_host = true;
		break;
	}
	req->execute = purlin_execute_resv;
	return 0;
}

static bool purlin_resv_snap_has(const struct purlin_resv_snap *snap,
				 const uuid_t *hostid)
{
	u32 i;

	for (i = 0; i < snap->nr_regs; i++)
		if (uuid_equal(&snap->regs[i], hostid))
			return true;
	return false;
}

/*
 * The access rules (NVMe Base 2.0, Command Behavior in the Presence of a
 * Reservation): Read is of the read group; Write, Write Zeroes, Dataset
 * Management and Flush of the write group.  Called only while a
 * reservation is held; no lock, no allocation.
 */
u16 purlin_resv_check_io(struct purlin_ns *ns, struct purlin_req *req)
{
	const uuid_t *hostid = &req->sq->ctrl->hostid;
	bool write = req->cmd->common.opcode != nvme_cmd_read;
	const struct purlin_resv_snap *snap;
	bool ok = true;

	rcu_read_lock();
	snap = rcu_dereference(ns->resv.snap);
	if (snap) {
		switch (snap->type) {
		case PURLIN_RESV_WE:
			ok = !write || uuid_equal(&snap->holder, hostid);
			break;
		case PURLIN_RESV_EA:
			ok = uuid_equal(&snap->holder, hostid);
			break;
		case PURLIN_RESV_WE_RO:
		case PURLIN_RESV_WE_AR:
			ok = !write || purlin_resv_snap_has(snap, hostid);
			break;
		default:
			ok = purlin_resv_snap_has(snap, hostid);
			break;
		}
	}
	rcu_read_unlock();
	return ok ? 0 : NVME_SC_RESERVATION_CONFLICT | PURLIN_DNR;
}

/* Identify Namespace RESCAP: PTPL, all six types, IEKEY as of 1.3. */
u8 purlin_resv_rescap(struct purlin_ns *ns)
{
	return READ_ONCE(ns->resv.enabled) ? 0xff : 0;
}

/* Reservation Notification log page: the oldest notice, consumed. */
void purlin_log_resv(struct purlin_req *req)
{
	bool retain = le32_to_cpu(req->cmd->common.cdw10) & (1 << 15);
	struct purlin_resv_log_page page = {};
	struct purlin_resv_notice notice;
	u32 left;

	if (purlin_take_resv_notice(req->sq->ctrl, &notice, &left, retain)) {
		page.count = cpu_to_le64(notice.count);
		page.type = notice.type;
		page.nr_avail = min_t(u32, left, 255);
		page.nsid = cpu_to_le32(notice.nsid);
	}
	purlin_complete_log(req, &page, sizeof(page));
}

/* The namespace a reservation feature names: active, reservations on. */
static u16 purlin_resv_feat_ns(struct purlin_req *req, struct purlin_ns **nsp)
{
	u32 nsid = le32_to_cpu(req->cmd->common.nsid);
	struct purlin_ns *ns;

	if (nsid < 1 || nsid > PURLIN_MAX_NSID)
		return NVME_SC_INVALID_NS | PURLIN_DNR;
	ns = purlin_ns_get(req->sq->ctrl->subsys, nsid);
	if (!ns)
		return NVME_SC_INVALID_NS | PURLIN_DNR;
	if (!READ_ONCE(ns->resv.enabled)) {
		purlin_ns_put(ns);
		return NVME_SC_INVALID_FIELD | PURLIN_DNR;
	}
	*nsp = ns;
	return 0;
}

/* Set Features Reservation Notification Mask. */
u16 purlin_resv_set_features(struct purlin_req *req, u8 fid)
{
	struct purlin_ctrl *ctrl = req->sq->ctrl;
	u32 cdw11 = le32_to_cpu(req->cmd->common.cdw11);
	struct purlin_ns *ns;
	u16 status;

	if (le32_to_cpu(req->cmd->common.cdw10) & (1U << 31))
		return NVME_SC_FEATURE_NOT_SAVEABLE | PURLIN_DNR;
	if (fid == NVME_FEAT_RESV_MASK &&
	    req->cmd->common.nsid == cpu_to_le32(NVME_NSID_ALL)) {
		mutex_lock(&ctrl->lock);
		memset(ctrl->resv_mask, cdw11 & PURLIN_RESV_MASK_ALL,
		       sizeof(ctrl->resv_mask));
		mutex_unlock(&ctrl->lock);
		return 0;
	}
	status = purlin_resv_feat_ns(req, &ns);
	if (status)
		return status;
	mutex_lock(&ctrl->lock);
	ctrl->resv_mask[ns->nsid] = cdw11 & PURLIN_RESV_MASK_ALL;
	mutex_unlock(&ctrl->lock);
	purlin_ns_put(ns);
	return 0;
}

/* Set Features Reservation Persistence, on purlin_resv_wq: it may write. */
static void purlin_resv_ptpl_work(struct work_struct *w)
{
	struct purlin_req *req = container_of(w, struct purlin_req, work);
	struct purlin_ns *ns = req->ns;
	struct purlin_resv *resv = &ns->resv;
	bool ptpl = le32_to_cpu(req->cmd->common.cdw11) & 1;
	char *text = NULL;
	u16 status = 0;
	bool was, replaced;
	int err;

	if (resv->file) {
		text = kmalloc(PAGE_SIZE, GFP_KERNEL);
		if (!text) {
			purlin_req_complete(req, NVME_SC_INTERNAL);
			return;
		}
	}
	mutex_lock(&resv->lock);
	was = resv->ptpl;
	if (was != ptpl) {
		WRITE_ONCE(resv->ptpl, ptpl);
		err = purlin_resv_persist(resv, text, was, &replaced);
		if (err) {
			WRITE_ONCE(resv->ptpl, was);
			status = purlin_resv_file_status(ns, err);
			if (replaced)
				purlin_resv_persist_undone(ns, text);
		}
	}
	mutex_unlock(&resv->lock);
	kfree(text);
	purlin_req_complete(req, status);
}

/*
 * Set Features Reservation Persistence (admin.c hands it over whole): the
 * file write it may cause runs on purlin_resv_wq, not in the admin queue's
 * completion context.  req->ns holds the namespace until it completes.
 */
void purlin_resv_set_ptpl(struct purlin_req *req)
{
	struct purlin_ns *ns;
	u16 status;

	if (le32_to_cpu(req->cmd->common.cdw10) & (1U << 31)) {
		purlin_req_complete(req, NVME_SC_FEATURE_NOT_SAVEABLE |
				    PURLIN_DNR);
		return;
	}
	status = purlin_resv_feat_ns(req, &ns);
	if (status) {
		purlin_req_complete(req, status);
		return;
	}
	req->ns = ns;
	INIT_WORK(&req->work, purlin_resv_ptpl_work);
	queue_work(purlin_resv_wq, &req->work);
}

u16 purlin_resv_get_features(struct purlin_req *req, u8 fid)
{
	struct purlin_ctrl *ctrl = req->sq->ctrl;
	struct purlin_ns *ns;
	u16 status;
	u32 val;

	status = purlin_resv_feat_ns(req, &ns);
	if (status)
		return status;
	if (fid == NVME_FEAT_RESV_MASK) {
		mutex_lock(&ctrl->lock);
		val = ctrl->resv_mask[ns->nsid];
		mutex_unlock(&ctrl->lock);
	} else {
		/* Lockless: a file write may hold resv.lock for long. */
		val = READ_ONCE(ns->resv.ptpl);
	}
	purlin_ns_put(ns);
	purlin_req_set_result(req, val);
	return 0;
}

/* ---- resv_state: the state as text (configfs) --------------------------- */

/*
 * One header line, then one line per registrant (Documentation/configfs.md):
 *   generation=<u32> type=<0..6> ptpl=<0|1>
 *   registrant hostid=<uuid> rkey=0x<16 hex digits> holder=<0|1>
 * holder=1 marks the holder; under the All Registrants types every
 * registrant holds.
 */
ssize_t purlin_resv_state_show(struct purlin_ns *ns, char *page)
{
	struct purlin_resv *resv = &ns->resv;
	ssize_t n;

	mutex_lock(&resv->lock);
	n = purlin_resv_format(resv, page);
	mutex_unlock(&resv->lock);
	return n;
}

/* The next line of *s (without its newline); false at the end. */
static bool purlin_next_line(char **s, char **line)
{
	if (!**s)
		return false;
	*line = strsep(s, "\n");
	if (!*s)
		*s = *line + strlen(*line);
	return true;
}

/* "name=value" with value of at most len - 1 characters, into val. */
static int purlin_field(char **s, const char *name, char *val, size_t len)
{
	char *tok = strsep(s, " ");
	size_t nlen = strlen(name);

	if (!tok || strncmp(tok, name, nlen) || tok[nlen] != '=' ||
	    strscpy(val, tok + nlen + 1, len) <= 0)
		return -EINVAL;
	return 0;
}

static int purlin_field_u32(char **s, const char *name, u32 max, u32 *out)
{
	char val[12];

	if (purlin_field(s, name, val, sizeof(val)) ||
	    val[0] == '+' || kstrtou32(val, 10, out) || *out > max)
		return -EINVAL;
	return 0;
}

static int purlin_parse_registrant(char *line, struct purlin_registrant *reg,
				   u32 *holder)
{
	char *s = line, val[UUID_STRING_LEN + 1];
	int i;

	if (strncmp(s, "registrant ", 11))
		return -EINVAL;
	s += 11;
	if (purlin_field(&s, "hostid", val, sizeof(val)) ||
	    strlen(val) != UUID_STRING_LEN || uuid_parse(val, &reg->hostid))
		return -EINVAL;
	if (purlin_field(&s, "rkey", val, sizeof(val)) ||
	    strlen(val) != 18 || strncmp(val, "0x", 2))
		return -EINVAL;
	for (i = 2; i < 18; i++)
		if (!isxdigit(val[i]))
			return -EINVAL;
	if (kstrtou64(val + 2, 16, &reg->rkey))
		return -EINVAL;
	if (purlin_field_u32(&s, "holder", 1, holder) || s)
		return -EINVAL;
	return 0;
}

/*
 * Replace the state with the text (the form resv_state shows), all of it
 * or nothing.  The caller holds ns->enable_lock and checked that the
 * namespace is disabled.  While reservations are off only the empty state
 * is taken (and changes nothing): what resv_state shows always goes back.
 * With only_ptpl (loading resv_file), a well-formed state whose ptpl is 0
 * is not taken either: returns 1 then.
 */
static int purlin_resv_state_set(struct purlin_ns *ns, const char *page,
				 size_t count, bool only_ptpl)
{
	struct purlin_resv *resv = &ns->resv;
	struct purlin_registrant *reg, *tmp, *holder = NULL;
	struct purlin_resv_op *op;
	u32 gen, type, ptpl, is_holder, nr = 0, nr_holders = 0;
	char *buf, *s, *line;
	LIST_HEAD(regs);
	int ret = -EINVAL;

	lockdep_assert_held(&ns->enable_lock);
	/* A NUL would hide what follows it from the parse: refused. */
	if (memchr(page, 0, count))
		return -EINVAL;
	buf = kmemdup_nul(page, count, GFP_KERNEL);
	op = purlin_resv_op_alloc(false, false);
	if (!buf || !op) {
		ret = -ENOMEM;
		goto out;
	}
	s = buf;
	if (!purlin_next_line(&s, &line))
		goto out;
	if (purlin_field_u32(&line, "generation", U32_MAX, &gen) ||
	    purlin_field_u32(&line, "type", PURLIN_RESV_TYPES - 1, &type) ||
	    purlin_field_u32(&line, "ptpl", 1, &ptpl) || line)
		goto out;
	while (purlin_next_line(&s, &line)) {
		ret = -E2BIG;
		if (nr == PURLIN_RESV_MAX_REGS)
			goto out;
		ret = -ENOMEM;
		reg = kzalloc(sizeof(*reg), GFP_KERNEL);
		if (!reg)
			goto out;
		list_add_tail(&reg->entry, &regs);
		nr++;
		ret = -EINVAL;
		if (purlin_parse_registrant(line, reg, &is_holder))
			goto out;
		list_for_each_entry(tmp, &regs, entry)
			if (tmp != reg && uuid_equal(&tmp->hostid, &reg->hostid))
				goto out;
		if (is_holder) {
			nr_holders++;
			holder = reg;
		}
	}
	/*
	 * No reservation: no holder.  All Registrants: every registrant
	 * holds.  Other types: exactly one holder.
	 */
	ret = -EINVAL;
	if (type == PURLIN_RESV_NONE ? nr_holders :
	    purlin_resv_all_regs(type) ? !nr || nr_holders != nr :
	    nr_holders != 1)
		goto out;
	/* Reservations off: only the empty state they show is taken back. */
	if (!resv->enabled) {
		if (gen || type || ptpl || nr)
			goto out;
		ret = 0;
		goto out;
	}
	if (only_ptpl && !ptpl) {
		ret = 1;
		goto out;
	}

	mutex_lock(&resv->lock);
	purlin_resv_free_regs(resv);
	list_splice_tail_init(&regs, &resv->regs);
	resv->nr_regs = nr;
	resv->type = type;
	resv->holder = purlin_resv_all_regs(type) ? NULL : holder;
	resv->generation = gen;
	WRITE_ONCE(resv->ptpl, ptpl);
	purlin_resv_publish(resv, &op->snap);
	mutex_unlock(&resv->lock);
	ret = 0;
out:
	list_for_each_entry_safe(reg, tmp, &regs, entry) {
		list_del(&reg->entry);
		kfree(reg);
	}
	if (op)
		purlin_resv_op_free(op);
	kfree(buf);
	return ret;
}

int purlin_resv_state_store(struct purlin_ns *ns, const char *page,
			    size_t count)
{
	return purlin_resv_state_set(ns, page, count, false);
}

/*
 * Whether a state write at path would truncate or rename over the
 * namespace's device_path: path or "<path>.tmp" is that name.
 */
static bool purlin_resv_file_names_device(struct purlin_ns *ns,
					  const char *path)
{
	const char *dev = ns->device_path;
	size_t n = strlen(path);

	return dev && (!strcmp(dev, path) ||
		       (!strncmp(dev, path, n) && !strcmp(dev + n, ".tmp")));
}

/*
 * resv_file: an absolute path (not a directory's: no trailing '/', no
 * final "." or ".."), or "" for none.  Caller holds ns->enable_lock, the
 * namespace is disabled.
 */
int purlin_resv_set_file(struct purlin_ns *ns, const char *path)
{
	struct purlin_resv *resv = &ns->resv;
	const char *base = strrchr(path, '/');
	char *copy = NULL;

	lockdep_assert_held(&ns->enable_lock);
	if (*path) {
		if (path[0] != '/' || !base[1] || !strcmp(base, "/.") ||
		    !strcmp(base, "/..") ||
		    strlen(path) + sizeof(".tmp") > PATH_MAX)
			return -EINVAL;
		/* Renaming over the namespace's own data would destroy it. */
		if (purlin_resv_file_names_device(ns, path))
			return -EINVAL;
		if (!purlin_resv_file_supported())
			return -EOPNOTSUPP;
		copy = kstrdup(path, GFP_KERNEL);
		if (!copy)
			return -ENOMEM;
	}
	mutex_lock(&resv->lock);
	kfree(resv->file);
	resv->file = copy;
	mutex_unlock(&resv->lock);
	return 0;
}

/*
 * At namespace enable (caller holds ns->enable_lock, still disabled): with
 * reservations on and resv_file set, a file holding ptpl=1 replaces the
 * state; no file, or one holding ptpl=0, leaves it as it is.  A file that
 * cannot be read or is not a well-formed state fails the enable (and
 * changes nothing), with the reason in the kernel log.
 */
int purlin_resv_load(struct purlin_ns *ns)
{
	struct purlin_resv *resv = &ns->resv;
	const char *nqn = ns->subsys->subsysnqn;
	ssize_t n;
	char *buf;
	int ret;

	lockdep_assert_held(&ns->enable_lock);
	if (!resv->enabled || !resv->file)
		return 0;
	/*
	 * device_path may have changed since resv_file was set, or name the
	 * same file another way (a hard link, a linked directory): a state
	 * write would then truncate the namespace's data or rename over it.
	 */
	ret = purlin_resv_file_names_device(ns, resv->file);
	if (!ret && ns->backend == &purlin_file_ops)
		ret = purlin_resv_file_hits(resv->file, ns->file);
	if (ret < 0)
		return ret;
	if (ret) {
		pr_err("subsystem %s: namespace %u: resv_file %s (or its .tmp) is the namespace's own data %s; not enabled\n",
		       nqn, ns->nsid, resv->file, ns->device_path);
		return -EINVAL;
	}
	buf = kmalloc(PAGE_SIZE + 1, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	n = purlin_resv_file_read(resv->file, buf, PAGE_SIZE + 1);
	if (n == -ENOENT) {
		pr_info("subsystem %s: namespace %u: resv_file %s does not exist yet; reservation state kept as it is\n",
			nqn, ns->nsid, resv->file);
		ret = 0;
		goto out;
	}
	if (n < 0) {
		ret = n;
		pr_err("subsystem %s: namespace %u: resv_file %s: cannot read (%d)%s; not enabled\n",
		       nqn, ns->nsid, resv->file, ret,
		       ret == -EFBIG ? ", larger than a state can be" : "");
		goto out;
	}
	ret = purlin_resv_state_set(ns, buf, n, true);
	if (ret < 0) {
		pr_err("subsystem %s: namespace %u: resv_file %s: %s (%d); not enabled\n",
		       nqn, ns->nsid, resv->file,
		       ret == -EINVAL || ret == -E2BIG ?
		       "not a well-formed reservation state" : "cannot load",
		       ret);
		goto out;
	}
	if (ret)
		pr_info("subsystem %s: namespace %u: resv_file %s holds ptpl=0: not loaded\n",
			nqn, ns->nsid, resv->file);
	else
		pr_info("subsystem %s: namespace %u: reservation state loaded from %s (%u registrants)\n",
			nqn, ns->nsid, resv->file, resv->nr_regs);
	ret = 0;
out:
	kfree(buf);
	return ret;
}

/* resv_enable: caller holds ns->enable_lock, the namespace is disabled. */
void purlin_resv_set_enabled(struct purlin_ns *ns, bool enable)
{
	struct purlin_resv *resv = &ns->resv;
	struct purlin_resv_snap *none = NULL;

	lockdep_assert_held(&ns->enable_lock);
	mutex_lock(&resv->lock);
	if (!enable) {
		/* Reservations off: their state goes. */
		purlin_resv_free_regs(resv);
		resv->generation = 0;
		WRITE_ONCE(resv->ptpl, false);
		purlin_resv_publish(resv, &none);
	}
	WRITE_ONCE(resv->enabled, enable);
	mutex_unlock(&resv->lock);
}
