# SPDX-License-Identifier: GPL-2.0
# fio random write + read back with crc32c at 512 B .. 1 MiB, iodepth 1 and
# 64, on a memory-backed null_blk and on brd.  16 KiB is above the 4 KiB
# in-capsule size, so writes take both the in-capsule and RDMA READ paths.
# timeout: 900

NQN1=nqn.2026-11.io.purlin.test:nullblk
NQN2=nqn.2026-11.io.purlin.test:brd
nb=$(nullblk_create fionb 64)
brd_create 64
purlin_subsys $NQN1
purlin_ns $NQN1 1 "$nb"
purlin_subsys $NQN2
purlin_ns $NQN2 1 /dev/ram0
purlin_port 1
purlin_link 1 $NQN1
purlin_link 1 $NQN2

for nqn in $NQN1 $NQN2; do
	dev=$(nvme_connect $nqn)
	for bs in 512 4k 16k 128k 1m; do
		for qd in 1 64; do
			size=4M
			[ $bs = 1m ] && size=16M
			[ $bs = 512 ] && [ $qd = 1 ] && size=1M
			log "$nqn bs=$bs qd=$qd"
			fio_verify "$dev" $bs $qd $size
		done
	done
	nvme_disconnect $nqn
done
purlin_clear
nullblk_destroy fionb
