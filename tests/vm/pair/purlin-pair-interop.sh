# SPDX-License-Identifier: GPL-2.0
# The interop core across a wire, for the kernel matrix: the target guest
# runs Purlin on one kernel, the host guest the stock nvme-rdma host of the
# same or another kernel (tests/vm/run HOST_KVER=...).  The host discovers,
# connects through two ports (native multipath), identifies, verifies data
# with fio crc32c, keeps verifying while each port's ANA group goes
# inaccessible and back, runs the wire client's protocol scenarios, and
# finally has its subsystem torn down under I/O: the host's I/O fails and
# its controllers go away, the target ends idle and unloads.
# timeout: 420

NQN=nqn.2026-11.io.purlin.test:interop
ADDR2=10.99.0.3		# the target's second address, port 2

case "$ROLE" in
target)
	ip addr add $ADDR2/24 dev eth0
	brd_create 64
	purlin_export $NQN /dev/ram0 1 4420
	purlin_port 2 4420 $ADDR2
	purlin_link 2 $NQN
	log "target on $(uname -r)"
	pair_mark target-ready
	for p in 1 2; do
		pair_wait ana-$p-go 240
		echo inaccessible > $PURLIN_CFS/ports/$p/ana_groups/1/ana_state
		pair_mark ana-$p-set
		pair_wait ana-$p-seen 240
		echo optimized > $PURLIN_CFS/ports/$p/ana_groups/1/ana_state
		pair_mark ana-$p-back
	done
	pair_wait teardown-go 240
	log "tear the subsystem down under the host's I/O"
	# purlin_clear asserts that no controller, queue or request is left.
	# Stuck: say where the target stands, within the host's wait.
	( purlin_clear ) > clear.out 2>&1 &
	cpid=$!
	t_end=$(($(uptime_s) + 180 * SCALE))
	while kill -0 $cpid 2>/dev/null; do
		if [ $(uptime_s) -ge $t_end ]; then
			cat clear.out
			log "the teardown is stuck 180 s after it began"
			guest_state $cpid
			fail "the subsystem's teardown did not finish in 180 s"
		fi
		sleep 1
	done
	wait $cpid || { cat clear.out; fail "the teardown failed"; }
	cat clear.out
	pair_mark teardown-done
	pair_wait host-done 300
	;;
host)
	pair_wait target-ready
	log "host on $(uname -r)"
	nvme discover -t rdma -a $TRADDR -s 4420 > disc.txt ||
		{ cat disc.txt; fail "discovery failed"; }
	grep -q "subnqn: *$NQN\$" disc.txt || { cat disc.txt; fail "discovery log lacks $NQN"; }
	grep -q "traddr: *$TRADDR\$" disc.txt || { cat disc.txt; fail "discovery log lacks $TRADDR"; }

	nvme connect -t rdma -a $TRADDR -s 4420 -n $NQN > /dev/null || fail "connect via port 1"
	nvme connect -t rdma -a $ADDR2 -s 4420 -n $NQN > /dev/null || fail "connect via port 2"
	wait_for "nvme_dev_for $NQN"
	dev=$(nvme_dev_for $NQN)
	wait_for "[ \$(ls -d /sys/block/nvme*c*n1 2>/dev/null | wc -l) -eq 2 ]" 100
	paths=$(ls -d /sys/block/nvme*c*n1 | xargs -n1 basename)
	# path nvmeXcYnZ belongs to controller nvmeY
	c=${paths%% *}; c=${c#nvme*c}; c=nvme${c%%n*}
	[ "$(cat /sys/class/nvme/$c/subsysnqn)" = $NQN ] || fail "controller $c subsysnqn"
	nvme id-ctrl /dev/$c > idc.txt || fail "id-ctrl failed"
	grep -q "^subnqn *: *$NQN\$" idc.txt || { cat idc.txt; fail "id-ctrl subnqn"; }
	grep -q "^mn *: *Purlin" idc.txt || { grep '^mn' idc.txt; fail "id-ctrl model"; }
	nvme id-ns "$dev" > idn.txt || fail "id-ns failed"
	# 64 MiB of 512-byte blocks
	grep -q "^nsze *: *0x20000\$" idn.txt || { grep '^nsze' idn.txt; fail "id-ns size"; }
	fio_verify "$dev" 4k 8 4M
	fio_verify "$dev" 128k 4 8M

	log "ANA: each port inaccessible and back under fio verify"
	bgv_start "$dev" 0 8M
	for p in 1 2; do
		a=$TRADDR
		[ $p = 2 ] && a=$ADDR2
		path=
		for q in $paths; do
			k=${q#nvme*c}; k=nvme${k%%n*}
			grep -q "traddr=$a," /sys/class/nvme/$k/address && path=$q
		done
		[ -n "$path" ] || fail "no path through port $p"
		pair_mark ana-$p-go
		pair_wait ana-$p-set 240
		wait_for "[ \$(cat /sys/block/$path/ana_state) = inaccessible ]" 100
		bgv_check
		pair_mark ana-$p-seen
		pair_wait ana-$p-back 240
		wait_for "[ \$(cat /sys/block/$path/ana_state) = optimized ]" 100
		bgv_check
	done
	bgv_stop "the ANA changes"

	log "nvmf-wire protocol scenarios"
	nvmf-wire -a $TRADDR -s 4420 -n $NQN -t 100 cmd-before-connect connect-bad \
		sgl-bad io-bad short-capsule too-many > wire.out 2>&1 ||
		{ cat wire.out; fail "nvmf-wire failed"; }
	[ "$(grep -c '^PASS ' wire.out)" = 6 ] || { cat wire.out; fail "nvmf-wire: not 6 scenarios passed"; }

	log "teardown under I/O"
	fio --name=td --filename="$dev" --ioengine=libaio --direct=1 --rw=randrw \
		--bs=4k --iodepth=16 --size=8M --time_based --runtime=600 > td.out 2>&1 &
	fiopid=$!
	sleep 2
	kill -0 $fiopid 2>/dev/null || { cat td.out; fail "fio did not start"; }
	pair_mark teardown-go
	pair_wait teardown-done 240
	# The host's controllers reconnect in vain and give up; end it now.
	# Stuck: say where the host stands (within the guest's time limit).
	# (A wall-clock limit: wait_for counts polls, which under emulation
	# take far longer than their nominal tenth of a second.  A reconnect
	# attempt in progress, which the disconnect waits for, can take over a
	# minute when the CM's requests go unanswered.)
	nvme disconnect -n $NQN > /dev/null 2>&1 &
	dpid=$!
	t_end=$(($(uptime_s) + 240 * SCALE))
	while ls /sys/class/nvme/nvme* > /dev/null 2>&1 || kill -0 $fiopid 2>/dev/null; do
		if [ $(uptime_s) -ge $t_end ]; then
			log "the host is stuck 240 s after the teardown"
			guest_state $dpid $fiopid
			fail "controllers or fio still there 240 s after the subsystem went away"
		fi
		sleep 1
	done
	wait $dpid || fail "nvme disconnect failed"
	wait $fiopid && { cat td.out; fail "fio saw no error when the subsystem went away"; }
	pair_mark host-done
	;;
*)
	fail "a pair test run without a pair (ROLE=$ROLE)"
	;;
esac
