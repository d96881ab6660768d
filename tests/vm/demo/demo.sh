# SPDX-License-Identifier: GPL-2.0
# make demo: export a RAM-backed namespace over soft-RoCE, connect the stock
# host with nvme-cli, run a short fio and summarise.
# timeout: 240

NQN=nqn.2026-11.io.purlin:demo
dev=$(nullblk_create demonb 512)
nvmet_export $NQN "$dev" 1
target="Linux nvmet-rdma (reference path: the Purlin target is not built yet)"

nvme connect -t rdma -a $TRADDR -s 4420 -n $NQN > /dev/null
wait_for "nvme_dev_for $NQN"
ndev=$(nvme_dev_for $NQN)
ctrl=$(basename "$ndev" | sed 's/n[0-9]*$//')
fio --name=demo --filename="$ndev" --ioengine=libaio --direct=1 \
	--rw=randread --bs=4k --iodepth=16 --runtime=5 --time_based \
	--output-format=terse --terse-version=3 > fio.out
# terse v3: field 8 = read IOPS, 40 = read clat mean (usec)
iops=$(cut -d';' -f8 fio.out)
lat=$(cut -d';' -f40 fio.out)
report "Purlin demo ($(uname -r), QEMU software emulation: absolute numbers are slow)"
report "  target     : $target"
report "  transport  : rdma (soft-RoCE rxe0 on eth0), $TRADDR:4420"
report "  subsystem  : $NQN"
report "  backing    : $dev (null_blk, memory-backed, 512 MiB)"
report "  host       : $ctrl -> $ndev, $(cat /sys/class/nvme/$ctrl/model | tr -s ' ') via nvme-rdma"
report "  fio        : 4k random read, iodepth 16, 5 s"
report "  IOPS       : $iops"
report "  mean clat  : ${lat} us"
nvme disconnect -n $NQN > /dev/null
nvmet_unexport $NQN 1
nullblk_destroy demonb
