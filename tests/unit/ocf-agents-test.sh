#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The Pacemaker resource agents (ha/ocf) on the build machine: meta-data
# valid against resource-agents' own ra-api-1.dtd (as ocf-tester checks it)
# and metadata.rng, and validate-all's answers (OCF exit codes) for good and
# bad parameters and files.  The OCF shell library and the schemas come from
# Debian's resource-agents package: installed, or unpacked under build/.
# The agents' actions against a real target run in the guest test
# tests/vm/tests/purlin-ocf.sh.  TAP on stdout.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=$top/tools/purlinctl/purlinctl
cache=$top/build/tools/resource-agents
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

n=0
bad=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); bad=1; echo "not ok $n - $1"; }
check() {	# check NAME CMD...: ok when CMD succeeds
	name=$1
	shift
	if "$@" > "$work/out" 2>&1; then ok "$name"; else notok "$name"; sed 's/^/# /' "$work/out"; fi
}
# rc_is WANT NAME CMD...: ok when CMD exits WANT
rc_is() {
	want=$1 name=$2
	shift 2
	"$@" > "$work/out" 2>&1
	got=$?
	if [ "$got" = "$want" ]; then ok "$name"; else notok "$name (exit $got, expected $want)"; sed 's/^/# /' "$work/out"; fi
}

echo "1..35"
if [ -f /usr/lib/ocf/lib/heartbeat/ocf-shellfuncs ] && [ -f /usr/share/resource-agents/ra-api-1.dtd ]; then
	ra=""
else
	ra=$cache
	if [ ! -f "$ra/usr/share/resource-agents/ra-api-1.dtd" ]; then
		rm -rf "$cache" && mkdir -p "$cache" &&
			(cd "$work" && apt-get download -q resource-agents > /dev/null 2>&1) &&
			dpkg -x "$work"/resource-agents_*.deb "$cache"
	fi
fi
export OCF_ROOT="$ra/usr/lib/ocf" OCF_FUNCTIONS_DIR="$ra/usr/lib/ocf/lib/heartbeat"
schemas=$ra/usr/share/resource-agents
check "resource-agents' OCF library and schemas (apt-get download resource-agents)" \
	test -f "$OCF_FUNCTIONS_DIR/ocf-shellfuncs" -a -f "$schemas/ra-api-1.dtd" -a -f "$schemas/metadata.rng"
# The same check ocf-tester makes: the document validated against the DTD it names.
dtd_valid() { (cd "$schemas" && xmllint --noout --valid - < "$1"); }
rng_valid() { xmllint --noout --relaxng "$schemas/metadata.rng" "$1"; }

# The validators refuse what is not valid (an action without a name).
printf '<?xml version="1.0"?>\n<!DOCTYPE resource-agent SYSTEM "ra-api-1.dtd">\n<resource-agent name="x"><version>1.1</version><longdesc lang="en">x</longdesc><shortdesc lang="en">x</shortdesc><parameters/><actions><action timeout="5s"/></actions></resource-agent>\n' > "$work/broken.xml"
if dtd_valid "$work/broken.xml" > /dev/null 2>&1 || rng_valid "$work/broken.xml" > /dev/null 2>&1; then
	notok "the validators refuse broken meta-data"
else
	ok "the validators refuse broken meta-data"
fi

for a in purlin-config purlin-ana; do
	agent=$top/ha/ocf/$a
	rc_is 0 "$a meta-data" sh -c "'$agent' meta-data > '$work/$a.xml'"
	check "$a meta-data valid against ra-api-1.dtd" dtd_valid "$work/$a.xml"
	check "$a meta-data valid against metadata.rng" rng_valid "$work/$a.xml"
done

# validate-all: OCF_ERR_CONFIGURED (6) for bad parameters, OCF_ERR_INSTALLED (5)
# for what this node lacks, 0 for a good configuration.
cat > "$work/good.json" <<'EOF'
{
  "hosts": [ { "nqn": "nqn.2026-12.io.purlin.test:host" } ],
  "ports": [ { "portid": 1, "addr": { "adrfam": "ipv4", "traddr": "10.99.0.1", "trsvcid": "4420", "trtype": "rdma" },
               "subsystems": [ "nqn.2026-12.io.purlin.test:ha" ] } ],
  "subsystems": [ { "nqn": "nqn.2026-12.io.purlin.test:ha", "attr": { "allow_any_host": "0" },
                    "allowed_hosts": [ "nqn.2026-12.io.purlin.test:host" ],
                    "namespaces": [ { "nsid": 1, "enable": 1,
                      "device": { "path": "/dev/ram0", "uuid": "0b7e3c1a-5d2f-4e8b-9c6a-1f2e3d4c5b6a",
                                  "nguid": "0b7e3c1a-5d2f-4e8b-9c6a-1f2e3d4c5b6a" } } ] } ]
}
EOF
sed 's/"nguid": "[^"]*"/"nguid": "00000000-0000-0000-0000-000000000000"/' "$work/good.json" > "$work/zero-nguid.json"
sed 's/"uuid": "[^"]*",//' "$work/good.json" > "$work/no-uuid.json"
sed 's/"trtype": "rdma"/"trtype": "tcp"/' "$work/good.json" > "$work/tcp.json"
printf '{ "subsystems": [ ], }\n' > "$work/syntax.json"
cfg() { OCF_RESKEY_purlinctl=$tool OCF_RESKEY_config=$1 "$top/ha/ocf/purlin-config" validate-all; }
rc_is 0 "purlin-config validate-all: a good file" cfg "$work/good.json"
rc_is 6 "purlin-config validate-all: no config" cfg ""
rc_is 5 "purlin-config validate-all: a file this node lacks" cfg "$work/missing.json"
rc_is 6 "purlin-config validate-all: a JSON syntax error" cfg "$work/syntax.json"
rc_is 6 "purlin-config validate-all: a value Purlin refuses (tcp)" cfg "$work/tcp.json"
rc_is 6 "purlin-config validate-all: a namespace without uuid" cfg "$work/no-uuid.json"
rc_is 6 "purlin-config validate-all: a namespace with a zero nguid" cfg "$work/zero-nguid.json"
# reservations: resv_dir requires each namespace with them on to keep its
# state file there; a state file's directory must exist on the node
mkdir "$work/shared"
sed 's|"device": {|"resv": { "enable": 1 }, "device": {|' "$work/good.json" > "$work/resv.json"
sed "s|\"device\": {|\"resv\": { \"enable\": 1, \"file\": \"$work/shared/ha-1\" }, \"device\": {|" \
	"$work/good.json" > "$work/resv-file.json"
