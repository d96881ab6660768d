# SPDX-License-Identifier: GPL-2.0
# Fault injection under load (issue #9): the port goes away and comes back
# while fio writes and crc32c-verifies: (1) the subsystem is unlinked from
# the port and linked again, (2) the port directory itself is removed and
# re-created, (3) unlink and relink back to back.  Each time the target
# frees the host's controller and queues, I/O stalls (no command reaches
# the namespace) while the port is gone, the host reconnects by itself once
# it is back and I/O resumes; every fio run exits 0 with no verify error,
# and a region written before the faults still verifies.
# timeout: 240

timed_log

NQN=nqn.2026-11.io.purlin.test:fault-port
P=$PURLIN_CFS/ports/1
NS=$PURLIN_CFS/subsystems/$NQN/namespaces/1

# commands: reads + writes the namespace has executed (target side)
commands() {
	tr ' ' '\n' < $NS/stats |
		awk -F= '/^(read|write)_cmds=/ { s += $2 } END { print s + 0 }'
}
state() { cat /sys/class/nvme/$ctrl/state; }

brd_create 64
purlin_export $NQN /dev/ram0 1
base=$(cat $LIVE)
dev=$(nvme_connect $NQN 4420 --reconnect-delay=1 --ctrl-loss-tmo=60)
ctrl=$(basename $(ctrl_of $dev))
# requests a connected, idle host keeps on the target (its AER)
await "[ \$(live reqs) -le 1 ]" 100 "not idle"
idle=$(live reqs)

log "region A (0..16 MiB): crc32c pattern before the faults"
region_fio regionA 0 16

# Verified writers over 32..48 MiB until the faults are over (lib.sh).
bgv_start "$dev" $((32 * MB)) $((16 * MB))

# outage NAME REMOVE-CMD RESTORE-CMD: take the port away under I/O, check
# the stall, bring it back, check the recovery.
outage() {
	local c0 c1
	bgv_busy $idle
	log "$1: $(live reqs) requests in flight"
	eval "$2"
	await "[ \$(live ctrls) = 0 ] && [ \$(live queues) = 0 ]" 300 \
		"$1: controller and queues not freed"
	await "[ \"\$(state)\" != live ]" 300 "$1: host did not notice"
	[ "$(live reqs)" = 0 ] || fail "$1: requests left without queues"
	c0=$(commands)
	sleep 3		# observation window: no command may reach the namespace
	c1=$(commands)
	[ "$c0" = "$c1" ] || fail "$1: I/O reached the namespace with the port down"
	[ "$(state)" = connecting ] || fail "$1: host state $(state), want connecting"
	bgv_check	# nothing failed while the port was away
	eval "$3"
	await "[ \"\$(state)\" = live ]" 300 "$1: host did not reconnect"
	await "[ \$(commands) -gt $c1 ]" 300 "$1: I/O did not resume"
	log "$1: reconnected, I/O resumed ($c1 -> $(commands) commands)"
}

readd_port() {
	purlin_port 1 4420
	purlin_link 1 $NQN
}

outage unlink "rm $P/subsystems/$NQN" "purlin_link 1 $NQN"
outage "port rmdir" "rm $P/subsystems/$NQN; rmdir $P; [ \$(live ports) = 0 ]" readd_port
# back to back: the host sees its queues torn down, the listener returns at once
bgv_busy $idle
log "unlink + relink: $(live reqs) requests in flight"
rm $P/subsystems/$NQN
await "[ \$(live queues) = 0 ]" 300 "flap: queues not freed"
purlin_link 1 $NQN
await "[ \"\$(state)\" = live ] && [ \$(live ctrls) = 1 ]" 300 "flap: no recovery"
c=$(commands)
await "[ \$(commands) -gt $c ]" 300 "flap: I/O did not resume"
log "unlink + relink: reconnected, I/O resumed"

# let the run in progress span the last fault and finish with its verify
bgv_stop "the faults"

log "region A still verifies"
region_fio regionA 0 16 --verify_only

nvme_disconnect $NQN
await "[ \"\$(cat $LIVE)\" = \"$base\" ]" 300 "live objects not back to baseline ($base)"
purlin_clear
