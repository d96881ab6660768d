# SPDX-License-Identifier: GPL-2.0
# Fault injection under load (issue #9): link flaps of the RoCE netdev
# (`ip link set eth0 down; sleep; up`) with crc32c-verified fio running.
#
# What soft-RoCE does on link down in one guest (Debian 6.1): rxe reports
# the port DOWN (IB_EVENT_PORT_ERR, `rdma link` state DOWN) and, since each
# packet it sends needs a route out of eth0 (even to its own address), every
# send fails at once with "local QP operation error".  Neither Purlin nor
# the host acts on the port event itself.  So:
#   - idle flap (nothing in flight, no keep-alive due): nothing is sent,
#     nothing fails: controller, queues and cntlid survive, I/O goes on.
#   - flap under I/O: the first send on each side fails, both sides drop
#     their queues (Purlin logs "send failed ... disconnecting"; the idle
#     admin queue goes by keep-alive), the target frees controller and
#     queues, the host holds fio's I/O (native multipath requeues it) and
#     reconnects after its reconnect delay; nothing reaches the namespace
#     while the link is down; after link up I/O resumes, fio sees no error.
# And a 6.1 rxe defect: a CM message (MAD) sent while the link is down --
# the disconnects both sides send at once -- fails; the MAD layer moves
# QP1 from SQE back to RTS, which in rxe resets the requester but leaves
# QP1's responder in the error state, and rxe drops every packet arriving
# for QP1 from then on (check_type_state): no RDMA CM connection can be
# made on rxe0 until it is re-created.  After each flap an rping probe
# checks the CM; if it fails with exactly that signature (rxe sent packets,
# received none), rxe0 is re-created (as an operator would); a probe
# failing any other way, or failing after an idle flap, fails the test.
# On 7.2 the same flap leaves QP1 in the error state altogether: rxe then
# sends nothing for the CM (also with Linux's nvmet as the target); that
# signature (nothing sent, QP1 in ERR) is excused the same way.
# timeout: 300

timed_log

NQN=nqn.2026-11.io.purlin.test:fault-link
NS=$PURLIN_CFS/subsystems/$NQN/namespaces/1

commands() {
	tr ' ' '\n' < $NS/stats |
		awk -F= '/^(read|write)_cmds=/ { s += $2 } END { print s + 0 }'
}
state() { cat /sys/class/nvme/$ctrl/state; }
port_state() { rdma link show rxe0/1 | sed -n 's/.* state \([A-Z]*\) .*/\1/p'; }
pkts() { rdma statistic show link rxe0/1 | sed -n "s/.* $1 \([0-9]*\) .*/\1/p"; }
# cm_probe: can an RDMA CM connection be made on rxe0 now?  rping server
# and client on the guest's own address, 3 s at most; records rxe's sent
# and received packet counts around it (sent0 rcvd0 sent1 rcvd1).
cm_probe() {
	local srv rc=0
	sent0=$(pkts sent_pkts); rcvd0=$(pkts rcvd_pkts)
	rping -s -a $TRADDR -p 19999 -C 1 > rping-s.out 2>&1 &
	srv=$!
	# the client may start once the server's CM ID listens
	poll_until "rdma resource show cm_id | grep 'state LISTEN' | grep -q ' pid $srv '" 30 ||
		{ cat rping-s.out; rdma resource show cm_id; fail "rping server did not listen"; }
	timeout 3 rping -c -a $TRADDR -p 19999 -C 1 -S 64 > rping-c.out 2>&1 || rc=$?
	kill $srv 2>/dev/null || true
	wait $srv 2>/dev/null || true
	sent1=$(pkts sent_pkts); rcvd1=$(pkts rcvd_pkts)
	return $rc
}

[ -x /usr/bin/rping ] || fail "rping missing from the guest (rdmacm-utils, make deps)"
# however the test ends, leave eth0 up and rxe0 there for the next test
restore_net() {
	ip link set eth0 up || true
	rdma link show rxe0/1 > /dev/null 2>&1 ||
		rdma link add rxe0 type rxe netdev eth0 || true
}
trap restore_net EXIT
brd_create 64
purlin_export $NQN /dev/ram0 1
base=$(cat $LIVE)
# keep-alive 120 s for the idle flap: the host's first keep-alive is due
# 30 s or more after the connect, long after the flap
dev=$(nvme_connect $NQN 4420 --keep-alive-tmo=120)
ctrl=$(basename $(ctrl_of $dev))

log "region A (0..16 MiB): crc32c pattern before the faults"
region_fio regionA 0 16

log "idle flap: nothing in flight, nothing torn down"
cntlid=$(cat /sys/class/nvme/$ctrl/cntlid)
await "[ \$(live reqs) -le 1 ]" 100 "not idle"
idle=$(live reqs)
ip link set eth0 down
await "[ \"\$(port_state)\" = DOWN ]" 50 "rxe0 port not DOWN"
# an observation window, not a synchronisation: nothing may happen in it
sleep 3
[ "$(state)" = live ] || fail "idle flap: host state $(state)"
[ "$(live ctrls)" = 1 ] && [ "$(live queues)" = 3 ] ||
	fail "idle flap: target tore down: $(cat $LIVE)"
