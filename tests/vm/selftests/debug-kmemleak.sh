# SPDX-License-Identifier: GPL-2.0
# Debug-kernel lane self-test: a kmalloc'ed object whose only pointer is
# dropped; a kmemleak scan must report it ("kmemleak: N new suspected").
# The harness must FAIL this test (scripts/check-debug.sh checks it does);
# it is skipped unless the kernel runs kmemleak (kmemleak=on).
# timeout: 180

KL=/sys/kernel/debug/kmemleak
[ -e $KL ] && echo scan 2> /dev/null > $KL || skip "kmemleak is not running (CONFIG_DEBUG_KMEMLEAK, kmemleak=on)"
ko=/lib/modules/$(uname -r)/extra/purlin_selftest_debug.ko
if ! insmod $ko bug=kmemleak 2> /tmp/t/insmod.err; then
	cat /tmp/t/insmod.err
	fail "cannot load purlin_selftest_debug"
fi
# kmemleak leaves objects younger than 5 s alone; a second scan settles
# pointers still seen in stale stack slots during the first.
sleep 6
echo scan > $KL
echo scan > $KL
cat $KL
rmmod purlin_selftest_debug
