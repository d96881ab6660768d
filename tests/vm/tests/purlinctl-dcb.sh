# SPDX-License-Identifier: GPL-2.0
# purlinctl net on dcbsim0 of tests/vm/kmod/purlin_dcbsim.ko, a simulated
# Ethernet device with the IEEE DCB ops (ETS, PFC, APP, APP trust on 6.2+
# kernels, DCBX) and ethtool coalescing, rings and pause. What purlinctl
# sets is read back by iproute2's dcb, ethtool and ip (independent
# clients), and what they set is read back by purlinctl; check fails on a
# fresh device and passes after tune; undo restores the device exactly. The
# simulator's parameters make a setter fail inside the DCB reply
# (fail_setpfc), leave setters out (no_setpfc, no_setets, no_setapptrust,
# no_apptrust), keep one priority per DSCP as mlx5 does (dscp_exclusive) or
# give fewer traffic classes (num_tc).
# Debian 12's iproute2 has no 'dcb apptrust': APP trust is read back by
# purlinctl only.
# timeout: 240

export PURLIN_STATE_DIR=/tmp/t/state
DEV=dcbsim0
UNDO=$PURLIN_STATE_DIR/net-$DEV.json
RXE_TOS=/sys/kernel/config/rdma_cm/rxe1

cleanup() {
	[ ! -d $RXE_TOS ] || rmdir $RXE_TOS
	rdma link delete rxe1 2>/dev/null || true
	[ ! -d /sys/module/purlin_dcbsim ] || rmmod purlin_dcbsim
}
trap cleanup EXIT

# dcb ARGS...: iproute2's dcb, once more when it fails with "Protocol error".
# That is libmnl's EPROTO for a reply whose sequence number is not the
# request's; dcb numbers its requests with time(NULL), so a message left on
# its socket by the request before is taken for a stranger only when a
# second boundary falls between the two (seen once in make check; the
# same test passed before and after). A second failure fails the test.
dcb() {
	local rc=0
	command dcb "$@" 2> dcb.err || rc=$?
	if [ $rc -ne 0 ] && grep -q "Protocol error" dcb.err; then
		echo "dcb $*: $(cat dcb.err); once more" >&2
		rc=0
		command dcb "$@" 2> dcb.err || rc=$?
	fi
	cat dcb.err >&2
	return $rc
}

# sim PARAM=V...: a fresh dcbsim0 (the module reloaded with these parameters).
sim() {
	cleanup
	modprobe purlin_dcbsim "$@"
	wait_for "[ -e /sys/class/net/$DEV ]"
	rm -f $UNDO
}

# has FILE LINE...: FILE has each LINE, whole.
has() {
	local f=$1
	shift
	for l in "$@"; do
		grep -qxF -- "$l" "$f" || { cat "$f"; fail "$f lacks '$l'"; }
	done
}

# check_sim WHAT ARGS...: net check of the simulator, whose only failing item
# may be rdma (it has no RDMA device: exit 7); output in out.txt.
check_sim() {
	local what=$1 rc
	shift
	set +e
	purlinctl net check "$@" > out.txt
	rc=$?
	set -e
	[ $rc -eq 0 ] || { [ $rc -eq 7 ] && [ "$(grep '^FAIL' out.txt | cut -c7-15)" = "rdma     " ]; } ||
		{ cat out.txt; fail "$what (exit $rc)"; }
}

# JSON of net show on one line without blanks, and a fragment of it.
jshow() { purlinctl net show $DEV -j | tr -d ' \n'; }
jhas() {
	local j
	j=$(jshow)
	for f in "$@"; do
		case "$j" in *"$f"*) ;; *) echo "$j"; fail "net show -j lacks $f" ;; esac
	done
}

# Readers of "KEY value" text: stdin holds the text.
pl_line() { sed -n "s/^  $1  *//p" | head -n1; }	# a line of net show
word() { tr ' ' '\n' | sed -n "/^$1\$/{n;p;q}"; }	# the word after KEY
# "KEY N:V N:V ...": purlinctl and dcb print priority and class maps alike.
pairs() {
	tr ' ' '\n' | awk -v k="$1" '
		$0 == k { on = 1; out = k; next }
		on && /^[0-9]+:/ { out = out " " $0; next }
		on { exit }
		END { print out }'
}

