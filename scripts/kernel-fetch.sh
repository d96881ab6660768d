#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Fetch a Debian kernel series (image, headers, kbuild) into a private root
# under build/kernels/, without installing it on this machine, and make its
# headers usable from there.  Prints the kernel release on stdout.
#
# usage: kernel-fetch.sh SERIES      (e.g. 6.12)
#   the newest linux-image-SERIES.N+debNN-amd64-unsigned apt knows wins.
set -eu

series=$1
top=$(cd "$(dirname "$0")/.." && pwd)

kver=$(apt-cache search --names-only "^linux-image-$series\.[0-9]+\+deb[0-9]+-amd64-unsigned\$" |
	awk '{ print $1 }' | sed 's/^linux-image-//; s/-unsigned$//' | sort -V |
	while read -r v; do
		apt-cache show "linux-headers-$v" > /dev/null 2>&1 && echo "$v"
	done | tail -n 1)
if [ -z "$kver" ]; then
	echo "kernel-fetch: no Debian $series kernel with headers in apt's lists (apt-get update?)" >&2
	exit 1
fi
ver=${kver%-amd64}			# 6.12.113+deb12
root=$top/build/kernels/$kver
if [ -e "$root/.complete" ]; then
	echo "$kver"
	exit 0
fi

rm -rf "$root" "$root.debs"
mkdir -p "$root" "$root.debs"
(cd "$root.debs" && apt-get download -q "linux-image-$kver-unsigned" \
	"linux-headers-$kver" "linux-headers-$ver-common" "linux-kbuild-$ver") \
	>&2 2>/dev/null || {
	echo "kernel-fetch: downloading $kver failed" >&2
	exit 1
}
for d in "$root.debs"/*.deb; do
	dpkg -x "$d" "$root"
done
rm -rf "$root.debs"

# The headers refer to themselves by absolute /usr/src paths.
sed -i "s|^include /usr/src/|include $root/usr/src/|" \
	"$root/usr/src/linux-headers-$kver/Makefile"
ln -sfn "$root/usr/src/linux-headers-$kver" "$root/lib/modules/$kver/build"
# The package's postinst would have run depmod.
depmod -b "$root" "$kver"
touch "$root/.complete"
echo "$kver"
