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
# initramfs, which bench/run adds).
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

# cpu_snap: "BUSY TOTAL" jiffies summed over all CPUs (busy = user + nice +
# system + irq + softirq + steal; idle and iowait are not busy).
cpu_snap() {
	awk '$1 == "cpu" { b = $2 + $3 + $4 + $7 + $8 + $9; print b, b + $5 + $6; exit }' /proc/stat
}

# rnr_snap: receiver-not-ready NAKs soft-RoCE has sent so far (a SEND
# arrived before its receiver had a receive posted; the sender backs off).
# Host and targets share rxe0: runs alternate, so a run's delta is its own.
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

# run_one CASE PROFILE TARGET DEV PAIR NJOBS: one fio run plus its CPU window.
run_one() {
	local c=$1 prof=$2 tgt=$3 dev=$4 pair=$5 args jobs out pid s0 s1 n0 pin=""
	out=$RES/$c-$prof-$tgt-$pair
	args=$(profile_args "$prof" "$6")
	jobs=${args##*--numjobs=}
	# One job per CPU (so per I/O queue: the host maps queues by CPU).
	[ "$jobs" -gt 1 ] && [ "$jobs" -le "$NCPU" ] &&
		pin="--cpus_allowed=0-$((jobs - 1)) --cpus_allowed_policy=split"
	n0=$(rnr_snap)
	# shellcheck disable=SC2086
	fio --name=bench --filename="$dev" --ioengine=libaio --direct=1 \
		$args $pin --group_reporting \
		--time_based --runtime="$RUNTIME" --ramp_time="$RAMP" \
		--norandommap --randrepeat=0 --lat_percentiles=1 \
		--percentile_list=50:99:99.9 --output-format=json \
		--output="$out.json" > "$out.err" 2>&1 &
	pid=$!
	sleep $((RAMP + 1))
	s0=$(cpu_snap)
	if [ "$PERF" = 1 ]; then
		perf record -a -g -F 499 -q -o "$out.perf" -- sleep $WIN \
			> "$out.perf.err" 2>&1 || { cat "$out.perf.err"; fail "perf record"; }
	else
		sleep $WIN
	fi
	s1=$(cpu_snap)
	if ! wait $pid; then
		cat "$out.err" "$out.json"
		fail "fio $prof on $tgt ($c)"
	fi
	v=$(fio_vals "$out.json")
	case "$v" in err=0\ *) ;; *) cat "$out.json"; fail "fio error: $v" ;; esac
	echo "$v" | awk -v s0="$s0" -v s1="$s1" -v ncpu="$NCPU" '{
		split(s0, a, " "); split(s1, b, " ")
		busy = b[1] - a[1]; tot = b[2] - a[2]
		for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		iops = f["riops"] + f["wiops"]
		cpu = (tot > 0 && iops > 0) ? busy / tot * ncpu * 1e6 / iops : 0
		util = tot > 0 ? busy / tot : 0
		printf "busy_jiffies=%d window_jiffies=%d cpu_util=%.3f cpu_us_per_io=%.1f\n", \
			busy, tot, util, cpu
	}' > "$out.cpu"
	report "RUN case=$c profile=$prof target=$tgt pair=$pair jobs=$jobs $v $(cat "$out.cpu") rnr_naks=$(($(rnr_snap) - n0))"
	if [ "$PERF" = 1 ]; then
		report "PROF case=$c profile=$prof target=$tgt pair=$pair $(perf_shares "$out.perf")"
		rm -f "$out.perf"
	fi
}

# perf_shares FILE: where the CPU time sampled by a perf record -a -g went,
# by component, in percent of all samples (see perf-classify.awk).
perf_shares() {
	perf script -i "$1" -F comm,ip,sym 2> /dev/null |
		awk -f /tests/perf-classify.awk /proc/modules -
}

