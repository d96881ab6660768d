# SPDX-License-Identifier: GPL-2.0
# Pacemaker's resource agents (ha/ocf, installed as the package installs
# them) against the real target: resource-agents' ocf-tester passes on
# purlin-config (one port, one subsystem with an allowed host, a brd and a
# null_blk namespace) and on purlin-ana; then, each with the exact OCF code:
# a probe with nothing configured says not running (7); stop with a host
# connected removes the links, allowed host, namespaces, subsystem, port and
# host and says success (0); stop fails (1) when the kernel refuses a
# removal (a mount on the host's configfs directory: rmdir gives EBUSY), and
# monitor then says failed (1), not stopped; monitor says failed (1) -- the
# cluster must still stop it here -- when a namespace is disabled, when the
# port loses its RDMA listener (rxe0 deleted), when the device cannot be
# read (null_blk bad blocks) and when it disappears (null_blk powered off),
# and running (0) again when repaired; purlin-ana's promote and demote
# flip the ANA state the stock host's path shows (inaccessible or
# non-optimized <-> optimized), monitor says 8 promoted, 0 unpromoted, 9
# when the promoted group was changed behind its back, 7 after stop.
# Reservations carried over: with resv_dir and a namespace whose resv.file
# is there, a host's PTPL registration and reservation are in the file;
# stop, module unloaded (all state gone, as on the node taking over),
# start: the host's Reservation Report shows them again; monitor says
# failed (1) while the shared directory is read-only.
# timeout: 460

export OCF_ROOT=/usr/lib/ocf
RA=$OCF_ROOT/resource.d/purlin
NQN=nqn.2026-12.io.purlin.test:ocf
CONF=/tmp/ocf.json
NB=/sys/kernel/config/nullb/ocfnb
S=$PURLIN_CFS/subsystems/$NQN

[ -x /usr/sbin/ocf-tester ] && [ -f $OCF_ROOT/lib/heartbeat/ocf-shellfuncs ] ||
	fail "ocf-tester or the OCF library missing from the guest (resource-agents: make deps)"
[ "$(stat -c %a $RA/purlin-config)" = 755 ] && [ "$(stat -c %a $RA/purlin-ana)" = 755 ] ||
	fail "agents not installed 0755 in $RA"
# ocf-tester runs meta-data as nobody
grep -q '^nobody:' /etc/passwd 2>/dev/null ||
	echo 'nobody:x:65534:65534:nobody:/nonexistent:/bin/sh' >> /etc/passwd

brd_create 32
nullblk_create ocfnb 64 > /dev/null
cat > $CONF <<EOF
{
  "hosts": [ { "nqn": "$HOSTNQN" } ],
  "ports": [ { "portid": 1, "addr": { "adrfam": "ipv4", "traddr": "$TRADDR", "trsvcid": "4420", "trtype": "rdma" },
               "subsystems": [ "$NQN" ] } ],
  "subsystems": [ { "nqn": "$NQN", "attr": { "allow_any_host": "0" }, "allowed_hosts": [ "$HOSTNQN" ],
    "namespaces": [
      { "nsid": 1, "enable": 1, "device": { "path": "/dev/ram0",
        "uuid": "3d0f5a52-8c1e-4b7a-9e2d-6f1a2b3c4d01", "nguid": "3d0f5a52-8c1e-4b7a-9e2d-6f1a2b3c4d01" } },
      { "nsid": 2, "enable": 1, "device": { "path": "/dev/ocfnb",
        "uuid": "3d0f5a52-8c1e-4b7a-9e2d-6f1a2b3c4d02", "nguid": "3d0f5a52-8c1e-4b7a-9e2d-6f1a2b3c4d02" } } ] } ]
}
EOF

