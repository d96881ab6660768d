// SPDX-License-Identifier: GPL-2.0
/*
 * I/O statistics and the logs built from them: per namespace and per
 * controller counters (per-CPU, updated at completion in any context),
 * the SMART / Health log, and the controller's error log (a ring of the
 * last PURLIN_ERR_SLOTS failed commands).  Administrators read the counters
 * in configfs: namespaces/<nsid>/stats, controllers/<nqn>:<cntlid>/stats
 * and subsystems/<nqn>/controllers.
 */
#define pr_fmt(fmt) "purlin: " fmt

#include <linux/part_stat.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "purlin.h"

struct purlin_io_stats __percpu *purlin_stats_alloc(void)
{
	return alloc_percpu(struct purlin_io_stats);
}

void purlin_stats_free(struct purlin_io_stats __percpu *stats)
{
	free_percpu(stats);
}

/*
 * Add up n u64 counters at offset off of every CPU's copy into out.  Each
 * is written by its own CPU only, so a reader sees every counter whole,
 * not all of them at the same instant.
 */
static void purlin_stats_add_up(struct purlin_io_stats __percpu *stats,
				size_t off, u64 *out, unsigned int n)
{
	unsigned int i;
	int cpu;

	memset(out, 0, n * sizeof(u64));
	for_each_possible_cpu(cpu) {
		const u64 *in = (const u64 *)((const char *)per_cpu_ptr(stats, cpu) +
					      off);

		for (i = 0; i < n; i++)
			out[i] += READ_ONCE(in[i]);
	}
}

void purlin_stats_sum(struct purlin_io_stats __percpu *stats,
		      struct purlin_io_counts *sum)
{
	BUILD_BUG_ON(sizeof(*sum) % sizeof(u64));
	purlin_stats_add_up(stats, offsetof(struct purlin_io_stats, c),
			    (u64 *)sum, sizeof(*sum) / sizeof(u64));
}

/*
 * The keys before errors are the first release's: parsers that know them
 * keep working.  inflight: I/O commands the back end has and that have
 * not completed.
 */
int purlin_stats_show(struct purlin_io_counts *s, char *buf, size_t size)
{
	/* A start and its end on other CPUs may be summed end first. */
	s64 inflight = max_t(s64, 0, (s64)(s->started - s->ended));

	return scnprintf(buf, size,
			 "read_cmds=%llu read_bytes=%llu write_cmds=%llu write_bytes=%llu errors=%llu other_cmds=%llu inflight=%lld",
			 s->read_cmds, s->read_bytes, s->write_cmds,
			 s->write_bytes, s->errors, s->other_cmds, inflight);
}

/*
 * A namespace's or a controller's stats file: the keys above, then the
 * keys added since, at the end.
 */
int purlin_stats_line(struct purlin_io_stats __percpu *stats, char *buf,
		      size_t size, bool throttled)
{
	struct purlin_io_counts sum;
	int n;

	purlin_stats_sum(stats, &sum);
	n = purlin_stats_show(&sum, buf, size);
	n += scnprintf(buf + n, size - n, " flush_cmds=%llu", sum.flush_cmds);
	/* Limits per tenant count a namespace's waits (qos.c). */
	if (throttled)
		n += scnprintf(buf + n, size - n, " throttled=%llu",
			       sum.throttled);
	n += scnprintf(buf + n, size - n, "\n");
	return n;
}

static const char *const purlin_lat_names[PURLIN_LAT_KINDS] = {
	[PURLIN_LAT_READ] = "read",
	[PURLIN_LAT_WRITE] = "write",
	[PURLIN_LAT_OTHER] = "other",
};

/*
 * The histograms, one line each: "KIND_total" (capsule parsed to
 * completion queued for the host) and "KIND_device" (back end start to
 * completion), with count=, sum_us= and buckets= (the counts of the
 * buckets in order, comma separated).  A first line gives the buckets'
 * upper bounds in microseconds.
 */
