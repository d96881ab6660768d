# SPDX-License-Identifier: GPL-2.0
# purlinctl against the real kernel: bad input is refused before configfs
# is touched; kernel refusals are reported with the object and the errno
# text; a restore that fails half-way rolls back everything it created.
# timeout: 120

NQN=nqn.2026-11.io.purlin.test:ctlerr
brd_create 16

# nothing_configured: the Purlin tree is empty.
nothing_configured() {
	[ -z "$(ls -A $PURLIN_CFS/subsystems)$(ls -A $PURLIN_CFS/ports)$(ls -A $PURLIN_CFS/hosts)" ] ||
		fail "configfs not empty: $(ls -R $PURLIN_CFS | head -20)"
}

modprobe purlin
log "usage errors exit 2 and touch nothing"
set +e
purlinctl subsys add bad/nqn 2> err.txt; rc=$?
set -e
[ $rc -eq 2 ] || fail "bad NQN: exit $rc"
cat err.txt
grep -q "subsys nqn 'bad/nqn' must be printable ASCII without '/'" err.txt ||
	fail "bad NQN: the message does not say why"
expect_err - "ns nsid '0' must be a decimal in 1..4294967294" purlinctl ns add $NQN 0 path /dev/ram0
expect_err - "addr_traddr must be an IPv4 address" purlinctl port add 1 traddr 999.9.9.9
nothing_configured

log "malformed and inconsistent files: nothing applied"
echo '{ "subsystems": [ ' > bad.json
expect_err - "bad.json: line 2, column 1: invalid JSON: the document ends before it is complete" \
	purlinctl restore bad.json
# port 2 links a subsystem the file does not define
sed 's|^        "nqn.2026-11.io.purlin.test:restore-b"$|        "nqn.2026-11.io.purlin.test:nope"|' \
	/tests/data/two-by-two.json > dangling.json
grep -q ':nope"' dangling.json || fail "test file not built"
expect_err - "nope" purlinctl restore dangling.json
nothing_configured

log "a kernel refusal half-way through a restore rolls back"
# /dev/ram1 .. ram3 do not exist (one brd disk): the kernel refuses them.
expect_err - "ns 2: device_path: No such file" purlinctl restore /tests/data/two-by-two.json
grep -qi "rolled back" err.txt || fail "no rollback reported"
nothing_configured

log "kernel errno text reaches the user"
purlinctl subsys add $NQN allow-any-host on
purlinctl ns add $NQN 1 path /dev/ram0
purlinctl port add 1 traddr 10.99.0.77
expect_err - "Cannot assign requested address" purlinctl port link 1 $NQN
purlinctl port set 1 traddr $TRADDR
purlinctl port link 1 $NQN
expect_err - "Permission denied" purlinctl port set 1 trsvcid 4425
# a CPU list is parsed before the live port is refused: a CPU no guest has
expect_err - "port 1: param_poll_cpus: Numerical result out of range" \
	purlinctl port set 1 poll-cpus 8192
expect_err - "port 1: param_cq_mode: Permission denied" purlinctl port set 1 cq-mode poll
purlinctl -j subsys show $NQN > show.json
grep -q '"serial"' show.json || fail "JSON show has no serial"
purlinctl clear
nothing_configured
rmmod purlin
