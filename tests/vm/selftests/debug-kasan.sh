# SPDX-License-Identifier: GPL-2.0
# Debug-kernel lane self-test: a read past a kmalloc'ed object; KASAN must
# report slab-out-of-bounds.
# The harness must FAIL this test (scripts/check-debug.sh checks it does);
# on a kernel without KASAN it is skipped.
# timeout: 120

ko=/lib/modules/$(uname -r)/extra/purlin_selftest_debug.ko
if ! insmod $ko bug=kasan 2> /tmp/t/insmod.err; then
	cat /tmp/t/insmod.err
	grep -q 'not supported' /tmp/t/insmod.err && skip "this kernel has no KASAN"
	fail "cannot load purlin_selftest_debug"
fi
rmmod purlin_selftest_debug
