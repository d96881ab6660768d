# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a test that outlives its own limit is killed and
# reported as timed out; the next test still runs.
# timeout: 5

sleep 120
