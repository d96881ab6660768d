// SPDX-License-Identifier: GPL-2.0
/* after 6.12: __blkdev_issue_discard() returns void (it cannot fail). */
#include <linux/blkdev.h>

static void __maybe_unused probe(struct block_device *b, struct bio **bio)
{
	_Static_assert(__builtin_types_compatible_p(
		typeof(__blkdev_issue_discard(b, 0, 8, GFP_KERNEL, bio)), void),
		"__blkdev_issue_discard() returns a value");
}
