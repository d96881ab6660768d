# SPDX-License-Identifier: GPL-2.0
# Per-namespace statistics and latency histograms against what the stock
# host did: once the host's own reads after the connect (its partition
# scan) are over, 512 direct 4 KiB random reads (fio, queue depth 4) and
# 256 writes count as 512 and 256 in stats and in the read and write
# histograms (total and device), a Flush as one other command;
# every histogram's buckets add up to its count; nothing is in flight
# once fio is done; the target's mean time per read is above 0 and below
# the mean latency fio measured for it (the host's includes the network),
# and the buckets of its p50 and p99 start at or below fio's p50 and p99;
# purlinctl stats shows the same figures as a table and for Prometheus.
# timeout: 200

NQN=nqn.2026-12.io.purlin.test:stats
brd_create 16
purlin_export $NQN /dev/ram0 1
S=$PURLIN_CFS/subsystems/$NQN/namespaces/1
ndev=$(nvme_connect $NQN)

st() { tr ' ' '\n' < $S/stats | sed -n "s/^$1=//p"; }
# lat LINE KEY: a value of a latency line (read_total, write_device, ...)
lat() { sed -n "s/^$1 .*$2=\([^ ]*\).*/\1/p" $S/latency; }

log "the histograms' layout"
cat $S/latency
[ "$(sed -n 1p $S/latency)" = "bucket_le_us=1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536,131072,262144,524288,1048576,2097152,4194304,inf" ] ||
	fail "bucket bounds: $(sed -n 1p $S/latency)"
for k in read write other; do
	for p in total device; do
		grep -q "^${k}_$p count=[0-9]* sum_us=[0-9]* buckets=\([0-9]*,\)\{23\}[0-9]*$" $S/latency ||
			fail "no well-formed ${k}_$p line"
	done
done

# The host's own reads after the connect (a partition scan) first end.
n=0
until [ "$(st read_cmds)" = "$(sleep 1; st read_cmds)" ]; do
	n=$((n + 1))
	[ $n -lt 10 ] || fail "the host's reads never settle"
done
r0=$(st read_cmds); w0=$(st write_cmds); o0=$(st other_cmds)
rc0=$(lat read_total count); rd0=$(lat read_device count); rs0=$(lat read_total sum_us)
rb0=$(lat read_total buckets)
wc0=$(lat write_total count); wd0=$(lat write_device count)
oc0=$(lat other_total count)

log "512 reads, 256 writes, a flush"
fio --name=r --filename="$ndev" --rw=randread --bs=4k --iodepth=4 --direct=1 \
	--ioengine=libaio --size=8M --io_size=2M --randrepeat=0 \
	--output-format=terse --terse-version=3 > fio-r.txt || fail "fio read"
fio --name=w --filename="$ndev" --rw=randwrite --bs=4k --iodepth=4 --direct=1 \
	--ioengine=libaio --size=8M --io_size=1M --randrepeat=0 \
	--output-format=terse --terse-version=3 > /dev/null || fail "fio write"
nvme flush "$ndev" -n 1 > /dev/null || fail "nvme flush"
cat $S/stats

hr=512; hw=256
[ $(($(st read_cmds) - r0)) = "$hr" ] || fail "read_cmds grew by $(($(st read_cmds) - r0)), not $hr"
[ $(($(lat read_total count) - rc0)) = "$hr" ] || fail "read_total count grew by $(($(lat read_total count) - rc0)), not $hr"
[ $(($(lat read_device count) - rd0)) = "$hr" ] || fail "read_device count grew by $(($(lat read_device count) - rd0)), not $hr"
[ $(($(st write_cmds) - w0)) = "$hw" ] || fail "write_cmds grew by $(($(st write_cmds) - w0)), not $hw"
[ $(($(lat write_total count) - wc0)) = "$hw" ] || fail "write_total count grew by $(($(lat write_total count) - wc0)), not $hw"
[ $(($(lat write_device count) - wd0)) = "$hw" ] || fail "write_device count grew by $(($(lat write_device count) - wd0)), not $hw"
[ $(($(st other_cmds) - o0)) -ge 1 ] || fail "the flush is not among other_cmds"
[ $(($(lat other_total count) - oc0)) -ge 1 ] || fail "the flush is not in other_total"
[ "$(st inflight)" = 0 ] || fail "inflight $(st inflight) with nothing running"
sed -n 's/^\([a-z_]*\) count=\([0-9]*\) .*buckets=\(.*\)$/\1 \2 \3/p' $S/latency > hist.txt
[ "$(wc -l < hist.txt)" = 6 ] || fail "not six histograms"
while read -r name count buckets; do
	sum=$(echo "$buckets" | tr ',' '\n' | awk '{ s += $1 } END { print s + 0 }')
	[ "$sum" = "$count" ] || fail "$name: buckets add up to $sum, count $count"
