# SPDX-License-Identifier: GPL-2.0
# Two subsystems on two ports, two namespaces each, all used at once.
# timeout: 300

A=nqn.2026-11.io.purlin.test:multi-a
B=nqn.2026-11.io.purlin.test:multi-b
brd_create 16 4
purlin_subsys $A
purlin_ns $A 1 /dev/ram0
purlin_ns $A 2 /dev/ram1
purlin_subsys $B
purlin_ns $B 1 /dev/ram2
purlin_ns $B 2 /dev/ram3
purlin_port 1 4420
purlin_port 2 4421
purlin_link 1 $A
purlin_link 2 $B

nvme_connect $A 4420 > /dev/null
nvme_connect $B 4421 > /dev/null
wait_for "nvme_dev_for $A 2 && nvme_dev_for $B 2"
devs="$(nvme_dev_for $A 1) $(nvme_dev_for $A 2) $(nvme_dev_for $B 1) $(nvme_dev_for $B 2)"
log "namespaces: $devs"
[ "$(echo $devs | wc -w)" = 4 ] || fail "expected 4 namespaces"
pids=""
for d in $devs; do
	fio_verify "$d" 4k 16 8M &
	pids="$pids $!"
done
for p in $pids; do
	wait $p || fail "fio on one of the namespaces failed"
done
nvme_disconnect $A
nvme_disconnect $B
purlin_clear
