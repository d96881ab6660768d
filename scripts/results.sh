# SPDX-License-Identifier: GPL-2.0
#
# Result counting shared by scripts/check.sh and scripts/check-debug.sh
# (sourced; bash).  Lines are "PASS name", "FAIL name: why", "SKIP name:
# why"; finish prints "N passed, N failed, N skipped" and exits non-zero
# when anything failed.

pass=0 fail=0 skip=0

result() {	# result PASS|FAIL|SKIP name [detail]
	case "$1" in
	PASS) pass=$((pass + 1)) ;;
	FAIL) fail=$((fail + 1)) ;;
	SKIP) skip=$((skip + 1)) ;;
	esac
	echo "$1 $2${3:+: $3}"
}

# count_lines FILE: add a log's PASS/FAIL/SKIP lines to the totals.
count_lines() {
	local p f s
	p=$(grep -c '^PASS ' "$1")
	f=$(grep -c '^FAIL ' "$1")
	s=$(grep -c '^SKIP ' "$1")
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
}

finish() {
	if [ -n "${VM_DIGEST:-}" ] && [ -s "$VM_DIGEST" ]; then
		echo "== the failures again, with their guests' last words (full output above)"
		head -n 80 "$VM_DIGEST"
	fi
	[ -z "${t0:-}" ] || echo "== [$(( ($(date +%s) - t0) / 60 )) min] done"
	echo "$pass passed, $fail failed, $skip skipped"
	[ "$fail" -eq 0 ]
	exit
}
