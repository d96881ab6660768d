// SPDX-License-Identifier: GPL-2.0
/*
 * Block-device back end: NVM command set I/O through bios.  Each request's
 * bio and bio_vec table are embedded in it; nothing is allocated per I/O.
 * The generic checks come first (io-cmd.c); each command kind then runs
 * the function of purlin_bdev_ops for it.
 */
#define pr_fmt(fmt) "purlin: " fmt

#include <linux/blkdev.h>

#include "purlin.h"

/*
 * Open the namespace's block device: -ENOTBLK, quietly, when device_path
 * is not one (then it is a file, see purlin_ns_enable()).
 */
static int purlin_bdev_open(struct purlin_ns *ns)
{
	struct block_device *bdev;
	int ret;

	ret = purlin_bdev_open_path(&ns->bdev, ns->device_path);
	if (ret == -ENOTBLK)
		return ret;
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

static void purlin_bdev_close(struct purlin_ns *ns)
{
	purlin_bdev_release(&ns->bdev);
}

static u64 purlin_bdev_size(struct purlin_ns *ns)
{
	return bdev_nr_bytes(ns->bdev.bdev);
}

static int purlin_bdev_flush_sync(struct purlin_ns *ns)
{
	return blkdev_issue_flush(ns->bdev.bdev);
}

static u16 purlin_blk_status(struct purlin_req *req, blk_status_t sts)
{
	bool write = req->cmd->common.opcode != nvme_cmd_read;

	switch (sts) {
	case BLK_STS_OK:
		return 0;
	case BLK_STS_NOSPC:
		return NVME_SC_CAP_EXCEEDED | PURLIN_DNR;
	case BLK_STS_TARGET:
		return NVME_SC_LBA_RANGE | PURLIN_DNR;
	case BLK_STS_NOTSUPP:
		return NVME_SC_INVALID_OPCODE | PURLIN_DNR;
	case BLK_STS_MEDIUM:
	case BLK_STS_IOERR:
		return write ? NVME_SC_WRITE_FAULT : NVME_SC_READ_ERROR;
	case BLK_STS_TRANSPORT:
		return NVME_SC_TRANSIENT_TR_ERR;
	default:
		return NVME_SC_INTERNAL;
	}
}

static void purlin_bio_done(struct bio *bio)
{
	struct purlin_req *req = bio->bi_private;
	struct task_struct *poller;
	u16 status;

	if (req->polled) {
		/*
		 * A polled bio: its polling thread finishes the request
		 * (purlin_poll_bios()).  Usually this runs inside its
		 * bio_poll(); from anywhere else, wake it.  Once poll_done is
		 * set the request may be gone: nothing of it is read after.
		 */
		poller = req->poll->task;
		req->poll_sts = bio->bi_status;
		smp_store_release(&req->poll_done, true);
		if (current != poller)
			wake_up_process(poller);
		return;
	}
	status = purlin_blk_status(req, bio->bi_status);
	bio_uninit(bio);
	purlin_req_complete(req, status);
}

/*
 * Poll the bios a polling thread submitted, and finish those that are
 * done; the number finished.  Called by that thread alone, which owns the
 * list: a completion only marks its request (purlin_bio_done()).
 */
static void purlin_bdev_execute_rw(struct purlin_req *req);

/* A polled bio the device would not take without waiting: submit it here. */
static void purlin_bdev_rw_work(struct work_struct *work)
{
	purlin_bdev_execute_rw(container_of(work, struct purlin_req, work));
}

unsigned int purlin_poll_bios(struct purlin_poll_ctx *ctx)
{
	struct purlin_req *req, *tmp;
	unsigned int done = 0;

	list_for_each_entry_safe(req, tmp, &ctx->bios, poll_entry) {
		if (!smp_load_acquire(&req->poll_done)) {
			ctx->bio_polls++;
			bio_poll(&req->bio, NULL, BLK_POLL_ONESHOT);
			if (!smp_load_acquire(&req->poll_done))
				continue;
		}
		list_del(&req->poll_entry);
		ctx->nr_bios--;
		req->polled = false;
		bio_uninit(&req->bio);
		if (req->poll_sts == BLK_STS_AGAIN ||
		    req->poll_sts == BLK_STS_NOTSUPP) {
			/*
			 * REQ_NOWAIT refused (no tag free, a split needed, the
			 * queue frozen), or REQ_POLLED (6.11+: a queue without
			 * poll queues): a worker submits it unpolled, where it
			 * may wait.  After a NOTSUPP the namespace polls no more.
			 */
			if (req->poll_sts == BLK_STS_NOTSUPP)
				WRITE_ONCE(req->ns->poll_off, true);
			ctx->bio_punts++;
			req->poll = NULL;
			INIT_WORK(&req->work, purlin_bdev_rw_work);
			queue_work(purlin_io_wq, &req->work);
			continue;
		}
		purlin_req_complete(req, purlin_blk_status(req, req->poll_sts));
		done++;
	}
	return done;
}

/*
 * Can bio to a polling device go polled?  The device must take REQ_NOWAIT
 * and the bio must need no split (a REQ_NOWAIT bio that would be split is
 * refused); what this misses ends in BLK_STS_AGAIN and a worker.
 */
static bool purlin_bdev_poll_ok(struct block_device *bdev, struct bio *bio)
{
	return bdev_nowait(bdev) &&
	       bio_sectors(bio) <= queue_max_sectors(bdev_get_queue(bdev)) &&
	       bio->bi_vcnt <= queue_max_segments(bdev_get_queue(bdev));
}

/*
 * A polling thread submits its bios under one plug per pass, and the block
 * layer tries to merge each into the plug's last request to its device,
 * then into what the device's software queues hold: work wasted on random
 * I/O.  So a bio that neither continues this thread's previous bio to the
 * same device nor follows one that continued its own predecessor is marked
 * not to merge (and is not merged into), on devices without a scheduler
 * (whose merges of other submitters' requests are left alone): random I/O
 * skips the searches, a sequential stream merges from its third bio on.
 * The last few devices are remembered.
 */
static void purlin_poll_merge_hint(struct purlin_poll_ctx *ctx,
				   struct bio *bio)
{
	struct purlin_poll_seq *s = NULL;
	bool cont;
	int i;

	for (i = 0; i < PURLIN_POLL_SEQ_SLOTS; i++) {
		if (ctx->seq[i].bdev == bio->bi_bdev) {
			s = &ctx->seq[i];
			break;
		}
	}
	if (!s) {
		s = &ctx->seq[ctx->seq_next++ % PURLIN_POLL_SEQ_SLOTS];
		s->bdev = bio->bi_bdev;
		s->end = (sector_t)-1;
		s->seq = false;
	}
	cont = s->end == bio->bi_iter.bi_sector;
	if (!cont && !s->seq && !bdev_get_queue(bio->bi_bdev)->elevator)
		bio->bi_opf |= REQ_NOMERGE;
	s->seq = cont;
	s->end = bio_end_sector(bio);
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
	/*
	 * From a polling thread, to a device that polls: listed before the
	 * submission, which may complete it.  A bio the block layer cannot
	 * poll after all (6.1 clears REQ_POLLED) completes by interrupt.
	 * REQ_NOWAIT: a polled bio must never wait (for a tag, or a frozen
	 * queue) on what only this thread's polling frees; it completes with
	 * BLK_STS_AGAIN instead and purlin_poll_bios() hands it to a worker.
	 * A bio to a polling device that cannot go polled is the worker's
	 * too, for the same reason; one to a device that does not poll
	 * waits on nothing of ours and is submitted here.
	 */
	if (req->poll && req->poll->task == current &&
	    purlin_bdev_can_poll(ns->bdev.bdev) && !READ_ONCE(ns->poll_off)) {
		if (!purlin_bdev_poll_ok(ns->bdev.bdev, bio)) {
			bio_uninit(bio);
			req->poll->bio_punts++;
			req->poll = NULL;
			INIT_WORK(&req->work, purlin_bdev_rw_work);
			queue_work(purlin_io_wq, &req->work);
			return;
		}
		bio->bi_opf |= REQ_POLLED | REQ_NOWAIT;
		purlin_poll_merge_hint(req->poll, bio);
		req->polled = true;
		req->poll_done = false;
		list_add_tail(&req->poll_entry, &req->poll->bios);
		req->poll->nr_bios++;
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
				    PURLIN_DNR : NVME_SC_INTERNAL);
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

const struct purlin_backend_ops purlin_bdev_ops = {
	.open = purlin_bdev_open,
	.close = purlin_bdev_close,
	.size = purlin_bdev_size,
	.flush_sync = purlin_bdev_flush_sync,
	.rw = purlin_bdev_execute_rw,
	.flush = purlin_bdev_execute_flush,
	.write_zeroes = purlin_bdev_execute_write_zeroes,
	.dsm = purlin_bdev_execute_dsm,
};
