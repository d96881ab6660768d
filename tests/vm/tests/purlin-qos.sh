# SPDX-License-Identifier: GPL-2.0
# Limits per tenant: two host NQNs on the stock host, each on its own
# subsystems.  Host A's entry (hosts/A/qos_iops) limits every queue of both
# its controllers together to N IOPS, within 5 %, while host B runs far
# faster; a limit changed under load holds within a second; removing it
# restores full speed; a namespace's own limits (IOPS, bytes/s of writes)
# hold too.  Rates are the target's completed reads or written bytes
# (namespace stats) over measured windows.  The limits are 300 IOPS for
# host A and fractions of it; on a kernel too slow to tell 300 IOPS from
# full speed (a debug kernel: host B alone under 1200 IOPS) they are a
# fifth of host B's measured rate (at least 6), and the windows are longer by the
# harness's time scale.
# Teardown while commands wait: namespace disable (commands in its own
# bucket or in the host's, writes behind buffers), host entry removal and
# the subsystem leaving the port release or abort every waiter at once (a
# drain at the limit would take far longer), and nothing is left.
# timeout: 240

A=nqn.2014-08.org.nvmexpress:uuid:0000000a-1111-2222-3333-444444444444
AID=0000000a-1111-2222-3333-444444444444
B=nqn.2014-08.org.nvmexpress:uuid:0000000b-1111-2222-3333-444444444444
BID=0000000b-1111-2222-3333-444444444444
S1=nqn.2026-11.io.purlin.test:qos1	# host A
S2=nqn.2026-11.io.purlin.test:qos2	# host B
S3=nqn.2026-11.io.purlin.test:qos3	# host A
N=300	# until host B's free rate is known
HA=$PURLIN_CFS/hosts/$A

brd_create 16 3
modprobe purlin
purlin_port 1
i=0
for s in $S1 $S2 $S3; do
	purlin_subsys $s
	purlin_ns $s 1 /dev/ram$i
	purlin_link 1 $s
	i=$((i + 1))
done
ns() { echo $PURLIN_CFS/subsystems/$1/namespaces/1; }
stat_of() { tr ' ' '\n' < "$(ns $1)/stats" | sed -n "s/^$2=//p"; }

log "configfs: limits default to 0, bad values are refused and change nothing"
mkdir $HA
for a in qos_iops qos_bps qos_burst_ms; do
	for o in $HA "$(ns $S1)"; do
		[ "$(cat $o/$a)" = 0 ] || fail "$o/$a is $(cat $o/$a), not 0"
	done
done
for v in -1 abc 1.5 "" 100000001 0x10; do
	expect_fail sh -c "echo '$v' > $HA/qos_iops" 2> /dev/null
done
expect_fail sh -c "echo 10001 > $HA/qos_burst_ms"
expect_fail sh -c "echo 17592186044417 > $(ns $S1)/qos_bps"
for a in qos_iops qos_bps qos_burst_ms; do
	[ "$(cat $HA/$a)" = 0 ] || fail "a refused write changed $a"
done
echo 50 > $HA/qos_burst_ms
[ "$(cat $HA/qos_burst_ms)" = 50 ] || fail "qos_burst_ms not kept"
echo 0 > $HA/qos_burst_ms
echo $N > $HA/qos_iops
[ "$(cat $HA/qos_iops)" = $N ] || fail "qos_iops not kept"

conn() {	# conn NQN HOSTNQN HOSTID: connect, print the device
	nvme connect -t rdma -a $TRADDR -s 4420 -n $1 --hostnqn=$2 \
		--hostid=$3 > /dev/null
	wait_for "nvme_dev_for $1"
	nvme_dev_for $1
}
da1=$(conn $S1 $A $AID)
da3=$(conn $S3 $A $AID)
db=$(conn $S2 $B $BID)

