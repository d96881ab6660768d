# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test), two guests: what connected queues cost the
# target.  For each configuration (Purlin with each queue's own receive
# buffers, Purlin with a shared receive queue, Linux's nvmet-rdma with
# use_srq off and on) the host connects CTRLS controllers of QUEUES I/O
# queues of depth DEPTH to one subsystem (one host NQN each), and the
# target guest reports the memory they took (MemAvailable after dropping
# caches, before and after) and the host how long the connects took.
#   tests/vm/run --pair bench-mem   [VM_APPEND="bench_ctrls=N ..."]
# Lines "SAY mem CONFIG KIB QUEUES" (target) and "SAY connect CONFIG MS"
# (host); Documentation/performance.md has the figures.
# timeout: 3000

NQN=nqn.2026-12.io.purlin.bench:mem
CTRLS=$(sed -n 's/.*bench_ctrls=\([0-9]*\).*/\1/p' /proc/cmdline)
CTRLS=${CTRLS:-64}
QUEUES=4
DEPTH=128
SRQ=1024	# nvmet-rdma's default srq_size
CONFIGS="purlin purlin-srq nvmet nvmet-srq"

# avail_kib: MemAvailable with clean caches, kB
avail_kib() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	sleep 1
	sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo
}

case "$ROLE" in
target)
	brd_create 64
	for c in $CONFIGS; do
		case $c in
		purlin)
			purlin_export $NQN /dev/ram0 1 4420 max_queue_size=$DEPTH ;;
		purlin-srq)
			purlin_export $NQN /dev/ram0 1 4420 max_queue_size=$DEPTH,srq_size=$SRQ ;;
		nvmet)
			modprobe nvmet-rdma use_srq=0
			nvmet_export $NQN /dev/ram0 1 ;;
		nvmet-srq)
			modprobe nvmet-rdma use_srq=1 srq_size=$SRQ
			nvmet_export $NQN /dev/ram0 1 ;;
		esac
		m0=$(avail_kib)
		pair_mark $c-ready
		pair_wait $c-connected 1800
		m1=$(avail_kib)
		q=$(rdma res show qp 2> /dev/null | grep -c 'state RTS')
		report "mem $c $((m0 - m1)) $q"
		log "$c: $((m0 - m1)) KiB for $q connected QPs"
		pair_mark $c-measured
		pair_wait $c-gone 1800
		case $c in
		purlin*)
			purlin_clear ;;
		nvmet*)
			nvmet_unexport $NQN 1
			rmmod nvmet-rdma nvmet ;;
		esac
	done
	;;
host)
	for c in $CONFIGS; do
		pair_wait $c-ready 1800
		s0=$(uptime_s)
		i=0
		while [ $i -lt $CTRLS ]; do
			id=$(printf '7b0e4a52-1c3d-4e5f-8a9b-0c1d2e3f%04d' $i)
			# straight to the kernel: nvme-cli 2.4 takes a second
			# host NQN to the same subsystem for a duplicate
			echo "transport=rdma,traddr=$TRADDR,trsvcid=4420,nqn=$NQN,hostnqn=nqn.2014-08.org.nvmexpress:uuid:$id,hostid=$id,nr_io_queues=$QUEUES,queue_size=$DEPTH" \
				> /dev/nvme-fabrics 2> out ||
				{ cat out; dmesg | tail -5; fail "$c: connect $((i + 1)) failed"; }
			i=$((i + 1))
		done
		s1=$(uptime_s)
		n=$(ls -d /sys/class/nvme/nvme* | wc -l)
		[ "$n" = $CTRLS ] || fail "$c: $n controllers, want $CTRLS"
		report "connect $c $(((s1 - s0) * 1000))"
		log "$c: $CTRLS controllers connected in $((s1 - s0)) s"
		pair_mark $c-connected
		pair_wait $c-measured 600
		nvme disconnect-all > /dev/null
		wait_for "! ls /sys/class/nvme/nvme* > /dev/null 2>&1" 3000
		pair_mark $c-gone
	done
	;;
esac
