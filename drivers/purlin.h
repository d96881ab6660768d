/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Purlin core: the objects of an NVMe over Fabrics target and the interface
 * between the core and its transports.  Documentation/design.md describes
 * the request flow, object lifetimes and locking rules summarised here.
 */
#ifndef PURLIN_H
#define PURLIN_H

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/configfs.h>
#include <linux/jump_label.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/nvme.h>
#include <linux/percpu-refcount.h>
#include <linux/rwsem.h>
#include <linux/scatterlist.h>
#include <linux/socket.h>
#include <linux/uuid.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "compat.h"
#include "auth.h"

#define PURLIN_DISC_NQN			"nqn.2014-08.org.nvmexpress.discovery"

/* Status code "Do Not Retry" bit (NVME_SC_DNR / NVME_STATUS_DNR). */
#define PURLIN_DNR			0x4000

/* Limits advertised to hosts. */
#define PURLIN_MDTS_SHIFT		8	/* 2^8 * 4 KiB = 1 MiB */
#define PURLIN_MAX_XFER			(1U << (PURLIN_MDTS_SHIFT + 12))
#define PURLIN_MAX_QUEUE_SIZE		1024
#define PURLIN_MIN_QUEUE_SIZE		16
#define PURLIN_DEF_QUEUE_SIZE		128
#define PURLIN_ADMIN_QUEUE_SIZE		32
#define PURLIN_DEF_INLINE		4096
#define PURLIN_MAX_INLINE		16384
#define PURLIN_AERL			4	/* async event requests held */
#define PURLIN_DISC_KATO_MS		120000
#define PURLIN_MAX_QID			128
#define PURLIN_ERR_SLOTS		64	/* error log entries per controller */
#define PURLIN_MAX_ANA_GROUPS		128
#define PURLIN_MAX_NSID			1024
/*
 * Unauthenticated queues (no controller yet, or a discovery controller),
 * per port and per peer address.
 */
#define PURLIN_DEF_MAX_PENDING		64
#define PURLIN_DEF_MAX_PENDING_PER_ADDR	16
#define PURLIN_DEF_CONNECT_TIMEOUT_MS	10000

/* How a port's I/O queues are served (struct purlin_port). */
enum purlin_cq_mode {
	PURLIN_CQ_WORKQUEUE,
	PURLIN_CQ_POLL,
};

#define PURLIN_DEF_POLL_USECS		50
#define PURLIN_MAX_POLL_USECS		100000
/* param_srq_size: 0 (off) or MIN..MAX receive buffers per SRQ. */
#define PURLIN_MIN_SRQ_SIZE		16
#define PURLIN_MAX_SRQ_SIZE		4096

/* Data buffers come from the pool in chunks of this size (see bufpool.c). */
#define PURLIN_CHUNK_ORDER		4
#define PURLIN_CHUNK_SIZE		(PAGE_SIZE << PURLIN_CHUNK_ORDER)
#define PURLIN_MAX_CHUNKS		(PURLIN_MAX_XFER / PURLIN_CHUNK_SIZE + 1)

/*
 * purlin_cfg_sem guards the configuration: the lists of subsystems, ports
 * and hosts, each port's subsystem links, each subsystem's allowed hosts and
 * the attributes hosts see in Identify and the discovery log.  configfs
 * writers take it for writing; Connect and the discovery log read it.
 */
extern struct rw_semaphore purlin_cfg_sem;
extern struct workqueue_struct *purlin_wq;
extern struct workqueue_struct *purlin_io_wq;
extern struct workqueue_struct *purlin_resv_wq;
extern struct workqueue_struct *purlin_auth_wq;
extern struct workqueue_struct *purlin_ctrl_wq;

/* Live object counters (core.c), shown in /sys/module/purlin/parameters/live. */
struct purlin_counters {
	atomic_t ctrls;
	atomic_t queues;
	atomic_t reqs;
	atomic_t srqs;			/* the RDMA transport's shared RQs */
	atomic_t srq_held;		/* their buffers taken, not yet back */
	atomic_t subsystems;
	atomic_t namespaces;
	atomic_t ports;
};
extern struct purlin_counters purlin_live;

struct purlin_req;
struct purlin_ctrl;
struct purlin_port;

/* bufpool.c: the bounded pool of data buffer chunks. */

/*
 * Chunks charged to one holder (a queue, a controller, all discovery
 * controllers); a take past limit waits for the holder's own chunks.
 * held and waiters are guarded by the pool's lock.
 */
struct purlin_buf_acct {
	unsigned int held;
	unsigned int limit;
	struct list_head waiters;
};

/* Shares of the pool (total chunks T), see admin-guide.md. */
#define PURLIN_QUEUE_POOL_SHARE(t, depth) \
	min_t(unsigned int, (t) / 8, (depth) * PURLIN_MAX_CHUNKS)
#define PURLIN_CTRL_POOL_SHARE(t)	((t) / 4)
#define PURLIN_DISC_POOL_SHARE(t)	((t) / 8)

struct purlin_buf_waiter {
	struct list_head entry;		/* a waiters list, or empty */
	struct work_struct work;	/* queued when it should try again */
	unsigned int need;		/* chunks, while on the pool's FIFO */
	unsigned int granted;		/* chunks set aside for it */
	bool on_pool;			/* on the pool's FIFO */
	struct purlin_buf_acct *waits_on; /* on this account's waiters */
};

