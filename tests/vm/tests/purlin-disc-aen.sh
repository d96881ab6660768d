# SPDX-License-Identifier: GPL-2.0
# A host keeping a persistent discovery controller hears about discovery
# log changes (Discovery Log Change events reach it as NVME_AEN uevents),
# and nvme ns-rescan on an I/O controller finds what was added.
# timeout: 180

A=nqn.2026-11.io.purlin.test:dlc-a
B=nqn.2026-11.io.purlin.test:dlc-b
brd_create 16 2
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

log "ns-rescan"
dev=$(nvme_connect $A)
nvme ns-rescan "$(ctrl_of $dev)"
nvme_disconnect $A
nvme disconnect-all
purlin_clear