int purlin_latency_show(struct purlin_io_stats __percpu *stats, char *buf,
			size_t size)
{
	struct purlin_io_stats *s;
	int n = 0, k, b, part;

	BUILD_BUG_ON(sizeof(*s) % sizeof(u64));
	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	purlin_stats_add_up(stats, 0, (u64 *)s, sizeof(*s) / sizeof(u64));

	n += scnprintf(buf + n, size - n, "bucket_le_us=");
	for (b = 0; b < PURLIN_LAT_BUCKETS - 1; b++)
		n += scnprintf(buf + n, size - n, "%llu,", 1ULL << b);
	n += scnprintf(buf + n, size - n, "inf\n");
	for (part = 0; part < 2; part++) {
		for (k = 0; k < PURLIN_LAT_KINDS; k++) {
			const struct purlin_lat_hist *h = part ?
				&s->lat_device[k] : &s->lat_total[k];

			n += scnprintf(buf + n, size - n,
				       "%s_%s count=%llu sum_us=%llu buckets=",
				       purlin_lat_names[k],
				       part ? "device" : "total", h->count,
				       div_u64(h->sum_ns, NSEC_PER_USEC));
			for (b = 0; b < PURLIN_LAT_BUCKETS; b++)
				n += scnprintf(buf + n, size - n, "%llu%s",
					       h->buckets[b],
					       b < PURLIN_LAT_BUCKETS - 1 ?
					       "," : "\n");
		}
	}
	kfree(s);
	return n;
}

static enum purlin_lat_kind purlin_lat_kind(u8 op)
{
	if (op == nvme_cmd_read)
		return PURLIN_LAT_READ;
	if (op == nvme_cmd_write)
		return PURLIN_LAT_WRITE;
	return PURLIN_LAT_OTHER;
}

/* One command's latencies, worked out once for all the objects it counts in. */
struct purlin_lat_sample {
	enum purlin_lat_kind kind;
	bool executed;
	u64 total_ns, device_ns;
	unsigned int total_b, device_b;
};

static inline unsigned int purlin_lat_bucket(u64 ns)
{
	u64 us = div_u64(ns, NSEC_PER_USEC);

	return us ? min_t(unsigned int, fls64(us), PURLIN_LAT_BUCKETS - 1) : 0;
}

/*
 * Inlined, as is purlin_stats_add(): they run for every I/O, for two
 * objects, and a call costs as much as their few per-CPU adds.
 */
static __always_inline void purlin_lat_add(struct purlin_lat_hist __percpu *h,
					   u64 ns, unsigned int b)
{
	this_cpu_inc(h->count);
	this_cpu_add(h->sum_ns, ns);
	this_cpu_inc(h->buckets[b]);
}

static __always_inline void
purlin_stats_add(struct purlin_io_stats __percpu *stats,
		 const struct purlin_req *req,
		 const struct purlin_lat_sample *l, bool error)
{
	if (l->executed) {
		this_cpu_inc(stats->c.ended);
		purlin_lat_add(&stats->lat_device[l->kind], l->device_ns,
			       l->device_b);
	}
	purlin_lat_add(&stats->lat_total[l->kind], l->total_ns, l->total_b);
	if (error) {
		this_cpu_inc(stats->c.errors);
		return;
	}
	switch (l->kind) {
	case PURLIN_LAT_READ:
		this_cpu_inc(stats->c.read_cmds);
		this_cpu_add(stats->c.read_bytes, req->data_len);
		break;
	case PURLIN_LAT_WRITE:
		this_cpu_inc(stats->c.write_cmds);
		this_cpu_add(stats->c.write_bytes, req->data_len);
		break;
	default:
		this_cpu_inc(stats->c.other_cmds);
		if (req->cmd->common.opcode == nvme_cmd_flush)
			this_cpu_inc(stats->c.flush_cmds);
		break;
	}
}

/* An I/O command goes to its back end; called by purlin_req_execute(). */
void purlin_stats_start(struct purlin_req *req)
{
	struct purlin_ctrl *ctrl = req->sq->ctrl;

	if (!req->ns || !req->sq->qid)
		return;
	req->t_exec = purlin_clock(req->poll);
	this_cpu_inc(req->ns->stats->c.started);
	if (ctrl)
		this_cpu_inc(ctrl->stats->c.started);
}

/* Record a failed command in the controller's error log.  Any context. */
static void purlin_error_ring_add(struct purlin_req *req, u16 status)
{
	struct purlin_ctrl *ctrl = req->sq->ctrl;
	struct nvme_error_slot *e;
	unsigned long flags;

	spin_lock_irqsave(&ctrl->err_lock, flags);
	e = &ctrl->err_log[ctrl->err_count % PURLIN_ERR_SLOTS];
	memset(e, 0, sizeof(*e));
	e->error_count = cpu_to_le64(++ctrl->err_count);
	e->sqid = cpu_to_le16(req->sq->qid);
	e->cmdid = req->cmd->common.command_id;
	e->status_field = cpu_to_le16(status << 1);
	e->param_error_location = cpu_to_le16(0xffff);
	e->nsid = req->cmd->common.nsid;
	if (req->sq->qid && (req->cmd->common.opcode == nvme_cmd_read ||
			     req->cmd->common.opcode == nvme_cmd_write))
		e->lba = req->cmd->rw.slba;
	spin_unlock_irqrestore(&ctrl->err_lock, flags);
}

