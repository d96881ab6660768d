# SPDX-License-Identifier: GPL-2.0
# purlinctl's provisioning commands against the real Purlin configfs, each
# read back from configfs and, where a host can tell, seen by the stock
# host: the module loaded and configfs mounted when missing; host add/del
# (del leaves no allowed_hosts link behind), subsys set of a cntlid range
# moved past its end (the host's cntlid in it), subsys allow/disallow (the
# host is refused, then served, then refused), ns add disabled, enable and
# disable (the namespace appears on and vanishes from the host), ns set
# path on an enabled namespace (the host reads the new device), port
# link/unlink (the discovery log follows), port add/set of the polling
# parameters (read back, emptied, refused on a live port), referral and
# ana-group add/set/del (the referral in the host's discovery log while
# enabled; group 1 stays), cascading subsys del and port del; restore of a file with referrals (in the
# host's discovery log), ANA groups and ana_grpid (in the host's ANA log
# and path ana_state), buffered_io (a tmpfs file, data lands in it) and a
# polled port; a restore that fails half way on a live configuration leaves it exactly as it was; if-present; and
# purlin.service's ExecStart/ExecReload/ExecStop command lines, taken from
# the unit file, on the unit's configuration path.
# timeout: 180

P=nqn.2026-11.io.purlin.test:prov-p		# the restored file's subsystem
A=nqn.2026-11.io.purlin.test:prov-a		# made with the command line
B=nqn.2026-11.io.purlin.test:prov-b
OTHER=nqn.2014-08.org.nvmexpress:uuid:00000000-1111-2222-3333-444444444444
DISC=nqn.2014-08.org.nvmexpress.discovery
CFG=/tests/data/provision.json
UNIT=/tests/purlin.service
IMG=/tmp/purlinctl-provision.img		# the path provision.json names
CFS=/sys/kernel/config

# ---- helpers ----

# expect_attr REL VALUE: configfs attribute REL (under the Purlin root)
# reads VALUE.
expect_attr() {
	local v
	v=$(cat "$PURLIN_CFS/$1") || fail "cannot read $1"
	[ "$v" = "$2" ] || fail "$1 is '$v', expected '$2'"
}

# expect_dir REL / expect_gone REL: the object exists / is gone.
expect_dir() {
	[ -d "$PURLIN_CFS/$1" ] || fail "$1 missing"
}
expect_gone() {
	if [ -e "$PURLIN_CFS/$1" ] || [ -L "$PURLIN_CFS/$1" ]; then
		fail "$1 still there"
	fi
	return 0
}

# expect_link REL TARGET: REL is a symlink to the object TARGET.
expect_link() {
	[ -L "$PURLIN_CFS/$1" ] || fail "no link $1"
	[ "$(readlink -f "$PURLIN_CFS/$1")" = "$(readlink -f "$PURLIN_CFS/$2")" ] ||
		fail "$1 points to $(readlink "$PURLIN_CFS/$1"), not $2"
}

# cfs_empty: no subsystem, port or host is left.
cfs_empty() {
	[ -z "$(ls -A $PURLIN_CFS/subsystems)$(ls -A $PURLIN_CFS/ports)$(ls -A $PURLIN_CFS/hosts)" ] ||
		fail "configuration left: $(find $PURLIN_CFS -maxdepth 2 | head -20)"
}

# cfs_walk: every object, link and attribute value of the Purlin tree,
# one per line (I/O counters and controller lists left out).
cfs_walk() {
	find $PURLIN_CFS | sort | while read -r f; do
		case "$f" in */stats | */controllers | $PURLIN_CFS/controllers/* | */revalidate_size) continue ;; esac
		if [ -L "$f" ]; then
			echo "$f -> $(readlink "$f")"
		elif [ -d "$f" ]; then
			echo "$f/"
		else
			echo "$f = $(cat "$f" 2>/dev/null || echo '(unreadable)')"
		fi
	done
}

configfs_mounted() {
	grep -q "^[^ ]* $CFS configfs " /proc/mounts
}

# ctrl_for NQN TRSVCID: the host's controller (nvmeN) for NQN through
# that service.
ctrl_for() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$1" ] || continue
		grep -q "trsvcid=$2\(,\|$\)" "$c/address" || continue
		echo "${c##*/}"
		return 0
	done
	return 1
}

