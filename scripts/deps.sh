#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages the build, the tests and the demo need.
# Idempotent: a fast no-op when everything is present.
#
# usage: deps.sh [debug-kernel | bench]
#   debug-kernel: also what building a kernel from source needs
#   (scripts/debug-kernel.sh, `make check-debug`).
#   bench: also perf, for `make bench BENCH_PERF=1`.
set -eu

PKGS="make gcc libc6-dev pkg-config linux-image-amd64 linux-headers-amd64
qemu-system-x86 busybox-static rdma-core ibverbs-providers ibverbs-utils
rdmacm-utils libibverbs-dev librdmacm-dev nvme-cli fio iproute2 kmod cpio
libnl-3-dev libnl-route-3-dev libnl-genl-3-dev libjson-c-dev libcmocka-dev bash-completion python3
perftest tcpdump dwarves dkms ethtool debhelper dh-dkms gnuplot-nox
debootstrap openssl resource-agents libxml2-utils"

# Building a kernel (scripts/debug-kernel.sh): kconfig, objtool, the
# module signing and certificate tools, the source package's tarball.
DEBUG_KERNEL_PKGS="flex bison bc libssl-dev libelf-dev xz-utils cpio"
case "${1:-}" in
"") ;;
debug-kernel) PKGS="$PKGS $DEBUG_KERNEL_PKGS" ;;
bench) PKGS="$PKGS linux-perf" ;;
*) echo "deps: unknown package set '$1' (known: debug-kernel, bench)" >&2; exit 2 ;;
esac

missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = "installed" ] || missing="$missing $p"
done

if [ -z "$missing" ]; then
	exit 0
fi

echo "deps: installing:$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
