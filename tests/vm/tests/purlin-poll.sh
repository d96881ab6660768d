# SPDX-License-Identifier: GPL-2.0
# Polled I/O queues (param_cq_mode=poll): the stock host moves verified
# data through polling threads on a null_blk with poll queues (its bios
# polled: counted), brd and a file; alone on their CPU they wait for the
# next interrupt in place (poll_halt, counted) and spin without it; a
# pass's responses go out in one post (counted); sequential reads still
# merge at the device; the threads sleep when the port is idle; the
# attributes refuse bad values; coalescing (poll_coalesce_usecs) holds at
# queue depth 32 with data intact and stops at depth 1; a disconnect under
# I/O and the port's removal leave nothing behind.
# timeout: 600

NQN=nqn.2026-11.io.purlin.test:poll
P=$PURLIN_CFS/ports/1
nb=$(nullblk_create pollnb 64)
# two tags: polled bios run out of them and go to a worker
nb4=$(nullblk_create pollnb4 16 1 hw_queue_depth=2)
[ "$(cat /sys/block/pollnb/queue/io_poll)" = 1 ] ||
	fail "null_blk $nb has no poll queue"
brd_create 64
mkdir -p /mnt/polltmp
mount -t tmpfs -o size=80m tmpfs /mnt/polltmp
truncate -s 32M /mnt/polltmp/ns3.img

purlin_subsys $NQN
purlin_ns $NQN 1 "$nb"
purlin_ns $NQN 2 /dev/ram0
# tmpfs has no O_DIRECT on every kernel: buffered, as purlin-file serves it
mkdir $PURLIN_CFS/subsystems/$NQN/namespaces/3
echo /mnt/polltmp/ns3.img > $PURLIN_CFS/subsystems/$NQN/namespaces/3/device_path
echo 1 > $PURLIN_CFS/subsystems/$NQN/namespaces/3/buffered_io
echo 1 > $PURLIN_CFS/subsystems/$NQN/namespaces/3/enable
purlin_ns $NQN 4 "$nb4"
# the port's own defaults, whatever the lane (PURLIN_CQ_MODE)
mkdir $P
echo $TRADDR > $P/addr_traddr

log "attributes"
[ "$(cat $P/param_cq_mode)" = workqueue ] || fail "cq_mode default: $(cat $P/param_cq_mode)"
[ "$(cat $P/param_poll_usecs)" = 50 ] || fail "poll_usecs default: $(cat $P/param_poll_usecs)"
[ -z "$(cat $P/param_poll_cpus)" ] || fail "poll_cpus default: $(cat $P/param_poll_cpus)"
expect_err - "Invalid argument" sh -c "echo polling > $P/param_cq_mode"
expect_err - "Invalid argument" sh -c "echo 100001 > $P/param_poll_usecs"
expect_err - "out of range" sh -c "echo 0-99999 > $P/param_poll_cpus"
expect_err - "Invalid argument" sh -c "echo x > $P/param_poll_cpus"
[ "$(cat $P/param_cq_mode)" = workqueue ] || fail "a refused write changed cq_mode"
echo 0 > $P/param_poll_cpus
[ "$(cat $P/param_poll_cpus)" = 0 ] || fail "poll_cpus: $(cat $P/param_poll_cpus)"
echo "" > $P/param_poll_cpus
[ -z "$(cat $P/param_poll_cpus)" ] || fail "poll_cpus not cleared"
echo -1 > $P/param_poll_usecs
[ "$(cat $P/param_poll_usecs)" = 50 ] || fail "poll_usecs -1 is not the default"
purlin_params 1 cq_mode=poll,poll_usecs=200
purlin_link 1 $NQN
expect_err - "Permission denied" sh -c "echo workqueue > $P/param_cq_mode"
expect_err - "Permission denied" sh -c "echo 10 > $P/param_poll_usecs"
[ "$(cat $P/param_cq_mode)" = poll ] || fail "cq_mode: $(cat $P/param_cq_mode)"
base=$(purlin_live)

pollers() { cat /sys/module/purlin/parameters/pollers; }
halt=/sys/module/purlin/parameters/poll_halt
halt0=$(cat $halt)
# off unless the lane's kernel command line sets it (purlin.poll_halt=1)
grep -q 'purlin\.poll_halt=' /proc/cmdline || [ "$halt0" = N ] ||
	fail "poll_halt default: $halt0"
expect_err - "Invalid argument" sh -c "echo maybe > $halt"
[ "$(cat $halt)" = "$halt0" ] || fail "a refused write changed poll_halt"
echo 1 > $halt
# psum KEY: a counter summed over every polling thread
psum() { pollers | tr ' ' '\n' | sed -n "s/^$1=//p" | awk '{s += $1} END {print s + 0}'; }