ip link set eth0 up
await "[ \"\$(port_state)\" = ACTIVE ]" 50 "rxe0 port not ACTIVE"
cm_probe || fail "RDMA CM broken after an idle flap"
fio --name=after --filename="$dev" --ioengine=libaio --direct=1 --rw=randwrite \
	--bs=4k --iodepth=8 --offset=$((32 * MB)) --size=$((4 * MB)) \
	--verify=crc32c --verify_fatal=1 --do_verify=1 > after.out 2>&1 ||
	{ cat after.out; fail "I/O after the idle flap"; }
[ "$(state)" = live ] && [ "$(cat /sys/class/nvme/$ctrl/cntlid)" = $cntlid ] ||
	fail "idle flap: the controller was replaced"
nvme_disconnect $NQN
await "[ \"\$(cat $LIVE)\" = \"$base\" ]" 300 "live objects not back to baseline ($base)"

# keep-alive 5 s: the target notices a dead admin queue within 10 s
# reconnect delay 20 s: the host's first attempt after a flap comes after
# the probe and the re-creation of rxe0 (removing the device deletes a host
# controller whose connection attempt holds it)
dev=$(nvme_connect $NQN 4420 --reconnect-delay=20 --ctrl-loss-tmo=120 \
	--keep-alive-tmo=5)
ctrl=$(basename $(ctrl_of $dev))

# Verified writers over 32..48 MiB until the faults are over (lib.sh).
bgv_start "$dev" $((32 * MB)) $((16 * MB))

readded=0
for flap in 1 2 3; do
	bgv_busy $idle
	n=$(live reqs)
	ip link set eth0 down
	log "flap $flap: link down (target requests in use just before: $n)"
	await "[ \"\$(port_state)\" = DOWN ]" 50 "rxe0 port not DOWN"
	await "[ \"\$(state)\" != live ]" 100 "flap $flap: host did not notice"
	c0=$(commands)
	sleep 2		# observation window: no command may complete in it
	[ "$(commands)" = "$c0" ] || fail "flap $flap: I/O completed with the link down"
	bgv_check	# nothing failed while the link was down
	ip link set eth0 up
	await "[ \"\$(port_state)\" = ACTIVE ]" 50 "rxe0 port not ACTIVE"
	if ! cm_probe; then
		# only the rxe QP1 defect excuses it: packets go out, none in
		# (6.1), or QP1 itself left in the error state, so that nothing
		# goes out (7.2; Linux's nvmet in Purlin's place leaves it the
		# same way: Documentation/testing.md)
		if [ $((sent1 - sent0)) -gt 0 ] && [ $rcvd1 = $rcvd0 ]; then
			log "flap $flap: rxe0 drops every packet it receives since the link went down: re-creating rxe0"
		elif [ $sent1 = $sent0 ] && qp1_state | grep -qx ERR; then
			log "flap $flap: rxe0's QP1 is in the error state since the link went down: re-creating rxe0"
		else
			rdma resource show qp lqpn 1
			fail "flap $flap: RDMA CM broken (rxe packets sent $((sent1 - sent0)), received $((rcvd1 - rcvd0)); QP1 $(qp1_state))"
		fi
		rdma link delete rxe0
		rdma link add rxe0 type rxe netdev eth0
		readded=$((readded + 1))
		# (its addresses appear asynchronously: a few tries)
		cm_probe || { sleep 1; cm_probe; } || { sleep 1; cm_probe; } ||
			fail "flap $flap: RDMA CM broken after re-creating rxe0"
	fi
	# the target frees everything: I/O queues on their failed sends, the
	# idle admin queue by keep-alive (or by the device's removal)
	await "[ \$(live ctrls) = 0 ] && [ \$(live queues) = 0 ] && [ \$(live reqs) = 0 ]" 300 \
		"flap $flap: target kept the controller"
	[ "$(state)" = connecting ] || fail "flap $flap: host state $(state), want connecting"
	await "[ \"\$(state)\" = live ]" 400 "flap $flap: host did not reconnect"
	await "[ \$(live ctrls) = 1 ] && [ \$(live queues) = 3 ]" 100 "flap $flap: target side"
	await "[ \$(commands) -gt $c0 ]" 300 "flap $flap: I/O did not resume"
	log "flap $flap: reconnected, I/O resumed"
done
[ $readded = 0 ] || report "rxe0 re-created after $readded of 3 link flaps (rxe QP1 defect)"

bgv_stop "the last flap"

log "region A still verifies"
region_fio regionA 0 16 --verify_only

nvme_disconnect $NQN
await "[ \"\$(cat $LIVE)\" = \"$base\" ]" 300 "live objects not back to baseline ($base)"
purlin_clear
