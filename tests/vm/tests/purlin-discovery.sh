# SPDX-License-Identifier: GPL-2.0
# The discovery log of each port lists exactly the subsystems linked to it,
# with the port's trtype, adrfam, traddr and trsvcid; IPv6 ports work;
# unlinking updates the log and bumps the generation counter.
# timeout: 180

A=nqn.2026-11.io.purlin.test:disc-a
B=nqn.2026-11.io.purlin.test:disc-b
C=nqn.2026-11.io.purlin.test:disc-c
brd_create 16
for n in $A $B $C; do purlin_subsys $n; done
purlin_ns $A 1 /dev/ram0
purlin_port 1 4420
purlin_port 2 4421
purlin_port 6 4422 $TRADDR6 ipv6
purlin_link 1 $A
purlin_link 1 $B
purlin_link 2 $C
purlin_link 6 $A

# disc_entries PORT TRADDR: "subnqn trtype adrfam traddr trsvcid" per entry
disc_entries() {
	nvme discover -t rdma -a "$2" -s "$1" -o json > d.json
	tr -d ' \n' < d.json | sed 's/},{/}\n{/g' |
		sed -n 's/.*"trtype":"\([^"]*\)".*"adrfam":"\([^"]*\)".*"trsvcid":"\([^"]*\)".*"subnqn":"\([^"]*\)".*"traddr":"\([^"]*\)".*/\4 \1 \2 \5 \3/p' |
		grep -v discovery | sort
}

disc_entries 4420 $TRADDR > got1
printf '%s\n' "$A rdma ipv4 $TRADDR 4420" "$B rdma ipv4 $TRADDR 4420" | sort > want1
diff want1 got1 || fail "port 1 discovery log"

disc_entries 4421 $TRADDR > got2
echo "$C rdma ipv4 $TRADDR 4421" > want2
diff want2 got2 || fail "port 2 discovery log"

disc_entries 4422 $TRADDR6 > got6
echo "$A rdma ipv6 $TRADDR6 4422" > want6
diff want6 got6 || fail "IPv6 port discovery log"

log "connect over IPv6"
nvme connect -t rdma -a $TRADDR6 -s 4422 -n $A > /dev/null
wait_for "nvme_dev_for $A"
fio_verify "$(nvme_dev_for $A)" 4k 4 2M
nvme_disconnect $A

log "unlink B: gone from the log, generation counter moves"
g1=$(nvme discover -t rdma -a $TRADDR -s 4420 | sed -n 's/.*Generation counter \([0-9]*\).*/\1/p')
rm $PURLIN_CFS/ports/1/subsystems/$B
disc_entries 4420 $TRADDR > got1
echo "$A rdma ipv4 $TRADDR 4420" > want1
diff want1 got1 || fail "port 1 log after unlink"
g2=$(nvme discover -t rdma -a $TRADDR -s 4420 | sed -n 's/.*Generation counter \([0-9]*\).*/\1/p')
[ "$g2" -gt "$g1" ] || fail "generation counter did not move ($g1 -> $g2)"
purlin_clear
