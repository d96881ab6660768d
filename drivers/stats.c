// SPDX-License-Identifier: GPL-2.0
/*
 * I/O statistics and the logs built from them: per namespace and per
 * controller counters (per-CPU, updated at completion in any context),
 * the SMART / Health log, and the controller's error log (a ring of the
 * last PURLIN_ERR_SLOTS failed commands).  Administrators read the counters
 * in configfs: namespaces/<nsid>/stats and subsystems/<nqn>/controllers.
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

void purlin_stats_sum(struct purlin_io_stats __percpu *stats,
		      struct purlin_io_stats *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		struct purlin_io_stats *s = per_cpu_ptr(stats, cpu);

		sum->read_cmds += READ_ONCE(s->read_cmds);
		sum->read_bytes += READ_ONCE(s->read_bytes);
		sum->write_cmds += READ_ONCE(s->write_cmds);
		sum->write_bytes += READ_ONCE(s->write_bytes);
		sum->errors += READ_ONCE(s->errors);
	}
}

int purlin_stats_show(struct purlin_io_stats *s, char *buf, size_t size)
{
	return scnprintf(buf, size,
			 "read_cmds=%llu read_bytes=%llu write_cmds=%llu write_bytes=%llu errors=%llu",
			 s->read_cmds, s->read_bytes, s->write_cmds,
			 s->write_bytes, s->errors);
}

static void purlin_stats_add(struct purlin_io_stats __percpu *stats, u8 op,
			     u32 bytes, bool error)
{
	if (error) {
		this_cpu_inc(stats->errors);
		return;
	}
	if (op == nvme_cmd_read) {
		this_cpu_inc(stats->read_cmds);
		this_cpu_add(stats->read_bytes, bytes);
	} else if (op == nvme_cmd_write) {
		this_cpu_inc(stats->write_cmds);
		this_cpu_add(stats->write_bytes, bytes);
	}
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
	u8 op = req->cmd->common.opcode;

	if (status && ctrl && !(status == (NVME_SC_ABORT_REQ | PURLIN_DNR) &&
				req->cmd->common.opcode == nvme_admin_async_event))
		purlin_error_ring_add(req, status);
	if (!req->ns || !req->sq->qid)
		return;
	purlin_stats_add(req->ns->stats, op, req->data_len, status);
	if (ctrl)
		purlin_stats_add(ctrl->stats, op, req->data_len, status);
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
static void purlin_ns_counters(struct purlin_ns *ns, struct purlin_io_stats *s)
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
	struct purlin_io_stats sum;
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
