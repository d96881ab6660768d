# SPDX-License-Identifier: GPL-2.0
#
# Where the samples of a perf profile went (make bench BENCH_PERF=1), from
# `perf script -F comm,period,ip,sym` of a `perf record -a -g`.
#
# usage: awk -f perf-classify.awk MODULES -   (MODULES: /proc/modules)
# prints: samples=N pct_idle=P pct_target=P ... (percent of the sampled
# time: samples weighted by their period)
#
# Each sample is charged to the first module met walking its kernel call
# chain from the leaf outwards, so kernel code a module called (the block
# layer under the target, the IP stack under soft-RoCE) counts for that
# module: target (purlin, nvmet, nvmet_rdma), host (nvme_rdma, nvme_fabrics,
# nvme_core), rxe (soft-RoCE, the NIC's work), rdma (ib_core and the CMs when
# no other module called them: the completion dispatch loop; rdma_rw under
# the target is the target's), backend (null_blk, brd), net (virtio), user
# (the sample was in userspace: fio), idle, and kernel (no module on the
# chain: scheduler, workqueues, syscalls, interrupts).  perf cannot name
# module code in the guest (no module files), so addresses are looked up in
# MODULES.  Runs under busybox awk.
function hex(s,   i, n) {
	n = 0
	for (i = 1; i <= length(s); i++)
		n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return n
}
function cat_of(m) {
	if (m ~ /^(purlin|nvmet|nvmet_rdma)$/) return "target"
	if (m ~ /^(nvme_rdma|nvme_fabrics|nvme_core)$/) return "host"
	if (m == "rdma_rxe") return "rxe"
	if (m ~ /^(ib_core|rdma_cm|ib_cm|iw_cm)$/) return "rdma"
	if (m ~ /^(null_blk|brd)$/) return "backend"
	if (m ~ /^virtio/) return "net"
	return ""
}
# category of the kernel address a (16 hex digits): modules sit above
# 0xffffffffc0000000, so the low 32 bits are enough to compare
function cat_at(a,   lo, i) {
	if (a in memo) return memo[a]
	lo = hex(substr(a, 9))
	memo[a] = ""
	if (substr(a, 1, 8) == "ffffffff" && lo >= 3221225472)
		for (i = 1; i <= nmod; i++)
			if (lo >= mstart[i] && lo < mstart[i] + msize[i]) {
				memo[a] = cat_of(mname[i])
				break
			}
	return memo[a]
}
function flush() {
	if (!n) return
	if (c == "") c = fallback
	if (c == "" && user) c = "user"
	if (c == "" && leaf ~ /safe_halt|_idle$|mwait|cpuidle/) c = "idle"
	if (c == "") c = "kernel"
	# weighted by the sample's period (ns of CPU clock): a sample taken
	# late, after a long stretch with interrupts held off (device
	# emulation under TCG), stands for all of that time
	cnt[c] += w; total += w; nsamples++
	n = 0
}
FNR == NR {	# /proc/modules: name size refs deps state address
	a = $6; sub(/^0x/, "", a)
	if (length(a) == 16) {
		nmod++; mname[nmod] = $1; msize[nmod] = $2
		mstart[nmod] = hex(substr(a, 9))
	}
	next
}
/^[^ \t]/ {	# header: comm [period]
	flush(); c = ""; fallback = ""; user = 0; done = 0
	w = $NF ~ /^[0-9]+$/ && NF > 1 ? $NF + 0 : 1
	next
}
/^[ \t]+[0-9a-f]+ / {
	kern = length($1) == 16 && $1 ~ /^ffff/
	if (++n == 1) { leaf = $2; user = !kern }
	if (done || c != "") next
	if (!kern) { done = 1; next }	# past the kernel part
	c = cat_at($1)
	# the RDMA core is charged only when nothing called it: its
	# rdma_rw and completion dispatch run for the target or host
	if (c == "rdma") { fallback = c; c = "" }
	next
}
END {
	flush()
	printf "samples=%d", nsamples
	split("idle target host rxe rdma backend net user kernel", k, " ")
	for (i = 1; i <= 9; i++)
		printf " pct_%s=%.1f", k[i], total ? 100 * cnt[k[i]] / total : 0
	printf "\n"
}
