# SPDX-License-Identifier: GPL-2.0
# What the stock host gets for settings no other test checks by value:
# - data_pool_mb: a 16 MiB and a 1 MiB (raised to the 68-chunk minimum)
#   pool are what Purlin reports and holds, and 1 MiB I/O still verifies;
# - FUA: a Write with FUA (nvme write -f, and an O_DSYNC direct write
#   through the host's block layer) reaches the backing device as a FUA
#   write, one without FUA does not carry it, a Flush reaches it as a cache
#   flush (a loop device: a volatile cache, no FUA, so the block layer
#   completes each FUA write with a counted flush; brd has no cache and the
#   block layer drops FUA there);
# - Get/Set Features: Number of Queues, Keep Alive Timer, Async Event
#   Config, Volatile Write Cache, Host Identifier values and the statuses of
#   the refused ones, and the effect of the values set (a host that keeps
#   Set Features from user space, as those of 6.12 and 7.2 do, is
#   probed: the command must not reach Purlin; Purlin's answers to it are
#   checked from the wire client, nvmf-wire set-features, on every host);
# - param_inline_data_size 8192 and 0: IOCCSZ, and writes of that size go
#   in-capsule (no data pool chunk) and verify;
# - addr_treq: the TREQ byte of every discovery log entry;
# - attr_version: Identify VER and the VS property, at connect and live;
# - ANA inaccessible, persistent-loss and change: the host's ANA state and
#   ANA log, the status of a command sent anyway, what block I/O does, and
#   the host's ANATT reset when a transition outlasts 2 x ANATT.
# Each part starts from an unloaded module and ends with purlin_clear.
# timeout: 300

NQN=nqn.2026-11.io.purlin.test:gaps
S=$PURLIN_CFS/subsystems/$NQN
exec < /dev/null	# nvme-cli reads feature data from stdin when it wants some
T_START=$(date +%s)

# part NAME: log the part and how long the test has run.
part() { log "[$(($(date +%s) - T_START))s] $*"; }

# hexval: the hex number after the last "value:" of nvme-cli's output, as
# a decimal (get-feature prints "Current value:0x...", get-property
# "value: 10400" without the 0x).
hexval() {
	local v
	v=$(sed -n 's/.*value: *\(0x\)\{0,1\}\([0-9a-fA-F]*\).*/\2/p' | tail -n1)
	[ -n "$v" ] || return 1
	echo $((0x$v))
}

# nvme_status FILE: the NVMe status nvme-cli printed ("...(0x4002)").
nvme_status() {
	sed -n 's/^NVMe status: .*(\(0x[0-9a-f]*\))$/\1/p' "$1" | tail -n1
}

# expect_status WANT CMD...: CMD must fail with NVMe status WANT.
expect_status() {
	local want=$1 got
	shift
	if "$@" > st.out 2>&1; then
		cat st.out
		fail "expected status $want: $*"
	fi
	got=$(nvme_status st.out)
	if [ "$got" != "$want" ]; then
		cat st.out
		fail "$*: status ${got:-none}, want $want"
	fi
}

# ctrl_of_nqn NQN [HOSTNQN]: the host's controller (nvmeX) for NQN.
ctrl_of_nqn() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat $c/subsysnqn 2>/dev/null)" = "$1" ] || continue
		[ -z "${2:-}" ] || [ "$(cat $c/hostnqn)" = "$2" ] || continue
		basename $c
		return 0
	done
	return 1
}

# nsstat KEY: a counter of namespace 1's stats.
nsstat() { tr ' ' '\n' < $S/namespaces/1/stats | sed -n "s/^$1=//p"; }

# pool_min_while PID [SECS]: POOL_MIN, the smallest pool_free seen while
# PID runs; PID is killed and the test fails if it runs longer than SECS
# (default 120).  Not in a command substitution: PID is this shell's child,
# and only this shell reaps it (a subshell's kill -0 would see the zombie
# forever).
pool_min_while() {
	local f end=$(($(date +%s) + ${2:-120} * ${SCALE:-1}))
	POOL_MIN=1000000
	while kill -0 "$1" 2>/dev/null; do
		f=$(live pool_free)
		if [ "$f" -lt "$POOL_MIN" ]; then POOL_MIN=$f; fi
		if [ "$(date +%s)" -ge $end ]; then
			kill -9 "$1"
			fail "I/O still running after $((${2:-120} * ${SCALE:-1})) s (live: $(purlin_live))"
		fi
		sleep 0.02
	done
}

