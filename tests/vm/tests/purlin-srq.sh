# SPDX-License-Identifier: GPL-2.0
# Shared receive queues (param_srq_size): the I/O queues of a port share
# one SRQ per RDMA device; data verifies through it at full queue depth,
# in-capsule writes included; one SRQ serves two controllers, whose queues
# together hold twice its size; a port without one, beside it, keeps its
# own buffers; hostile capsules (before Connect, past the queue size,
# short) cost the SRQ nothing; teardown under I/O gives every buffer back
# and frees the SRQ with its last queue.  (Not tested: hosts waiting out
# receiver-not-ready NAKs when the SRQ is empty.  Soft-RoCE's requester
# replays the host's fast-registration WRs after an RNR NAK and the host's
# queue fails: Documentation/testing.md.)
# timeout: 420

NQN=nqn.2026-12.io.purlin.test:srq
NQN2=nqn.2026-12.io.purlin.test:srq2
P1=$PURLIN_CFS/ports/1

brd_create 64 2
purlin_subsys $NQN
purlin_ns $NQN 1 /dev/ram0
purlin_subsys $NQN2
purlin_ns $NQN2 1 /dev/ram1
purlin_port 1

log "configfs: param_srq_size is 0 by default; 1..15, past 4096, junk refused"
[ "$(cat $P1/param_srq_size)" = 0 ] || fail "param_srq_size default $(cat $P1/param_srq_size)"
for v in 1 15 4097 -2 abc 0x; do
	expect_fail sh -c "echo '$v' > $P1/param_srq_size" 2> /dev/null
	[ "$(cat $P1/param_srq_size)" = 0 ] || fail "refused '$v' changed param_srq_size"
done
echo 16 > $P1/param_srq_size
echo -1 > $P1/param_srq_size
[ "$(cat $P1/param_srq_size)" = 0 ] || fail "-1 is not the default (0)"
# As many receive buffers as one controller's two queues of 128 hold.
echo 256 > $P1/param_srq_size
purlin_link 1 $NQN
purlin_link 1 $NQN2
expect_fail sh -c "echo 64 > $P1/param_srq_size" 2> /dev/null
[ "$(cat $P1/param_srq_size)" = 256 ] || fail "an enabled port's param_srq_size changed"
[ "$(live srqs)" = 0 ] || fail "an SRQ before any queue: $(purlin_live)"

log "one controller, two I/O queues of 128 on an SRQ of 256"
dev=$(nvme_connect $NQN 4420 --nr-io-queues=2 --queue-size=128)
[ "$(live srqs)" = 1 ] || fail "want one SRQ: $(purlin_live)"
fio_verify "$dev" 4k 128 8M
fio_verify "$dev" 128k 16 16M
# 4 KiB writes at the port's default inline size travel in the capsule
fio_verify "$dev" 4k 1 2M
await "[ \$(live srq_held) = 0 ]" 100 "shared buffers not back after the I/O"

log "a second controller shares the SRQ"
dev2=$(nvme_connect $NQN2 4420 --nr-io-queues=2 --queue-size=128)
[ "$(live srqs)" = 1 ] || fail "two controllers, want one SRQ: $(purlin_live)"
fio_verify "$dev2" 4k 64 4M

log "a port without an SRQ beside it keeps its own receive buffers"
purlin_port 2 4421
purlin_link 2 $NQN2
dev3=$(nvme_connect $NQN2 4421 --nr-io-queues=1)
[ "$(live srqs)" = 1 ] || fail "port 2 must not make an SRQ: $(purlin_live)"
nvme disconnect -d $(basename $(ctrl_of $dev3)) > /dev/null
nvme_disconnect $NQN2
await "[ \$(live srqs) = 1 ] && [ \$(live ctrls) = 1 ]" 200 \
	"controller 2 gone, the SRQ stays with controller 1"

log "hostile capsules on the SRQ's queues cost it nothing"
nvmf-wire -a $TRADDR -s 4420 -n $NQN -t 100 cmd-before-connect too-many \
	short-capsule io-bad > wire.out 2>&1 || { cat wire.out; fail "nvmf-wire failed"; }
[ "$(grep -c '^PASS ' wire.out)" = 4 ] || { cat wire.out; fail "nvmf-wire: not 4 scenarios passed"; }
# every buffer is back: none held with nothing in flight, and the host's
# queues still move data at full depth
await "[ \$(live srq_held) = 0 ]" 100 "shared buffers not back after the hostile capsules"
fio_verify "$dev" 4k 128 8M
await "[ \$(live srq_held) = 0 ]" 100 "shared buffers not back after fio"

log "teardown under I/O: every buffer back, the SRQ freed with its last queue"
bgv_start "$dev" 0 8M
sleep 2
t0=$(uptime_s)
nvme disconnect -n $NQN > /dev/null
wait_for "nvme_ns_gone $NQN" 300
# the background writer fails with its device: do not wait for a run
touch "$BGV_TAG.stop"
wait $BGV_PID 2> /dev/null || true
purlin_assert_idle "" "after the disconnect"
t=$(($(uptime_s) - t0))
log "disconnect under I/O to an idle target: ${t}s"
[ "$(live srqs)" = 0 ] || fail "the SRQ outlived its last queue: $(purlin_live)"

log "connect again: a new SRQ, data moves"
dev=$(nvme_connect $NQN 4420 --nr-io-queues=2 --queue-size=128)
[ "$(live srqs)" = 1 ] || fail "want one SRQ again: $(purlin_live)"
fio_verify "$dev" 4k 32 4M
nvme_disconnect $NQN
purlin_clear
