// SPDX-License-Identifier: GPL-2.0
/* 6.9+: block devices are opened as files. */
#include <linux/blkdev.h>
#include <linux/fs.h>

static struct block_device *__maybe_unused probe(void)
{
	struct file *f = bdev_file_open_by_path("/dev/null",
						BLK_OPEN_READ | BLK_OPEN_WRITE,
						NULL, NULL);

	return file_bdev(f);
}
