# SPDX-License-Identifier: GPL-2.0
# Harness self-test: the guest stops in the middle of this test (as on a
# crash): this test and the ones after it must be reported as failed, not
# lost, and the run must fail.
# timeout: 30

sync
poweroff -f
sleep 30
