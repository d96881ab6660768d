# SPDX-License-Identifier: GPL-2.0
# Harness self-test, a pair: the target guest falls silent (its one CPU
# spins with interrupts off), the host guest ends normally.  The harness
# must report the target's test as silent, send it an NMI, and its
# console must end with the stack the CPU was on (tests/vm/harness-selftest
# runs this with a short SILENT_LIMIT; the test's own limit comes later).
# timeout: 300

if [ "$ROLE" = target ]; then
	insmod /lib/modules/$(uname -r)/extra/purlin_selftest_warn.ko stall=1
fi
