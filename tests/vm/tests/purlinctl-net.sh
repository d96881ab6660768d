# SPDX-License-Identifier: GPL-2.0
# purlinctl net on the guest's virtio_net eth0, a device without DCB: show
# says so plainly; MTU, rings and coalescing go through rtnetlink and
# ethtool netlink and are read back by ip and ethtool (independent
# clients); check fails with the DCB items; tune prints its plan, changes
# what the device has (MTU, the RDMA CM ToS of rxe0) and undo restores it.
# DCB success paths need a DCB device and are covered by the unit tests.
# timeout: 180

export PURLIN_STATE_DIR=/tmp/t/state
TOS=/sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos

# ethtool_val NAME: the value of "NAME: value" in the ethtool output on stdin.
ethtool_val() {
	sed -n "s/^$1:[[:space:]]*//p" | head -n1
}

# show_word NAME: the word after NAME on the coalesce/ring lines of net show.
show_word() {
	tr ' ' '\n' < show.txt | sed -n "/^$1\$/{n;p;q}"
}

# Put eth0 back as init left it: up, with its IPv6 address, rxe0 active.
restore_link() {
	ip link set eth0 up
	ip -6 addr add fd99::1/64 dev eth0 2>/dev/null || true
	wait_for "rdma link show rxe0/1 | grep -q 'state ACTIVE'" 300
}

mtu0=$(cat /sys/class/net/eth0/mtu)
[ "$mtu0" = 1500 ] || fail "eth0 starts with mtu $mtu0"

log "show: no DCB, said plainly, exit 0"
purlinctl net show eth0 > show.txt
cat show.txt
grep -q "^  dcb  *not supported by eth0 (driver virtio_net)$" show.txt || fail "no plain DCB line"
# adaptive coalescing depends on the kernel's virtio_net (6.12 has it):
# expect what ethtool, an independent reader, says.
ethtool -c eth0 > c0.txt
want="dcb"
grep -q "^Adaptive RX: n/a" c0.txt && want="$want, adaptive-rx"
grep -q "^Adaptive RX: .*TX: n/a" c0.txt && want="$want, adaptive-tx"
want="$want, pause, ecn, cnp"
grep -q "^  unsupported  $want\$" show.txt ||
	fail "unsupported list: want '$want', got '$(grep unsupported show.txt)'"
grep -q "^  rdma  *rxe0 port 1 ACTIVE" show.txt || fail "rxe0 not shown on eth0"
purlinctl net show eth0 -j > show.json
grep -q '"supported": false' show.json || fail "JSON lacks supported false"
grep -q '"ibdev": "rxe0"' show.json || fail "JSON lacks rxe0"

log "coalescing and rings as ethtool reads them"
ethtool -c eth0 > c.txt
ethtool -g eth0 > g.txt
for k in rx-usecs rx-frames tx-usecs tx-frames; do
	[ "$(show_word $k)" = "$(ethtool_val $k < c.txt)" ] ||
		fail "$k: purlinctl $(show_word $k), ethtool $(ethtool_val $k < c.txt)"
done
for k in rx tx; do
	[ "$(show_word $k)" = "$(sed -n '/^Current/,$p' g.txt | ethtool_val "$(echo $k | tr a-z A-Z)")" ] ||
		fail "ring $k differs from ethtool -g"
done

log "MTU through rtnetlink, read back by ip"
purlinctl net set eth0 mtu 4200
ip link show eth0 | grep -q " mtu 4200 " || fail "ip does not see mtu 4200"
purlinctl net show eth0 | grep -q "^  mtu  *4200 .*RoCE path MTU 4096" || fail "show: mtu 4200"
expect_err 1 "mtu: 65536 is outside what eth0 (driver virtio_net) allows (68-65535)" purlinctl net set eth0 mtu 65536
expect_err 2 "must be 68-65536" purlinctl net set eth0 mtu 67
purlinctl net set eth0 mtu 1500
ip link show eth0 | grep -q " mtu 1500 " || fail "mtu not back to 1500"

log "rings through ethtool netlink, read back by ethtool -g"
purlinctl net set eth0 ring rx 128
ethtool -g eth0 | sed -n '/^Current/,$p' | grep -q "^RX:[[:space:]]*128$" || fail "ring rx 128"
expect_err 1 "ring: rx 512: eth0 (driver virtio_net) allows at most 256" \
	purlinctl net set eth0 ring rx 512
purlinctl net set eth0 ring rx 256
ethtool -g eth0 | sed -n '/^Current/,$p' | grep -q "^RX:[[:space:]]*256$" || fail "ring rx 256"

