# SPDX-License-Identifier: GPL-2.0
# Hostile peers (issue 16): a peer that is no host of the target's attacks
# it with the wire client (tests/fuzz/nvmf-wire) from a second address of
# the guest (10.99.0.3): receiver-not-ready stalls holding 1 MiB transfers
# on the discovery controller (rnr-discovery) and on an I/O queue (rnr-io),
# a flood of CM connections that never send a Fabrics Connect (cm-flood),
# I/O queue Connects with the victim's NQN, another host ID and guessed
# CNTLIDs (hijack), I/O queues asked of the discovery controller (disc-ioq).
# During each attack the stock host connects to a normal subsystem, passes
# fio crc32c verify and disconnects within 60 s, while the attack still
# runs (the attacker repeats its rounds until told to stop with SIGUSR1);
# after it every controller, queue and request is freed and the data pool
# is whole again.  Each attack is a check of its own (one PASS or FAIL
# line); then the small-defects scenario.
#
# Knob (environment): HOST_SECS, the stock host's bound (default 60).
# timeout: 900

NQN=nqn.2026-11.io.purlin.test:hostile
ATTACKER=10.99.0.3
HOST_SECS=${HOST_SECS:-60}
# An attack repeats its rounds until SIGUSR1, for this long at most; and
# nvmf-wire's own limit per scenario (it prints FAIL and exits after it).
ATTACK_SECS=$((HOST_SECS + 30))
WIRE_T=$((ATTACK_SECS + 90 * SCALE))

brd_create 64
purlin_subsys $NQN
purlin_ns $NQN 1 /dev/ram0
purlin_port 1
purlin_link 1 $NQN

# The attacker's address, on the interface soft-RoCE runs on: rxe0 gets a
# RoCE GID for it (::ffff:10.99.0.3).
ip addr add $ATTACKER/24 dev eth0
trap "ip addr del $ATTACKER/24 dev eth0 2>/dev/null" EXIT
await "cat /sys/class/infiniband/*/ports/1/gids/* 2>/dev/null | grep -q ':ffff:0a63:0003\$'" \
	100 "no RoCE GID for $ATTACKER"

live0=$(purlin_live)
log "live before: $live0"
pool0=$(echo "$live0" | sed -n 's/.*pool_free=\([0-9]*\).*/\1/p')

# Teardown is asynchronous: nothing left, the pool whole.
idle() {
	grep -q 'ctrls=0 queues=0 reqs=0' $LIVE &&
		[ "$(sed -n 's/.*pool_free=\([0-9]*\).*/\1/p' $LIVE)" = "$pool0" ]
}

failed=""
# verdict NAME WHY: one PASS or FAIL line for a check.
verdict() {
	if [ -z "$2" ]; then
		report "PASS $1"
	else
		report "FAIL $1: $2"
		failed="$failed $1"
	fi
}

# stock_host NAME: nvme connect, fio verify, disconnect within HOST_SECS;
# sets host_why (empty when it worked) and host_secs.
stock_host() {
	local hp t0
	host_why=""
	t0=$(date +%s)
	( dev=$(nvme_connect $NQN 4420) && fio_verify "$dev" 4k 16 8M &&
		nvme_disconnect $NQN ) > "host-$1.out" 2>&1 &
	hp=$!
	poll_until "! kill -0 $hp" $((HOST_SECS * 10)) || true
	host_secs=$(($(date +%s) - t0))
	if kill -0 $hp 2>/dev/null; then
		host_why="the stock host did not connect, verify and disconnect within ${HOST_SECS}s ($(tail -n 2 "host-$1.out" | tr '\n' ' '))"
		kill -9 $hp 2>/dev/null || true
		poll_until "! kill -0 $hp" 600 ||
			host_why="$host_why; it is still stuck 60 s after SIGKILL"
	elif ! wait $hp; then
		host_why="the stock host failed after ${host_secs}s: $(grep -v '^$' "host-$1.out" | tail -n 3 | tr '\n' ' ' | cut -c1-300)"
	fi
	if [ -n "$host_why" ]; then
		nvme disconnect -n $NQN > /dev/null 2>&1 || true
		poll_until "nvme_ns_gone $NQN" 300 || true
	fi
}

