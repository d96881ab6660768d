# SPDX-License-Identifier: GPL-2.0
# File-backed namespaces: a file on ext2 served with direct I/O, a file on
# tmpfs served through the page cache (buffered_io); fio verify, flush,
# write zeroes and deallocate (hole punching) on both; data lands in the
# file.
# timeout: 300

NQN=nqn.2026-11.io.purlin.test:file
S=$PURLIN_CFS/subsystems/$NQN
brd_create 96
mke2fs -q /dev/ram0 > /dev/null
mkdir -p /mnt/ext2 /mnt/tmp
mount -t ext2 /dev/ram0 /mnt/ext2
mount -t tmpfs -o size=64m tmpfs /mnt/tmp
dd if=/dev/zero of=/mnt/ext2/ns1.img bs=1M count=32 2>/dev/null
truncate -s 32M /mnt/tmp/ns2.img

purlin_subsys $NQN
purlin_ns $NQN 1 /mnt/ext2/ns1.img
mkdir $S/namespaces/2
echo /mnt/tmp/ns2.img > $S/namespaces/2/device_path
if ! grep -q tmpfs /proc/filesystems || ! echo 1 > $S/namespaces/2/enable 2>/dev/null; then
	log "tmpfs refused direct I/O here: buffered_io is needed"
	echo 1 > $S/namespaces/2/buffered_io
	echo 1 > $S/namespaces/2/enable
else
	log "tmpfs takes direct I/O on this kernel; use buffered_io anyway"
	echo 0 > $S/namespaces/2/enable
	echo 1 > $S/namespaces/2/buffered_io
	echo 1 > $S/namespaces/2/enable
fi
[ "$(cat $S/namespaces/2/buffered_io)" = 1 ] || fail "buffered_io readback"
expect_fail sh -c "echo 0 > $S/namespaces/2/buffered_io"	# busy while enabled
purlin_port 1
purlin_link 1 $NQN

nvme_connect $NQN > /dev/null
wait_for "nvme_dev_for $NQN 2"
d1=$(nvme_dev_for $NQN 1)
d2=$(nvme_dev_for $NQN 2)
for d in $d1 $d2; do
	log "$d: fio verify 4k and 128k, flush"
	fio_verify "$d" 4k 16 8M
	fio_verify "$d" 128k 4 8M
	nvme flush "$d"
done

log "data written through the namespace is in the file"
dd if=/dev/urandom of=pat bs=64k count=16 2>/dev/null
dd if=pat of="$d1" bs=64k oflag=direct 2>/dev/null
dd if=pat of="$d2" bs=64k oflag=direct 2>/dev/null
nvme flush "$d1"
nvme flush "$d2"
dd if=/mnt/ext2/ns1.img of=f1 bs=64k count=16 2>/dev/null
cmp pat f1 || fail "ext2 file content differs"
dd if=/mnt/tmp/ns2.img of=f2 bs=64k count=16 2>/dev/null
cmp pat f2 || fail "tmpfs file content differs"

log "write zeroes and deallocate become fallocate"
lbs=$(cat /sys/block/$(basename $d2)/queue/logical_block_size)
nvme write-zeroes "$d2" --start-block=0 --block-count=$((4096 / lbs - 1))
dd if=/mnt/tmp/ns2.img of=z bs=4k count=1 2>/dev/null
dd if=/dev/zero of=zero bs=4k count=1 2>/dev/null
cmp z zero || fail "write-zeroes did not zero the file"
blkdiscard -o 65536 -l 65536 "$d2"
dd if=/mnt/tmp/ns2.img of=h bs=64k skip=1 count=1 2>/dev/null
dd if=/dev/zero of=zero64 bs=64k count=1 2>/dev/null
cmp h zero64 || fail "deallocate did not punch a hole"

nvme_disconnect $NQN
purlin_clear
umount /mnt/ext2 /mnt/tmp
