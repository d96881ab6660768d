#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) a debug kernel for the guest tests: Debian bookworm's 6.1
# source (the linux-source-6.1 package) on x86_64_defconfig plus
# scripts/debug-kernel.config (KASAN, lockdep, kmemleak, UBSAN, list/sg/object
# debugging, and the RDMA/NVMe modules the tests load).
#
# The source comes from the binary package linux-source-6.1, fetched with
# `apt-get download` from the bookworm(-security) lists this machine already
# has: no deb-src entries, no dpkg state, and the tarball carries Debian's
# patches already applied.  (`apt-get source linux` needs deb-src lines and
# dpkg-source, and unpacks the whole Debian packaging besides.)
#
# The build is cached outside the tree, keyed by the source package version,
# the configuration fragment, this script's recipe and the compiler:
#   $DEBUG_KERNEL_CACHE/<srcver>-<hash>/linux      built tree (the build dir
#                                                  for out-of-tree modules)
#   $DEBUG_KERNEL_CACHE/<srcver>-<hash>/root       boot/vmlinuz-KVER,
#                                                  lib/modules/KVER (+build)
# and build/kernels/KVER in the tree links to that root, the layout
# tests/vm/run expects from MODROOT.  KVER is 6.1.N-pdbg-<hash>, so a
# changed configuration never shares a release name (or the guest's cached
# base initramfs) with an older one.
#
# usage: scripts/debug-kernel.sh
#   Prints the kernel release on stdout (one line); progress, timings and
#   errors on stderr.
# environment:
#   DEBUG_KERNEL_CACHE   cache directory (default /var/cache/purlin/debug-kernel)
#   DEBUG_KERNEL_SRCVER  linux-source-6.1 version to build (default: apt's
#                        candidate; without apt lists, the newest one cached)
#   DEBUG_KERNEL_JOBS    make -j (default 2); the build runs under nice -n 19
#                        and idle I/O priority
#   DEBUG_KERNEL_KEEP_OBJS=1  keep the object files (default: removed after
#                        the install, the tree stays usable for M= builds)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
fragment=$top/scripts/debug-kernel.config
cache=${DEBUG_KERNEL_CACHE:-/var/cache/purlin/debug-kernel}
jobs=${DEBUG_KERNEL_JOBS:-2}
srcpkg=linux-source-6.1
# Bump when the steps below change in a way that changes the result.
RECIPE=1

log() { echo "debug-kernel: $*" >&2; }
die() { echo "debug-kernel: error: $*" >&2; exit 1; }
now() { date +%s; }

# --- Tools.
missing=""
for t in gcc make flex bison bc xz dpkg-deb apt-get depmod perl; do
	command -v "$t" > /dev/null 2>&1 || missing="$missing $t"
done
[ -e /usr/include/openssl/opensslv.h ] || missing="$missing libssl-dev"
[ -e /usr/include/gelf.h ] || missing="$missing libelf-dev"
[ -z "$missing" ] ||
	die "missing:$missing (run 'scripts/deps.sh debug-kernel')"
[ -r "$fragment" ] || die "no configuration fragment $fragment"
mkdir -p "$cache/debs" || die "cannot create the cache directory $cache"

# --- Source version.
srcver=${DEBUG_KERNEL_SRCVER:-}
if [ -z "$srcver" ]; then
	srcver=$(apt-cache policy "$srcpkg" 2>/dev/null |
		sed -n 's/^ *Candidate: *//p' | grep -v '(none)' || true)
fi
if [ -z "$srcver" ]; then
	# No apt lists: the newest source already downloaded.
	srcver=$(ls "$cache/debs" 2>/dev/null |
		sed -n "s/^${srcpkg}_\(.*\)_all\.deb\$/\1/p" | sort -V | tail -n1)
	[ -n "$srcver" ] ||
		die "apt knows no $srcpkg and none is cached (run 'apt-get update')"
	log "apt knows no $srcpkg; using the cached $srcver"
fi

# --- Cache key and kernel release.
gccver=$(gcc -dumpfullversion)
hash=$( { echo "recipe $RECIPE"; echo "gcc $gccver"; echo "base x86_64_defconfig";
	cat "$fragment"; } | sha256sum | cut -c1-8)
key=$srcver-$hash
dir=$cache/$key
tree=$dir/linux
root=$dir/root

# One build per key at a time; a second caller waits and then reuses it.
exec 8> "$cache/$key.lock"
if ! flock -n 8; then
	log "waiting for another build of $key"
	flock 8
fi

link_root() {	# link_root KVER: build/kernels/KVER -> the cached root
	mkdir -p "$top/build/kernels"
	ln -sfn "$root" "$top/build/kernels/$1"
}

if [ -e "$dir/.complete" ]; then
	kver=$(cat "$dir/kver")
	[ -r "$root/boot/vmlinuz-$kver" ] && [ -d "$tree" ] ||
		die "cache entry $dir is damaged (remove it to rebuild)"
	link_root "$kver"
	log "reusing $kver ($dir; built $(cat "$dir/timings" 2>/dev/null || echo '?'))"
	echo "$kver"
	exit 0
fi

t0=$(now)
log "building $srcpkg $srcver with $(basename "$fragment") (key $key)"
log "cache: $dir"
rm -rf "$dir"
mkdir -p "$dir"

