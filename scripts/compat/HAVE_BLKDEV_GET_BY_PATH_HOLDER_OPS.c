// SPDX-License-Identifier: GPL-2.0
/* 6.5-6.7: blkdev_get_by_path() takes blk_mode_t, holder and holder ops. */
#include <linux/blkdev.h>

static void __maybe_unused probe(void)
{
	struct block_device *b = blkdev_get_by_path("/dev/null", BLK_OPEN_READ,
						    NULL, NULL);

	blkdev_put(b, NULL);
}
