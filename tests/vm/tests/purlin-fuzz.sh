# SPDX-License-Identifier: GPL-2.0
# Randomized wire fuzzing (nvmf-wire fuzz, tests/fuzz/fuzz.c) of a Purlin
# target with a null_blk and a brd namespace: two fixed seeds, a fixed
# number of iterations each, so what `make check` covers does not depend on
# the day or the machine's speed (`make fuzz` runs the seed of the day).  Every answer must be well formed, nothing may
# hang, and afterwards every controller, queue and request is freed, the
# data pool is whole, and the stock host still moves verified data.
#
# Knobs (environment, e.g. VM_APPEND="FUZZ_COUNT=5000" tests/vm/run ...):
#   FUZZ_SEED   second seed (default 20261201; `make fuzz`: today's date)
#   FUZZ_COUNT  iterations per seed (default 15000: about 30 s at the
#               ~500 capsules/s measured under TCG)
#   FUZZ_TIME   seconds per seed at most (default 0: no limit, every
#               iteration runs; the test's timeout is the only cap)
#   FUZZ_FIXED  the fixed seed (default 1234567; "none" skips it)
#   FUZZ_KNOWN  finding tags of open, reported bugs: shown, not failed
#   FUZZ_ARGS   more nvmf-wire fuzz options (e.g. --keep-going)
#   FUZZ_REPEAT 1: run the fixed seed twice and require the same capsules
# A second subsystem requires DH-HMAC-CHAP of a host whose key the fuzzer
# never has (group null, so that most sessions cost no Diffie-Hellman):
# about one iteration in a hundred sends mutated authentication messages
# there (--auth-subnqn).
# The long run (tests/vm/bench/purlin-fuzz-long.sh, `make fuzz`) sources
# this file with larger values.
# timeout: 400

NQN=nqn.2026-11.io.purlin.test:fuzz
FUZZ_FIXED=${FUZZ_FIXED:-1234567}
FUZZ_SEED=${FUZZ_SEED:-20261201}
FUZZ_COUNT=${FUZZ_COUNT:-15000}
FUZZ_TIME=${FUZZ_TIME:-0}
# Open target bugs (Documentation/testing.md, "Known findings"): none.
FUZZ_KNOWN=${FUZZ_KNOWN-}

brd_create 64
nb=$(nullblk_create fuzz0 64)
purlin_subsys $NQN
purlin_ns $NQN 1 "$nb"
purlin_ns $NQN 2 /dev/ram0
purlin_port 1
purlin_link 1 $NQN
AUTHN=nqn.2026-12.io.purlin.test:fuzz-auth
AHOST=nqn.2026-12.io.purlin.test:fuzz-auth-host
mkdir "$PURLIN_CFS/subsystems/$AUTHN" "$PURLIN_CFS/hosts/$AHOST"
nvme gen-dhchap-key --nqn "$AHOST" --hmac=1 --key-length=32 > "$PURLIN_CFS/hosts/$AHOST/dhchap_key"
ln -s "$PURLIN_CFS/hosts/$AHOST" "$PURLIN_CFS/subsystems/$AUTHN/allowed_hosts/$AHOST"
purlin_link 1 $AUTHN
live0=$(purlin_live)
log "live before: $live0"

# fuzz SEED [OUT] [ARGS...]: one run; its summary, reproducer and
# findings are reported (trace lines only go to OUT).
rc=0
fuzz() {
	local seed=$1 out=${2:-fuzz-$1.out}
	shift 2 2>/dev/null || shift $#
	log "nvmf-wire fuzz --seed $seed --count $FUZZ_COUNT --time $FUZZ_TIME $*"
	{ nvmf-wire -a $TRADDR -s 4420 -n $NQN fuzz --seed "$seed" \
		--count "$FUZZ_COUNT" --time "$FUZZ_TIME" \
		--auth-subnqn $AUTHN --auth-hostnqn $AHOST \
		${FUZZ_KNOWN:+--known "$FUZZ_KNOWN"} ${FUZZ_ARGS:-} "$@" 2>&1 &&
		echo "nvmf-wire exit 0" || echo "nvmf-wire exit $?"; } |
		tee "$out" | grep -v '^trace: '
	grep -E '^(fuzz: |finding:|known:|PASS fuzz|FAIL fuzz)' "$out" |
		head -n 40 | while read -r line; do report "$line"; done
	grep -q '^nvmf-wire exit 0' "$out" || rc=1
	# The authentication arm ran, and got as far as challenges.
	grep -q '^fuzz: auth: [1-9][0-9]* sessions, [0-9]* messages, [1-9][0-9]* challenges' "$out" ||
		{ rc=1; log "seed $seed: no authentication session reached a challenge"; }
	# The target is idle again once the client is gone.
	purlin_assert_idle "$live0" "after seed $seed"
}

if [ "${FUZZ_REPEAT:-0}" = 1 ] && [ "$FUZZ_FIXED" != none ]; then
	# The seed alone decides what is generated: two runs, the same
	# capsules (what the oracle expects of each aside: that follows
	# the state the answers left).
	fuzz "$FUZZ_FIXED" rep1.out --trace
	fuzz "$FUZZ_FIXED" rep2.out --trace
	for f in rep1 rep2; do
		sed -n 's/^trace: \([0-9]*: .*\)$/\1/p' $f.out |
			sed 's/ \[must fail: .*\]$//' > $f.seq
	done
	report "fuzz: seed $FUZZ_FIXED sent $(wc -l < rep1.seq) and $(wc -l < rep2.seq) capsules in two runs"
	if ! cmp -s rep1.seq rep2.seq; then
		diff rep1.seq rep2.seq | head -n 10
		fail "seed $FUZZ_FIXED sent different capsules in two runs"
	fi
elif [ "$FUZZ_FIXED" != none ]; then
	fuzz "$FUZZ_FIXED"
fi
[ "$FUZZ_SEED" = "$FUZZ_FIXED" ] || fuzz "$FUZZ_SEED"
log "live after fuzzing: $(purlin_live)"

log "stock host still works"
dev=$(nvme_connect $NQN 4420)
fio_verify "$dev" 4k 16 8M
dev2=$(nvme_dev_for $NQN 2)
fio_verify "$dev2" 64k 4 8M
nvme_disconnect $NQN
purlin_assert_idle "$live0" "after nvme disconnect"
log "live at the end: $(purlin_live)"
purlin_clear
nullblk_destroy fuzz0
[ "$rc" = 0 ] || fail "nvmf-wire fuzz found something: $(grep -h -m1 '^FAIL fuzz' fuzz-*.out | cut -c1-300)"
