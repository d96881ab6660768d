# SPDX-License-Identifier: GPL-2.0
#
# Helpers for guest tests (busybox sh).  A test is a script sourced after
# this file with `set -e` in force: any failing command fails the test.
# Exit 0 = pass, 77 = skip (say why with skip), anything else = fail.

set -e
. /tests/realtools.sh

TRADDR=10.99.0.1
TRADDR6=fd99::1
HOSTNQN=$(cat /etc/nvme/hostnqn)
NVMET_CFS=/sys/kernel/config/nvmet
PURLIN_CFS=/sys/kernel/config/purlin
LIVE=/sys/module/purlin/parameters/live
MB=1048576

# Slow (debug) kernels: the harness sets PURLIN_TIMEOUT_SCALE (a factor,
# from purlin_timeout_scale= on the kernel command line); every wait below
# and the wire client's (nvmf-wire) limits are multiplied by it.
SCALE=${PURLIN_TIMEOUT_SCALE:-1}

log() { echo "== $*"; }
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
# report LINE: a line the host prints in its summary.
report() { echo "SAY $*"; }

# expect_err RC TEXT CMD...: CMD exits with status RC ("-": any failure)
# and its standard error contains TEXT (a fixed string; "" when the caller
# checks the output itself).  stdout is left in out.txt, stderr in err.txt.
expect_err() {
	local want=$1 text=$2 rc
	shift 2
	set +e
	"$@" > out.txt 2> err.txt
	rc=$?
	set -e
	cat out.txt err.txt
	if [ "$want" = - ]; then
		[ "$rc" -ne 0 ] || fail "succeeded: $*"
	else
		[ "$rc" -eq "$want" ] || fail "'$*' exited $rc, not $want"
	fi
	[ -z "$text" ] || grep -qF -- "$text" err.txt ||
		fail "'$*': error does not say '$text'"
}

# expect_fail CMD...: CMD must fail.
expect_fail() {
	if "$@"; then fail "expected failure: $*"; fi
	return 0
}

