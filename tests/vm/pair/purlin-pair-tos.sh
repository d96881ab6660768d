# SPDX-License-Identifier: GPL-2.0
# A port's param_tos marks the RoCE traffic the target sends (the host's
# own marking is left alone); a port without it answers each host with the
# traffic class that host connected with.  Two guests, so that the traffic
# crosses a real (virtual) wire: QEMU records it, and purlin-pair-tos.wire
# checks the ToS byte of every RoCE v2 packet in the capture.
# timeout: 300

NQN=nqn.2026-11.io.purlin.test:tos
TOS_ADDR=10.99.0.3	# the target's second address, on the ToS port
TOS=104			# DSCP 26 (AF31), not ECN-capable: ToS byte 0x68
HOST_TOS=32		# what the host asks for: DSCP 8, ToS byte 0x20

case "$ROLE" in
target)
	ip addr add $TOS_ADDR/24 dev eth0
	brd_create 32
	purlin_subsys $NQN
	purlin_ns $NQN 1 /dev/ram0
	purlin_port 1 4420
	purlin_port 2 4420 $TOS_ADDR
	p=$PURLIN_CFS/ports/2
	log "param_tos: default, range, refused while the port is live"
	[ "$(cat $PURLIN_CFS/ports/1/param_tos)" = -1 ] ||
		fail "param_tos default is not -1"
	for bad in 256 -2 x 0x100 ""; do
		expect_fail sh -c "echo '$bad' > $p/param_tos" 2>/dev/null
	done
	[ "$(cat $p/param_tos)" = -1 ] || fail "a refused write changed param_tos"
	expect_fail purlinctl port set 2 tos 300
	[ "$(cat $p/param_tos)" = -1 ] || fail "purlinctl changed param_tos on error"
	purlinctl port set 2 tos $TOS
	[ "$(cat $p/param_tos)" = $TOS ] || fail "param_tos did not take $TOS"
	purlin_link 1 $NQN
	purlinctl port link 2 $NQN
	expect_fail sh -c "echo 0 > $p/param_tos" 2>/dev/null
	[ "$(cat $p/param_tos)" = $TOS ] || fail "param_tos changed on a live port"
	purlinctl save /tmp/t/saved.json
	grep -q '"tos": *"\?104' /tmp/t/saved.json ||
		{ cat /tmp/t/saved.json; fail "save did not keep param_tos"; }
	pair_mark target-ready
	pair_wait host-done 240
	purlin_clear
	;;
host)
	pair_wait target-ready
	for a in $TRADDR $TOS_ADDR; do
		log "connect to $a with ToS $HOST_TOS, fio verify"
		nvme connect -t rdma -a $a -s 4420 -n $NQN --tos=$HOST_TOS \
			> /dev/null
		wait_for "nvme_dev_for $NQN"
		dev=$(nvme_dev_for $NQN)
		fio_verify "$dev" 4k 8 4M
		fio_verify "$dev" 128k 4 8M
		nvme_disconnect $NQN
	done
	pair_mark host-done
	;;
*)
	fail "a pair test run without a pair (ROLE=$ROLE)"
	;;
esac