/*
 * Chunks a queue keeps back from its one-chunk puts (the size most I/O
 * takes) for its next one-chunk gets, without the pool's lock (completions
 * come in bursts: PURLIN_STASH_SLOTS of them): they stay charged to the
 * queue's accounts (accts, set when the stash opens) and count as free in
 * purlin_bufpool_free_chunks().  Whoever has to wait for chunks takes back
 * the stashed chunks charged to what it waits on (all of them for the pool
 * itself), and a put stashes nothing while anyone waits.  pages: xchg and
 * cmpxchg only; state, accts and entry: the pool's lock (state also read
 * without it).
 */
#define PURLIN_STASH_SLOTS	8
struct purlin_buf_stash {
	struct page *pages[PURLIN_STASH_SLOTS];
	int state;			/* PURLIN_STASH_* */
	struct purlin_buf_acct *accts[2];
	struct list_head entry;		/* the pool's open stashes */
};

/*
 * Latency histograms: bucket 0 counts commands under 1 us, bucket b (1 to
 * PURLIN_LAT_BUCKETS - 2) those of [2^(b-1), 2^b) us, the last everything
 * from 2^(PURLIN_LAT_BUCKETS - 2) us (about 4.2 s) on.
 */
#define PURLIN_LAT_BUCKETS	24
enum purlin_lat_kind {
	PURLIN_LAT_READ,
	PURLIN_LAT_WRITE,
	PURLIN_LAT_OTHER,	/* Flush, Write Zeroes, Dataset Management */
	PURLIN_LAT_KINDS,
};

struct purlin_lat_hist {
	u64 count;
	u64 sum_ns;
	u64 buckets[PURLIN_LAT_BUCKETS];
};

/*
 * I/O counters, per CPU (stats.c).  Every field is a u64 that only grows:
 * the sums add them up as arrays.
 */
struct purlin_io_counts {
	u64 read_cmds;
	u64 read_bytes;
	u64 write_cmds;
	u64 write_bytes;
	u64 errors;
	u64 other_cmds;		/* I/O commands but reads and writes */
	u64 flush_cmds;		/* Flush commands (counted in other_cmds too) */
	/* I/O commands handed to the back end, and those of them completed. */
	u64 started;
	u64 ended;
	/* Commands that waited for a limit (qos.c); namespaces only. */
	u64 throttled;
};

struct purlin_io_stats {
	struct purlin_io_counts c;
	/*
	 * Capsule parsed to completion queued; back end start to completion.
	 * Failed commands included.  Summed only for the latency file (too
	 * large for a stack).
	 */
	struct purlin_lat_hist lat_total[PURLIN_LAT_KINDS];
	struct purlin_lat_hist lat_device[PURLIN_LAT_KINDS];
};

/* A transport: the core calls these; the transport calls purlin_req_*(). */
struct purlin_transport_ops {
	const char *name;
	u8 trtype;
	/* Bind the port's listener.  Called with purlin_cfg_sem held. */
	int (*add_port)(struct purlin_port *port);
	/* Unbind and disconnect every queue that came through the port; waits. */
	void (*remove_port)(struct purlin_port *port);
	/* Send req's completion (and its controller-to-host data). */
	void (*queue_response)(struct purlin_req *req);
	/* Start disconnecting every queue of ctrl; does not wait. */
	void (*delete_ctrl)(struct purlin_ctrl *ctrl);
	/* Start disconnecting one queue; does not wait; any context. */
	void (*disconnect_sq)(struct purlin_sq *sq);
};

/*
 * Limits per tenant (qos.c): the bucket of a namespace or of a host.
 * lock guards every field below but ref and work; it is taken in any
 * context and is innermost.  iops, bps and burst_ms change only under
 * qos.c's purlin_qos_mutex as well.  limited is read without the lock as a
 * hint on the I/O path and rechecked under it.
 */
#define PURLIN_QOS_DEF_BURST_MS		100
#define PURLIN_QOS_MAX_BURST_MS		10000
#define PURLIN_QOS_MAX_IOPS		100000000ULL
#define PURLIN_QOS_MAX_BPS		(1ULL << 44)	/* 16 TiB/s */

struct purlin_qos {
	spinlock_t lock;
	u64 iops;		/* commands per second, 0: no limit */
	u64 bps;		/* bytes per second, 0: no limit */
	u32 burst_ms;		/* 0: PURLIN_QOS_DEF_BURST_MS */
	bool limited;		/* a limit is set and the bucket is open */
	bool closed;		/* holds nothing (owner going or disabled) */
	u64 io_ns;		/* cost of a command, ns */
	u64 tau_ns;		/* tolerance (the burst), ns */
	u64 tat_io;		/* when the bucket is full again, ns */
	u64 tat_bytes;
	struct list_head waiters;	/* purlin_req.qos_entry, FIFO */
	unsigned int nr_waiting;
	struct delayed_work work;	/* releases waiters, purlin_io_wq */
	/* Host buckets: the host entry and each controller of the host. */
	struct kref ref;
};

struct purlin_host {
	struct config_group group;	/* item name is the host NQN */
	struct list_head entry;		/* purlin_hosts, cfg_sem */
	struct purlin_host_auth auth;	/* DH-HMAC-CHAP settings, cfg_sem */
	struct purlin_qos *qos;		/* for the entry's life, shared */
};

