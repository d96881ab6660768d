#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build purlin.ko for another kernel in build/modules/KVER/ (a copy of the
# sources, as DKMS does), leaving the tree's own build alone.  Prints the
# path of the module.  Any warning with W=1 fails.
#
# usage: build-for.sh KVER KDIR
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
if ! make -C "$dir" KVER="$kver" KDIR="$kdir" module > "$dir/build.log" 2>&1; then
	tail -n 30 "$dir/build.log" >&2
	exit 1
fi
if grep -E 'warning:|WARNING:|error:' "$dir/build.log" >&2; then
	exit 1
fi
echo "$dir/purlin.ko"
