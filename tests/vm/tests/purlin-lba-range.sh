# SPDX-License-Identifier: GPL-2.0
# I/O past the end of a namespace fails on the host with LBA Out of Range;
# the last block still works.
# timeout: 120

NQN=nqn.2026-11.io.purlin.test:range
brd_create 16
purlin_export $NQN /dev/ram0 1
dev=$(nvme_connect $NQN)
nlb=$(cat /sys/block/$(basename $dev)/size)	# 512-byte sectors

log "last block reads"
nvme read "$dev" --start-block=$((nlb - 1)) --block-count=0 \
	--data-size=512 --data=last.bin > out.txt 2>&1 || { cat out.txt; fail "last block"; }
log "one past the end fails"
if nvme read "$dev" --start-block=$nlb --block-count=0 --data-size=512 \
	--data=past.bin > out.txt 2>&1; then
	cat out.txt
	fail "read past the end succeeded"
fi
cat out.txt
grep -qi "LBA_RANGE\|out of range\|0x80" out.txt || fail "not an LBA range error"
log "a read straddling the end fails"
expect_fail nvme read "$dev" --start-block=$((nlb - 1)) --block-count=1 \
	--data-size=1024 --data=cross.bin
log "huge start LBA fails"
expect_fail nvme read "$dev" --start-block=0xffffffffffffff00 \
	--block-count=0 --data-size=512 --data=huge.bin
nvme_disconnect $NQN
purlin_clear
