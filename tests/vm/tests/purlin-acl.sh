# SPDX-License-Identifier: GPL-2.0
# Host access control: a host not in allowed_hosts is refused, an allowed
# one connects, attr_allow_any_host opens the subsystem to everyone; the
# discovery log only lists what the asking host may use.
# timeout: 180

NQN=nqn.2026-11.io.purlin.test:acl
OTHER=nqn.2014-08.org.nvmexpress:uuid:00000000-1111-2222-3333-444444444444
OTHERID=00000000-1111-2222-3333-444444444444
S=$PURLIN_CFS/subsystems/$NQN
brd_create 16
purlin_subsys $NQN
echo 0 > $S/attr_allow_any_host
purlin_ns $NQN 1 /dev/ram0
purlin_port 1
purlin_link 1 $NQN

log "no host allowed: refused, and not in the discovery log"
expect_fail nvme connect -t rdma -a $TRADDR -s 4420 -n $NQN
nvme discover -t rdma -a $TRADDR -s 4420 > disc.txt
! grep -q "subnqn: *$NQN" disc.txt || fail "refused host sees the subsystem"

log "allow this host"
mkdir $PURLIN_CFS/hosts/$HOSTNQN
ln -s $PURLIN_CFS/hosts/$HOSTNQN $S/allowed_hosts/$HOSTNQN
log "allow_any_host refused while allowed_hosts is not empty"
expect_fail sh -c "echo 1 > $S/attr_allow_any_host"
nvme discover -t rdma -a $TRADDR -s 4420 | grep -q "subnqn: *$NQN" ||
	fail "allowed host does not see the subsystem"
dev=$(nvme_connect $NQN)
fio_verify "$dev" 4k 8 2M
nvme_disconnect $NQN

log "another host is still refused"
expect_fail nvme connect -t rdma -a $TRADDR -s 4420 -n $NQN \
	--hostnqn=$OTHER --hostid=$OTHERID

log "remove the allowed host: refused again"
rm $S/allowed_hosts/$HOSTNQN
expect_fail nvme connect -t rdma -a $TRADDR -s 4420 -n $NQN

log "allow any host"
echo 1 > $S/attr_allow_any_host
nvme connect -t rdma -a $TRADDR -s 4420 -n $NQN --hostnqn=$OTHER \
	--hostid=$OTHERID > /dev/null
wait_for "nvme_dev_for $NQN"
nvme_disconnect $NQN
rmdir $PURLIN_CFS/hosts/$HOSTNQN
purlin_clear