extern struct list_head purlin_hosts;

static inline const char *purlin_host_nqn(struct purlin_host *h)
{
	return config_item_name(&h->group.cg_item);
}

enum purlin_subsys_type {
	PURLIN_SUBSYS_NVME,
	PURLIN_SUBSYS_DISCOVERY,
};

struct purlin_host_link {
	struct list_head entry;
	struct purlin_host *host;
};

struct purlin_subsys {
	struct config_group group;
	struct config_group namespaces_group;
	struct config_group allowed_hosts_group;
	struct kref ref;		/* configfs + one per controller */
	struct list_head entry;		/* purlin_subsystems, cfg_sem */
	enum purlin_subsys_type type;
	char *subsysnqn;

	/* Guards ctrls, the namespace fields and nr_namespaces. */
	struct mutex lock;
	struct list_head ctrls;
	struct ida cntlid_ida;
	/* Enabled namespaces by nsid: readers use RCU + ns->ref. */
	struct xarray namespaces;
	u32 nr_namespaces;

	/* Under purlin_cfg_sem. */
	struct list_head hosts;		/* struct purlin_host_link */
	bool allow_any_host;
	char serial[21];
	char model[41];
	char firmware[9];
	u32 version;
	u16 cntlid_min;
	u16 cntlid_max;
	u16 max_qid;
	u8 ieee_oui[3];
	u16 vendor_id;		/* Identify Controller VID */
	u16 subsys_vendor_id;	/* Identify Controller SSVID */
};

/* resv.c: persistent reservations (NVMe Base 2.0, 8.19). */
#define PURLIN_RESV_MAX_REGS		32	/* registrants per namespace */
#define PURLIN_RESV_LOG_SLOTS		16	/* notices kept per controller */

enum purlin_resv_type {
	PURLIN_RESV_NONE,
	PURLIN_RESV_WE,		/* Write Exclusive */
	PURLIN_RESV_EA,		/* Exclusive Access */
	PURLIN_RESV_WE_RO,	/* Write Exclusive - Registrants Only */
	PURLIN_RESV_EA_RO,	/* Exclusive Access - Registrants Only */
	PURLIN_RESV_WE_AR,	/* Write Exclusive - All Registrants */
	PURLIN_RESV_EA_AR,	/* Exclusive Access - All Registrants */
	PURLIN_RESV_TYPES,
};

/* A host registered with a namespace, keyed by its 128-bit Host Identifier. */
struct purlin_registrant {
	struct list_head entry;		/* purlin_resv.regs */
	uuid_t hostid;
	u64 rkey;
};

/*
 * What the I/O path checks: a copy of the reservation taken whenever it
 * changes, published with RCU and never written after that.
 */
struct purlin_resv_snap {
	struct rcu_head rcu;
	u8 type;			/* never PURLIN_RESV_NONE */
	uuid_t holder;			/* WE, EA and the Registrants Only types */
	u32 nr_regs;
	uuid_t regs[PURLIN_RESV_MAX_REGS];
};

/*
 * A namespace's reservation state.  It belongs to the namespace object and
 * lives while it does, enabled or not.  lock guards every field but snap's
 * readers; it is taken before subsys->lock and ctrl->lock (notices walk
 * the controllers), and after ns->enable_lock (configfs).  snap is NULL
 * while no reservation is held, so the I/O path checks one pointer.
 */
struct purlin_resv {
	struct mutex lock;
	bool enabled;			/* resv_enable: set only while disabled */
	struct list_head regs;		/* struct purlin_registrant */
	u32 nr_regs;
	u8 type;			/* enum purlin_resv_type */
	/* Non-AR types: the holder; AR types: every registrant holds it. */
	struct purlin_registrant *holder;
	u32 generation;
	/* Persist Through Power Loss state; Get Features reads it lockless. */
	bool ptpl;
	/*
	 * resv_file: where the state is kept while ptpl is 1 (resv-file.c),
	 * or NULL.  Set only while the namespace is disabled, under
	 * ns->enable_lock; changes read it under lock while it is enabled,
	 * when it cannot change.  Writes of the file happen under lock, so
	 * the file follows the changes in their order.
	 */
	char *file;
	struct purlin_resv_snap __rcu *snap;
	/*
	 * Preempt and Abort completes only once every command that passed
	 * the access check before the preempting reservation was published
	 * has completed: a command counts itself in inflight[epoch & 1]
	 * (under rcu_read_lock, with the check) until purlin_req_complete().
	 * drain_lock serializes the drains (taken without lock held).
	 */
	struct mutex drain_lock;
	unsigned int epoch;
	struct purlin_resv_inflight __percpu *inflight;
};

/*
 * Commands in flight on a namespace with reservations on, counted per CPU
 * in two slots (resv.c: purlin_resv_drain()).
 */
struct purlin_resv_inflight {
	unsigned long n[2];
};

/* One entry of a controller's Reservation Notification log. */
struct purlin_resv_notice {
	u64 count;
	u32 nsid;
	u8 type;
};

struct purlin_ns {
	struct config_group group;
	struct purlin_subsys *subsys;
	u32 nsid;
	/*
	 * Serialises enable/disable, which waits for in-flight commands;
	 * taken before subsys->lock, which is never held across that wait.
	 */
	struct mutex enable_lock;
	/* Written under enable_lock while disabled; read under it or enabled. */
	char *device_path;
	uuid_t uuid;
	u8 nguid[16];
	bool enabled;

