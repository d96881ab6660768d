#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/run's statistics on a hand-made guest report (data/raw-profile.txt,
# numbers chosen so every median and ratio can be checked by hand): goal
# verdicts, per-metric ratios, RNR NAK medians, the perf profile table and
# the target's own CPU per I/O, the JSON, and the refusal of a report with
# no INFO line; and the guest's classifier of perf samples.  One PASS/FAIL
# line per check.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

check() {	# check NAME FILE FIXED-STRING: FILE has a line with FIXED-STRING
	if grep -qF -- "$3" "$2"; then
		echo "PASS bench-report: $1"
	else
		echo "FAIL bench-report: $1: no line with '$3' in $2"
		fails=$((fails + 1))
	fi
}
absent() {	# absent NAME FILE FIXED-STRING
	if grep -qF -- "$3" "$2"; then
		echo "FAIL bench-report: $1: unexpected '$3' in $2"
		fails=$((fails + 1))
	else
		echo "PASS bench-report: $1"
	fi
}

run() {	# run RAW OUT: process RAW into OUT; prints the exit status
	BENCH_RAW=$1 BENCH_OUT=$2 "$top/bench/run" > "$2.log" 2>&1
	echo $?
}

# refused WHAT RAW OUT MESSAGE: bench/run must refuse RAW (exit 2) saying
# MESSAGE.
refused() {
	local rc
	rc=$(run "$2" "$3")
	if [ "$rc" -eq 2 ] && grep -q "$4" "$3.log"; then
		echo "PASS bench-report: $1 is refused"
	else
		echo "FAIL bench-report: $1 gave exit $rc"
		fails=$((fails + 1))
	fi
}

# process NAME RAW OUT FILE: bench/run RAW into OUT must succeed and write
# OUT/FILE (the Markdown result).
process() {
	local rc
	rc=$(run "$2" "$3")
	if [ "$rc" -ne 0 ] || [ ! -s "$3/$4" ]; then
		cat "$3.log"
		echo "FAIL bench-report: processing the $1 report (exit $rc)"
		fails=$((fails + 1))
		return 1
	fi
	echo "PASS bench-report: processing the $1 report"
}

out=$tmp/prof
md=$out/2026-01-02-6.1.0-test-amd64.md
json=$out/2026-01-02-6.1.0-test-amd64.json
process profile "$here/data/raw-profile.txt" "$out" "$(basename "$md")" || exit 1
# IOPS medians 100 and 125, CPU 10 and 8, latency medians 500 and 400.
check "qd32 IOPS goal" "$md" "| 4 KiB random read IOPS, qd 32, Purlin / nvmet | >= 1.25 | 1.25 | yes |"
check "qd1 latency goal" "$md" "| 4 KiB random read mean latency, qd 1, Purlin / nvmet | <= 0.85 | 0.80 | yes |"
check "CPU goal" "$md" "| CPU per I/O, 4 KiB random read qd 32, Purlin / nvmet | <= 0.80 | 0.80 | yes |"
check "128k goal not measured" "$md" "| 128 KiB sequential read, Purlin / ib_write_bw | >= 0.90 | not measured | - |"
check "pair ratio range" "$md" "| nullblk | randread-4k-qd32 | IOPS | 100 | 125 | 1.25 | 1.09-1.39 |"
check "latency vs ceiling" "$md" "| nullblk | randread-4k-qd1 | lat mean (lower) | 500 | 400 | 0.80 | 0.80-0.83 | 2.00 | 2.50 |"
check "RNR NAK medians" "$md" "| nullblk | randread-4k-qd1 | RNR NAKs (lower) | 0.00 | 2.00 | - | - |"
# busy = 100 - idle; shares of busy; target CPU-us/IO = CPU per I/O x share
check "profile nvmet qd32" "$md" "| nullblk | randread-4k-qd32 | nvmet | 50 | 20.0 | 10.0 | 40.0 | 0.0 | 10.0 | 0.0 | 10.0 | 10.0 | 2.00 |"
check "profile purlin qd1" "$md" "| nullblk | randread-4k-qd1 | purlin | 40 | 5.0 | 10.0 | 35.0 | 5.0 | 5.0 | 0.0 | 10.0 | 30.0 | 45.0 |"
check "target CPU ratio" "$md" "| nullblk | randread-4k-qd32 | Purlin / nvmet | | | | | | | | | | 0.40 |"
check "reproduce command" "$md" "BENCH_PERF=1 KVER=6.1.0-test-amd64 make bench"
check "JSON profile" "$json" '"target_cpu_us_per_io": 0.8, "share_of_busy_pct": {"target": 10,'
check "JSON ratio" "$json" '"ratio_purlin_nvmet": 1.25'

