# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a test that passes but leaves Purlin loaded fails
# (every test cleans up after itself); the harness unloads it.
# timeout: 60

modprobe purlin
