# SPDX-License-Identifier: GPL-2.0
# Persistent reservations with the stock host and nvme-cli: two host
# identities (host NQN and host ID each) on one namespace, through two
# ports, racing for it and taking it from each other.  Register/replace/unregister, each of the six types' access rules
# on reads and writes (Reservation Conflict), release and clear, preempt,
# preempt-and-abort under fio, the Reservation Notification log and its
# mask, Reservation Persistence, Report's extended and refused formats,
# Identify, resv_state dump/restore with bad input refused, and the wire
# client's malformed reservation commands (nvmf-wire resv-bad).
# timeout: 300

NQN=nqn.2026-11.io.purlin.test:resv
S=$PURLIN_CFS/subsystems/$NQN
N=$S/namespaces/1
# ID_A, HOST_A, ID_B, HOST_B, CONFLICT; ctrl_of_host, connect_as, report,
# reg_field, hostid_at, rd, wr ...
. /tests/resv-lib.sh

# every I/O takes 100 ms: the writes in flight at the preempt and abort
# outlast its Acquire unless the Acquire waits for them
dev=$(nullblk_create resvnb 16 1 irqmode=2 completion_nsec=100000000)
purlin_subsys $NQN
mkdir $N
echo $dev > $N/device_path
[ "$(cat $N/resv_enable)" = 0 ] || fail "resv_enable is not off by default"
echo 1 > $N/resv_enable
echo 1 > $N/enable
# resv_enable changes only while the namespace is disabled
expect_fail sh -c "echo 0 > $N/resv_enable"
purlin_port 1 4420
purlin_port 2 4421
purlin_link 1 $NQN
purlin_link 2 $NQN
connect_as $HOST_A $ID_A 4420
connect_as $HOST_B $ID_B 4421
A=$(ctrl_of_host $HOST_A)
B=$(ctrl_of_host $HOST_B)
log "host A: $A, host B: $B"
# Commands go to each controller's character device (one namespace: the
# host passes I/O commands through), so each carries its host's identity.
wait_for "nvme id-ns $A -n 1 > /dev/null 2>&1 && nvme id-ns $B -n 1 > /dev/null 2>&1"

# ---- advertising ---------------------------------------------------------
nvme id-ctrl $A > idctrl.txt
oncs=$(idfield oncs < idctrl.txt)
[ $((oncs & 0x20)) = 32 ] || fail "id-ctrl ONCS $oncs lacks reservations"
nvme id-ns $A -n 1 > idns.txt
[ "$(idfield rescap < idns.txt)" = 0xff ] ||
	fail "id-ns rescap $(idfield rescap < idns.txt), want 0xff"
[ "$(idfield nmic < idns.txt)" = 0x1 ] || fail "id-ns nmic $(idfield nmic < idns.txt)"

# ---- helpers -------------------------------------------------------------
head -c 512 /dev/urandom > blk.bin
# access CTRL READ WRITE: ok or conflict for each
access() {
	local what
	for what in rd wr; do
		if [ "$what" = rd ]; then want=$2; else want=$3; fi
		if [ $want = ok ]; then
			$what $1 2> rw.err || { cat rw.err; fail "$ctx: $what by $1 refused"; }
		else
			expect_status $CONFLICT $what $1
		fi
	done
}
# notice CTRL TYPE: the next Reservation Notification log entry of CTRL
notice() {
	nvme resv-notif-log $1 -o binary > notif.bin ||
		fail "resv-notif-log $1"
	[ "$(u notif.bin 8 1)" = "$2" ] ||
		fail "$ctx: $1 notice type $(u notif.bin 8 1), want $2"
	[ "$2" = 0 ] || [ "$(u notif.bin 12 4)" = 1 ] ||
		fail "$ctx: notice nsid $(u notif.bin 12 4)"
}

