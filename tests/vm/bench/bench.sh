# SPDX-License-Identifier: GPL-2.0
# make bench (guest side): Linux's nvmet-rdma on port 4420 and Purlin on
# port 4421 in the same boot, each exporting its own identical back end
# (memory-backed null_blk, then brd); the stock host connects to both and
# fio runs every profile on the two targets in alternation (A B A B ...).
# The transport ceiling (perftest over the same rxe link, rdma_cm mode) is
# measured in the same boot.  Raw numbers only, one SAY line per run: bench/run
# on the host computes medians and ratios (see Documentation/benchmark.md).
#
# Parameters, from the kernel command line (bench/run passes them through
# VM_APPEND): bench_runtime=S bench_ramp=S bench_pairs=N bench_size_mb=MB
# bench_cases=nullblk,brd,nullio bench_profiles=name,name
# bench_purlin=KEY=VAL,... (param_KEY attributes of the Purlin port, e.g.
# inline_data_size=8192,tos=104) bench_a=nvmet|purlin[:KEY=VAL,...] (target
# A: nvmet, or for an A/B of Purlin's own options a second Purlin port with
# those attributes; the report's "nvmet" side is then that port)
# bench_perf=1 (sample the whole guest with perf during each CPU window and
# report where the time went, one PROF line per run; needs perf in the
# initramfs, which bench/run adds).  bench_insn=1 (the guest runs under
# insn-plugin, tests/vm/bench/insn-plugin.c: each CPU window asks it for a
# snapshot of the instructions executed, and /share/kallsyms.CASE maps
# them to functions; bench/run attributes them).  bench_insn_host=1 (pair
# mode, with bench_insn=1): the host guest is counted too, over the same
# windows (insn.snap.host.N, mapped by /share/kallsyms.host.CASE).
#
# Pair mode (tests/vm/run --pair bench, BENCH_PAIR=1): two guests of one
# vCPU each on one virtual wire.  The target guest runs both targets and
# nothing else; the host guest runs fio and drives the target guest through
# tcall (commands in /share).  CPU per I/O is then the target guest's alone;
# the host guest's is reported next to it.
# timeout: 3600

