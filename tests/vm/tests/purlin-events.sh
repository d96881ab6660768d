# SPDX-License-Identifier: GPL-2.0
# Namespaces come and go under a connected host without a reconnect
# (Namespace Attribute Changed events and the Changed Namespace List), I/O
# on the other namespace continues meanwhile; Write Zeroes and Dataset
# Management (deallocate) work.
# timeout: 240

NQN=nqn.2026-11.io.purlin.test:events
N2=$PURLIN_CFS/subsystems/$NQN/namespaces/2
brd_create 16 2
purlin_export $NQN /dev/ram0 1
dev=$(nvme_connect $NQN)

log "namespace 2 appears on the connected host"
fio_verify "$dev" 4k 8 4M &
fiopid=$!
purlin_ns $NQN 2 /dev/ram1
wait_for "nvme_dev_for $NQN 2" 150
dev2=$(nvme_dev_for $NQN 2)
log "host sees $dev2"
fio_verify "$dev2" 4k 8 2M

log "namespace 2 disabled: it goes, namespace 1 keeps working"
echo 0 > $N2/enable
wait_for "! nvme_dev_for $NQN 2" 150
wait $fiopid || fail "I/O on namespace 1 failed while namespace 2 changed"
fio_verify "$dev" 4k 8 2M

log "and comes back"
echo 1 > $N2/enable
wait_for "nvme_dev_for $NQN 2" 150
log "removing the enabled namespace (rmdir) under I/O takes it from the host"
dev2=$(nvme_dev_for $NQN 2)
fio --name=gone --filename="$dev2" --ioengine=libaio --direct=1 --rw=randrw \
	--bs=4k --iodepth=16 --time_based --runtime=30 > /dev/null 2>&1 &
fio2=$!
sleep 2
rmdir $N2
wait_for "! nvme_dev_for $NQN 2" 150
wait $fio2 && fail "fio on the removed namespace did not notice" || true
fio_verify "$dev" 4k 8 2M

log "write zeroes"
dd if=/dev/urandom of=pat bs=4k count=4 2>/dev/null
dd if=pat of="$dev" bs=4k count=4 oflag=direct 2>/dev/null
nvme write-zeroes "$dev" --start-block=8 --block-count=7
dd if="$dev" of=back bs=4k count=4 iflag=direct 2>/dev/null
dd if=/dev/zero of=zero bs=4k count=1 2>/dev/null
dd if=back of=blk1 bs=4k skip=1 count=1 2>/dev/null
cmp blk1 zero || fail "write-zeroes did not zero blocks 8..15"
dd if=back of=blk0 bs=4k count=1 2>/dev/null
dd if=pat of=pat0 bs=4k count=1 2>/dev/null
cmp blk0 pat0 || fail "write-zeroes touched blocks outside its range"
expect_fail nvme write-zeroes "$dev" --start-block=$(cat /sys/block/$(basename $dev)/size) --block-count=0

log "dataset management: deallocate"
nvme dsm "$dev" --ad --slbs=0 --blocks=8
blkdiscard -o 0 -l 65536 "$dev"
expect_fail nvme dsm "$dev" --ad --slbs=$(cat /sys/block/$(basename $dev)/size) --blocks=8

nvme_disconnect $NQN
purlin_clear
