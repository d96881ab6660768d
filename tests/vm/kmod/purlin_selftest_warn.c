// SPDX-License-Identifier: GPL-2.0
/*
 * Harness self-test: a module that triggers a kernel WARN when loaded, so
 * the guest harness can prove it fails a test that warns.
 */
#include <linux/module.h>

static int __init purlin_selftest_warn_init(void)
{
	WARN(1, "purlin harness self-test: deliberate warning\n");
	return 0;
}

static void __exit purlin_selftest_warn_exit(void)
{
}

module_init(purlin_selftest_warn_init);
module_exit(purlin_selftest_warn_exit);
MODULE_DESCRIPTION("Purlin test harness self-test (deliberate WARN)");
MODULE_LICENSE("GPL");
