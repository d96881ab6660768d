# SPDX-License-Identifier: GPL-2.0
# The stock host discovers Purlin, connects, moves verified data and
# disconnects; everything Purlin created is freed.
# timeout: 300

NQN=nqn.2026-11.io.purlin.test:connect
brd_create 64
purlin_export $NQN /dev/ram0 1

log "discover"
nvme discover -t rdma -a $TRADDR -s 4420 > disc.txt
cat disc.txt
grep -q "subnqn: *$NQN" disc.txt || fail "subsystem not in discovery log"

log "connect"
nvme connect -t rdma -a $TRADDR -s 4420 -n $NQN
wait_for "nvme_dev_for $NQN"
ndev=$(nvme_dev_for $NQN)
log "connected as $ndev"
nvme list

log "fio verify 4k qd16"
fio_verify "$ndev" 4k 16 16M
log "fio verify 128k qd4"
fio_verify "$ndev" 128k 4 16M

log "disconnect"
nvme disconnect -n $NQN | grep -q "disconnected 1 controller" ||
	fail "disconnect did not disconnect one controller"
wait_for "nvme_ns_gone $NQN"
purlin_clear