# cfg ACTION [KEY=VALUE...]: run purlin-config, print its exit code
cfg() {
	local a=$1 rc=0
	shift
	env OCF_RESKEY_config=$CONF OCF_RESOURCE_INSTANCE=cfg OCF_RESKEY_CRM_meta_interval=10000 \
		"$@" $RA/purlin-config "$a" > /tmp/ocf.out 2>&1 || rc=$?
	echo $rc
}
# expect_rc WANT WHAT ACTION...: the agent's code must be WANT
expect_rc() {
	local want=$1 what=$2 got
	shift 2
	got=$("$@")
	[ "$got" = "$want" ] || { cat /tmp/ocf.out; fail "$what: exit $got, expected $want"; }
	log "$what: $got"
}
gone() {
	[ ! -e $S ] && [ ! -e $PURLIN_CFS/ports/1 ] && [ ! -e "$PURLIN_CFS/hosts/$HOSTNQN" ]
}
tester() {	# tester AGENT ARGS...: ocf-tester must pass
	local a=$1 out=/tmp/ocf-tester.$1
	shift
	ocf-tester -n "t-$a" "$@" $RA/$a > $out 2>&1 || { cat $out; fail "ocf-tester on $a"; }
	grep -q "passed all tests" $out || { cat $out; fail "ocf-tester on $a: no pass line"; }
	log "ocf-tester: $(tail -n 1 $out)"
}

expect_rc 0 "validate-all" cfg validate-all
expect_rc 7 "probe, module not loaded" cfg monitor OCF_RESKEY_CRM_meta_interval=0
modprobe purlin
expect_rc 7 "probe, nothing configured" cfg monitor OCF_RESKEY_CRM_meta_interval=0

tester purlin-config -o config=$CONF
gone || fail "ocf-tester left objects behind"

# --- stop with a connected host -------------------------------------------
expect_rc 0 "start" cfg start
rdma resource show cm_id | grep LISTEN
expect_rc 0 "monitor" cfg monitor
expect_rc 0 "probe, running" cfg monitor OCF_RESKEY_CRM_meta_interval=0
expect_rc 0 "start again" cfg start
dev=$(nvme_connect $NQN)
[ -L "$S/allowed_hosts/$HOSTNQN" ] || fail "no allowed_hosts link"
[ -n "$(cat $S/controllers)" ] || fail "no controller"
expect_rc 0 "stop with a connected host" cfg stop
gone || { ls -R $PURLIN_CFS; fail "stop left objects"; }
expect_rc 7 "monitor after stop" cfg monitor
expect_rc 0 "stop again" cfg stop
nvme disconnect-all > /dev/null
wait_for "nvme_ns_gone $NQN"

# --- a removal the kernel refuses ------------------------------------------
expect_rc 0 "start" cfg start
mount -t tmpfs pin "$PURLIN_CFS/hosts/$HOSTNQN" || fail "cannot mount on the host's directory"
expect_rc 1 "stop, host directory busy" cfg stop
grep -q "Device or resource busy" /tmp/ocf.out || { cat /tmp/ocf.out; fail "no reason given"; }
# removals come last and cannot be undone: the host stays, the rest is gone
[ -d "$PURLIN_CFS/hosts/$HOSTNQN" ] && [ ! -e $S ] && [ ! -e $PURLIN_CFS/ports/1 ] ||
	{ ls -R $PURLIN_CFS; fail "after the failed stop"; }
expect_rc 1 "monitor after the failed stop (partly there: failed, not stopped)" cfg monitor
umount "$PURLIN_CFS/hosts/$HOSTNQN"
expect_rc 0 "stop, retried" cfg stop
gone || fail "stop left objects"

# --- deep monitor ----------------------------------------------------------
expect_rc 0 "start" cfg start
purlinctl ns disable $NQN 1
expect_rc 1 "monitor, namespace disabled" cfg monitor
grep -q "enable" /tmp/ocf.out || { cat /tmp/ocf.out; fail "reason"; }
purlinctl ns enable $NQN 1
expect_rc 0 "monitor, enabled again" cfg monitor

rdma link delete rxe0
wait_for "[ \$(cfg monitor) = 1 ]" 100
cfg monitor > /dev/null
grep -q "no RDMA listener" /tmp/ocf.out || { cat /tmp/ocf.out; fail "reason"; }
log "monitor, rxe0 deleted: 1"
[ -L $PURLIN_CFS/ports/1/subsystems/$NQN ] || fail "the link went with the listener"
rdma link add rxe0 type rxe netdev eth0
wait_for "[ \$(cfg monitor) = 0 ]" 100
log "monitor, rxe0 back: 0"

