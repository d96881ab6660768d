// SPDX-License-Identifier: GPL-2.0
/*
 * NVM command set I/O commands, for every back end: the opcodes this
 * target implements, the namespace and its ANA state, LBA ranges, data
 * lengths; then the namespace's back end (struct purlin_backend_ops,
 * io-bdev.c or io-file.c) executes.  Flush of every namespace (NSID
 * FFFFFFFFh) runs here, through each back end's flush_sync().
 */
#define pr_fmt(fmt) "purlin: " fmt

#include <linux/workqueue.h>

#include "purlin.h"

u16 purlin_check_lba_range(struct purlin_ns *ns, u64 slba, u64 nlb)
{
	u64 nsze = READ_ONCE(ns->size) >> ns->blksize_shift;

	if (slba >= nsze || nlb > nsze - slba)
		return NVME_SC_LBA_RANGE | PURLIN_DNR;
	return 0;
}

static u16 purlin_parse_rw(struct purlin_req *req)
{
	struct purlin_ns *ns = req->ns;
	u64 slba = le64_to_cpu(req->cmd->rw.slba);
	u64 nlb = (u64)le16_to_cpu(req->cmd->rw.length) + 1;
	u16 status = purlin_check_lba_range(ns, slba, nlb);

	if (status)
		return status;
	if ((nlb << ns->blksize_shift) > PURLIN_MAX_XFER)
		return NVME_SC_INVALID_FIELD | PURLIN_DNR;
	req->data_len = nlb << ns->blksize_shift;
	req->to_host = req->cmd->common.opcode == nvme_cmd_read;
	req->execute = ns->backend->rw;
	return 0;
}

static u16 purlin_parse_write_zeroes(struct purlin_req *req)
{
	struct nvme_write_zeroes_cmd *wz = &req->cmd->write_zeroes;

	req->execute = req->ns->backend->write_zeroes;
	return purlin_check_lba_range(req->ns, le64_to_cpu(wz->slba),
				      (u64)le16_to_cpu(wz->length) + 1);
}

/*
 * Flush to NSID FFFFFFFFh: every namespace of the subsystem that this
 * port can reach, one after the other, on purlin_io_wq (flushes block).
 */
static void purlin_flush_all_work(struct work_struct *w)
{
	struct purlin_req *req = container_of(w, struct purlin_req, work);
	struct purlin_subsys *subsys = req->sq->ctrl->subsys;
	struct purlin_ns *ns;
	unsigned long nsid = 0;
	u16 status = 0;
	int ret;

	rcu_read_lock();
	while (xa_find(&subsys->namespaces, &nsid, ULONG_MAX, XA_PRESENT)) {
		rcu_read_unlock();
		ns = purlin_ns_get(subsys, nsid);
		if (ns && !purlin_ana_check(req->sq->port, ns) &&
		    !purlin_resv_ns_check(ns, req)) {
			ret = ns->backend->flush_sync(ns);
			if (ret && !status)
				status = NVME_SC_WRITE_FAULT;
		}
		if (ns)
			purlin_ns_put(ns);
		rcu_read_lock();
		if (nsid == ULONG_MAX)
			break;
		nsid++;
	}
	rcu_read_unlock();
	purlin_req_complete(req, status);
}

static void purlin_execute_flush_all(struct purlin_req *req)
{
	INIT_WORK(&req->work, purlin_flush_all_work);
	queue_work(purlin_io_wq, &req->work);
}

/* The NVM command set's I/O commands this target implements. */
bool purlin_io_opcode_supported(u8 opcode)
{
	switch (opcode) {
	case nvme_cmd_read:
	case nvme_cmd_write:
	case nvme_cmd_flush:
	case nvme_cmd_write_zeroes:
	case nvme_cmd_dsm:
	case nvme_cmd_resv_register:
	case nvme_cmd_resv_report:
	case nvme_cmd_resv_acquire:
	case nvme_cmd_resv_release:
		return true;
	default:
		return false;
	}
}

/*
 * Parse an NVM command: opcode, namespace (and its ANA state), LBA range
 * and data length are checked here for both back ends; execute is then
 * the namespace's back end's function for the command's kind.
 */
u16 purlin_parse_io(struct purlin_req *req)
{
	struct nvme_command *cmd = req->cmd;
	u16 status;

	/*
	 * An opcode this target does not implement is Invalid Opcode, whatever
	 * its NSID holds: only the command set says whether it names a
	 * namespace at all.
	 */
	if (!purlin_io_opcode_supported(cmd->common.opcode))
		return NVME_SC_INVALID_OPCODE | PURLIN_DNR;
	if (cmd->common.opcode == nvme_cmd_flush &&
	    cmd->common.nsid == cpu_to_le32(NVME_NSID_ALL)) {
		req->execute = purlin_execute_flush_all;
		return 0;
	}
	req->ns = purlin_ns_get(req->sq->ctrl->subsys,
				le32_to_cpu(cmd->common.nsid));
	if (!req->ns)
		return NVME_SC_INVALID_NS | PURLIN_DNR;
	status = purlin_ana_check(req->sq->port, req->ns);
	if (status)
		return status;

	switch (cmd->common.opcode) {
	case nvme_cmd_resv_register:
	case nvme_cmd_resv_report:
	case nvme_cmd_resv_acquire:
	case nvme_cmd_resv_release:
		return purlin_parse_resv(req);
	}
	status = purlin_resv_check(req);
	if (status)
		return status;

	switch (cmd->common.opcode) {
	case nvme_cmd_read:
	case nvme_cmd_write:
		status = purlin_parse_rw(req);
		break;
	case nvme_cmd_flush:
		req->execute = req->ns->backend->flush;
		status = 0;
		break;
	case nvme_cmd_write_zeroes:
		status = purlin_parse_write_zeroes(req);
		break;
	case nvme_cmd_dsm:
		req->data_len = ((le32_to_cpu(cmd->dsm.nr) & 0xff) + 1) *
				sizeof(struct nvme_dsm_range);
		req->data_len_min = true;
		req->execute = req->ns->backend->dsm;
		status = 0;
		break;
	}
	return status;
}
