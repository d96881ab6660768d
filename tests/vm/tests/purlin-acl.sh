# SPDX-License-Identifier: GPL-2.0
# Host access control: a host not in allowed_hosts is refused (Connect
# Invalid Host, as the host and the target both log), an allowed
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

# not_allowed HOSTNQN [nvme connect options]: the connect fails with Connect
# Invalid Host (0x184), which the Linux host logs as "not allowed", and the
# target logs the refusal with both NQNs.
marks=0
not_allowed() {
	local host=$1 hmsg tmsg
	shift
	hmsg="Connect for subsystem $NQN is not allowed, hostnqn: $host"
	tmsg="connect from $host to $NQN refused: host not allowed"
	marks=$((marks + 1))
	kmark acl$marks
	expect_fail nvme connect -t rdma -a $TRADDR -s 4420 -n $NQN "$@"
	since_mark acl$marks | grep -qF "$hmsg" ||
		fail "the host did not get Connect Invalid Host: $(dmesg | tail -n 3)"
	since_mark acl$marks | grep -qF "$tmsg" || fail "the target did not log the refusal"
}

log "no host allowed: refused, and not in the discovery log"
not_allowed $HOSTNQN
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
not_allowed $OTHER --hostnqn=$OTHER --hostid=$OTHERID

log "remove the allowed host: refused again"
rm $S/allowed_hosts/$HOSTNQN
not_allowed $HOSTNQN

log "allow any host"
echo 1 > $S/attr_allow_any_host
nvme connect -t rdma -a $TRADDR -s 4420 -n $NQN --hostnqn=$OTHER \
	--hostid=$OTHERID > /dev/null
wait_for "nvme_dev_for $NQN"
nvme_disconnect $NQN
rmdir $PURLIN_CFS/hosts/$HOSTNQN
purlin_clear
