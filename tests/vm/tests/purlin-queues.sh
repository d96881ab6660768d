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
		# the host clamps to its own maximum (128 on 6.1, 256 on 6.12):
		# a smaller queue is right only if the host said it clamped to it
		got=$(($(cat /sys/class/nvme/$c/sqsize) + 1))
		want=$qs
		if [ "$got" -lt "$qs" ] &&
		   dmesg | grep -q "max queue size $got, clamping"; then
			want=$got
		fi
		[ "$got" = "$want" ] || fail "queue size $got, want $want"
		# queue_count is the admin queue plus the I/O queues granted
		[ "$(cat /sys/class/nvme/$c/queue_count)" = $((nrq + 1)) ] ||
			fail "host has $(cat /sys/class/nvme/$c/queue_count) queues, want $((nrq + 1))"
		grep -q "host=$HOSTNQN port=1 queues=$((nrq + 1)) " \
			$PURLIN_CFS/subsystems/$NQN/controllers ||
			fail "target's controller: $(cat $PURLIN_CFS/subsystems/$NQN/controllers)"
		fio_verify "$dev" 4k 32 4M
		nvme_disconnect $NQN
	done
done

log "qid_max 1 limits the controller to one I/O queue"
echo 1 > $PURLIN_CFS/subsystems/$NQN/attr_qid_max
dev=$(nvme_connect $NQN 4420 --nr-io-queues=2)
c=$(basename $(ctrl_of $dev))
[ "$(cat /sys/class/nvme/$c/queue_count)" = 2 ] ||
	fail "qid_max 1: host has $(cat /sys/class/nvme/$c/queue_count) queues, want 2"
nvme_disconnect $NQN
purlin_clear
