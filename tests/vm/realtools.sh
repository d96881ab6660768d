# SPDX-License-Identifier: GPL-2.0
# Busybox's shell runs its own applets before anything on PATH.  The guest
# has the real kmod and iproute2: shell functions take precedence over
# applets, so route those names to the real programs.
for _t in modprobe insmod rmmod lsmod depmod modinfo; do
	eval "$_t() { /sbin/$_t \"\$@\"; }"
done
ip() { /bin/ip "$@"; }
tc() { /usr/sbin/tc "$@"; }
unset _t