same() {
	[ "$2" = "$3" ] || fail "$1: purlinctl says '$2', $4 says '$3'"
}

# The APP table as "SEL PROTO prio P" lines, sorted: from net show and from dcb.
pl_apps() {
	pl_line app | sed 's/^none$//; s/, /\n/g' | sed '/^$/d' | sort
}
dcb_apps() {
	dcb app show dev $DEV | awk '
		{ for (i = 2; i <= NF; i++) {
			if ($1 == "default-prio") { print "default prio " $i; continue }
			split($i, a, ":")
			if ($1 == "ethtype-prio") print "ethtype 0x" a[1] " prio " a[2]
			if ($1 == "dscp-prio") print "dscp " a[1] " prio " a[2]
			if ($1 == "stream-port-prio") print "tcp " a[1] " prio " a[2]
			if ($1 == "dgram-port-prio") print "udp " a[1] " prio " a[2]
			if ($1 == "port-prio") print "port " a[1] " prio " a[2]
		} }' | sort
}

# cross: every knob of net show against what dcb, ethtool and ip read.
cross() {
	local s=cross.txt k n
	purlinctl net show $DEV > $s
	dcb pfc show dev $DEV > pfc.txt
	dcb -s pfc show dev $DEV > pfcs.txt
	dcb ets show dev $DEV > ets.txt
	ethtool -c $DEV > c.txt
	ethtool -g $DEV | sed -n '/^Current/,$p' > g.txt
	ethtool -a $DEV > a.txt
	same prio-pfc "$(pairs prio-pfc < $s)" "$(pairs prio-pfc < pfc.txt)" dcb
	for k in requests indications; do
		same $k "$(pairs $k < $s)" "$(pairs $k < pfcs.txt)" dcb
	done
	for k in macsec-bypass delay; do
		same $k "$(pl_line pfc < $s | word $k)" "$(word $k < pfc.txt)" dcb
	done
	same pfc-cap "$(pl_line pfc < $s | sed 's/.*(cap \(.*\))$/\1/')" "$(word pfc-cap < pfc.txt)" dcb
	# net show lists the classes the device has (ets-cap), dcb all eight
	for k in tc-tsa tc-bw prio-tc; do
		n=$(pairs $k < $s | wc -w)
		same $k "$(pairs $k < $s)" "$(pairs $k < ets.txt | cut -d' ' -f1-$n)" dcb
	done
	same willing "$(pl_line ets < $s | word willing)" "$(word willing < ets.txt)" dcb
	same ets-cap "$(pl_line ets < $s | sed 's/.*(cap \([0-9]*\).*/\1/')" "$(word ets-cap < ets.txt)" dcb
	same dcbx "$(pl_line dcbx < $s)" "$(dcb dcbx show dev $DEV | sed 's/ *$//')" dcb
	same app "$(pl_apps < $s)" "$(dcb_apps)" dcb
	same adaptive-rx "$(pl_line coalesce < $s | word adaptive-rx)" \
		"$(sed -n 's/^Adaptive RX: \([a-z]*\).*/\1/p' c.txt)" ethtool
	same adaptive-tx "$(pl_line coalesce < $s | word adaptive-tx)" \
		"$(sed -n 's/^Adaptive RX: .*TX: \([a-z]*\).*/\1/p' c.txt)" ethtool
	for k in rx-usecs rx-frames tx-usecs tx-frames; do
		same $k "$(pl_line coalesce < $s | word $k)" "$(sed -n "s/^$k: *//p" c.txt)" ethtool
	done
	same ring-rx "$(pl_line ring < $s | word rx)" "$(sed -n 's/^RX:[[:space:]]*//p' g.txt)" ethtool
	same ring-tx "$(pl_line ring < $s | word tx)" "$(sed -n 's/^TX:[[:space:]]*//p' g.txt)" ethtool
	for k in rx tx; do
		same pause-$k "$(pl_line pause < $s | word $k)" \
			"$(sed -n "s/^$(echo $k | tr a-z A-Z):[[:space:]]*//p" a.txt)" ethtool
	done
	same autoneg "$(pl_line pause < $s | word autoneg)" \
		"$(sed -n 's/^Autonegotiate:[[:space:]]*//p' a.txt)" ethtool
	same mtu "$(pl_line mtu < $s | cut -d' ' -f1)" \
		"$(ip -o link show $DEV | sed 's/.* mtu \([0-9]*\) .*/\1/')" ip
}

