# SPDX-License-Identifier: GPL-2.0
# Two-node Pacemaker failover under I/O (tests/vm/ha/run; runs on the host
# guest under bash -e).  node1 and node2 export one subsystem and namespace
# (same NQN, NSID, uuid, nguid, serial) from the shared disk with
# purlin-config cloned and purlin-ana promotable (Documentation/ha.md's
# layout; unpromoted = inaccessible).  The host connects to both and sees
# one multipath namespace with two paths.
#  1. cluster: both nodes online, purlin-config running on both, node1
#     promoted: the host's path to node1 optimized, to node2 inaccessible
#  2. failover: fio (crc32c verify of every block written) runs; node1 is
#     powered off hard (its QEMU killed); Pacemaker promotes node2, the
#     host's node2 path turns optimized and I/O continues: fio must end
#     with no error and every verify good; the longest gap between two I/O
#     completions is the stall, reported with the time to promotion
#  3. failback under fio: node1 boots again, rejoins, starts unpromoted;
#     the host's path to it reconnects (inaccessible) and carries no write
#  4. switchover under the same fio: crm_resource --move --promoted to
#     node1: node2 demoted, node1 promoted, the paths swap, writes go
#     through node1; fio ends with no error; each event's stall reported
# timeout: 780
set -o pipefail
NQN=nqn.2026-12.io.purlin.test:ha
T0=$(date +%s)

log() { echo "== [$(( $(date +%s) - T0 ))s] $*"; }
fail() { echo "FAIL: $*"; collect_logs; exit 1; }
report() { echo "SAY $*"; }
now() { date +%s.%N; }
ms() { date +%s%3N; }
# kmark TEXT: a line in the host's kernel log (logs/host-dmesg.log), to
# line its nvme messages up with the test's steps
kmark() { echo "purlin-test: $*" > /dev/kmsg; }

# on NODE CMD: run the shell command CMD on NODE, print its output, return
# its status (124 when NODE did not answer in time: default 120 s)
on() {
	local node=$1 cmd=$2 lim=${3:-120} f n
	# unique and in order, also from subshells (no counter)
	f=/share/cmd/$node/$(date +%s%N).$BASHPID
	printf '%s\n' "$cmd" > $f.sh.tmp
	mv $f.sh.tmp $f.sh
	n=$((lim * 10))
	while [ ! -e $f.rc ]; do
		n=$((n - 1))
		[ $n -gt 0 ] || { echo "($node did not answer: $cmd)"; return 124; }
		sleep 0.1
	done
	cat $f.out
	return "$(cat $f.rc)"
}

# req OP NODE: ask the runner to power NODE off (kill) or boot it (boot)
req() {
	local n
	n=$(date +%s%N)
	: > /share/req/$n.$1.$2
	while [ ! -e /share/req/$n.done ]; do sleep 0.1; done
	cat /share/req/$n.done
}

# until_true TENTHS CMD: poll CMD (a shell command) until it succeeds
until_true() {
	local n=$1
	shift
	while ! eval "$*" > /dev/null 2>&1; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 0.1
	done
}

# settle NODE: wait (on NODE) until the cluster has no action left to run
settle() {
	on $1 "crm_resource --wait --timeout=240s" 260 || fail "the cluster did not settle: $(on $1 'crm_mon -1 -r')"
}

collect_logs() {
	local n
	for n in node1 node2; do
		on $n "crm_mon -1 -r -A 2>&1; tail -n 300 /var/log/pacemaker/pacemaker.log > /share/logs/$n-pacemaker.log; tail -n 200 /var/log/corosync/corosync.log > /share/logs/$n-corosync.log; dmesg > /share/logs/$n-dmesg.log; purlinctl status > /share/logs/$n-purlin.txt 2>&1" 30 || :
	done
	dmesg > /share/logs/host-dmesg.log
}

# ana_on NODE: the group's ANA state on NODE's port (purlinctl)
ana_on() {
	on $1 "purlinctl ana-group show 1 1" 30 | awk '$1 == "state" { print $2 }'
}

