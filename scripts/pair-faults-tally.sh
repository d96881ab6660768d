#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run purlin-pair-faults ROUNDS times against Purlin and as many times
# against Linux's nvmet (VM_APPEND=purlin_pair_target=nvmet), interleaved,
# on one kernel (default Debian's 6.12, where the test is meant to run), and
# keep what a failed run leaves: both guests' consoles and the link's
# capture (scripts/pcap-cm.py lists its CM messages).  Issue #20: whose is
# the outage phase's hang.
#
# usage: scripts/pair-faults-tally.sh [ROUNDS] [KVER-or-6.12]
#   TARGETS="purlin"  run against Purlin only (default "purlin nvmet")
# output: build/pair-faults/<stamp>/{summary,N-TARGET.log,N-TARGET.*.console,N-TARGET.pcap}
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
rounds=${1:-10}
want=${2:-6.12}
targets=${TARGETS:-purlin nvmet}
K=$(scripts/kernel-fetch.sh "$want") || { echo "cannot fetch kernel $want" >&2; exit 2; }
R=$top/build/kernels/$K
ko=$(scripts/build-for.sh "$K" "$R/lib/modules/$K/build") || exit 2
make -s tools || exit 2
out=$top/build/pair-faults/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
vm=$top/build/vm/$K
for i in $(seq "$rounds"); do
	for tgt in $targets; do
		app=""
		[ $tgt = nvmet ] && app=purlin_pair_target=nvmet
		t0=$(date +%s)
		VM_APPEND=$app KVER=$K MODROOT=$R PURLIN_KO=$ko \
			tests/vm/run --pair purlin-pair-faults > "$out/$i-$tgt.log" 2>&1
		rc=$?
		echo "$i $tgt $([ $rc = 0 ] && echo pass || echo FAIL) $(( $(date +%s) - t0 ))s" |
			tee -a "$out/summary"
		[ $rc = 0 ] && continue
		cp "$vm/target.console" "$out/$i-$tgt.target.console"
		cp "$vm/host.console" "$out/$i-$tgt.host.console"
		cp "$vm/pair/purlin-pair-faults.pcap" "$out/$i-$tgt.pcap" 2>/dev/null
	done
done
for tgt in $targets; do
	echo "$tgt: $(grep -c " $tgt pass" "$out/summary") of $rounds passed"
done | tee -a "$out/summary"
