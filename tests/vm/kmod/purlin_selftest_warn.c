// SPDX-License-Identifier: GPL-2.0
/*
 * Harness self-test: a module that triggers a kernel WARN when loaded, so
 * the guest harness can prove it fails a test that warns; or, with stall=1,
 * spins with interrupts off, so that it can prove what it reports of a
 * guest that falls silent (no timer, no watchdog, only an NMI gets in).
 */
#include <linux/module.h>
#include <linux/irqflags.h>

static bool stall;
module_param(stall, bool, 0444);
MODULE_PARM_DESC(stall, "spin with interrupts off instead of warning");

static noinline void purlin_selftest_stall(void)
{
	local_irq_disable();
	while (READ_ONCE(stall))
		cpu_relax();
	local_irq_enable();
}

static int __init purlin_selftest_warn_init(void)
{
	if (stall) {
		purlin_selftest_stall();
		return 0;
	}
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