RUNTIME=5
RAMP=1
PAIRS=3
SIZE_MB=256
CASES="nullblk brd"
PROFILES="randread-4k-qd1 randread-4k-qd32 randwrite-4k-qd32 read-128k-qd16 write-128k-qd16 randrw70-4k-qd32"
PARAMS_B=
A=nvmet
PERF=0
INSN=0
INSN_HOST=0
for w in $(cat /proc/cmdline); do
	case "$w" in
	bench_runtime=*) RUNTIME=${w#*=} ;;
	bench_ramp=*) RAMP=${w#*=} ;;
	bench_pairs=*) PAIRS=${w#*=} ;;
	bench_size_mb=*) SIZE_MB=${w#*=} ;;
	bench_cases=*) CASES=$(echo "${w#*=}" | tr ',' ' ') ;;
	bench_profiles=*) PROFILES=$(echo "${w#*=}" | tr ',' ' ') ;;
	bench_purlin=*) PARAMS_B=${w#*=} ;;
	bench_a=*) A=${w#*=} ;;
	bench_perf=*) PERF=${w#*=} ;;
	bench_insn=*) INSN=${w#*=} ;;
	bench_insn_host=*) INSN_HOST=${w#*=} ;;
	esac
done

NCPU=$(grep -c '^cpu[0-9]' /proc/stat)
NQ_A=nqn.2026-11.io.purlin.bench:nvmet
NQ_B=nqn.2026-11.io.purlin.bench:purlin
RES=/tmp/bench
mkdir -p $RES

# CPU window: /proc/stat is sampled after the ramp and once more before fio
# ends; WIN seconds of steady state in between.
WIN=$((RUNTIME - 2))
[ "$WIN" -ge 1 ] || WIN=1

# cpu_snap: "BUSY TOTAL CTXT INTR": jiffies summed over all CPUs (snap's SN_BUSY and
# SN_TOTAL; idle and iowait are not busy).
cpu_snap() {
	snap
	echo "$SN_BUSY $SN_TOTAL $SN_CTXT $SN_INTR"
}

# rnr_snap: receiver-not-ready NAKs soft-RoCE has sent so far (a SEND
# arrived before its receiver had a receive posted; the sender backs off).
# In one guest host and targets share rxe0: runs alternate, so a window's
# delta is its run's.  In pair mode the target guest's count.
rnr_snap() {
	cat /sys/class/infiniband/rxe0/ports/1/hw_counters/send_rnr_err 2>/dev/null || echo 0
}

# fio_vals FILE: the numbers bench/run needs from fio's JSON output (one job
# thanks to group_reporting), as key=value words.  fio prints one key per
# line; this flattens the nesting into paths such as jobs.#.read.lat_ns.mean.
fio_vals() {
	awk '
	{ l = $0; sub(/^[ \t]+/, "", l); sub(/[ \t]*,?[ \t]*$/, "", l) }
	l == "{" || l == "[" { st[++d] = "#"; next }
	l == "}" || l == "]" { d--; next }
	l ~ /^"[^"]*" : / {
		k = l; sub(/^"/, "", k); sub(/" : .*$/, "", k)
		v = l; sub(/^"[^"]*" : /, "", v)
		if (v == "{" || v == "[") { st[++d] = k; next }
		gsub(/"/, "", v)
		p = ""
		for (i = 2; i <= d; i++) p = p st[i] "."
		val[p k] = v
	}
	function g(k) { return val["jobs.#." k] + 0 }
	END {
		printf "err=%d riops=%.1f wiops=%.1f rbw_kib=%d wbw_kib=%d ios=%d", \
			g("error"), g("read.iops"), g("write.iops"), g("read.bw"), \
			g("write.bw"), g("read.total_ios") + g("write.total_ios")
		for (i = 1; i <= 2; i++) {
			dir = i == 1 ? "read" : "write"
			c = substr(dir, 1, 1)
			printf " %slat_mean_us=%.1f %slat_p50_us=%.1f %slat_p99_us=%.1f %slat_p999_us=%.1f", \
				c, g(dir ".lat_ns.mean") / 1000, \
				c, g(dir ".lat_ns.percentile.50.000000") / 1000, \
				c, g(dir ".lat_ns.percentile.99.000000") / 1000, \
				c, g(dir ".lat_ns.percentile.99.900000") / 1000
		}
		printf "\n"
	}' "$1"
}

# profile_args PROFILE NJOBS: fio options of a profile.
profile_args() {
	case "$1" in
	randread-4k-qd1) echo "--rw=randread --bs=4k --iodepth=1 --numjobs=1" ;;
	randread-4k-qd32) echo "--rw=randread --bs=4k --iodepth=32 --numjobs=$2" ;;
	randwrite-4k-qd32) echo "--rw=randwrite --bs=4k --iodepth=32 --numjobs=$2" ;;
	read-128k-qd16) echo "--rw=read --bs=128k --iodepth=16 --numjobs=1" ;;
	write-128k-qd16) echo "--rw=write --bs=128k --iodepth=16 --numjobs=1" ;;
	randrw70-4k-qd32) echo "--rw=randrw --rwmixread=70 --bs=4k --iodepth=32 --numjobs=$2" ;;
	*) fail "unknown profile $1" ;;
	esac
}

