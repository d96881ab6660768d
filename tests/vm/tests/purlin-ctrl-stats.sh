# SPDX-License-Identifier: GPL-2.0
# Per-controller statistics (controllers/<nqn>:<cntlid>/) against the stock
# host: two controllers of one subsystem from two host NQNs (through two
# ports); the I/O is steered to one of them at a time with ANA, so fio's
# 512 reads count on the first controller alone and 256 writes and a Flush
# on the second alone, exactly, and the namespace's growth is their sum.
# The directories' attributes name the host; purlinctl stats shows them;
# purlinctl top on a pseudo-terminal (script) shows the running fio's
# controller with nonzero IOPS, changes its sort on s and quits on q;
# without a terminal it prints plain blocks.  22 controllers: every one has
# its directory (the one-page controllers file cannot hold them all).
# Controllers going away (a port link removed while a reader holds a stats
# file open, a host link removed, the subsystem removed with controllers
# left) take their directories with them, nothing is left; nor after a
# wire client (nvmf-wire abrupt) drops controllers as fast as it makes them.
# timeout: 300

NQN=nqn.2026-12.io.purlin.test:ctrlstats
S=$PURLIN_CFS/subsystems/$NQN
C=$PURLIN_CFS/controllers
HA=nqn.2014-08.org.nvmexpress:uuid:7b1c0f6e-3a55-4d0e-9a1e-0c7a5e11a001
IA=7b1c0f6e-3a55-4d0e-9a1e-0c7a5e11a001
HB=nqn.2014-08.org.nvmexpress:uuid:7b1c0f6e-3a55-4d0e-9a1e-0c7a5e11a002
IB=7b1c0f6e-3a55-4d0e-9a1e-0c7a5e11a002
HC=nqn.2014-08.org.nvmexpress:uuid:7b1c0f6e-3a55-4d0e-9a1e-0c7a5e11a003
IC=7b1c0f6e-3a55-4d0e-9a1e-0c7a5e11a003
EXTRA=20

brd_create 16
purlin_subsys $NQN
echo 0 > $S/attr_allow_any_host
purlin_ns $NQN 1 /dev/ram0
for h in $HA $HB $HC; do
	mkdir $PURLIN_CFS/hosts/$h
	ln -s $PURLIN_CFS/hosts/$h $S/allowed_hosts/$h
done
purlin_port 1 4420
purlin_port 2 4421
purlin_link 1 $NQN
purlin_link 2 $NQN
[ -d $C ] || fail "no controllers/ directory"
[ -z "$(ls $C)" ] || fail "controllers/ not empty with no controller: $(ls $C)"
expect_fail mkdir $C/x
expect_fail rmdir $C

# connect HOSTNQN HOSTID SVC: connect (one I/O queue, giving up fast when
# the target drops it) and print the target's cntlid.
connect() {
	local c
	nvme connect -t rdma -a $TRADDR -s $3 -n $NQN --hostnqn=$1 --hostid=$2 \
		--nr-io-queues=1 --ctrl-loss-tmo=1 --reconnect-delay=1 > /dev/null
	wait_for "ctrl_of_host $NQN $1" 100
	c=$(ctrl_of_host $NQN $1)
	wait_for "[ \$(cat /sys/class/nvme/$c/state) = live ]" 100
	cat /sys/class/nvme/$c/cntlid
}

log "two hosts, two controllers"
ca=$(connect $HA $IA 4420)
cb=$(connect $HB $IB 4421)
DA=$C/$NQN:$ca
DB=$C/$NQN:$cb
wait_for "[ -d $DA ] && [ -d $DB ]" 100
ls $C
[ "$(ls $C | wc -l)" = 2 ] || fail "controllers/: $(ls $C)"
for f in cntlid subsysnqn hostnqn hostid port addr kato_ms queues state stats latency; do
	[ -f $DA/$f ] || fail "no $f in $DA"
