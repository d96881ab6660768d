# SPDX-License-Identifier: GPL-2.0
# Namespaces come and go under a connected host without a reconnect
# (Namespace Attribute Changed events and the Changed Namespace List), I/O
# on the other namespace continues meanwhile; Write Zeroes and Dataset
# Management deallocate work: discards reach a device that can take them
# (its statistics count the sectors) and those blocks then read as zeroes.
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
wait_for "nvme_ns_gone $NQN 2" 150
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
# fio's commands are on the target (its stats move), not a sleep
ns2_cmds() {
	tr ' ' '\n' < $N2/stats | awk -F= '/^(read|write)_cmds=/ { n += $2 } END { print n + 0 }'
}
c0=$(ns2_cmds)
await "[ \$(ns2_cmds) -gt $((c0 + 50)) ]" 300 "no fio I/O on namespace 2"
rmdir $N2
wait_for "nvme_ns_gone $NQN 2" 150
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

log "dataset management: deallocate reaches a device that discards"
# A memory-backed null_blk with discard: a discard frees its memory (reads
# give zeroes) and counts in the device's discard statistics (fields 12
# and 14 of /sys/block/X/stat: discard I/Os, sectors).
nullblk_create evdsm2 16 1 discard=1 > /dev/null
purlin_ns $NQN 3 /dev/evdsm2
wait_for "nvme_dev_for $NQN 3" 150
dev3=$(nvme_dev_for $NQN 3)
dstat() { awk '{ print $12, $14 }' /sys/block/evdsm2/stat; }
dd if=/dev/urandom of=pat3 bs=64k count=4 2>/dev/null
dd if=pat3 of="$dev3" bs=64k oflag=direct 2>/dev/null
set -- $(dstat); ios0=$1 sec0=$2
nvme dsm "$dev3" --ad --slbs=0 --blocks=64		# 32 KiB at 0
blkdiscard -o 131072 -l 65536 "$dev3"			# 64 KiB at 128 KiB
set -- $(dstat); ios1=$1 sec1=$2
[ $((sec1 - sec0)) = 192 ] ||
	fail "discarded sectors on the device: $((sec1 - sec0)), want 192 (ios $ios0 -> $ios1)"
dd if="$dev3" of=back3 bs=64k count=4 iflag=direct 2>/dev/null
cp pat3 want3
dd if=/dev/zero of=want3 bs=32k count=1 conv=notrunc 2>/dev/null
dd if=/dev/zero of=want3 bs=64k seek=2 count=1 conv=notrunc 2>/dev/null
cmp back3 want3 || fail "deallocated blocks do not read as zeroes, or others changed"
expect_fail nvme dsm "$dev" --ad --slbs=$(cat /sys/block/$(basename $dev)/size) --blocks=8

nvme_disconnect $NQN
purlin_clear
nullblk_destroy evdsm2