# fio_bg NAME DEV RW BS QD SIZE [ARGS...]: fio in the background; PID in FIO_PID.
fio_bg() {
	local name=$1 dev=$2 rw=$3 bs=$4 qd=$5 size=$6
	shift 6
	fio --name="$name" --filename="$dev" --ioengine=libaio --direct=1 \
		--rw="$rw" --bs="$bs" --iodepth="$qd" --size="$size" "$@" \
		> "$name.out" 2>&1 &
	FIO_PID=$!
}

# ---------------------------------------------------------------------------
part "data_pool_mb=16: 256 chunks of 64 KiB, held within a queue's share"
modprobe purlin data_pool_mb=16
[ "$(cat /sys/module/purlin/parameters/data_pool_mb)" = 16 ] || fail "data_pool_mb parameter"
[ "$(live pool_free)" = 256 ] || fail "pool_free $(live pool_free), want 256 (16 MiB / 64 KiB)"
dmesg | grep "purlin: data buffer pool:" | tail -n1 | grep -q ": 256 chunks of 64 KiB$" ||
	fail "load message: $(dmesg | grep 'purlin: data buffer pool:' | tail -n1)"
brd_create 64
purlin_export $NQN /dev/ram0 1
dev=$(nvme_connect $NQN 4420 --nr-io-queues=1)
# 1 MiB writes then reads: 16 chunks each, 16 in flight want 256 chunks;
# the controller's share is T / 4 = 64 and a queue's min(T / 8, ...) = 32.
fio_bg pool "$dev" write 1M 16 32M --verify=crc32c --do_verify=1 --verify_fatal=1
pool_min_while $FIO_PID; min=$POOL_MIN
wait $FIO_PID || { cat pool.out; fail "fio verify with a 16 MiB pool"; }
log "pool_free went down to $min of 256"
[ "$min" -lt 256 ] || fail "the pool was never used (min pool_free $min)"
[ "$min" -ge $((256 - 32)) ] ||
	fail "one queue held $((256 - min)) chunks; its share of a 256-chunk pool is 32"
nvme_disconnect $NQN
[ "$(live pool_free)" = 256 ] || fail "pool_free $(live pool_free) after disconnect, want 256"
purlin_clear

part "data_pool_mb=1: raised to the minimum, 68 chunks; 1 MiB I/O waits, never fails"
modprobe purlin data_pool_mb=1
[ "$(live pool_free)" = 68 ] || fail "pool_free $(live pool_free), want the minimum 68"
purlin_export $NQN /dev/ram0 1
dev=$(nvme_connect $NQN 4420 --nr-io-queues=2)
fio_verify "$dev" 1M 16 16M
nvme_disconnect $NQN
[ "$(live pool_free)" = 68 ] || fail "pool_free $(live pool_free) after disconnect, want 68"
purlin_clear
rmmod brd

# ---------------------------------------------------------------------------
part "FUA: nvme write -f and O_DSYNC writes reach the device with FUA"
# The device: a loop device on a tmpfs file, which has a volatile write
# cache and no FUA (6.1's loop: write_cache "write back", fua 0).  For such
# a device the block layer keeps FUA and completes a FUA write with a cache
# flush after the data (REQ_FSEQ_POSTFLUSH), counted in the disk's flush
# I/Os (/sys/block/X/stat field 16); a write without FUA adds none, and a
# device without a write cache (brd) would drop FUA unseen.  Not block
# tracepoints: switching one on or off patches kernel text on every CPU,
# and under TCG that once left the guest in a soft lockup (CPU 1 spinning
# on the int3 of text_poke_bp).
mkdir -p /mnt/fua
mount -t tmpfs -o size=80m tmpfs /mnt/fua
truncate -s 64M /mnt/fua/ns.img
modprobe loop
lo=$(losetup -f)
losetup "$lo" /mnt/fua/ns.img
# If the test fails: detach (when Purlin lets go of it, autoclear).
trap 'losetup -d "$lo" 2> /dev/null' EXIT
lb=$(basename "$lo")
[ "$(cat /sys/block/$lb/queue/write_cache)" = "write back" ] ||
	fail "$lo: write_cache $(cat /sys/block/$lb/queue/write_cache), want write back"
