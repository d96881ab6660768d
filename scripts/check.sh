#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: dependencies, build (module clean with W=1, tool with -Werror),
# host unit tests, the guest suite, the harness self-test.  Ends with one
# line "N passed, N failed, N skipped" and fails on any failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
logdir=$top/build/check
mkdir -p "$logdir"

. "$top/scripts/results.sh"

# The failures' digest (tests/vm/run appends to it; finish prints it last).
export VM_DIGEST=$logdir/digest.txt
: > "$VM_DIGEST"
t0=$(date +%s)
section() {	# section TITLE: a heading with the minutes:seconds since the start
	local e=$(( $(date +%s) - t0 ))
	printf '== [%d:%02d] %s\n' $((e / 60)) $((e % 60)) "$*"
}

section "dependencies"
if ! scripts/deps.sh; then
	result FAIL deps "package installation failed"
	finish
fi

# fetch_kernel SERIES: sets K (release), R (private root), KD (headers).
fetch_kernel() {
	K=$(scripts/kernel-fetch.sh "$1") || return 1
	R=$top/build/kernels/$K
	KD=$R/usr/src/linux-headers-$K
}

# The kernel the full suite runs on: the installed one, or CHECK_KVER.
suite_env=""
case "${CHECK_KVER:-}" in
"") ;;
[0-9]*.[0-9]*)
	if [ -d "/lib/modules/$CHECK_KVER/build" ]; then
		suite_env="KVER=$CHECK_KVER"
	elif fetch_kernel "$CHECK_KVER" && ko=$(scripts/build-for.sh "$K" "$KD"); then
		suite_env="KVER=$K MODROOT=$R PURLIN_KO=$ko"
	else
		result FAIL "kernel-$CHECK_KVER" "cannot fetch or build for it"
		finish
	fi ;;
esac

section "build"
if make --no-print-directory module > "$logdir/module.log" 2>&1; then
	# modpost says WARNING: (upper case), the compiler warning:
	if grep -E 'warning:|WARNING:|error:' "$logdir/module.log"; then
		result FAIL build-module "warnings with W=1 (see $logdir/module.log)"
	else
		result PASS build-module
	fi
else
	tail -n 30 "$logdir/module.log"
	result FAIL build-module
fi
if make --no-print-directory tools > "$logdir/tools.log" 2>&1; then
	result PASS build-purlinctl
else
	tail -n 30 "$logdir/tools.log"
	result FAIL build-purlinctl
fi
[ "$fail" -eq 0 ] || finish

section "unit tests (cmocka, TAP)"
make --no-print-directory -s -C tests/unit check > "$logdir/unit.tap" 2>&1
urc=$?
# A failure message without a trailing newline puts "not ok" mid-line:
# find results anywhere on a line, and count a plan's missing results
# (each binary's "1..N") as failures.
grep -oE '(^ok|not ok) [0-9]+ - [^ ]+' "$logdir/unit.tap" |
	sed -E 's/^ok [0-9]+ - /PASS unit: /; s/^not ok [0-9]+ - /FAIL unit: /' > "$logdir/unit.txt"
planned=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$logdir/unit.tap" | awk '{ n += $1 } END { print n + 0 }')
got=$(wc -l < "$logdir/unit.txt")
if [ "$got" -lt "$planned" ]; then
	echo "FAIL unit: $((planned - got)) of $planned planned results missing from the TAP output" >> "$logdir/unit.txt"
fi
cat "$logdir/unit.txt" | grep -v '^PASS' || true
count_lines "$logdir/unit.txt"
echo "unit: $(grep -c '^PASS' "$logdir/unit.txt") passed"
if [ $urc -ne 0 ] && ! grep -q '^FAIL' "$logdir/unit.txt"; then
	tail -n 30 "$logdir/unit.tap"
	result FAIL unit "the unit test run failed"
fi
if [ ! -s "$logdir/unit.txt" ]; then
	result FAIL unit "no unit test results"
fi