# poll_until COND-CMD [TENTHS]: true once CMD succeeds, false if it has
# not within TENTHS tenths of a second (default 10 s) times SCALE.
poll_until() {
	local n=$((${2:-100} * SCALE))
	while [ "$n" -gt 0 ]; do
		if eval "$1" >/dev/null 2>&1; then return 0; fi
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

# uptime_s: whole seconds since the guest booted (wall clock, unlike the
# poll counts above).
uptime_s() {
	local u
	read u _ < /proc/uptime
	echo ${u%.*}
}

# wait_for COND-CMD [TENTHS]: poll until CMD succeeds (default 10 s, times
# SCALE).
wait_for() {
	poll_until "$1" "${2:-100}" || fail "timed out waiting for: $1"
}

# nullblk_create NAME SIZE_MB [MEMORY_BACKED] [ATTR=VALUE...]: a null_blk
# through configfs, memory-backed unless MEMORY_BACKED is 0 (then nothing
# is stored: fio verify fails, but the device costs next to nothing), with
# the other configfs attributes given (discard=1, cache_size=8, ...), set
# before it powers on.  Prints the path.
nullblk_create() {
	local name=$1 size=$2 d kv
	modprobe null_blk nr_devices=0 queue_mode=2
	d=/sys/kernel/config/nullb/$name
	mkdir "$d"
	echo "$size" > "$d/size"
	echo "${3:-1}" > "$d/memory_backed"
	echo 512 > "$d/blocksize"
	shift 3 2>/dev/null || shift $#
	for kv in "$@"; do
		echo "${kv#*=}" > "$d/${kv%%=*}" || fail "null_blk $name: ${kv%%=*}=${kv#*=} refused"
	done
	echo 1 > "$d/power"
	wait_for "[ -b /dev/$name ]"
	echo "/dev/$name"
}

nullblk_destroy() {
	local d=/sys/kernel/config/nullb/$1
	[ -d "$d" ] || return 0
	echo 0 > "$d/power"
	rmdir "$d"
}

# nvme_ns_name NQN [NSID]: the name (nvmeXnY) the host's sysfs gives
# namespace NSID (default: the one with the lowest NSID the host shows) of
# the subsystem NQN the host is connected to.  Works with and without
# native multipath (nvmeXnY heads vs per-controller nodes).  Device names
# say nothing about NSIDs: newer hosts (7.x) scan namespaces in parallel,
# so nvme0n1 may be NSID 2.
nvme_ns_name() {
	local s line
	for s in /sys/class/nvme-subsystem/nvme-subsys*; do
		[ "$(cat "$s/subsysnqn" 2>/dev/null)" = "$1" ] || continue
		# "PATH/nvmeXnY/nsid:NSID" for every namespace node (one grep:
		# a subsystem may have a thousand), per-path nvmeXcYnZ left out
		line=$(grep -H . "$s"/nvme*n*/nsid "$s"/nvme*/nvme*n*/nsid 2>/dev/null |
			grep -v '/nvme[0-9]*c[0-9]*n[0-9]*/nsid:' |
			sed 's|.*/\(nvme[0-9n]*\)/nsid:\([0-9]*\)$|\2 \1|' |
			awk -v want="${2:-}" 'want == "" || $1 == want' |
			sort -n | head -n1)
		[ -n "$line" ] || continue
		echo "${line#* }"
		return 0
	done
	return 1
}

# nvme_dev_for NQN [NSID]: the block device of that namespace, once it is
# one: sysfs shows the disk's attributes before devtmpfs has its node (up
# to 2 s are allowed for it), and fio opening the name in that window
# would create a plain file in /dev.  Something else by that name there:
# not found, at once.
nvme_dev_for() {
	local n i=20
	n=$(nvme_ns_name "$@") || return 1
	while [ ! -b "/dev/$n" ]; do
		[ ! -e "/dev/$n" ] || return 1
		i=$((i - 1))
		[ $i -gt 0 ] || return 1
		sleep 0.1
	done
	echo "/dev/$n"
}

# nvme_ns_gone NQN [NSID]: the host shows no such namespace any more (its
# sysfs entry is gone, which happens after its device node is).
nvme_ns_gone() {
	! nvme_ns_name "$@" > /dev/null
}

# nvme_first_nsid NQN: the lowest active NSID a controller of the subsystem
# NQN reports (Identify active namespace list), nothing if none.
nvme_first_nsid() {
	local s c
	for s in /sys/class/nvme-subsystem/nvme-subsys*; do
		[ "$(cat "$s/subsysnqn" 2>/dev/null)" = "$1" ] || continue
		for c in "$s"/nvme*; do
			case "$(basename "$c")" in nvme*n*) continue ;; esac
			[ "$(cat "$c/state" 2>/dev/null)" = live ] || continue
			nvme list-ns "/dev/$(basename "$c")" 2>/dev/null |
				sed -n 's/^\[ *[0-9]*\]:0x\([0-9a-f]*\)$/\1/p' | head -n1 |
				while read -r h; do echo $((0x$h)); done
			return 0
		done
	done
}

# nvme_connect NQN [TRSVCID] [nvme-cli options...]: connect and wait for
# the namespace with the lowest NSID; prints its device.
nvme_connect() {
	local nqn=$1 svc=${2:-4420} first
	shift 2 2>/dev/null || shift $#
	nvme connect -t rdma -a $TRADDR -s "$svc" -n "$nqn" "$@" > /dev/null
	wait_for "nvme_dev_for $nqn"
	first=$(nvme_first_nsid "$nqn")
	[ -z "$first" ] || wait_for "nvme_dev_for $nqn $first"
	nvme_dev_for "$nqn" ${first:+"$first"}
}

# fio_verify DEV BS IODEPTH [SIZE]: random write then read back with crc32c.
fio_verify() {
	local dev=$1 bs=$2 qd=$3 size=${4:-8M}
	fio --name=verify --filename="$dev" --allow_file_create=0 \
		--ioengine=libaio --direct=1 \
		--rw=randwrite --bs="$bs" --iodepth="$qd" --size="$size" \
		--verify=crc32c --do_verify=1 --verify_fatal=1 \
		--randrepeat=0 --norandommap=0 --output-format=terse \
		--terse-version=3 > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; fail "fio verify on $dev bs=$bs qd=$qd"; }
}

