# SPDX-License-Identifier: GPL-2.0
# Debug-kernel lane self-test: an int shifted by 40; UBSAN must report
# shift-out-of-bounds.
# The harness must FAIL this test (scripts/check-debug.sh checks it does);
# on a kernel without UBSAN shift checks it is skipped.
# timeout: 120

ko=/lib/modules/$(uname -r)/extra/purlin_selftest_debug.ko
if ! insmod $ko bug=ubsan 2> /tmp/t/insmod.err; then
	cat /tmp/t/insmod.err
	grep -q 'not supported' /tmp/t/insmod.err && skip "this kernel has no UBSAN shift checks"
	fail "cannot load purlin_selftest_debug"
fi
rmmod purlin_selftest_debug