[ "$(cat /sys/block/$lb/queue/fua)" = 0 ] || fail "$lo advertises FUA: its flushes would not show FUA"
flushes() { awk '{ print $16 }' /sys/block/$lb/stat; }

purlin_export $NQN "$lo" 1
dev=$(nvme_connect $NQN)
hb=$(basename $dev)
# Purlin's Volatile Write Cache bit makes the host's disk write-back with FUA.
[ "$(cat /sys/block/$hb/queue/write_cache)" = "write back" ] ||
	fail "host write_cache: $(cat /sys/block/$hb/queue/write_cache)"
[ "$(cat /sys/block/$hb/queue/fua)" = 1 ] || fail "host disk has no FUA"
dd if=/dev/urandom of=pat bs=4k count=1 2>/dev/null
# step WANT WHAT CMD...: CMD makes the host send one Write (Purlin's
# write_cmds + 1); the device must see WANT cache flushes meanwhile.  (The
# device's own write count is no use: the empty PREFLUSH write of a Flush
# counts as one there.)
step() {
	local want=$1 what=$2 f0 p0 f p
	shift 2
	f0=$(flushes)
	p0=$(nsstat write_cmds)
	"$@" > step.out 2>&1 || { cat step.out; fail "$what"; }
	f=$(($(flushes) - f0))
	p=$(($(nsstat write_cmds) - p0))
	log "$what: $p write(s) to Purlin, $f cache flush(es) at $lb"
	[ $p = 1 ] || fail "$what: the host sent $p writes, want 1"
	[ $f = "$want" ] || fail "$what: $f cache flushes at $lo, want $want"
}
# Passthrough (LBA 0, 8 blocks of 512 bytes) with and without FUA.
step 1 "nvme write -f" nvme write "$dev" --start-block=0 --block-count=7 \
	--data-size=4096 --data=pat -f
step 0 "nvme write" nvme write "$dev" --start-block=8 --block-count=7 \
	--data-size=4096 --data=pat
# Through the host's block layer: an O_DSYNC direct write is a FUA write
# (one flush after it) and then the host's own Flush (blkdev_fsync): two.
step 2 "O_DSYNC direct write" fio --name=dsync --filename="$dev" --ioengine=psync \
	--direct=1 --sync=dsync --rw=write --bs=4k --size=4k --offset=64k
step 0 "plain direct write" fio --name=plain --filename="$dev" --ioengine=psync \
	--direct=1 --rw=write --bs=4k --size=4k --offset=128k
f0=$(flushes)
nvme flush "$dev" > /dev/null
[ $(($(flushes) - f0)) = 1 ] || fail "nvme flush: $(($(flushes) - f0)) cache flushes at $lo, want 1"
nvme read "$dev" --start-block=0 --block-count=7 --data-size=4096 --data=back > /dev/null
cmp pat back || fail "FUA write did not read back"
nvme_disconnect $NQN
purlin_clear
losetup -d "$lo"
trap - EXIT
umount /mnt/fua

# ---------------------------------------------------------------------------
part "Get/Set Features values"
brd_create 16
purlin_subsys $NQN
echo 2 > $S/attr_qid_max
purlin_ns $NQN 1 /dev/ram0
purlin_port 1
purlin_link 1 $NQN
# 3 queues asked, qid_max 2: Set Features grants 2, the host makes 2.
dev=$(nvme_connect $NQN 4420 --nr-io-queues=3 --keep-alive-tmo=7)
c=$(ctrl_of_nqn $NQN)
cntlid=$(cat /sys/class/nvme/$c/cntlid)
[ "$(cat /sys/class/nvme/$c/queue_count)" = 3 ] ||
	fail "host has $(cat /sys/class/nvme/$c/queue_count) queues, want admin + 2"

