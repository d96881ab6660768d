// SPDX-License-Identifier: GPL-2.0
/*
 * Block-device back end: NVM command set I/O through bios.  Each request's
 * bio and bio_vec table are embedded in it; nothing is allocated per I/O.
 */
#define pr_fmt(fmt) "purlin: " fmt

#include <linux/blkdev.h>

#include "purlin.h"

/* Open the namespace's backing store: a block device or a regular file. */
int purlin_bdev_open(struct purlin_ns *ns)
{
	struct block_device *bdev;
	int ret;

	ret = purlin_bdev_open_path(&ns->bdev, ns->device_path);
	if (ret == -ENOTBLK)
		return purlin_file_open(ns);
	if (ret) {
		pr_err("namespace %u: cannot open %s: %d\n", ns->nsid,
		       ns->device_path, ret);
		return ret;
	}
	bdev = ns->bdev.bdev;
	ns->size = bdev_nr_bytes(bdev);
	ns->blksize_shift = blksize_bits(bdev_logical_block_size(bdev));
	return 0;
}

void purlin_bdev_close(struct purlin_ns *ns)
{
	if (ns->file)
		purlin_file_close(ns);
	else if (ns->bdev.bdev)
		purlin_bdev_release(&ns->bdev);
}

static u16 purlin_blk_status(struct purlin_req *req, blk_status_t sts)
{
	bool write = req->cmd->common.opcode != nvme_cmd_read;

	switch (sts) {
	case BLK_STS_OK:
		return 0;
	case BLK_STS_NOSPC:
		return NVME_SC_CAP_EXCEEDED | PRL_DNR;
	case BLK_STS_TARGET:
		return NVME_SC_LBA_RANGE | PRL_DNR;
	case BLK_STS_NOTSUPP:
		return NVME_SC_INVALID_OPCODE | PRL_DNR;
	case BLK_STS_MEDIUM:
	case BLK_STS_IOERR:
		return write ? NVME_SC_WRITE_FAULT : NVME_SC_READ_ERROR;
	case BLK_STS_TRANSPORT:
		return NVME_SC_TRANSIENT_TR_ERR;
	default:
		return NVME_SC_INTERNAL;
	}
}

u16 purlin_check_lba_range(struct purlin_ns *ns, u64 slba, u64 nlb)
{
	u64 nsze = READ_ONCE(ns->size) >> ns->blksize_shift;

	if (slba >= nsze || nlb > nsze - slba)
		return NVME_SC_LBA_RANGE | PRL_DNR;
	return 0;
}

static void purlin_bio_done(struct bio *bio)
{
	struct purlin_req *req = bio->bi_private;
	u16 status = purlin_blk_status(req, bio->bi_status);

	bio_uninit(bio);
	purlin_req_complete(req, status);
}

static void purlin_bdev_execute_rw(struct purlin_req *req)
{
	struct purlin_ns *ns = req->ns;
	struct bio *bio = &req->bio;
	struct scatterlist *sg;
	blk_opf_t opf;
	int i;

	if (req->cmd->common.opcode == nvme_cmd_write) {
		opf = REQ_OP_WRITE | REQ_SYNC | REQ_IDLE;
		if (req->cmd->rw.control & cpu_to_le16(NVME_RW_FUA))
			opf |= REQ_FUA;
	} else {
		opf = REQ_OP_READ;
	}
	bio_init(bio, ns->bdev.bdev, req->bvec, ARRAY_SIZE(req->bvec), opf);
	bio->bi_iter.bi_sector = le64_to_cpu(req->cmd->rw.slba) <<
				 (ns->blksize_shift - SECTOR_SHIFT);
	bio->bi_private = req;
	bio->bi_end_io = purlin_bio_done;
	for_each_sg(req->sg, sg, req->sg_cnt, i) {
		if (bio_add_page(bio, sg_page(sg), sg->length, sg->offset) !=
		    sg->length) {
			bio_uninit(bio);
			purlin_req_complete(req, NVME_SC_INTERNAL);
			return;
		}
	}
	submit_bio(bio);
}

/* Completion of a bio chain the block layer allocated (zeroes, discard). */
static void purlin_bio_chain_done(struct bio *bio)
{
	struct purlin_req *req = bio->bi_private;
	u16 status = purlin_blk_status(req, bio->bi_status);

	bio_put(bio);
	purlin_req_complete(req, status);
}

static void purlin_submit_chain(struct purlin_req *req, struct bio *bio,
				int ret)
{
	if (ret && ret != -EOPNOTSUPP) {
		if (bio)
			bio_put(bio);
		purlin_req_complete(req, errno_to_blk_status(ret) ==
				    BLK_STS_NOTSUPP ? NVME_SC_INVALID_OPCODE |
				    PRL_DNR : NVME_SC_INTERNAL);
		return;
	}
	if (!bio) {
		purlin_req_complete(req, 0);
		return;
	}
	bio->bi_private = req;
	bio->bi_end_io = purlin_bio_chain_done;
	submit_bio(bio);
}

static sector_t purlin_lba_to_sector(struct purlin_ns *ns, u64 lba)
{
	return lba << (ns->blksize_shift - SECTOR_SHIFT);
}

/* Write Zeroes: the block layer builds the bios (not the hot path). */
static void purlin_bdev_execute_write_zeroes(struct purlin_req *req)
{
	struct nvme_write_zeroes_cmd *wz = &req->cmd->write_zeroes;
	struct purlin_ns *ns = req->ns;
	struct bio *bio = NULL;
	int ret;

	ret = __blkdev_issue_zeroout(ns->bdev.bdev,
			purlin_lba_to_sector(ns, le64_to_cpu(wz->slba)),
			purlin_lba_to_sector(ns, le16_to_cpu(wz->length) + 1),
			GFP_KERNEL, &bio, 0);
	purlin_submit_chain(req, bio, ret);
}