	/* Valid while enabled. */
	struct percpu_ref ref;		/* one per in-flight command */
	struct completion disable_done;
	const struct purlin_backend_ops *backend;	/* set while enabled */
	struct purlin_bdev bdev;	/* block back end, or */
	struct file *file;		/* file back end */
	bool buffered_io;		/* file: page cache, not O_DIRECT */
	/* Block: a polled bio was refused (REQ_POLLED unsupported). */
	bool poll_off;
	struct purlin_io_stats __percpu *stats;	/* for the object's life */
	u32 anagrpid;			/* 1..PURLIN_MAX_ANA_GROUPS, cfg_sem */
	u64 size;			/* bytes */
	u8 blksize_shift;
	struct purlin_resv resv;
	struct purlin_qos qos;		/* for the object's life */
};

struct purlin_subsys_link {
	struct list_head entry;
	struct purlin_subsys *subsys;
};

/* ports/<id>/ana_groups/<grpid>: one ANA group's state on a port. */
struct purlin_ana_group {
	struct config_group group;
	struct purlin_port *port;
	u32 grpid;
};

/* A discovery referral: another discovery service, listed on a port. */
struct purlin_referral {
	struct config_group group;
	struct list_head entry;		/* port->referrals, cfg_sem */
	struct nvmf_disc_rsp_page_entry addr;	/* cfg_sem */
	bool enabled;			/* cfg_sem */
};

struct purlin_port {
	struct config_group group;
	struct config_group subsys_group;
	struct config_group referrals_group;
	struct list_head referrals;	/* struct purlin_referral, cfg_sem */
	struct config_group ana_groups_group;
	struct purlin_ana_group ana_default;	/* group 1, always there */
	/* ANA state of each group on this port, 0 = unknown; cfg_sem. */
	u8 ana_state[PURLIN_MAX_ANA_GROUPS + 1];
	struct list_head entry;		/* purlin_ports, cfg_sem */
	struct list_head subsystems;	/* struct purlin_subsys_link, cfg_sem */
	struct nvmf_disc_rsp_page_entry disc_addr;
	u32 inline_data_size;
	u32 max_queue_size;
	/*
	 * ToS byte of the port's RDMA connections (RoCE: the IP header's
	 * DSCP and ECN bits; IB: the GRH traffic class), or -1 to answer
	 * each host with the traffic class it connected with.
	 */
	int tos;
	/* Limits on unauthenticated queues (rdma.c, admin-guide.md). */
	u32 max_pending;
	u32 max_pending_per_addr;
	u32 connect_timeout_ms;
	/*
	 * How the port's I/O queues are served (rdma-poll.c, tuning.md):
	 * completion workqueue, or polling threads on poll_cpus (empty: the
	 * RDMA device's NUMA node) that spin up to poll_usecs before they
	 * sleep.  Read when a queue connects; set only while disabled.
	 */
	enum purlin_cq_mode cq_mode;
	u32 poll_usecs;
	cpumask_var_t poll_cpus;
	/*
	 * Receive buffers of the I/O queues: 0, each queue its own; else a
	 * shared receive queue of that many per RDMA device (rdma-queue.c).
	 * Read when a queue connects; set only while disabled.
	 */
	u32 srq_size;
	bool enabled;
	const struct purlin_transport_ops *ops;
	void *priv;			/* the transport's listener */
};

/* Where a polling thread's last polled bio to a device ended (io-bdev.c). */
#define PURLIN_POLL_SEQ_SLOTS	4
struct purlin_poll_seq {
	struct block_device *bdev;	/* compared, never dereferenced */
	sector_t end;
	bool seq;			/* that bio continued the one before */
};

/*
 * A transport's polling thread, as the back ends see it: a request started
 * from it (req->poll set) may submit a polled bio (REQ_POLLED), which then
 * completes only from the thread's loop (purlin_poll_bios()), never in
 * interrupt context.  bios and nr_bios belong to task alone.
 */
struct purlin_poll_ctx {
	struct task_struct *task;
	struct list_head bios;		/* purlin_req.poll_entry */
	unsigned int nr_bios;
	/*
	 * in_pass: the thread is in one of its passes (the transport sets
	 * and clears it).  now: the statistics' clock for the batch the
	 * pass is on, 0 until read (purlin_clock()); the transport zeroes it
	 * at each batch; now_switches: the thread's context switches when it
	 * was read.  seq: its last polled bios, per device (io-bdev.c).
	 * All task's alone.
	 */
	bool in_pass;
	u64 now;
	unsigned long now_switches;
	struct purlin_poll_seq seq[PURLIN_POLL_SEQ_SLOTS];
	unsigned int seq_next;
	/* For statistics: bio_poll() calls, bios handed to a worker. */
	u64 bio_polls;
	u64 bio_punts;
};

/*
 * The statistics' clock, ktime_get_ns().  A polling thread reads it once
 * per batch (a CQ's completions, then the polled bios), not once per
 * command and event, and again after it slept or was switched out: a
 * command's latencies are then exact to within the time the thread spends
 * running one batch (a command that completes in the batch it started in
 * reads it afresh, purlin_stats_account()).  Everyone else reads it each
 * time.  (The thread's own fields are read only once it is known to be
 * the caller.)
 */