# perf_one TOOL SIZE REP [OPTIONS]: one perftest client/server run over
# rdma_cm against the guest's own address; reports the client's result line.
perf_one() {
	local tool=$1 size=$2 rep=$3 n spid line
	shift 3
	# shellcheck disable=SC2034 # n: three tries
	for n in 1 2 3; do
		timeout 120 "$tool" -R -d rxe0 -F -s "$size" "$@" > $RES/perf-srv.txt 2>&1 &
		spid=$!
		sleep 2
		if timeout 120 "$tool" -R -d rxe0 -F -s "$size" "$@" $TRADDR \
			> $RES/perf-cli.txt 2>&1; then
			wait $spid || true
			line=$(awk -v s="$size" '$1 == s && NF >= 4' $RES/perf-cli.txt | tail -n1)
			[ -n "$line" ] && break
		fi
		kill $spid 2>/dev/null || true
		wait $spid 2>/dev/null || true
		line=""
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

# setup_case CASE: back ends, both targets, both connections; sets DEV_A/DEV_B.
setup_case() {
	local ba bb
	case "$1" in
	nullblk)
		ba=$(nullblk_create bnvmet "$SIZE_MB")
		bb=$(nullblk_create bpurlin "$SIZE_MB") ;;
	nullio)	# nothing stored: the targets' own cost, with a blk-mq
		# device that, like an NVMe SSD, does not block in ->queue_rq
		ba=$(nullblk_create bnvmet "$SIZE_MB" 0)
		bb=$(nullblk_create bpurlin "$SIZE_MB" 0) ;;
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
	nvmet) nvmet_export $NQ_A-$1 "$ba" 1 4420 ;;
	*) purlin_export $NQ_A-$1 "$ba" 2 4420 "$PARAMS_A" ;;
	esac
	purlin_export $NQ_B-$1 "$bb" 1 4421 "$PARAMS_B"
	DEV_A=$(nvme_connect $NQ_A-$1 4420)
	DEV_B=$(nvme_connect $NQ_B-$1 4421)
	BACK_A=$ba BACK_B=$bb
}

teardown_case() {
	nvme_disconnect $NQ_A-$1
	nvme_disconnect $NQ_B-$1
	[ "$A" = nvmet ] && nvmet_unexport $NQ_A-$1 1
	purlin_clear
	case "$1" in
	nullblk|nullio) nullblk_destroy bnvmet; nullblk_destroy bpurlin ;;
	brd) rmmod brd ;;
	esac
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
	case "$c" in nullblk|brd|nullio) ;; *) fail "unknown case $c" ;; esac
done
case "$A" in
nvmet|purlin) PARAMS_A= ;;
purlin:*) PARAMS_A=${A#purlin:} ;;
*) fail "bench_a=$A: nvmet or purlin[:KEY=VAL,...]" ;;
esac

t0=$(date +%s)
report "INFO kernel=$(uname -r) ncpu=$NCPU runtime=$RUNTIME ramp=$RAMP pairs=$PAIRS size_mb=$SIZE_MB window=$WIN fio=$(fio --version) cases=$(echo $CASES | tr ' ' ,) profiles=$(echo $PROFILES | tr ' ' ,) a=$A purlin_params=${PARAMS_B:-none} perf=$PERF"

log "transport ceiling (perftest, rdma_cm, $TRADDR)"
rep=1
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
	report "CASE case=$c nvmet_dev=$DEV_A nvmet_backend=$BACK_A nvmet_io_queues=$qa purlin_dev=$DEV_B purlin_backend=$BACK_B purlin_io_queues=$qb purlin_version=$(cat /sys/module/purlin/version) jobs=$nj"
	for prof in $PROFILES; do
		log "case $c: $prof"
		pair=1
		while [ $pair -le "$PAIRS" ]; do
			run_one "$c" "$prof" nvmet "$DEV_A" $pair "$nj"
			run_one "$c" "$prof" purlin "$DEV_B" $pair "$nj"
			pair=$((pair + 1))
		done
	done
	teardown_case "$c"
	t2=$(date +%s)
	report "TIME section=$c seconds=$((t2 - t1))"
done
report "TIME section=guest seconds=$(($(date +%s) - t0))"
