// SPDX-License-Identifier: GPL-2.0
/* 6.8: block devices are opened through a struct bdev_handle. */
#include <linux/blkdev.h>

static void __maybe_unused probe(void)
{
	struct bdev_handle *h = bdev_open_by_path("/dev/null", BLK_OPEN_READ,
						  NULL, NULL);

	bdev_release(h);
}
