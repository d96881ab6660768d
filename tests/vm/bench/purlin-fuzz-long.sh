# SPDX-License-Identifier: GPL-2.0
# The long randomized wire fuzzing run (`make fuzz`): tests/purlin-fuzz.sh
# with one seed (FUZZ_SEED, default today's date) for FUZZ_COUNT iterations
# (default 100000), no time limit, then the same leak and stock-host
# checks.  Not part of `make check` (it lives with the bench scripts so the
# suite does not pick it up).  Results: Documentation/testing.md.
# timeout: 14400

FUZZ_FIXED=${FUZZ_FIXED:-none}
FUZZ_SEED=${FUZZ_SEED:-$(date +%Y%m%d)}
FUZZ_COUNT=${FUZZ_COUNT:-100000}
FUZZ_TIME=${FUZZ_TIME:-0}
. /tests/purlin-fuzz.sh
