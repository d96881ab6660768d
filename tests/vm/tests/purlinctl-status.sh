# SPDX-License-Identifier: GPL-2.0
# purlinctl status against the real kernel with the stock host connected:
# the namespace's device and size, the port listening, the controller with
# the host's NQN and address, port, queue count and keep-alive timeout, in text and in
# JSON; after the disconnect no controller is left.
# timeout: 120

NQN=nqn.2026-11.io.purlin.test:status
brd_create 16
purlin_export $NQN /dev/ram0 1

dev=$(nvme_connect $NQN 4420 --nr-io-queues=2 --keep-alive-tmo=7)
ctrl=$(basename "$(ctrl_of "$dev")")
hostnqn=$(cat /sys/class/nvme/$ctrl/hostnqn)
bytes=$(blockdev --getsize64 /dev/ram0)

purlinctl status > st.txt
cat st.txt
grep -q "^subsystems (1)$" st.txt || fail "no subsystem count"
grep -q "^  $NQN  model Purlin" st.txt || fail "subsystem line"
grep -q "^    hosts    any host$" st.txt || fail "allow-any-host not shown"
grep -q "^    ns 1     /dev/ram0  16 MiB  enabled$" st.txt || fail "namespace line"
grep -q "^  1     rdma ipv4 $TRADDR:4420  listening$" st.txt || fail "port line"
line=$(grep "^      cntlid " st.txt) || fail "no controller"
echo "$line" | grep -q "  host $hostnqn  from $TRADDR  port 1  queues 3  kato 7000 ms$" ||
	fail "controller line: $line (want host $hostnqn from $TRADDR, port 1, 3 queues, kato 7000 ms)"

purlinctl -j status > st.json
tr -d ' \n' < st.json > flat.json
grep -q "\"host\":\"$hostnqn\"" flat.json || fail "JSON: no controller host"
grep -q '"kato_ms":7000' flat.json || fail "JSON: kato_ms"
grep -q '"queues":3' flat.json || fail "JSON: queues"
grep -q "\"addr\":\"$TRADDR\"" flat.json || fail "JSON: addr"
grep -q "\"size\":$bytes" flat.json || fail "JSON: size is not $bytes"
grep -q '"state":"listening"' flat.json || fail "JSON: port state"

nvme_disconnect $NQN
wait_for "! purlinctl status | grep -q '^      cntlid '"
purlin_clear
