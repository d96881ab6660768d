# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a skip is reported SKIP with its reason, never PASS.
# timeout: 30

skip "selftest-skip: nothing to do here"
