# SPDX-License-Identifier: GPL-2.0
# Data written through Purlin is on the device: write a pattern on brd,
# disconnect, reconnect, read it back identical; and the brd device itself
# holds the same bytes.
# timeout: 180

NQN=nqn.2026-11.io.purlin.test:persist
brd_create 16
purlin_export $NQN /dev/ram0 1

dev=$(nvme_connect $NQN)
# 4 MiB of non-trivial data (not zeros), in 64 KiB direct writes
dd if=/dev/urandom of=pattern bs=64k count=64 2>/dev/null
dd if=pattern of="$dev" bs=64k oflag=direct 2>/dev/null
nvme_disconnect $NQN

dev=$(nvme_connect $NQN)
dd if="$dev" of=readback bs=64k count=64 iflag=direct 2>/dev/null
cmp pattern readback || fail "data read back after reconnect differs"
nvme_disconnect $NQN

dd if=/dev/ram0 of=onbrd bs=64k count=64 2>/dev/null
cmp pattern onbrd || fail "data on the brd device differs"
purlin_clear
