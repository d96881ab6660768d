#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A Debian sid (unstable) chroot to build purlin.ko against the newest kernel
# Debian ships: its headers need the compiler the kernel was built with,
# newer than bookworm's gcc-12.  The chroot is cached outside the repository
# (default /var/cache/purlin/chroot-sid), so every clone on this machine
# shares it; it is rebuilt when missing, incomplete or broken, and otherwise
# reused without network access (`refresh` upgrades it, only when asked).
# It holds minbase, build-essential, make, dkms, kmod, openssl (DKMS signs
# modules with it), linux-headers-amd64 (which brings the kernel's gcc and
# kbuild, with pahole) and the libraries purlinctl's package needs, so
# installing the packages needs no network either.
#
# usage: sid-chroot.sh [ensure]   create the chroot if needed; print the
#                                 kernel release of its headers
#        sid-chroot.sh refresh    apt-get update and upgrade inside (network)
#        sid-chroot.sh info       print the stamp (release, compiler, dates)
#        sid-chroot.sh remove     delete the cached chroot
#        sid-chroot.sh run [-o DIR] [-b HOSTDIR:DIR]... -- CMD [ARG]...
#            run CMD inside (as root, niced, with /proc and /dev/pts
#            mounted in private mount and PID namespaces, unmounted on
#            exit; killing the run kills everything it started).
#            -o DIR: on a throwaway overlay whose writable layer is DIR
#            (recreated; the cached chroot is not changed).  -b: bind mount
#            a host directory at DIR inside.
#
# Environment: PURLIN_SID_CHROOT (chroot directory), PURLIN_SID_MIRROR
# (default http://deb.debian.org/debian).  Needs root (re-runs with sudo).
set -euo pipefail

