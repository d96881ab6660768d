#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# purlinctl stats -o prometheus, checked by Prometheus's own linter
# (promtool check metrics, from Debian's prometheus package, unpacked under
# build/ and not installed). TAP on stdout.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=$top/tools/purlinctl/purlinctl
cache=$top/build/tools/prometheus
promtool=$cache/usr/bin/promtool
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "1..4"
if [ ! -x "$promtool" ]; then
	rm -rf "$cache" && mkdir -p "$cache" &&
		(cd "$work" && apt-get download -q prometheus > /dev/null 2>&1) &&
		dpkg -x "$work"/prometheus_*.deb "$cache"
fi
if [ -x "$promtool" ]; then
	echo "ok 1 - promtool from Debian's prometheus package"
else
	echo "not ok 1 - promtool from Debian's prometheus package (apt-get download prometheus failed)"
fi
if [ ! -x "$promtool" ] || printf 'bad{ 1\n' | "$promtool" check metrics > /dev/null 2>&1; then
	echo "not ok 2 - promtool refuses a broken exposition"
else
	echo "ok 2 - promtool refuses a broken exposition"
fi

# A target tree with one namespace that saw I/O (the files as Purlin has them)
r=$work/root
ns=$r/subsystems/nqn.2026-12.io.purlin.test:prom/namespaces/1
mkdir -p "$r/hosts" "$r/ports" "$ns" "$r/subsystems/nqn.2026-12.io.purlin.test:prom/allowed_hosts"
echo nqn.2014-08.org.nvmexpress.discovery > "$r/discovery_nqn"
echo "read_cmds=5 read_bytes=20480 write_cmds=2 write_bytes=8192 errors=1 other_cmds=1 inflight=0 throttled=4" > "$ns/stats"
z=0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0
{
	echo "bucket_le_us=1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536,131072,262144,524288,1048576,2097152,4194304,inf"
	echo "read_total count=5 sum_us=50 buckets=0,0,0,4,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
	echo "write_total count=2 sum_us=90 buckets=0,0,0,0,0,0,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
	echo "other_total count=1 sum_us=3 buckets=0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
	echo "read_device count=5 sum_us=5 buckets=0,5,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
	echo "write_device count=2 sum_us=9 buckets=0,0,0,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
	echo "other_device count=0 sum_us=0 buckets=$z"
} > "$ns/latency"
# ... and one controller, as the kernel makes its directory.
c=$r/controllers/nqn.2026-12.io.purlin.test:prom:7
mkdir -p "$c"
echo 7 > "$c/cntlid"
echo nqn.2026-12.io.purlin.test:prom > "$c/subsysnqn"
echo 'nqn.2026-12.io.purlin.test:host"1' > "$c/hostnqn"
echo 1 > "$c/port"
echo "read_cmds=5 read_bytes=20480 write_cmds=2 write_bytes=8192 errors=1 other_cmds=1 inflight=0 flush_cmds=1" > "$c/stats"
cp "$ns/latency" "$c/latency"
if "$tool" --root "$r" stats -o prometheus > "$work/prom.txt" 2> "$work/err.txt" &&
	"$promtool" check metrics < "$work/prom.txt" > "$work/lint.txt" 2>&1; then
	echo "ok 3 - purlinctl stats -o prometheus passes promtool check metrics"
else
	echo "not ok 3 - purlinctl stats -o prometheus passes promtool check metrics"
	sed 's/^/# /' "$work/err.txt" "$work/lint.txt"
fi
if grep -q '^purlin_namespace_latency_seconds_bucket{subsystem="nqn.2026-12.io.purlin.test:prom",nsid="1",op="read",stage="total",le="+Inf"} 5$' "$work/prom.txt" &&
	grep -q '^purlin_namespace_errors_total{subsystem="nqn.2026-12.io.purlin.test:prom",nsid="1"} 1$' "$work/prom.txt" &&
	grep -q '^purlin_namespace_throttled_commands_total{subsystem="nqn.2026-12.io.purlin.test:prom",nsid="1"} 4$' "$work/prom.txt" &&
	grep -q '^purlin_controller_flush_commands_total{subsystem="nqn.2026-12.io.purlin.test:prom",cntlid="7",host="nqn.2026-12.io.purlin.test:host\\"1"} 1$' "$work/prom.txt" &&
	grep -q '^purlin_controller_latency_seconds_bucket{subsystem="nqn.2026-12.io.purlin.test:prom",cntlid="7",host="nqn.2026-12.io.purlin.test:host\\"1",op="read",stage="total",le="+Inf"} 5$' "$work/prom.txt"; then
	echo "ok 4 - the histogram and counters are in it, the controller's too"
else
	echo "not ok 4 - the histogram and counters are in it, the controller's too"
	sed 's/^/# /' "$work/prom.txt" | head -n 20
fi