static inline u64 purlin_clock(struct purlin_poll_ctx *ctx)
{
	unsigned long sw;

	if (ctx && ctx->task == current && in_task() && ctx->in_pass) {
		sw = current->nvcsw + current->nivcsw;
		if (!ctx->now || ctx->now_switches != sw) {
			ctx->now = ktime_get_ns();
			ctx->now_switches = sw;
		}
		return ctx->now;
	}
	return ktime_get_ns();
}

/* A Fabrics Connect is running on the queue: a second one is refused. */
#define PURLIN_SQ_CONNECTING		0
/* An Authentication Send or Receive runs on the queue: a second is refused. */
#define PURLIN_SQ_AUTH_BUSY		1
/* The queue is being torn down: its commands wait for no limit (qos.c). */
#define PURLIN_SQ_QOS_OFF		2

/*
 * A submission/completion queue pair as the core sees it.  Single writers,
 * no lock:
 *  - ctrl is set once, by the queue's Connect (purlin_ctrl_alloc() or
 *    purlin_ctrl_find_install(), smp_store_release(): published last), and
 *    cleared by purlin_sq_destroy() after every request is freed.  Commands
 *    other than Connect start only once it is set, so on the command path
 *    it is stable; other queues' readers (the transport) use
 *    smp_load_acquire() or hold what keeps the controller.
 *  - sqhd (and sqhd_disabled, set by that Connect) are written only by
 *    purlin_req_init(), which the transport runs in one context at a time
 *    per queue (its receive handler, or before the queue is live the
 *    handler that runs capsules which arrived early, never both); the
 *    completion path reads sqhd with READ_ONCE().
 */
struct purlin_sq {
	struct purlin_ctrl *ctrl;
	unsigned long flags;		/* PURLIN_SQ_* bits */
	u16 qid;
	u16 size;
	u16 sqhd;
	bool sqhd_disabled;
	struct purlin_port *port;
	/* The host's address, as the transport knows it (AF_UNSPEC: none). */
	struct sockaddr_storage peer;
	/* One per request from purlin_req_init() to purlin_req_free(). */
	struct percpu_ref ref;
	struct completion free_done;

	/*
	 * DH-HMAC-CHAP (auth.c).  auth_required is set by the queue's
	 * Connect before sq->ctrl is published; authenticated is written
	 * under auth_lock and read locklessly by purlin_req_init(); auth is
	 * the transaction in progress, under auth_lock.  auth_timeout ends a
	 * queue that is not authenticated in time, and frees a transaction
	 * a host left half way.
	 */
	bool auth_required;
	bool authenticated;
	u8 auth_negotiates;		/* since the last success; auth_lock */
	unsigned long auth_deadline;	/* jiffies; auth_lock */
	struct mutex auth_lock;
	struct purlin_sq_auth *auth;
	struct delayed_work auth_timeout;
};

struct purlin_ctrl_dir;

struct purlin_ctrl {
	struct purlin_subsys *subsys;
	struct purlin_port *port;
	struct kref ref;		/* one per installed queue */
	struct list_head entry;		/* subsys->ctrls */
	u16 cntlid;
	char hostnqn[NVMF_NQN_FIELD_LEN];
	uuid_t hostid;
	struct sockaddr_storage host_addr;	/* its admin queue's peer */
	bool auth_required;		/* the host has a DH-HMAC-CHAP key */
	/* hosts/<hostnqn>'s bucket when the controller was made, or NULL. */
	struct purlin_qos *host_qos;

	/* Guards the fields below. */
	struct mutex lock;
	u32 cc;
	u32 csts;
	u32 aen_enabled;
	u16 nr_io_queues;		/* granted by Set Features */
	struct purlin_sq *sqs[PURLIN_MAX_QID + 1];
	struct purlin_req *aer_reqs[PURLIN_AERL];
	int nr_aer;
	/* Events with no AER outstanding, sent as AERs arrive (events.c). */
	u32 pending_events[PURLIN_AERL];
	int nr_pending_events;
	/* Changed Namespace List log; 0xffffffff alone when it overflowed. */
	u32 changed_ns[NVME_MAX_CHANGED_NAMESPACES];
	u32 nr_changed_ns;
	bool ns_aen_masked;		/* until the host reads the log */
	/* Reservation Notification log (resv.c), oldest first. */
	struct purlin_resv_notice resv_log[PURLIN_RESV_LOG_SLOTS];
	u32 nr_resv_log;
	u64 resv_log_count;		/* of the last notice, kept or lost */
	bool resv_aen_masked;		/* until the host reads the log */
	/* Reservation Notification Mask feature, per namespace. */
	u8 resv_mask[PURLIN_MAX_NSID + 1];

	struct purlin_io_stats __percpu *stats;
	/* The controller's share of the data buffer pool (bufpool.c). */
	struct purlin_buf_acct buf_acct;
	/* Guards err_log and err_count; taken in any context. */
	spinlock_t err_lock;
	struct nvme_error_slot err_log[PURLIN_ERR_SLOTS];
	u64 err_count;