# path_to ADDR: the host's multipath path device through the node at ADDR
path_to() {
	local c p
	for c in /sys/class/nvme/nvme*; do
		grep -q "traddr=$1," $c/address 2>/dev/null || continue
		for p in $c/nvme*c*n1; do
			[ -e "$p" ] && { basename $p; return 0; }
		done
	done
	return 1
}
path_state() { cat "/sys/block/$(path_to $1)/ana_state" 2>/dev/null; }
ctrl_state() {
	local c
	for c in /sys/class/nvme/nvme*; do
		grep -q "traddr=$1," $c/address 2>/dev/null && { cat $c/state; return 0; }
	done
	echo none
}

# fio_start NAME SECONDS: verified writes to the multipath namespace
fio_start() {
	fio --name=$1 --filename=/dev/$HEAD --ioengine=libaio --direct=1 --rw=write \
		--bs=4k --size=8M --iodepth=4 --rate_iops=40 --verify=crc32c \
		--verify_backlog=32 --verify_fatal=1 --time_based --runtime=$2 \
		--write_lat_log=/tmp/$1 --log_avg_msec=0 --log_unix_epoch=1 \
		--output=/tmp/$1.out > /dev/null 2>&1 &
	FIO=$!
	FIO_T0=$(now)
}

# writes: write requests completed so far through the namespace's paths
writes() { cat /sys/block/${HEAD%n1}c*n1/stat 2>/dev/null | awk '{ n += $5 } END { print n + 0 }'; }

# fio_running N: fio is running and has written N more blocks (fio writes
# its latency log only when it ends: the block layer's count is the live one)
fio_running() {
	local w0
	w0=$(writes)
	until_true 600 "kill -0 $FIO && [ \$(writes) -ge $((w0 + $1)) ]" ||
		fail "fio is not writing (pid $FIO: $(kill -0 $FIO 2>&1 && echo alive), writes $(writes), were $w0)"
}

# fio_end NAME: fio must have ended with no error and verified what it wrote
fio_end() {
	local rc=0
	wait $FIO || rc=$?
	cat /tmp/$1.out
	[ $rc -eq 0 ] || fail "$1: fio exited $rc"
	grep -q "err= 0" /tmp/$1.out || fail "$1: fio reports an error"
	! grep -qi "verify.*fail\|bad magic\|crc32c: verify" /tmp/$1.out || fail "$1: verify failed"
	cp /tmp/$1_clat.1.log /share/logs/ 2>/dev/null || :
	WRITES=$(awk -F, '$3 == 1' /tmp/$1_clat.1.log | wc -l)
	READS=$(awk -F, '$3 == 0' /tmp/$1_clat.1.log | wc -l)
	[ "$READS" -gt 0 ] || fail "$1: no verify reads"
}

# stall NAME FROM TO: "GAP AT MAXCLAT": the longest time (ms) between two
# I/O completions of the job that ends after FROM and begins before TO
# (unix ms), when it began (ms after FROM), and the longest completion
# latency (ms) of an I/O that completed in that window.  fio logs every
# completion (log_avg_msec=0) with its unix time; outside a failover the
# gaps are a few hundred ms.
stall() {
	sort -n -t, -k1,1 /tmp/$1_clat.1.log | awk -F, -v from=$2 -v to=$3 '
		{ t = $1 + 0; c = $2 / 1000000 }
		NR > 1 && t >= from && last <= to && t - last > max { max = t - last; at = last - from }
		t >= from && t <= to && c > maxc { maxc = c }
		{ last = t }
		END { printf "%d %d %d\n", max, at, maxc }'
}

# path_writes PATH: write requests completed through one path device
path_writes() { awk '{ print $5 }' /sys/block/$1/stat; }

# --- 1. the cluster ---------------------------------------------------------
log "waiting for both nodes to be online in Pacemaker"
until_true 3000 "on node1 'crm_mon -1 2>/dev/null | grep -q \"Online: \\[ node1 node2 \\]\"' 10" ||
	fail "the cluster did not form in 300 s: $(on node1 'crm_mon -1' 10)"
log "cluster formed: $(on node1 'crm_mon -1 | grep -i -E "quorum|online"' | tr '\n' ' ')"
report "cluster formed $(( $(date +%s) - T0 )) s after the host booted"
on node1 "cibadmin --replace --scope configuration --xml-file /share/ha/cib.xml" ||
	fail "cannot load the configuration"