# getf FID [ARGS]: the current value of a feature, decimal
getf() {
	nvme get-feature /dev/$c -f "$@" > gf.out 2>&1 || { cat gf.out; fail "get-feature $*"; }
	hexval < gf.out || { cat gf.out; fail "get-feature $*: no value"; }
}
setf() {
	nvme set-feature /dev/$c -f "$1" -v "$2" > sf.out 2>&1 || { cat sf.out; fail "set-feature $*"; }
}

log "Number of Queues (0x07): 2 granted (0's based 1/1); fixed once I/O queues exist"
[ "$(getf 7)" = $((0x00010001)) ] || fail "Number of Queues: $(cat gf.out), want 0x00010001"
# host_set WANT FID VALUE: Set Features FID through the host's character
# device must end with NVMe status WANT -- unless this host keeps the
# command from user space (6.12's and 7.2's answer the ioctl "Permission
# denied" for 0x07 and 0x0c): probed, not assumed.  Then Purlin must not have
# received it (its receive tracepoint is on from here to the end of the
# refusals; tr_check shows that it records commands), and FID joins
# HOST_KEPT.  Purlin's own answers to the Sets a host keeps are checked by
# the wire client at the end (nvmf-wire set-features).
TR=/sys/kernel/tracing
[ -d $TR/events ] || mount -t tracefs nodev $TR
echo > $TR/trace
echo 1 > $TR/events/purlin/purlin_cmd_recv/enable
HOST_KEPT=
host_set() {
	local want=$1 fid=$2
	if nvme set-feature /dev/$c -f $fid -v $3 < /dev/zero > st.out 2>&1; then
		cat st.out
		fail "set-feature -f $fid -v $3 succeeded, want status $want"
	fi
	if [ -n "$(nvme_status st.out)" ]; then
		[ "$(nvme_status st.out)" = $want ] ||
			{ cat st.out; fail "set-feature -f $fid -v $3: status $(nvme_status st.out), want $want"; }
	elif grep -q "Permission denied" st.out; then
		if grep "opcode=0x09 .*cdw10=$(printf 0x%08x $fid)" $TR/trace; then
			fail "the host refused Set Features $fid, yet Purlin received it"
		fi
		case " $HOST_KEPT " in *" $fid "*) ;; *) HOST_KEPT="$HOST_KEPT $fid" ;; esac
	else
		cat st.out
		fail "set-feature -f $fid -v $3: neither an NVMe status nor the host's refusal"
	fi
}
host_set 0x400c 7 0
[ "$(getf 7)" = $((0x00010001)) ] || fail "Number of Queues changed by a refused Set: $(cat gf.out)"
grep "opcode=0x0a .*cdw10=0x00000007" $TR/trace > /dev/null ||
	fail "the receive tracepoint did not record the Get Features Number of Queues"
host_set 0x4002 7 0xffff

log "Keep Alive Timer (0x0f): the Connect's KATO, Set rounds up to whole seconds (KAS 10)"
[ "$(nvme id-ctrl /dev/$c | idfield kas)" = 10 ] || fail "id-ctrl kas"
[ "$(getf 0x0f)" = 7000 ] || fail "KATO after connect --keep-alive-tmo=7: $(cat gf.out)"
setf 0x0f 12345
[ "$(getf 0x0f)" = 13000 ] || fail "KATO after Set 12345 ms: $(cat gf.out), want 13000"
setf 0x0f 5000
[ "$(getf 0x0f)" = 5000 ] || fail "KATO after Set 5000: $(cat gf.out)"

log "Async Event Config (0x0b): what the host enabled (OAES: namespace attribute, ANA change)"
[ "$(getf 0x0b)" = $((0x900)) ] || fail "AEC after connect: $(cat gf.out), want 0x900"
setf 0x0b 0x800
[ "$(getf 0x0b)" = $((0x800)) ] || fail "AEC after Set 0x800: $(cat gf.out)"
# Namespace attribute notices off: namespace 2 stays unseen...
purlin_ns $NQN 2 /dev/ram0
sleep 3
nvme_ns_name $NQN 2 > /dev/null && fail "namespace 2 appeared with namespace notices disabled"
# ... until they are on again and the next change is noticed.
setf 0x0b 0x900
[ "$(getf 0x0b)" = $((0x900)) ] || fail "AEC after Set 0x900: $(cat gf.out)"
purlin_ns $NQN 3 /dev/ram0
wait_for "nvme_dev_for $NQN 2 && nvme_dev_for $NQN 3" 100

