# SPDX-License-Identifier: GPL-2.0
# Debug-kernel lane self-test: an ABBA order on two mutexes; lockdep must
# report a possible circular locking dependency.
# The harness must FAIL this test (scripts/check-debug.sh checks it does);
# on a kernel without lockdep (CONFIG_PROVE_LOCKING) it is skipped.
# timeout: 120

ko=/lib/modules/$(uname -r)/extra/purlin_selftest_debug.ko
if ! insmod $ko bug=lockdep 2> /tmp/t/insmod.err; then
	cat /tmp/t/insmod.err
	grep -q 'not supported' /tmp/t/insmod.err && skip "this kernel has no lockdep (CONFIG_PROVE_LOCKING)"
	fail "cannot load purlin_selftest_debug"
fi
rmmod purlin_selftest_debug
