// SPDX-License-Identifier: GPL-2.0
/*
 * File back end: a namespace whose device_path names a regular file.  By
 * default the file is opened with O_DIRECT and reads and writes are
 * asynchronous kiocbs on the request's own bio_vec table, tried first with
 * IOCB_NOWAIT so a completion worker never waits on file system locks or
 * block allocation (on -EAGAIN the I/O is redone on purlin_io_wq); with
 * buffered_io they go through the page cache, synchronously, on
 * purlin_io_wq, as do flush -> fsync, Write Zeroes -> fallocate(ZERO_RANGE),
 * else PUNCH_HOLE, else written zeroes, and Dataset Management deallocate
 * -> fallocate(PUNCH_HOLE), or nothing where the file system cannot; so
 * the completion workers never block on the file system.  Each command
 * kind has its function in purlin_file_ops, and its work function.
 */
#define pr_fmt(fmt) "purlin: " fmt

#include <linux/fs.h>
#include <linux/uio.h>
#include <linux/falloc.h>

#include "purlin.h"

static int purlin_file_open(struct purlin_ns *ns)
{
	int flags = O_RDWR | O_LARGEFILE | (ns->buffered_io ? 0 : O_DIRECT);
	struct file *file;

	file = filp_open(ns->device_path, flags, 0);
	if (IS_ERR(file)) {
		int ret = PTR_ERR(file);

		pr_err("namespace %u: cannot open %s%s: %d%s\n", ns->nsid,
		       ns->device_path, ns->buffered_io ? "" : " for direct I/O",
		       ret, ret == -EINVAL && !ns->buffered_io ?
		       " (the file system may not support O_DIRECT: set buffered_io)" : "");
		return ret;
	}
	if (!S_ISREG(file_inode(file)->i_mode)) {
		fput(file);
		return -EINVAL;
	}
	ns->file = file;
	ns->size = i_size_read(file_inode(file));
	/* The file system's block size, at most 4 KiB, as the LBA size. */
	ns->blksize_shift = min_t(u8, file_inode(file)->i_blkbits, 12);
	return 0;
}

static void purlin_file_close(struct purlin_ns *ns)
{
	fput(ns->file);
	ns->file = NULL;
}

static u64 purlin_file_size(struct purlin_ns *ns)
{
	return i_size_read(file_inode(ns->file));
}

static int purlin_file_flush_sync(struct purlin_ns *ns)
{
	return vfs_fsync(ns->file, 0);
}

static u16 purlin_file_status(struct purlin_req *req, long ret, size_t len)
{
	bool write = req->cmd->common.opcode != nvme_cmd_read;

	if (ret == len)
		return 0;
	switch (ret) {
	case -ENOSPC:
		return NVME_SC_CAP_EXCEEDED | PURLIN_DNR;
	case -EOPNOTSUPP:
		return NVME_SC_INVALID_OPCODE | PURLIN_DNR;
	case -EFBIG:
		return NVME_SC_LBA_RANGE | PURLIN_DNR;
	default:
		/* An error, or a short transfer. */
		return write ? NVME_SC_WRITE_FAULT : NVME_SC_READ_ERROR;
	}
}

static void purlin_file_rw_work(struct work_struct *work);

/* Run fn for req on purlin_io_wq, where it may block. */
static void purlin_file_queue(struct purlin_req *req, work_func_t fn)
{
	INIT_WORK(&req->work, fn);
	queue_work(purlin_io_wq, &req->work);
}

static void purlin_file_rw_done(struct kiocb *iocb, long ret)
{
	struct purlin_req *req = container_of(iocb, struct purlin_req, iocb);

	/* It would have had to wait: redo it where waiting is fine. */
	if (ret == -EAGAIN && (iocb->ki_flags & IOCB_NOWAIT)) {
		purlin_file_queue(req, purlin_file_rw_work);
		return;
	}

	purlin_req_complete(req, purlin_file_status(req, ret,
						    req->data_len));
}