# ---- register, report ----------------------------------------------------
ctx=register
report $A
[ "$(u rep.bin 0 4)" = 0 ] && [ "$(u rep.bin 4 1)" = 0 ] &&
	[ "$(u rep.bin 5 2)" = 0 ] || fail "fresh report: gen/rtype/regctl not 0"
register $A --nrkey=0xa --rrega=0 || fail "register A"
register $A --nrkey=0xa --rrega=0 || fail "register A again, same key"
expect_status $CONFLICT nvme resv-register $A -n 1 --nrkey=0xc --rrega=0
register $B --nrkey=0x5 --rrega=0 || fail "register B"
register $B --crkey=0x5 --nrkey=0xb --rrega=2 || fail "replace B's key"
expect_status $CONFLICT nvme resv-register $B -n 1 --crkey=0x5 --nrkey=0xd --rrega=2
report $B
# every successful Register counts, the one that changed nothing too
[ "$(u rep.bin 0 4)" = 4 ] || fail "generation $(u rep.bin 0 4), want 4"
[ "$(u rep.bin 5 2)" = 2 ] || fail "regctl $(u rep.bin 5 2), want 2"
[ "$(hostid_at 0)" = $ID_A ] || fail "entry 0 host ID $(hostid_at 0)"
[ "$(reg_field 0 8 4)" = 10 ] || fail "entry 0 rkey $(reg_field 0 8 4)"
[ "$(hostid_at 1)" = $ID_B ] || fail "entry 1 host ID $(hostid_at 1)"
[ "$(reg_field 1 8 4)" = 11 ] || fail "entry 1 rkey $(reg_field 1 8 4)"
[ "$(reg_field 1 0 2)" = "$(cat /sys/class/nvme/$(basename $B)/cntlid)" ] ||
	fail "entry 1 cntlid $(reg_field 1 0 2)"
# EDS=0 cannot carry 128-bit host IDs: Host Identifier Inconsistent Format
expect_status 0x4018 nvme resv-report $A -n 1 -d 63 -o binary
# a buffer of the header alone: 64 bytes, nothing past it
nvme resv-report $A -n 1 -e -d 15 -o binary > small.bin
[ "$(stat -c %s small.bin)" = 64 ] && [ "$(u small.bin 5 2)" = 2 ] ||
	fail "report into 64 bytes"

# ---- the six types -------------------------------------------------------
# access rules: READ/WRITE for B registered, then B not registered
rules() {
	case $1 in
	1) echo "ok conflict ok conflict" ;;
	2) echo "conflict conflict conflict conflict" ;;
	3) echo "ok ok ok conflict" ;;
	4) echo "ok ok conflict conflict" ;;
	5) echo "ok ok ok conflict" ;;
	6) echo "ok ok conflict conflict" ;;
	esac
}
for t in 1 2 3 4 5 6; do
	ctx="type $t"
	set -- $(rules $t)
	acquire $A --crkey=0xa --rtype=$t --racqa=0 || fail "$ctx: acquire by A"
	acquire $A --crkey=0xa --rtype=$t --racqa=0 || fail "$ctx: acquire again by A"
	report $A
	[ "$(u rep.bin 4 1)" = $t ] || fail "$ctx: rtype $(u rep.bin 4 1)"
	[ "$(reg_field 0 2 1)" = 1 ] || fail "$ctx: A does not hold"
	if [ $t -ge 5 ]; then want=1; else want=0; fi
	[ "$(reg_field 1 2 1)" = $want ] || fail "$ctx: B's rcsts $(reg_field 1 2 1)"
	access $A ok ok
	access $B $1 $2
	if [ $t -lt 5 ]; then
		expect_status $CONFLICT nvme resv-acquire $B -n 1 --crkey=0xb --rtype=$t --racqa=0
	fi
	register $B --crkey=0xb --rrega=1 || fail "$ctx: unregister B"
	access $B $3 $4
	register $B --nrkey=0xb --rrega=0 || fail "$ctx: register B again"
	expect_status 0x4002 nvme resv-release $A -n 1 --crkey=0xa --rtype=$(($t % 6 + 1)) --rrela=0
	release $A --crkey=0xa --rtype=$t --rrela=0 || fail "$ctx: release"
	if [ $t -ge 3 ]; then notice $B 2; fi
	access $B ok ok
