# SPDX-License-Identifier: GPL-2.0
# Limits the stock host runs into:
# - attr_cntlid_min/max: controller IDs the host is given lie in the range
#   (Identify CNTLID and the host's sysfs agree); when the range is used up
#   the next host's Connect is refused with Controller Busy, the controllers
#   already there keep working, and a freed ID is handed out again; a range
#   of one ID (the largest valid, 0xffef) admits exactly one controller;
# - 1024 namespaces: namespaces 1-1024 can be created and enabled, 1025 is
#   refused (EINVAL), NN and MNAN are 1024, and the host sees all 1024
#   (active namespace list, one block device each, I/O on the last one).
# timeout: 360

NQN=nqn.2026-11.io.purlin.test:limits
S=$PURLIN_CFS/subsystems/$NQN
T_START=$(date +%s)
part() { log "[$(($(date +%s) - T_START))s] $*"; }

# await_secs COND SECONDS WHY: poll COND (every second) for SECONDS (times
# the harness's time factor) of wall time; COND may itself take a while.
await_secs() {
	local end=$(($(date +%s) + $2 * ${SCALE:-1}))
	while ! eval "$1" > /dev/null 2>&1; do
		[ "$(date +%s)" -lt $end ] || fail "$3 (after $(($2 * ${SCALE:-1})) s; live: $(purlin_live))"
		sleep 1
	done
}

# hostnqn_n N / hostid_n N: the identity of test host N
hostid_n() { printf '6a0d3a3e-8f1c-4c55-9d2b-5c1c9d6b1%03d' "$1"; }
hostnqn_n() { echo "nqn.2014-08.org.nvmexpress:uuid:$(hostid_n $1)"; }

# connect_as N: connect as test host N (one I/O queue) through port N
# (service 4419 + N: nvme-cli takes a second connection to the same
# address and subsystem for a duplicate, whatever the host NQN); prints
# the controller ID.
connect_as() {
	local h c
	h=$(hostnqn_n $1)
	nvme connect -t rdma -a $TRADDR -s $((4419 + $1)) -n $NQN --hostnqn=$h \
		--hostid=$(hostid_n $1) --nr-io-queues=1 > /dev/null
	wait_for "ctrl_of_host $NQN $h" 100
	c=$(ctrl_of_host $NQN $h)
	wait_for "[ \$(cat /sys/class/nvme/$c/state) = live ]" 100
	cat /sys/class/nvme/$c/cntlid
}

# refused_as N: test host N's Connect must fail with Controller Busy.
refused_as() {
	local h
	h=$(hostnqn_n $1)
	# a mark, not a line count: the ring buffer is full in a long boot
	kmark "limits-refused-$1-$$"
	if nvme connect -t rdma -a $TRADDR -s $((4419 + $1)) -n $NQN --hostnqn=$h \
		--hostid=$(hostid_n $1) --nr-io-queues=1 > conn.out 2>&1; then
		fail "host $1 connected beyond the cntlid range"
	fi
	since_mark "limits-refused-$1-$$" > conn.dmesg
	cat conn.out conn.dmesg
	# Connect Controller Busy (0x181) with DNR: 0x4181 = 16769, which the
	# host prints as "failed to connect queue: 0 ret=16769" after
	# "Connect command failed: controller is busy or not available".
	grep -q "Connect command failed: controller is busy or not available" conn.dmesg ||
		fail "host $1: the refusal is not Controller Busy"
	grep -q "failed to connect queue: 0 ret=16769\$" conn.dmesg ||
		fail "host $1: the admin Connect's status is not Controller Busy with DNR (0x4181)"
	if ctrl_of_host $NQN $h > /dev/null; then fail "host $1 has a controller"; fi
}

# reads_on CNTLID: read_cmds of the target's controller CNTLID
reads_on() { sed -n "s/^cntlid=$1 .* read_cmds=\([0-9]*\) .*/\1/p" $S/controllers; }