# run_one CASE PROFILE TARGET DEV PAIR NJOBS BACKEND: one fio run plus its
# CPU window.
run_one() {
	local c=$1 prof=$2 tgt=$3 dev=$4 pair=$5 back=$7 args jobs out pid h0 h1 cpu pin="" w extra="" pct=""
	out=$RES/$c-$prof-$tgt-$pair
	args=$(profile_args "$prof" "$6")
	jobs=${args##*--numjobs=}
	# One job per CPU (so per I/O queue: the host maps queues by CPU).
	[ "$jobs" -gt 1 ] && [ "$jobs" -le "$NCPU" ] &&
		pin="--cpus_allowed=0-$((jobs - 1)) --cpus_allowed_policy=split"
	# shellcheck disable=SC2086
	fio --name=bench --filename="$dev" --ioengine=libaio --direct=1 \
		$args $pin --group_reporting \
		--time_based --runtime="$RUNTIME" --ramp_time="$RAMP" \
		--norandommap --randrepeat=0 --lat_percentiles=1 \
		--percentile_list=50:99:99.9 --output-format=json \
		--output="$out.json" > "$out.err" 2>&1 &
	pid=$!
	sleep $((RAMP + 1))
	if [ "$ROLE" = host ]; then
		# The target guest measures the window; this guest's own CPU
		# is sampled around it.
		h0=$(cpu_snap)
		tcall window "$WIN" "$back" > "$out.win" || fail "target window: $(cat "$out.win")"
		h1=$(cpu_snap)
	else
		cpu_window "$WIN" "$back" > "$out.win"
	fi
	if ! wait $pid; then
		cat "$out.err" "$out.json"
		fail "fio $prof on $tgt ($c)"
	fi
	v=$(fio_vals "$out.json")
	case "$v" in err=0\ *) ;; *) cat "$out.json"; fail "fio error: $v" ;; esac
	# shellcheck disable=SC2046 # the window's words: busy total ncpu rnr
	# then KEY=VALUE words (counts; insn_snap; pct_ shares with perf)
	set -- $(cat "$out.win")
	cpu="$(cpu_fields "$v" "$1 $2" "$3") rnr_naks=$4 win_ncpu=$3"
	if [ "$ROLE" = host ]; then
		cpu="$cpu host_$(cpu_fields "$v" "$(echo $h0 $h1 | awk '{ print $5 - $1, $6 - $2 }')" "$NCPU" |
			sed 's/ / host_/g')"
		# The host guest's context switches and interrupts per I/O,
		# over its own window (fio's IOPS times its length).
		cpu="$cpu $(echo "$v" $h0 $h1 | awk -v ncpu="$NCPU" '{
			for (i = 1; i <= NF - 8; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
			n = (f["riops"] + f["wiops"]) * ($(NF - 2) - $(NF - 6)) / 100 / ncpu
			if (n > 0)
				printf "host_ctxt_per_io=%.3f host_intr_per_io=%.3f", ($(NF - 1) - $(NF - 5)) / n, ($NF - $(NF - 4)) / n }')"
	fi
	shift 4
	for w in "$@"; do
		case "$w" in
		pct_*|samples=*) pct="$pct $w" ;;
		*) extra="$extra $w" ;;
		esac
	done
	report "RUN case=$c profile=$prof target=$tgt pair=$pair jobs=$jobs $v $cpu$extra"
	[ "$PERF" = 1 ] && report "PROF case=$c profile=$prof target=$tgt pair=$pair$pct"
	return 0
}

# Library code for insn-plugin (insn.libs): module functions counted, with
# the kernel code they call, by the owner that called them.  ib_core's
# lookups that soft-RoCE makes for every packet to resolve addresses (the
# GID table, the device behind a netdev: a NIC does this in silicon) are
# then soft-RoCE's; soft-RoCE's verbs that the target calls (poll a CQ, arm
# it, post work requests: what a hardware NIC's driver runs on the CPU
# too) are the target's, including every poll of a spinning thread.
INSN_LIBS="ib_core:rdma_get_gid_attr ib_core:rdma_put_gid_attr ib_core:find_gid
ib_core:rdma_find_gid_by_port ib_core:rdma_read_gid_attr_ndev_rcu
ib_core:ib_device_get_by_netdev ib_core:ib_device_put rdma_rxe:rxe_poll_cq
rdma_rxe:rxe_peek_cq rdma_rxe:rxe_req_notify_cq rdma_rxe:rxe_post_send
rdma_rxe:rxe_post_recv rdma_rxe:rxe_post_srq_recv"