sim
# APP trust came with 6.2: the simulator has the ops exactly where the kernel does.
apptrust=0
jshow | grep -qF '"apptrust":[' && apptrust=1
case $(uname -r) in
5.* | 6.[01].*) [ $apptrust = 0 ] || fail "apptrust on $(uname -r)" ;;
*) [ $apptrust = 1 ] || fail "no apptrust on $(uname -r)" ;;
esac
log "kernel $(uname -r), apptrust $apptrust"

log "a fresh device as purlinctl, dcb and ethtool read it"
purlinctl net show $DEV > show.txt
cat show.txt
has show.txt "dcbsim0: driver none, ifindex $(cat /sys/class/net/$DEV/ifindex)" \
	"  mtu          1500 (device range 68-9000), RoCE path MTU 1024" \
	"  rdma         none on dcbsim0" \
	"  dcbx         host ieee" \
	"  app          none" \
	"  coalesce     adaptive-rx off adaptive-tx off rx-usecs 8 rx-frames 128 tx-usecs 16 tx-frames 32" \
	"  ring         rx 1024 tx 1024 rx-max 8192 tx-max 8192" \
	"  pause        autoneg off rx on tx on"
if [ $apptrust = 1 ]; then
	has show.txt "  trust        pcp (apptrust)" "  unsupported  ecn, cnp, rdma"
else
	has show.txt "  trust        pcp (no DSCP APP entries; no apptrust)" \
		"  unsupported  apptrust, ecn, cnp, rdma"
fi
cross

log "check on the fresh device fails with the right items"
expect_err 7 "" purlinctl net check $DEV
# no RDMA device: the fatal finding for an RDMA target, so the first line
sed -n 2p out.txt | grep -qxF 'FAIL  rdma      no RDMA device on dcbsim0: an NVMe/RDMA target cannot serve through it' ||
	fail "the rdma item is not first"
if [ $apptrust = 1 ]; then
	has out.txt "FAIL  trust     apptrust order does not start with dscp" \
		"                fix: purlinctl net set dcbsim0 trust dscp"
else
	has out.txt "FAIL  trust     pcp: no DSCP APP entries, and no apptrust to select DSCP otherwise" \
		"                fix: purlinctl net set dcbsim0 app add dscp 26 prio 3"
fi
has out.txt "PASS  dcb       IEEE DCB, managed by the host" \
	"FAIL  app-dscp  DSCP 26 has no APP entry (profile: prio 3)" \
	"                fix: purlinctl net set dcbsim0 app add dscp 26 prio 3" \
	"FAIL  pfc       off on prio 3: RoCE traffic is dropped under congestion" \
	"                fix: purlinctl net set dcbsim0 pfc prio-pfc 3:on" \
	"WARN  ets       prio 0 shares TC 0 with the RoCE prio 3" \
	"                fix: purlinctl net set dcbsim0 ets tc-bw 0:8 1:7 2:7 3:50 4:7 5:7 6:7 7:7 prio-tc 1:1 2:2 3:3 4:4 5:5 6:6 7:7" \
	"FAIL  pause     link-level pause is on (rx on, tx on): it stops every priority, not just RoCE" \
	"                fix: purlinctl net set dcbsim0 pause rx off tx off" \
	"FAIL  mtu       1500: RoCE path MTU 1024 (4096 needs at least 4192)" \
	"                fix: purlinctl net set dcbsim0 mtu 4200" \
	"WARN  coalesce  adaptive rx off, tx off: fixed moderation trades CPU against latency by hand" \
	"                fix: purlinctl net set dcbsim0 coalesce adaptive-rx on adaptive-tx on" \
	"WARN  ecn       not supported by dcbsim0 (virtual device): no vendor ECN/DCQCN knob (sysfs, debugfs or configfs)" \
	"WARN  cnp       not supported by dcbsim0 (virtual device): no vendor ECN/DCQCN knob (sysfs, debugfs or configfs)" \
	"FAIL  rdma      no RDMA device on dcbsim0: an NVMe/RDMA target cannot serve through it" \
	"N/A   roce-tos  no RDMA device on dcbsim0 (see the rdma item)" \
	"check: 1 pass, 4 warn, 6 fail, 1 n/a"
