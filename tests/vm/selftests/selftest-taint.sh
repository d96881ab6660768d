# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a test during which the kernel got a bad taint bit
# fails even without a message in the console (here L, soft lockup, set
# by hand: W is set already by selftest-warn, and only new bits count).
# timeout: 30

echo 16384 > /proc/sys/kernel/tainted
