# SPDX-License-Identifier: GPL-2.0
# A host keeping a persistent discovery controller hears about discovery
# log changes (Discovery Log Change events reach it as NVME_AEN uevents),
# and nvme ns-rescan on an I/O controller finds a namespace added while it
# is connected (with the right size).
# timeout: 180

A=nqn.2026-11.io.purlin.test:dlc-a
B=nqn.2026-11.io.purlin.test:dlc-b
brd_create 16 3
purlin_export $A /dev/ram0 1
purlin_subsys $B
purlin_ns $B 1 /dev/ram1

# Record the NVMe AEN uevents the host's nvme driver emits.
cat > /tmp/uevent.sh <<'EOS'
#!/bin/sh
[ -n "$NVME_AEN" ] && echo "$NVME_AEN" >> /tmp/aen.log
exit 0
EOS
chmod +x /tmp/uevent.sh
: > /tmp/aen.log
# busybox uevent runs the script for every kernel uevent (netlink)
uevent /tmp/uevent.sh &
uevpid=$!

nvme discover -t rdma -a $TRADDR -s 4420 --persistent > /dev/null
wait_for "ls /sys/class/nvme/ | grep -q nvme"
log "persistent discovery controller up; linking $B"
purlin_link 1 $B
# NVME_AEN = type | info << 8 | log << 16: notice 2, 0xf0, log 0x70
wait_for "grep -q 0x70f002 /tmp/aen.log" 150
log "host got the Discovery Log Change event: $(cat /tmp/aen.log)"
nvme discover -t rdma -a $TRADDR -s 4420 | grep -q "subnqn: *$B" ||
	fail "new subsystem not in the discovery log"
kill $uevpid

log "ns-rescan finds a namespace added while connected"
dev=$(nvme_connect $A)
# The I/O controller of A (the persistent discovery controller is another);
# namespace devices are named after the subsystem: nvmeSn1 -> nvmeSn2.
ctrl=""
for c in /sys/class/nvme/nvme*; do
	if [ "$(cat $c/subsysnqn)" = $A ]; then
		ctrl=/dev/$(basename $c)
	fi
done
[ -n "$ctrl" ] || fail "no controller of $A"
dev2=${dev%n1}n2
[ ! -e $dev2 ] || fail "namespace 2 exists before it was added"
purlin_ns $A 2 /dev/ram2
nvme ns-rescan "$ctrl" || fail "nvme ns-rescan failed"
wait_for "[ -b $dev2 ]" 100
[ "$(cat /sys/block/$(basename $dev2)/size)" = "$(cat /sys/block/ram2/size)" ] ||
	fail "namespace 2 has the wrong size"
nvme_disconnect $A
nvme disconnect-all
purlin_clear