# insn_libs KALLSYMS: "START END" (hex) of each INSN_LIBS function, for
# insn-plugin's insn.libs; END is the next symbol's address.
insn_libs() {
	sort "$1" | awk -v libs="$INSN_LIBS" '
		BEGIN { n = split(libs, l, /[ \n]+/); for (i = 1; i <= n; i++) want[l[i]] = 1 }
		start != "" && $1 != start { print start, $1; start = "" }
		($2 == "t" || $2 == "T") && $4 ~ /^\[.*\]$/ && (substr($4, 2, length($4) - 2) ":" $3) in want {
			start = $1; seen[substr($4, 2, length($4) - 2) ":" $3] = 1 }
		END { for (f in want) if (f != "" && !(f in seen)) print "insn_libs: no " f > "/dev/stderr" }'
}

# Inside a counting window (insn_req mark to dump) the harness starts no
# process: a fork, an exec and their page faults cost the guest millions of
# instructions, which would be spread over the window's I/Os and counted
# for both targets alike.  So the window holds shell builtins only: bsleep
# waits on a FIFO nobody writes.  snap (builtins too, but its read costs a
# system call per byte) runs just outside the window, so its count of I/Os
# spans the window plus the two requests' round trips (milliseconds in a
# window of seconds, the same for both targets).
bsleep() {
	[ -p "$RES/.sleep" ] || mkfifo "$RES/.sleep"
	read -r -t "$1" _ <> "$RES/.sleep" || :
}

# bwait STEP STEPS FILE...: wait until every FILE exists, looking every
# STEP seconds, with builtins only (bsleep); 1 after STEPS looks in vain.
bwait() {
	local step=$1 n=$2 i=0 f
	shift 2
	for f in "$@"; do
		while [ ! -e "$f" ]; do
			i=$((i + 1))
			[ $i -le "$n" ] || return 1
			bsleep "$step"
		done
	done
}

# insn_req mark|dump: ask insn-plugin for a snapshot (see insn-plugin.c)
# and wait for its answer; sets ISNAP to the snapshot's number.  Not in a
# subshell: the sequence number must advance in the main shell.  The
# request is written in place (no mv: the plugin waits for its newline).
ISEQ=0
insn_req() {
	local want
	# bsleep's FIFO made now, before the request: no mkfifo in a window
	[ -p "$RES/.sleep" ] || mkfifo "$RES/.sleep"
	ISEQ=$((ISEQ + 1))
	echo "$1" > /share/insn.req.$ISEQ
	want=/share/insn.snap.$ISEQ
	[ "$INSN_HOST" = 1 ] && want="$want /share/insn.snap.host.$ISEQ"
	# shellcheck disable=SC2086 # one or two paths without blanks
	bwait 0.01 6000 $want || { echo "insn-plugin did not answer request $ISEQ"; return 1; }
	ISNAP=$ISEQ
}

