# SPDX-License-Identifier: GPL-2.0
# purlinctl against the real kernel: bad input (for Purlin's limits) is
# refused before configfs is touched; each kind of failure has its exit
# status; kernel refusals are reported with the object, the errno text and
# what to run; a restore that fails half-way rolls back everything it
# created, and one that changes a live port unlinks and relinks it.
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
expect_err 2 "ns nsid '0' must be a decimal in 1..1024" purlinctl ns add $NQN 0 path /dev/ram0
expect_err 2 "addr_traddr must be an IPv4 address" purlinctl port add 1 traddr 999.9.9.9
# Purlin's limits, not nvmet's: each of these the kernel would refuse
expect_err 2 "addr_trtype 'tcp' must be rdma: Purlin serves NVMe over RDMA only" \
	purlinctl port add 8 trtype tcp traddr $TRADDR
expect_err 2 "param_inline_data_size '1048576' must be -1 (the default, 4096) or 0..16384" \
	purlinctl port add 8 traddr $TRADDR inline-size 1048576
expect_err 2 "param_max_queue_size '8' must be -1 (the default, 128) or 16..1024" \
	purlinctl port add 8 traddr $TRADDR queue-size 8
expect_err 2 "ns nsid '2000' must be a decimal in 1..1024" purlinctl ns add $NQN 2000 path /dev/ram0
expect_err 2 "attr_qid_max '500' must be a decimal in 1..128" purlinctl subsys add $NQN qid-max 500
expect_err 2 "'enable' and 'disable' contradict each other" \
	purlinctl ns add $NQN 1 path /dev/ram0 enable disable
expect_err 2 "path /dev/nosuch: No such file or directory" purlinctl ns add $NQN 1 path /dev/nosuch
echo "root:x:0:0:root:/root:/bin/sh" > passwd   # /etc/passwd, say: no disk
expect_err 2 "a namespace file holds whole 512-byte blocks" purlinctl ns add $NQN 1 path $PWD/passwd
expect_err 3 "subsys $NQN: does not exist: create it with 'purlinctl subsys add $NQN'" \
	purlinctl subsys show $NQN
nothing_configured

log "malformed and inconsistent files: nothing applied"
echo '{ "subsystems": [ ' > bad.json
expect_err 6 "bad.json: line 2, column 1: invalid JSON: the document ends before it is complete" \
	purlinctl restore bad.json
# port 2 links a subsystem the file does not define
sed 's|^        "nqn.2026-11.io.purlin.test:restore-b"$|        "nqn.2026-11.io.purlin.test:nope"|' \
	/tests/data/two-by-two.json > dangling.json
grep -q ':nope"' dangling.json || fail "test file not built"
expect_err 6 "nope" purlinctl restore dangling.json
nothing_configured

log "a kernel refusal half-way through a restore rolls back"
# /dev/ram1 .. ram3 do not exist (one brd disk): the kernel refuses them.
expect_err 1 "ns 2: device_path: No such file" purlinctl restore /tests/data/two-by-two.json
grep -qi "rolled back" err.txt || fail "no rollback reported"
nothing_configured

log "kernel errno text reaches the user, with the reason and what to run"
purlinctl subsys add $NQN allow-any-host on
expect_err 4 "subsys $NQN: already exists: change it with 'purlinctl subsys set $NQN" \
	purlinctl subsys add $NQN
purlinctl host add nqn.2026-11.io.purlin.test:h1
expect_err 4 "allows any host, so it lists none" \
	purlinctl subsys allow $NQN nqn.2026-11.io.purlin.test:h1
purlinctl ns add $NQN 1 path /dev/ram0
purlinctl port add 1 traddr 10.99.0.77
expect_err 1 "Cannot assign requested address: no local interface has port 1's traddr" \
	purlinctl port link 1 $NQN
# the kernel's: a CPU no guest has
expect_err 1 "port 1: param_poll_cpus: Numerical result out of range" \
	purlinctl port set 1 poll-cpus 8192
purlinctl port set 1 traddr $TRADDR
purlinctl port link 1 $NQN
expect_err 4 "unlink it first ('purlinctl port unlink 1 $NQN')" purlinctl port set 1 trsvcid 4425
expect_err 4 "port 1: exports subsys '$NQN'" purlinctl port set 1 cq-mode poll
expect_err 4 "port 1 already has $TRADDR service 4420" purlinctl port add 2 traddr $TRADDR
[ "$(cat $PURLIN_CFS/ports/1/param_cq_mode)" = workqueue ] || fail "cq_mode changed"

log "restore moves a live port: unlinked, changed, linked again"
purlinctl save live.json
sed 's/"trsvcid": "4420"/"trsvcid": "4425"/' live.json > moved.json
grep -q '"trsvcid": "4425"' moved.json || fail "test file not built"
kmark moved
purlinctl restore moved.json
[ "$(cat $PURLIN_CFS/ports/1/addr_trsvcid)" = 4425 ] || fail "trsvcid not restored"
[ -L "$PURLIN_CFS/ports/1/subsystems/$NQN" ] || fail "port 1 not linked again"
since_mark moved | grep -q "port 1: listening on $TRADDR:4425" || fail "port 1 not listening on 4425"
nvme discover -t rdma -a $TRADDR -s 4425 | grep -q "subnqn: *$NQN" ||
	fail "discovery on the moved port does not list $NQN"
purlinctl -j subsys show $NQN > show.json
grep -q '"serial"' show.json || fail "JSON show has no serial"
purlinctl clear
nothing_configured
rmmod purlin