done
[ "$(cat $DA/cntlid)" = $ca ] || fail "cntlid $(cat $DA/cntlid), host says $ca"
[ "$(cat $DA/subsysnqn)" = $NQN ] || fail "subsysnqn $(cat $DA/subsysnqn)"
[ "$(cat $DA/hostnqn)" = $HA ] || fail "hostnqn $(cat $DA/hostnqn)"
[ "$(cat $DA/hostid)" = $IA ] || fail "hostid $(cat $DA/hostid)"
[ "$(cat $DB/hostnqn)" = $HB ] || fail "B's hostnqn $(cat $DB/hostnqn)"
[ "$(cat $DA/port)" = 1 ] && [ "$(cat $DB/port)" = 2 ] || fail "ports $(cat $DA/port) $(cat $DB/port)"
[ "$(cat $DA/addr)" = $TRADDR ] || fail "addr $(cat $DA/addr)"
[ "$(cat $DA/queues)" = 2 ] || fail "queues $(cat $DA/queues)"
[ "$(cat $DA/state)" = live ] || fail "state $(cat $DA/state)"
# The kernel's directories: no rmdir, no mkdir in them, no writes.
expect_fail rmdir $DA
expect_fail mkdir $DA/x
expect_fail sh -c "echo 0 > $DA/stats"
[ -d $DA ] || fail "$DA went with a refused rmdir"
grep -Eq '^read_cmds=[0-9]+ read_bytes=[0-9]+ write_cmds=[0-9]+ write_bytes=[0-9]+ errors=[0-9]+ other_cmds=[0-9]+ inflight=[0-9]+ flush_cmds=[0-9]+$' $DA/stats ||
	fail "stats keys: $(cat $DA/stats)"
grep -Eq ' inflight=[0-9]+ flush_cmds=[0-9]+ throttled=[0-9]+$' $S/namespaces/1/stats ||
	fail "namespace stats: $(cat $S/namespaces/1/stats)"
[ "$(sed -n 1p $DA/latency)" = "$(sed -n 1p $S/namespaces/1/latency)" ] || fail "latency layout"
[ "$(wc -l < $DA/latency)" = 7 ] || fail "latency lines: $(cat $DA/latency)"
expect_fail sh -c "echo 1 > $DA/stats"
# the page-limited file keeps its keys
grep -q "^cntlid=$ca host=$HA port=1 queues=2 kato_ms=[0-9]* read_cmds=" $S/controllers ||
	fail "controllers: $(cat $S/controllers)"

cst() { tr ' ' '\n' < $1/stats | sed -n "s/^$2=//p"; }
nst() { tr ' ' '\n' < $S/namespaces/1/stats | sed -n "s/^$1=//p"; }
clat() { sed -n "s/^$2 count=\([0-9]*\) .*/\1/p" $1/latency; }