# Without PROF lines: no profile section, no BENCH_PERF in the command.
grep -v '^PROF ' "$here/data/raw-profile.txt" | sed 's/ perf=1$/ perf=0/' > "$tmp/raw-plain.txt"
out=$tmp/plain
md=$out/2026-01-02-6.1.0-test-amd64.md
if process plain "$tmp/raw-plain.txt" "$out" "$(basename "$md")"; then
	absent "no profile section" "$md" "Where the CPU time went"
	absent "no BENCH_PERF" "$md" "BENCH_PERF"
	absent "no cpu_profile" "$out/2026-01-02-6.1.0-test-amd64.json" "cpu_profile"
fi

# Pair mode: the results get a -pair suffix, the host guest's CPU per I/O
# its own rows (medians 20 and 30), the command BENCH_PAIR=1.
sed 's/^INFO kernel=\([^ ]*\) /INFO kernel=\1 mode=pair /' "$here/data/raw-profile.txt" |
	awk '/^RUN / { $0 = $0 " host_cpu_us_per_io=" ($0 ~ /target=nvmet/ ? 20 : 30) } { print }' \
	> "$tmp/raw-pair.txt"
out=$tmp/pair
md=$out/2026-01-02-6.1.0-test-amd64-pair.md
if process pair "$tmp/raw-pair.txt" "$out" "$(basename "$md")"; then
	check "pair: host guest CPU rows" "$md" "| nullblk | randread-4k-qd32 | host guest CPU us/IO (lower) | 20.0 | 30.0 | 1.50 |"
	check "pair: explained" "$md" "**Two guests (\`BENCH_PAIR=1\`):**"
	check "pair: command" "$md" "BENCH_PERF=1 BENCH_PAIR=1 KVER=6.1.0-test-amd64 make bench"
fi

# Instruction counts (BENCH_INSN=1, pair mode): snapshots of 1000 I/Os per
# window (one window of 3000 I/Os whose back end keeps no count: fio's
# 1000 IOPS x 6 s / 2 CPUs), attributed with data/insn/kallsyms.nullblk.
# Per I/O: nvmet user 5000, nic 50000, tgt 50000 (sched 30000, target 1000,
# block 9000, wq 9900, unknown 100); Purlin at qd 32 tgt 25000 (sched 10000,
# target 2000, block 9000, mem 3900, unknown 100), at qd 1 sched 20000.
# Context switches per I/O 2 (nvmet) and 0.1 (Purlin qd 32).
# The host guest (BENCH_INSN_HOST=1): 100,000 instructions per I/O against
# nvmet (fio 5,000, soft-RoCE the rest), 110,000 against Purlin; 2 and 2.4
# interrupts per I/O.
mkdir -p "$tmp/insn/insn"
cp "$here/data/insn/kallsyms.nullblk" "$tmp/insn/insn/"
cp "$here/data/insn/kallsyms.nullblk" "$tmp/insn/insn/kallsyms.host.nullblk"
hsnap() {	# hsnap N SCALE PER_IO
	{
		echo "0 $((5000 * $2 * 1000))"
		echo "ffffffffc0000010 $((($3 - 5000) * $2 * 1000))"
		echo "total $(($3 * $2 * 1000))"
	} > "$tmp/insn/insn/insn.snap.host.$1"
}
snap() {	# snap N SCALE SCHED TARGET WQ OTHER
	local s=$(($2 * 1000))
	{
		echo "0 $((5000 * s))"
		echo "ffffffffc0000010 $((50000 * s))"	# rxe_requester: nic
		echo "ffffffff81001040 $(($3 * s))"	# __schedule
		echo "$4 $((${5%%:*} * s))"		# the target's receive handler
		echo "ffffffff81002000 $((9000 * s))"	# blk_mq_submit_bio
		echo "ffffffff81004000 $(($6 * s))"	# process_one_work
		echo "ffffffff81005010 $((${7} * s))"	# memcpy: mem
		echo "ffffffff80000000 $((100 * s))"	# below the first symbol
		echo "total $(((5000 + 50000 + $3 + ${5%%:*} + 9000 + $6 + $7 + 100) * s))"
	} > "$tmp/insn/insn/insn.snap.$1"
}
n=0
grep -v '^PROF ' "$here/data/raw-profile.txt" |
	sed 's/^INFO kernel=\([^ ]*\) /INFO kernel=\1 mode=pair /; s/ perf=1$/ perf=0 insn=1 insn_host=1/' > "$tmp/insn/raw.src"