log "connect"
dev1=$(nvme_connect $NQN)
ctrl=$(ctrl_of "$dev1")
wait_for "nvme_dev_for $NQN 4"
dev2=$(nvme_dev_for $NQN 2)
dev3=$(nvme_dev_for $NQN 3)
dev4=$(nvme_dev_for $NQN 4)
nioq=$(($(cat /sys/class/nvme/$(basename $ctrl)/queue_count) - 1))
pollers
[ "$(psum queues)" = "$nioq" ] ||
	fail "$nioq I/O queues, but the polling threads hold $(psum queues)"
[ "$(pollers | wc -l)" -ge 1 ] || fail "no polling thread"

for d in $dev1 $dev2 $dev3; do
	b0=$(psum bios)
	w0=$(psum wcs)
	log "fio verify on $d"
	fio_verify "$d" 4k 16 8M
	fio_verify "$d" 128k 4 8M
	bs=$(cat /sys/block/$(basename $d)/queue/logical_block_size)
	fio_verify "$d" $bs 1 1M
	pollers
	[ "$(psum wcs)" -gt "$w0" ] || fail "$d: no completion reaped by a polling thread"
	if [ "$d" = "$dev1" ]; then
		# 2 x 2048 + 2 x 64 + 2 x 2048 I/Os (512 B blocks), all to null_blk
		[ "$(psum bios)" -ge $((b0 + 8000)) ] ||
			fail "$d: $(($(psum bios) - b0)) polled bios finished, fewer than its I/Os"
	else
		[ "$(psum bios)" = "$b0" ] || fail "$d: a bio was polled on a device that cannot poll"
	fi
done
# two vCPUs: a thread is often alone on its CPU between completions
[ "$(psum halts)" -gt 0 ] || fail "no polling thread waited in place for an interrupt"

log "responses of a pass go out together: one send post per queue and pass"
s0=$(psum sends)
sp0=$(psum send_posts)
r0=$(psum bio_punts)
fio --name=batch --filename="$dev1" --ioengine=libaio --direct=1 --rw=randread \
	--bs=4k --iodepth=32 --size=8M > batch.out 2>&1 || { cat batch.out; fail "fio on $dev1"; }
pollers
ns=$(($(psum sends) - s0))
np=$(($(psum send_posts) - sp0))
log "$ns responses in $np send posts"
# (a read a worker finished, bio_punts, responds from there)
nw=$(($(psum bio_punts) - r0))
[ "$ns" -ge $((2048 - nw)) ] ||
	fail "$ns responses posted at the end of passes, fewer than fio's 2048 reads ($nw finished by a worker)"
[ "$ns" -gt "$np" ] || fail "$ns responses in $np send posts: none went out with another"

log "sequential 4 KiB reads still merge at the device"
# the host sends them as they are (no merging on its side, head and paths)
nmq="/sys/block/$(basename $dev1)/queue/nomerges $(ls /sys/block/nvme*c*n*/queue/nomerges 2>/dev/null)"
for q in $nmq; do echo 2 > $q; done
m0=$(awk '{ print $2 }' /sys/block/pollnb/stat)
fio --name=seq --filename="$dev1" --ioengine=libaio --direct=1 --rw=read \
	--bs=4k --iodepth=32 --size=8M > seq.out 2>&1 || { cat seq.out; fail "fio on $dev1"; }
m1=$(awk '{ print $2 }' /sys/block/pollnb/stat)
for q in $nmq; do echo 0 > $q; done
log "$((m1 - m0)) read merges at null_blk"
[ $((m1 - m0)) -gt 0 ] || fail "sequential reads through polled queues never merged at the device"

log "poll_coalesce_usecs: off by default, refused values change nothing"
co=/sys/module/purlin/parameters/poll_coalesce_usecs
grep -q 'purlin\.poll_coalesce_usecs=' /proc/cmdline || [ "$(cat $co)" = 0 ] ||
	fail "poll_coalesce_usecs default: $(cat $co)"
[ "$(psum holds)" = 0 ] || fail "$(psum holds) holds with coalescing off"
for v in 10001 -1 x 1.5; do
	expect_err - "Invalid argument" sh -c "echo $v > $co"