# The I/O device: one multipath head with a path per controller (the
# stock host's default), or a block device per controller without it.
dev=$(nvme_dev_for $NQN)
mp=$(cat /sys/module/nvme_core/parameters/multipath 2>/dev/null || echo N)
log "multipath=$mp, device $dev"
# steer PORT: the host's I/O goes through PORT's controller only.
steer() {
	local on=$1 off=$((3 - $1)) p c
	if [ $mp = N ]; then
		c=$(ctrl_of_host $NQN $([ $on = 1 ] && echo $HA || echo $HB))
		dev=/dev/$(ls /sys/class/nvme/$c | grep "^${c}n1\$")
		return 0
	fi
	echo optimized > $PURLIN_CFS/ports/$on/ana_groups/1/ana_state
	echo inaccessible > $PURLIN_CFS/ports/$off/ana_groups/1/ana_state
	for p in /sys/block/nvme*c*n1; do
		c=nvme${p##*/nvme*c}
		c=${c%n1}
		if [ "$(cat /sys/class/nvme/$c/subsysnqn)" = $NQN ] &&
			[ "$(cat /sys/class/nvme/$c/hostnqn)" = $([ $off = 1 ] && echo $HA || echo $HB) ]; then
			wait_for "[ \$(cat $p/ana_state) = inaccessible ]" 100
		fi
	done
}
# settled: nothing moves on either controller for a second (the host's
# own reads after a connect or an ANA change are over).
snap() { cat $DA/stats $DB/stats; }
settle() {
	local n=0
	until [ "$(snap)" = "$(sleep 1; snap)" ]; do
		n=$((n + 1))
		[ $n -lt 15 ] || fail "the controllers' counters never settle"
	done
}

log "512 reads through A's controller"
steer 1
settle
ar0=$(cst $DA read_cmds); br0=$(cst $DB read_cmds); nr0=$(nst read_cmds)
arc0=$(clat $DA read_total)
fio --name=r --filename="$dev" --rw=randread --bs=4k --iodepth=4 --direct=1 \
	--ioengine=libaio --size=8M --io_size=2M --randrepeat=0 > /dev/null || fail "fio read"
cat $DA/stats $DB/stats
[ $(($(cst $DA read_cmds) - ar0)) = 512 ] || fail "A: read_cmds grew by $(($(cst $DA read_cmds) - ar0)), not 512"
[ $(($(clat $DA read_total) - arc0)) = 512 ] || fail "A: read_total count grew by $(($(clat $DA read_total) - arc0))"
[ $(($(cst $DB read_cmds) - br0)) = 0 ] || fail "B: $(($(cst $DB read_cmds) - br0)) reads, not 0"
[ $(($(nst read_cmds) - nr0)) = 512 ] || fail "namespace: $(($(nst read_cmds) - nr0)) reads"

log "256 writes and a Flush through B's controller"
steer 2
settle
aw0=$(cst $DA write_cmds); bw0=$(cst $DB write_cmds); nw0=$(nst write_cmds)
bwc0=$(clat $DB write_total); bf0=$(cst $DB flush_cmds); af0=$(cst $DA flush_cmds)
bo0=$(cst $DB other_cmds); nf0=$(nst flush_cmds)
fio --name=w --filename="$dev" --rw=randwrite --bs=4k --iodepth=4 --direct=1 \
	--ioengine=libaio --size=8M --io_size=1M --randrepeat=0 > /dev/null || fail "fio write"
nvme flush "$dev" -n 1 > /dev/null || fail "nvme flush"
cat $DA/stats $DB/stats
[ $(($(cst $DB write_cmds) - bw0)) = 256 ] || fail "B: write_cmds grew by $(($(cst $DB write_cmds) - bw0)), not 256"
[ $(($(clat $DB write_total) - bwc0)) = 256 ] || fail "B: write_total count grew by $(($(clat $DB write_total) - bwc0))"
[ $(($(cst $DA write_cmds) - aw0)) = 0 ] || fail "A: $(($(cst $DA write_cmds) - aw0)) writes, not 0"
[ $(($(nst write_cmds) - nw0)) = 256 ] || fail "namespace: $(($(nst write_cmds) - nw0)) writes"
[ $(($(cst $DB flush_cmds) - bf0)) = 1 ] || fail "B: flush_cmds grew by $(($(cst $DB flush_cmds) - bf0)), not 1"
[ $(($(cst $DB other_cmds) - bo0)) -ge 1 ] || fail "B: the Flush is not among other_cmds"
[ $(($(cst $DA flush_cmds) - af0)) = 0 ] || fail "A: a Flush counted"
[ $(($(nst flush_cmds) - nf0)) = 1 ] || fail "namespace: flush_cmds grew by $(($(nst flush_cmds) - nf0))"
[ "$(cst $DA inflight)" = 0 ] && [ "$(cst $DB inflight)" = 0 ] || fail "inflight with nothing running"

log "purlinctl stats: both controllers, named by host"
purlinctl stats | tee pstats.txt
grep -q "^$NQN  *$ca  *$(cst $DA read_cmds)  *$(cst $DA write_cmds) .* $HA\$" pstats.txt ||
	fail "no row for A's controller"
grep -q "^$NQN  *$cb  *$(cst $DB read_cmds)  *$(cst $DB write_cmds) .* $HB\$" pstats.txt ||
	fail "no row for B's controller"
purlinctl stats -o prometheus > prom.txt
grep -q "^purlin_controller_read_commands_total{subsystem=\"$NQN\",cntlid=\"$ca\",host=\"$HA\"} $(cst $DA read_cmds)\$" prom.txt ||
	fail "no read counter of A for Prometheus"
grep -q "^purlin_controller_flush_commands_total{subsystem=\"$NQN\",cntlid=\"$cb\",host=\"$HB\"} $(cst $DB flush_cmds)\$" prom.txt ||
	fail "no flush counter of B for Prometheus"

log "purlinctl top while fio reads through A"
steer 1
fio --name=top --filename="$dev" --rw=randread --bs=4k --iodepth=4 --direct=1 \
	--ioengine=libaio --size=8M --time_based --runtime=60 > /dev/null 2>&1 &
fpid=$!
wait_for "[ \$(cst $DA inflight) -gt 0 ] || [ \$(cst $DA read_cmds) -gt $(cst $DA read_cmds) ]" 100
# a line for A's controller with IOPS above 0, and its host last
busy_line() { tr -d '\r' < $1 | awk -v c=$ca -v h=$HA '$1 == c && $2 != "0" && $NF == h { f = 1 } END { exit !f }'; }
purlinctl top -d 1 -c 2 > top.txt
cat top.txt
[ "$(grep -c '^purlinctl top - ' top.txt)" = 2 ] || fail "not two plain blocks"
! grep -q "$(printf '\033')" top.txt || fail "escape sequences without a terminal"
busy_line top.txt || fail "plain top: no busy line for controller $ca"
rm -f keys
mkfifo keys
script -qfc "purlinctl top -d 1" top.tty < keys > /dev/null 2>&1 &
spid=$!
exec 4> keys
poll_until "busy_line top.tty" 200 || { cat top.tty; fail "top on a terminal: no busy line for controller $ca"; }
grep -q "q quit, s sort, r rows" top.tty || fail "top on a terminal does not take keys"
grep -q "$(printf '\033')\[2J" top.tty || fail "top on a terminal does not clear the screen"
printf s >&4
poll_until "grep -q 'controllers by mbps' top.tty" 100 || fail "s did not change the sort"
printf q >&4
poll_until "! kill -0 $spid" 100 || { kill $spid; fail "top did not quit on q"; }
exec 4>&-
wait $spid || fail "top on a terminal exited $?"
tr -d '\r' < top.tty | grep "^$ca " | tail -n 2
kill $fpid 2>/dev/null || true
wait $fpid 2>/dev/null || true

log "$EXTRA more controllers of host C: each has its directory"
# Straight to the kernel: nvme-cli 2.3 takes -D but still says "already
# connected" for a second controller of the same host and address.
opts="transport=rdma,traddr=$TRADDR,trsvcid=4420,nqn=$NQN,hostnqn=$HC,hostid=$IC"
opts="$opts,nr_io_queues=1,ctrl_loss_tmo=1,reconnect_delay=1,duplicate_connect"
i=0
while [ $i -lt $EXTRA ]; do
	( printf '%s' "$opts" > /dev/nvme-fabrics ) &
	i=$((i + 1))
done
wait
n=$((EXTRA + 2))
wait_for "[ \$(ls $C | wc -l) = $n ]" 300
for d in $C/*; do
	grep -q '^read_cmds=.* flush_cmds=[0-9]*$' $d/stats || fail "$d/stats: $(cat $d/stats)"
	[ "$(sed -n 1p $d/latency)" = "$(sed -n 1p $S/namespaces/1/latency)" ] || fail "$d/latency"
done
[ "$(cat $C/*/hostnqn | grep -c "^$HC\$")" = $EXTRA ] || fail "host C's controllers: $(cat $C/*/hostnqn)"
log "controllers file: $(wc -l < $S/controllers) of $n lines; controllers/: $(ls $C | wc -l)"
purlinctl stats -o prometheus | grep -c "^purlin_controller_read_commands_total{subsystem=\"$NQN\"" > nprom.txt
[ "$(cat nprom.txt)" = $n ] || fail "purlinctl stats: $(cat nprom.txt) controllers, not $n"

