# SPDX-License-Identifier: GPL-2.0
# The unit tests' fake configfs checked against the real kernels:
# /tests/data/configfs-ops.txt (tests/vm/data/, also replayed on
# tests/unit/fakecfs.c by test_cfs_model) replayed on Purlin's configfs and on
# Linux nvmet's.  Each operation must give the errno the file lists, and a
# refused one must change nothing (the tree and the attribute are compared
# before and after).  What the file's features are (what the reference
# nvmet of this kernel has or does) is probed on both trees first; Purlin
# must have every one.
# timeout: 240

OPS=/tests/data/configfs-ops.txt
[ -r $OPS ] || fail "$OPS is missing"
brd_create 16

# errtext NAME: the C library's text for errno NAME (what busybox prints).
errtext() {
	case "$1" in
	EPERM) echo "Operation not permitted" ;;
	ENOENT) echo "No such file or directory" ;;
	ENXIO) echo "No such device or address" ;;
	EACCES) echo "Permission denied" ;;
	EBUSY) echo "Device or resource busy" ;;
	EEXIST) echo "File exists" ;;
	ENODEV) echo "No such device" ;;
	ENOTDIR) echo "Not a directory" ;;
	EISDIR) echo "Is a directory" ;;
	EINVAL) echo "Invalid argument" ;;
	ERANGE) echo "Numerical result out of range" ;;
	ENAMETOOLONG) echo "File name too long" ;;
	ENOTEMPTY) echo "Directory not empty" ;;
	EADDRINUSE) echo "Address already in use" ;;
	EADDRNOTAVAIL) echo "Cannot assign requested address" ;;
	*) return 1 ;;
	esac
}

# errname MESSAGE: the errno name for a busybox error message (the text
# after its last ": "), or "?(text)".
errname() {
	local text=${1##*: } n
	# busybox's own words for ENOENT when a redirection's directory is missing
	[ "$text" = "nonexistent directory" ] && { echo ENOENT; return; }
	for n in EPERM ENOENT ENXIO EACCES EBUSY EEXIST ENODEV ENOTDIR EISDIR EINVAL \
		ERANGE ENAMETOOLONG ENOTEMPTY EADDRINUSE EADDRNOTAVAIL; do
		[ "$(errtext $n)" = "$text" ] && { echo $n; return; }
	done
	echo "?($text)"
}

# state PATH: what a refused operation must not change: the tree's names and
# links, and PATH's value when it is a readable file.
state() {
	find "$ROOT" | sort
	find "$ROOT" -type l | sort | while read -r l; do echo "$l -> $(readlink "$l")"; done
	if [ -f "$1" ]; then cat "$1" 2>/dev/null || true; fi
}

present() { [ -e "$1" ] || [ -L "$1" ]; }

# objects: the hosts, subsystems and ports in $ROOT.
objects() { find "$ROOT/hosts" "$ROOT/subsystems" "$ROOT/ports" -mindepth 1 -maxdepth 1; }

# The features of configfs-ops.txt's header, probed on a scratch subsystem
# and port: has FEATURE, on $ROOT.
FEATURES="ieee_oui firmware max_queue_size discovery_nqn one_cntlid version_1_3 vendor_id pi"
# what only the reference may have: Purlin has every other feature
REFERENCE_ONLY="pi"
PROBE_S=subsystems/nqn.2026-11.io.purlin.test:probe
PROBE_P=ports/9
has() {
	case "$1" in
	ieee_oui) [ -e "$ROOT/$PROBE_S/attr_ieee_oui" ] ;;
	firmware) [ -e "$ROOT/$PROBE_S/attr_firmware" ] ;;
	max_queue_size) [ -e "$ROOT/$PROBE_P/param_max_queue_size" ] ;;
	discovery_nqn) [ -e "$ROOT/discovery_nqn" ] ;;
	version_1_3) [ "$(cat "$ROOT/$PROBE_S/attr_version")" = 1.3 ] ;;
	# protection information: nvmet's attr_pi_enable exists only with
	# CONFIG_BLK_DEV_INTEGRITY (Debian's kernels have it, the debug
	# kernel not); Purlin has no protection information
	pi) [ -e "$ROOT/$PROBE_S/attr_pi_enable" ] ;;
	vendor_id)
		[ -e "$ROOT/$PROBE_S/attr_vendor_id" ] && [ -e "$ROOT/$PROBE_S/attr_subsys_vendor_id" ] ;;
	# the range 10..10: one controller ID
	one_cntlid)
		{ echo 10 > "$ROOT/$PROBE_S/attr_cntlid_max" &&
			echo 10 > "$ROOT/$PROBE_S/attr_cntlid_min"; } 2>/dev/null ;;
	*) fail "configfs-ops.txt:$lineno: unknown feature '$1'" ;;
	esac
}

# probe ROOT: $HAVE, the features ROOT has (" f1 f2 ").
probe() {
	local f
	ROOT=$1
	mkdir "$ROOT/$PROBE_S" "$ROOT/$PROBE_P" || fail "$ROOT: cannot make the probe objects"
	HAVE=" "
	for f in $FEATURES; do
		if has $f; then HAVE="$HAVE$f "; fi
	done
	rmdir "$ROOT/$PROBE_P" "$ROOT/$PROBE_S" || fail "$ROOT: cannot remove the probe objects"
	report "$TARGET has the features:${HAVE% }"
}