	/*
	 * ms, 0 = none.  Set at creation, then written under lock (Set
	 * Features), which purlin_ka_work() reads it under; other readers
	 * (Get Features, configfs) use READ_ONCE().
	 */
	u32 kato;
	bool ka_seen;			/* traffic since the last check */
	struct delayed_work ka_work;
	struct work_struct fatal_work;
	bool fatal;
	const struct purlin_transport_ops *ops;

	/*
	 * The controller's configfs directory, controllers/<nqn>:<cntlid>
	 * (configfs.c), for controllers of normal subsystems.  dir_add_work
	 * registers it; free_work, queued by the release, unregisters it and
	 * only then frees the controller.  Both run on purlin_ctrl_wq, which
	 * is ordered (the add always runs before the free) and holds none of
	 * our locks; dir belongs to those works alone.
	 */
	struct purlin_ctrl_dir *dir;
	struct work_struct dir_add_work;
	struct work_struct free_work;
	u16 portid;			/* the port's, at creation */
};

/*
 * A command in flight.  The transport embeds one in each of its
 * pre-allocated per-queue response contexts; nothing here is allocated per
 * command.
 */
struct purlin_req {
	struct nvme_command *cmd;
	struct nvme_completion *cqe;
	struct purlin_sq *sq;
	struct purlin_ns *ns;		/* holds ns->ref when set */
	const struct purlin_transport_ops *ops;

	struct scatterlist *sg;
	int sg_cnt;
	u32 transfer_len;		/* data length the host described */
	u32 data_len;			/* data length the command needs */
	bool to_host;			/* controller-to-host data */
	bool data_len_min;		/* the SGL may describe more (DSM) */
	bool connect;			/* a Fabrics Connect (fabrics.c) */
	u8 resv_slot;			/* 1 + ns->resv.inflight slot, or 0 */

	void (*execute)(struct purlin_req *req);

	/*
	 * poll: set by the transport when the request executes in a polling
	 * thread.  The block back end may then submit its read or write bio
	 * polled (polled set, on poll->bios until that thread finishes it);
	 * poll_sts and poll_done are written by the bio's completion.
	 */
	struct purlin_poll_ctx *poll;
	/* purlin_clock() at parse and at execution (0: not executed). */
	u64 t_recv;
	u64 t_exec;
	struct list_head poll_entry;
	blk_status_t poll_sts;
	bool polled;
	bool poll_done;
	/*
	 * Limits (qos.c): the stage the command is at, and its place on that
	 * stage's bucket FIFO while it waits (the bucket's lock), since
	 * qos_since (ktime_get_ns()).
	 */
	u8 qos_stage;
	bool qos_waited;
	struct list_head qos_entry;
	u64 qos_since;

	struct kiocb iocb;		/* file back end */
	struct work_struct work;	/* blocking operations, purlin_io_wq */
	struct bio bio;
	struct bio_vec bvec[PURLIN_MAX_CHUNKS + 1];
};

/* core.c */
bool purlin_req_init(struct purlin_req *req, struct purlin_sq *sq,
		     const struct purlin_transport_ops *ops);
void purlin_req_execute(struct purlin_req *req);
void purlin_req_run(struct purlin_req *req);
void purlin_req_complete(struct purlin_req *req, u16 status);
void purlin_req_set_result(struct purlin_req *req, u32 result);
u16 purlin_copy_to_sg(struct purlin_req *req, u32 off, const void *buf,
		      size_t len);
u16 purlin_copy_from_sg(struct purlin_req *req, u32 off, void *buf,
			size_t len);
u16 purlin_zero_sg(struct purlin_req *req, u32 off, size_t len);
bool purlin_check_data_len(struct purlin_req *req);
int purlin_sq_init(struct purlin_sq *sq, struct purlin_port *port, u16 qid,
		   u16 size);
void purlin_sq_exit(struct purlin_sq *sq);
void purlin_req_free(struct purlin_req *req);
void purlin_sq_destroy(struct purlin_sq *sq);

struct purlin_subsys *purlin_subsys_alloc(const char *nqn,
					  enum purlin_subsys_type type);
void purlin_subsys_put(struct purlin_subsys *subsys);
void purlin_subsys_del_ctrls(struct purlin_subsys *subsys);
struct purlin_subsys *purlin_find_subsys(struct purlin_port *port,
					 const char *nqn);
bool purlin_host_allowed(struct purlin_subsys *subsys, const char *hostnqn);
struct purlin_host *purlin_subsys_host(struct purlin_subsys *subsys,
				       const char *hostnqn);
bool purlin_printable(const char *s);
extern struct purlin_subsys *purlin_disc_subsys;
extern char purlin_disc_nqn[NVMF_NQN_SIZE + 1];
extern struct list_head purlin_subsystems;
extern struct list_head purlin_ports;
void purlin_disc_changed(void);
u64 purlin_disc_genctr(void);

int purlin_ns_enable(struct purlin_ns *ns);
int purlin_ns_revalidate(struct purlin_ns *ns);
void purlin_ns_disable(struct purlin_ns *ns);
struct purlin_ns *purlin_ns_get(struct purlin_subsys *subsys, u32 nsid);
void purlin_ns_put(struct purlin_ns *ns);

int purlin_port_enable(struct purlin_port *port);
void purlin_port_disable(struct purlin_port *port);

u16 purlin_ctrl_alloc(struct purlin_subsys *subsys, struct purlin_sq *sq,
		      const char *hostnqn, const uuid_t *hostid, u32 kato,
		      bool auth, struct purlin_ctrl **ctrlp);