done
notice $B 0
notice $A 0

# ---- two hosts racing for the namespace: exactly one holds it ------------
for round in 1 2 3 4 5 6 7 8; do
	ctx="race $round"
	rm -f race.a race.b
	# (set -e holds in the subshells too: the status is taken with if)
	( if acquire $A --crkey=0xa --rtype=2 --racqa=0 2> /dev/null; then echo 0; else echo 1; fi > race.a ) &
	pa=$!
	( if acquire $B --crkey=0xb --rtype=2 --racqa=0 2> /dev/null; then echo 0; else echo 1; fi > race.b ) &
	wait $pa $!
	ra=$(cat race.a) rb=$(cat race.b)
	report $A
	if [ "$ra" = 0 ] && [ "$rb" != 0 ]; then
		win=$A id=$ID_A key=0xa
	elif [ "$rb" = 0 ] && [ "$ra" != 0 ]; then
		win=$B id=$ID_B key=0xb
	else
		fail "$ctx: acquire exit statuses A $ra, B $rb: not exactly one winner"
	fi
	# the winner's entry in the report
	if [ "$(hostid_at 0)" = $id ]; then i=0; else i=1; fi
	[ "$(u rep.bin 4 1)" = 2 ] && [ "$(reg_field $i 2 1)" = 1 ] &&
		[ "$(reg_field $((1 - i)) 2 1)" = 0 ] || fail "$ctx: report does not show $id alone holding"
	[ "$(hostid_at $i)" = $id ] || fail "$ctx: holder is not the winner"
	log "$ctx: $id holds"
	release $win --crkey=$key --rtype=2 --rrela=0 || fail "$ctx: release by the winner"
done

# ---- preempt, notices, mask ----------------------------------------------
ctx=preempt
acquire $A --crkey=0xa --rtype=1 --racqa=0 || fail "acquire WE by A"
expect_status $CONFLICT nvme resv-acquire $B -n 1 --crkey=0xbad --prkey=0xa --rtype=2 --racqa=1
acquire $B --crkey=0xb --prkey=0xa --rtype=2 --racqa=1 || fail "B preempts A"
report $B
[ "$(u rep.bin 4 1)" = 2 ] && [ "$(u rep.bin 5 2)" = 1 ] &&
	[ "$(hostid_at 0)" = $ID_B ] || fail "after the preempt: not B alone holding EA"
notice $A 1
notice $A 0
access $A conflict conflict
expect_status $CONFLICT nvme resv-release $A -n 1 --crkey=0xa --rtype=2 --rrela=0
release $B --crkey=0xb --rtype=2 --rrela=0 || fail "B releases EA"
# a preempted Registrants Only reservation passes on: not released, so the
# preempting host is not told it was
register $A --nrkey=0xa --rrega=0 || fail "register A again"
acquire $A --crkey=0xa --rtype=3 --racqa=0 || fail "acquire WE-RO by A"
acquire $B --crkey=0xb --prkey=0xa --rtype=3 --racqa=1 || fail "B preempts A's WE-RO"
notice $A 1
notice $B 0
release $B --crkey=0xb --rtype=3 --rrela=0 || fail "B releases WE-RO"
# masked: no notice for a preempted registration
nvme set-feature $A -n 1 -f 0x82 -v 2 > /dev/null || fail "set notification mask"
nvme get-feature $A -n 1 -f 0x82 > feat.txt || fail "get notification mask"
grep -q "value: *0x0*2\$" feat.txt || { cat feat.txt; fail "mask reads back"; }
register $A --nrkey=0xa --rrega=0 || fail "register A again"
acquire $B --crkey=0xb --prkey=0xa --rtype=2 --racqa=1 || fail "B preempts A's registration"
notice $A 0
nvme set-feature $A -n 1 -f 0x82 -v 0 > /dev/null || fail "clear notification mask"
# clear: the others' registrations go, they are told
register $A --nrkey=0xa --rrega=0 || fail "register A for clear"
release $B --crkey=0xb --rrela=1 || fail "clear by B"
notice $A 3
report $A
[ "$(u rep.bin 4 1)" = 0 ] && [ "$(u rep.bin 5 2)" = 0 ] || fail "clear left state"

