# SPDX-License-Identifier: GPL-2.0
# What configfs sets is what the host sees: serial, model, firmware,
# version, OUI, vendor IDs, size, uuid and nguid in nvme list, id-ctrl,
# id-ns and ns-descs.
# timeout: 180

NQN=nqn.2026-11.io.purlin.test:identify
S=$PURLIN_CFS/subsystems/$NQN
UUID=0f3e2a6c-1b5d-4e8f-9a7b-2c4d6e8f0a1b
NGUID=11223344-5566-7788-99aa-bbccddeeff00
brd_create 32

purlin_subsys $NQN
echo PRL-SERIAL-0042 > $S/attr_serial
echo "Purlin Test Model" > $S/attr_model
echo 9.8.7 > $S/attr_firmware
echo 0x1a2b3c > $S/attr_ieee_oui
echo 0x1af4 > $S/attr_vendor_id
echo 4660 > $S/attr_subsys_vendor_id
mkdir $S/namespaces/7
echo /dev/ram0 > $S/namespaces/7/device_path
echo $UUID > $S/namespaces/7/device_uuid
echo $NGUID > $S/namespaces/7/device_nguid
echo 1 > $S/namespaces/7/enable
purlin_port 1
purlin_link 1 $NQN

[ "$(cat $S/attr_serial)" = PRL-SERIAL-0042 ] || fail "serial readback"
[ "$(cat $S/namespaces/7/device_uuid)" = $UUID ] || fail "uuid readback"
[ "$(cat $S/namespaces/7/device_nguid)" = $NGUID ] || fail "nguid readback"
[ "$(cat $S/attr_ieee_oui)" = 0x1a2b3c ] || fail "oui readback"
[ "$(cat $S/attr_subsys_vendor_id)" = 0x1234 ] || fail "ssvid readback: $(cat $S/attr_subsys_vendor_id)"

dev=$(nvme_connect $NQN)
ctrl=$(ctrl_of "$dev")
nvme list > list.txt
cat list.txt
grep -q "PRL-SERIAL-0042 *Purlin Test Model *7 " list.txt ||
	fail "nvme list does not show serial/model/nsid"

nvme id-ctrl "$ctrl" > idctrl.txt
[ "$(idfield sn < idctrl.txt)" = PRL-SERIAL-0042 ] || fail "id-ctrl sn"
[ "$(idfield mn < idctrl.txt)" = "Purlin Test Model" ] || fail "id-ctrl mn"
[ "$(idfield fr < idctrl.txt)" = 9.8.7 ] || fail "id-ctrl fr"
[ "$(idfield subnqn < idctrl.txt)" = $NQN ] || fail "id-ctrl subnqn"
[ "$(idfield ieee < idctrl.txt)" = 1a2b3c ] || fail "id-ctrl ieee: $(idfield ieee < idctrl.txt)"
[ "$(idfield vid < idctrl.txt)" = 0x1af4 ] || fail "id-ctrl vid: $(idfield vid < idctrl.txt)"
[ "$(idfield ssvid < idctrl.txt)" = 0x1234 ] || fail "id-ctrl ssvid: $(idfield ssvid < idctrl.txt)"
[ "$(idfield icdoff < idctrl.txt)" = 0 ] || fail "id-ctrl icdoff"
[ "$(idfield mdts < idctrl.txt)" = 8 ] || fail "id-ctrl mdts"
[ "$(idfield ver < idctrl.txt)" = 0x10300 ] || fail "id-ctrl ver"

nvme id-ns "$dev" > idns.txt
# 32 MiB of 512-byte blocks
[ "$(idfield nsze < idns.txt)" = 0x10000 ] || fail "id-ns nsze: $(idfield nsze < idns.txt)"
[ "$(idfield nguid < idns.txt)" = 112233445566778899aabbccddeeff00 ] ||
	fail "id-ns nguid: $(idfield nguid < idns.txt)"

nvme ns-descs "$dev" > descs.txt
cat descs.txt
grep -q "uuid *: *$UUID" descs.txt || fail "ns-descs uuid"
grep -q "nguid *: *112233445566778899aabbccddeeff00" descs.txt || fail "ns-descs nguid"

[ "$(cat /sys/block/$(basename $dev)/size)" = 65536 ] || fail "host capacity"
nvme_disconnect $NQN
purlin_clear