until_true 2400 "[ \"\$(ana_on node1)\" = optimized ] && [ \"\$(ana_on node2)\" = inaccessible ]" ||
	fail "node1 not promoted, node2 not unpromoted in 240 s: $(on node1 'crm_mon -1 -r')"
on node1 "crm_mon -1 -r"
report "resources running, node1 promoted $(( $(date +%s) - T0 )) s after the host booted"
# From here on the promoted role stays where it is (stickiness).
on node1 "cibadmin --delete --xml-text '<rsc_location id=\"purlin-ana-first-on-node1\"/>'" ||
	fail "cannot remove the initial location"
settle node1

for a in 10.99.0.1 10.99.0.2; do
	nvme connect -t rdma -a $a -s 4420 -n $NQN --ctrl-loss-tmo=-1 --reconnect-delay=2 \
		--keep-alive-tmo=5 || fail "cannot connect to $a"
done
until_true 300 "path_to 10.99.0.1 && path_to 10.99.0.2" || fail "no path through both nodes"
P1=$(path_to 10.99.0.1)
P2=$(path_to 10.99.0.2)
HEAD=$(echo $P1 | sed 's/c[0-9]*n/n/')
[ -b /dev/$HEAD ] || fail "no multipath head /dev/$HEAD"
[ "$(echo $P2 | sed 's/c[0-9]*n/n/')" = $HEAD ] || fail "two heads: $P1 $P2 (the identity differs)"
until_true 300 "[ \"\$(path_state 10.99.0.1)\" = optimized ] && [ \"\$(path_state 10.99.0.2)\" = inaccessible ]" ||
	fail "paths: node1 $(path_state 10.99.0.1), node2 $(path_state 10.99.0.2)"
log "one namespace /dev/$HEAD: $P1 via node1 optimized, $P2 via node2 inaccessible"
nvme list-subsys /dev/$HEAD

# --- 2. failover: node1 powered off under I/O -------------------------------
fio_start failover 70
fio_running 200
log "fio running; powering node1 off"
p2w=$(path_writes $P2)
# Unpromoted means no I/O: nothing went through node2 until now.
[ "$p2w" = 0 ] || fail "$p2w writes went through node2's path while it was unpromoted"
kmark "powering node1 off"
kill_ms=$(ms)
t_kill=$(req kill node1)
kmark "node1 powered off"
until_true 1200 "[ \"\$(path_state 10.99.0.2)\" = optimized ]" ||
	fail "node2's path not optimized 120 s after node1 died: $(on node2 'crm_mon -1 -r')"
t_opt=$(now)
kmark "node2's path optimized"
promote_s=$(awk -v a=$t_kill -v b=$t_opt 'BEGIN { printf "%.1f", b - a }')
log "node2's path optimized ${promote_s} s after node1 was powered off"
# I/O goes on through node2 while fio still runs.
kill -0 $FIO || fail "fio ended before node2 took over: the power-off was not under I/O"
fio_running 100
on node2 "crm_mon -1 -r"
[ "$(ana_on node2)" = optimized ] || fail "node2's ANA state is not optimized"
fio_end failover
[ "$(path_writes $P2)" -gt $p2w ] || fail "no write went through node2's path after the failover"
set -- $(stall failover $kill_ms $(ms))
log "failover: $WRITES writes, $READS verify reads, no error; longest gap between completions ${1} ms (from ${2} ms after the power-off), longest I/O ${3} ms"
report "failover: node1 powered off under fio; node2's path optimized ${promote_s} s later; I/O stalled ${1} ms (longest gap between completions; longest single I/O ${3} ms); fio: no error, $WRITES writes, $READS verify reads good"
[ "$(ctrl_state 10.99.0.1)" != live ] || fail "the host's controller to the dead node1 is still live"

# --- 3. failback under I/O: node1 boots again and rejoins as unpromoted ---
# One fio run spans node1's return and the switchover (4).
fio_start failback 200
fio_running 100
p1w=$(path_writes $P1)
log "fio running; booting node1 again"
boot_ms=$(ms)
kmark "booting node1 again"
req boot node1 > /dev/null
until_true 3000 "on node2 'crm_mon -1 2>/dev/null | grep -q \"Online: \\[ node1 node2 \\]\"' 10" ||
	fail "node1 did not rejoin in 300 s"
