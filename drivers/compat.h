/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences, absorbed in one place.  The driver calls the
 * purlin_* wrappers below.  Which API exists is decided by feature probes
 * (scripts/compat-probe.sh, run by the Makefile before kbuild, writes
 * compat-probed.h) or by __has_include, never by version numbers.
 */
#ifndef PURLIN_COMPAT_H
#define PURLIN_COMPAT_H

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>

#include "compat-probed.h"

/* linux/unaligned.h replaced asm/unaligned.h in 6.12. */
#if __has_include(<linux/unaligned.h>)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* hex2bin() and friends: linux/hex.h, which linux/kernel.h no longer includes (7.x). */
#if __has_include(<linux/hex.h>)
#include <linux/hex.h>
#endif

/*
 * Identify Namespace NSFEAT bit 4 (OPTPERF: NPWG, NPWA, NPDG, NPDA, NOWS are
 * valid): NVME_NS_FEAT_IO_OPT up to 6.12, NVME_NS_FEAT_OPTPERF_SHIFT/_MASK
 * (two bits since NVMe 2.1) in 7.x.
 */
#define PURLIN_NS_FEAT_OPTPERF	(1 << 4)

/* __blkdev_issue_discard() returns void after 6.12 (it cannot fail). */
static inline int purlin_issue_discard(struct block_device *bdev,
				       sector_t sector, sector_t nr_sects,
				       gfp_t gfp, struct bio **biop)
{
#ifdef HAVE_BLKDEV_ISSUE_DISCARD_VOID
	__blkdev_issue_discard(bdev, sector, nr_sects, gfp, biop);
	return 0;
#else
	return __blkdev_issue_discard(bdev, sector, nr_sects, gfp, biop);
#endif
}

/*
 * Can bios to bdev be polled (REQ_POLLED, bio_poll())?  6.11 made it a
 * feature bit, which some kernels set for any tag set with a poll map,
 * poll queues or not: a blk-mq device must have poll queues too.
 */
static inline bool purlin_bdev_can_poll(struct block_device *bdev)
{
#ifdef BLK_FEAT_POLL
	struct request_queue *q = bdev_get_queue(bdev);

	if (!(q->limits.features & BLK_FEAT_POLL))
		return false;
	return !queue_is_mq(q) || (q->tag_set->nr_maps > HCTX_TYPE_POLL &&
				   q->tag_set->map[HCTX_TYPE_POLL].nr_queues);
#else
	return test_bit(QUEUE_FLAG_POLL, &bdev_get_queue(bdev)->queue_flags);
#endif
}

/*
 * An open block device.  Purlin opens devices shared (not exclusively),
 * read-write, as nvmet does.
 */
struct purlin_bdev {
	struct block_device *bdev;
#if defined(HAVE_BDEV_FILE_OPEN_BY_PATH)
	struct file *file;
#elif defined(HAVE_BDEV_OPEN_BY_PATH)
	struct bdev_handle *handle;
#endif
};

#if defined(HAVE_BDEV_FILE_OPEN_BY_PATH)		/* 6.9+ */
static inline int purlin_bdev_open_path(struct purlin_bdev *b,
					const char *path)
{
	struct file *f = bdev_file_open_by_path(path,
						BLK_OPEN_READ | BLK_OPEN_WRITE,
						NULL, NULL);

	if (IS_ERR(f))
		return PTR_ERR(f);
	b->file = f;
	b->bdev = file_bdev(f);
	return 0;
}

static inline void purlin_bdev_release(struct purlin_bdev *b)
{
	fput(b->file);
	b->file = NULL;
	b->bdev = NULL;
}
#elif defined(HAVE_BDEV_OPEN_BY_PATH)			/* 6.8 */
static inline int purlin_bdev_open_path(struct purlin_bdev *b,
					const char *path)
{
	struct bdev_handle *h = bdev_open_by_path(path,
						  BLK_OPEN_READ | BLK_OPEN_WRITE,
						  NULL, NULL);

	if (IS_ERR(h))
		return PTR_ERR(h);
	b->handle = h;
	b->bdev = h->bdev;
	return 0;
}

static inline void purlin_bdev_release(struct purlin_bdev *b)
{
	bdev_release(b->handle);
	b->handle = NULL;
	b->bdev = NULL;
}
#elif defined(HAVE_BLKDEV_GET_BY_PATH_HOLDER_OPS)	/* 6.5 - 6.7 */
static inline int purlin_bdev_open_path(struct purlin_bdev *b,
					const char *path)
{
	struct block_device *bdev = blkdev_get_by_path(path,
					BLK_OPEN_READ | BLK_OPEN_WRITE,
					NULL, NULL);

	if (IS_ERR(bdev))
		return PTR_ERR(bdev);
	b->bdev = bdev;
	return 0;
}

static inline void purlin_bdev_release(struct purlin_bdev *b)
{
	blkdev_put(b->bdev, NULL);
	b->bdev = NULL;
}
#else							/* 6.1 - 6.4 */
static inline int purlin_bdev_open_path(struct purlin_bdev *b,
					const char *path)
{
	struct block_device *bdev = blkdev_get_by_path(path,
					FMODE_READ | FMODE_WRITE, NULL);

	if (IS_ERR(bdev))
		return PTR_ERR(bdev);
	b->bdev = bdev;
	return 0;
}

static inline void purlin_bdev_release(struct purlin_bdev *b)
{
	blkdev_put(b->bdev, FMODE_READ | FMODE_WRITE);
	b->bdev = NULL;
}
#endif

/* hrtimer_setup() (6.13+) or hrtimer_init() and the callback set apart. */
static inline void purlin_hrtimer_setup(struct hrtimer *t,
					enum hrtimer_restart (*fn)(struct hrtimer *),
					clockid_t clock, enum hrtimer_mode mode)
{
#ifdef HAVE_HRTIMER_SETUP
	hrtimer_setup(t, fn, clock, mode);
#else
	hrtimer_init(t, clock, mode);
	t->function = fn;
#endif
}

#endif /* PURLIN_COMPAT_H */
