#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Fetch a Debian kernel series (image, headers, kbuild) into a private root
# under build/kernels/, without installing it on this machine, and make its
# headers usable from there.  Prints the kernel release on stdout.
#
# usage: kernel-fetch.sh SERIES      (e.g. 6.12, 7.2, or sid: the newest)
#   the newest linux-image-SERIES.N+debNN-amd64-unsigned apt knows wins.
#   A series this machine's apt does not know (sid's) comes from the sid
#   chroot (scripts/sid-chroot.sh): the image whose headers the chroot has,
#   since only the chroot's compiler can build for it (sid splits the image
#   into linux-binary-unsigned-, linux-modules- and linux-base- packages).  Its root then holds
#   the image alone, marked .sid: scripts/build-for.sh builds in the chroot.
set -eu

series=$1
top=$(cd "$(dirname "$0")/.." && pwd)

case "$series" in
sid) ;;
*[!0-9.]* | "" | .* | *.) echo "kernel-fetch: '$series' is not a kernel series (e.g. 6.12, or sid)" >&2; exit 1 ;;
esac

# done_or_fresh ROOT KVER: true (KVER printed) when ROOT was fetched before;
# otherwise false, with ROOT and ROOT.debs made empty for a fetch.
done_or_fresh() {
	if [ -e "$1/.complete" ]; then
		echo "$2"
		return 0
	fi
	rm -rf "$1" "$1.debs"
	mkdir -p "$1" "$1.debs"
	return 1
}

# unpack ROOT: the packages downloaded into ROOT.debs, unpacked into ROOT.
unpack() {
	local d
	for d in "$1.debs"/*.deb; do
		dpkg -x "$d" "$1" || return 1
	done
	rm -rf "$1.debs"
}

# fetch_sid: the chroot's kernel, if it is of this series.
fetch_sid() {
	local skver root
	skver=$("$top/scripts/sid-chroot.sh" ensure) || return 1
	case "$series:$skver" in
	sid:* | "$series:$series".*) ;;
	*) echo "kernel-fetch: no Debian $series kernel (the sid chroot has $skver)" >&2; return 1 ;;
	esac
	root=$top/build/kernels/$skver
	! done_or_fresh "$root" "$skver" || return 0
	"$top/scripts/sid-chroot.sh" run -b "$root.debs:/debs" -- \
		/bin/sh -c "cd /debs && apt-get download -q linux-binary-unsigned-$skver linux-modules-$skver linux-base-$skver" >&2 || {
		echo "kernel-fetch: downloading the $skver image in the sid chroot failed" >&2
		return 1
	}
	unpack "$root" || return 1
	# sid installs under /usr (merged /usr): give the root the layout the
	# guest harness reads, /boot/vmlinuz-KVER and /lib/modules/KVER.
	[ -r "$root/usr/lib/modules/$skver/vmlinuz.unsigned" ] || {
		echo "kernel-fetch: no vmlinuz.unsigned in the $skver packages" >&2
		return 1
	}
	ln -s usr/lib "$root/lib" && mkdir -p "$root/boot" &&
		ln -s "../usr/lib/modules/$skver/vmlinuz.unsigned" "$root/boot/vmlinuz-$skver" &&
		depmod -b "$root" "$skver" &&
		touch "$root/.sid" "$root/.complete" || return 1
	echo "$skver"
}

[ "$series" != sid ] || { fetch_sid; exit; }
kver=$(apt-cache search --names-only "^linux-image-$series\.[0-9]+\+deb[0-9]+-amd64-unsigned\$" |
	awk '{ print $1 }' | sed 's/^linux-image-//; s/-unsigned$//' | sort -V |
	while read -r v; do
		apt-cache show "linux-headers-$v" > /dev/null 2>&1 && echo "$v"
	done | tail -n 1)
if [ -z "$kver" ]; then
	fetch_sid && exit 0
	echo "kernel-fetch: no Debian $series kernel with headers in apt's lists (apt-get update?)" >&2
	exit 1
fi
ver=${kver%-amd64}			# 6.12.113+deb12
root=$top/build/kernels/$kver
! done_or_fresh "$root" "$kver" || exit 0
(cd "$root.debs" && apt-get download -q "linux-image-$kver-unsigned" \
	"linux-headers-$kver" "linux-headers-$ver-common" "linux-kbuild-$ver") \
	>&2 2>/dev/null || {
	echo "kernel-fetch: downloading $kver failed" >&2
	exit 1
}
unpack "$root"

# The headers refer to themselves by absolute /usr/src paths.
sed -i "s|^include /usr/src/|include $root/usr/src/|" \
	"$root/usr/src/linux-headers-$kver/Makefile"
ln -sfn "$root/usr/src/linux-headers-$kver" "$root/lib/modules/$kver/build"
# The package's postinst would have run depmod.
depmod -b "$root" "$kver"
touch "$root/.complete"
echo "$kver"