# have FEATURE: whether the target replayed now has it (a name the file's
# header does not list fails the test).
have() {
	case " $FEATURES " in *" $1 "*) ;; *) fail "configfs-ops.txt:$lineno: unknown feature '$1'" ;; esac
	case "$HAVE" in *" $1 "*) return 0 ;; esac
	return 1
}

nbad=0
bad() {
	report "MISMATCH configfs-ops.txt:$lineno: $*"
	nbad=$((nbad + 1))
}

# run_op OP ARGS...: one line of the file on $ROOT.
run_op() {
	local op=$1 p want out before value target got
	p=$ROOT/$2
	case "$op" in
	read)
		if ! value=$(cat "$p" 2>&1); then
			bad "read $2: $value"
			return 0
		fi
		value=$(printf '%s' "$value" | sed 's/[[:space:]]*$//')
		[ "$value" = "$3" ] || bad "read $2: '$value', expected '$3'"
		return 0 ;;
	exists)
		present "$p" || bad "exists $2: it is missing"
		return 0 ;;
	missing)
		if present "$p"; then bad "missing $2: it is there"; fi
		return 0 ;;
	esac
	eval "want=\${$#}"
	if [ "$op" = link ]; then
		case "$2" in /*) target=$2 ;; *) target=$ROOT/$2 ;; esac
		p=$ROOT/$3
	fi
	[ "$want" = ok ] || before=$(state "$p")
	case "$op" in
	mkdir) out=$(mkdir "$p" 2>&1) ;;
	rmdir) out=$(rmdir "$p" 2>&1) ;;
	unlink) out=$(unlink "$p" 2>&1) ;;
	# echo, not printf: busybox's printf says nothing when the write fails
	write) out=$( { echo "$3" > "$p"; } 2>&1) ;;
	link) out=$(ln -sn "$target" "$p" 2>&1) ;;
	*) bad "unknown operation $op"; return 0 ;;
	esac && got=ok || got=$(errname "$out")
	[ "$got" = "$want" ] || bad "$op ${p#$ROOT/}: $got ($out), expected $want"
	if [ "$want" != ok ] && [ "$got" != ok ]; then
		[ "$(state "$p")" = "$before" ] || bad "$op ${p#$ROOT/}: refused, but something changed"
	fi
	return 0
}

# replay ROOT: every line of the file for $TARGET (purlin or nvmet) on ROOT.
replay() {
	local line tag bad0=$nbad
	ROOT=$1
	lineno=0 nops=0
	[ -z "$(objects)" ] || fail "$ROOT is not empty before the replay: $(objects)"
	set -f
	while IFS= read -r line; do
		lineno=$((lineno + 1))
		case "$line" in ''|'#'*) continue ;; esac
		eval "set -- $line"
		case "$1" in
		purlin-only|nvmet-only)
			tag=${1%-only}
			shift
			[ "$tag" = "$TARGET" ] || continue ;;
		# Purlin, and an nvmet with the feature
		if:*)
			tag=${1#if:}
			shift
			have "$tag" || continue ;;
		nvmet-if:*)
			tag=${1#nvmet-if:}
			shift
			[ $TARGET = nvmet ] && have "$tag" || continue ;;
		nvmet-unless:*)
			tag=${1#nvmet-unless:}
			shift
			[ $TARGET = nvmet ] && ! have "$tag" || continue ;;
		esac
		nops=$((nops + 1))
		run_op "$@"
	done < $OPS
	set +f
	[ -z "$(objects)" ] || bad "$ROOT is not empty after the replay: $(objects)"
	report "$TARGET: $nops operations replayed, $((nbad - bad0)) mismatches"
}

log "Purlin"
modprobe purlin
TARGET=purlin
probe $PURLIN_CFS
for f in $FEATURES; do
	case " $REFERENCE_ONLY " in *" $f "*) continue ;; esac
	have $f || fail "Purlin lacks the feature $f"
done
replay $PURLIN_CFS
purlin_clear

log "Linux nvmet"
modprobe nvmet
modprobe nvmet-rdma
TARGET=nvmet
probe $NVMET_CFS
replay $NVMET_CFS
# what a mismatch may have left (links first, as purlin_clear does)
rm -f $NVMET_CFS/ports/*/subsystems/* $NVMET_CFS/subsystems/*/allowed_hosts/*
rmdir $NVMET_CFS/ports/*/referrals/* $NVMET_CFS/ports/*/ana_groups/* \
	$NVMET_CFS/ports/* $NVMET_CFS/subsystems/*/namespaces/* $NVMET_CFS/subsystems/* \
	$NVMET_CFS/hosts/* 2>/dev/null || true
rmmod nvmet_rdma nvmet 2>/dev/null || true

[ $nbad -eq 0 ] || fail "$nbad operations did not give what configfs-ops.txt says"