# snap [DEV]: this guest's counters now, with shell builtins only (see
# bsleep): SN_BUSY SN_TOTAL (jiffies over all CPUs; busy = user + nice +
# system + irq + softirq + steal), SN_CTXT SN_INTR (context switches and
# interrupts, /proc/stat), SN_IOS (I/Os DEV, a back end here, completed; 0
# without DEV), SN_HOLDS SN_HITS (coalescing's holds, and those that
# gathered commands) and SN_SLEEPS SN_PASSES SN_HALTS (sleeps, passes and
# waits in place of Purlin's polling threads; 0 without them).
snap() {
	local k a b c d e f g h rest w
	SN_BUSY=0 SN_TOTAL=0 SN_CTXT=0 SN_INTR=0 SN_IOS=0
	SN_SLEEPS=0 SN_PASSES=0 SN_HALTS=0 SN_HOLDS=0 SN_HITS=0
	while read -r k a b c d e f g h rest; do
		case $k in
		cpu) SN_BUSY=$((a + b + c + f + g + h)); SN_TOTAL=$((SN_BUSY + d + e)) ;;
		ctxt) SN_CTXT=$a ;;
		intr) SN_INTR=$a ;;
		esac
	done < /proc/stat
	if [ -n "${1:-}" ] && [ -r "/sys/block/$1/stat" ]; then
		read -r a b c d e rest < "/sys/block/$1/stat"
		SN_IOS=$((a + e))
	fi
	[ -r /sys/module/purlin/parameters/pollers ] || return 0
	while read -r rest; do
		for w in $rest; do
			case $w in
			sleeps=*) SN_SLEEPS=$((SN_SLEEPS + ${w#*=})) ;;
			passes=*) SN_PASSES=$((SN_PASSES + ${w#*=})) ;;
			halts=*) SN_HALTS=$((SN_HALTS + ${w#*=})) ;;
			holds=*) SN_HOLDS=$((SN_HOLDS + ${w#*=})) ;;
			hold_hits=*) SN_HITS=$((SN_HITS + ${w#*=})) ;;
			esac
		done
	done < /sys/module/purlin/parameters/pollers
}

# cpu_window SECONDS [BACKEND]: "BUSY TOTAL NCPU RNR" of this guest over the
# next SECONDS (jiffies, its CPUs, the RNR NAKs its soft-RoCE sent), then
# ctxt=, intr= (this guest's context switches and interrupts in the window),
# poll_sleeps=, poll_passes=, poll_halts=, poll_holds=, poll_hold_hits=
# (of Purlin's polling threads in the window),
# ios_win= (the I/Os BACKEND, /dev/BACKEND in this guest, completed in the
# window: 0 when it keeps no statistics, as brd), with bench_insn=1
# insn_snap= (the plugin's snapshot of the window), and with bench_perf=1
# the profile's pct_ fields.
cpu_window() {
	local n0 dev=${2:-} w0
	dev=${dev##*/}
	n0=$(rnr_snap)
	snap "$dev"
	w0="$SN_BUSY $SN_TOTAL $SN_CTXT $SN_INTR $SN_IOS $SN_SLEEPS $SN_PASSES $SN_HALTS $SN_HOLDS $SN_HITS"
	# The instructions are counted inside the counters' window, not
	# around it: snap's read builtin reads a byte per system call (a
	# poll and a read each, several thousand for /proc/stat), about 5
	# million instructions a window, as many for either target.
	if [ "$INSN" = 1 ]; then
		insn_req mark || return 1
	fi
	if [ "$PERF" = 1 ]; then
		perf record -a -g -F 499 -q -o $RES/win.perf -- sleep "$1" \
			> $RES/win.perf.err 2>&1 || { cat $RES/win.perf.err; return 1; }
	else
		bsleep "$1"
	fi
	if [ "$INSN" = 1 ]; then
		insn_req dump || return 1
	fi
	snap "$dev"
	set -- $w0
	printf "%d %d %d %d" $((SN_BUSY - $1)) $((SN_TOTAL - $2)) "$NCPU" $(($(rnr_snap) - n0))
	printf " ctxt=%d intr=%d ios_win=%d poll_sleeps=%d poll_passes=%d poll_halts=%d" \
		$((SN_CTXT - $3)) $((SN_INTR - $4)) $((SN_IOS - $5)) \
		$((SN_SLEEPS - $6)) $((SN_PASSES - $7)) $((SN_HALTS - $8))
	printf " poll_holds=%d poll_hold_hits=%d" $((SN_HOLDS - $9)) $((SN_HITS - ${10}))
	[ "$INSN" = 1 ] && printf " insn_snap=%d" "$ISNAP"
	if [ "$PERF" = 1 ]; then
		printf " %s" "$(perf_shares $RES/win.perf)"
		rm -f $RES/win.perf
	fi
	echo
}

# cpu_fields FIO-VALUES "BUSY TOTAL" NCPU: the CPU words of a RUN line.
cpu_fields() {
	echo "$1" | awk -v w="$2" -v ncpu="$3" '{
		split(w, a, " ")
		busy = a[1]; tot = a[2]
		for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		iops = f["riops"] + f["wiops"]
		cpu = (tot > 0 && iops > 0) ? busy / tot * ncpu * 1e6 / iops : 0
		util = tot > 0 ? busy / tot : 0
		printf "busy_jiffies=%d window_jiffies=%d cpu_util=%.3f cpu_us_per_io=%.1f", \
			busy, tot, util, cpu
	}'
}

# perf_shares FILE: where the CPU time sampled by a perf record -a -g went,
# by component, in percent of all samples (see perf-classify.awk).
perf_shares() {
	perf script -i "$1" -F comm,period,ip,sym 2> /dev/null |
		awk -f /tests/perf-classify.awk /proc/modules -
}

# perf_serve TOOL [OPTIONS]: start a perftest server (rdma_cm) and give it
# time to listen; perf_reap waits for it and prints its output.
perf_serve() {
	timeout 120 "$@" -R -d rxe0 -F > $RES/perf-srv.txt 2>&1 &
	SERVER=$!
	sleep 2
}
perf_reap() {
	# A server whose client failed would wait for its timeout: stop it.
	sleep 1
	kill "$SERVER" 2> /dev/null || true
	wait "$SERVER" 2> /dev/null || true
	cat $RES/perf-srv.txt
}

# perf_one TOOL SIZE REP [OPTIONS]: one perftest client/server run over
# rdma_cm against the target's address (in pair mode the server runs in the
# target guest); reports the client's result line.
perf_one() {
	local tool=$1 size=$2 rep=$3 n line
	shift 3
	# shellcheck disable=SC2034 # n: three tries
	for n in 1 2 3; do
		if [ "$ROLE" = host ]; then
			tcall serve "$tool" -s "$size" "$@" > /dev/null ||
				fail "perftest server in the target guest"
		else
			perf_serve "$tool" -s "$size" "$@"
		fi
		if timeout 120 "$tool" -R -d rxe0 -F -s "$size" "$@" $TRADDR \
			> $RES/perf-cli.txt 2>&1; then
			line=$(awk -v s="$size" '$1 == s && NF >= 4' $RES/perf-cli.txt | tail -n1)
		else
			line=""
		fi
		if [ "$ROLE" = host ]; then
			tcall reap > $RES/perf-srv.txt
		else
			perf_reap > $RES/perf-srv.txt
		fi
		[ -n "$line" ] && break
	done
	if [ -z "$line" ]; then
		cat $RES/perf-srv.txt $RES/perf-cli.txt
		fail "$tool -s $size gave no result"
	fi
	case "$tool" in
	*_lat)	# bytes iters t_min t_max t_typical t_avg t_stdev 99% 99.9%
		set -- $line
		report "CEIL tool=$tool size=$size rep=$rep t_typical_us=$5 t_avg_us=$6 p99_us=$8 p999_us=$9" ;;
	*)	# bytes iters bw_peak bw_avg(MiB/s) msgrate(Mpps)
		set -- $line
		report "CEIL tool=$tool size=$size rep=$rep bw_mib_s=$4 mpps=$5" ;;
	esac
}

# export_case CASE: back ends and both targets (in the target's guest);
# prints the two back-end devices and Purlin's version.
export_case() {
	local ba bb
	case "$1" in
	nullblk)
		ba=$(nullblk_create bnvmet "$SIZE_MB")
		bb=$(nullblk_create bpurlin "$SIZE_MB") ;;
	nullio)	# nothing stored: the targets' own cost, with a blk-mq
		# device that, like an NVMe SSD, does not block in ->queue_rq
		ba=$(nullblk_create bnvmet "$SIZE_MB" 0)
		bb=$(nullblk_create bpurlin "$SIZE_MB" 0) ;;
	nullpoll)	# nullblk with a poll queue: the device a polled
		# target can submit REQ_POLLED bios to, and reap with bio_poll
		ba=$(nullblk_create bnvmet "$SIZE_MB" 1 poll_queues=1)
		bb=$(nullblk_create bpurlin "$SIZE_MB" 1 poll_queues=1) ;;
	brd)
		brd_create "$SIZE_MB" 2
		ba=/dev/ram0 bb=/dev/ram1 ;;
	*) fail "unknown case $1" ;;
	esac
	# Fill both back ends locally, so reads hit allocated pages on both.
	[ "$1" = nullio ] || for d in $ba $bb; do
		fio --name=fill --filename="$d" --ioengine=libaio --direct=1 \
			--rw=write --bs=1M --iodepth=8 --size="${SIZE_MB}M" \
			--output-format=terse > /dev/null
	done
	case "$A" in
	nvmet) nvmet_export $NQ_A-$1 "$ba" 1 4420 > /dev/null ;;
	*) purlin_export $NQ_A-$1 "$ba" 2 4420 "$PARAMS_A" > /dev/null ;;
	esac
	purlin_export $NQ_B-$1 "$bb" 1 4421 "$PARAMS_B" > /dev/null
	# Every module of the case is loaded: the map of its instructions,
	# and the module ranges the plugin charges kernel work to.
	if [ "$INSN" = 1 ]; then
		cat /proc/kallsyms > /share/kallsyms.$1
		insn_libs /share/kallsyms.$1 > /share/insn.libs
		cat /proc/modules > /share/.insn.modules && mv /share/.insn.modules /share/insn.modules
	fi
	echo "$ba $bb $(cat /sys/module/purlin/version)"
}

unexport_case() {
	[ "$A" = nvmet ] && nvmet_unexport $NQ_A-$1 1
	purlin_clear
	case "$1" in
	nullblk|nullio|nullpoll) nullblk_destroy bnvmet; nullblk_destroy bpurlin ;;
	brd) rmmod brd ;;
	esac
}