u16 purlin_ctrl_find_install(struct purlin_subsys *subsys, u16 cntlid,
			     const char *hostnqn, const uuid_t *hostid,
			     struct purlin_sq *sq, bool *bad_qid);
void purlin_revoke_ctrls(void);
void purlin_ctrl_put(struct purlin_ctrl *ctrl);
void purlin_ctrl_fatal(struct purlin_ctrl *ctrl);
void purlin_ctrl_set_cc(struct purlin_ctrl *ctrl, u32 cc);
int purlin_transport_register(const struct purlin_transport_ops *ops);
void purlin_transport_unregister(const struct purlin_transport_ops *ops);

/* stats.c */
struct purlin_io_stats __percpu *purlin_stats_alloc(void);
void purlin_stats_free(struct purlin_io_stats __percpu *stats);
void purlin_stats_sum(struct purlin_io_stats __percpu *stats,
		      struct purlin_io_counts *sum);
int purlin_stats_show(struct purlin_io_counts *s, char *buf, size_t size);
int purlin_stats_line(struct purlin_io_stats __percpu *stats, char *buf,
		      size_t size, bool throttled);
int purlin_latency_show(struct purlin_io_stats __percpu *stats, char *buf,
			size_t size);
void purlin_stats_start(struct purlin_req *req);
void purlin_stats_account(struct purlin_req *req, u16 status);
u32 purlin_error_ring_read(struct purlin_ctrl *ctrl, struct nvme_error_slot *out);
u16 purlin_smart_log(struct purlin_ctrl *ctrl, u32 nsid,
		     struct nvme_smart_log *log);

/* qos.c */
DECLARE_STATIC_KEY_FALSE(purlin_qos_on);
bool purlin_qos_admit(struct purlin_req *req);
void purlin_qos_init(struct purlin_qos *b);
enum purlin_qos_param {
	PURLIN_QOS_IOPS,
	PURLIN_QOS_BPS,
	PURLIN_QOS_BURST_MS,
};
int purlin_qos_set(struct purlin_qos *b, enum purlin_qos_param p, u64 val);
u64 purlin_qos_get(struct purlin_qos *b, enum purlin_qos_param p);
void purlin_qos_open(struct purlin_qos *b);
void purlin_qos_close(struct purlin_qos *b);
void purlin_qos_exit(struct purlin_qos *b);
void purlin_qos_ns_gone(struct purlin_ns *ns);
void purlin_qos_sq_gone(struct purlin_sq *sq);
struct purlin_qos *purlin_qos_alloc(void);
void purlin_qos_put(struct purlin_qos *b);
struct purlin_qos *purlin_qos_host_get(const char *hostnqn);

/* ana.c */
u16 purlin_ana_check(struct purlin_port *port, struct purlin_ns *ns);
void purlin_log_ana(struct purlin_req *req);
void purlin_ana_changed(struct purlin_port *port, struct purlin_subsys *only);

/* events.c: asynchronous event notifications */
void purlin_aer_queue(struct purlin_ctrl *ctrl, struct purlin_req *req);
void purlin_ctrl_event(struct purlin_ctrl *ctrl, u32 result);
void purlin_subsys_ns_changed(struct purlin_subsys *subsys, u32 nsid);
void purlin_disc_log_changed(void);
u32 purlin_take_changed_ns(struct purlin_ctrl *ctrl, __le32 *list,
			   bool retain);
void purlin_resv_event(struct purlin_subsys *subsys, u32 nsid,
		       const uuid_t *hostid, u8 type);
bool purlin_take_resv_notice(struct purlin_ctrl *ctrl,
			     struct purlin_resv_notice *out, u32 *left,
			     bool retain);

/* admin.c, fabrics.c, discovery.c, io-cmd.c */
u16 purlin_parse_admin(struct purlin_req *req);
u16 purlin_parse_admin_common(struct purlin_req *req);
u16 purlin_parse_fabrics(struct purlin_req *req);
u16 purlin_parse_connect(struct purlin_req *req);
u16 purlin_parse_discovery(struct purlin_req *req);
bool purlin_io_opcode_supported(u8 opcode);
u16 purlin_parse_io(struct purlin_req *req);
void purlin_aer_abort_all(struct purlin_ctrl *ctrl);
void purlin_identify_ns_fill(struct purlin_ns *ns, struct nvme_id_ns *id);
void purlin_complete_log(struct purlin_req *req, const void *log,
			 size_t size);
void purlin_complete_log_max(struct purlin_req *req, const void *log,
			     size_t size, size_t max);

u16 purlin_check_lba_range(struct purlin_ns *ns, u64 slba, u64 nlb);

/*
 * A namespace's back end, chosen once when it is enabled (a block device,
 * io-bdev.c, else a regular file, io-file.c) and fixed until it is
 * disabled.  purlin_parse_io() (io-cmd.c) checks a command for every back
 * end, then sets req->execute to the back end's function for its kind;
 * each completes the request with purlin_req_complete(), from any context.
 */