done < hist.txt

mean=$(( ($(lat read_total sum_us) - rs0) / hr ))
fio_mean=$(awk -F';' '{ printf "%d", $40 }' fio-r.txt)
log "reads: $mean us in the target on average, $fio_mean us seen by fio"
[ "$fio_mean" -gt 0 ] || fail "no mean latency from fio: $(cat fio-r.txt)"
[ "$mean" -gt 0 ] || fail "the target's mean read is 0 us"
[ "$mean" -le "$fio_mean" ] || fail "the target's mean read ($mean us) is above fio's ($fio_mean us)"
report "purlin-stats: mean read $mean us in the target, $fio_mean us at the host"

# Percentiles, within the histogram's resolution: every read's time in the
# target is part of its time at the host, so the target's p50 and p99 are
# at most fio's; the bucket holding the target's percentile (bucket b holds
# [2^(b-1), 2^b) us, bucket 0 under 1 us) must start at or below fio's.
# lowq Q: the lower bound in us of the bucket holding the reads' quantile Q
# (percent), from the histogram's growth over the fio run.
lowq() {
	echo "$rb0 $(lat read_total buckets)" | tr ' ' '\n' | tr ',' ' ' | awk -v q=$1 -v n=$hr '
		NR == 1 { for (i = 1; i <= NF; i++) b0[i] = $i; next }
		{ need = int((q * n + 99) / 100); c = 0
		  for (i = 1; i <= NF; i++) {
			c += $i - b0[i]
			if (c >= need) {
				# 2^(i-2) without ^ (busybox awk has no math)
				l = i == 1 ? 0 : 1
				for (k = 2; k < i; k++) l *= 2
				print l; exit
			}
		  } }'
}
# fioq Q: fio's completion-latency percentile Q of the reads, in us (terse
# version 3: fields 18 to 37 are "Q%=us").
fioq() { tr ';' '\n' < fio-r.txt | sed -n "18,37s/^$1\.000000%=//p"; }
for q in 50 99; do
	t=$(lowq $q); f=$(fioq $q)
	log "p$q: the target's bucket starts at $t us, fio's p$q is $f us"
	[ -n "$t" ] && [ -n "$f" ] || fail "no p$q (target '$t', fio '$f')"
	[ "$t" -le "$f" ] || fail "the target's p$q bucket starts at $t us, above fio's p$q ($f us)"
done

log "purlinctl stats: the same figures, as a table and for Prometheus"
row="^$NQN  *1  *$(st read_cmds)  *$(st write_cmds)  *$(st other_cmds)  *$(st errors)  *0  *$(( $(lat read_total sum_us) / $(lat read_total count) )) "
purlinctl stats | tee pstats.txt
grep -q "$row" pstats.txt ||
	fail "purlinctl stats does not show the namespace's counters and mean"
purlinctl stats -o prometheus > prom.txt
grep -q "^purlin_namespace_read_commands_total{subsystem=\"$NQN\",nsid=\"1\"} $(st read_cmds)\$" prom.txt ||
	fail "no read counter in the Prometheus output"
grep -q "^purlin_namespace_latency_seconds_count{subsystem=\"$NQN\",nsid=\"1\",op=\"write\",stage=\"device\"} $(lat write_device count)\$" prom.txt ||
	fail "no write device-time histogram in the Prometheus output"

nvme_disconnect $NQN
purlin_clear