# nvmet_export NQN DEV PORTID [TRSVCID]: export DEV through Linux's nvmet
# on rdma TRADDR:TRSVCID.
nvmet_export() {
	local nqn=$1 dev=$2 port=$3 svc=${4:-4420} s p
	modprobe nvmet
	modprobe nvmet-rdma
	s=$NVMET_CFS/subsystems/$nqn
	mkdir "$s"
	echo 1 > "$s/attr_allow_any_host"
	mkdir "$s/namespaces/1"
	echo "$dev" > "$s/namespaces/1/device_path"
	echo 1 > "$s/namespaces/1/enable"
	p=$NVMET_CFS/ports/$port
	mkdir "$p"
	echo rdma > "$p/addr_trtype"
	echo ipv4 > "$p/addr_adrfam"
	echo "$TRADDR" > "$p/addr_traddr"
	echo "$svc" > "$p/addr_trsvcid"
	ln -s "$s" "$p/subsystems/$nqn"
}

# nvmet_unexport NQN PORTID
nvmet_unexport() {
	local nqn=$1 port=$2
	rm -f "$NVMET_CFS/ports/$port/subsystems/$nqn"
	rmdir "$NVMET_CFS/ports/$port"
	echo 0 > "$NVMET_CFS/subsystems/$nqn/namespaces/1/enable"
	rmdir "$NVMET_CFS/subsystems/$nqn/namespaces/1"
	rmdir "$NVMET_CFS/subsystems/$nqn"
}

# purlin_subsys NQN: create a Purlin subsystem open to any host.
purlin_subsys() {
	local s=$PURLIN_CFS/subsystems/$1
	modprobe purlin
	mkdir "$s"
	echo 1 > "$s/attr_allow_any_host"
}

# purlin_ns NQN NSID DEV: add and enable a namespace.
purlin_ns() {
	local n=$PURLIN_CFS/subsystems/$1/namespaces/$2
	mkdir "$n"
	echo "$3" > "$n/device_path"
	echo 1 > "$n/enable"
}

# purlin_port PORTID [TRSVCID] [TRADDR] [ADRFAM]: create a port (with the
# lane's param_cq_mode, PURLIN_CQ_MODE, when set).
purlin_port() {
	local p=$PURLIN_CFS/ports/$1
	mkdir "$p"
	echo rdma > "$p/addr_trtype"
	echo "${4:-ipv4}" > "$p/addr_adrfam"
	echo "${3:-$TRADDR}" > "$p/addr_traddr"
	echo "${2:-4420}" > "$p/addr_trsvcid"
	[ -z "${PURLIN_CQ_MODE:-}" ] || echo "$PURLIN_CQ_MODE" > "$p/param_cq_mode"
}

# purlin_link PORTID NQN: export the subsystem through the port.
purlin_link() {
	ln -s "$PURLIN_CFS/subsystems/$2" "$PURLIN_CFS/ports/$1/subsystems/$2"
}

# purlin_params PORTID KEY=VAL,...: set the port's param_KEY attributes
# (while it exports nothing).
purlin_params() {
	local kv
	for kv in $(echo "$2" | tr ',' ' '); do
		echo "${kv#*=}" > "$PURLIN_CFS/ports/$1/param_${kv%%=*}" ||
			fail "port $1: param_${kv%%=*}=${kv#*=} refused"
	done
}

# purlin_export NQN DEV PORTID [TRSVCID] [KEY=VAL,...]: one namespace on
# one port, with those param_ attributes.
purlin_export() {
	purlin_subsys "$1"
	purlin_ns "$1" 1 "$2"
	purlin_port "$3" "${4:-4420}"
	purlin_params "$3" "${5:-}"
	purlin_link "$3" "$1"
}