# read_through CNTLID HOSTNQN: a passthrough read on that controller only
read_through() {
	local c r0
	c=$(ctrl_of_host $NQN $2)
	r0=$(reads_on $1)
	nvme io-passthru /dev/$c --opcode=0x02 --namespace-id=1 --data-len=4096 \
		--read --cdw12=7 > pt.out 2>&1 || { cat pt.out; fail "read through controller $1 ($c)"; }
	[ "$(reads_on $1)" = $((r0 + 1)) ] || fail "controller $1 did not serve the read"
}

part "attr_cntlid_min/max 0x100-0x102: three controllers, then Controller Busy"
brd_create 16
purlin_subsys $NQN
expect_fail sh -c "echo 0 > $S/attr_cntlid_min"
expect_fail sh -c "echo 0xfff0 > $S/attr_cntlid_max"
echo 0x102 > $S/attr_cntlid_max
echo 0x100 > $S/attr_cntlid_min
[ "$(cat $S/attr_cntlid_min)" = 256 ] || fail "cntlid_min readback"
[ "$(cat $S/attr_cntlid_max)" = 258 ] || fail "cntlid_max readback"
expect_fail sh -c "echo 0x103 > $S/attr_cntlid_min"
purlin_ns $NQN 1 /dev/ram0
for p in 1 2 3 4; do
	purlin_port $p $((4419 + p))
	purlin_link $p $NQN
done
ids=""
for h in 1 2 3; do
	id=$(connect_as $h)
	[ "$id" -ge 256 ] && [ "$id" -le 258 ] || fail "host $h got cntlid $id, outside 256-258"
	c=$(ctrl_of_host $NQN $(hostnqn_n $h))
	[ "$(nvme id-ctrl /dev/$c | idfield cntlid)" = $(printf '0x%x' $id) ] ||
		fail "host $h: id-ctrl cntlid $(nvme id-ctrl /dev/$c | idfield cntlid), sysfs $id"
	grep -q "^cntlid=$id host=$(hostnqn_n $h) " $S/controllers || fail "controllers: $(cat $S/controllers)"
	case " $ids " in *" $id "*) fail "cntlid $id handed out twice" ;; esac
	ids="$ids $id"
done
log "cntlids:$ids"
refused_as 4
[ "$(wc -l < $S/controllers)" = 3 ] || fail "controllers after the refusal: $(cat $S/controllers)"
set -- $ids
read_through $1 $(hostnqn_n 1)
read_through $3 $(hostnqn_n 3)
# Host 2 leaves: its ID is the only free one, host 4 gets it.
nvme disconnect -d $(ctrl_of_host $NQN $(hostnqn_n 2)) > /dev/null
wait_for "! grep -q '^cntlid=$2 ' $S/controllers" 100
id=$(connect_as 4)
[ "$id" = "$2" ] || fail "host 4 got cntlid $id, want the freed $2"
read_through $id $(hostnqn_n 4)
nvme disconnect -n $NQN > /dev/null
wait_for "! ctrl_of_host $NQN $(hostnqn_n 1) && ! ctrl_of_host $NQN $(hostnqn_n 3) && ! ctrl_of_host $NQN $(hostnqn_n 4)" 100
purlin_assert_idle "" "after the cntlid range test"

part "a range of one ID, 0xffef: one controller; the second host is refused"
echo 0xffef > $S/attr_cntlid_max
echo 0xffef > $S/attr_cntlid_min
id=$(connect_as 1)
[ "$id" = 65519 ] || fail "cntlid $id, want 65519 (0xffef)"
refused_as 2
read_through 65519 $(hostnqn_n 1)
fio_verify "$(nvme_dev_for $NQN)" 4k 8 2M
nvme disconnect -n $NQN > /dev/null
wait_for "! ctrl_of_host $NQN $(hostnqn_n 1)" 100
purlin_clear
rmmod brd

