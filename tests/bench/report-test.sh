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

# A report without its INFO line is refused.
grep -v '^INFO ' "$here/data/raw-profile.txt" > "$tmp/raw-bad.txt"
rc=$(run "$tmp/raw-bad.txt" "$tmp/bad")
if [ "$rc" -eq 2 ] && grep -q "no INFO line" "$tmp/bad.log"; then
	echo "PASS bench-report: a report without INFO is refused"
else
	echo "FAIL bench-report: a report without INFO gave exit $rc"
	fails=$((fails + 1))
fi

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