# purlin_clear: remove every Purlin object (links first) and unload.
purlin_clear() {
	local p s n r h
	[ -d $PURLIN_CFS ] || return 0
	[ "${PURLIN_CQ_MODE:-}" != poll ] || purlin_assert_polled
	for p in $PURLIN_CFS/ports/*; do
		[ -d "$p" ] || continue
		rm -f "$p"/subsystems/*
		for r in "$p"/referrals/* "$p"/ana_groups/*; do
			[ -d "$r" ] && [ "$(basename "$r")" != 1 ] && rmdir "$r"
		done
		rmdir "$p"
	done
	for s in $PURLIN_CFS/subsystems/*; do
		[ -d "$s" ] || continue
		rm -f "$s"/allowed_hosts/*
		for n in "$s"/namespaces/*; do
			[ -d "$n" ] || continue
			rmdir "$n"
		done
		rmdir "$s"
	done
	for h in $PURLIN_CFS/hosts/*; do
		[ -d "$h" ] && rmdir "$h"
	done
	# No controller, queue or request may outlive the configuration: say
	# so by name rather than leave it to rmmod (a leaked data chunk is
	# caught there: the pool warns when it is freed short).
	purlin_assert_idle "" "after the configuration was removed"
	rmmod purlin
}

# purlin_assert_polled: in the polled lane, I/O the namespaces saw went
# through the polling threads (their completions are counted).
purlin_assert_polled() {
	local io wcs
	io=$(cat $PURLIN_CFS/subsystems/*/namespaces/*/stats 2>/dev/null |
		tr ' ' '\n' | sed -n 's/^\(read\|write\)_cmds=//p' |
		awk '{ s += $1 } END { print s + 0 }')
	wcs=$(tr ' ' '\n' < /sys/module/purlin/parameters/pollers |
		sed -n 's/^wcs=//p' | awk '{ s += $1 } END { print s + 0 }')
	[ "$io" = 0 ] || [ "$wcs" -gt 0 ] ||
		fail "polled lane: $io I/O commands, none through a polling thread"
}

# brd_create MB [N]: N (default 1) fresh RAM disks /dev/ram0.. of MB each.
brd_create() {
	local n=${2:-1}
	rmmod brd 2>/dev/null || true
	modprobe brd rd_nr="$n" rd_size=$(($1 * 1024))
	wait_for "[ -b /dev/ram$((n - 1)) ]"
}

# ctrl_of DEV: the controller (nvmeX) behind a namespace block device.
ctrl_of() {
	local n
	n=$(basename "$1")
	n=${n%n*}
	echo "/dev/$n"
}

# ctrl_of_host NQN HOSTNQN: the host's controller (nvmeX) of subsystem NQN
# that belongs to host NQN HOSTNQN (its --hostnqn).
ctrl_of_host() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat $c/subsysnqn 2>/dev/null)" = "$1" ] || continue
		[ "$(cat $c/hostnqn)" = "$2" ] || continue
		basename $c
		return 0
	done
	return 1
}

# nvme_disconnect NQN: disconnect and wait until the devices are gone.
nvme_disconnect() {
	nvme disconnect -n "$1" > /dev/null
	wait_for "nvme_ns_gone $1"
}

# guest_state [PID...]: where a guest stands when it is stuck: the end of
# dmesg, soft-RoCE's QPs and CM ids, every blocked task or one in Purlin or
# the RDMA CM with its kernel stack, the host's controllers, Purlin's live
# objects, and the tasks PID (fio, nvme-cli, a script) with their children
# and stacks.
guest_state() {
	local c t p k
	dmesg | tail -n 20
	rdma resource show qp 2>/dev/null | head -n 20
	rdma resource show cm_id 2>/dev/null | head -n 20
	# blocked tasks, and any thread inside Purlin or the RDMA CM
	for t in /proc/[0-9]*; do
		if grep -q '^State:.*D (disk sleep)' $t/status 2>/dev/null ||
			grep -q 'purlin\|prl_\|rdma_cm\|cma_' $t/stack 2>/dev/null; then
			echo "task $(basename $t) $(cat $t/comm 2>/dev/null) $(sed -n 's/^State:\t//p' $t/status 2>/dev/null):"
			cat $t/stack 2>/dev/null || true
		fi
	done
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c" ] || continue
		echo "$(basename $c): state=$(cat $c/state 2>/dev/null) $(cat $c/address 2>/dev/null)"
	done
	if [ -r /sys/module/purlin/parameters/live ]; then
		echo "purlin: $(cat /sys/module/purlin/parameters/live)"
		cat /sys/module/purlin/parameters/pollers 2>/dev/null || true
	fi
	# last (the end of a failed test's log is what the summary shows): the
	# tasks given and their children, e.g. the command a script is stuck in
	k=" $* "
	for _ in 1 2 3; do	# children, grandchildren, ...
		for t in /proc/[0-9]*/stat; do
			read -r p _ _ c _ 2>/dev/null < "$t" || continue
			case "$k" in *" $p "*) ;; *" $c "*) k="$k$p " ;; esac
		done
	done
	for p in $k; do
		for t in /proc/$p/task/*; do
			[ -e "$t" ] || continue
			echo "task $p/$(basename $t) ($(cat $t/comm 2>/dev/null)):"
			cat $t/stack 2>/dev/null || true
		done
	done
}

# idfield FIELD: value of "FIELD : value" in nvme-cli's text output.
idfield() {
	sed -n "s/^$1 *: *//p" | head -n1 | sed 's/ *$//'
}

