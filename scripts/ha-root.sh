#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the root file system of the three-guest HA test (tests/vm/ha/run):
# a Debian bookworm tree (debootstrap minbase) with Pacemaker, Corosync,
# crmsh, resource-agents, nvme-cli, fio, rdma-core, iproute2 and kmod, the
# guest kernel's modules added, packed into an ext4 image that every guest
# boots with its own copy-on-write overlay (QEMU snapshot=on).
#
# usage: scripts/ha-root.sh [KVER]      (default: newest in /lib/modules)
# environment: HA_ROOT (default /var/cache/purlin/ha-root), MIRROR
# Output: $HA_ROOT/tree (cached: delete it to rebuild), $HA_ROOT/root-KVER.img
set -euo pipefail

HA_ROOT=${HA_ROOT:-/var/cache/purlin/ha-root}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
KVER=${1:-$(ls -1 /lib/modules | sort -V | tail -n1)}
PKGS="pacemaker,corosync,crmsh,resource-agents,nvme-cli,fio,rdma-core,ibverbs-providers,\
iproute2,kmod,procps,busybox,util-linux,python3,libxml2-utils,jq,psmisc,libnl-genl-3-200,libjson-c5"

die() { echo "ha-root: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, image ownership)"
[ -d "/lib/modules/$KVER/kernel" ] || die "no modules for $KVER"
mkdir -p "$HA_ROOT"
exec 8>"$HA_ROOT/.lock"
flock 8

tree=$HA_ROOT/tree
# The tree is rebuilt when the package list changed.
if [ "$(cat "$tree/.complete" 2>/dev/null)" != "$PKGS" ]; then
	rm -rf "$tree" "$tree.tmp"
	echo "ha-root: debootstrap bookworm into $tree (a few minutes)"
	debootstrap --variant=minbase --include="$PKGS" bookworm "$tree.tmp" "$MIRROR" \
		> "$HA_ROOT/debootstrap.log" 2>&1 ||
		{ tail -n 30 "$HA_ROOT/debootstrap.log" >&2; die "debootstrap failed"; }
	chroot "$tree.tmp" apt-get clean
	rm -rf "$tree.tmp"/var/lib/apt/lists/*
	echo "$PKGS" > "$tree.tmp/.complete"
	mv "$tree.tmp" "$tree"
fi

img=$HA_ROOT/root-$KVER.img
if [ ! -s "$img" ] || [ "$tree/.complete" -nt "$img" ] ||
	[ "/lib/modules/$KVER/modules.dep" -nt "$img" ]; then
	echo "ha-root: packing $img"
	stage=$(mktemp -d "$HA_ROOT/stage.XXXXXX")
	trap 'rm -rf "$stage"' EXIT
	# The image is the tree plus the guest kernel's modules (all of them:
	# the cluster test loads the rdma, nvme, virtio and 9p ones).
	cp -a "$tree/." "$stage/"
	rm -f "$stage/.complete"
	mkdir -p "$stage/lib/modules"
	cp -a "/lib/modules/$KVER" "$stage/lib/modules/"
	rm -f "$stage/lib/modules/$KVER/build" "$stage/lib/modules/$KVER/source"
	mkdir -p "$stage/share" "$stage/lib/modules/$KVER/updates"
	ln -sf /proc/self/fd "$stage/dev/fd" 2>/dev/null || :
	size=$(( $(du -sm "$stage" | cut -f1) * 13 / 10 + 256 ))
	rm -f "$img.tmp"
	mke2fs -q -t ext4 -L ha-root -d "$stage" "$img.tmp" "${size}M"
	mv "$img.tmp" "$img"
fi
echo "$img"