section "bench report processing (host)"
tests/bench/report-test.sh > "$logdir/bench-report.txt" 2>&1
brc=$?
grep -v '^PASS' "$logdir/bench-report.txt" || true
count_lines "$logdir/bench-report.txt"
echo "bench-report: $(grep -c '^PASS' "$logdir/bench-report.txt") passed"
if [ $brc -ne 0 ] && ! grep -q '^FAIL' "$logdir/bench-report.txt"; then
	result FAIL bench-report "the test script failed (see $logdir/bench-report.txt)"
fi

# Packages, DKMS and the newest Debian kernel (sid chroot), 6.1, 6.12.
section "packaging and kernels (DKMS)"
scripts/dkms-check.sh 2>&1 | tee "$logdir/dkms.log"
drc=${PIPESTATUS[0]}
count_lines "$logdir/dkms.log"
if [ "$drc" -ne 0 ] && ! grep -q '^FAIL ' "$logdir/dkms.log"; then
	result FAIL dkms-check "harness error (exit $drc)"
fi

section "guest suite${suite_env:+ ($suite_env)}"
env $suite_env tests/vm/run ${T:-} 2>&1 | tee "$logdir/vm.log"
vrc=${PIPESTATUS[0]}
count_lines "$logdir/vm.log"
if [ "$vrc" -ne 0 ] && ! grep -q '^FAIL ' "$logdir/vm.log"; then
	result FAIL guest-suite "harness error (exit $vrc)"
fi

# The tests that move data, again with polled I/O queues on every port
# (param_cq_mode=poll; make check-poll runs the whole suite that way), the
# threads waiting in place while alone on their CPU (purlin.poll_halt=1;
# purlin-poll covers the spin without it).
poll_tests="purlin-connect purlin-fio-matrix purlin-file purlin-queues purlin-multi purlin-teardown purlin-fault-kill purlin-fault-port purlin-wire purlin-hostile purlin-qos purlin-srq purlin-stats"
section "guest suite, polled I/O queues${suite_env:+ ($suite_env)}"
env $suite_env VM_APPEND="${VM_APPEND:-} purlin_cq_mode=poll purlin.poll_halt=1" tests/vm/run $poll_tests 2>&1 |
	sed 's/^\(PASS\|FAIL\|SKIP\) /\1 poll:/' | tee "$logdir/vm-poll.log"
vrc=${PIPESTATUS[0]}
count_lines "$logdir/vm-poll.log"
if [ "$vrc" -ne 0 ] && ! grep -q '^FAIL ' "$logdir/vm-poll.log"; then
	result FAIL guest-suite-poll "harness error (exit $vrc)"
fi