log "Volatile Write Cache (0x06): enabled, not changeable"
[ "$(getf 6)" = 1 ] || fail "VWC: $(cat gf.out)"
expect_status 0x410e nvme set-feature /dev/$c -f 6 -v 0
[ "$(getf 6)" = 1 ] || fail "VWC after a refused Set: $(cat gf.out)"

log "Host Identifier (0x81): the Connect's 128-bit host ID; not settable over Fabrics"
nvme get-feature /dev/$c -f 0x81 --cdw11=1 --data-len=16 -b > hid.bin 2> gf.err ||
	{ cat gf.err; fail "get-feature host identifier"; }
got=$(od -A n -t x1 hid.bin | tr -d ' \n')
want=$(tr -d '-' < /etc/nvme/hostid)
[ "$got" = "$want" ] || fail "Host Identifier $got, want $want (/etc/nvme/hostid)"
# EXHID 0 (a 64-bit host ID) is not allowed over Fabrics.
expect_status 0x4002 nvme get-feature /dev/$c -f 0x81 --cdw11=0 --data-len=16
head -c 16 /dev/zero > zid.bin
# Set: Command Sequence Error (the ID comes with the Connect), with the
# 16-byte ID or without data.
expect_status 0x400c nvme admin-passthru /dev/$c --opcode=0x09 --cdw10=0x81 \
	--cdw11=1 --data-len=16 --write --input-file=zid.bin
expect_status 0x400c nvme admin-passthru /dev/$c --opcode=0x09 --cdw10=0x81 --cdw11=1
nvme get-feature /dev/$c -f 0x81 --cdw11=1 --data-len=16 -b > hid2.bin 2> gf.err
cmp hid.bin hid2.bin || fail "Host Identifier changed by a refused Set"

log "features Purlin does not implement: Invalid Field (0x4002)"
# nvme-cli sends the data these features define (LBA Range Type: 4 KiB;
# Autonomous Power State Transition: 256 bytes): the status is Invalid
# Field whatever the data, not an SGL length error.
for f in 0x03 0x0c 0x10 0x80 0x7f; do
	expect_status 0x4002 nvme get-feature /dev/$c -f $f
	host_set 0x4002 $f 0
done
echo 0 > $TR/events/purlin/purlin_cmd_recv/enable
echo > $TR/trace
[ -z "$HOST_KEPT" ] ||
	report "this host keeps Set Features$HOST_KEPT from user space (Permission denied): none reached Purlin"
# Purlin's answers whatever the host lets through: the wire client sends
# those Sets on a controller of its own with an I/O queue.
nvmf-wire -a $TRADDR -s 4420 -n $NQN set-features > wire.txt 2>&1 ||
	{ cat wire.txt; fail "nvmf-wire set-features"; }
grep -q "^PASS set-features" wire.txt || { cat wire.txt; fail "nvmf-wire set-features did not pass"; }

log "Set Features KATO 1000: the target times 1 s, the host keeps it alive"
# The host snoops its own Set Features KATO and sends Keep Alive every
# KATO / 2; the target must not end a controller that does.
kmark gaps-kato	# a mark, not a line count: the ring buffer may be full
grep -q "cntlid=$cntlid .*kato_ms=5000 " $S/controllers || fail "controllers: $(cat $S/controllers)"
setf 0x0f 1000
[ "$(getf 0x0f)" = 1000 ] || fail "KATO after Set 1000: $(cat gf.out)"
grep -q "cntlid=$cntlid .*kato_ms=1000 " $S/controllers || fail "controllers after Set: $(cat $S/controllers)"
sleep 6
since_mark gaps-kato > ka.dmesg
grep -q "$c: keep alive interval updated from .* to 500 ms" ka.dmesg ||
	{ cat ka.dmesg; fail "the host did not move to a 500 ms keep-alive interval"; }
