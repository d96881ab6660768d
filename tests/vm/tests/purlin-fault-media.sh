# SPDX-License-Identifier: GPL-2.0
# Fault injection under load (issue #9): a namespace on a failing device.
# A memory-backed null_blk gets bad blocks at run time (its configfs
# `badblocks`; Debian's 6.1 has no CONFIG_FAULT_INJECTION, and bad blocks
# need none): the block layer fails I/O touching them with BLK_STS_IOERR.
# The host must see Unrecovered Read Error (0x281) for reads and Write
# Fault (0x280) for writes of the bad range (passthrough, no retry), the
# block layer's error after its retries (ENODATA: the host maps both to
# BLK_STS_MEDIUM), the target's error log and counters must record them,
# while crc32c-verified fio on the good ranges keeps running without an
# error, the controller is never reset and the target drains.  Clearing the
# bad blocks makes the range usable again.
# timeout: 240

timed_log

NQN=nqn.2026-11.io.purlin.test:fault-media
NB=/sys/kernel/config/nullb/fmedia
S=$PURLIN_CFS/subsystems/$NQN
# patterns on 0..16 and 32..48 MiB, verified load on 48..64 MiB, bad
# range: 64 KiB at 24 MiB (512-byte sectors = LBAs)
BAD0=$((24 * MB / 512))
BAD1=$((BAD0 + 127))

errors() { tr ' ' '\n' < $S/namespaces/1/stats | sed -n 's/^errors=//p'; }
# region NAME OFFSET_MB SIZE_MB [fio options]: region_fio (lib.sh) in
# 64 KiB writes.
region() {
	local name=$1 off=$2 size=$3
	shift 3
	region_fio "$name" "$off" "$size" --bs=64k "$@"
}

MARK="purlin-fault-media: start $$"
echo "$MARK" > /dev/kmsg
nb=$(nullblk_create fmedia 64)
purlin_export $NQN $nb 1
base=$(cat $LIVE)
dev=$(nvme_connect $NQN 4420)
ctrl=$(ctrl_of $dev)
cname=$(basename $ctrl)
[ "$(cat /sys/block/$(basename $dev)/queue/logical_block_size)" = 512 ] ||
	fail "expected 512-byte LBAs"

log "patterns on the good ranges (0..16 and 32..48 MiB), then bad blocks $BAD0-$BAD1"
region low 0 16
region high 32 16
echo "+$BAD0-$BAD1" > $NB/badblocks
grep -q "^$BAD0 128$" $NB/badblocks || { cat $NB/badblocks; fail "badblocks not set"; }
e0=$(errors)

log "passthrough read of the bad range: Unrecovered Read Error"
rc=0
nvme read $dev --start-block=$((BAD0 + 8)) --block-count=7 --data-size=4096 \
	--data=r.bin > r.txt 2>&1 || rc=$?
cat r.txt
[ $rc != 0 ] || fail "read of a bad block succeeded"
grep -q "0x281\|Unrecovered Read Error" r.txt || fail "read status is not 0x281"
nvme error-log $ctrl --log-entries=1 > el.txt
cat el.txt
grep -q "status_field[[:space:]]*:[[:space:]]*0x281\|status_field[[:space:]]*:[[:space:]]*0x502" el.txt ||
	fail "error log: status is not Unrecovered Read Error"
grep -q "^lba[[:space:]]*:[[:space:]]*0*$((BAD0 + 8))\$\|^lba[[:space:]]*:[[:space:]]*0x$(printf %x $((BAD0 + 8)))\$" el.txt ||
	fail "error log: LBA is not $((BAD0 + 8))"
grep -q "^nsid[[:space:]]*:[[:space:]]*0*1\$\|^nsid[[:space:]]*:[[:space:]]*0x1\$" el.txt ||
	fail "error log: nsid"
cnt1=$(sed -n 's/^error_count[[:space:]]*:[[:space:]]*//p' el.txt | head -n1)

