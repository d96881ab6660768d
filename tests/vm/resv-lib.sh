# SPDX-License-Identifier: GPL-2.0
# Helpers of the reservation tests (purlin-resv, purlin-resv-ptpl), sourced
# after lib.sh: two host identities on subsystem $NQN, namespace 1, each
# command through one controller's character device.  They replace lib.sh's
# ctrl_of_host and report in those tests.

# The two host identities (host ID, host NQN) and Reservation Conflict.
ID_A=6a0d3a3e-8f1c-4c55-9d2b-5c1c9d6b1a0a
ID_B=6a0d3a3e-8f1c-4c55-9d2b-5c1c9d6b1b0b
HOST_A=nqn.2014-08.org.nvmexpress:uuid:$ID_A
HOST_B=nqn.2014-08.org.nvmexpress:uuid:$ID_B
CONFLICT=0x4083

# ctrl_of_host HOSTNQN: the host's live controller (/dev/nvmeX) for NQN.
ctrl_of_host() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat $c/subsysnqn 2>/dev/null)" = $NQN ] || continue
		[ "$(cat $c/hostnqn)" = "$1" ] || continue
		[ "$(cat $c/state)" = live ] || continue
		echo /dev/$(basename $c)
		return 0
	done
	return 1
}

# connect_as HOSTNQN HOSTID SVC (a second connection to the same address
# and subsystem needs another port: nvme-cli takes it for a duplicate).
connect_as() {
	nvme connect -t rdma -a $TRADDR -s $3 -n $NQN --hostnqn=$1 \
		--hostid=$2 --nr-io-queues=1 > /dev/null
	wait_for "ctrl_of_host $1" 100
}

# u FILE OFF SIZE: unsigned little-endian field of a binary file
u() { od -An -t u$3 -j $2 -N $3 "$1" | tr -d ' '; }
# report CTRL: Reservation Report (extended) into rep.bin
report() { nvme resv-report $1 -n 1 -e -d 63 -o binary > rep.bin; }
# reg_field I OFF SIZE: field of registered controller entry I of rep.bin
reg_field() { u rep.bin $((64 + $1 * 64 + $2)) $3; }
# hostid_at I: the host ID of entry I, as a UUID
hostid_at() {
	od -An -t x1 -j $((64 + $1 * 64 + 16)) -N 16 rep.bin | tr -d ' \n' |
		sed 's/\(........\)\(....\)\(....\)\(....\)\(.*\)/\1-\2-\3-\4-\5/'
}
register() { nvme resv-register $1 -n 1 "${@:2}" > /dev/null; }
acquire() { nvme resv-acquire $1 -n 1 "${@:2}" > /dev/null; }
release() { nvme resv-release $1 -n 1 "${@:2}" > /dev/null; }
# rd/wr CTRL: read/write LBA 0 through CTRL (nvme-cli's status on stderr)
rd() { nvme io-passthru $1 -n 1 --opcode=0x02 -l 512 -r --cdw12=0 -b > /dev/null; }
wr() {
	[ -s blk.bin ] || head -c 512 /dev/urandom > blk.bin
	nvme io-passthru $1 -n 1 --opcode=0x01 -l 512 -w -i blk.bin --cdw12=0 > /dev/null
}