# run_vm LOG PREFIX [VAR=VAL...] -- ARGS...: tests/vm/run ARGS with those
# variables, its result lines prefixed "PREFIX:" and counted.
run_vm() {
	local log=$1 pre=$2 vars=() vrc
	shift 2
	while [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	env "${vars[@]}" tests/vm/run "$@" 2>&1 |
		sed "s/^\(PASS\|FAIL\|SKIP\) /\1 ${pre:+$pre:}/" | tee "$log"
	vrc=${PIPESTATUS[0]}
	count_lines "$log"
	if [ "$vrc" -ne 0 ] && ! grep -q '^FAIL ' "$log"; then
		result FAIL "guest${pre:+-$pre}" "harness error (exit $vrc, see $log)"
	fi
}

# The pair tests (two guests, one virtual wire).  With CHECK_KVER, both
# guests run that kernel; otherwise the kernel matrix below runs them.
pair_tests="purlin-pair-tos purlin-pair-interop"
if [ -n "${CHECK_KVER:-}" ]; then
	section "guest pair tests (two guests, one virtual wire) ($suite_env)"
	run_vm "$logdir/vm-pair.log" "" $suite_env -- --pair $pair_tests
fi

# The kernel matrix (Documentation/testing.md, "Kernels"): Purlin as the
# target on 6.1 (this machine's kernel: the suite above), Debian's 6.12
# and the newest Debian kernel (sid's, built in the sid chroot); the stock
# host of each.  A cell whose target and host kernels are the same: the
# interop core in one guest (for 6.1, the suite above).  A cell whose
# kernels differ: the interop core across the wire (purlin-pair-interop),
# and in the first such cell of each target kernel purlin-pair-tos too.
# Packet loss and a link outage (purlin-pair-faults) on 6.12 on both
# sides: 6.1's soft-RoCE does not survive packet loss, 7.2's deadlocks
# when a connection is torn down under I/O (for nvmet as for Purlin).
if [ -z "${CHECK_KVER:-}" ]; then
	# tests/vm/run's default kernel: the newest installed.
	cells_k=("$(ls -1 /lib/modules | sort -V | tail -n 1)") cells_r=(/)
	cells_ko=("$top/purlin.ko")
	for series in 6.12 sid; do
		section "kernel $series: fetch and build"
		if ! fetch_kernel "$series"; then
			result FAIL "kernel-$series" "cannot fetch the $series kernel"
			continue
		fi
		# The sid kernel's module: dkms-check.sh built it above from this
		# tree, with W=1, in the sid chroot (its build-module-W1 result).
		w1=$top/build/dkms/sid/src/purlin.ko
		if [ "$series" = sid ] &&
		   grep -qx "PASS build-module-W1-$K" "$top/build/dkms/logs/sid.log" 2>/dev/null &&
		   [ "$(modinfo -F vermagic "$w1" 2>/dev/null | cut -d' ' -f1)" = "$K" ]; then
			mkdir -p "$top/build/modules/$K"
			cp "$w1" "$top/build/modules/$K/purlin.ko"
			ko=$top/build/modules/$K/purlin.ko
			echo "purlin.ko for $K: dkms-check's W=1 build"
		elif ! ko=$(scripts/build-for.sh "$K" "$KD"); then
			result FAIL "build-module-$K" "see build/modules/$K/build.log"
			continue
		else
			result PASS "build-module-$K"
		fi
		cells_k+=("$K") cells_r+=("$R") cells_ko+=("$ko")
	done
	for i in "${!cells_k[@]}"; do
		t=${cells_k[$i]}
		ts=$(echo "$t" | cut -d. -f1,2)
		tenv=(KVER="$t" MODROOT="${cells_r[$i]}" PURLIN_KO="${cells_ko[$i]}")
		if [ "$i" -gt 0 ]; then
			section "guest interop core on $t"
			run_vm "$logdir/vm-$ts.log" "$ts" "${tenv[@]}" -- \
				purlin-load purlin-auth purlin-connect purlin-discovery reference-nvmet
		fi
		if [ "$ts" = 6.12 ]; then
			section "guest pair faults on $t"
			run_vm "$logdir/vm-pair-faults-$ts.log" "$ts" "${tenv[@]}" -- \
				--pair purlin-pair-faults
		fi
		tests=$pair_tests
		[ "${#cells_k[@]}" -gt 1 ] || {
			section "guest pair tests on $t"
			run_vm "$logdir/vm-pair-$ts.log" "$ts" "${tenv[@]}" -- --pair $tests
		}
		for j in "${!cells_k[@]}"; do
			[ "$j" != "$i" ] || continue
			h=${cells_k[$j]}
			hs=$(echo "$h" | cut -d. -f1,2)
			section "guest pair tests: target $t, host $h"
			run_vm "$logdir/vm-pair-$ts-$hs.log" "$ts-host-$hs" "${tenv[@]}" \
				HOST_KVER="$h" HOST_MODROOT="${cells_r[$j]}" -- \
				--pair $tests
			tests=purlin-pair-interop
		done
	done
fi

section "harness self-test"
VM_DIGEST= tests/vm/harness-selftest | tee "$logdir/selftest.log"
hrc=${PIPESTATUS[0]}
count_lines "$logdir/selftest.log"
if [ "$hrc" -ne 0 ] && ! grep -q '^FAIL ' "$logdir/selftest.log"; then
	result FAIL harness-selftest "the self-test script failed (exit $hrc)"
fi

finish
