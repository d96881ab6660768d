#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: the guest suite on a debug kernel (Debian's 6.1 source
# with KASAN, lockdep, kmemleak, UBSAN, list/sg/object debugging; see
# scripts/debug-kernel.sh and scripts/debug-kernel.config).
#
#   1. build or reuse the debug kernel (cached in /var/cache/purlin/)
#   2. purlin.ko for it (scripts/build-for.sh, W=1, no warnings) and purlinctl
#   3. lane self-test, one boot: a deliberate lockdep, KASAN, UBSAN and
#      kmemleak report must each fail its test, a clean test must pass
#   4. the guest suite (every tests/vm/tests/ test, the wire tests among
#      them, or T="..."), each boot ending with debug-scan (kmemleak scan,
#      lockdep still on), booted with kmemleak=on kasan_multi_shot:
#      - the tests that need the host's native NVMe multipath
#        (MULTIPATH_TESTS), each in a boot of its own (the stock host's
#        known lockdep report there turns lockdep off for the rest of the
#        boot: one test's report must not take it from the next test),
#      - the tests that can make a known KASAN report of the stock host
#        (OWN_BOOT_TESTS), each in a boot of its own,
#      - all others in one boot with nvme_core.multipath=N, where the stock
#        host's known lockdep report (scripts/debug-kernel.known) cannot
#        happen and turn lockdep off for the rest of the suite.
# Ends with one line "N passed, N failed, N skipped" and fails on any
# failure.  A kernel report (KASAN:, UBSAN:, lockdep's WARNING:, kmemleak)
# fails the test that was running (tests/vm/run's BADPAT), unless the test
# itself passed and each of its reports is a known one
# (scripts/debug-kernel.known): then it is listed as KNOWN, with the skips.
#
# environment:
#   T                  guest tests to run (default: all of tests/vm/tests/)
#   VM_MEM             guest memory in MiB (default 4096: KASAN's shadow is
#                      1/8 of it, kmemleak keeps metadata per object)
#   VM_TIMEOUT_SCALE   multiply the harness's time budget and each test's
#                      own time limit in the guest (default 3)
#   BOOT_TIMEOUT       seconds to reach /init (default 300)
#   VM_APPEND          extra kernel command line, after the lane's own
#   CHECK_DEBUG_SKIP_SELFTEST=1  skip step 3
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
logdir=$top/build/check-debug
mkdir -p "$logdir"

export VM_MEM=${VM_MEM:-4096}
export BOOT_TIMEOUT=${BOOT_TIMEOUT:-300}
scale=${VM_TIMEOUT_SCALE:-3}
# The guest scales each test's own "# timeout:" by the same factor.
# purlin-fault-kill needs a slow device to see a deep queue here (see it).
append="kmemleak=on kasan_multi_shot purlin_timeout_scale=$scale purlin_fault_kill_delay_ms=200${VM_APPEND:+ $VM_APPEND}"
# Guest tests that need the host's native NVMe multipath (purlin-ocf: the
# ANA agent's part follows the host's path device).
MULTIPATH_TESTS="purlin-ana purlin-ocf"
# Guest tests that run in a boot of their own: purlin-fault-link can make
# the stock host's known KASAN report (scripts/debug-kernel.known), and a
# KASAN report turns lockdep off for the rest of the boot.
OWN_BOOT_TESTS="purlin-fault-link"
known=$top/scripts/debug-kernel.known

. "$top/scripts/results.sh"
# budget TEST...: the harness's own default time limit for these tests
# (60 s + each test's "# timeout:"), scaled for the debug kernel.
budget() {
	local t s lim b=60 d
	for t in "$@"; do
		s=""
		for d in tests selftests; do
			[ -f "tests/vm/$d/$t.sh" ] && s=tests/vm/$d/$t.sh
		done
		lim=""
		[ -n "$s" ] && lim=$(sed -n 's/^# timeout: *\([0-9]*\).*/\1/p' "$s" | head -n1)
		b=$((b + ${lim:-300}))
	done
	echo $((b * scale))
}

echo "== dependencies"
if ! scripts/deps.sh debug-kernel; then
	result FAIL deps "package installation failed"
	finish
fi

echo "== debug kernel"
t0=$(date +%s)
if ! K=$(scripts/debug-kernel.sh 2> >(tee "$logdir/kernel.log" >&2)); then
	result FAIL debug-kernel "see $logdir/kernel.log"
	finish
