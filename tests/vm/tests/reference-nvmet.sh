# SPDX-License-Identifier: GPL-2.0
# Linux's own nvmet-rdma target through the stock host: discover, connect,
# fio verify, disconnect.  Proves the harness and is Purlin's reference.
# timeout: 240

NQN=nqn.2026-11.io.purlin.test:reference
dev=$(nullblk_create refnb 256)
nvmet_export $NQN "$dev" 1

log "discover"
nvme discover -t rdma -a $TRADDR -s 4420 > disc.txt
cat disc.txt
grep -q "subnqn: *$NQN" disc.txt || fail "subsystem not in discovery log"
grep -q "trtype: *rdma" disc.txt || fail "trtype not rdma"

log "connect"
nvme connect -t rdma -a $TRADDR -s 4420 -n $NQN
wait_for "nvme_dev_for $NQN"
ndev=$(nvme_dev_for $NQN)
log "connected as $ndev"
nvme list

log "fio verify 4k"
fio_verify "$ndev" 4k 16 16M

log "disconnect"
nvme disconnect -n $NQN | grep -q "disconnected 1 controller" ||
	fail "disconnect did not disconnect one controller"
wait_for "nvme_ns_gone $NQN"
nvmet_unexport $NQN 1
nullblk_destroy refnb