sed "s|$work/shared/|$work/unshared/|" "$work/resv-file.json" > "$work/resv-elsewhere.json"
cfgr() { OCF_RESKEY_purlinctl=$tool OCF_RESKEY_config=$1 OCF_RESKEY_resv_dir=$2 \
	"$top/ha/ocf/purlin-config" validate-all; }
rc_is 0 "purlin-config validate-all: resv_dir, the state file in it" cfgr "$work/resv-file.json" "$work/shared"
rc_is 6 "purlin-config validate-all: resv_dir, a namespace with reservations and no state file" \
	cfgr "$work/resv.json" "$work/shared"
rc_is 6 "purlin-config validate-all: resv_dir, the state file elsewhere" cfgr "$work/resv-elsewhere.json" "$work/shared/"
rc_is 5 "purlin-config validate-all: the state file's directory missing on this node" \
	cfgr "$work/resv-elsewhere.json" ""
rc_is 5 "purlin-config validate-all: resv_dir missing on this node" cfgr "$work/resv-file.json" "$work/nodir"
rc_is 6 "purlin-config validate-all: resv_dir relative" cfgr "$work/resv-file.json" "shared"
rc_is 6 "purlin-config validate-all: a state file in a clone" env OCF_RESKEY_CRM_meta_clone_max=2 \
	OCF_RESKEY_purlinctl=$tool OCF_RESKEY_config=$work/resv-file.json "$top/ha/ocf/purlin-config" validate-all
ana() { OCF_RESKEY_purlinctl=$tool OCF_RESKEY_ports=$1 OCF_RESKEY_group=$2 OCF_RESKEY_unpromoted_state=$3 \
	"$top/ha/ocf/purlin-ana" validate-all; }
rc_is 0 "purlin-ana validate-all: ports 1,2 group 3 non-optimized" ana "1,2" 3 non-optimized
rc_is 6 "purlin-ana validate-all: no ports" ana "" 1 inaccessible
rc_is 6 "purlin-ana validate-all: a port id that is not a number" ana "1 x" 1 inaccessible
rc_is 6 "purlin-ana validate-all: group 129" ana 1 129 inaccessible
rc_is 6 "purlin-ana validate-all: unpromoted_state optimized" ana 1 1 optimized
rc_is 5 "purlin-ana validate-all: no purlinctl" env OCF_RESKEY_purlinctl=/nonexistent/purlinctl \
	OCF_RESKEY_ports=1 "$top/ha/ocf/purlin-ana" validate-all

# purlin-ana's probe, demote and stop against a stub purlinctl: ana-group show
# answers state $STUB_STATE with exit $STUB_RC; set records its arguments.
cat > "$work/stub" <<'EOF2'
#!/bin/sh
case "$1 $2" in
"ana-group show")
	[ "$STUB_RC" = 0 ] || { echo "purlinctl: stub failure $STUB_RC" >&2; exit "$STUB_RC"; }
	printf 'port %s\ngroup %s\nstate %s\n' "$3" "$4" "$STUB_STATE" ;;
"ana-group set") echo "$*" >> "$STUB_LOG" ;;
*) exit 2 ;;
esac
EOF2
chmod +x "$work/stub"
mkdir "$work/rsc"
stub() {	# stub STATE RC ACTION
	STUB_STATE=$1 STUB_RC=$2 STUB_LOG=$work/set.log HA_RSCTMP=$work/rsc OCF_RESOURCE_INSTANCE=t \
		OCF_RESKEY_purlinctl=$work/stub OCF_RESKEY_ports=1 OCF_RESKEY_CRM_meta_interval=0 \
		"$top/ha/ocf/purlin-ana" "$3"
}
rc_is 8 "purlin-ana probe: not started, but the group is optimized (a new port's default)" stub optimized 0 monitor
rc_is 7 "purlin-ana probe: not started, inaccessible" stub inaccessible 0 monitor
rc_is 0 "purlin-ana demote after such a probe" stub optimized 0 demote
check "purlin-ana demote set the group inaccessible" grep -qx "ana-group set 1 1 state inaccessible" "$work/set.log"
rc_is 1 "purlin-ana stop: the state cannot be read (not claimed stopped)" stub optimized 1 stop
rc_is 0 "purlin-ana stop: the port is gone" stub optimized 3 stop
# purlin-config stop without its file where no target exists: nothing runs
want=0
[ -d /sys/kernel/config/purlin ] && want=5
rc_is $want "purlin-config stop: no file, no target" env OCF_RESKEY_purlinctl=$tool \
	OCF_RESKEY_config=$work/missing.json "$top/ha/ocf/purlin-config" stop
[ "$n" = 35 ] || echo "# planned 35, ran $n"
exit $bad
