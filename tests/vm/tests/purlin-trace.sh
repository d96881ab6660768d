# SPDX-License-Identifier: GPL-2.0
# Tracepoints (tracefs events/purlin): disabled, nothing is recorded; on,
# every command of the stock host shows at receipt, execution and
# completion with its controller, queue, command ID, opcode, namespace and
# status: 64 direct 4 KiB reads give 64 of each on an I/O queue of the
# host's controller, every receipt matched by its completion (a read past
# the end fails its LBA check before execution: no exec event); a read of
# block 80 shows its SLBA and NLB in CDW10 and CDW12; a read past the end
# completes with LBA Out of Range.
# timeout: 200

NQN=nqn.2026-12.io.purlin.test:trace
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T
brd_create 16
purlin_export $NQN /dev/ram0 1
for e in purlin_cmd_recv purlin_cmd_exec purlin_cmd_done; do
	[ -d $T/events/purlin/$e ] || fail "tracefs has no events/purlin/$e"
done

ndev=$(nvme_connect $NQN)
cntlid=$(cat "/sys/class/nvme/$(basename "$(ctrl_of "$ndev")")/cntlid")
log "connected as $ndev, controller $cntlid"

log "disabled: nothing recorded"
echo > $T/trace
dd if="$ndev" of=/dev/null bs=4k count=16 iflag=direct 2> /dev/null
if grep -q 'purlin_cmd_' $T/trace; then
	fail "events recorded while disabled: $(grep -m1 purlin_cmd_ $T/trace)"
fi

log "enabled: 64 reads, each received, executed and completed"
echo 1 > $T/events/purlin/enable
echo > $T/trace
dd if="$ndev" of=/dev/null bs=4k count=64 iflag=direct 2> /dev/null
dd if="$ndev" of=/dev/null bs=4k skip=10 count=1 iflag=direct 2> /dev/null
nblk=$(( $(blockdev --getsize64 "$ndev") / 512 ))
nvme read "$ndev" -s $nblk -c 0 -z 512 > /dev/null 2>&1 &&
	fail "a read past the end succeeded"
echo 0 > $T/events/purlin/enable
cp $T/trace trace.txt
# One "EVENT key=value ..." line per event.
sed -n 's/.* \(purlin_cmd_[a-z]*\): /\1 /p' trace.txt > ev.txt
reads() { grep "^$1 " ev.txt | grep " qid=[1-9][0-9]* " | grep ' opcode=0x02 ' | grep -c ' nsid=1 ' || true; }
nr=$(reads purlin_cmd_recv)
ne=$(reads purlin_cmd_exec)
nd=$(reads purlin_cmd_done)
log "reads: $nr received, $ne executed, $nd completed"
[ "$nr" -ge 66 ] || fail "$nr reads received, 66 expected (64 + 1 + the one past the end)"
[ "$nr" = "$nd" ] && [ "$ne" = $((nr - 1)) ] ||
	fail "received $nr, executed $ne, completed $nd (all but the read past the end execute)"
grep '^purlin_cmd_' ev.txt | grep -v " cntlid=$cntlid " | grep -q ' qid=[1-9]' &&
	fail "an I/O command with another controller ID: $(grep ' qid=[1-9]' ev.txt | grep -v -m1 " cntlid=$cntlid ")"
# Every receipt of a read has its completion (queue and command ID).
awk '$1 == "purlin_cmd_recv" && / opcode=0x02 / { r[$3 " " $4]++ }
	$1 == "purlin_cmd_done" && / opcode=0x02 / { d[$3 " " $4]++ }
	END { for (k in r) if (r[k] != d[k]) { print "unmatched " k; exit 1 } }' ev.txt ||
	fail "a read received and not completed (or the other way)"
grep -q '^purlin_cmd_recv .* opcode=0x02 fctype=0x00 nsid=1 cdw10=0x00000050 cdw11=0x00000000 cdw12=0x00000007$' ev.txt ||
	fail "no receipt of the read at block 80 (SLBA 0x50, NLB 7)"
grep -q '^purlin_cmd_exec .* opcode=0x02 nsid=1 data_len=4096$' ev.txt ||
	fail "no execution with 4096 bytes of data"
ok=$(grep '^purlin_cmd_done ' ev.txt | grep ' opcode=0x02 ' | grep -c ' status=0x0000$' || true)
[ "$ok" -ge 65 ] || fail "$ok reads completed with status 0, 65 expected"
# LBA Out of Range: 0x80 in the status's low 11 bits (DNR may be set).
[ "$(grep '^purlin_cmd_done .* opcode=0x02 ' ev.txt | grep -c ' status=0x[0-9a-f][08]80$' || true)" = 1 ] ||
	fail "the read past the end did not complete with LBA Out of Range"
# Admin commands too (keep-alive, or the Identify nvme-cli sent).
grep -q '^purlin_cmd_done .* qid=0 ' ev.txt || fail "no admin command traced"

nvme_disconnect $NQN
purlin_clear