# setup_case CASE: back ends, both targets, both connections; sets DEV_A,
# DEV_B, BACK_A, BACK_B and VERSION.
setup_case() {
	local e
	if [ "$ROLE" = host ]; then
		# Not in $(...): tcall counts its calls in this shell.
		tcall export_case "$1" > $RES/export.out ||
			fail "setting up $1 in the target guest: $(cat $RES/export.out)"
		e=$(cat $RES/export.out)
	else
		e=$(export_case "$1")
	fi
	# shellcheck disable=SC2046 # the last line: back ends and version
	set -- "$1" $(echo "$e" | tail -n1)
	BACK_A=$2 BACK_B=$3 VERSION=$4
	DEV_A=$(nvme_connect $NQ_A-$1 4420)
	DEV_B=$(nvme_connect $NQ_B-$1 4421)
	# The host guest's map and modules, with the host driver loaded.
	if [ "$INSN_HOST" = 1 ] && [ "$ROLE" = host ]; then
		cat /proc/kallsyms > /share/kallsyms.host.$1
		insn_libs /share/kallsyms.host.$1 > /share/insn.libs.host
		cat /proc/modules > /share/.insn.modules.host &&
			mv /share/.insn.modules.host /share/insn.modules.host
	fi
}

teardown_case() {
	nvme_disconnect $NQ_A-$1
	nvme_disconnect $NQ_B-$1
	if [ "$ROLE" = host ]; then
		tcall unexport_case "$1" > /dev/null || fail "tearing down $1 in the target guest"
	else
		unexport_case "$1"
	fi
}