# ---- persistence ---------------------------------------------------------
ctx=ptpl
expect_status 0x4002 nvme resv-register $A -n 1 --nrkey=0xa --rrega=0 --cptpl=1
register $A --nrkey=0xa --rrega=0 --cptpl=3 || fail "register with PTPL"
report $A
[ "$(u rep.bin 9 1)" = 1 ] || fail "PTPLS not set"
nvme get-feature $A -n 1 -f 0x83 > feat.txt || fail "get-feature 0x83"
grep -q "value: *0x0*1\$" feat.txt || { cat feat.txt; fail "persistence feature"; }

# ---- preempt and abort under I/O ----------------------------------------
ctx=abort
register $B --nrkey=0xb --rrega=0 || fail "register B"
acquire $A --crkey=0xa --rtype=1 --racqa=0 || fail "acquire WE by A"
devA=$(nvme_dev_for $NQN 1)
fio --name=busy --filename=$devA --ioengine=libaio --direct=1 --rw=randwrite \
	--bs=4k --iodepth=16 --size=8M --time_based --runtime=60 \
	--output-format=terse > fio.out 2>&1 &
fpid=$!
# writes() : the namespace's write count; wait until fio's writes flow
writes() { sed -n 's/.*write_cmds=\([0-9]*\).*/\1/p' $N/stats; }
w0=$(writes)
wait_for "[ \$(writes) -gt $((w0 + 200)) ]" 300
kill -0 $fpid 2> /dev/null || { cat fio.out; fail "fio ended early"; }
acquire $B --crkey=0xb --prkey=0xa --rtype=1 --racqa=2 || fail "preempt and abort"
# the Acquire completes only after A's writes in flight did: none after it
w1=$(writes)
t0=$(date +%s)
wait $fpid && fail "fio kept writing after its host was preempted"
[ "$(writes)" = "$w1" ] ||
	fail "$(($(writes) - w1)) writes completed after the preempt and abort"
cat fio.out | head -5
log "fio failed $(($(date +%s) - t0)) s after the preempt and abort"
[ $(($(date +%s) - t0)) -lt $((30 * SCALE)) ] || fail "fio took $(($(date +%s) - t0)) s to fail"
grep -q "Invalid exchange" fio.out ||
	fail "fio's error is not the reservation conflict"
report $B
[ "$(hostid_at 0)" = $ID_B ] && [ "$(u rep.bin 5 2)" = 1 ] ||
	fail "after preempt and abort: B is not the sole registrant"
notice $A 1
access $B ok ok
release $B --crkey=0xb --rrela=1 || fail "clear"

# ---- resv_state: dump, restore, bad input --------------------------------
ctx=state
register $A --nrkey=0x1234 --rrega=0 --cptpl=2 || fail "register A"
register $B --nrkey=0xb --rrega=0 || fail "register B"
acquire $B --crkey=0xb --rtype=4 --racqa=0 || fail "acquire EA-RO by B"
cat $N/resv_state | tee state.txt
report $A
[ "$(sed -n 1p state.txt)" = "generation=$(u rep.bin 0 4) type=4 ptpl=0" ] ||
	fail "state header"