echo "+0-7" > $NB/badblocks
expect_rc 1 "monitor, device unreadable" cfg monitor
grep -q "cannot be read" /tmp/ocf.out || { cat /tmp/ocf.out; fail "reason"; }
echo "-0-7" > $NB/badblocks
expect_rc 0 "monitor, readable again" cfg monitor

echo 0 > $NB/power
expect_rc 1 "monitor, device gone" cfg monitor
grep -q "missing" /tmp/ocf.out || { cat /tmp/ocf.out; fail "reason"; }
expect_rc 0 "stop, device gone" cfg stop
gone || fail "stop left objects"
nullblk_destroy ocfnb
nullblk_create ocfnb 64 > /dev/null

# --- reservations carried over by the state file ----------------------------
SHARED=/mnt/ocf-shared
RCONF=/tmp/ocf-resv.json
mkdir -p $SHARED
mount -t tmpfs -o size=1m shared $SHARED
# (a state in the file is a snapshot: the state file's wins at enable, and
# monitor does not compare the hosts' reservations with it)
sed "s|{ \"nsid\": 2, \"enable\": 1,|{ \"nsid\": 2, \"enable\": 1, \"resv\": { \"enable\": 1, \"file\": \"$SHARED/ns2\", \"state\": \"generation=0 type=0 ptpl=0\" },|" \
	$CONF > $RCONF
grep -q "\"file\": \"$SHARED/ns2\"" $RCONF || fail "no resv.file in $RCONF"
rcfg() { cfg "$@" OCF_RESKEY_config=$RCONF OCF_RESKEY_resv_dir=$SHARED; }
expect_rc 0 "validate-all, resv_dir" rcfg validate-all
expect_rc 6 "validate-all, a state file in a clone" rcfg validate-all OCF_RESKEY_CRM_meta_clone_max=2
expect_rc 0 "start, reservations on" rcfg start
[ "$(cat $S/namespaces/2/resv_file)" = $SHARED/ns2 ] || fail "resv_file: $(cat $S/namespaces/2/resv_file)"
# (namespace 2's own device: with two namespaces the host refuses I/O
# commands on the controller's)
nvme_connect $NQN > /dev/null
wait_for "nvme_dev_for $NQN 2"
c=$(nvme_dev_for $NQN 2)
nvme resv-register $c -n 2 --nrkey=0x77 --rrega=0 --cptpl=3 > /dev/null || fail "register, CPTPL=3"
nvme resv-acquire $c -n 2 --crkey=0x77 --rtype=1 --racqa=0 > /dev/null || fail "acquire"
cmp -s $S/namespaces/2/resv_state $SHARED/ns2 || fail "the state file is not the state"
expect_rc 0 "monitor, the hosts' reservation differs from the file's snapshot" rcfg monitor
nvme disconnect-all > /dev/null
wait_for "nvme_ns_gone $NQN"
expect_rc 0 "stop, reservations on" rcfg stop
gone || fail "stop left objects"
# all in-memory state gone, as on the node that takes over
rmmod purlin
expect_rc 0 "start on the node taking over" rcfg start
cmp -s $S/namespaces/2/resv_state $SHARED/ns2 || fail "the state did not come back"
# (namespace 2's own device: with two namespaces the host refuses I/O
# commands on the controller's)
nvme_connect $NQN > /dev/null
wait_for "nvme_dev_for $NQN 2"
c=$(nvme_dev_for $NQN 2)
nvme resv-report $c -n 2 -e -d 63 -o binary > rep.bin || fail "resv-report"
# u OFF SIZE: unsigned little-endian field of rep.bin
u() { od -An -t u$2 -j $1 -N $2 rep.bin | tr -d ' '; }
[ "$(u 4 1)" = 1 ] && [ "$(u 5 2)" = 1 ] && [ "$(u 9 1)" = 1 ] &&
	[ "$(u 72 8)" = 119 ] && [ "$(u 66 1)" = 1 ] ||
	fail "after the failover: rtype $(u 4 1) regctl $(u 5 2) ptpls $(u 9 1) rkey $(u 72 8) rcsts $(u 66 1)"
