# SPDX-License-Identifier: GPL-2.0
# Discovery referrals listed (and withdrawn) on a port; a namespace resized
# under a connected host (revalidate_size) is seen at its new size without
# a reconnect.
# timeout: 180

A=nqn.2026-11.io.purlin.test:ref-a
B=nqn.2026-11.io.purlin.test:ref-b
R=$PURLIN_CFS/ports/1/referrals/peer
brd_create 16
purlin_subsys $A
purlin_ns $A 1 /dev/ram0
purlin_subsys $B
purlin_port 1 4420
purlin_port 2 4421
purlin_link 1 $A

log "a referral to the discovery service on port 2"
mkdir $R
echo ipv4 > $R/addr_adrfam
echo $TRADDR > $R/addr_traddr
echo 4421 > $R/addr_trsvcid
echo 2 > $R/addr_portid
nvme discover -t rdma -a $TRADDR -s 4420 > d0.txt
grep -q "trsvcid: *4421" d0.txt && fail "disabled referral listed"
echo 1 > $R/enable
expect_fail sh -c "echo 4422 > $R/addr_trsvcid"	# frozen while enabled
nvme discover -t rdma -a $TRADDR -s 4420 > d1.txt
cat d1.txt
grep -q "trsvcid: *4421" d1.txt || fail "referral not listed"
grep -q "portid: *2" d1.txt || fail "referral portid"
echo 0 > $R/enable
nvme discover -t rdma -a $TRADDR -s 4420 | grep -q "trsvcid: *4421" &&
	fail "withdrawn referral still listed"
rmdir $R

log "resize a file-backed namespace under a connected host"
mkdir -p /mnt/tmp
mount -t tmpfs -o size=64m tmpfs /mnt/tmp
truncate -s 8M /mnt/tmp/grow.img
S=$PURLIN_CFS/subsystems/$B
mkdir $S/namespaces/1
echo /mnt/tmp/grow.img > $S/namespaces/1/device_path
echo 1 > $S/namespaces/1/buffered_io
echo 1 > $S/namespaces/1/enable
purlin_link 2 $B
dev=$(nvme_connect $B 4421)
blk=$(basename $dev)
[ "$(cat /sys/block/$blk/size)" = 16384 ] || fail "initial size $(cat /sys/block/$blk/size)"
truncate -s 16M /mnt/tmp/grow.img
echo 1 > $S/namespaces/1/revalidate_size
wait_for "[ \$(cat /sys/block/$blk/size) = 32768 ]" 150
log "host sees $(cat /sys/block/$blk/size) sectors"
fio_verify "$dev" 4k 8 16M
nvme_disconnect $B
purlin_clear
umount /mnt/tmp