[ $(wc -l < state.txt) = 3 ] || fail "state: not one line per registrant"
grep -qx "registrant hostid=$ID_A rkey=0x0000000000001234 holder=0" state.txt ||
	fail "state: A's line"
grep -qx "registrant hostid=$ID_B rkey=0x000000000000000b holder=1" state.txt ||
	fail "state: B's line"
# resv_state is written only while the namespace is disabled
expect_fail sh -c "cat state.txt > $N/resv_state"
nvme disconnect -n $NQN > /dev/null
wait_for "! ctrl_of_host $HOST_A && ! ctrl_of_host $HOST_B"
echo 0 > $N/enable
echo "generation=1 type=0 ptpl=0" > $N/resv_state || fail "write an empty state"
[ "$(cat $N/resv_state)" = "generation=1 type=0 ptpl=0" ] || fail "empty state"
cat state.txt > $N/resv_state || fail "restore the dump"
cmp state.txt $N/resv_state || fail "restored state differs"
bad() {
	log "bad state: $1"
	expect_fail sh -c "printf '$1' > $N/resv_state"
	cmp -s state.txt $N/resv_state || fail "bad state ($1) changed the state"
}
bad "generation=1 type=7 ptpl=0\n"
bad "generation=1 type=1 ptpl=0\n"
bad "generation=1 type=0 ptpl=2\n"
bad "generation=1 type=1 ptpl=0\nregistrant hostid=$ID_A rkey=0x0000000000000001 holder=1\nregistrant hostid=$ID_B rkey=0x0000000000000002 holder=1\n"
bad "generation=1 type=0 ptpl=0\nregistrant hostid=$ID_A rkey=0x1 holder=0\n"
bad "generation=1 type=0 ptpl=0\nregistrant hostid=$ID_A rkey=0x0000000000000001 holder=0\nregistrant hostid=$ID_A rkey=0x0000000000000002 holder=0\n"
bad "generation=1 type=5 ptpl=0\nregistrant hostid=$ID_A rkey=0x0000000000000001 holder=1\nregistrant hostid=$ID_B rkey=0x0000000000000002 holder=0\n"
bad "generation=1 type=0 ptpl=0 extra=1\n"
bad "generation=1 type=0 ptpl=0\n\000junk\n"
bad "garbage\n"
echo 1 > $N/enable
# the restored reservation holds for the hosts
connect_as $HOST_A $ID_A 4420
connect_as $HOST_B $ID_B 4421
A=$(ctrl_of_host $HOST_A)
B=$(ctrl_of_host $HOST_B)
wait_for "nvme id-ns $A -n 1 > /dev/null 2>&1 && nvme id-ns $B -n 1 > /dev/null 2>&1"
report $A
[ "$(u rep.bin 4 1)" = 4 ] && [ "$(u rep.bin 5 2)" = 2 ] ||
	fail "restored reservation not reported"
access $A ok ok
access $B ok ok
release $B --crkey=0xb --rtype=4 --rrela=0 || fail "release the restored reservation"
notice $A 2

# ---- malformed reservation commands from the wire client -------------------
ctx=wire
nvmf-wire -a $TRADDR -s 4420 -n $NQN -t 60 resv-bad > wire.out 2>&1 || true
cat wire.out
grep -qx "PASS resv-bad" wire.out || fail "nvmf-wire resv-bad: $(grep FAIL wire.out)"
report $A
[ "$(u rep.bin 5 2)" = 2 ] || fail "the wire client left a registration"
nvme disconnect -n $NQN > /dev/null
wait_for "! ctrl_of_host $HOST_A && ! ctrl_of_host $HOST_B"
echo 0 > $N/enable
echo 0 > $N/resv_enable
[ "$(cat $N/resv_state)" = "generation=0 type=0 ptpl=0" ] ||
	fail "resv_enable=0 kept the state"
# and only while reservations are on
expect_fail sh -c "cat state.txt > $N/resv_state"
purlin_clear
nullblk_destroy resvnb