/* Dataset Management: Deallocate becomes discard; other hints are no-ops. */
static void purlin_bdev_execute_dsm(struct purlin_req *req)
{
	u32 nr = (le32_to_cpu(req->cmd->dsm.nr) & 0xff) + 1;
	struct purlin_ns *ns = req->ns;
	bool discard = bdev_max_discard_sectors(ns->bdev.bdev);
	struct nvme_dsm_range *ranges;
	struct bio *bio = NULL;
	u16 status;
	int ret = 0;
	u32 i;

	if (!(le32_to_cpu(req->cmd->dsm.attributes) & NVME_DSMGMT_AD)) {
		purlin_req_complete(req, 0);
		return;
	}
	ranges = kmalloc_array(nr, sizeof(*ranges), GFP_KERNEL);
	if (!ranges) {
		purlin_req_complete(req, NVME_SC_INTERNAL);
		return;
	}
	status = purlin_copy_from_sg(req, 0, ranges, nr * sizeof(*ranges));
	for (i = 0; !status && i < nr; i++)
		status = purlin_check_lba_range(ns,
				le64_to_cpu(ranges[i].slba),
				le32_to_cpu(ranges[i].nlb));
	/* A device that cannot discard deallocates nothing: allowed. */
	for (i = 0; !status && discard && i < nr; i++) {
		u32 nlb = le32_to_cpu(ranges[i].nlb);

		if (!nlb)
			continue;
		ret = purlin_issue_discard(ns->bdev.bdev,
			purlin_lba_to_sector(ns, le64_to_cpu(ranges[i].slba)),
			purlin_lba_to_sector(ns, nlb), GFP_KERNEL, &bio);
		if (ret)
			break;
	}
	kfree(ranges);
	if (status) {
		if (bio)
			bio_put(bio);
		purlin_req_complete(req, status);
		return;
	}
	purlin_submit_chain(req, bio, ret);
}

static void purlin_bdev_execute_flush(struct purlin_req *req)
{
	struct bio *bio = &req->bio;

	bio_init(bio, req->ns->bdev.bdev, req->bvec, ARRAY_SIZE(req->bvec),
		 REQ_OP_WRITE | REQ_PREFLUSH);
	bio->bi_private = req;
	bio->bi_end_io = purlin_bio_done;
	submit_bio(bio);
}

static u16 purlin_parse_rw(struct purlin_req *req)
{
	struct purlin_ns *ns = req->ns;
	u64 slba = le64_to_cpu(req->cmd->rw.slba);
	u64 nlb = (u64)le16_to_cpu(req->cmd->rw.length) + 1;
	u16 status = purlin_check_lba_range(ns, slba, nlb);

	if (status)
		return status;
	if ((nlb << ns->blksize_shift) > PRL_MAX_XFER)
		return NVME_SC_INVALID_FIELD | PRL_DNR;
	req->data_len = nlb << ns->blksize_shift;
	req->to_host = req->cmd->common.opcode == nvme_cmd_read;
	req->execute = purlin_bdev_execute_rw;
	return 0;
}

static u16 purlin_parse_write_zeroes(struct purlin_req *req)
{
	struct nvme_write_zeroes_cmd *wz = &req->cmd->write_zeroes;

	req->execute = purlin_bdev_execute_write_zeroes;
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
		if (ns && !purlin_ana_check(req->sq->port, ns)) {
			ret = ns->file ? vfs_fsync(ns->file, 0) :
					 blkdev_issue_flush(ns->bdev.bdev);
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

/*
 * Parse an NVM command: namespace, opcode, LBA range and data length are
 * checked here for both back ends; the back end then picks execute().
 */
/* The NVM command set's I/O commands this target implements. */
bool purlin_io_opcode_supported(u8 opcode)
{
	switch (opcode) {
	case nvme_cmd_read:
	case nvme_cmd_write:
	case nvme_cmd_flush:
	case nvme_cmd_write_zeroes:
	case nvme_cmd_dsm:
		return true;
	default:
		return false;
	}
}

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
		return NVME_SC_INVALID_OPCODE | PRL_DNR;
	if (cmd->common.opcode == nvme_cmd_flush &&
	    cmd->common.nsid == cpu_to_le32(NVME_NSID_ALL)) {
		req->execute = purlin_execute_flush_all;
		return 0;
	}
	req->ns = purlin_ns_get(req->sq->ctrl->subsys,
				le32_to_cpu(cmd->common.nsid));
	if (!req->ns)
		return NVME_SC_INVALID_NS | PRL_DNR;
	status = purlin_ana_check(req->sq->port, req->ns);
	if (status)
		return status;

	switch (cmd->common.opcode) {
	case nvme_cmd_read:
	case nvme_cmd_write:
		status = purlin_parse_rw(req);
		break;
	case nvme_cmd_flush:
		req->execute = purlin_bdev_execute_flush;
		status = 0;
		break;
	case nvme_cmd_write_zeroes:
		status = purlin_parse_write_zeroes(req);
		break;
	case nvme_cmd_dsm:
		req->data_len = ((le32_to_cpu(cmd->dsm.nr) & 0xff) + 1) *
				sizeof(struct nvme_dsm_range);
		req->data_len_min = true;
		req->execute = purlin_bdev_execute_dsm;
		status = 0;
		break;
	}
	if (!status && req->ns->file)
		status = purlin_file_parse(req);
	return status;
}
