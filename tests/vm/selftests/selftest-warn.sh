# SPDX-License-Identifier: GPL-2.0
# Harness self-test: loads a module whose init WARNs.  The harness must
# fail this test (see tests/vm/harness-selftest).
# timeout: 60

insmod /lib/modules/$(uname -r)/extra/purlin_selftest_warn.ko
rmmod purlin_selftest_warn