while IFS= read -r line; do
	case "$line" in
	RUN\ *) ;;
	*) echo "$line"; continue ;;
	esac
	n=$((n + 1))
	case "$line" in
	*target=nvmet\ pair=3*qd1\ *|*qd1\ target=nvmet\ pair=3*)
		snap $n 3 30000 ffffffffc0002000 1000 9900 0
		hsnap $n 3 100000
		echo "$line win_ncpu=2 host_ctxt_per_io=3 host_intr_per_io=2 ctxt=6000 intr=9000 ios_win=0 insn_snap=$n" ;;
	*target=nvmet*)
		snap $n 1 30000 ffffffffc0002000 1000 9900 0
		hsnap $n 1 100000
		echo "$line win_ncpu=2 host_ctxt_per_io=3 host_intr_per_io=2 ctxt=2000 intr=3000 ios_win=1000 insn_snap=$n" ;;
	*qd32\ target=purlin*)
		snap $n 1 10000 ffffffffc0001000 2000 0 3900
		hsnap $n 1 110000
		echo "$line win_ncpu=2 host_ctxt_per_io=3 host_intr_per_io=2.4 ctxt=100 intr=1000 ios_win=1000 insn_snap=$n" ;;
	*)
		snap $n 1 20000 ffffffffc0001000 2000 0 3900
		hsnap $n 1 110000
		echo "$line win_ncpu=2 host_ctxt_per_io=3 host_intr_per_io=2.4 ctxt=1000 intr=1000 ios_win=1000 insn_snap=$n" ;;
	esac
done < "$tmp/insn/raw.src" > "$tmp/insn/raw.txt"
out=$tmp/insn-out
md=$out/2026-01-02-6.1.0-test-amd64-pair.md
if process insn "$tmp/insn/raw.txt" "$out" "$(basename "$md")"; then
	check "insn: target share qd32 goal" "$md" "| target-side instructions per 4 KiB random read, qd 32 (NIC excluded) | <= 0.50 | 0.50 | yes |"
	check "insn: target share qd1 goal" "$md" "| target-side instructions per 4 KiB random read, qd 1 (NIC excluded) | <= 0.60 | 0.70 | no |"
	check "insn: context switch goal" "$md" "| context switches per I/O, 4 KiB random read qd 32 | <= 0.10 | 0.05 | yes |"
	check "insn: total per I/O" "$md" "| nullblk | randread-4k-qd32 | instructions/IO (lower) | 105000 | 80000 | 0.76 |"
	check "insn: qd1 nvmet with a window of fio's I/Os" "$md" "| nullblk | randread-4k-qd1 | instructions/IO, target share (lower) | 50000 | 35000 | 0.70 |"
	check "insn: interrupts per I/O" "$md" "| nullblk | randread-4k-qd32 | interrupts/IO (lower) | 3.00 | 1.00 | 0.33 |"
	imd=$out/2026-01-02-6.1.0-test-amd64-pair-insn.md
	check "insn: functions, nvmet" "$imd" "| __schedule | vmlinux | tgt/sched | 30000 |"
	check "insn: functions, nic" "$imd" "| rxe_requester | rdma_rxe | nic | 50000 |"
	check "insn: functions, wq" "$imd" "| process_one_work | vmlinux | tgt/wq | 9900 |"
	check "insn: functions, purlin" "$imd" "| purlin_rdma_recv_done | purlin | tgt/target | 2000 |"
	check "insn: functions, mem" "$imd" "| memcpy | vmlinux | tgt/mem | 3900 |"
	check "insn: host guest per I/O" "$md" "| nullblk | randread-4k-qd32 | host guest instructions/IO (lower) | 100000 | 110000 | 1.10 |"
	check "insn: host guest interrupts" "$md" "| nullblk | randread-4k-qd32 | host guest interrupts/IO (lower) | 2.00 | 2.40 | 1.20 |"
	check "insn: host guest functions" "$imd" "## nullblk randread-4k-qd32 purlin, host guest"
	check "insn: host guest command" "$md" "BENCH_INSN=1 BENCH_INSN_HOST=1 BENCH_PAIR=1"
	# The given report is left as it was.
	if grep -q 'win_ios=' "$tmp/insn/raw.txt"; then
		echo "FAIL bench-report: insn: the given report was rewritten"
		fails=$((fails + 1))
	else
		echo "PASS bench-report: insn: the given report is not rewritten"
	fi
fi
# A snapshot whose lines do not add up to its total is refused.
sed -i '$s/^total .*/total 1/' "$tmp/insn/insn/insn.snap.1"
refused "a truncated snapshot" "$tmp/insn/raw.txt" "$tmp/insn-bad" "do not add up"

