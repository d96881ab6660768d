/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences, absorbed in one place.  The driver calls the
 * purlin_* wrappers below; only this file knows which kernel API exists.
 * (Issue 7 turns the choices into build-time feature probes.)
 */
#ifndef PURLIN_COMPAT_H
#define PURLIN_COMPAT_H

#include <linux/blkdev.h>
#include <linux/fs.h>

/* An open block device. */
struct purlin_bdev {
	struct block_device *bdev;
};

static inline int purlin_bdev_open_path(struct purlin_bdev *b,
					const char *path, void *holder)
{
	struct block_device *bdev;

	bdev = blkdev_get_by_path(path, FMODE_READ | FMODE_WRITE, holder);
	if (IS_ERR(bdev))
		return PTR_ERR(bdev);
	b->bdev = bdev;
	return 0;
}

static inline void purlin_bdev_release(struct purlin_bdev *b, void *holder)
{
	blkdev_put(b->bdev, FMODE_READ | FMODE_WRITE);
	b->bdev = NULL;
}

#endif /* PURLIN_COMPAT_H */