grep -q "keep-alive timeout" ka.dmesg && { cat ka.dmesg; fail "keep-alive timeout with Keep Alive every 500 ms"; }
grep -q "^cntlid=$cntlid " $S/controllers || fail "controller $cntlid ended under a 1 s KATO kept alive"
[ "$(cat /sys/class/nvme/$c/state)" = live ] || fail "host controller $(cat /sys/class/nvme/$c/state)"
setf 0x0f 5000
nvme disconnect -n $NQN > /dev/null
wait_for "! ctrl_of_nqn $NQN" 100
purlin_clear

# ---------------------------------------------------------------------------
# inline_check INLINE: IOCCSZ, and writes up to INLINE bytes in-capsule.
inline_check() {
	local ic=$1 min
	purlin_export $NQN /dev/ram0 1 4420 inline_data_size=$ic
	[ "$(cat $PURLIN_CFS/ports/1/param_inline_data_size)" = $ic ] || fail "param_inline_data_size readback"
	dev=$(nvme_connect $NQN 4420 --nr-io-queues=1)
	c=$(ctrl_of_nqn $NQN)
	nvme id-ctrl /dev/$c > id.txt
	[ "$(idfield ioccsz < id.txt)" = $(((64 + ic) / 16)) ] ||
		fail "inline $ic: ioccsz $(idfield ioccsz < id.txt), want $(((64 + ic) / 16))"
	[ "$(idfield iorcsz < id.txt)" = 1 ] || fail "iorcsz"
	total=$(live pool_free)
	if [ "$ic" -gt 0 ]; then
		# Writes of INLINE bytes: in the capsule, no RDMA READ, no chunk.
		fio_bg inl "$dev" randwrite $ic 32 8M --loops=2
		pool_min_while $FIO_PID 60; min=$POOL_MIN
		wait $FIO_PID || { cat inl.out; fail "fio writes of $ic bytes"; }
		[ "$min" = "$total" ] ||
			fail "writes of $ic bytes took data pool chunks ($min of $total free): not in-capsule"
		log "writes of $ic bytes: pool_free never below $min of $total"
	fi
	# Writes one block larger: keyed, each takes a chunk while its RDMA READ runs.
	fio_bg key "$dev" randwrite $((ic + 4096)) 32 8M --loops=2
	pool_min_while $FIO_PID 60; min=$POOL_MIN
	wait $FIO_PID || { cat key.out; fail "fio writes of $((ic + 4096)) bytes"; }
	[ "$min" -lt "$total" ] ||
		fail "writes of $((ic + 4096)) bytes never took a chunk: the pool probe sees nothing"
	log "writes of $((ic + 4096)) bytes (keyed): pool_free down to $min of $total"
	if [ "$ic" -gt 0 ]; then fio_verify "$dev" $ic 32 8M; fi
	fio_verify "$dev" 4k 32 8M
	nvme_disconnect $NQN
	purlin_clear
}
part "param_inline_data_size 8192: IOCCSZ 516, 8 KiB writes in-capsule"
inline_check 8192
part "param_inline_data_size 0: IOCCSZ 4, no in-capsule data"
inline_check 0

# ---------------------------------------------------------------------------
part "addr_treq in the discovery log"
purlin_subsys $NQN
purlin_ns $NQN 1 /dev/ram0
n=1
for t in "not specified" required "not required"; do
	purlin_port $n $((4419 + n))
	echo "$t" > $PURLIN_CFS/ports/$n/addr_treq
	[ "$(cat $PURLIN_CFS/ports/$n/addr_treq)" = "$t" ] || fail "addr_treq readback '$t'"
	purlin_link $n $NQN
	n=$((n + 1))