set +e
purlinctl net check $DEV -j | tr -d ' \n' > check.json
set -e
grep -qF '"summary":{"pass":1,"warn":4,"fail":6,"n/a":1}' check.json || fail "check -j summary"

log "tune: the profile in one step; check passes but for what a simulator cannot have"
jshow > fresh.json
purlinctl net tune $DEV --profile roce-lossless > tune.txt
cat tune.txt
has tune.txt "  pause      rx on tx on -> rx off tx off" \
	"  pfc        prio-pfc 3:off -> prio-pfc 3:on" \
	"  app        add dscp 26 prio 3" \
	"  mtu        1500 -> 4200" \
	"  coalesce   adaptive-rx off adaptive-tx off -> adaptive-rx on adaptive-tx on" \
	"  skipped    rdma: no RDMA device on dcbsim0: an NVMe/RDMA target cannot serve through it" \
	"previous settings saved in $UNDO ('purlinctl net tune dcbsim0 --undo' restores them)"
[ $apptrust = 0 ] || has tune.txt "  trust      pcp -> dscp"
# No RDMA device on a simulated netdev (a FAIL nothing can fix), no vendor ECN knobs (WARN):
# every other item passes.
expect_err 7 "" purlinctl net check $DEV
[ "$(grep -c '^FAIL' out.txt)" = 1 ] || fail "check after tune fails more than the rdma item"
[ $apptrust = 1 ] && has out.txt "PASS  trust     dscp first (apptrust)" ||
	has out.txt "PASS  trust     dscp: with no apptrust (kernel before 6.2 or driver without it), DSCP trust follows the DSCP APP entries"
has out.txt "PASS  dcb       IEEE DCB, managed by the host" \
	"PASS  app-dscp  DSCP 26 -> prio 3" \
	"PASS  pfc       on prio 3 only" \
	"PASS  ets       prio 3 in TC 3, ETS 50 %" \
	"PASS  pause     link-level pause off" \
	"PASS  mtu       4200: RoCE path MTU 4096" \
	"PASS  coalesce  adaptive rx tx" \
	"WARN  ecn       not supported by dcbsim0 (virtual device): no vendor ECN/DCQCN knob (sysfs, debugfs or configfs)" \
	"WARN  cnp       not supported by dcbsim0 (virtual device): no vendor ECN/DCQCN knob (sysfs, debugfs or configfs)" \
	"FAIL  rdma      no RDMA device on dcbsim0: an NVMe/RDMA target cannot serve through it" \
	"N/A   roce-tos  no RDMA device on dcbsim0 (see the rdma item)" \
	"check: 8 pass, 2 warn, 1 fail, 1 n/a"
dcb pfc show dev $DEV > pfc.txt
has pfc.txt "prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off "
dcb ets show dev $DEV > ets.txt
has ets.txt "tc-bw 0:8 1:7 2:7 3:50 4:7 5:7 6:7 7:7 " "prio-tc 0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7 " \
	"tc-tsa 0:ets 1:ets 2:ets 3:ets 4:ets 5:ets 6:ets 7:ets "
[ "$(dcb_apps)" = "dscp 26 prio 3" ] || fail "dcb app: $(dcb_apps)"
ethtool -a $DEV | grep -q "^RX:[[:space:]]*off$" || fail "ethtool: pause rx"
ethtool -c $DEV | grep -q "^Adaptive RX: on  TX: on$" || fail "ethtool: adaptive"
cross
cp $UNDO undo.json
purlinctl net tune $DEV --profile roce-lossless > tune.txt
has tune.txt "  nothing to change"
cmp undo.json $UNDO || fail "a tune that changed nothing rewrote the undo file"

log "undo restores the fresh device exactly"
purlinctl net tune $DEV --undo
[ "$(jshow)" = "$(cat fresh.json)" ] || { jshow; cat fresh.json; fail "undo: not as before"; }
[ ! -e $UNDO ] || fail "undo left $UNDO"
cross