log "reservation carried over: Write Exclusive, key 0x77, held"
mount -o remount,ro $SHARED
expect_rc 1 "monitor, shared directory read-only" rcfg monitor
grep -q "not writable" /tmp/ocf.out || { cat /tmp/ocf.out; fail "reason"; }
mount -o remount,rw $SHARED
expect_rc 0 "monitor, writable again" rcfg monitor
nvme disconnect-all > /dev/null
wait_for "nvme_ns_gone $NQN"
expect_rc 0 "stop" rcfg stop
gone || fail "stop left objects"
umount $SHARED

# --- ANA -------------------------------------------------------------------
expect_rc 0 "start" cfg start
ana() {
	local a=$1 rc=0
	shift
	env OCF_RESKEY_ports=1 OCF_RESOURCE_INSTANCE=ana OCF_RESKEY_CRM_meta_interval=10000 \
		"$@" $RA/purlin-ana "$a" > /tmp/ocf.out 2>&1 || rc=$?
	echo $rc
}
# a new port's group 1 is optimized: a probe of the unstarted clone says so
ANA=$PURLIN_CFS/ports/1/ana_groups/1/ana_state
[ "$(cat $ANA)" = optimized ] || fail "new port's group 1: $(cat $ANA)"
expect_rc 8 "ana probe, not started but optimized" ana monitor OCF_RESKEY_CRM_meta_interval=0
grep -q "optimized here" /tmp/ocf.out || { cat /tmp/ocf.out; fail "reason"; }
# ocf-tester demotes and stops it first, then runs its sequence
tester purlin-ana -o ports=1
[ "$(cat $ANA)" = inaccessible ] || fail "ana stopped: $(cat $ANA)"
# the group is inaccessible: the host adds the path, but no live head yet
# (a path device, nvmeXcYn1, exists only with the host's native multipath:
# the debug lane boots this test with it, see scripts/check-debug.sh)
[ "$(cat /sys/module/nvme_core/parameters/multipath)" = Y ] ||
	fail "the ANA part needs the host's native NVMe multipath (nvme_core.multipath=Y)"
nvme connect -t rdma -a $TRADDR -s 4420 -n $NQN > /dev/null
wait_for "ls /sys/block/nvme*c*n1/ana_state" 100
path=$(ls -d /sys/block/nvme*c*n1 | head -n 1)
seen() { wait_for "[ \$(cat $path/ana_state) = $1 ]" 100; log "host path $(basename $path): $1"; }
expect_rc 7 "ana monitor, stopped" ana monitor
expect_rc 0 "ana start" ana start
seen inaccessible
expect_rc 0 "ana monitor, unpromoted" ana monitor
expect_rc 0 "ana promote" ana promote
seen optimized
expect_rc 8 "ana monitor, promoted" ana monitor
purlinctl ana-group set 1 1 state non-optimized
expect_rc 9 "ana monitor, promoted group changed behind its back" ana monitor
expect_rc 0 "ana promote again" ana promote
expect_rc 8 "ana monitor, promoted" ana monitor
expect_rc 0 "ana demote" ana demote
seen inaccessible
expect_rc 0 "ana monitor, unpromoted" ana monitor
expect_rc 0 "ana stop" ana stop
expect_rc 7 "ana monitor, stopped" ana monitor
expect_rc 0 "ana start, unpromoted non-optimized" ana start OCF_RESKEY_unpromoted_state=non-optimized
seen non-optimized
expect_rc 0 "ana promote" ana promote OCF_RESKEY_unpromoted_state=non-optimized
seen optimized
expect_rc 0 "ana demote" ana demote OCF_RESKEY_unpromoted_state=non-optimized
seen non-optimized
expect_rc 0 "ana stop" ana stop OCF_RESKEY_unpromoted_state=non-optimized
seen inaccessible

nvme disconnect-all > /dev/null
expect_rc 0 "stop" cfg stop
gone || fail "stop left objects"
purlin_clear
nullblk_destroy ocfnb