struct purlin_backend_ops {
	/* Open device_path, set size and blksize_shift; -ENOTBLK: not ours. */
	int (*open)(struct purlin_ns *ns);
	void (*close)(struct purlin_ns *ns);
	u64 (*size)(struct purlin_ns *ns);	/* current size: revalidate_size */
	int (*flush_sync)(struct purlin_ns *ns);	/* blocks: Flush of all */
	void (*rw)(struct purlin_req *req);
	void (*flush)(struct purlin_req *req);
	void (*write_zeroes)(struct purlin_req *req);
	void (*dsm)(struct purlin_req *req);
};
extern const struct purlin_backend_ops purlin_bdev_ops, purlin_file_ops;
unsigned int purlin_poll_bios(struct purlin_poll_ctx *ctx);
int purlin_param_read_only(const char *val, const struct kernel_param *kp);

extern struct purlin_buf_acct purlin_disc_acct;
int purlin_bufpool_init(unsigned int megabytes);
void purlin_bufpool_exit(void);
void purlin_buf_acct_init(struct purlin_buf_acct *a, unsigned int limit);
void purlin_buf_waiter_init(struct purlin_buf_waiter *w, work_func_t fn);
int purlin_bufpool_get(struct scatterlist *sg, u32 len,
		       struct purlin_buf_waiter *w,
		       struct purlin_buf_acct *const *accts, int nr_accts,
		       struct purlin_buf_stash *stash);
void purlin_bufpool_put(struct scatterlist *sg, int nents,
			struct purlin_buf_acct *const *accts, int nr_accts,
			struct purlin_buf_stash *stash);
void purlin_bufpool_cancel(struct purlin_buf_waiter *w);
void purlin_buf_stash_init(struct purlin_buf_stash *stash);
void purlin_buf_stash_close(struct purlin_buf_stash *stash);
unsigned int purlin_bufpool_free_chunks(void);
unsigned int purlin_bufpool_total(void);

/* resv.c */
int purlin_resv_init(struct purlin_resv *resv);
void purlin_resv_io_done(struct purlin_req *req);
void purlin_resv_exit(struct purlin_resv *resv);
u16 purlin_parse_resv(struct purlin_req *req);
u16 purlin_resv_check_io(struct purlin_ns *ns, struct purlin_req *req);
void purlin_log_resv(struct purlin_req *req);
u16 purlin_resv_set_features(struct purlin_req *req, u8 fid);
u16 purlin_resv_get_features(struct purlin_req *req, u8 fid);
u8 purlin_resv_rescap(struct purlin_ns *ns);
ssize_t purlin_resv_state_show(struct purlin_ns *ns, char *page);
int purlin_resv_state_store(struct purlin_ns *ns, const char *page,
			    size_t count);
void purlin_resv_set_enabled(struct purlin_ns *ns, bool enable);
int purlin_resv_set_file(struct purlin_ns *ns, const char *path);
int purlin_resv_load(struct purlin_ns *ns);
void purlin_resv_set_ptpl(struct purlin_req *req);

/* resv-file.c */
bool purlin_resv_file_supported(void);
int purlin_resv_file_write(const char *path, const char *buf, size_t len,
			   const struct inode *keep, bool *replaced);
ssize_t purlin_resv_file_read(const char *path, char *buf, size_t size);
int purlin_resv_file_hits(const char *path, struct file *data);

u16 purlin_resv_check_counted(struct purlin_req *req);

/*
 * The reservation access check of an I/O command to ns: a single pointer
 * test while the namespace holds no reservation.
 */
static inline u16 purlin_resv_ns_check(struct purlin_ns *ns,
				       struct purlin_req *req)
{
	if (likely(!rcu_access_pointer(ns->resv.snap)))
		return 0;
	return purlin_resv_check_io(ns, req);
}

/*
 * The check of a parsed I/O command to req->ns: with reservations on the
 * command is also counted in flight until it completes (Preempt and
 * Abort waits for it); one flag test while they are off.
 */
static inline u16 purlin_resv_check(struct purlin_req *req)
{
	if (likely(!READ_ONCE(req->ns->resv.enabled)))
		return 0;
	return purlin_resv_check_counted(req);
}

/* configfs.c */
int purlin_configfs_init(void);
void purlin_configfs_exit(void);
void purlin_ctrl_dir_add_work(struct work_struct *work);
void purlin_ctrl_dir_del(struct purlin_ctrl *ctrl);

/* rdma.c */
int purlin_rdma_init(void);
void purlin_rdma_exit(void);

static inline bool purlin_is_discovery(struct purlin_ctrl *ctrl)
{
	return ctrl->subsys->type == PURLIN_SUBSYS_DISCOVERY;
}

/*
 * The queue (with controller ctrl) belongs to a host the target knows:
 * a controller of a normal subsystem, and authenticated if it must be.
 * Anything else counts among a port's unauthenticated queues.
 */
static inline bool purlin_sq_admitted(struct purlin_sq *sq,
				      struct purlin_ctrl *ctrl)
{
	return !purlin_is_discovery(ctrl) &&
	       (!sq->auth_required || READ_ONCE(sq->authenticated));
}

/* Get Log Page length (NUMDL, NUMDU), or 0 when beyond what we move. */
static inline u32 purlin_log_data_len(struct purlin_req *req)
{
	u64 numd = le32_to_cpu(req->cmd->common.cdw10) >> 16 |
		   (le32_to_cpu(req->cmd->common.cdw11) & 0xffff) << 16;
	u64 len = (numd + 1) * 4;

	return len > PURLIN_MAX_XFER ? 0 : len;
}

#endif /* PURLIN_H */