done
# treq_of SVC: "portid:treq" of each log entry, treq in hex (byte 3 of a
# 1024-byte entry after the 1024-byte header)
treq_of() {
	local e=0 nrec
	nvme discover -t rdma -a $TRADDR -s $1 -r disc.bin > disc.txt
	nrec=$(od -A n -t u8 -j 8 -N 8 disc.bin | tr -d ' ')
	while [ $e -lt "$nrec" ]; do
		printf '%s:%s\n' \
			$(od -A n -t u2 -j $((1024 + e * 1024 + 4)) -N 2 disc.bin | tr -d ' ') \
			$(od -A n -t x1 -j $((1024 + e * 1024 + 3)) -N 1 disc.bin | tr -d ' ')
		e=$((e + 1))
	done
}
# SQ flow control disable supported (bit 2) is always set, as in nvmet.
for want in "1:04 4420" "2:05 4421" "3:06 4422"; do
	svc=${want#* }
	got=$(treq_of $svc | sort -u | tr '\n' ' ')
	log "port ${want%%:*} (${svc}): portid:treq of the entries: $got"
	[ "$got" = "${want% *} " ] || fail "port ${want%%:*} discovery log treq: '$got', want '${want% *}' on both entries"
	[ "$(treq_of $svc | wc -l)" = 2 ] || fail "port ${want%%:*}: want 2 entries (discovery + $NQN)"
done
nvme discover -t rdma -a $TRADDR -s 4420 | grep -q "^treq: *not specified, sq flow control disable supported" ||
	{ cat disc.txt; fail "nvme discover does not show 'not specified' on port 1"; }
dev=$(nvme_connect $NQN 4421)
fio_verify "$dev" 4k 8 2M
nvme_disconnect $NQN
purlin_clear

# ---------------------------------------------------------------------------
part "attr_version: Identify VER and the VS property"
purlin_subsys $NQN
echo 1.4 > $S/attr_version
[ "$(cat $S/attr_version)" = 1.4 ] || fail "attr_version readback"
purlin_ns $NQN 1 /dev/ram0
purlin_port 1
purlin_link 1 $NQN
dev=$(nvme_connect $NQN)
c=$(ctrl_of_nqn $NQN)
# ver_is HEX: Identify VER and Property Get VS both say HEX
ver_is() {
	local v p
	v=$(nvme id-ctrl /dev/$c | idfield ver)
	nvme get-property /dev/$c --offset=0x8 > prop.out 2>&1 || { cat prop.out; fail "get-property VS"; }
	p=$(hexval < prop.out)
	[ "$v" = "$1" ] || fail "attr_version $(cat $S/attr_version): id-ctrl ver $v, want $1"
	[ "$p" = $(($1)) ] || fail "attr_version $(cat $S/attr_version): VS $(cat prop.out), want $1"
}
ver_is 0x10400
echo 2.0 > $S/attr_version
ver_is 0x20000
echo 1.2.3 > $S/attr_version
[ "$(cat $S/attr_version)" = 1.2.3 ] || fail "attr_version 1.2.3 readback"
ver_is 0x10203
echo 2.0 > $S/attr_version
nvme_disconnect $NQN
# A host that connects to a 2.0 controller works as well.
dev=$(nvme_connect $NQN)
c=$(ctrl_of_nqn $NQN)
ver_is 0x20000
fio_verify "$dev" 4k 8 2M
nvme_disconnect $NQN
purlin_clear

# ---------------------------------------------------------------------------
part "ANA inaccessible, persistent-loss, change"
purlin_export $NQN /dev/ram0 1
A=$PURLIN_CFS/ports/1/ana_groups/1/ana_state
dev=$(nvme_connect $NQN)
c=$(ctrl_of_nqn $NQN)
mp=$(cat /sys/module/nvme_core/parameters/multipath 2>/dev/null || echo N)
# the host's path device of namespace 1 (multipath: nvmeXcYn1 under the controller)
path=
if [ "$mp" = Y ]; then
	path=$(basename $(ls -d /sys/class/nvme/$c/nvme*c*n1))
	[ "$(cat /sys/block/$path/ana_state)" = optimized ] || fail "$path not optimized"
fi
log "host multipath=$mp, controller $c, path ${path:-none}"
chg0=$(nvme ana-log /dev/$c | sed -n 's/^chgcnt[[:space:]]*:[[:space:]]*//p' | head -n1)

# dd_bg: a 4 KiB direct read of the namespace in the background (DD_PID)
dd_bg() {
	dd if="$dev" of=/dev/null bs=4k count=1 skip=$1 iflag=direct 2> dd.err &
	DD_PID=$!
}

for st in inaccessible persistent-loss change; do
	case $st in
	inaccessible) sc=0x302 ;;
	persistent-loss) sc=0x301 ;;
	change) sc=0x303 ;;
	esac
	log "$st: status $sc"
	echo $st > $A
	if [ "$mp" = Y ]; then
		wait_for "[ \$(cat /sys/block/$path/ana_state) = $st ]" 100
	fi
	nvme ana-log /dev/$c > ana.txt
	grep -q "^state[[:space:]]*:[[:space:]]*$st\$" ana.txt || { cat ana.txt; fail "ANA log state is not $st"; }
	chg=$(sed -n 's/^chgcnt[[:space:]]*:[[:space:]]*//p' ana.txt | head -n1)
	[ "$chg" -gt "$chg0" ] || fail "ANA log change count did not move ($chg0 -> $chg)"
	chg0=$chg
	# A command sent on the path anyway (controller device, no multipath
	# retry): the ANA status, without DNR (another path may serve it).
	e0=$(nsstat errors)
	r0=$(nsstat read_cmds)
	expect_status $sc nvme io-passthru /dev/$c --opcode=0x02 --namespace-id=1 \
		--data-len=4096 --read --cdw12=7
	[ "$(nsstat errors)" = $((e0 + 1)) ] || fail "$st: namespace errors $e0 -> $(nsstat errors)"
	if [ "$mp" = Y ]; then
		# Native multipath holds block I/O while no path is usable...
		dd_bg 100
		sleep 3
		kill -0 $DD_PID 2>/dev/null || { cat dd.err; fail "$st: block read completed with no usable path"; }
		[ "$(nsstat read_cmds)" = "$r0" ] || fail "$st: a read reached the namespace"
		if [ $st = change ]; then
			# ... and a transition that outlasts 2 x ANATT (20 s) makes
			# the host reset the controller; the I/O stays queued.
			t0=$(date +%s)
			kmark gaps-anatt	# not the whole log: an earlier reset of $c
			await "since_mark gaps-anatt | grep -q '$c: ANATT timeout, resetting controller'" 350 \
				"no ANATT reset 35 s into the change state"
			dt=$(($(date +%s) - t0 + 3))
			log "host reset the controller ${dt}s after the change state (ANATT 10 s)"
			[ $dt -ge 17 ] && [ $dt -le $((20 + 15 * ${SCALE:-1})) ] ||
				fail "ANATT reset after ${dt}s, want 2 x ANATT = 20 s"
			kill -0 $DD_PID 2>/dev/null || { cat dd.err; fail "the queued read ended during the reset"; }
		fi
		# ... and sends it once the path is optimized again.
		echo optimized > $A
		wait_for "! kill -0 $DD_PID 2>/dev/null" 300
		wait $DD_PID || { cat dd.err; fail "$st: the queued read failed"; }
		[ "$(nsstat read_cmds)" -gt "$r0" ] || fail "$st: the queued read never reached the namespace"
		wait_for "[ \$(cat /sys/class/nvme/$c/state) = live ] && [ \$(cat /sys/block/$path/ana_state) = optimized ]" 300
	else
		# Without multipath the host retries on the same path, then fails.
		e0=$(nsstat errors)
		expect_fail dd if="$dev" of=/dev/null bs=4k count=1 skip=100 iflag=direct
		[ "$(nsstat read_cmds)" = "$r0" ] || fail "$st: a read reached the namespace"
		log "$st: the block read failed after $(($(nsstat errors) - e0)) refused commands"
		[ "$(nsstat errors)" -gt $((e0 + 1)) ] || fail "$st: the host did not retry the refused read"
		echo optimized > $A
	fi
	dd if="$dev" of=/dev/null bs=4k count=1 skip=200 iflag=direct 2>/dev/null ||
		fail "read after $st -> optimized"
done
# Checked last, so that a wrong ANATT shows in the reset's timing first.
[ "$(nvme id-ctrl /dev/$c | idfield anatt)" = 10 ] || fail "id-ctrl anatt"
fio_verify "$dev" 4k 8 2M
nvme_disconnect $NQN
purlin_clear
part "done"
