# SPDX-License-Identifier: GPL-2.0
# The root's discovery_nqn (nvmet's persistent discovery NQN): set through
# purlinctl restore of nvmetcli's root "discovery" group, it names the
# discovery log's own entry and the discovery controller (Identify); a
# Connect by that name reaches the discovery subsystem, and one by the
# well-known name still does; no subsystem can take it; save gives the group back,
# clear resets it. The same file round-trips through Linux nvmet (or, on
# 6.1's, which lacks the attribute, is said not to apply there).
# timeout: 180

DISC=nqn.2026-11.io.purlin.test:pdc
S=nqn.2026-11.io.purlin.test:pdc-disk
WELL=nqn.2014-08.org.nvmexpress.discovery
brd_create 16

cat > disc.json <<EOF
{
  "discovery": { "nqn": "$DISC" },
  "hosts": [],
  "ports": [ { "portid": 1, "addr": { "adrfam": "ipv4", "traddr": "$TRADDR",
    "treq": "not specified", "trsvcid": "4420", "trtype": "rdma" },
    "subsystems": [ "$S" ] } ],
  "subsystems": [ { "nqn": "$S", "attr": { "allow_any_host": "1" },
    "namespaces": [ { "nsid": 1, "enable": 1, "device": { "path": "/dev/ram0" } } ] } ]
}
EOF

# disc_self PORT: the subnqn of the log's "current discovery subsystem" entry
disc_self() {
	nvme discover -t rdma -a $TRADDR -s "$1" -o json | tr -d ' \n' | sed 's/},{/}\n{/g' |
		grep '"subtype":"currentdiscoverysubsystem"' | sed -n 's/.*"subnqn":"\([^"]*\)".*/\1/p'
}

log "default: the well-known NQN"
modprobe purlin
[ "$(cat $PURLIN_CFS/discovery_nqn)" = $WELL ] || fail "default discovery_nqn: $(cat $PURLIN_CFS/discovery_nqn)"

log "restore sets it first; the discovery log's own entry names it"
purlinctl restore disc.json
[ "$(cat $PURLIN_CFS/discovery_nqn)" = $DISC ] || fail "discovery_nqn not restored"
got=$(disc_self 4420)
[ "$got" = $DISC ] || fail "the log's own entry names '$got', not $DISC"
nvme discover -t rdma -a $TRADDR -s 4420 | grep -q "subnqn: *$S" || fail "$S not in the log"

log "Identify names it: the stock host reports its discovery controller so"
kmark ident
disc_self 4420 > /dev/null
since_mark ident | grep -q "new ctrl: NQN \"$DISC\"" ||
	fail "the host's discovery controller is not named $DISC"

log "a Connect by that name reaches the discovery subsystem"
# Linux 6.1's host takes a non-well-known NQN for an I/O controller unless
# told it is a discovery one, and gives up after reading SMART (which a
# discovery controller does not have): the target side is what is checked.
kmark byname
nvme connect -t rdma -a $TRADDR -s 4420 -n $DISC > /dev/null 2>&1 || true
since_mark byname | grep -q "controller [0-9]* created for .* on $WELL" ||
	fail "a Connect to $DISC made no discovery controller"
log "the well-known name still reaches it"
got=$(disc_self 4420)
[ "$got" = $DISC ] || fail "well-known connect: own entry '$got'"

log "no subsystem takes the name, and the name no subsystem's"
expect_err 4 "subsys $DISC: is the target's discovery NQN" purlinctl subsys add $DISC
set +e
mkdir "$PURLIN_CFS/subsystems/$DISC" 2> /dev/null
rc=$?
set -e
[ $rc -ne 0 ] && [ ! -d "$PURLIN_CFS/subsystems/$DISC" ] || fail "subsystem $DISC made"
set +e
echo "$S" > $PURLIN_CFS/discovery_nqn
rc=$?
set -e
[ $rc -ne 0 ] || fail "discovery_nqn took a subsystem's name"
[ "$(cat $PURLIN_CFS/discovery_nqn)" = $DISC ] || fail "refused write changed discovery_nqn"

log "save gives nvmetcli's group back; restore finds nothing to do; clear resets"
purlinctl save saved.json
grep -q "\"discovery\": {" saved.json || fail "save has no discovery group"
grep -q "\"nqn\": \"$DISC\"" saved.json || fail "save lacks $DISC"
purlinctl -n restore saved.json > plan.txt
[ ! -s plan.txt ] || { cat plan.txt; fail "restore of the saved file plans changes"; }
purlinctl clear
[ "$(cat $PURLIN_CFS/discovery_nqn)" = $WELL ] || fail "clear left discovery_nqn"
purlin_clear

log "the same file on Linux nvmet: the group round-trips, or is said not to apply"
modprobe nvmet
modprobe nvmet-rdma
N=/sys/kernel/config/nvmet
purlinctl --target nvmet restore disc.json 2> nvmet.err
cat nvmet.err
if [ -e $N/discovery_nqn ]; then
	[ "$(cat $N/discovery_nqn)" = $DISC ] || fail "nvmet discovery_nqn not set"
	purlinctl --target nvmet save nvmet.json
	grep -q "\"nqn\": \"$DISC\"" nvmet.json || fail "nvmet save lacks $DISC"
else
	# 6.1's nvmet has no discovery_nqn: the rest is restored, the NQN said not applied
	grep -q "warning: discovery_nqn '$DISC' not applied: this target has no discovery_nqn" nvmet.err ||
		fail "no warning that nvmet keeps the well-known NQN"
	[ -d "$N/subsystems/$S" ] || fail "nvmet: the rest of the file not restored"
fi
purlinctl --target nvmet clear
[ ! -e $N/discovery_nqn ] || [ "$(cat $N/discovery_nqn)" = $WELL ] || fail "nvmet clear left discovery_nqn"
rmmod nvmet-rdma nvmet