log "every knob set through purlinctl, read back by dcb, ethtool and ip"
purlinctl net set $DEV pfc prio-pfc 3:on 5:on macsec-bypass on delay 32
dcb pfc show dev $DEV > pfc.txt
has pfc.txt "pfc-cap 8 macsec-bypass on delay 32 " "prio-pfc 0:off 1:off 2:off 3:on 4:off 5:on 6:off 7:off "
purlinctl net set $DEV ets willing on tc-tsa 6:strict 7:strict tc-bw 0:10 1:10 2:10 3:50 4:10 5:10 \
	prio-tc 1:1 2:2 3:3 4:4 5:5 6:6 7:7
dcb ets show dev $DEV > ets.txt
has ets.txt "willing on ets-cap 8 cbs off " \
	"tc-tsa 0:ets 1:ets 2:ets 3:ets 4:ets 5:ets 6:strict 7:strict " \
	"tc-bw 0:10 1:10 2:10 3:50 4:10 5:10 6:0 7:0 " \
	"prio-tc 0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7 "
purlinctl net set $DEV app add dscp 26 prio 3 dscp 48 prio 6 udp 4791 prio 3 tcp 3260 prio 4 \
	port 4420 prio 5 ethtype 0x8906 prio 3
dcb app show dev $DEV > app.txt
has app.txt "ethtype-prio 8906:3 " "dscp-prio 26:3 48:6 " "stream-port-prio 3260:4 " \
	"dgram-port-prio 4791:3 " "port-prio 4420:5 "
purlinctl net set $DEV app del tcp 3260 prio 4 port 4420 prio 5 replace dscp 48 prio 7
dcb app show dev $DEV > app.txt
has app.txt "ethtype-prio 8906:3 " "dscp-prio 26:3 48:7 " "dgram-port-prio 4791:3 "
! grep -qE "^stream-port-prio|^port-prio" app.txt || fail "app del left entries"
if [ $apptrust = 1 ]; then
	purlinctl net set $DEV trust dscp pcp
	purlinctl net show $DEV | grep -qx "  trust        dscp pcp (apptrust)" || fail "trust dscp pcp"
	purlinctl net set $DEV trust none
	purlinctl net show $DEV | grep -qx "  trust        none (apptrust)" || fail "trust none"
	expect_err 1 "net dcbsim0: trust udp: Operation not supported (reported in the DCB reply)" \
		purlinctl net set $DEV trust udp
	purlinctl net set $DEV trust dscp
else
	# Without apptrust, DSCP trust is the DSCP APP entries.
	expect_err 0 "purlinctl: net dcbsim0: nothing to change" purlinctl -v net set $DEV trust dscp
	expect_err 1 "trust: dcbsim0 (virtual device) has no apptrust: PCP trust needs the DSCP APP entries deleted" \
		purlinctl net set $DEV trust pcp
fi
purlinctl net set $DEV dcbx host ieee static
[ "$(dcb dcbx show dev $DEV)" = "host ieee static " ] || fail "dcb dcbx: $(dcb dcbx show dev $DEV)"
purlinctl net set $DEV mtu 9000
ip link show $DEV | grep -q " mtu 9000 " || fail "ip: mtu 9000"
purlinctl net set $DEV coalesce adaptive-rx on adaptive-tx on rx-usecs 24 rx-frames 64 \
	tx-usecs 48 tx-frames 16 ring rx 4096 tx 2048 pause rx off tx off
ethtool -c $DEV > c.txt
has c.txt "Adaptive RX: on  TX: on" "rx-usecs: 24" "rx-frames: 64" "tx-usecs: 48" "tx-frames: 16"
ethtool -g $DEV | sed -n '/^Current/,$p' > g.txt
grep -q "^RX:[[:space:]]*4096$" g.txt && grep -q "^TX:[[:space:]]*2048$" g.txt || fail "ethtool -g"
ethtool -a $DEV > a.txt
grep -q "^RX:[[:space:]]*off$" a.txt && grep -q "^TX:[[:space:]]*off$" a.txt || fail "ethtool -a"
cross

log "what dcb, ethtool and ip set, purlinctl reads (net show -j)"
dcb ets set dev $DEV willing off tc-tsa all:ets tc-bw 0:40 1:20 2:20 3:20 4:0 5:0 6:0 7:0 \
	prio-tc 0:0 1:0 2:0 3:3 4:0 5:0 6:0 7:0