# load DEV... : random 4k reads (or $RW), queue depth 16 per device, until
# killed.
load() {
	local d args=""
	for d in "$@"; do
		args="$args --name=$(basename $d) --filename=$d"
	done
	fio --ioengine=libaio --direct=1 --rw=${RW:-randread} --bs=4k \
		--iodepth=16 --time_based --runtime=120 --size=8M $args \
		> /dev/null 2>&1 &
	echo $!
}
# stop PID...: end fio (it may have ended on its own: I/O errors after a
# disconnect).
stop() { kill "$@" 2>/dev/null || true; wait "$@" 2>/dev/null || true; }
# now_ms: milliseconds since boot (busybox date has no %N).
now_ms() {
	local u
	read u _ < /proc/uptime
	echo $((${u%.*} * 1000 + (1${u#*.} - 100) * 10))
}
# rate SECONDS NQN...: "COUNT MS": reads the namespaces completed together
# over an observation window of SECONDS times SCALE, and its length in ms
# (the sleeps before a rate let fio reach its queue depth and a burst
# pass: observation windows too).
sum_reads() {	# ($KEY instead of read_cmds)
	local s t=0
	for s in "$@"; do t=$((t + $(stat_of $s ${KEY:-read_cmds}))); done
	echo $t
}
rate() {
	local w=$1 c0 c1 t0 t1
	shift
	c0=$(sum_reads "$@"); t0=$(now_ms)
	sleep $((w * SCALE))
	c1=$(sum_reads "$@"); t1=$(now_ms)
	echo $((c1 - c0)) $((t1 - t0))
}
per_s() { echo $(($1 * 1000 / $2)); }	# per_s COUNT MS
# settled BASE GROWTH NQN...: after starting a load, wait (up to a minute,
# times SCALE) until the namespaces' ${KEY:-read_cmds} has grown by GROWTH
# past BASE: fio takes seconds to start on a slow kernel, and a window
# opened before its commands flow counts that as idle time (on the debug
# kernel host A's first limited window began about 2 s before any of its
# commands reached the bucket: 79-89 % of the limit).  With KEY=throttled
# and GROWTH the loads' queue depth, every command the loads keep out has
# waited once: the bucket, not fio, sets the pace.
settled() {
	local base=$1 grow=$2 end
	shift 2
	end=$(($(now_ms) + 60000 * SCALE))
	while [ "$(sum_reads "$@")" -lt $((base + grow)) ]; do
		[ "$(now_ms)" -lt $end ] ||
			fail "the load on $* did not start: ${KEY:-read_cmds} $(sum_reads "$@"), was $base"
		sleep 0.2
	done
}
# within COUNT MS TARGET PERCENT WHAT [UNIT]: COUNT over MS is TARGET per
# second within PERCENT, give or take one command (UNIT: what one command
# counts, default 1) at each end of the window.
within() {
	local u=${6:-1} lo hi
	lo=$(($3 * $2 * (100 - $4) / 100000 - u))
	hi=$(($3 * $2 * (100 + $4) / 100000 + u))
	[ $1 -ge $lo ] && [ $1 -le $hi ] ||
		fail "$5: $1 in $2 ms ($(per_s $1 $2) per second), want $3 +-$4 % ($lo..$hi)"
	log "$5: $(per_s $1 $2) per second (limit $3)"
}

log "host B alone, unlimited"
b0=$(sum_reads $S2)
pb=$(load $db)
settled $b0 16 $S2
sleep 1
bfree=$(per_s $(rate 3 $S2))
log "host B alone: $bfree IOPS"
if [ $bfree -le $((4 * N)) ]; then
	N=$((bfree / 5))
	log "a slow kernel: limits scaled to N=$N IOPS"
	[ $N -ge 6 ] || fail "host B alone only does $bfree IOPS: too slow to tell any limit"
fi
NHI=$((N * 2 / 3)) NLO=$((N / 3)) NBPS=$((N * 3 / 4 * 4096))
echo $N > $HA/qos_iops

log "host A limited to $N IOPS over its two controllers, B beside it"
w0=$(KEY=throttled sum_reads $S1 $S3)
pa=$(load $da1 $da3)
KEY=throttled settled $w0 32 $S1 $S3
sleep 2
c0=$(sum_reads $S2); t0=$(now_ms); w0=$(KEY=throttled sum_reads $S1 $S3)
ra=$(rate 8 $S1 $S3)
c1=$(sum_reads $S2); t1=$(now_ms); w1=$(KEY=throttled sum_reads $S1 $S3)
rb=$(((c1 - c0) * 1000 / (t1 - t0)))
# How many of A's commands waited in its bucket: all of them while its
# queues keep the bucket's FIFO full (the limit is what holds A back).
log "host A: ${ra% *} commands in the window, $((w1 - w0)) of them waited"
within $ra $N 5 "host A, two controllers"
log "host B beside it: $rb IOPS (alone: $bfree)"
[ $rb -gt $((3 * N)) ] || fail "host B slowed to $rb IOPS by host A's limit"
[ $(stat_of $S1 throttled) -gt 0 ] || fail "no throttled command counted on $S1"
[ $(stat_of $S2 throttled) = 0 ] || fail "host B's commands counted as throttled"
stop $pb

log "live change to $((2 * N)) IOPS"
echo $((2 * N)) > $HA/qos_iops
sleep 1
within $(rate 4 $S1 $S3) $((2 * N)) 5 "host A after the change"

log "limit removed: full speed"
echo 0 > $HA/qos_iops
sleep 1
rfree=$(per_s $(rate 3 $S1 $S3))
log "host A without a limit: $rfree IOPS"
[ $rfree -gt $((3 * N)) ] || fail "host A still slow ($rfree IOPS) after its limit was removed"
stop $pa

# holds DEV NQN LIMIT WHAT: loaded, DEV's namespace (NQN) completes LIMIT
# IOPS within 5 % over 5 s.
holds() {
	local p w0
	w0=$(KEY=throttled sum_reads $2)
	p=$(load $1)
	KEY=throttled settled $w0 16 $2
	sleep 2
	within $(rate 5 $2) $3 5 "$4"
	stop $p
}

log "namespace limit on B's namespace: $NHI IOPS"
echo $NHI > "$(ns $S2)/qos_iops"
holds $db $S2 $NHI "namespace limit"
echo 0 > "$(ns $S2)/qos_iops"

log "bytes/s limit on B's namespace: $NBPS B/s of 4 KiB writes"
echo $NBPS > "$(ns $S2)/qos_bps"
w0=$(KEY=throttled sum_reads $S2)
pb=$(RW=randwrite load $db)
KEY=throttled settled $w0 16 $S2
sleep 2
within $(KEY=write_bytes rate 5 $S2) $NBPS 5 "namespace bytes/s limit (B/s)" 4096
stop $pb
echo 0 > "$(ns $S2)/qos_bps"

log "both: host A $NHI IOPS, A's namespace in S1 $NLO IOPS (and the other way)"
echo $NHI > $HA/qos_iops
echo $NLO > "$(ns $S1)/qos_iops"
holds $da1 $S1 $NLO "namespace under the host limit"
echo $NLO > $HA/qos_iops
echo $NHI > "$(ns $S1)/qos_iops"
holds $da1 $S1 $NLO "host under the namespace limit"
echo 0 > "$(ns $S1)/qos_iops"
echo 0 > $HA/qos_iops

# waiting DEV NQN: load DEV at queue depth 32 under a 2 IOPS limit until the
# namespace counted most of the queue throttled.  A drain at that rate
# takes over 10 s.  ($RW, $BS and $WAITERS: other commands, other count.)
waiting() {
	local t0
	t0=$(stat_of $2 throttled)
	fio --ioengine=libaio --direct=1 --rw=${RW:-randread} --bs=${BS:-4k} \
		--iodepth=32 --time_based --runtime=120 --size=8M --name=w \
		--filename=$1 > /dev/null 2>&1 &
	pw=$!
	await "[ \$(stat_of $2 throttled) -ge $((t0 + ${WAITERS:-24})) ]" 200 \
		"commands to $2 did not wait"
}
# quick WHAT CMD...: CMD returns within 3 s.
quick() {
	local what=$1 t0 ms
	shift
	t0=$(now_ms)
	"$@"
	ms=$(($(now_ms) - t0))
	log "$what: $ms ms"
	[ $ms -lt $((3000 * SCALE)) ] || fail "$what took $ms ms"
}

log "namespace disabled while commands wait for its limit"
echo 2 > "$(ns $S3)/qos_iops"
waiting $da3 $S3
quick "disable with waiters" sh -c "echo 0 > $(ns $S3)/enable"
echo 1 > "$(ns $S3)/enable"
stop $pw
echo 0 > "$(ns $S3)/qos_iops"

log "namespace disabled while commands wait for the host's limit"
# The host may have its namespace back under a new name: the one it reads.
wait_for "d=\$(nvme_dev_for $S3) && dd if=\$d of=/dev/null bs=4096 count=1"
da3=$(nvme_dev_for $S3)
echo 2 > $HA/qos_iops
waiting $da3 $S3
quick "disable with waiters in the host's bucket" \
	sh -c "echo 0 > $(ns $S3)/enable"
echo 1 > "$(ns $S3)/enable"
stop $pw
echo 0 > $HA/qos_iops

log "namespace disabled while writes wait for the host's limit and for buffers"
# 1 MiB writes at queue depth 32 on one queue: 8 fill the queue's share of
# the data pool (64 MiB / 8) and wait for the limit (1 IOPS); the others
# wait for buffers, holding their namespace reference.  The disable aborts
# the 8: the others then get buffers, fetch their data and reach the
# host's bucket after it was swept.  Held there, the disable would wait
# for them at 1 IOPS.
wait_for "d=\$(nvme_dev_for $S3) && dd if=\$d of=/dev/null bs=4096 count=1"
da3=$(nvme_dev_for $S3)
echo 1 > $HA/qos_iops
RW=randwrite BS=1M WAITERS=6 waiting $da3 $S3
sleep 1
quick "disable with writes behind the limit and the pool" \
	sh -c "echo 0 > $(ns $S3)/enable"
echo 1 > "$(ns $S3)/enable"
stop $pw
echo 0 > $HA/qos_iops

log "host entry removed while commands wait for its limit: released"
echo 2 > $HA/qos_iops
waiting $da1 $S1
r0=$(stat_of $S1 read_cmds)
quick "rmdir of the host entry" rmdir $HA
await "[ \$(stat_of $S1 read_cmds) -ge $((r0 + 100)) ]" 30 \
	"host A's commands not released when its entry went"
stop $pw

log "subsystem leaves the port while commands wait: the queues go"
echo 2 > "$(ns $S2)/qos_iops"
waiting $db $S2
quick "unlink from the port" rm $PURLIN_CFS/ports/1/subsystems/$S2
await "[ -z \"\$(cat $PURLIN_CFS/subsystems/$S2/controllers)\" ]" 50 \
	"host B's controller still on the target"
# The host holds fio's commands while it tries to reconnect: delete its
# controller before fio is stopped.
nvme disconnect -n $S2 > /dev/null 2>&1 || true
stop $pw
nvme_disconnect $S1
nvme_disconnect $S3
purlin_clear