# --- Fetch and unpack.
deb=$cache/debs/${srcpkg}_${srcver}_all.deb
if [ ! -s "$deb" ]; then
	dl=$(mktemp -d "$cache/debs/dl.XXXXXX")
	# apt downloads as _apt where it can; let it write there.
	chmod 755 "$dl"
	chown _apt "$dl" 2> /dev/null || true
	if ! (cd "$dl" && apt-get download -q "$srcpkg=$srcver") > "$dir/fetch.log" 2>&1; then
		cat "$dir/fetch.log" >&2
		rm -rf "$dl"
		die "cannot download $srcpkg=$srcver"
	fi
	mv "$dl"/"${srcpkg}"_*_all.deb "$deb"
	rm -rf "$dl"
fi
mkdir -p "$dir/unpack"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir/unpack" "./usr/src/$srcpkg.tar.xz" ||
	die "no /usr/src/$srcpkg.tar.xz in $deb"
tar -xJf "$dir/unpack/usr/src/$srcpkg.tar.xz" -C "$dir"
rm -rf "$dir/unpack"
mv "$dir/$srcpkg" "$tree" || die "unexpected layout in $srcpkg.tar.xz"
t1=$(now)

# --- Configure: defconfig + fragment + the release name; every fragment
# line must survive into .config.
mk() { nice -n 19 ionice -c 3 make -C "$tree" "$@"; }
export KBUILD_BUILD_USER=purlin KBUILD_BUILD_HOST=debug-kernel
export KBUILD_BUILD_TIMESTAMP="Debian $srcpkg $srcver"
printf '# purlin debug kernel %s\nCONFIG_LOCALVERSION="-pdbg-%s"\n' "$key" "$hash" \
	> "$dir/localversion.config"
{
	mk -s x86_64_defconfig &&
	(cd "$tree" && scripts/kconfig/merge_config.sh -m .config "$fragment" \
		"$dir/localversion.config") &&
	mk -s olddefconfig
} > "$dir/config.log" 2>&1 || { tail -n 30 "$dir/config.log" >&2; die "configuration failed"; }
bad=""
while read -r line; do
	case "$line" in
	"# CONFIG_"*" is not set") opt=${line#\# }; opt=${opt%% *}; want=n ;;
	CONFIG_*=*) opt=${line%%=*}; want=${line#*=} ;;
	*) continue ;;
	esac
	got=$(sed -n "s/^$opt=//p" "$tree/.config")
	[ -n "$got" ] || got=n
	[ "$got" = "$want" ] || bad="$bad $opt=$got(want $want)"
done < "$fragment"
[ -z "$bad" ] || die "Kconfig did not take these fragment options:$bad"
t2=$(now)

# --- Compile.
log "compiling (make -j$jobs, nice 19; log: $dir/build.log)"
if ! mk -j"$jobs" all > "$dir/build.log" 2>&1; then
	grep -E 'error|Error' "$dir/build.log" | head -n 20 >&2
	tail -n 20 "$dir/build.log" >&2
	die "kernel build failed (see $dir/build.log)"
fi
kver=$(cat "$tree/include/config/kernel.release")
case "$kver" in
*-pdbg-"$hash") ;;
*) die "unexpected kernel release '$kver'" ;;
esac
t3=$(now)

# --- Install into the private root.
mkdir -p "$root/boot"
if ! mk INSTALL_MOD_PATH="$root" DEPMOD=/sbin/depmod modules_install \
	> "$dir/install.log" 2>&1; then
	tail -n 20 "$dir/install.log" >&2
	die "modules_install failed"
fi
cp "$tree/arch/x86/boot/bzImage" "$root/boot/vmlinuz-$kver"
cp "$tree/.config" "$root/boot/config-$kver"
cp "$tree/System.map" "$root/boot/System.map-$kver"
ln -sfn "$tree" "$root/lib/modules/$kver/build"
rm -f "$root/lib/modules/$kver/source"
depmod -b "$root" "$kver"
# Object files are not needed to build external modules (vmlinux,
# Module.symvers, the generated headers and the host tools are): drop them
# unless asked to keep them.
if [ "${DEBUG_KERNEL_KEEP_OBJS:-0}" != 1 ]; then
	find "$tree" \( -name '*.o' -o -name '*.ko' -o -name '.*.o.cmd' \) \
		-not -path "$tree/scripts/*" -not -path "$tree/tools/*" -delete
fi
t4=$(now)

echo "$kver" > "$dir/kver"
timings="fetch+unpack $((t1 - t0))s, configure $((t2 - t1))s, compile $((t3 - t2))s, install $((t4 - t3))s, total $((t4 - t0))s"
echo "$timings" > "$dir/timings"
touch "$dir/.complete"
link_root "$kver"
log "built $kver: $timings"
du -sh "$dir" 2> /dev/null | sed 's/^/debug-kernel: cache size /' >&2
# Older entries stay (another checkout may still use one): name them.
for old in "$cache"/*/.complete; do
	old=${old%/.complete}
	[ "$old" = "$dir" ] || [ ! -d "$old" ] ||
		log "older build, remove it when unused: $old ($(du -sh "$old" 2> /dev/null | cut -f1))"
done
echo "$kver"
