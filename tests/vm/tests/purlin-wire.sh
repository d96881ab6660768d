# SPDX-License-Identifier: GPL-2.0
# Wire-level NVMe/RDMA scenarios from a userspace client (tests/fuzz/nvmf-wire):
# deep queues, CM rejects, bad Connects, bad SGLs and I/O, short capsules,
# abrupt disconnects, flooding.  Afterwards every controller, queue and
# request is freed, the data pool is whole again, and the stock host still
# connects and moves verified data.
# timeout: 300

NQN=nqn.2026-11.io.purlin.test:wire

brd_create 64
purlin_subsys $NQN
purlin_ns $NQN 1 /dev/ram0
purlin_port 1
echo 1024 > $PURLIN_CFS/ports/1/param_max_queue_size
purlin_link 1 $NQN
live0=$(cat $LIVE)
log "live before: $live0"
pool0=$(echo "$live0" | sed -n 's/.*pool_free=\([0-9]*\).*/\1/p')

# Teardown is asynchronous: wait (up to 10 s) until nothing is left.
idle() {
	grep -q 'ctrls=0 queues=0 reqs=0' $LIVE &&
		[ "$(sed -n 's/.*pool_free=\([0-9]*\).*/\1/p' $LIVE)" = "$pool0" ]
}
wait_idle() {
	local n=100
	while [ $n -gt 0 ] && ! idle; do
		sleep 0.1
		n=$((n - 1))
	done
	idle || fail "objects left $1: $(cat $LIVE) (before: $live0)"
}

log "nvmf-wire all"
# Streamed, so a guest timeout still shows how far it got.
{ nvmf-wire -a $TRADDR -s 4420 -n $NQN -t 100 all 2>&1 &&
	echo "nvmf-wire exit 0" || echo "nvmf-wire exit $?"; } | tee wire.out
grep -E '^(PASS|FAIL) |^note: ' wire.out | grep -v ': took ' |
	while read -r line; do report "$line"; done
rc=$(sed -n 's/^nvmf-wire exit //p' wire.out)
grep -q '^PASS ' wire.out || fail "nvmf-wire ran no scenario"

log "waiting for teardown"
wait_idle "after nvmf-wire"
log "live after nvmf-wire: $(cat $LIVE)"

log "stock host still works"
dev=$(nvme_connect $NQN 4420)
fio_verify "$dev" 4k 16 8M
nvme_disconnect $NQN
wait_idle "after nvme disconnect"
log "live at the end: $(cat $LIVE)"
purlin_clear
[ "$rc" = 0 ] || fail "nvmf-wire failed (exit ${rc:-?}): $(grep '^FAIL ' wire.out | cut -c1-300)"