dcb pfc set dev $DEV prio-pfc all:off 4:on delay 7 macsec-bypass off
dcb app flush dev $DEV
dcb app add dev $DEV dscp-prio 34:4 26:5 dgram-port-prio 4791:4 default-prio 1
dcb dcbx set dev $DEV host ieee
ethtool -C $DEV adaptive-rx off adaptive-tx on rx-usecs 4 rx-frames 8 tx-usecs 12 tx-frames 24
ethtool -G $DEV rx 512 tx 256
ethtool -A $DEV rx on tx off
ip link set $DEV mtu 4200
jhas '"mtu":4200,' '"dcbx":["host","ieee"]' \
	'"app":[{"selector":"ethtype","protocol":0,"prio":1},{"selector":"udp","protocol":4791,"prio":4},{"selector":"dscp","protocol":26,"prio":5},{"selector":"dscp","protocol":34,"prio":4}]' \
	'"pfc":{"prio_pfc":[0,0,0,0,1,0,0,0],"cap":8,"macsec_bypass":false,"delay":7,"requests":[1000,1001,1002,1003,1004,1005,1006,1007],"indications":[2000,2001,2002,2003,2004,2005,2006,2007]}' \
	'"ets":{"willing":false,"cap":8,"cbs":false,"tc_tsa":["ets","ets","ets","ets","ets","ets","ets","ets"],"tc_bw":[40,20,20,20,0,0,0,0],"prio_tc":[0,0,0,3,0,0,0,0]}' \
	'"coalesce":{"supported":true,"adaptive_rx":false,"adaptive_tx":true,"rx_usecs":4,"rx_frames":8,"tx_usecs":12,"tx_frames":24}' \
	'"ring":{"supported":true,"rx":512,"tx":256,"rx_max":8192,"tx_max":8192}' \
	'"pause":{"supported":true,"autoneg":false,"rx":true,"tx":false}'
[ $apptrust = 0 ] || jhas '"apptrust":["dscp"]'
purlinctl net show $DEV | grep -qx "  app          default prio 1, udp 4791 prio 4, dscp 26 prio 5, dscp 34 prio 4" ||
	fail "net show: app line"
cross

log "tune and undo on a configured device (jumbo; DSCP 26 moves from prio 5 to 3 and back)"
jshow > before.json
purlinctl net tune $DEV --profile roce-lossless --jumbo > tune.txt
cat tune.txt
has tune.txt "  app        add dscp 26 prio 3 del dscp 26 prio 5" "  mtu        4200 -> 9000"
check_sim "check --jumbo after tune" $DEV --jumbo
has out.txt "PASS  mtu       9000: RoCE path MTU 4096" "check: 8 pass, 2 warn, 1 fail, 1 n/a"
cross
purlinctl net tune $DEV --undo
[ "$(jshow)" = "$(cat before.json)" ] || { jshow; cat before.json; fail "undo: not as before"; }
cross

log "refused settings: by purlinctl before sending, by the device in its reply"
expect_err 1 "net dcbsim0: ets: the bandwidths of the ETS traffic classes add up to 60 %, not 100" \
	purlinctl net set $DEV ets tc-bw 0:0
expect_err 1 "net dcbsim0: mtu: 9001 is outside what dcbsim0 (virtual device) allows (68-9000)" \
	purlinctl net set $DEV mtu 9001
expect_err 1 "net dcbsim0: ring: rx 9000: dcbsim0 (virtual device) allows at most 8192" \
	purlinctl net set $DEV ring rx 9000
expect_err 1 "net dcbsim0: coalesce: rx-usecs-irq not supported by dcbsim0 (virtual device)" \
	purlinctl net set $DEV coalesce rx-usecs-irq 5
expect_err 1 "net dcbsim0: ring rx 0: Invalid argument (purlin_dcbsim: a ring needs at least one entry)" \
	purlinctl net set $DEV ring rx 0
expect_err 1 "net dcbsim0: coalesce rx-usecs 5000: Numerical result out of range (purlin_dcbsim: usecs above 4095)" \
	purlinctl net set $DEV coalesce rx-usecs 5000