part "1024 namespaces"
# Every namespace is the same 1 MiB RAM disk (Purlin opens devices shared):
# the limit and the host's view are under test, not 1024 devices.
brd_create 1
purlin_subsys $NQN
t0=$(date +%s)
i=1
while [ $i -le 1024 ]; do
	mkdir $S/namespaces/$i
	echo /dev/ram0 > $S/namespaces/$i/device_path
	echo 1 > $S/namespaces/$i/enable
	i=$((i + 1))
done
log "1024 namespaces created and enabled in $(($(date +%s) - t0)) s"
[ "$(live namespaces)" = 1024 ] || fail "live namespaces $(live namespaces)"
if mkdir $S/namespaces/1025 2> mk.err; then fail "namespace 1025 was created"; fi
grep -q "Invalid argument" mk.err || fail "mkdir 1025: $(cat mk.err), want EINVAL"
[ ! -e $S/namespaces/1025 ] || fail "namespaces/1025 exists"
purlin_port 1
purlin_link 1 $NQN
t0=$(date +%s)
nvme connect -t rdma -a $TRADDR -s 4420 -n $NQN --nr-io-queues=1 > /dev/null
# host_ns: the namespace block devices the host made for the subsystem
host_ns() {
	local s
	for s in /sys/class/nvme-subsystem/nvme-subsys*; do
		[ "$(cat "$s/subsysnqn" 2>/dev/null)" = $NQN ] || continue
		ls -d "$s"/nvme*n* "$s"/nvme*/nvme*n* 2>/dev/null | sed 's|.*/||' |
			grep -v 'c[0-9]*n' | sort -u | wc -l
		return 0
	done
	echo 0
}
await_secs "[ \$(host_ns) = 1024 ]" 180 "the host does not have 1024 namespace devices"
log "host connected and has 1024 namespace devices after $(($(date +%s) - t0)) s"
c=$(ctrl_of_host $NQN $HOSTNQN)
nvme id-ctrl /dev/$c > id.txt
[ "$(idfield nn < id.txt)" = 1024 ] || fail "id-ctrl nn $(idfield nn < id.txt)"
[ "$(idfield mnan < id.txt)" = 1024 ] || fail "id-ctrl mnan $(idfield mnan < id.txt)"
nvme list-ns /dev/$c > ns.txt
[ "$(grep -c '^\[ *[0-9]*\]:0x' ns.txt)" = 1024 ] || fail "list-ns has $(grep -c ':0x' ns.txt) entries"
tail -n1 ns.txt | grep -q ':0x400$' || fail "last active nsid: $(tail -n1 ns.txt)"
# The list from nsid 1022 on: 1023 and 1024 only.
# From nsid 1023 on (nvme-cli asks for the IDs above 1022): 1023 and 1024.
nvme list-ns /dev/$c --namespace-id=1023 > ns2.txt
[ "$(sed -n 's/^\[ *[0-9]*\]://p' ns2.txt | tr '\n' ' ')" = "0x3ff 0x400 " ] ||
	fail "list-ns from 1023: $(cat ns2.txt)"
d=$(nvme_dev_for $NQN 1024)
[ "$(cat /sys/block/$(basename $d)/size)" = 2048 ] || fail "namespace 1024 capacity"
fio_verify "$d" 4k 8 1M
# Removing 2048 disks (heads and paths) and 1024 namespaces waits for an
# RCU grace period many times over: expedited ones are much shorter under
# emulation.
rcu_exp=$(cat /sys/kernel/rcu_expedited)
echo 1 > /sys/kernel/rcu_expedited
t0=$(date +%s)
# nvme-cli 2.3 cannot: "failed to disconnect, error 24" (EMFILE; libnvme
# opens every namespace).  The host's own interface:
echo 1 > /sys/class/nvme/$c/delete_controller
await_secs "[ \$(host_ns) = 0 ]" 180 "the host kept namespace devices after the disconnect"
log "disconnect with 1024 namespaces took $(($(date +%s) - t0)) s"
t0=$(date +%s)
purlin_clear
log "removing 1024 namespaces took $(($(date +%s) - t0)) s"
echo $rcu_exp > /sys/kernel/rcu_expedited
part "done"