# refused NQN TRSVCID: nvme connect fails and leaves no controller.
refused() {
	if nvme connect -t rdma -a $TRADDR -s "$2" -n "$1" > /dev/null 2>&1; then
		fail "host connected to $1 through $2"
	fi
	if ctrl_for "$1" "$2" > /dev/null; then
		fail "a controller for $1 through $2 is left"
	fi
	return 0
}

# active_nsids CTRL: the target's active namespace list, decimal, one a line.
active_nsids() {
	local h
	for h in $(nvme list-ns "/dev/$1" | sed -n 's/^\[ *[0-9]*\]:0x\([0-9a-f]*\)$/\1/p'); do
		echo $((0x$h))
	done
}

# disc SVC: the host's discovery log through SVC, an entry a line:
# "SUBTYPE|PORTID|TRSVCID|SUBNQN".
disc() {
	nvme discover -t rdma -a $TRADDR -s "$1" > disc.txt
	awk '
		function out() { if (st != "") print st "|" pid "|" svc "|" nqn; st = "" }
		/^=====Discovery Log Entry/ { out(); next }
		{	# "key: value", the value may hold colons (NQNs)
			k = $0; sub(/:.*/, "", k)
			v = $0; sub(/^[^:]*: */, "", v); sub(/ +$/, "", v)
		}
		k == "subtype" { st = v }
		k == "portid" { pid = v }
		k == "trsvcid" { svc = v }
		k == "subnqn" { nqn = v }
		END { out() }' disc.txt
}

# ana_log CTRL: the host's ANA log of CTRL, a group a line: "GRPID STATE
# NSID...".
ana_log() {
	nvme ana-log "/dev/$1" > ana.txt
	awk -F: '
		function out() { if (g != "") print g " " s n; g = "" }
		{ k = $1; v = $2; gsub(/[ \t]/, "", k); gsub(/[ \t]/, "", v) }
		k == "grpid" { out(); g = v; s = ""; n = "" }
		k == "state" { s = v }
		k == "nsid" { n = n " " v }
		END { out() }' ana.txt
}

# expect_ana CTRL EXPECTED: the ANA log of CTRL is EXPECTED (lines joined
# with ';').
expect_ana() {
	local got
	got=$(ana_log "$1" | tr '\n' ';')
	[ "$got" = "$2;" ] || { cat ana.txt; fail "$1: ANA log '$got', expected '$2;'"; }
}