expect_err 1 "net dcbsim0: ets tc-tsa 7:cbs: Operation not supported (reported in the DCB reply)" \
	purlinctl net set $DEV ets tc-tsa 7:cbs
expect_err 1 "net dcbsim0: dcbx host cee: Invalid argument (reported in the DCB reply)" \
	purlinctl net set $DEV dcbx host cee
expect_err 1 "net dcbsim0: pause autoneg on: Invalid argument" \
	purlinctl net set $DEV pause autoneg on
[ "$(jshow)" = "$(cat before.json)" ] || fail "a refused setting changed the device"

log "DCBX managed by an LLDP agent: check warns, the device refuses sets"
purlinctl net set $DEV dcbx lld-managed ieee
[ "$(dcb dcbx show dev $DEV)" = "lld-managed ieee " ] || fail "dcb dcbx: lld-managed"
expect_err 7 "" purlinctl net check $DEV
has out.txt "WARN  dcb       DCBX is managed by an LLDP agent (firmware or lldpad), which may overwrite what is set here" \
	"                fix: configure the agent with the same values, or take control: purlinctl net set dcbsim0 dcbx host ieee"
expect_err 1 "net dcbsim0: pfc prio-pfc 3:on: Device or resource busy (reported in the DCB reply)" \
	purlinctl net set $DEV pfc prio-pfc 3:on
purlinctl net set $DEV dcbx host ieee

log "in-reply error (fail_setpfc): named, and the knobs already changed are set back"
sim fail_setpfc=1
jshow > before.json
expect_err 1 "net dcbsim0: pfc prio-pfc 3:on: Input/output error (reported in the DCB reply)" \
	purlinctl net tune $DEV --profile roce-lossless
grep -qx "purlinctl: net dcbsim0: 2 changed knobs set back" err.txt || fail "pause and ets not set back"
[ "$(jshow)" = "$(cat before.json)" ] || { jshow; fail "fail_setpfc: device changed"; }
[ ! -e $UNDO ] || fail "a failed tune left $UNDO"
expect_err 1 "net dcbsim0: pfc prio-pfc 3:on: Input/output error (reported in the DCB reply)" \
	purlinctl net set $DEV pause rx off ets prio-tc 3:3 pfc prio-pfc 3:on
[ "$(jshow)" = "$(cat before.json)" ] || { jshow; fail "fail_setpfc: set changed the device"; }

log "setter left out (no_setpfc): the kernel skips PFC silently, purlinctl reads back and says so"
sim no_setpfc=1
jshow > before.json
expect_err 1 "net dcbsim0: pfc: dcbsim0 did not apply 'pfc prio-pfc 3:on' (reads back 'pfc prio-pfc 3:off'): the driver lacks it and the kernel skipped it" \
	purlinctl net set $DEV pause tx off pfc prio-pfc 3:on
grep -qx "purlinctl: net dcbsim0: 1 changed knob set back" err.txt || fail "pause not set back"
[ "$(jshow)" = "$(cat before.json)" ] || { jshow; fail "no_setpfc: device changed"; }

log "setter left out (no_setets): ETS is optional in the profile, tune goes on without it"
sim no_setets=1
jshow > before.json
expect_err 0 "net dcbsim0: ets is optional in the profile: tuning without it" \
	purlinctl net tune $DEV --profile roce-lossless
grep -qF "net dcbsim0: ets: dcbsim0 did not apply 'ets tc-bw 0:8 1:7 2:7 3:50 4:7 5:7 6:7 7:7 prio-tc 1:1 2:2 3:3 4:4 5:5 6:6 7:7'" err.txt ||
	fail "no_setets: not reported"
has out.txt "  skipped    ets: prio 0 shares TC 0 with the RoCE prio 3 (the device refused the fix)"
check_sim "check after tune without ETS" $DEV
has out.txt "WARN  ets       prio 0 shares TC 0 with the RoCE prio 3" "check: 7 pass, 3 warn, 1 fail, 1 n/a"
purlinctl net tune $DEV --undo
[ "$(jshow)" = "$(cat before.json)" ] || { jshow; fail "no_setets: undo"; }

