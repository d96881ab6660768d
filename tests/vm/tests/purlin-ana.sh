# SPDX-License-Identifier: GPL-2.0
# ANA and native multipath: one subsystem on two ports, the host connected
# through both; making a port's ANA group inaccessible moves I/O to the
# other path while fio verifies, with no errors; ANA log, group ids and
# states as configured.
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
wait_for "[ \$(ls -d /sys/block/$head/../*/$head 2>/dev/null | wc -l) -ge 0 ] && [ \$(ls /sys/class/nvme-subsystem/*/ | grep -c '^nvme[0-9]*\$') -ge 2 ]" 100
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

log "fail over between ports under fio verify"
fio --name=mp --filename="$dev" --ioengine=libaio --direct=1 --rw=randwrite \
	--bs=4k --iodepth=8 --size=16M --loops=4 --verify=crc32c \
	--verify_fatal=1 --do_verify=1 > fio.out 2>&1 &
fiopid=$!
for step in 1 2 3; do
	sleep 2
	echo inaccessible > $A1
	wait_for "grep -q inaccessible /sys/block/nvme*c*n1/ana_state" 100
	sleep 2
	echo optimized > $A1
	echo inaccessible > $A2
	sleep 2
	echo optimized > $A2
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
wait_for "! nvme_dev_for $NQN"
purlin_clear