# A reader on every controller's files while they go.
( while [ -e $S ]; do cat $C/*/stats $C/*/latency $C/*/state > /dev/null 2>&1 || true; done ) &
rpid=$!

log "port 2's link removed while a reader holds B's stats open"
exec 3< $DB/stats
rm $PURLIN_CFS/ports/2/subsystems/$NQN
await "[ ! -e $DB ]" 200 "B's directory stays after its port link went"
if cat <&3 > late.txt 2> late.err; then
	fail "a read of a removed controller's stats succeeded: $(cat late.txt)"
fi
cat late.err
exec 3<&-
[ -d $DA ] || fail "A's directory went with B's"

log "host C's link removed: its $EXTRA controllers go"
rm $S/allowed_hosts/$HC
await "[ \$(ls $C | wc -l) = 1 ]" 300 "host C's controllers stay: $(ls $C | wc -l) left"
[ -d $DA ] || fail "A's directory went with host C's"

log "the subsystem removed with A's controller still there"
rm $PURLIN_CFS/ports/1/subsystems/$NQN
rm $S/allowed_hosts/*
rmdir $S/namespaces/1
rmdir $S
await "[ -z \"\$(ls $C)\" ]" 200 "directories left: $(ls $C)"
wait $rpid
nvme disconnect --nqn=$NQN > /dev/null 2>&1 || true
wait_for "! ctrl_of_host $NQN $HA && ! ctrl_of_host $NQN $HB && ! ctrl_of_host $NQN $HC" 300

log "a peer dropping its controllers as it makes them, under a reader"
CH=nqn.2026-12.io.purlin.test:churn
purlin_subsys $CH
purlin_ns $CH 1 /dev/ram0
purlin_link 1 $CH
ctrls0=$(live ctrls)
( while [ -e $PURLIN_CFS/subsystems/$CH ]; do cat $C/*/stats $C/*/state > /dev/null 2>&1 || true; done ) &
rpid=$!
for r in 1 2 3; do
	nvmf-wire -a $TRADDR -s 4420 -n $CH abrupt > wire.txt 2>&1 || true
	grep -q "^PASS abrupt" wire.txt || fail "nvmf-wire abrupt, round $r: $(grep -v '^PASS' wire.txt | tail -n 5)"
done
await "[ -z \"\$(ls $C)\" ] && [ \$(live ctrls) -le $ctrls0 ]" 200 "after the churn: $(ls $C)"
rm $PURLIN_CFS/ports/1/subsystems/$CH
rmdir $PURLIN_CFS/subsystems/$CH/namespaces/1
rmdir $PURLIN_CFS/subsystems/$CH
wait $rpid
purlin_clear