/* Account a completing command; called by purlin_req_complete(). */
void purlin_stats_account(struct purlin_req *req, u16 status)
{
	struct purlin_ctrl *ctrl = req->sq->ctrl;
	struct purlin_lat_sample l = { 0 };
	u64 now;

	if (status && ctrl && !(status == (NVME_SC_ABORT_REQ | PURLIN_DNR) &&
				req->cmd->common.opcode == nvme_admin_async_event))
		purlin_error_ring_add(req, status);
	if (!req->ns || !req->sq->qid)
		return;
	/*
	 * A polling thread's clock of this batch, unless the command started
	 * in this batch too (a back end that completes as it is called, an
	 * error): then a reading of its own.
	 */
	now = purlin_clock(req->poll);
	if (now <= max(req->t_recv, req->t_exec))
		now = ktime_get_ns();
	l.kind = purlin_lat_kind(req->cmd->common.opcode);
	l.executed = req->t_exec;
	/* Both stamps are now at most now (ktime_get_ns() is monotonic). */
	l.total_ns = now - req->t_recv;
	l.total_b = purlin_lat_bucket(l.total_ns);
	if (l.executed) {
		l.device_ns = now - req->t_exec;
		l.device_b = purlin_lat_bucket(l.device_ns);
	}
	purlin_stats_add(req->ns->stats, req, &l, status);
	if (ctrl)
		purlin_stats_add(ctrl->stats, req, &l, status);
}

/* Newest entry first, as the log page wants. */
u32 purlin_error_ring_read(struct purlin_ctrl *ctrl, struct nvme_error_slot *out)
{
	unsigned long flags;
	u32 n, i;

	spin_lock_irqsave(&ctrl->err_lock, flags);
	n = min_t(u64, ctrl->err_count, PURLIN_ERR_SLOTS);
	for (i = 0; i < n; i++)
		out[i] = ctrl->err_log[(ctrl->err_count - 1 - i) % PURLIN_ERR_SLOTS];
	spin_unlock_irqrestore(&ctrl->err_lock, flags);
	return n;
}

static void purlin_put_u128(u8 *dst, u64 val)
{
	put_unaligned_le64(val, dst);
	put_unaligned_le64(0, dst + 8);
}

/*
 * A block namespace's counters come from the block layer (all I/O the
 * device saw, Purlin's and local); a file namespace's from Purlin's own.
 */
static void purlin_ns_counters(struct purlin_ns *ns, struct purlin_io_counts *s)
{
	struct block_device *bdev = ns->bdev.bdev;

	if (ns->file || !bdev) {
		purlin_stats_sum(ns->stats, s);
		return;
	}
	memset(s, 0, sizeof(*s));
	s->read_cmds = part_stat_read(bdev, ios[STAT_READ]);
	s->read_bytes = (u64)part_stat_read(bdev, sectors[STAT_READ]) << SECTOR_SHIFT;
	s->write_cmds = part_stat_read(bdev, ios[STAT_WRITE]);
	s->write_bytes = (u64)part_stat_read(bdev, sectors[STAT_WRITE]) << SECTOR_SHIFT;
}

/*
 * SMART / Health: host commands and data units (thousands of 512-byte
 * units, rounded up) of one namespace, or for nsid 0 / 0xffffffff of
 * this controller over its life (never decreasing when namespaces go).
 * Purlin has no media of its own to report on, so the health fields say
 * "healthy".
 */
u16 purlin_smart_log(struct purlin_ctrl *ctrl, u32 nsid,
		     struct nvme_smart_log *log)
{
	struct purlin_io_counts sum;
	struct purlin_ns *ns;

	if (nsid && nsid != 0xffffffff) {
		ns = purlin_ns_get(ctrl->subsys, nsid);
		if (!ns)
			return NVME_SC_INVALID_NS | PURLIN_DNR;
		purlin_ns_counters(ns, &sum);
		purlin_ns_put(ns);
	} else {
		purlin_stats_sum(ctrl->stats, &sum);
	}
	log->avail_spare = 100;
	log->spare_thresh = 10;
	purlin_put_u128(log->data_units_read,
			DIV_ROUND_UP_ULL(sum.read_bytes, 512 * 1000));
	purlin_put_u128(log->data_units_written,
			DIV_ROUND_UP_ULL(sum.write_bytes, 512 * 1000));
	purlin_put_u128(log->host_reads, sum.read_cmds);
	purlin_put_u128(log->host_writes, sum.write_cmds);
	purlin_put_u128(log->num_err_log_entries, READ_ONCE(ctrl->err_count));
	return 0;
}
