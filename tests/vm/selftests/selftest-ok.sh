# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a test that does nothing wrong passes, even when it
# runs right after one that warned.
# timeout: 30

[ -d /sys/kernel/config ] || fail "configfs not mounted"