# ---- pair mode: the host guest calls the target guest through /share ----

# tcall COMMAND [ARG...]: run a function of this script in the target guest
# and print its output; fails (status 1) when the command failed there.
# Never call it in a subshell ($(...), a pipeline): the sequence number
# must advance in the main shell.
TSEQ=0
tcall() {
	local f
	TSEQ=$((TSEQ + 1))
	f=/share/bench.cmd.$TSEQ
	echo "$*" > $f.tmp && mv $f.tmp $f
	# Waits with builtins only, as a counting window needs (bwait): with
	# bench_insn_host=1 this guest is counted while it waits for a window.
	f=/share/bench.ack.$TSEQ
	bwait 0.05 $((600 * 20 * SCALE)) $f ||
		fail "the target guest did not answer '$*' in $((600 * SCALE)) s"
	tail -n +2 $f
	[ "$(head -n1 $f)" = 0 ]
}

# target_serve: the target guest's side: run each command the host sends
# (only the functions below), answer with its status and output.
target_serve() {
	local n=1 cmd st
	while :; do
		pair_wait bench.cmd.$n 3600
		cmd=$(cat /share/bench.cmd.$n)
		set -- $cmd
		st=0
		case "$1" in
		serve) shift; perf_serve "$@" > $RES/tcall.out 2>&1 || st=$? ;;
		reap) perf_reap > $RES/tcall.out 2>&1 || st=$? ;;
		window) cpu_window "$2" "${3:-}" > $RES/tcall.out 2>&1 || st=$? ;;
		export_case|unexport_case) "$@" > $RES/tcall.out 2>&1 || st=$? ;;
		stop) : > $RES/tcall.out ;;
		*) fail "tcall: unknown command '$cmd'" ;;
		esac
		{ echo $st; cat $RES/tcall.out; } > /share/bench.ack.tmp
		mv /share/bench.ack.tmp /share/bench.ack.$n
		[ "$1" = stop ] && return 0
		n=$((n + 1))
	done
}