log "passthrough write of the bad range: Write Fault"
dd if=/dev/zero of=w.bin bs=4096 count=1 2>/dev/null
rc=0
nvme write $dev --start-block=$BAD0 --block-count=7 --data-size=4096 \
	--data=w.bin > w.txt 2>&1 || rc=$?
cat w.txt
[ $rc != 0 ] || fail "write of a bad block succeeded"
grep -q "0x280\|Write Fault" w.txt || fail "write status is not 0x280"
nvme error-log $ctrl --log-entries=1 > el.txt
grep -q "status_field[[:space:]]*:[[:space:]]*0x280\|status_field[[:space:]]*:[[:space:]]*0x500" el.txt ||
	{ cat el.txt; fail "error log: status is not Write Fault"; }
cnt2=$(sed -n 's/^error_count[[:space:]]*:[[:space:]]*//p' el.txt | head -n1)
[ $((cnt2)) -eq $((cnt1 + 1)) ] || fail "error count $cnt1 -> $cnt2, want +1"

log "block reads of the bad range fail (ENODATA after the host's retries) under verified load"
fio --name=good --filename="$dev" --ioengine=libaio --direct=1 \
	--rw=randwrite --bs=4k --iodepth=16 --offset=$((48 * MB)) \
	--size=$((8 * MB)) --verify=crc32c --verify_fatal=1 --do_verify=1 \
	--verify_backlog=64 --loops=2 > good.out 2>&1 &
good=$!
for i in 1 2 3; do
	rc=0
	dd if=$dev of=/dev/null bs=4096 count=1 skip=$((BAD0 / 8 + i)) \
		iflag=direct > dd.txt 2>&1 || rc=$?
	cat dd.txt
	[ $rc != 0 ] || fail "block read of a bad block succeeded"
	grep -q "No data available" dd.txt || fail "block read error is not ENODATA"
done
# a reader over the whole bad area: every block in it fails, the others read
fio --name=bad --filename="$dev" --ioengine=libaio --direct=1 --rw=read \
	--bs=4k --iodepth=8 --offset=$((BAD0 * 512 - 64 * 1024)) --size=$((192 * 1024)) \
	--continue_on_error=read > bad.out 2>&1 || true
cat bad.out | grep -i "err\|error" | head -n 5
grep -q "err=61\|No data available" bad.out || { cat bad.out; fail "fio over the bad range saw no ENODATA"; }
wait $good || { cat good.out; fail "verified fio on a good range failed"; }
grep -q "err= 0" good.out || { cat good.out; fail "good range: errors"; }

[ "$(cat /sys/class/nvme/$cname/state)" = live ] || fail "host controller not live"
# (only this test's part of the kernel log: earlier tests had an nvme0 too)
! dmesg | sed -n "/$MARK\$/,\$p" | grep -q "$cname: resetting\|$cname: starting error recovery" ||
	fail "the host reset the controller over media errors"
[ $(($(errors) - e0)) -ge 20 ] || fail "namespace errors counter $e0 -> $(errors)"
nvme smart-log $ctrl > smart.txt
n=$(sed -n 's/^num_err_log_entries[[:space:]]*:[[:space:]]*//p' smart.txt | tr -d ',')
[ "${n:-0}" -ge 20 ] || { cat smart.txt; fail "SMART num_err_log_entries: $n"; }
await "[ \$(live reqs) -le 1 ]" 300 "target did not drain"

log "the good ranges still verify"
region low 0 16 --verify_only
region high 32 16 --verify_only

log "bad blocks cleared: the range works again"
echo "-$BAD0-$BAD1" > $NB/badblocks
nvme write $dev --start-block=$BAD0 --block-count=7 --data-size=4096 --data=w.bin > /dev/null
nvme read $dev --start-block=$BAD0 --block-count=7 --data-size=4096 --data=r.bin > /dev/null
cmp w.bin r.bin || fail "data read back differs"
region mid 16 16

nvme_disconnect $NQN
await "[ \"\$(cat $LIVE)\" = \"$base\" ]" 300 "live objects not back to baseline ($base)"
purlin_clear
nullblk_destroy fmedia