fi
R=$top/build/kernels/$K
KD=$R/lib/modules/$K/build
echo "debug-kernel: $K ready in $(( $(date +%s) - t0 ))s"
# Every module the guest's initramfs takes (tests/vm/mkinitramfs) must be
# in this kernel, built in or as a module.
guest_modules=$(sed -n '/^GUEST_MODULES="/,/"/p' tests/vm/mkinitramfs |
	sed 's/^GUEST_MODULES=//; s/"//g')
lacking=""
for m in $guest_modules; do
	modprobe -d "$R" -S "$K" --show-depends "$m" > /dev/null 2>&1 ||
		lacking="$lacking $m"
done
if [ -n "$lacking" ]; then
	result FAIL debug-kernel-modules "the guest needs$lacking: add them to scripts/debug-kernel.config"
	finish
fi

echo "== build"
if ko=$(scripts/build-for.sh "$K" "$KD" 2> "$logdir/module.log"); then
	result PASS "build-module-$K"
else
	cat "$logdir/module.log"
	result FAIL "build-module-$K" "see build/modules/$K/build.log"
fi
if make --no-print-directory tools > "$logdir/tools.log" 2>&1; then
	result PASS build-purlinctl
else
	tail -n 30 "$logdir/tools.log"
	result FAIL build-purlinctl
fi
[ "$fail" -eq 0 ] || finish

# run_vm LOG TEST...: one guest boot on the debug kernel (VM_APPEND in the
# environment: the lane's command line).  Keeps the boot's console and
# result channel next to LOG.
run_vm() {
	local log=$1 rc start
	shift
	start=$(date +%s)
	KVER=$K MODROOT=$R PURLIN_KO=$ko \
		VM_TIMEOUT=${VM_TIMEOUT:-$(budget "$@")} \
		tests/vm/run "$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	cp "$top/build/vm/$K/console.log.clean" "${log%.log}.console.log" 2> /dev/null
	cp "$top/build/vm/$K/results.log.clean" "${log%.log}.results.log" 2> /dev/null
	echo "(boot took $(( $(date +%s) - start ))s; console: ${log%.log}.console.log)"
	return $rc
}

BADPAT=$(sed -n "s/^BADPAT='\(.*\)'\$/\1/p" tests/vm/run)
[ -n "$BADPAT" ] || { echo "check-debug: cannot read BADPAT from tests/vm/run" >&2; exit 2; }