# io_queues DEV: I/O queues of the controller behind DEV.
io_queues() {
	local c
	c=$(basename "$(ctrl_of "$1")")
	echo $(($(cat "/sys/class/nvme/$c/queue_count") - 1))
}

# Unknown names fail here, before anything is set up.
for prof in $PROFILES; do profile_args "$prof" 1 > /dev/null; done
for c in $CASES; do
	case "$c" in nullblk|brd|nullio|nullpoll) ;; *) fail "unknown case $c" ;; esac
done
case "$A" in
nvmet|purlin) PARAMS_A= ;;
purlin:*) PARAMS_A=${A#purlin:} ;;
*) fail "bench_a=$A: nvmet or purlin[:KEY=VAL,...]" ;;
esac

if [ "$ROLE" = target ]; then
	target_serve
	exit 0
fi
MODE=single
[ "$ROLE" = host ] && MODE=pair

t0=$(date +%s)
report "INFO kernel=$(uname -r) mode=$MODE ncpu=$NCPU runtime=$RUNTIME ramp=$RAMP pairs=$PAIRS size_mb=$SIZE_MB window=$WIN fio=$(fio --version) cases=$(echo $CASES | tr ' ' ,) profiles=$(echo $PROFILES | tr ' ' ,) a=$A purlin_params=${PARAMS_B:-none} purlin_module=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^purlin\.//p' | paste -sd, -) perf=$PERF insn=$INSN insn_host=$INSN_HOST"

# With the instruction counter the ceiling is not measured: it is of no
# use to the counts, and under the counter's single-threaded emulation a
# perftest run outlasts its timeouts, whose killed clients have crashed
# the 6.1 host guest's soft-RoCE (rxe_pool.c:255 warnings, then a NULL
# dereference).
rep=1
[ "$INSN" = 1 ] && rep=$((PAIRS + 1)) && log "transport ceiling: not measured with bench_insn=1"
[ "$INSN" = 1 ] || log "transport ceiling (perftest, rdma_cm, $TRADDR)"
while [ $rep -le "$PAIRS" ]; do
	perf_one ib_send_lat 4096 $rep -n 1000
	perf_one ib_write_bw 131072 $rep -D "$RUNTIME"
	perf_one ib_read_bw 131072 $rep -D "$RUNTIME"
	rep=$((rep + 1))
done
t1=$(date +%s)
report "TIME section=ceiling seconds=$((t1 - t0))"

for c in $CASES; do
	t1=$(date +%s)
	log "case $c: setting up"
	setup_case "$c"
	qa=$(io_queues "$DEV_A")
	qb=$(io_queues "$DEV_B")
	nj=$qa
	[ "$qb" -lt "$nj" ] && nj=$qb
	report "CASE case=$c nvmet_dev=$DEV_A nvmet_backend=$BACK_A nvmet_io_queues=$qa purlin_dev=$DEV_B purlin_backend=$BACK_B purlin_io_queues=$qb purlin_version=$VERSION jobs=$nj"
	for prof in $PROFILES; do
		log "case $c: $prof"
		pair=1
		while [ $pair -le "$PAIRS" ]; do
			run_one "$c" "$prof" nvmet "$DEV_A" $pair "$nj" "$BACK_A"
			run_one "$c" "$prof" purlin "$DEV_B" $pair "$nj" "$BACK_B"
			pair=$((pair + 1))
		done
	done
	teardown_case "$c"
	t2=$(date +%s)
	report "TIME section=$c seconds=$((t2 - t1))"
done
report "TIME section=guest seconds=$(($(date +%s) - t0))"
if [ "$ROLE" = host ]; then
	tcall stop > /dev/null || fail "stopping the target guest"
fi