# path_ana CTRL NSID: the host's ana_state of namespace NSID's path
# through CTRL (native multipath only).
path_ana() {
	local p
	for p in /sys/block/nvme*c${1#nvme}n*; do
		[ -e "$p/nsid" ] || continue
		[ "$(cat "$p/nsid")" = "$2" ] || continue
		cat "$p/ana_state"
		return 0
	done
	return 1
}

# unit_cmd KEY: the unit's KEY= command line in UNIT_CMD, @SBINDIR@ as
# installed (where the guest has purlinctl).  Exactly one line, an
# absolute path.  (A variable, not output: fail must reach the log.)
unit_cmd() {
	local n
	n=$(grep -c "^$1=" $UNIT || true)
	[ "$n" = 1 ] || fail "$UNIT: $n $1= lines"
	UNIT_CMD=$(sed -n "s/^$1=//p" $UNIT | sed "s|@SBINDIR@|$(dirname "$(command -v purlinctl)")|g")
	case "$UNIT_CMD" in /*) ;; *) fail "$UNIT: $1 is not an absolute command: $UNIT_CMD" ;; esac
	return 0
}

# unit_run KEY: run the unit's KEY= command line as systemd would (split at
# blanks, no shell).
unit_run() {
	unit_cmd "$1"
	log "$1: $UNIT_CMD"
	set -f
	# shellcheck disable=SC2086
	$UNIT_CMD || { set +f; fail "$1 failed: $UNIT_CMD"; }
	set +f
}

# Whatever happens, leave configfs mounted for the tests after this one.
trap 'configfs_mounted || mount -t configfs configfs $CFS' EXIT

brd_create 16 3

# ---- the module and configfs, loaded and mounted on demand ----

[ ! -d /sys/module/purlin ] || fail "purlin is loaded before the test"
log "purlin not loaded: purlinctl loads it"
purlinctl host list > hosts.txt 2> load.err
cat load.err
[ -d /sys/module/purlin ] || fail "purlinctl did not load purlin"
grep -q "$PURLIN_CFS not found, loading purlin" load.err || fail "loading not reported"
if grep -q "mounted configfs" load.err; then fail "configfs was mounted already"; fi
grep -q '^HOSTNQN' hosts.txt || fail "host list: $(cat hosts.txt)"
rmmod purlin

log "configfs unmounted, purlin not loaded: purlinctl mounts and loads"
umount $CFS
if configfs_mounted; then fail "configfs still mounted"; fi
purlinctl host add $HOSTNQN 2> mount.err
cat mount.err
configfs_mounted || fail "purlinctl did not mount configfs"
[ -d /sys/module/purlin ] || fail "purlinctl did not load purlin"
grep -q "mounted configfs on $CFS" mount.err || fail "mount not reported"
expect_dir hosts/$HOSTNQN

# ---- the command line ----

log "subsys add, ns add, port add, port link"
purlinctl subsys add $A model "Provision A" serial PROV-A-0001 cntlid-min 2 cntlid-max 10
expect_attr subsystems/$A/attr_model "Provision A"
expect_attr subsystems/$A/attr_serial PROV-A-0001
expect_attr subsystems/$A/attr_allow_any_host 0
expect_attr subsystems/$A/attr_cntlid_min 2
expect_attr subsystems/$A/attr_cntlid_max 10
# The range moves up past its current end: Purlin checks min <= max on
# each write.
purlinctl subsys set $A cntlid-min 20 cntlid-max 30
expect_attr subsystems/$A/attr_cntlid_min 20
expect_attr subsystems/$A/attr_cntlid_max 30
purlinctl ns add $A 1 path /dev/ram0
expect_attr subsystems/$A/namespaces/1/device_path /dev/ram0
expect_attr subsystems/$A/namespaces/1/enable 1
purlinctl port add 1 traddr $TRADDR
expect_attr ports/1/addr_trtype rdma
expect_attr ports/1/addr_adrfam ipv4
expect_attr ports/1/addr_traddr $TRADDR
expect_attr ports/1/addr_trsvcid 4420
purlinctl port link 1 $A
expect_link ports/1/subsystems/$A subsystems/$A

log "no host allowed: refused"
refused $A 4420
log "subsys allow: served"
purlinctl subsys allow $A $HOSTNQN
expect_link subsystems/$A/allowed_hosts/$HOSTNQN hosts/$HOSTNQN
nvme_connect $A 4420 > /dev/null
ca=$(ctrl_for $A 4420) || fail "no host controller of $A through 4420"
cntlid=$(cat /sys/class/nvme/$ca/cntlid)
[ "$cntlid" -ge 20 ] && [ "$cntlid" -le 30 ] || fail "cntlid $cntlid outside 20..30"
[ "$(active_nsids $ca)" = 1 ] || fail "active namespaces: $(active_nsids $ca)"

log "ns add ... disable, ns enable, ns disable"
purlinctl ns add $A 2 path /dev/ram1 disable
expect_attr subsystems/$A/namespaces/2/enable 0
expect_attr subsystems/$A/namespaces/2/device_path /dev/ram1
[ "$(active_nsids $ca | tr '\n' ' ')" = "1 " ] || fail "disabled namespace is active"
purlinctl ns enable $A 2
expect_attr subsystems/$A/namespaces/2/enable 1
wait_for "nvme_dev_for $A 2" 150
[ "$(active_nsids $ca | tr '\n' ' ')" = "1 2 " ] || fail "enabled namespace not active"
purlinctl ns disable $A 2
expect_attr subsystems/$A/namespaces/2/enable 0
wait_for "nvme_ns_gone $A 2" 150
[ "$(active_nsids $ca | tr '\n' ' ')" = "1 " ] || fail "disabled namespace still active"

log "ns set path on an enabled namespace: the host reads the new device"
purlinctl ns enable $A 2
wait_for "nvme_dev_for $A 2" 150
uuid=$(cat $PURLIN_CFS/subsystems/$A/namespaces/2/device_uuid)
dd if=/dev/urandom of=pat2 bs=64k count=1 2>/dev/null
dd if=pat2 of=/dev/ram2 bs=64k oflag=direct 2>/dev/null
# reads_ram2: namespace 2 as the host reads it holds what ram2 holds.
reads_ram2() {
	local d
	d=$(nvme_dev_for $A 2) || return 1
	dd if="$d" of=got2 bs=64k count=1 iflag=direct 2>/dev/null || return 1
	cmp -s pat2 got2
}
if reads_ram2; then fail "namespace 2 reads ram2 before ns set"; fi
purlinctl ns set $A 2 path /dev/ram2
expect_attr subsystems/$A/namespaces/2/device_path /dev/ram2
expect_attr subsystems/$A/namespaces/2/enable 1
expect_attr subsystems/$A/namespaces/2/device_uuid "$uuid"
wait_for reads_ram2 150

log "subsys disallow: refused again"
nvme_disconnect $A
purlinctl subsys disallow $A $HOSTNQN
expect_gone subsystems/$A/allowed_hosts/$HOSTNQN
expect_dir hosts/$HOSTNQN
refused $A 4420

log "host del: gone from every subsystem's allowed hosts"
purlinctl subsys add $B
purlinctl ns add $B 1 path /dev/ram1
purlinctl port link 1 $B
purlinctl subsys allow $A $HOSTNQN
purlinctl subsys allow $B $HOSTNQN
purlinctl host add $OTHER
purlinctl subsys allow $B $OTHER
purlinctl host del $HOSTNQN
expect_gone hosts/$HOSTNQN
expect_gone subsystems/$A/allowed_hosts/$HOSTNQN
expect_gone subsystems/$B/allowed_hosts/$HOSTNQN
expect_link subsystems/$B/allowed_hosts/$OTHER hosts/$OTHER
refused $B 4420

log "port unlink: the discovery log follows"
purlinctl subsys disallow $B $OTHER
purlinctl host del $OTHER
purlinctl subsys set $A allow-any-host on
purlinctl subsys set $B allow-any-host on
expect_attr subsystems/$B/attr_allow_any_host 1
disc 4420 > d1.txt
grep -qx "nvme subsystem|1|4420|$A" d1.txt || { cat disc.txt; fail "A not discovered"; }
grep -qx "nvme subsystem|1|4420|$B" d1.txt || { cat disc.txt; fail "B not discovered"; }
purlinctl port unlink 1 $B
expect_gone ports/1/subsystems/$B
expect_link ports/1/subsystems/$A subsystems/$A
disc 4420 > d2.txt
grep -qx "nvme subsystem|1|4420|$A" d2.txt || { cat disc.txt; fail "A no longer discovered"; }
if grep -q "|$B\$" d2.txt; then cat disc.txt; fail "unlinked B still discovered"; fi
refused $B 4420

log "port add and set: cq-mode, poll-usecs, poll-cpus"
purlinctl port add 2 traddr $TRADDR trsvcid 4421 cq-mode poll poll-usecs 20 poll-cpus 0
expect_attr ports/2/param_cq_mode poll
expect_attr ports/2/param_poll_usecs 20
expect_attr ports/2/param_poll_cpus 0
purlinctl port set 2 poll-usecs -1 poll-cpus ""
expect_attr ports/2/param_poll_usecs 50
expect_attr ports/2/param_poll_cpus ""
purlinctl port set 2 poll-cpus 0

log "referral and ana-group on the command line"
purlinctl referral add 1 peer traddr $TRADDR trsvcid 4421 portid 2
expect_attr ports/1/referrals/peer/addr_trsvcid 4421
expect_attr ports/1/referrals/peer/enable 1
disc 4420 > d5.txt
grep -q "^discovery subsystem referral|2|4421|" d5.txt || { cat disc.txt; fail "referral add: not in the discovery log"; }
purlinctl referral set 1 peer disable
expect_attr ports/1/referrals/peer/enable 0
disc 4420 > d6.txt
if grep -q "^discovery subsystem referral" d6.txt; then cat disc.txt; fail "a disabled referral is listed"; fi
purlinctl referral del 1 peer
expect_gone ports/1/referrals/peer
purlinctl ana-group add 2 2 state inaccessible
expect_attr ports/2/ana_groups/2/ana_state inaccessible
purlinctl ana-group set 2 2 state change
expect_attr ports/2/ana_groups/2/ana_state change
expect_err 4 "every port has it and it cannot be removed" purlinctl ana-group del 2 1
expect_dir ports/2/ana_groups/1
purlinctl ana-group del 2 2
expect_gone ports/2/ana_groups/2

log "cascading subsys del and port del"
purlinctl port link 1 $B
purlinctl port link 2 $B
purlinctl port link 2 $A
expect_err 4 "port 2: exports 2 subsystems, so its address and parameters cannot change: unlink each first" \
	purlinctl port set 2 cq-mode workqueue
expect_attr ports/2/param_cq_mode poll
purlinctl subsys set $B allow-any-host off
purlinctl host add $HOSTNQN
purlinctl subsys allow $B $HOSTNQN
purlinctl subsys del $B
expect_gone subsystems/$B
expect_gone ports/1/subsystems/$B
expect_gone ports/2/subsystems/$B
expect_dir hosts/$HOSTNQN
expect_link ports/2/subsystems/$A subsystems/$A
expect_attr subsystems/$A/namespaces/2/enable 1
disc 4421 > d3.txt
grep -qx "nvme subsystem|2|4421|$A" d3.txt || { cat disc.txt; fail "A not discovered on port 2"; }
if grep -q "|$B\$" d3.txt; then cat disc.txt; fail "deleted B still discovered"; fi
purlinctl port del 2
expect_gone ports/2
expect_link ports/1/subsystems/$A subsystems/$A
purlinctl clear
cfs_empty

# ---- restore: referrals, ANA groups, ana_grpid, buffered_io ----

log "restore $CFG"
truncate -s 16M $IMG
purlinctl restore $CFG
expect_attr ports/1/ana_groups/1/ana_state optimized
expect_attr ports/1/ana_groups/2/ana_state non-optimized
expect_attr ports/2/ana_groups/1/ana_state optimized
expect_attr ports/2/ana_groups/2/ana_state inaccessible
expect_attr ports/2/param_cq_mode poll
expect_attr ports/2/param_poll_usecs 20
expect_attr ports/2/param_poll_cpus 0
expect_attr ports/1/param_cq_mode workqueue
R=ports/1/referrals/peer
expect_attr $R/addr_trtype rdma
expect_attr $R/addr_adrfam ipv4
expect_attr $R/addr_traddr $TRADDR
expect_attr $R/addr_trsvcid 4421
expect_attr $R/addr_portid 2
expect_attr $R/enable 1
N=subsystems/$P/namespaces
expect_attr $N/1/device_path /dev/ram0
expect_attr $N/1/ana_grpid 2
expect_attr $N/1/enable 1
expect_attr $N/2/device_path $IMG
expect_attr $N/2/buffered_io 1
expect_attr $N/2/ana_grpid 1
expect_attr $N/2/enable 1
expect_link subsystems/$P/allowed_hosts/$HOSTNQN hosts/$HOSTNQN
expect_link ports/1/subsystems/$P subsystems/$P
expect_link ports/2/subsystems/$P subsystems/$P
purlinctl save saved.json
purlinctl restore $CFG
purlinctl save saved2.json
cmp saved.json saved2.json || fail "a second restore changed the configuration"

log "the host: referral in the discovery log"
disc 4420 > d4.txt
cat d4.txt
grep -qx "nvme subsystem|1|4420|$P" d4.txt || fail "P not discovered"
grep -q "^discovery subsystem referral|2|4421|$DISC\$" d4.txt || fail "referral not discovered"

log "the host: ANA groups per port"
nvme_connect $P 4420 > /dev/null
nvme connect -t rdma -a $TRADDR -s 4421 -n $P > /dev/null
wait_for "ctrl_for $P 4421"
c1=$(ctrl_for $P 4420) || fail "no host controller of $P through 4420"
c2=$(ctrl_for $P 4421) || fail "no host controller of $P through 4421"
expect_ana $c1 "1 optimized 2;2 non-optimized 1"
expect_ana $c2 "1 optimized 2;2 inaccessible 1"
if [ "$(cat /sys/module/nvme_core/parameters/multipath)" = Y ]; then
	wait_for "[ \"\$(path_ana $c1 1)\" = non-optimized ]" 150
	wait_for "[ \"\$(path_ana $c2 1)\" = inaccessible ]" 150
	wait_for "[ \"\$(path_ana $c1 2)\" = optimized ]" 150
	log "path ana_state: port 1 non-optimized, port 2 inaccessible"
fi

log "the host: buffered_io namespace on a tmpfs file"
wait_for "nvme_dev_for $P 2" 150
d2=$(nvme_dev_for $P 2)
dd if=/dev/urandom of=pat bs=64k count=4 2>/dev/null
dd if=pat of="$d2" bs=64k oflag=direct 2>/dev/null
nvme flush "$d2"
dd if=$IMG of=got bs=64k count=4 2>/dev/null
cmp pat got || fail "data written through namespace 2 is not in $IMG"

# ---- a restore that fails half way leaves the live configuration ----

log "a failed restore on a live configuration changes nothing"
purlinctl save before.json
cfs_walk > before.walk
# Changes to every kind of object, then a namespace whose device does not
# exist (ram0..ram2 do): the kernel refuses it after the changes are made.
cat > bad.json <<EOF
{
  "hosts": [ { "nqn": "$HOSTNQN" }, { "nqn": "$OTHER" } ],
  "ports": [
    { "portid": 1,
      "addr": { "adrfam": "ipv4", "traddr": "$TRADDR", "trsvcid": "4420", "trtype": "rdma" },
      "ana_groups": [ { "grpid": 2, "ana": { "state": "optimized" } },
                      { "grpid": 3, "ana": { "state": "non-optimized" } } ],
      "referrals": [ { "name": "peer", "enable": 1,
                       "addr": { "adrfam": "ipv4", "portid": "2", "traddr": "$TRADDR",
                                 "trsvcid": "4422", "trtype": "rdma" } } ],
      "subsystems": [ "$P", "$A" ] }
  ],
  "subsystems": [
    { "nqn": "$A", "attr": { "allow_any_host": "1" },
      "namespaces": [ { "nsid": 1, "enable": 1, "device": { "path": "/dev/ram1" } } ] },
    { "nqn": "$P", "allowed_hosts": [ "$HOSTNQN", "$OTHER" ],
      "namespaces": [ { "nsid": 1, "ana_grpid": 3 },
                      { "nsid": 3, "enable": 1, "device": { "path": "/dev/ram9" } } ] }
  ]
}
EOF
# The plan changes the live objects before the step that fails.
purlinctl -n restore bad.json > plan.txt
cat plan.txt
sed -n '/namespaces\/3\/device_path/q;p' plan.txt > before-fail.txt
for step in "mkdir  hosts/$OTHER" \
	"write  ports/1/ana_groups/2/ana_state = \"optimized\"" \
	"mkdir  ports/1/ana_groups/3" \
	"write  ports/1/referrals/peer/enable = \"0\"" \
	"write  ports/1/referrals/peer/addr_trsvcid = \"4422\"" \
	"write  ports/1/referrals/peer/enable = \"1\"" \
	"mkdir  subsystems/$A" \
	"write  subsystems/$A/namespaces/1/enable = \"1\"" \
	"write  subsystems/$P/namespaces/1/ana_grpid = \"3\""; do
	grep -qxF "$step" before-fail.txt || fail "the plan does not '$step' before the failing step"
done
purlinctl save dry.json
cmp before.json dry.json || fail "the dry run changed something"
if purlinctl restore bad.json 2> rb.err; then fail "restore with /dev/ram9 succeeded"; fi
cat rb.err
grep -q "ns 3: device_path: No such file or directory" rb.err || fail "the failing step is not named"
# Every step before the failing one ran, and was rolled back.
k=$(wc -l < before-fail.txt)
grep -q "restore: step $((k + 1)) of $(wc -l < plan.txt) failed; $k completed steps rolled back" rb.err ||
	fail "expected step $((k + 1)) to fail with $k steps rolled back"
if grep -q "rollback:" rb.err; then fail "a rollback step failed"; fi
purlinctl save after.json
cmp before.json after.json || { diff -u before.json after.json; fail "saved configuration differs after the rollback"; }
cfs_walk > after.walk
diff -u before.walk after.walk || fail "configfs differs after the rollback"
for c in $c1 $c2; do
	[ "$(cat /sys/class/nvme/$c/state)" = live ] || fail "$c: $(cat /sys/class/nvme/$c/state)"
done
expect_ana $c1 "1 optimized 2;2 non-optimized 1"
expect_ana $c2 "1 optimized 2;2 inaccessible 1"

# ---- if-present ----

log "restore if-present: a missing file is no error, a present one is restored"
purlinctl restore /tmp/no-such.json if-present
cfs_walk > ifp.walk
diff -u before.walk ifp.walk || fail "if-present with no file changed configfs"
if purlinctl restore /tmp/no-such.json 2> nofile.err; then fail "restore of a missing file succeeded"; fi
grep -q "no-such.json" nofile.err || fail "missing file not named: $(cat nofile.err)"
echo '{ "hosts": [ ' > broken.json
if purlinctl restore broken.json if-present 2> broken.err; then
	fail "if-present hid a broken file"
fi
grep -q "broken.json: line" broken.err || fail "broken file not reported: $(cat broken.err)"
echo "{ \"hosts\": [ { \"nqn\": \"$OTHER\" } ] }" > other.json
purlinctl restore other.json if-present
expect_dir hosts/$OTHER
purlinctl host del $OTHER
expect_gone hosts/$OTHER

log "port del: with its referrals, ANA groups and links"
nvme disconnect -n $P > /dev/null
wait_for "! ctrl_for $P 4420 && ! ctrl_for $P 4421"
purlinctl port del 1
expect_gone ports/1
expect_link ports/2/subsystems/$P subsystems/$P
expect_attr ports/2/ana_groups/2/ana_state inaccessible
expect_attr $N/1/enable 1
purlinctl clear
cfs_empty
purlin_assert_idle "" "after clear"
rmmod purlin

# ---- purlin.service ----

[ -f $UNIT ] || fail "$UNIT not in the guest"
unit_cmd ExecStart
# The file the unit restores: the argument after "restore".
SAVED=$(echo "$UNIT_CMD" | sed -n 's/.* restore \([^ ]*\).*/\1/p')
case "$SAVED" in /*) ;; *) fail "no configuration file in ExecStart: $UNIT_CMD" ;; esac
log "unit configuration file: $SAVED"
[ ! -e "$SAVED" ] || fail "$SAVED exists before the test"

log "ExecStart without a saved file, configfs unmounted: loaded, mounted, empty"
umount $CFS
unit_run ExecStart
configfs_mounted || fail "ExecStart did not mount configfs"
[ -d /sys/module/purlin ] || fail "ExecStart did not load purlin"
cfs_empty
rmmod purlin

log "ExecStart with a saved file: the configuration is back"
mkdir -p "$(dirname "$SAVED")"
cp $CFG "$SAVED"
unit_run ExecStart
[ -d /sys/module/purlin ] || fail "ExecStart did not load purlin"
purlinctl save svc.json
cmp saved.json svc.json || { diff -u saved.json svc.json; fail "ExecStart restored something else"; }

log "ExecReload puts changed values back"
echo inaccessible > $PURLIN_CFS/ports/1/ana_groups/2/ana_state
echo 0 > $PURLIN_CFS/$N/2/enable
unit_run ExecReload
expect_attr ports/1/ana_groups/2/ana_state non-optimized
expect_attr $N/2/enable 1
purlinctl save svc2.json
cmp saved.json svc2.json || { diff -u saved.json svc2.json; fail "ExecReload restored something else"; }

log "ExecStop clears the target"
unit_run ExecStop
cfs_empty
rm -f "$SAVED"
rmdir "$(dirname "$SAVED")" 2>/dev/null || true
rm -f $IMG
report "purlinctl-provision: CLI, restore (referrals, ANA, buffered_io), rollback, if-present, modprobe/mount, purlin.service checked"
purlin_clear
