# SPDX-License-Identifier: GPL-2.0
# File-backed namespaces: files on ext2 and vfat served with direct I/O,
# files on tmpfs and ramfs served through the page cache (buffered_io); fio
# verify, flush, write zeroes and deallocate on all four; data lands in the
# file; zeroes are exactly where Write Zeroes put them (by hole punching on
# tmpfs and on ext2 when the ext4 driver serves it, by writing them on vfat
# with direct I/O and on ramfs through the page cache: neither can zero a
# range or punch a hole); deallocate frees the file's blocks where the file
# system can punch holes (its allocated size shrinks) and changes nothing
# elsewhere.
# timeout: 300

NQN=nqn.2026-11.io.purlin.test:file
S=$PURLIN_CFS/subsystems/$NQN
brd_create 96 2
mke2fs -q /dev/ram0 > /dev/null
mkdosfs /dev/ram1 > /dev/null
mkdir -p /mnt/ext2 /mnt/tmp /mnt/ram /mnt/vfat
mount -t ext2 /dev/ram0 /mnt/ext2
mount -t vfat /dev/ram1 /mnt/vfat
mount -t tmpfs -o size=64m tmpfs /mnt/tmp
mount -t ramfs ramfs /mnt/ram
dd if=/dev/zero of=/mnt/ext2/ns1.img bs=1M count=32 2>/dev/null
truncate -s 32M /mnt/tmp/ns2.img
truncate -s 8M /mnt/ram/ns3.img
dd if=/dev/zero of=/mnt/vfat/ns4.img bs=1M count=8 2>/dev/null
# Debian's kernels serve ext2 with the ext4 driver, which punches holes in
# files without extents (but has no ZERO_RANGE for them); the ext2 driver
# itself has no fallocate at all.
ext2_punches=0
[ -d /sys/fs/ext4/ram0 ] && ext2_punches=1

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
# ramfs has no direct I/O
mkdir $S/namespaces/3
echo /mnt/ram/ns3.img > $S/namespaces/3/device_path
echo 1 > $S/namespaces/3/buffered_io
echo 1 > $S/namespaces/3/enable
# vfat: direct I/O, Write Zeroes written from the zero page
purlin_ns $NQN 4 /mnt/vfat/ns4.img
purlin_port 1
purlin_link 1 $NQN

nvme_connect $NQN > /dev/null
wait_for "nvme_dev_for $NQN 2"
wait_for "nvme_dev_for $NQN 3"
wait_for "nvme_dev_for $NQN 4"
d1=$(nvme_dev_for $NQN 1)
d2=$(nvme_dev_for $NQN 2)
d3=$(nvme_dev_for $NQN 3)
d4=$(nvme_dev_for $NQN 4)
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

# file_of DEV: the file behind the namespace device.
file_of() {
	case "$1" in
	"$d1") echo /mnt/ext2/ns1.img ;;
	"$d2") echo /mnt/tmp/ns2.img ;;
	"$d3") echo /mnt/ram/ns3.img ;;
	*) echo /mnt/vfat/ns4.img ;;
	esac
}
# punches DEV: 1 if the file system under DEV's file can punch holes.
punches() {
	case "$1" in
	"$d1") echo $ext2_punches ;;
	"$d2") echo 1 ;;
	*) echo 0 ;;
	esac
}

log "write zeroes: zeroes land in the file on all four file systems"
# ramfs and vfat can neither zero a range nor punch a hole: Purlin writes
# the zeroes there (512 KiB is more than one batch of its zero pages; on
# vfat with direct I/O); the others punch a hole.
for d in $d1 $d2 $d3 $d4; do
	f=$(file_of $d)
	lbs=$(cat /sys/block/$(basename $d)/queue/logical_block_size)
	dd if=pat of="$d" bs=64k oflag=direct 2>/dev/null
	nvme write-zeroes "$d" --start-block=0 --block-count=$((4096 / lbs - 1))
	nvme write-zeroes "$d" --start-block=$((262144 / lbs)) \
		--block-count=$((524288 / lbs - 1))
	nvme flush "$d"
	cp pat want
	dd if=/dev/zero of=want bs=4k count=1 conv=notrunc 2>/dev/null
	dd if=/dev/zero of=want bs=256k seek=1 count=2 conv=notrunc 2>/dev/null
	dd if="$f" of=got bs=64k count=16 2>/dev/null
	cmp got want || fail "$f: write zeroes did not give zeroes exactly in 0..4K and 256K..768K"
done

log "deallocate: blocks given back where the file system punches holes"
for d in $d1 $d2 $d3 $d4; do
	f=$(file_of $d)
	lbs=$(cat /sys/block/$(basename $d)/queue/logical_block_size)
	dd if=pat of="$d" bs=64k oflag=direct 2>/dev/null
	nvme flush "$d"
	b0=$(stat -c %b "$f")
	blkdiscard -o 65536 -l 262144 "$d"
	nvme dsm "$d" --ad --slbs=$((786432 / lbs)) --blocks=$((65536 / lbs))
	nvme flush "$d"
	b1=$(stat -c %b "$f")
	dd if="$f" of=got bs=64k count=16 2>/dev/null
	if [ "$(punches $d)" = 1 ]; then
		# 256 KiB + 64 KiB deallocated = 640 blocks of 512 bytes
		[ $((b0 - b1)) -ge 640 ] ||
			fail "$f: deallocate released $((b0 - b1)) blocks of 512 bytes, want 640"
		cp pat want
		dd if=/dev/zero of=want bs=64k seek=1 count=4 conv=notrunc 2>/dev/null
		dd if=/dev/zero of=want bs=64k seek=12 count=1 conv=notrunc 2>/dev/null
		cmp got want || fail "$f: the holes are not where deallocate was asked"
	else
		[ "$b1" = "$b0" ] || fail "$f: allocation changed ($b0 -> $b1) without fallocate"
		cmp got pat || fail "$f: deallocate without fallocate changed data"
	fi
	log "$f: allocated 512-byte blocks $b0 -> $b1"
done

nvme_disconnect $NQN
purlin_clear
umount /mnt/ext2 /mnt/tmp /mnt/ram /mnt/vfat