log "APP trust setter left out (no_setapptrust)"
sim no_setapptrust=1
jshow > before.json
if [ $apptrust = 1 ]; then
	# The kernel does not skip a trust table it cannot set: it refuses it in the reply.
	expect_err 1 "net dcbsim0: trust dscp: Operation not supported (reported in the DCB reply)" \
		purlinctl net set $DEV trust dscp
	expect_err 1 "net dcbsim0: trust dscp: Operation not supported (reported in the DCB reply)" \
		purlinctl net tune $DEV --profile roce-lossless
	grep -qx "purlinctl: net dcbsim0: 4 changed knobs set back" err.txt || fail "tune not set back"
	[ "$(jshow)" = "$(cat before.json)" ] || { jshow; fail "no_setapptrust: device changed"; }
	sim no_apptrust=1
fi
# No APP trust ops: DSCP trust follows the DSCP APP entries, as on mlx5.
purlinctl net show $DEV | grep -qx "  trust        pcp (no DSCP APP entries; no apptrust)" || fail "trust without apptrust"
purlinctl net tune $DEV --profile roce-lossless
check_sim "check without apptrust" $DEV
has out.txt "PASS  trust     dscp: with no apptrust (kernel before 6.2 or driver without it), DSCP trust follows the DSCP APP entries"

log "one priority per DSCP, as mlx5 (dscp_exclusive): moving DSCP 26 to another priority"
sim dscp_exclusive=1
dcb app add dev $DEV dscp-prio 26:5 10:1
jshow > before.json
purlinctl net set $DEV app replace dscp 26 prio 3
[ "$(dcb_apps)" = "$(printf 'dscp 10 prio 1\ndscp 26 prio 3')" ] || fail "replace: $(dcb_apps)"
purlinctl net tune $DEV --profile roce-lossless --prio 4
[ "$(dcb_apps)" = "$(printf 'dscp 10 prio 1\ndscp 26 prio 4')" ] || fail "tune --prio 4: $(dcb_apps)"
check_sim "check --prio 4" $DEV --prio 4
purlinctl net tune $DEV --undo
purlinctl net set $DEV app replace dscp 26 prio 5
[ "$(jshow)" = "$(cat before.json)" ] || { jshow; fail "dscp_exclusive: not as before"; }

log "four traffic classes (num_tc=4)"
sim num_tc=4
expect_err 1 "net dcbsim0: ets: prio-tc 3:5: dcbsim0 (virtual device) has 4 traffic classes (0-3)" \
	purlinctl net set $DEV ets prio-tc 3:5
expect_err 1 "net dcbsim0: pfc: 8 priorities enabled; dcbsim0 (virtual device) allows 4" \
	purlinctl net set $DEV pfc prio-pfc all:on
purlinctl net tune $DEV --profile roce-lossless > tune.txt
has tune.txt "  ets        tc-bw 0:100 1:0 2:0 3:0 prio-tc 3:0 -> tc-bw 0:17 1:17 2:16 3:50 prio-tc 3:3"
check_sim "check with 4 TCs" $DEV
has out.txt "PASS  ets       prio 3 in TC 3, ETS 50 %"
cross

log "with soft-RoCE on top: rdma and roce-tos pass too"
sim
ip link set $DEV up
rdma link add rxe1 type rxe netdev $DEV
wait_for "rdma link show rxe1/1 | grep -q 'state ACTIVE'"
jshow > before.json
purlinctl net tune $DEV --profile roce-lossless > tune.txt
has tune.txt "  roce-tos   0 -> 104"
[ "$(cat $RXE_TOS/ports/1/default_roce_tos)" = 104 ] || fail "roce-tos not 104"
purlinctl net check $DEV > out.txt || { cat out.txt; fail "check with rxe1"; }
has out.txt "PASS  rdma      rxe1 port 1 (ACTIVE)" "PASS  roce-tos  RDMA CM default ToS 104 (DSCP 26)" \
	"check: 10 pass, 2 warn, 0 fail, 0 n/a"
purlinctl net tune $DEV --undo
[ "$(cat $RXE_TOS/ports/1/default_roce_tos)" = 0 ] || fail "undo: roce-tos"

cleanup
report "dcbsim0 ($(uname -r), apptrust $apptrust): purlinctl <-> dcb/ethtool/ip agree; check/tune/undo; in-reply, skipped and refused sets"