# Pair tests (tests/vm/pair/, `tests/vm/run --pair`): two guests, ROLE
# "target" (TRADDR) and "host" (HOSTADDR), meet through marks in /share.
HOSTADDR=10.99.0.2

# pair_mark NAME: tell the other guest that NAME happened.
pair_mark() {
	touch "/share/$1"
}

# pair_wait NAME [SECONDS]: wait for the other guest's mark NAME (default
# 120 s, times SCALE, of wall clock: a guest busy serving I/O takes far
# longer than a tenth of a second per poll); fail at once if the other
# guest's test failed.
pair_wait() {
	local t_end=$(($(uptime_s) + ${2:-120} * SCALE)) f
	while [ "$(uptime_s)" -lt "$t_end" ]; do
		[ -e "/share/$1" ] && return 0
		for f in /share/"$TEST".failed.*; do
			[ -e "$f" ] && fail "the other guest's test failed (${f##*.})"
		done
		sleep 0.1
	done
	[ -e "/share/$1" ] && return 0
	fail "timed out waiting for the other guest's mark '$1' ($(ls /share | tr '\n' ' '))"
}

# purlin_live: Purlin's live object counters, one line
# ("subsystems=N namespaces=N ports=N ctrls=N queues=N reqs=N srqs=N srq_held=N pool_free=N").
purlin_live() {
	cat /sys/module/purlin/parameters/live
}

# live KEY: one counter of Purlin's live-object line.
live() { purlin_live | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# qp1_state: the state of rxe0's QP1 (the GSI QP, ib_core's, not the
# target's), which carries the RDMA CM's messages.
qp1_state() { rdma resource show qp | sed -n 's/.* lqpn 1 type GSI state \([A-Z]*\) .*/\1/p'; }

# await COND TENTHS WHY: wait_for, with the reason and Purlin's live
# objects in the failure.
await() {
	poll_until "$1" "$2" ||
		fail "$3 (after $(($2 * SCALE / 10)) s; live: $(purlin_live 2>/dev/null))"
}

# purlin_assert_idle [BASELINE] [WHEN]: teardown is asynchronous, so wait
# (up to 20 s times SCALE) until the live counters equal BASELINE, a purlin_live line
# taken while nothing was connected; without one, until no controller,
# queue, request or shared receive queue is left.  Fails naming what is left.
purlin_assert_idle() {
	local base=${1:-} when=${2:-} n=$((200 * SCALE)) cur
	while :; do
		cur=$(purlin_live)
		if [ -n "$base" ]; then
			[ "$cur" = "$base" ] && return 0
		else
			case "$cur" in
			*" ctrls=0 queues=0 reqs=0 srqs=0 srq_held=0 "*) return 0 ;;
			esac
		fi
		n=$((n - 1))
		[ $n -gt 0 ] || break
		sleep 0.1
	done
	fail "Purlin objects left${when:+ $when}: $cur (expected ${base:-ctrls=0 queues=0 reqs=0 srqs=0 srq_held=0})"
}

# Verified background writers (fault and teardown tests).
# bgv_start DEV OFFSET SIZE [TAG]: fio runs over SIZE bytes at OFFSET of
# DEV, one after another until bgv_stop: each writes with a verify backlog
# (reads back while writing) and verifies everything it wrote at the end.
# The first failure stops the loop.  Files: TAG.N.out, TAG.done (runs
# finished), TAG.failed (the run that failed), TAG.stop.  fio may not
# create DEV: a run that starts after a disconnect would leave a plain file
# in /dev where the next connection's device node belongs.
bgv_start() {
	local dev=$1 off=$2 size=$3 tag=${4:-bgv}
	rm -f "$tag".*
	(
		i=0
		while [ ! -e "$tag.stop" ]; do
			i=$((i + 1))
			fio --name="$tag$i" --filename="$dev" --ioengine=libaio \
				--allow_file_create=0 \
				--direct=1 --rw=randwrite --bs=16k --iodepth=16 \
				--offset="$off" --size="$size" \
				--verify=crc32c --verify_fatal=1 --do_verify=1 \
				--verify_backlog=64 > "$tag.$i.out" 2>&1 ||
				{ echo $i > "$tag.failed"; exit 1; }
			echo $i > "$tag.done"
		done
	) &
	BGV_PID=$!
	BGV_TAG=$tag
}