# Owners (the module whose code ran before a kernel image block): memcpy's
# 4000 instructions, 1000 after soft-RoCE's code (NIC), 2000 after
# Purlin's and 1000 after none (both the target's, as memcpy's own class).
ireport=$top/build/bench/insn-report
printf 'ffffffff81005010 4000 rdma_rxe=1000 purlin=2000\nffffffffc0001000 500\ntotal 4500\n' > "$tmp/own.snap"
got=$("$ireport" -t 3 "$here/data/insn/kallsyms.nullblk" "$tmp/own.snap" 1 2>&1)
for want in "insn=4500 user=0 nic=1000 host=0 tgt=3500 tgt_target=500 " "tgt_mem=3000 " \
	"FN memcpy vmlinux tgt/mem 3000" "FN memcpy vmlinux nic 1000" "FN purlin_rdma_recv_done purlin tgt/target 500"; do
	case "$got" in
	*"$want"*) echo "PASS bench-report: owners: $want" ;;
	*) echo "FAIL bench-report: owners: no '$want' in: $got"; fails=$((fails + 1)) ;;
	esac
done
# Library code in a module (insn.libs: only such module code has owners):
# a soft-RoCE verb, 300 of 800 called by Purlin (the target's, RDMA core),
# 200 by soft-RoCE itself and 300 by none (the NIC's, its own class).
printf 'ffffffffc0000000 800 purlin=300 rdma_rxe=200\ntotal 800\n' > "$tmp/own-lib.snap"
got=$("$ireport" -t 3 "$here/data/insn/kallsyms.nullblk" "$tmp/own-lib.snap" 1 2>&1)
for want in "insn=800 user=0 nic=500 host=0 tgt=300 tgt_target=0 tgt_rdma=300 " \
	"FN rxe_requester rdma_rxe nic 500" "FN rxe_requester rdma_rxe tgt/rdma 300"; do
	case "$got" in
	*"$want"*) echo "PASS bench-report: library owners: $want" ;;
	*) echo "FAIL bench-report: library owners: no '$want' in: $got"; fails=$((fails + 1)) ;;
	esac
done
printf 'ffffffff81005010 4000 rdma_rxe=5000\ntotal 4000\n' > "$tmp/own-bad.snap"
if got=$("$ireport" "$here/data/insn/kallsyms.nullblk" "$tmp/own-bad.snap" 1 2>&1); then
	echo "FAIL bench-report: owners: a share larger than its count was accepted: $got"
	fails=$((fails + 1))
else
	echo "PASS bench-report: owners: a share larger than its count is refused"
fi
# A block's worth of snapshot skew (the plugin reads a count before its
# owners while the guest runs): clamped to the count, and said.
printf 'ffffffff81005010 4000 rdma_rxe=1000 purlin=3003\nffffffffc0001000 996000\ntotal 1000000\n' > "$tmp/own-skew.snap"
if got=$("$ireport" "$here/data/insn/kallsyms.nullblk" "$tmp/own-skew.snap" 1 2>&1) &&
	case "$got" in *"nic=1000 "*) true ;; *) false ;; esac &&
	case "$got" in *"3 owner instructions beyond"*) true ;; *) false ;; esac; then
	echo "PASS bench-report: owners: a few instructions of skew are clamped and said"
else
	echo "FAIL bench-report: owners: skew of 3 instructions: $got"
	fails=$((fails + 1))
fi

# A report without its INFO line is refused.
grep -v '^INFO ' "$here/data/raw-profile.txt" > "$tmp/raw-bad.txt"
refused "a report without INFO" "$tmp/raw-bad.txt" "$tmp/bad" "no INFO line"

# The guest's classifier of perf samples (tests/vm/bench/perf-classify.awk),
# with this machine's awk and with busybox awk as in the guest, on eight
# samples (data/perf-script.txt, modules at data/modules.txt): idle, target
# (called the block layer; a period of 6 ms, the others 2 ms), rxe, user,
# kernel (a system call), back end, target (rdma_rw called by purlin), rdma
# (the completion loop alone).  Shares are of time: 20 ms in all.
want="samples=8 pct_idle=10.0 pct_target=40.0 pct_host=0.0 pct_rxe=10.0 pct_rdma=10.0 pct_backend=10.0 pct_net=0.0 pct_user=10.0 pct_kernel=10.0"
for a in awk "busybox awk"; do
	got=$($a -f "$top/tests/vm/bench/perf-classify.awk" "$here/data/modules.txt" - \
		< "$here/data/perf-script.txt" 2>&1)
	if [ "$got" = "$want" ]; then
		echo "PASS bench-report: perf classifier ($a)"
	else
		echo "FAIL bench-report: perf classifier ($a): got '$got', want '$want'"
		fails=$((fails + 1))
	fi
done
[ "$fails" -eq 0 ]
