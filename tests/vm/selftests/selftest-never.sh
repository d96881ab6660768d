# SPDX-License-Identifier: GPL-2.0
# Harness self-test: runs after selftest-poweroff, so it never runs; the
# harness must report it as failed ("guest stopped before running it").
# timeout: 30

fail "selftest-never ran: selftest-poweroff did not stop the guest"