# bgv_check: fail now if a run has failed (its output shown).
bgv_check() {
	if [ -e "$BGV_TAG.failed" ]; then
		cat "$BGV_TAG.$(cat $BGV_TAG.failed).out"
		fail "fio run $(cat $BGV_TAG.failed) failed"
	fi
	return 0
}

# bgv_busy IDLE: the writers' commands are on the target (more requests
# than IDLE in use), or a run failed (then bgv_check says so).
bgv_busy() {
	await "[ -e $BGV_TAG.failed ] || [ \$(live reqs) -gt $1 ]" 300 \
		"no fio I/O in flight (idle: $1)"
	bgv_check
}

# bgv_runs: how many runs finished clean so far.
bgv_runs() { cat "$BGV_TAG.done" 2>/dev/null || echo 0; }

# bgv_stop [WHY]: let the run in progress (which spans the last fault)
# finish with its verify, stop, and fail unless every run exited 0 with
# no error or verify complaint.
bgv_stop() {
	local n f
	n=$(bgv_runs)
	await "[ \$(bgv_runs) -gt $n ] || [ -e $BGV_TAG.failed ]" 1200 \
		"the fio run spanning ${1:-the faults} did not finish"
	touch "$BGV_TAG.stop"
	if ! wait $BGV_PID; then
		cat "$BGV_TAG.$(cat $BGV_TAG.failed).out"
		fail "fio run $(cat $BGV_TAG.failed) over ${1:-the faults} failed"
	fi
	for f in "$BGV_TAG".*.out; do
		grep -q "err= 0" "$f" || { cat "$f"; fail "$f: errors"; }
		if grep -qi "verify.*fail\|bad magic\|bad header" "$f"; then
			cat "$f"
			fail "$f: verify errors"
		fi
	done
	log "$(bgv_runs) fio write+verify runs over ${1:-the faults}, all clean"
}

# bgv_abandon: stop the loop without judging it (the host deleted the
# controller under it, by design); waits for fio to exit.
bgv_abandon() {
	touch "$BGV_TAG.stop"
	wait $BGV_PID 2>/dev/null || true
}

# expect_status STATUS CMD...: the nvme-cli command CMD must fail with the
# NVMe status STATUS, as nvme-cli prints it: "(0xHHHH)", the status field
# without the phase bit (SCT << 8 | SC, DNR 0x4000), e.g. 0x4080 for LBA Out
# of Range with DNR.  Its output is left in status.out.
expect_status() {
	local want=$1
	shift
	if "$@" > status.out 2>&1; then
		cat status.out
		fail "succeeded, want NVMe status $want: $*"
	fi
	if ! grep -q "($want)" status.out; then
		cat status.out
		fail "want NVMe status $want from: $*"
	fi
}

# kmark NAME: put a mark in the kernel log; since_mark NAME: the kernel log
# after it (counts taken this way cannot fall when the ring buffer wraps).
kmark() { echo "purlin-test: mark $1" > /dev/kmsg; }
since_mark() { dmesg | sed -n "/purlin-test: mark $1\$/,\$p"; }

# Fault tests.  timed_log: from now on log lines carry the seconds since
# this call.
timed_log() {
	T0=$(date +%s)
	log() { echo "== [$(($(date +%s) - T0))s] $*"; }
}

# region_fio NAME OFFSET_MB SIZE_MB [fio options]: on $dev, a sequential crc32c
# pattern over a region (the same job definition writes and re-verifies).
region_fio() {
	local name=$1 off=$2 size=$3
	shift 3
	fio --name="$name" --filename="$dev" --ioengine=libaio --direct=1 \
		--rw=write --bs=128k --iodepth=8 --offset=$((off * MB)) \
		--size=$((size * MB)) --verify=crc32c --verify_fatal=1 \
		--do_verify=1 "$@" > "$name.out" 2>&1 ||
		{ cat "$name.out"; fail "fio $name $*"; }
	grep -q "err= 0" "$name.out" || { cat "$name.out"; fail "fio $name: errors"; }
	! grep -qi "verify.*fail\|bad magic\|bad header" "$name.out" ||
		{ cat "$name.out"; fail "fio $name: verify errors"; }
}
