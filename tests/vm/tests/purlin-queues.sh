# SPDX-License-Identifier: GPL-2.0
# Connect with 1 and 2 I/O queues and queue sizes 32 and 1024 (the 6.1 host
# clamps to 128); the controller grants what was asked within the port's
# limits, and data moves on every combination.
# timeout: 300

NQN=nqn.2026-11.io.purlin.test:queues
brd_create 16
purlin_subsys $NQN
purlin_ns $NQN 1 /dev/ram0
purlin_port 1
echo 1024 > $PURLIN_CFS/ports/1/param_max_queue_size
[ "$(cat $PURLIN_CFS/ports/1/param_max_queue_size)" = 1024 ] || fail "max queue size"
purlin_link 1 $NQN
expect_fail sh -c "echo 64 > $PURLIN_CFS/ports/1/param_max_queue_size"

for nrq in 1 2; do
	for qs in 32 1024; do
		log "nr-io-queues $nrq queue-size $qs"
		dev=$(nvme_connect $NQN 4420 --nr-io-queues=$nrq --queue-size=$qs)
		c=$(basename $(ctrl_of $dev))
		dmesg | tail -n 5 | grep "$c" || true
		# the host clamps to its own maximum (128 on 6.1, 256 on 6.12):
		# a smaller queue is right only if the host said it clamped to it
		got=$(($(cat /sys/class/nvme/$c/sqsize) + 1))
		want=$qs
		if [ "$got" -lt "$qs" ] &&
		   dmesg | grep -q "max queue size $got, clamping"; then
			want=$got
		fi
		[ "$got" = "$want" ] || fail "queue size $got, want $want"
		fio_verify "$dev" 4k 32 4M
		nvme_disconnect $NQN
	done
done

log "qid_max 1 limits the controller to one I/O queue"
echo 1 > $PURLIN_CFS/subsystems/$NQN/attr_qid_max
nvme_connect $NQN 4420 --nr-io-queues=2 > /dev/null
dmesg | tail -n 5 | grep -q "creating 1 I/O queues" || fail "host did not get 1 I/O queue"
nvme_disconnect $NQN
purlin_clear
