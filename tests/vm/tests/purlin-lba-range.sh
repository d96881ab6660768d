# SPDX-License-Identifier: GPL-2.0
# I/O past the end of a namespace fails on the host with LBA Out of Range
# (status 0x4080: with DNR); the last block still works; the error log
# records the status and the LBA.
# timeout: 120

NQN=nqn.2026-11.io.purlin.test:range
brd_create 16
purlin_export $NQN /dev/ram0 1
dev=$(nvme_connect $NQN)
nlb=$(cat /sys/block/$(basename $dev)/size)	# 512-byte sectors

log "last block reads"
nvme read "$dev" --start-block=$((nlb - 1)) --block-count=0 \
	--data-size=512 --data=last.bin > out.txt 2>&1 || { cat out.txt; fail "last block"; }
# LBA Out of Range (0x80) with DNR, each time
log "one past the end fails"
expect_status 0x4080 nvme read "$dev" --start-block=$nlb --block-count=0 \
	--data-size=512 --data=past.bin
log "a read straddling the end fails"
expect_status 0x4080 nvme read "$dev" --start-block=$((nlb - 1)) --block-count=1 \
	--data-size=1024 --data=cross.bin
log "a write past the end fails"
expect_status 0x4080 nvme write "$dev" --start-block=$nlb --block-count=0 \
	--data-size=512 --data=last.bin
log "huge start LBA fails"
expect_status 0x4080 nvme read "$dev" --start-block=0xffffffffffffff00 \
	--block-count=0 --data-size=512 --data=huge.bin
log "the error log has the last one, with its LBA"
nvme error-log "$(ctrl_of $dev)" --log-entries=1 > err.txt
cat err.txt
grep -Eq "^status_field[[:space:]]*:[[:space:]]*0x(4080|8100)([^0-9a-f]|\$)" err.txt ||
	fail "error log status: $(grep status_field err.txt)"
lba=$(sed -n 's/^lba[[:space:]]*:[[:space:]]*//p' err.txt)
[ "$((lba))" = "$((0xffffffffffffff00))" ] || [ "$lba" = 0xffffffffffffff00 ] ||
	fail "error log lba $lba, want 0xffffffffffffff00"
nvme_disconnect $NQN
purlin_clear