/* Start the read or write; the kiocb completes it (now or later). */
static void purlin_file_submit_rw(struct purlin_req *req, bool sync)
{
	struct purlin_ns *ns = req->ns;
	struct file *file = ns->file;
	bool write = req->cmd->common.opcode == nvme_cmd_write;
	struct iov_iter iter;
	struct scatterlist *sg;
	ssize_t ret;
	int i;

	for_each_sg(req->sg, sg, req->sg_cnt, i) {
		req->bvec[i].bv_page = sg_page(sg);
		req->bvec[i].bv_len = sg->length;
		req->bvec[i].bv_offset = sg->offset;
	}
	iov_iter_bvec(&iter, write ? WRITE : READ, req->bvec, req->sg_cnt,
		      req->data_len);

	init_sync_kiocb(&req->iocb, file);
	req->iocb.ki_pos = le64_to_cpu(req->cmd->rw.slba) << ns->blksize_shift;
	if (!sync) {
		req->iocb.ki_complete = purlin_file_rw_done;
		req->iocb.ki_flags |= IOCB_NOWAIT;
	}
	if (write && (req->cmd->rw.control & cpu_to_le16(NVME_RW_FUA)))
		req->iocb.ki_flags |= IOCB_DSYNC;

	if (write)
		ret = file->f_op->write_iter(&req->iocb, &iter);
	else
		ret = file->f_op->read_iter(&req->iocb, &iter);
	if (ret != -EIOCBQUEUED)
		purlin_file_rw_done(&req->iocb, ret);
}

/* fallocate() on the LBA range [slba, slba + nlb): 0 or a negative errno. */
static int purlin_file_fallocate(struct purlin_ns *ns, int mode, u64 slba,
				 u64 nlb)
{
	if (!nlb)
		return 0;
	return vfs_fallocate(ns->file, mode | FALLOC_FL_KEEP_SIZE,
			     slba << ns->blksize_shift,
			     nlb << ns->blksize_shift);
}

/*
 * Write Zeroes on a file system that can neither zero a range nor punch a
 * hole (ramfs, vfat, the ext2 driver): write the zeroes, from the shared
 * zero page, a batch of pages at a time, with a synchronous kiocb as the
 * read/write path uses (freeze protection as vfs_iter_write() takes it
 * since 6.7).
 */
static int purlin_file_write_zero_pages(struct purlin_ns *ns, u64 slba,
					u64 nlb)
{
	struct bio_vec bv[16];
	u64 left = nlb << ns->blksize_shift;
	struct iov_iter iter;
	struct kiocb iocb;
	size_t len, chunk;
	ssize_t ret;
	int n;

	init_sync_kiocb(&iocb, ns->file);
	iocb.ki_pos = slba << ns->blksize_shift;
	while (left) {
		len = min_t(u64, left, ARRAY_SIZE(bv) * PAGE_SIZE);
		for (n = 0, chunk = 0; chunk < len; n++) {
			bv[n].bv_page = ZERO_PAGE(0);
			bv[n].bv_offset = 0;
			bv[n].bv_len = min_t(size_t, PAGE_SIZE, len - chunk);
			chunk += bv[n].bv_len;
		}
		iov_iter_bvec(&iter, WRITE, bv, n, len);
		file_start_write(ns->file);
		ret = ns->file->f_op->write_iter(&iocb, &iter);
		file_end_write(ns->file);
		if (ret < 0)
			return ret;
		if (!ret)
			return -EIO;
		/* A synchronous kiocb: write_iter moved ki_pos on. */
		left -= min_t(u64, left, ret);
	}
	return 0;
}

/*
 * Write Zeroes: zero the range in place; else punch a hole (it reads as
 * zeroes: tmpfs has no ZERO_RANGE); else write zeroes.  ONCS promises the
 * command, so a file system's lack of fallocate() is not the host's error.
 * With FUA the range is on stable storage before the completion (the
 * controller reports a volatile write cache).
 */
static u16 purlin_file_write_zeroes(struct purlin_req *req)
{
	struct purlin_ns *ns = req->ns;
	u64 slba = le64_to_cpu(req->cmd->write_zeroes.slba);
	u64 nlb = (u64)le16_to_cpu(req->cmd->write_zeroes.length) + 1;
	loff_t pos = slba << ns->blksize_shift;
	int ret;

	ret = purlin_file_fallocate(ns, FALLOC_FL_ZERO_RANGE, slba, nlb);
	if (ret == -EOPNOTSUPP)
		ret = purlin_file_fallocate(ns, FALLOC_FL_PUNCH_HOLE, slba, nlb);
	if (ret == -EOPNOTSUPP)
		ret = purlin_file_write_zero_pages(ns, slba, nlb);
	if (!ret && (req->cmd->write_zeroes.control & cpu_to_le16(NVME_RW_FUA)))
		ret = vfs_fsync_range(ns->file, pos,
				      pos + (nlb << ns->blksize_shift) - 1, 1);
	return ret ? purlin_file_status(req, ret, 0) : 0;
}