log "coalescing: what virtio_net refuses is reported, nothing changes"
if grep -q "^Adaptive RX: n/a" c0.txt; then
	# the driver does not list adaptive RX: refused before anything is sent
	expect_err 1 "net eth0: coalesce: adaptive-rx not supported by eth0 (driver virtio_net)" \
		purlinctl net set eth0 coalesce adaptive-rx on
else
	# listed (6.12), but QEMU's device cannot do it: caught on read-back
	expect_err 1 "did not apply 'coalesce adaptive-rx on'" \
		purlinctl net set eth0 coalesce adaptive-rx on
fi
# Without VIRTIO_NET_F_NOTF_COAL (QEMU 7.2) the driver refuses usecs.
expect_err 1 "net eth0: coalesce rx-usecs 8: Operation not supported" \
	purlinctl net set eth0 coalesce rx-usecs 8
# tx-frames switches TX NAPI, which virtio_net allows only while the link is down.
expect_err 1 "net eth0: coalesce tx-frames 0: Device or resource busy" \
	purlinctl net set eth0 coalesce tx-frames 0
[ "$(ethtool -c eth0 | ethtool_val tx-frames)" = 1 ] || fail "tx-frames changed"

log "coalescing: tx-frames with the link down, read back by ethtool -c"
ip link set eth0 down
purlinctl net set eth0 coalesce tx-frames 0 || { restore_link; fail "tx-frames 0 refused"; }
v=$(ethtool -c eth0 | ethtool_val tx-frames)
purlinctl net set eth0 coalesce tx-frames 1 || { restore_link; fail "tx-frames 1 refused"; }
restore_link
[ "$v" = 0 ] || fail "ethtool -c says tx-frames $v after setting 0"
[ "$(ethtool -c eth0 | ethtool_val tx-frames)" = 1 ] || fail "tx-frames not back"

log "set refuses DCB knobs before sending anything"
expect_err 1 "net eth0: pfc: not supported by eth0 (driver virtio_net)" \
	purlinctl net set eth0 mtu 4200 pfc prio-pfc 3:on
ip link show eth0 | grep -q " mtu 1500 " || fail "mtu changed by a refused command"
expect_err 1 "ecn: not supported by eth0 (driver virtio_net)" purlinctl net set eth0 ecn prio 3 on

log "check fails with the DCB items"
expect_err 7 "" purlinctl net check eth0
cat out.txt
for item in dcb trust app-dscp pfc ets mtu; do
	grep -q "^FAIL  $item " out.txt || fail "check: $item does not fail"
done
grep -q "^                fix: purlinctl net set eth0 mtu 4200$" out.txt || fail "no mtu fix"
grep -q "^PASS  rdma " out.txt || fail "rdma item"
set +e
purlinctl net check eth0 -j > check.json
set -e
grep -q '"fail": 6' check.json || fail "JSON summary"

log "tune --dry-run prints the plan and changes nothing"
purlinctl net tune eth0 --profile roce-lossless --dry-run > plan.txt
cat plan.txt
grep -q "^  mtu        1500 -> 4200$" plan.txt || fail "plan: mtu"
grep -q "^  roce-tos   0 -> 104$" plan.txt || fail "plan: roce-tos"
grep -q "^  skipped    pfc: needs DCB, which eth0 (driver virtio_net) lacks$" plan.txt ||
	fail "plan: pfc not skipped plainly"
ip link show eth0 | grep -q " mtu 1500 " || fail "dry run changed the mtu"
[ ! -e $PURLIN_STATE_DIR/net-eth0.json ] || fail "dry run wrote the undo file"

log "tune changes MTU and the RDMA CM ToS; undo restores them"
purlinctl net tune eth0 --profile roce-lossless
ip link show eth0 | grep -q " mtu 4200 " || fail "tune: mtu"
[ "$(cat $TOS)" = 104 ] || fail "tune: default_roce_tos $(cat $TOS)"
cat $PURLIN_STATE_DIR/net-eth0.json
expect_err 7 "" purlinctl net check eth0
grep -q "^PASS  mtu       4200: RoCE path MTU 4096$" out.txt || fail "check after tune: mtu"
grep -q "^PASS  roce-tos  RDMA CM default ToS 104 (DSCP 26)$" out.txt || fail "check: roce-tos"
purlinctl net tune eth0 --undo
ip link show eth0 | grep -q " mtu 1500 " || fail "undo: mtu"
[ "$(cat $TOS)" = 0 ] || fail "undo: default_roce_tos $(cat $TOS)"
[ ! -e $PURLIN_STATE_DIR/net-eth0.json ] || fail "undo left the file"
expect_err 1 "nothing to undo" purlinctl net tune eth0 --undo
rmdir /sys/kernel/config/rdma_cm/rxe0

report "virtio_net: DCB unsupported (plain), MTU/rings/coalescing set and read back, tune/undo ok"