ROOT=${PURLIN_SID_CHROOT:-/var/cache/purlin/chroot-sid}
MIRROR=${PURLIN_SID_MIRROR:-http://deb.debian.org/debian}
SUITE=sid
PKGS="build-essential make dkms kmod openssl linux-headers-amd64
libnl-3-200 libnl-route-3-200 libnl-genl-3-200 libjson-c5"
# shellcheck disable=SC2086,SC2116 # on one line
PKGS=$(echo $PKGS)
# Changing what goes into the chroot changes the recipe, which rebuilds it.
RECIPE="1 $SUITE $MIRROR $PKGS"
STAMP=$ROOT/.purlin-complete
LOCK=$ROOT.lock
LOG=$ROOT.log

die() { echo "sid-chroot: $*" >&2; exit 1; }
note() { echo "sid-chroot: $*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
	command -v sudo > /dev/null || die "needs root (debootstrap, chroot, mount)"
	exec sudo -E -- "$0" "$@"
fi

stamp_get() {	# stamp_get KEY
	sed -n "s/^$1=//p" "$STAMP" 2>/dev/null
}

# The newest kernel headers inside (their release, e.g. 7.2.13+deb14-amd64).
headers_kver() {
	local d
	d=$(ls -d "$1"/usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)
	[ -n "$d" ] && echo "${d##*/linux-headers-}"
}

# The compiler the kernel was built with, as its configuration records it.
kernel_cc() {	# kernel_cc ROOT KVER
	sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' \
		"$1/usr/src/linux-headers-$2/.config" 2>/dev/null
}

# Is the cached chroot complete and usable?  Fast, no network.
healthy() {
	local k cc
	[ -f "$STAMP" ] || return 1
	[ "$(stamp_get recipe)" = "$RECIPE" ] || return 1
	k=$(stamp_get kver)
	[ -n "$k" ] && [ -f "$ROOT/usr/src/linux-headers-$k/Makefile" ] || return 1
	[ -L "$ROOT/lib/modules/$k/build" ] || return 1
	[ -x "$ROOT/usr/sbin/dkms" ] || [ -x "$ROOT/usr/bin/dkms" ] || return 1
	cc=$(kernel_cc "$ROOT" "$k")
	[ -n "$cc" ] && [ -x "$ROOT/usr/bin/${cc%% *}" ] || return 1
	chroot "$ROOT" /bin/true 2> /dev/null || return 1
	[ -z "$(chroot "$ROOT" dpkg --audit 2> /dev/null)" ] || return 1
}

# Something mounted inside a chroot directory (runs use private namespaces,
# so even a run killed with -9 leaves no mounts behind; this is a safeguard).
assert_unmounted() {
	if findmnt -rn -o TARGET | grep -q "^$1/"; then
		die "something is still mounted under $1; unmount it first"
	fi
}

# Private mount and PID namespaces: the mounts are never visible outside
# and disappear with the namespace; killing unshare kills everything in it.
UNSHARE="unshare --mount --propagation private --pid --kill-child"

# in_root ROOT CMD...: run CMD in ROOT with /proc and /dev/pts, in private
# namespaces, unmounting on exit.
in_root() {
	$UNSHARE -- "$0" __in-root "" "" "$@"
}

# __in-root OVERLAY-DIR BINDS ROOT CMD...  (inside the private namespace)
in_root_inner() {
	local ovl=$1 binds=$2 root=$3
	shift 3
	local mounts=() b src dst rc=0
	cleanup() {
		local i
		for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
			umount "${mounts[i]}" 2> /dev/null || umount -l "${mounts[i]}" || true
		done
	}
	trap cleanup EXIT
	if [ -n "$ovl" ]; then
		rm -rf "$ovl"
		mkdir -p "$ovl/upper" "$ovl/work" "$ovl/root"
		mount -t overlay overlay \
			-o "lowerdir=$root,upperdir=$ovl/upper,workdir=$ovl/work" "$ovl/root"
		mounts+=("$ovl/root")
		root=$ovl/root
	fi
	mount -t proc proc "$root/proc"
	mounts+=("$root/proc")
	mkdir -p "$root/dev/pts"
	mount --bind /dev/pts "$root/dev/pts"
	mounts+=("$root/dev/pts")
	for b in $binds; do
		src=${b%%:*} dst=${b#*:}
		mkdir -p "$root$dst"
		mount --bind "$src" "$root$dst"
		mounts+=("$root$dst")
	done
	env -i HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		nice -n 10 chroot "$root" "$@" || rc=$?
	exit $rc
}

create() {
	local new=$ROOT.new k cc
	assert_unmounted "$ROOT"
	assert_unmounted "$new"
	command -v debootstrap > /dev/null ||
		die "debootstrap is not installed (scripts/deps.sh installs it)"
	rm -rf "$new"
	mkdir -p "$(dirname "$ROOT")"
	note "creating the $SUITE chroot in $ROOT (debootstrap, a minute or more; log: $LOG)"
	: > "$LOG"
	if ! nice -n 10 debootstrap --variant=minbase "$SUITE" "$new" "$MIRROR" >> "$LOG" 2>&1; then
		tail -n 20 "$LOG" >&2
		die "debootstrap of $SUITE from $MIRROR failed (log: $LOG)"
	fi
	setup_apt "$new"
	if ! in_root "$new" sh -c "apt-get update -q &&
		apt-get install -y -q $PKGS && apt-get clean" >> "$LOG" 2>&1; then
		tail -n 20 "$LOG" >&2
		die "installing the build packages in the chroot failed (log: $LOG)"
	fi
	write_stamp "$new" || die "the chroot has no usable kernel headers or compiler (log: $LOG)"
	rm -rf "$ROOT"
	mv "$new" "$ROOT"
	k=$(stamp_get kver)
	cc=$(stamp_get cc)
	note "ready: headers $k, $cc"
}

setup_apt() {
	local r=$1
	echo "deb $MIRROR $SUITE main" > "$r/etc/apt/sources.list"
	# No recommends (a build chroot); the mirror may serve a snapshot whose
	# Release file is past its Valid-Until date.
	cat > "$r/etc/apt/apt.conf.d/90purlin" <<-EOF
	APT::Install-Recommends "false";
	APT::Install-Suggests "false";
	Acquire::Check-Valid-Until "false";
	Acquire::Languages "none";
	EOF
	# Never start services inside the chroot.
	printf '#!/bin/sh\nexit 101\n' > "$r/usr/sbin/policy-rc.d"
	chmod 755 "$r/usr/sbin/policy-rc.d"
}

write_stamp() {	# write_stamp ROOT: check the result, record it
	local r=$1 k cc have created
	k=$(headers_kver "$r") || return 1
	[ -f "$r/usr/src/linux-headers-$k/Makefile" ] || return 1
	cc=$(kernel_cc "$r" "$k")
	[ -n "$cc" ] || return 1
	have=$(chroot "$r" "${cc%% *}" --version 2> /dev/null | head -n 1) || return 1
	# Keep the first creation date across refreshes.
	created=$(sed -n 's/^created=//p' "$r/.purlin-complete" 2> /dev/null)
	[ -n "$created" ] || created=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	if [ "$have" != "$cc" ]; then
		note "warning: kernel built by '$cc', chroot has '$have'"
	fi
	{
		echo "recipe=$RECIPE"
		echo "kver=$k"
		echo "cc=$cc"
		echo "headers=$(chroot "$r" dpkg-query -W -f '${Version}' "linux-headers-$k")"
		echo "created=$created"
		echo "updated=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	} > "$r/.purlin-complete.tmp"
	mv "$r/.purlin-complete.tmp" "$r/.purlin-complete"
}

ensure() {
	mkdir -p "$(dirname "$ROOT")"
	exec 9> "$LOCK"
	flock -s 9
	if ! healthy; then
		flock -u 9
		flock -x 9
		healthy || create
		flock -s 9
	fi
	stamp_get kver
}

refresh() {
	mkdir -p "$(dirname "$ROOT")"
	exec 9> "$LOCK"
	flock -x 9
	healthy || { create; return; }
	assert_unmounted "$ROOT"
	note "refreshing $ROOT (apt-get update and upgrade; log: $LOG)"
	# An interrupted refresh leaves no stamp: the next ensure rebuilds.
	mv "$STAMP" "$STAMP.old"
	setup_apt "$ROOT"
	if ! in_root "$ROOT" sh -c "apt-get update -q && apt-get install -y -q $PKGS &&
		apt-get dist-upgrade -y -q && apt-get autoremove --purge -y -q &&
		apt-get clean" >> "$LOG" 2>&1; then
		tail -n 20 "$LOG" >&2
		die "refresh failed (log: $LOG); the next run rebuilds the chroot"
	fi
	mv "$STAMP.old" "$STAMP"
	write_stamp "$ROOT" || die "no usable kernel headers after the refresh (log: $LOG)"
	note "ready: headers $(stamp_get kver), $(stamp_get cc)"
}

run() {
	local ovl="" binds="" a
	while [ $# -gt 0 ]; do
		case "$1" in
		-o) ovl=$(realpath -m "$2"); shift 2 ;;
		-b)
			a=$2
			case "$a" in
			*:/*) ;;
			*) die "-b wants HOSTDIR:/DIR, not '$a'" ;;
			esac
			[ -d "${a%%:*}" ] || die "no directory ${a%%:*}"
			case "$a" in *" "*) die "-b: no spaces in '$a'" ;; esac
			binds="$binds $(realpath "${a%%:*}"):${a#*:}"
			shift 2 ;;
		--) shift; break ;;
		*) die "run: unknown option '$1' (usage: run [-o DIR] [-b HOST:DIR]... -- CMD...)" ;;
		esac
	done
	[ $# -gt 0 ] || die "run: no command"
	mkdir -p "$(dirname "$ROOT")"
	exec 9> "$LOCK"
	# An overlay leaves the chroot alone, so runs can share it; a run on the
	# chroot itself changes it and must be alone.
	if [ -n "$ovl" ]; then flock -s 9; else flock -x 9; fi
	healthy || die "no usable chroot at $ROOT (run: $0 ensure)"
	# unshare ignores SIGTERM while it waits: turn TERM/INT/HUP into
	# SIGKILL for it, which --kill-child passes on to the whole namespace.
	local upid rc=0
	$UNSHARE -- "$0" __in-root "$ovl" "$binds" "$ROOT" "$@" 0<&0 &
	upid=$!
	trap 'kill -KILL $upid 2> /dev/null' TERM INT HUP
	wait $upid || rc=$?
	while kill -0 $upid 2> /dev/null; do
		wait $upid || rc=$?
	done
	exit $rc
}

case "${1:-ensure}" in
ensure) ensure ;;
refresh) refresh ;;
info)
	[ -f "$STAMP" ] || die "no chroot at $ROOT"
	echo "path=$ROOT"
	cat "$STAMP" ;;
remove)
	exec 9> "$LOCK"
	flock -x 9
	assert_unmounted "$ROOT"
	rm -rf "$ROOT" "$ROOT.new" ;;
run) shift; run "$@" ;;
__in-root)
	shift
	in_root_inner "$@" ;;
*) die "unknown command '$1' (ensure, refresh, info, remove, run)" ;;
esac