done
[ "$(cat $co)" = 0 ] || fail "a refused write changed poll_coalesce_usecs"
echo 2000 > $co
log "coalescing at qd 32: holds that gather commands, data intact"
h0=$(psum holds)
k0=$(psum hold_hits)
fio_verify "$dev2" 4k 32 8M
pollers
nh=$(($(psum holds) - h0))
nk=$(($(psum hold_hits) - k0))
log "$nh holds, $nk of them gathered two commands or more"
[ "$nh" -gt 0 ] || fail "no hold at queue depth 32 with poll_coalesce_usecs=2000"
# (Whether holds gather commands is for two machines, make bench's pair
# mode: in one guest fio shares the polling threads' CPUs, and while a
# thread waits in place the host's submissions on its CPU wait too.)
log "coalescing at qd 1: holds stop (a probe every 256 passes)"
h0=$(psum holds)
fio --name=qd1 --filename="$dev2" --ioengine=libaio --direct=1 --rw=randread \
	--bs=4k --iodepth=1 --size=4M > qd1.out 2>&1 || { cat qd1.out; fail "fio qd1 on $dev2"; }
nh=$(($(psum holds) - h0))
log "$nh holds over 1024 reads at queue depth 1"
# per thread the credit left from qd 32 (at most 8 holds) and a probe
# per 256 passes that took commands (at most 1024 / 256 + 1 in all)
nt=$(pollers | wc -l)
[ "$nh" -le $((8 * nt + 1024 / 256 + nt)) ] ||
	fail "$nh holds over 1024 reads at queue depth 1: coalescing did not stop"
echo 0 > $co

log "poll_halt=0: the threads spin instead"
echo 0 > $halt
h0=$(psum halts)
e0=$(psum empty_wakes)
fio_verify "$dev2" 4k 16 8M
pollers
[ "$(psum halts)" = "$h0" ] || fail "$(($(psum halts) - h0)) waits in place with poll_halt=0"
[ "$(psum empty_wakes)" = "$e0" ] || fail "$(($(psum empty_wakes) - e0)) empty wakes with poll_halt=0"
# back to what the boot set, for the tests after this one
if [ "$halt0" = Y ]; then echo 1 > $halt; fi

log "polled bios short of tags: $dev4, 2 tags, 2 x 32 in flight"
r0=$(psum bio_punts)
fio --name=tags --filename="$dev4" --ioengine=libaio --direct=1 --rw=randwrite \
	--bs=4k --iodepth=32 --numjobs=2 --size=4M --offset_increment=4M \
	--verify=crc32c --do_verify=1 --verify_fatal=1 --group_reporting \
	> tags.out 2>&1 || { cat tags.out; fail "fio on $dev4"; }
pollers
[ "$(psum bio_punts)" -gt "$r0" ] || fail "no polled bio was handed to a worker on $dev4"

log "idle: the threads sleep"
sleep 2
p0=$(psum passes)
# ticks: user + system time of every polling thread
ticks() {
	local c s=0 n=0
	for c in /proc/[0-9]*/comm; do
		case "$(cat "$c" 2>/dev/null)" in purlin_poll/*) ;; *) continue ;; esac
		s=$((s + $(awk '{print $14 + $15}' "${c%comm}stat")))
		n=$((n + 1))
	done
	[ $n -ge 1 ] || fail "no purlin_poll thread found"
	echo $s
}
t0=$(ticks)
sleep 5
t1=$(ticks)
p1=$(psum passes)
log "idle 5 s: $((p1 - p0)) passes, $((t1 - t0)) ticks of CPU"
# 2 % of one CPU over 5 s: 10 ticks (/proc/PID/stat counts USER_HZ, 100)
[ $((t1 - t0)) -le 10 ] ||
	fail "idle polling threads used $((t1 - t0)) ticks in 5 s"
[ $((p1 - p0)) -lt 100 ] || fail "idle polling threads made $((p1 - p0)) passes in 5 s"

log "disconnect under I/O"
bgv_start "$dev1" 0 16M
bgv_busy "$(live reqs)"
sleep 2
nvme_disconnect $NQN
bgv_abandon
purlin_assert_idle "$base" "after a disconnect under polled I/O"
[ "$(psum queues)" = 0 ] || fail "polling threads still hold $(psum queues) queues"

log "reconnect, I/O, then the port goes under I/O"
dev1=$(nvme_connect $NQN)
fio_verify "$dev1" 4k 32 4M
bgv_start "$dev1" 0 16M
bgv_busy "$(live reqs)"
rm $P/subsystems/$NQN
await "[ \$(live queues) = 0 ]" 300 "queues left after the port stopped exporting"
# the host retries until told to stop; its fio fails then
nvme disconnect -n $NQN > /dev/null
wait_for "nvme_ns_gone $NQN"
bgv_abandon
[ "$(psum queues)" = 0 ] || fail "polling threads still hold $(psum queues) queues"
purlin_clear
umount /mnt/polltmp
nullblk_destroy pollnb
nullblk_destroy pollnb4