/*
 * Dataset Management: Deallocate punches holes.  Every range is checked
 * before any is punched, as on the block back end.  On a file system that
 * cannot punch, nothing is deallocated: allowed, as on a device that
 * cannot discard (Deallocate is advisory; DLFEAT promises nothing about
 * reads).
 */
static u16 purlin_file_dsm(struct purlin_req *req)
{
	u32 nr = (le32_to_cpu(req->cmd->dsm.nr) & 0xff) + 1;
	struct nvme_dsm_range range;
	u16 status = 0;
	int ret;
	u32 i;

	if (!(le32_to_cpu(req->cmd->dsm.attributes) & NVME_DSMGMT_AD))
		return 0;
	for (i = 0; !status && i < nr; i++) {
		status = purlin_copy_from_sg(req, i * sizeof(range), &range,
					     sizeof(range));
		if (!status)
			status = purlin_check_lba_range(req->ns,
					le64_to_cpu(range.slba),
					le32_to_cpu(range.nlb));
	}
	for (i = 0; !status && i < nr; i++) {
		status = purlin_copy_from_sg(req, i * sizeof(range), &range,
					     sizeof(range));
		if (status)
			break;
		ret = purlin_file_fallocate(req->ns, FALLOC_FL_PUNCH_HOLE,
					    le64_to_cpu(range.slba),
					    le32_to_cpu(range.nlb));
		if (ret == -EOPNOTSUPP)
			break;
		if (ret)
			status = purlin_file_status(req, ret, 0);
	}
	return status;
}

/*
 * What blocks runs on purlin_io_wq, one work function per command kind:
 * buffered (or would-block direct) reads and writes, flush, Write Zeroes,
 * Dataset Management.
 */
static struct purlin_req *purlin_file_work_req(struct work_struct *work)
{
	return container_of(work, struct purlin_req, work);
}

static void purlin_file_rw_work(struct work_struct *work)
{
	purlin_file_submit_rw(purlin_file_work_req(work), true);
}

static void purlin_file_flush_work(struct work_struct *work)
{
	struct purlin_req *req = purlin_file_work_req(work);

	purlin_req_complete(req, vfs_fsync(req->ns->file, 1) ?
			    NVME_SC_WRITE_FAULT : 0);
}

static void purlin_file_write_zeroes_work(struct work_struct *work)
{
	struct purlin_req *req = purlin_file_work_req(work);

	purlin_req_complete(req, purlin_file_write_zeroes(req));
}

static void purlin_file_dsm_work(struct work_struct *work)
{
	struct purlin_req *req = purlin_file_work_req(work);

	purlin_req_complete(req, purlin_file_dsm(req));
}

/* Direct I/O starts here, asynchronously; buffered I/O may block. */
static void purlin_file_execute_rw(struct purlin_req *req)
{
	if (req->ns->buffered_io)
		purlin_file_queue(req, purlin_file_rw_work);
	else
		purlin_file_submit_rw(req, false);
}

static void purlin_file_execute_flush(struct purlin_req *req)
{
	purlin_file_queue(req, purlin_file_flush_work);
}

static void purlin_file_execute_write_zeroes(struct purlin_req *req)
{
	purlin_file_queue(req, purlin_file_write_zeroes_work);
}

static void purlin_file_execute_dsm(struct purlin_req *req)
{
	purlin_file_queue(req, purlin_file_dsm_work);
}

const struct purlin_backend_ops purlin_file_ops = {
	.open = purlin_file_open,
	.close = purlin_file_close,
	.size = purlin_file_size,
	.flush_sync = purlin_file_flush_sync,
	.rw = purlin_file_execute_rw,
	.flush = purlin_file_execute_flush,
	.write_zeroes = purlin_file_execute_write_zeroes,
	.dsm = purlin_file_execute_dsm,
};
