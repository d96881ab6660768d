# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a test that fails must be reported FAIL with its exit
# status and the tail of its output (see tests/vm/harness-selftest).
# timeout: 30

echo "selftest-fail: the reason is in the log"
exit 3
