#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build purlin.ko for another kernel in build/modules/KVER/ (a copy of the
# sources, as DKMS does), leaving the tree's own build alone.  Prints the
# path of the module.  Any warning with W=1 fails.
#
# usage: build-for.sh KVER KDIR     (KDIR unused for a kernel from the sid
#                                  chroot: see kernel-fetch.sh)
set -eu

kver=$1
kdir=$2
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/build/modules/$kver

mkdir -p "$dir/drivers" "$dir/scripts/compat"
cp "$top/Makefile" "$top/Kbuild" "$top/VERSION" "$dir/"
for f in "$top"/drivers/*.c "$top"/drivers/*.h; do
	[ "$(basename "$f")" = compat-probed.h ] && continue
	cmp -s "$f" "$dir/drivers/$(basename "$f")" || cp "$f" "$dir/drivers/"
done
cp "$top/scripts/compat-probe.sh" "$dir/scripts/"
cp "$top"/scripts/compat/*.c "$dir/scripts/compat/"
# A kernel fetched from the sid chroot (kernel-fetch.sh marks its root
# .sid) is built there, with its own compiler and the chroot's headers.
if [ -e "$top/build/kernels/$kver/.sid" ]; then
	set -- "$top/scripts/sid-chroot.sh" run -b "$dir:/src" -- \
		make -C /src KVER="$kver" KDIR="/usr/src/linux-headers-$kver" module
else
	set -- make -C "$dir" KVER="$kver" KDIR="$kdir" module
fi
if ! "$@" > "$dir/build.log" 2>&1; then
	tail -n 30 "$dir/build.log" >&2
	exit 1
fi
if grep -E 'warning:|WARNING:|error:' "$dir/build.log" >&2; then
	exit 1
fi
echo "$dir/purlin.ko"