# known_only TEST CONSOLE: prints the known entries when every kernel report
# printed while TEST ran (TEST "*": in the whole boot) matches one
# (scripts/debug-kernel.known); fails when one does not, or when there is
# none.
known_only() {
	awk -v t="$1" -v pat="$BADPAT" -v known="$known" '
	BEGIN {
		while ((getline l < known) > 0) {
			if (l ~ /^#/ || l !~ /[|]/) continue
			nk++; np[nk] = split(l, f, "|") - 1; name[nk] = f[1]
			for (i = 1; i <= np[nk]; i++) kp[nk, i] = f[i + 1]
		}
	}
	function close_block(   k, i, ok) {
		if (blk == "") return
		nb++
		for (k = 1; k <= nk; k++) {
			ok = 1
			for (i = 1; i <= np[k]; i++)
				if (index(blk, kp[k, i]) == 0) { ok = 0; break }
			if (ok) { hit[name[k]] = 1; blk = ""; return }
		}
		unknown = 1; blk = ""
	}
	t == "*" { on = 1 }
	t != "*" && $0 ~ "purlin-test: BEGIN " t "$" { on = 1; next }
	t != "*" && on && $0 ~ "purlin-test: END " t "$" { close_block(); on = 0; next }
	!on { next }
	$0 ~ pat { close_block(); blk = $0 "\n"; next }
	blk != "" { blk = blk $0 "\n" }
	END {
		close_block()
		if (unknown || nb == 0) exit 1
		for (n in hit) print n
	}' "$2"
}

# triage LOG: a test the harness failed for kernel reports only, whose own
# result was PASS (or lockdep being off, which a known lockdep report
# explains, or the taint KASAN leaves, 0x20 "bad page", after a script that
# itself exited 0) and whose reports are all known, becomes "KNOWN".
triage() {
	local log=$1 t kn
	grep -oE '^FAIL [^ :]+: kernel problem: ' "$log" | cut -d' ' -f2 | tr -d : |
	while read -r t; do
		grep -qE "^RESULT $t (PASS |FAIL [0-9]+ lockdep turned itself off|FAIL [0-9]+ kernel tainted \(0x20\); the test itself exited 0\$)" \
			"${log%.log}.results.log" || continue
		kn=$(known_only "$t" "${log%.log}.console.log" | tr '\n' ' ') || continue
		sed -i "s|^FAIL $t: kernel problem: .*|KNOWN $t: passed; its kernel reports are known, not Purlin's: ${kn% } (scripts/debug-kernel.known)|" "$log"
		grep "^KNOWN $t:" "$log"
	done
	# debug-scan finds lockdep off: fine when every report of the boot is
	# a known one (a lockdep report turns lockdep off).
	if grep -q '^FAIL debug-scan: exit status' "$log" &&
	   grep -q '^LOG debug-scan FAIL: lockdep is off' "${log%.log}.results.log" &&
	   ! grep -q '^LOG debug-scan FAIL: kmemleak' "${log%.log}.results.log" &&
	   kn=$(known_only '*' "${log%.log}.console.log" | tr '\n' ' '); then
		sed -i "s|^FAIL debug-scan: exit status.*|KNOWN debug-scan: lockdep is off after the known report: ${kn% } (scripts/debug-kernel.known)|" "$log"
		grep "^KNOWN debug-scan:" "$log"
	fi
}

# suite LOG TEST...: one boot of the suite; adds its results to the totals.
suite() {
	local log=$1 vrc k
	shift
	run_vm "$log" "$@" debug-scan
	vrc=$?
	triage "$log"
	count_lines "$log"
	k=$(grep -c '^KNOWN ' "$log")
	skip=$((skip + k))
	if [ "$vrc" -ne 0 ] && ! grep -qE '^(FAIL|KNOWN) ' "$log"; then
		result FAIL "guest-suite $(basename "$log" .log)" "harness error (exit $vrc)"
	fi
}

if [ "${CHECK_DEBUG_SKIP_SELFTEST:-0}" != 1 ]; then
	echo "== lane self-test: each checker's report fails its test"
	# lockdep first: a KASAN report turns lockdep off (it taints the kernel).
	VM_APPEND=$append run_vm "$logdir/selftest.log" debug-lockdep \
		debug-kasan debug-ubsan debug-kmemleak selftest-ok
	expect() {	# expect TEST REGEX: TEST failed on a kernel report matching REGEX
		if grep -qE "^FAIL $1: kernel problem: .*($2)" "$logdir/selftest.log"; then
			result PASS "lane-catches-${1#debug-}"
		else
			result FAIL "lane-catches-${1#debug-}" "expected 'FAIL $1: kernel problem: ...$2'"
		fi
	}
	expect debug-lockdep 'WARNING: possible circular locking dependency'
	expect debug-kasan 'KASAN: slab-out-of-bounds'
	expect debug-ubsan 'UBSAN: shift-out-of-bounds'
	expect debug-kmemleak 'kmemleak: [0-9]+ new suspected'
	if grep -q '^PASS selftest-ok' "$logdir/selftest.log"; then
		result PASS lane-clean-test-passes
	else
		result FAIL lane-clean-test-passes "selftest-ok did not pass after the reports"
	fi
fi

tests=${T:-$(cd tests/vm/tests && ls -- *.sh | sed 's/\.sh$//')}
main="" mpath="" own=""
for t in $tests; do
	case " $MULTIPATH_TESTS " in
	*" $t "*) mpath="$mpath $t"; continue ;;
	esac
	case " $OWN_BOOT_TESTS " in
	*" $t "*) own="$own $t"; continue ;;
	esac
	main="$main $t"
done
if [ -n "$main" ]; then
	echo "== guest suite on $K (nvme_core.multipath=N)"
	# shellcheck disable=SC2086
	VM_APPEND="$append nvme_core.multipath=N" suite "$logdir/vm.log" $main
fi
for t in $mpath; do
	echo "== guest suite on $K, native multipath, in a boot of its own: $t"
	VM_APPEND=$append suite "$logdir/vm-multipath-$t.log" "$t"
done
for t in $own; do
	echo "== guest suite on $K, in a boot of its own: $t"
	VM_APPEND="$append nvme_core.multipath=N" suite "$logdir/vm-$t.log" "$t"
done

finish
