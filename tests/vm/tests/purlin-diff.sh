# SPDX-License-Identifier: GPL-2.0
# Differential check: Linux's nvmet and Purlin configured identically; the
# host's view of Identify Controller, Identify Namespace, the namespace
# descriptors and the discovery log is compared field by field.  Every
# difference must be listed, with its reason, in tests/vm/diff-allowed.txt
# (mirrored in Documentation/interop.md).
# timeout: 240

NQN=nqn.2026-11.io.purlin.test:diff
UUID=5b0e7a44-3c1d-4f6e-8a9b-0c1d2e3f4a5b
NGUID=a1a2a3a4-b1b2-c1c2-d1d2-e1e2e3e4e5e6
brd_create 32 2

# configure CFS PORT SVC DEV: the same subsystem on either target.
configure() {
	local c=$1 s=$1/subsystems/$NQN p=$1/ports/$2
	mkdir "$s"
	echo 1 > "$s/attr_allow_any_host"
	echo DIFF-SERIAL-1 > "$s/attr_serial"
	echo "Diff Model" > "$s/attr_model"
	echo 1.3 > "$s/attr_version"
	# attributes the reference nvmet may lack (6.1's has neither): set
	# where it has them, so that they come out the same
	[ ! -e "$s/attr_ieee_oui" ] || echo 0x001122 > "$s/attr_ieee_oui"
	[ ! -e "$s/attr_firmware" ] || echo 1.0 > "$s/attr_firmware"
	# VID and SSVID where the reference has them (configured first)
	if [ -e "$NVMET_CFS/subsystems/$NQN/attr_vendor_id" ]; then
		echo 0x1af4 > "$s/attr_vendor_id"
		echo 0x1af4 > "$s/attr_subsys_vendor_id"
	fi
	mkdir "$s/namespaces/1"
	echo "$4" > "$s/namespaces/1/device_path"
	echo $UUID > "$s/namespaces/1/device_uuid"
	echo $NGUID > "$s/namespaces/1/device_nguid"
	echo 1 > "$s/namespaces/1/enable"
	mkdir "$p"
	echo rdma > "$p/addr_trtype"
	echo ipv4 > "$p/addr_adrfam"
	echo $TRADDR > "$p/addr_traddr"
	echo "$3" > "$p/addr_trsvcid"
	# likewise the queue size (MAXCMD), Purlin's default
	[ ! -e "$p/param_max_queue_size" ] || echo 128 > "$p/param_max_queue_size"
	ln -s "$s" "$p/subsystems/$NQN"
}

# fields: nvme-cli text output -> "key=value" lines.  Lines "key : value";
# keys repeated per discovery entry are prefixed with the entry number.
fields() {
	awk '
	/Discovery Log Entry/ { e = $0; gsub(/[^0-9]/, "", e); e = "entry" e "."; next }
	index($0, ":") > 0 {
		k = substr($0, 1, index($0, ":") - 1)
		v = substr($0, index($0, ":") + 1)
		gsub(/^[ \t]+|[ \t]+$/, "", k)
		gsub(/^[ \t]+|[ \t]+$/, "", v)
		gsub(/[ \t]+/, "_", k)
		if (k != "") print e k "=" v
	}'
}

# capture TAG SVC: connect, save what the host sees, disconnect.
capture() {
	local dev ctrl
	nvme discover -t rdma -a $TRADDR -s "$2" | fields |
		grep -v '\.trsvcid=\|\.portid=\|Generation' > "$1.disc"
	dev=$(nvme_connect $NQN "$2")
	ctrl=$(ctrl_of "$dev")
	nvme id-ctrl "$ctrl" | fields > "$1.ctrl"
	nvme id-ns "$dev" | fields > "$1.ns"
	nvme ns-descs "$dev" | fields > "$1.descs"
	# counters and change counts differ by nature; the layout must not
	nvme ana-log "$ctrl" | fields | grep -v chgcnt > "$1.ana"
	nvme smart-log "$ctrl" | fields |
		grep -iv 'data_units\|Data Units\|commands\|num_err\|power_on\|busy' > "$1.smart"
	nvme_disconnect $NQN
	wc -l "$1.ctrl" "$1.ns" "$1.descs" "$1.disc" "$1.ana" "$1.smart"
}

modprobe nvmet
modprobe nvmet-rdma
modprobe purlin
configure $NVMET_CFS 1 4420 /dev/ram0
configure $PURLIN_CFS 2 4421 /dev/ram1
capture nvmet 4420
capture purlin 4421

ndiff=0
unexplained=0
for part in ctrl ns descs disc ana smart; do
	sort nvmet.$part > a
	sort purlin.$part > b
	# fields whose values differ or that only one side has
	cut -d= -f1 a b | sort -u | while read -r k; do
		va=$(grep -m1 "^$k=" a | cut -d= -f2-)
		vb=$(grep -m1 "^$k=" b | cut -d= -f2-)
		[ "$va" = "$vb" ] || echo "$part $k nvmet=${va:-(absent)} purlin=${vb:-(absent)}"
	done
done > diffs.txt
# diff-allowed.txt: PART FIELD NVMET_VALUE PURLIN_VALUE REASON, the values
# shell globs: a listed difference passes only if both values match.
while read -r part k rest; do
	ndiff=$((ndiff + 1))
	va=$(echo "$rest" | sed -n 's/^nvmet=\(.*\) purlin=.*/\1/p')
	vb=$(echo "$rest" | sed -n 's/.* purlin=\(.*\)$/\1/p')
	line=$(grep -m1 "^$part $k " /tests/diff-allowed.txt || true)
	pa=$(echo "$line" | awk '{ print $3 }')
	pb=$(echo "$line" | awk '{ print $4 }')
	ok=no
	if [ -n "$line" ]; then
		case "$va" in $pa) case "$vb" in $pb) ok=yes ;; esac ;; esac
	fi
	if [ $ok = yes ]; then
		echo "known   $part $k $rest"
	elif [ -n "$line" ]; then
		echo "UNKNOWN $part $k $rest (listed, but expected nvmet=$pa purlin=$pb)"
		unexplained=$((unexplained + 1))
	else
		echo "UNKNOWN $part $k $rest"
		unexplained=$((unexplained + 1))
	fi
done < diffs.txt
report "differential check vs nvmet: $ndiff fields differ, $unexplained unexplained"
for c in $NVMET_CFS; do
	rm "$c/ports/1/subsystems/$NQN"; rmdir "$c/ports/1"
	echo 0 > "$c/subsystems/$NQN/namespaces/1/enable"
	rmdir "$c/subsystems/$NQN/namespaces/1"; rmdir "$c/subsystems/$NQN"
done
purlin_clear
[ $unexplained -eq 0 ] || fail "$unexplained differences from nvmet are not explained"