until_true 2400 "[ \"\$(ana_on node1)\" = inaccessible ] && [ \"\$(ana_on node2)\" = optimized ]" ||
	fail "node1 not running unpromoted in 240 s: $(on node2 'crm_mon -1 -r')"
until_true 1200 "[ \"\$(ctrl_state 10.99.0.1)\" = live ] && [ \"\$(path_state 10.99.0.1)\" = inaccessible ]" ||
	fail "the host did not reconnect to node1: $(ctrl_state 10.99.0.1) $(path_state 10.99.0.1)"
[ "$(path_to 10.99.0.1 | sed 's/c[0-9]*n/n/')" = $HEAD ] || fail "node1's path is not under /dev/$HEAD again"
# The ANA state above is the file's (purlin-config); purlin-ana must run
# there too, and the transition be over, before the switchover: a move
# while node1's instance is still to start waits for that start between
# node2's demote and node1's promote (a 14 s stall, seen once).
until_true 2400 "on node2 'crm_mon -1 2>/dev/null | grep -q \"Unpromoted: \\[ node1 \\]\"' 10" ||
	fail "purlin-ana not running unpromoted on node1 in 240 s: $(on node2 'crm_mon -1 -r')"
settle node2
back_s=$(( ($(ms) - boot_ms) / 1000 ))
kmark "node1 back"
kill -0 $FIO || fail "fio ended before node1 was back: its return was not under I/O"
fio_running 40
# Unpromoted means no I/O: the host must not have written through node1.
[ "$(path_writes $P1)" = "$p1w" ] || fail "writes went through node1's path while it was unpromoted"
log "node1 back ${back_s} s after its boot: unpromoted, the host's path to it reconnected (inaccessible), no write through it"

# --- 4. switchover under the same fio ---------------------------------------
move_ms=$(ms)
t_move=$(now)
kmark "switchover to node1"
on node2 "crm_resource --move --resource purlin-ana-clone --promoted --node node1" ||
	fail "crm_resource --move failed"
until_true 1200 "[ \"\$(path_state 10.99.0.1)\" = optimized ] && [ \"\$(path_state 10.99.0.2)\" = inaccessible ]" ||
	fail "switchover not seen in 120 s: node1 $(path_state 10.99.0.1), node2 $(path_state 10.99.0.2)"
t_sw=$(now)
kmark "switchover seen: node1's path optimized, node2's inaccessible"
sw_s=$(awk -v a=$t_move -v b=$t_sw 'BEGIN { printf "%.1f", b - a }')
[ "$(ana_on node1)" = optimized ] && [ "$(ana_on node2)" = inaccessible ] ||
	fail "ANA states after the move: node1 $(ana_on node1), node2 $(ana_on node2)"
kill -0 $FIO || fail "fio ended before the switchover was done: it was not under I/O"
fio_running 100
on node2 "crm_resource --clear --resource purlin-ana-clone" || fail "crm_resource --clear failed"
fio_end failback
end_ms=$(ms)
[ "$(path_writes $P1)" -gt "$p1w" ] || fail "no write went through node1's path after the switchover"
set -- $(stall failback $boot_ms $move_ms)
log "node1's return: longest gap between completions ${1} ms (from ${2} ms after its boot), longest I/O ${3} ms"
report "failback: node1 booted under fio, rejoined unpromoted, the host's path to it back (inaccessible, no write through it) ${back_s} s after its boot; I/O stalled ${1} ms meanwhile (longest single I/O ${3} ms)"
set -- $(stall failback $move_ms $end_ms)
log "switchover in ${sw_s} s: longest gap between completions ${1} ms (from ${2} ms after the move), longest I/O ${3} ms"
report "switchover (crm_resource --move --promoted) under fio: paths swapped ${sw_s} s after the move; I/O stalled ${1} ms (longest single I/O ${3} ms)"
report "failback+switchover fio: no error, $WRITES writes, $READS verify reads good"
on node1 "crm_mon -1 -r"
[ "$(ctrl_state 10.99.0.2)" = live ] || fail "the host's controller to node2 is not live"

collect_logs
nvme disconnect-all