# attack NAME [nvmf-wire options]: run the attack from ATTACKER, the stock
# host during it, then check the attack's verdict and the live counters.
attack() {
	local name=$1 out=$1.out why="" pid rc during
	shift
	log "attack $name from $ATTACKER"
	# (a queue the attacker stalls must be gone within 30 s, longer on a
	# slow kernel: the target's CM work and the drop's DREQ wait there)
	nvmf-wire -a $TRADDR -s 4420 -n $NQN --src $ATTACKER -t $WIRE_T \
		--duration "$ATTACK_SECS" --drop-secs $((30 * SCALE)) "$@" "$name" > "$out" 2>&1 &
	pid=$!
	# The host starts once the attacker holds what it came to hold.
	poll_until "grep -q 'attack in place' $out || ! kill -0 $pid" 600 || true
	if grep -q 'attack in place' "$out"; then
		stock_host "$name"
		during=yes
		kill -0 $pid 2>/dev/null || during=no
		log "stock host: ${host_secs}s, ${host_why:-ok}; attack still running at its end: $during"
		if [ -n "$host_why" ]; then
			why="$host_why"
		elif [ $during = no ]; then
			# A failed attack ends early: then this only says how long
			# the host took; after a passed one, the host's run did not
			# happen during the attack.
			why="the stock host finished only after the attack had ended (${host_secs}s)"
		fi
		# The attack ends after the round under way.
		kill -USR1 $pid 2>/dev/null || true
	else
		why="the attack never got in place"
	fi
	poll_until "! kill -0 $pid" $(((WIRE_T + 30) * 10)) || {
		kill -9 $pid 2>/dev/null || true
		why="${why:+$why; }nvmf-wire did not end"
	}
	if wait $pid; then rc=0; else rc=$?; fi
	cat "$out"
	# Its notes: the first rounds and how it ended.
	grep -E "^note: $name: " "$out" | grep -v ': took ' > "$name.notes" || true
	if [ "$(wc -l < "$name.notes")" -gt 8 ]; then
		{ head -n 6 "$name.notes"; tail -n 2 "$name.notes"; }
	else
		cat "$name.notes"
	fi | while read -r line; do report "$line"; done
	if ! grep -q "^PASS $name\$" "$out"; then
		why="${why:+$why; }attack: $(grep -m1 "^FAIL $name" "$out" | cut -c1-600)"
		[ "$rc" != 0 ] || why="$why (nvmf-wire exit 0 without PASS)"
	fi
	if ! poll_until idle 300; then
		why="${why:+$why; }objects left 30 s after the attack: $(cat $LIVE) (before: $live0)"
	fi
	if [ -z "$why" ]; then
		report "PASS $name: the stock host connected, verified and disconnected in ${host_secs}s during the attack"
	else
		verdict "$name" "$why"
	fi
}

# Four discovery queues of 32: 128 transfers of 1 MiB asked for, twice
# the data pool (64 MiB).  Two I/O queues of 128: four times the pool.
attack rnr-discovery --queues 4
attack rnr-io --queues 2
attack cm-flood --max-pending 16
attack hijack
attack disc-ioq

log "small-defects"
if nvmf-wire -a $TRADDR -s 4420 -n $NQN --src $ATTACKER -t 120 \
	small-defects > small.out 2>&1; then rc=0; else rc=$?; fi
cat small.out
grep -E '^note: small-defects: ' small.out | grep -v ': took ' |
	while read -r line; do report "$line"; done
why=""
grep -q '^PASS small-defects$' small.out ||
	why="$(grep -m1 '^FAIL small-defects' small.out | cut -c1-800) (exit $rc)"
poll_until idle 300 ||
	why="${why:+$why; }objects left: $(cat $LIVE) (before: $live0)"
verdict small-defects "$why"

log "live at the end: $(cat $LIVE)"
purlin_clear
[ -z "$failed" ] || fail "failed:$failed"
