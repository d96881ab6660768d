// SPDX-License-Identifier: GPL-2.0
/*
 * Debug-kernel lane self-test: a module whose init commits one deliberate
 * bug of the class named by its "bug" parameter, so `make check-debug` can
 * prove the guest harness fails a test on each kind of report:
 *
 *   lockdep   ABBA order on two mutexes (one thread, so no deadlock):
 *             "WARNING: possible circular locking dependency detected"
 *   kasan     one-byte read past a kmalloc'ed object:
 *             "BUG: KASAN: slab-out-of-bounds"
 *   ubsan     shift of an int by more than its width:
 *             "UBSAN: shift-out-of-bounds"
 *   kmemleak  a kmalloc'ed object whose only pointer is dropped; reported
 *             by the next kmemleak scan ("kmemleak: N new suspected ...")
 *
 * On a kernel without the matching checker the module refuses to load
 * (-EOPNOTSUPP) and does nothing: the bug is never committed unchecked.
 */
#include <linux/compiler.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

static char bug[16];
module_param_string(bug, bug, sizeof(bug), 0444);
MODULE_PARM_DESC(bug, "lockdep | kasan | ubsan | kmemleak");

static DEFINE_MUTEX(selftest_lock_a);
static DEFINE_MUTEX(selftest_lock_b);

static int selftest_lockdep(void)
{
	if (!IS_ENABLED(CONFIG_PROVE_LOCKING))
		return -EOPNOTSUPP;
	mutex_lock(&selftest_lock_a);
	mutex_lock(&selftest_lock_b);
	mutex_unlock(&selftest_lock_b);
	mutex_unlock(&selftest_lock_a);

	mutex_lock(&selftest_lock_b);
	mutex_lock(&selftest_lock_a);
	mutex_unlock(&selftest_lock_a);
	mutex_unlock(&selftest_lock_b);
	return 0;
}

static int selftest_kasan(void)
{
	size_t size = 16;
	char *p;

	if (!IS_ENABLED(CONFIG_KASAN))
		return -EOPNOTSUPP;
	p = kmalloc(size, GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	OPTIMIZER_HIDE_VAR(size);
	pr_info("purlin_selftest_debug: read past the object: %d\n",
		((volatile char *)p)[size]);
	kfree(p);
	return 0;
}

static int selftest_ubsan(void)
{
	int one = 1, shift = 40;

	if (!IS_ENABLED(CONFIG_UBSAN_SHIFT))
		return -EOPNOTSUPP;
	OPTIMIZER_HIDE_VAR(shift);
	pr_info("purlin_selftest_debug: oversized shift: %d\n", one << shift);
	return 0;
}

static int selftest_kmemleak(void)
{
	char *p;

	if (!IS_ENABLED(CONFIG_DEBUG_KMEMLEAK))
		return -EOPNOTSUPP;
	p = kmalloc(128, GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	strscpy(p, "purlin selftest deliberate leak", 128);
	pr_info("purlin_selftest_debug: leaked a 128-byte object\n");
	/* The only pointer to it ends here. */
	return 0;
}

static int __init purlin_selftest_debug_init(void)
{
	if (!strcmp(bug, "lockdep"))
		return selftest_lockdep();
	if (!strcmp(bug, "kasan"))
		return selftest_kasan();
	if (!strcmp(bug, "ubsan"))
		return selftest_ubsan();
	if (!strcmp(bug, "kmemleak"))
		return selftest_kmemleak();
	pr_err("purlin_selftest_debug: unknown bug '%s'\n", bug);
	return -EINVAL;
}

static void __exit purlin_selftest_debug_exit(void)
{
}

module_init(purlin_selftest_debug_init);
module_exit(purlin_selftest_debug_exit);
MODULE_DESCRIPTION("Purlin debug-kernel lane self-test (deliberate KASAN/UBSAN/lockdep/kmemleak reports)");
MODULE_LICENSE("GPL");
