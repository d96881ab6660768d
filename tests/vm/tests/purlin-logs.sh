# SPDX-License-Identifier: GPL-2.0
# Statistics and log pages: per-namespace and per-controller I/O counters
# in configfs, SMART / Health (controller-wide and per namespace), the
# error log, commands supported and effects; unknown log pages refused.
# timeout: 180

NQN=nqn.2026-11.io.purlin.test:logs
S=$PURLIN_CFS/subsystems/$NQN
brd_create 16
purlin_export $NQN /dev/ram0 1
dev=$(nvme_connect $NQN)
ctrl=$(ctrl_of $dev)

# stat FILE KEY: the value of KEY=N in FILE
stat() { tr ' ' '\n' < "$1" | sed -n "s/^$2=//p" | head -n1; }

log "namespace and controller counters"
cat $S/namespaces/1/stats
[ "$(stat $S/namespaces/1/stats write_bytes)" = 0 ] || fail "fresh namespace has writes"
dd if=/dev/urandom of="$dev" bs=64k count=16 oflag=direct 2>/dev/null
dd if="$dev" of=/dev/null bs=64k count=8 iflag=direct 2>/dev/null
cat $S/namespaces/1/stats
[ "$(stat $S/namespaces/1/stats write_bytes)" -ge 1048576 ] || fail "write_bytes"
[ "$(stat $S/namespaces/1/stats read_bytes)" -ge 524288 ] || fail "read_bytes"
[ "$(stat $S/namespaces/1/stats write_cmds)" -ge 1 ] || fail "write_cmds"
cat $S/controllers
# The controller ID is random (not guessable): the one the host was given.
cntlid=$(cat /sys/class/nvme/$(basename $ctrl)/cntlid)
grep -q "cntlid=$cntlid host=$HOSTNQN port=1 queues=3 " $S/controllers ||
	fail "controllers line (host's cntlid $cntlid)"
[ "$(stat $S/controllers write_bytes)" -ge 1048576 ] || fail "controller write_bytes"

log "SMART / Health"
nvme smart-log "$ctrl" > smart.txt
cat smart.txt
w=$(sed -n 's/^host_write_commands[[:space:]]*:[[:space:]]*//p' smart.txt | tr -d ',')
[ "${w:-0}" -ge 1 ] || fail "smart-log host_write_commands: $w"
u=$(sed -n 's/^Data Units Written[[:space:]]*:[[:space:]]*\([0-9,]*\).*/\1/p' smart.txt | tr -d ',')
[ "${u:-0}" -ge 2 ] || fail "smart-log data_units_written: $u"
nvme smart-log "$ctrl" --namespace-id=1 | grep -q "host_read_commands" || fail "per-namespace smart-log"
expect_status 0x400b nvme smart-log "$ctrl" --namespace-id=9	# Invalid Namespace, DNR

log "error log"
nlb=$(cat /sys/block/$(basename $dev)/size)
expect_status 0x4080 nvme read "$dev" --start-block=$nlb --block-count=0 --data-size=512 --data=x.bin
nvme error-log "$ctrl" --log-entries=1 > err.txt
cat err.txt
grep -q "error_count[[:space:]]*:[[:space:]]*[1-9]" err.txt || fail "error log has no entry"
# LBA Out of Range with DNR (0x4080), shown shifted into the CQE's status
# field (0x8100) by older nvme-cli: nothing else passes.
grep -Eq "^status_field[[:space:]]*:[[:space:]]*0x(4080|8100)([^0-9a-f]|\$)" err.txt ||
	fail "error log status is not LBA Out of Range: $(grep status_field err.txt)"
[ "$(stat $S/namespaces/1/stats errors)" -ge 1 ] || fail "namespace errors counter"

log "commands supported and effects"
# dword N of the log: acs[] from 0, iocs[] from dword 256
nvme get-log "$ctrl" --log-id=5 --log-len=4096 --raw-binary > eff.bin
dword() { od -A n -t u4 -j $(($1 * 4)) -N 4 eff.bin | tr -d ' '; }
[ "$(dword 6)" = 1 ] || fail "Identify (admin 0x06) not listed as supported"
[ "$(dword $((256 + 2)))" = 1 ] || fail "Read (0x02) not listed as supported"
[ "$(dword $((256 + 1)))" = 3 ] || fail "Write (0x01): want supported + LBA content change"
[ "$(dword $((256 + 0x80)))" = 0 ] || fail "an unimplemented opcode is listed"

log "unknown log page refused: Invalid Field, DNR (NVMe 2.0 Get Log Page)"
expect_status 0x4002 nvme get-log "$ctrl" --log-id=0xc0 --log-len=512
log "log page offset past the end: Invalid Field, DNR"
expect_status 0x4002 nvme get-log "$ctrl" --log-id=2 --log-len=512 --lpo=4096

nvme_disconnect $NQN
purlin_clear
