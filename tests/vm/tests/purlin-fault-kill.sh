# SPDX-License-Identifier: GPL-2.0
# Fault injection under load (issue #9): the host's fio is killed with
# SIGKILL mid-flight, again and again (4 jobs, queue depth 32 each, blocks
# up to 1 MiB, so that the target's data pool is oversubscribed), and the
# host disconnects with that I/O in flight.  After every kill the target
# drains to no request in use with the controller still live; after every
# disconnect the live-object counters return exactly to their baseline
# (ctrls, queues, reqs, pool_free).  A crc32c-verified region written
# before the faults still verifies afterwards, and a fresh write+verify
# pass over the faulted region succeeds.
#
# purlin_fault_kill_delay_ms=N on the kernel command line (make
# check-debug sets it): a memory-backed null_blk that completes every I/O
# N ms late instead of the RAM disk, and mostly small blocks.  On the debug
# kernel the host keeps at most 3 requests in flight on an instant device,
# so the target never sees a deep queue; with a slow one it does.  Not the
# default: on 6.1 the slow device makes the host's soft-RoCE fail memory
# registrations ("rxe_reg_fast_mr: mr->lkey ... not free") and reconnect,
# and an `nvme disconnect` during that once took longer than 60 s.
# timeout: 240

timed_log

NQN=nqn.2026-11.io.purlin.test:fault-kill



# wait_deep: 60 s (wall clock) for 32 or more requests in use on the target
wait_deep() {
	local end=$(($(date +%s) + 60))
	while [ $(date +%s) -lt $end ]; do
		[ "$(live reqs)" -ge 32 ] && return 0
		sleep 0.1
	done
	return 1
}

# storm: deep, large, mixed I/O over 32..64 MiB in the background (threads,
# so one SIGKILL takes every job); sets $storm.
storm() {
	fio --name=storm --filename="$dev" --ioengine=libaio --direct=1 \
		--thread --numjobs=4 --iodepth=32 --rw=randrw $STORM_BS \
		--offset=$((32 * MB)) --size=$((32 * MB)) --time_based \
		--runtime=120 > storm.out 2>&1 &
	storm=$!
	log "storm started"
	# the target must see a deep queue before the fault is injected
	if ! wait_deep; then
		kill -0 $storm 2>/dev/null && echo "fio is running" || echo "fio has exited"
		cat storm.out
		echo "host: in flight (reads writes) $(cat /sys/block/$(basename $dev)/inflight 2>/dev/null)"
		rdma statistic show link rxe0/1 2>/dev/null
		fail "no deep queue on the target after 60 s: $(cat $LIVE)"
	fi
}

DELAY_MS=$(sed -n 's/.*purlin_fault_kill_delay_ms=\([0-9][0-9]*\).*/\1/p' /proc/cmdline)
if [ "${DELAY_MS:-0}" -gt 0 ]; then
	nullblk_create faultkill 64 1 irqmode=2 \
		completion_nsec=$((DELAY_MS * 1000000)) > /dev/null
	purlin_export $NQN /dev/faultkill 1
	STORM_BS="--bssplit=4k/50:16k/30:128k/15:1m/5"
	log "null_blk completing each I/O ${DELAY_MS} ms late"
else
	brd_create 64
	purlin_export $NQN /dev/ram0 1
	STORM_BS="--bsrange=4k-1m"
fi
base=$(cat $LIVE)
log "baseline: $base"
case "$base" in
*" ctrls=0 queues=0 reqs=0 "*) ;;
*) fail "unexpected baseline: $base" ;;
esac
pool=$(live pool_free)

connect() {
	dev=$(nvme_connect $NQN 4420 --reconnect-delay=1 --ctrl-loss-tmo=30)
	ctrl=$(basename $(ctrl_of $dev))
}
connect
log "region A (0..16 MiB): crc32c pattern before the faults"
region_fio regionA 0 16
# requests a connected, idle host keeps on the target (its AER)
await "[ \$(live reqs) -le 1 ]" 100 "not idle"
idle=$(live reqs)

for round in 1 2 3 4; do
	storm
	sleep "$(echo "0 0.5 1.5 2.5 1" | cut -d' ' -f$((round + 1)))"
	log "round $round: SIGKILL with $(live reqs) requests in flight on the target"
	kill -9 $storm
	rc=0; wait $storm || rc=$?
	[ $rc = 137 ] || { cat storm.out; fail "fio was not killed (status $rc)"; }
	# aio of a dead process still completes: the target drains, the
	# controller is untouched
	await "[ \$(live reqs) = $idle ] && [ \$(live pool_free) = $pool ]" 300 \
		"target did not drain"
	[ "$(live ctrls)" = 1 ] && [ "$(live queues)" = 3 ] ||
		fail "controller changed by a host-side kill: $(cat $LIVE)"
	[ "$(cat /sys/class/nvme/$ctrl/state)" = live ] || fail "host controller not live"
	log "round $round: drained, controller untouched"
done

for round in 1 2; do
	storm
	log "disconnect $round with $(live reqs) requests in flight"
	timeout 60 nvme disconnect -n $NQN > /dev/null || fail "nvme disconnect under I/O"
	# fio sees its I/O fail (the namespace is gone) and must exit
	await "! kill -0 $storm" 300 "fio hangs after the disconnect"
	rc=0; wait $storm || rc=$?
	log "fio ended with status $rc"
	wait_for "nvme_ns_gone $NQN" 100
	await "[ \"\$(cat $LIVE)\" = \"$base\" ]" 300 \
		"live objects not back to baseline (want $base)"
	connect
done

log "after the faults: region A still verifies, region B writes and verifies"
region_fio regionA 0 16 --verify_only
region_fio regionB 32 32
fio_verify "$dev" 4k 32 8M

nvme_disconnect $NQN
await "[ \"\$(cat $LIVE)\" = \"$base\" ]" 300 \
	"live objects not back to baseline (want $base)"
purlin_clear
if [ "${DELAY_MS:-0}" -gt 0 ]; then
	nullblk_destroy faultkill
fi
