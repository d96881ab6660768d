// SPDX-License-Identifier: GPL-2.0
/*
 * Purlin: module entry points.
 */
#define pr_fmt(fmt) "purlin: " fmt

#include <linux/module.h>

#include "purlin.h"

static int __init purlin_init(void)
{
	int ret;

	ret = purlin_configfs_init();
	if (ret)
		return ret;
	pr_info("version %s loaded\n", PURLIN_VERSION);
	return 0;
}

static void __exit purlin_exit(void)
{
	purlin_configfs_exit();
	pr_info("unloaded\n");
}

module_init(purlin_init);
module_exit(purlin_exit);

MODULE_DESCRIPTION("Purlin NVMe over Fabrics RDMA target");
MODULE_LICENSE("GPL");
MODULE_VERSION(PURLIN_VERSION);
