# SPDX-License-Identifier: GPL-2.0
# ANA and native multipath: one subsystem on two ports, the host connected
# through both; making a port's ANA group inaccessible moves I/O to the
# other path while fio verifies, with no errors: each flip waits until the
# host sees the state, then until the other port's controller completed
# commands while this one completed none; ANA log, group ids and states as
# configured.
# timeout: 300

NQN=nqn.2026-11.io.purlin.test:ana
brd_create 32
purlin_export $NQN /dev/ram0 1 4420
purlin_port 2 4421
purlin_link 2 $NQN
A1=$PURLIN_CFS/ports/1/ana_groups/1/ana_state
A2=$PURLIN_CFS/ports/2/ana_groups/1/ana_state
[ "$(cat $A1)" = optimized ] || fail "default group state"
[ "$(cat $PURLIN_CFS/subsystems/$NQN/namespaces/1/ana_grpid)" = 1 ] || fail "default ana_grpid"
expect_fail sh -c "echo sideways > $A1"
expect_fail rmdir $PURLIN_CFS/ports/1/ana_groups/1

nvme_connect $NQN 4420 > /dev/null
nvme connect -t rdma -a $TRADDR -s 4421 -n $NQN > /dev/null
dev=$(nvme_dev_for $NQN)
head=$(basename $dev)
wait_for "[ \$(ls -d /sys/block/nvme*c*n1 2>/dev/null | wc -l) -eq 2 ]" 100
paths=$(ls -d /sys/block/nvme*c*n1 | xargs -n1 basename)
log "head $head, paths: $paths"
[ "$(echo $paths | wc -w)" = 2 ] || fail "expected two paths"
for p in $paths; do
	[ "$(cat /sys/block/$p/ana_state)" = optimized ] || fail "$p not optimized"
done
# path nvmeXcYnZ belongs to controller nvmeY
first=${paths%% *}
nvme ana-log /dev/nvme$(echo $first | sed 's/^nvme[0-9]*c\([0-9]*\)n.*/\1/') > ana.txt
cat ana.txt
grep -q "grpid[[:space:]]*:[[:space:]]*1$" ana.txt || fail "ANA log lacks group 1"
grep -q "state[[:space:]]*:[[:space:]]*optimized" ana.txt || fail "ANA log state"

# path_of_port PORT: the path device through that port (nvmeXcYn1 is a
# path of controller nvmeY, whose address names the service id).
path_of_port() {
	local p c
	for p in $paths; do
		c=nvme${p#nvme*c}
		c=${c%n*}
		if grep -q "trsvcid=$(( $1 == 1 ? 4420 : 4421 ))" /sys/class/nvme/$c/address; then
			echo $p
		fi
	done
}
# cmds_on PORT: commands the target completed successfully on its
# controller through PORT (reads + writes; refused ones are not counted).
CTRLS=$PURLIN_CFS/subsystems/$NQN/controllers
cmds_on() {
	sed -n "s/.* port=$1 .* read_cmds=\([0-9]*\) .* write_cmds=\([0-9]*\) .*/\1 \2/p" $CTRLS |
		awk '{ n += $1 + $2 } END { print n + 0 }'
}
# flip PORT OTHER ATTR: PORT's group inaccessible until the host saw it and
# OTHER carried I/O, with none on PORT meanwhile; then optimized again.
flip() {
	local p before other0
	p=$(path_of_port $1)
	[ -n "$p" ] || fail "no path through port $1"
	echo inaccessible > $3
	wait_for "[ \$(cat /sys/block/$p/ana_state) = inaccessible ]" 100
	before=$(cmds_on $1)
	other0=$(cmds_on $2)
	wait_for "[ \$(cmds_on $2) -ge $((other0 + 20)) ]" 300
	[ "$(cmds_on $1)" = "$before" ] ||
		fail "port $1 carried I/O while inaccessible ($before -> $(cmds_on $1))"
	echo optimized > $3
	wait_for "[ \$(cat /sys/block/$p/ana_state) = optimized ]" 100
	log "port $1 inaccessible: port $2 carried $(($(cmds_on $2) - other0))+ commands, port $1 none"
}

log "fail over between ports under fio verify"
fio --name=mp --filename="$dev" --ioengine=libaio --direct=1 --rw=randwrite \
	--bs=4k --iodepth=8 --size=16M --loops=8 --verify=crc32c \
	--verify_fatal=1 --do_verify=1 > fio.out 2>&1 &
fiopid=$!
wait_for "[ \$(cmds_on 1) -gt 0 ] || [ \$(cmds_on 2) -gt 0 ]" 300
for step in 1 2 3; do
	flip 1 2 $A1
	flip 2 1 $A2
done
wait $fiopid || { cat fio.out; fail "fio saw errors during failover"; }
grep -q "err= 0" fio.out || { cat fio.out; fail "fio reported errors"; }

log "non-optimized and a second group"
mkdir $PURLIN_CFS/ports/1/ana_groups/2
echo non-optimized > $PURLIN_CFS/ports/1/ana_groups/2/ana_state
echo 2 > $PURLIN_CFS/subsystems/$NQN/namespaces/1/ana_grpid
wait_for "grep -q non-optimized /sys/block/nvme*c*n1/ana_state" 100
fio_verify "$dev" 4k 8 4M
echo 1 > $PURLIN_CFS/subsystems/$NQN/namespaces/1/ana_grpid

nvme disconnect -n $NQN > /dev/null
wait_for "nvme_ns_gone $NQN"
purlin_clear
