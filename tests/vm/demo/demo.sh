# SPDX-License-Identifier: GPL-2.0
# make demo: provision a RAM-backed namespace on Purlin with purlinctl,
# connect the stock Linux host over soft-RoCE with nvme-cli, run a short
# fio and summarise.
# timeout: 240

NQN=nqn.2026-11.io.purlin:demo
brd_create 256
purlinctl subsys add $NQN model "Purlin demo" allow-any-host on
purlinctl ns add $NQN 1 path /dev/ram0
purlinctl port add 1 traddr $TRADDR trsvcid 4420
purlinctl port link 1 $NQN
purlinctl subsys show $NQN

nvme discover -t rdma -a $TRADDR -s 4420 > disc.txt
nrec=$(sed -n 's/.*Number of Records \([0-9]*\).*/\1/p' disc.txt)
ndev=$(nvme_connect $NQN)
ctrl=$(basename "$(ctrl_of "$ndev")")
fio --name=demo --filename="$ndev" --ioengine=libaio --direct=1 \
	--rw=randread --bs=4k --iodepth=16 --runtime=5 --time_based \
	--output-format=terse --terse-version=3 > fio.out
# terse v3: field 8 = read IOPS, 40 = read completion latency mean (usec)
iops=$(cut -d';' -f8 fio.out)
lat=$(printf "%.0f" "$(cut -d";" -f40 fio.out)")
fio_verify "$ndev" 4k 16 16M
report "Purlin demo on $(uname -r) under QEMU software emulation (absolute numbers are slow; compare ratios)"
report "  target     : purlin.ko $(cat /sys/module/purlin/version), provisioned with purlinctl"
report "  transport  : RDMA (soft-RoCE rxe0 on eth0), $TRADDR:4420"
report "  discovery  : $nrec log entries (the discovery subsystem and $NQN)"
report "  subsystem  : $NQN"
report "  namespace  : 1 -> /dev/ram0 (brd RAM disk, 256 MiB)"
report "  host       : nvme-rdma controller $ctrl -> $ndev, model '$(cat /sys/class/nvme/$ctrl/model | sed 's/ *$//')'"
report "  fio        : 4k random read, iodepth 16, 5 s: $iops IOPS, mean completion latency $lat us"
report "  verify     : 16 MiB 4k random write + crc32c read-back: OK"
nvme_disconnect $NQN
purlinctl clear
rmmod purlin
