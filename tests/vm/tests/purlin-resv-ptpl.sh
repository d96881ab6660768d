# SPDX-License-Identifier: GPL-2.0
# Persist Through Power Loss to disk (resv_file), with the stock host and
# nvme-cli: resv_file's bad values refused; with PTPL 0 nothing is written;
# Register with CPTPL=3 writes the file (the state resv_state shows) before
# it completes, and every later change follows; Set Features 83h to 0
# writes ptpl=0, after which changes are not written, and back to 1 writes
# the state again; disable, wipe the state, enable: the PTPL=1 reservation
# comes back (Reservation Report from the host, the access rules hold); a
# simulated power loss (configuration removed, module unloaded, rebuilt
# with the same file) restores it too; a ptpl=0 file is not resurrected; a
# malformed, oversized or unreadable file fails the enable with a reason in
# the kernel log and changes nothing; with the file in a missing directory
# or on a read-only file system, or with a FIFO at PATH.tmp, every change
# fails with Internal Error (DNR) and changes neither the state nor the
# file; a FIFO as the file fails the enable; a resv_file that is the
# namespace's own backing file, or whose .tmp is (by name or a hard link),
# is refused, and so is a hard link to it made at PATH.tmp later.
# timeout: 300

NQN=nqn.2026-12.io.purlin.test:ptpl
S=$PURLIN_CFS/subsystems/$NQN
N=$S/namespaces/1
# ID_A, HOST_A, ID_B, HOST_B, CONFLICT; ctrl_of_host, connect_as, report,
# reg_field, hostid_at, rd, wr ...
. /tests/resv-lib.sh
# Internal Error with DNR: the file could not be written
WRITE_ERR=0x4006
EMPTY="generation=0 type=0 ptpl=0"

brd_create 16
mke2fs -q /dev/ram0 > /dev/null
mkdir -p /mnt/ptpl /mnt/ptplro
mount -t ext2 /dev/ram0 /mnt/ptpl
D=/mnt/ptpl/resv
mkdir $D
F=$D/ns1
dev=$(nullblk_create ptplnb 16 1)

# build: the subsystem, namespace 1 with reservations and resv_file FILE
# (if given), enabled, on two ports.
build() {
	purlin_subsys $NQN
	mkdir $N
	echo $dev > $N/device_path
	echo 1 > $N/resv_enable
	[ -z "${1:-}" ] || echo "$1" > $N/resv_file
	echo 1 > $N/enable
	purlin_port 1 4420
	purlin_port 2 4421
	purlin_link 1 $NQN
	purlin_link 2 $NQN
}

connect() {
	connect_as $HOST_A $ID_A 4420
	connect_as $HOST_B $ID_B 4421
	A=$(ctrl_of_host $HOST_A)
	B=$(ctrl_of_host $HOST_B)
	wait_for "nvme id-ns $A -n 1 > /dev/null 2>&1 && nvme id-ns $B -n 1 > /dev/null 2>&1"
}
disconnect() {
	nvme disconnect -n $NQN > /dev/null
	wait_for "! ctrl_of_host $HOST_A && ! ctrl_of_host $HOST_B"
}

head -c 512 /dev/urandom > blk.bin
# ptpl_feature CTRL: Get Features 83h's value, in decimal
ptpl_feature() {
	local v
	nvme get-feature $1 -n 1 -f 0x83 > feat.txt || fail "get-feature 0x83"
	# nvme-cli prints %#0*x: "0x00000001", but "00000000" for 0
	v=$(sed -n 's/.*value: *\(0x\)\{0,1\}\([0-9a-fA-F][0-9a-fA-F]*\).*/\2/p' feat.txt)
	[ -n "$v" ] || { cat feat.txt; fail "get-feature 0x83: no value"; }
	printf '%d\n' "0x$v"
}
# same_as_file: the file holds exactly the state resv_state shows
same_as_file() {
	cmp -s $N/resv_state $F || {
		echo "state:"; cat $N/resv_state; echo "file:"; cat $F 2>&1
		fail "$ctx: the file is not the state"
	}
}
# held: A holds Exclusive Access, B is registered, PTPLS 1 (the state
# saved in expect.txt), seen by the host and enforced
held() {
	cmp -s expect.txt $N/resv_state || {
		cat $N/resv_state; fail "$ctx: state not the one saved"
	}
	report $A
	[ "$(u rep.bin 4 1)" = 2 ] && [ "$(u rep.bin 5 2)" = 2 ] &&
		[ "$(u rep.bin 9 1)" = 1 ] || fail "$ctx: report: rtype $(u rep.bin 4 1) regctl $(u rep.bin 5 2) ptpls $(u rep.bin 9 1)"
	[ "$(hostid_at 0)" = $ID_A ] && [ "$(reg_field 0 2 1)" = 1 ] &&
		[ "$(reg_field 0 8 4)" = 10 ] || fail "$ctx: A is not the holder with key 0xa"
	[ "$(hostid_at 1)" = $ID_B ] && [ "$(reg_field 1 2 1)" = 0 ] &&
		[ "$(reg_field 1 8 4)" = 187 ] || fail "$ctx: B is not registered with key 0xbb"
	rd $A || fail "$ctx: read by the holder"
	wr $A || fail "$ctx: write by the holder"
	expect_status $CONFLICT rd $B
	[ "$(ptpl_feature $A)" = 1 ] || { cat feat.txt; fail "$ctx: PTPL feature not 1"; }
}

# ---- resv_file: values ---------------------------------------------------
purlin_subsys $NQN
mkdir $N
echo $dev > $N/device_path
[ -z "$(cat $N/resv_file)" ] || fail "resv_file not empty by default"
for bad in relative/ns1 $D/ $D/. $D/.. / $dev; do
	expect_fail sh -c "echo '$bad' > $N/resv_file"
	[ -z "$(cat $N/resv_file)" ] || fail "bad resv_file '$bad' was taken"
done
expect_fail sh -c "printf '$F\n$F\n' > $N/resv_file"
echo $F > $N/resv_file
[ "$(cat $N/resv_file)" = $F ] || fail "resv_file reads $(cat $N/resv_file)"
echo > $N/resv_file
[ -z "$(cat $N/resv_file)" ] || fail "resv_file not cleared"
rmdir $N
rmdir $S
rmmod purlin

# refused NAME TEXT CHECK WHAT: enabling fails, with TEXT in the kernel log,
# and CHECK (a command) still holds, else WHAT changed
refused() {
	kmark "no-$1"
	expect_fail sh -c "echo 1 > $N/enable"
	[ "$(cat $N/enable)" = 0 ] || fail "$1: enabled"
	since_mark "no-$1" | grep -q "$2" ||
		{ since_mark "no-$1"; fail "$1: no reason in the kernel log"; }
	eval "$3" || fail "$1: $4"
}

# ---- resv_file against the namespace's own data ---------------------------
# A state write truncates "<file>.tmp" and renames it over <file>: neither
# may be the namespace's backing file, by its name (resv_file set before
# or after device_path) or by another (a hard link); the data stays as it
# was.
IMG=/mnt/ptpl/img.tmp
head -c 1048576 /dev/urandom > $IMG
sum0=$(md5sum < $IMG)
purlin_subsys $NQN
mkdir $N
echo $IMG > $N/device_path
echo 1 > $N/resv_enable
expect_fail sh -c "echo /mnt/ptpl/img > $N/resv_file"
[ -z "$(cat $N/resv_file)" ] || fail "resv_file whose .tmp is device_path was taken"
# selfdata NAME: enable refused, with the reason, the data untouched
selfdata() {
	refused "$1" "(or its .tmp) is the namespace's own data $IMG; not enabled" \
		'[ "$(md5sum < $IMG)" = "$sum0" ]' "the namespace's data changed"
}
echo $dev > $N/device_path
echo /mnt/ptpl/img > $N/resv_file
echo $IMG > $N/device_path
selfdata "device_path set after resv_file"
ln $IMG $D/link.tmp
echo $D/link > $N/resv_file
selfdata "a hard link at resv_file.tmp"
rm $D/link.tmp
ln $IMG $D/link
selfdata "a hard link at resv_file"
rm $D/link
echo $D/imgstate > $N/resv_file
echo 1 > $N/enable || fail "file back end with its own resv_file not enabled"
# a hard link to the data made at resv_file.tmp after the enable: the
# write refuses it (Internal Error), the data stays as it was
ln $IMG $D/imgstate.tmp
purlin_port 1 4420
purlin_port 2 4421
purlin_link 1 $NQN
purlin_link 2 $NQN
connect
expect_status $WRITE_ERR nvme resv-register $A -n 1 --nrkey=0xa --rrega=0 --cptpl=3
[ "$(md5sum < $IMG)" = "$sum0" ] || fail "a state write changed the namespace's data"
[ ! -e $D/imgstate ] || fail "a refused write left $D/imgstate"
disconnect
purlin_clear
rm $IMG $D/imgstate.tmp

build $F
# set only while the namespace is disabled
expect_fail sh -c "echo $F.other > $N/resv_file"
[ "$(cat $N/resv_file)" = $F ] || fail "resv_file changed while enabled"
connect
log "host A: $A, host B: $B"

# ---- PTPL 0: nothing written ---------------------------------------------
ctx=ptpl0
register $A --nrkey=0xa --rrega=0 || fail "register A"
acquire $A --crkey=0xa --rtype=2 --racqa=0 || fail "acquire EA by A"
[ ! -e $F ] || { cat $F; fail "PTPL 0: the state was written"; }
[ "$(ptpl_feature $A)" = 0 ] || { cat feat.txt; fail "PTPL feature not 0"; }

# ---- Register CPTPL=3: written, every change follows -----------------------
ctx=cptpl
register $B --nrkey=0xb --rrega=0 --cptpl=3 || fail "register B, CPTPL=3"
[ -f $F ] || fail "Register with CPTPL=3 did not write $F"
same_as_file
[ "$(sed -n 1p $F)" = "generation=2 type=2 ptpl=1" ] || fail "file header: $(sed -n 1p $F)"
[ ! -e $F.tmp ] || fail "$F.tmp left behind"
register $B --crkey=0xb --nrkey=0xbb --rrega=2 || fail "replace B's key"
same_as_file
grep -qx "registrant hostid=$ID_B rkey=0x00000000000000bb holder=0" $F ||
	fail "B's new key not in the file"
release $A --crkey=0xa --rtype=2 --rrela=0 || fail "release"
same_as_file
acquire $A --crkey=0xa --rtype=2 --racqa=0 || fail "acquire EA by A again"
same_as_file

# ---- Set Features 83h ------------------------------------------------------
ctx=setfeat
nvme set-feature $A -n 1 -f 0x83 -v 0 > /dev/null || fail "set PTPL 0"
same_as_file
[ "$(sed -n 1p $F)" = "$(sed -n 1p $N/resv_state)" ] && grep -q "ptpl=0" $F ||
	fail "PTPL 0: the file does not say ptpl=0"
cp $F ptpl0.txt
register $A --nrkey=0xa --rrega=0 || fail "register A again (generation)"
cmp -s ptpl0.txt $F || fail "PTPL 0: a change was written"
cmp -s $F $N/resv_state && fail "PTPL 0: the state did not change"
nvme set-feature $A -n 1 -f 0x83 -v 1 > /dev/null || fail "set PTPL 1"
same_as_file
grep -q "ptpl=1" $F || fail "PTPL 1: the file does not say ptpl=1"
cp $N/resv_state expect.txt
held

# ---- disable, wipe, enable: back from the file -----------------------------
ctx=reenable
disconnect
echo 0 > $N/enable
echo "$EMPTY" > $N/resv_state
[ "$(cat $N/resv_state)" = "$EMPTY" ] || fail "state not wiped"
kmark reenable
echo 1 > $N/enable || fail "enable with the file"
since_mark reenable | grep -q "reservation state loaded from $F (2 registrants)" ||
	fail "no load message"
connect
held

# ---- power loss: configuration and module gone, rebuilt with the file -------
ctx=powerloss
disconnect
purlin_clear
build $F
connect
held

# ---- a ptpl=0 file is not resurrected ---------------------------------------
ctx=ptpl0-file
nvme set-feature $A -n 1 -f 0x83 -v 0 > /dev/null || fail "set PTPL 0"
grep -q "ptpl=0" $F || fail "the file does not say ptpl=0"
disconnect
purlin_clear
kmark noload
build $F
since_mark noload | grep -q "resv_file $F holds ptpl=0: not loaded" || fail "no ptpl=0 message"
[ "$(cat $N/resv_state)" = "$EMPTY" ] || { cat $N/resv_state; fail "a ptpl=0 state came back"; }
connect
report $A
[ "$(u rep.bin 5 2)" = 0 ] || fail "the host sees registrations after a ptpl=0 power loss"

# ---- bad files at enable: refused, nothing changes -------------------------
ctx=badfile
register $A --nrkey=0xa --rrega=0 --cptpl=3 || fail "register A, CPTPL=3"
same_as_file
cp $F good.txt
cp $N/resv_state before.txt
disconnect
echo 0 > $N/enable
# badfile NAME REASON: writing NAME's content ($F already holds it) makes
# enable fail, REASON in the kernel log, the state untouched
badfile() {
	refused "$1" "namespace 1: resv_file $F: $2" \
		"cmp -s before.txt $N/resv_state" "the state changed"
}
echo garbage > $F
badfile garbage "not a well-formed reservation state"
printf 'generation=1 type=2 ptpl=1\nregistrant hostid=%s rkey=0x000000000000000a holder=0\n' $ID_A > $F
badfile noholder "not a well-formed reservation state"
: > $F
badfile empty "not a well-formed reservation state"
{ cat good.txt; head -c 5000 /dev/zero | tr '\0' x; } > $F
badfile big "cannot read (-27), larger than a state can be"
rm $F
mkdir $F
badfile directory "cannot read (-22)"
rmdir $F
# no file at all: enabled, the state kept as it is
kmark nofile
echo 1 > $N/enable || fail "enable without the file"
since_mark nofile | grep -q "resv_file $F does not exist yet" || fail "no message for a missing file"
cmp -s before.txt $N/resv_state || fail "a missing file changed the state"
echo 0 > $N/enable
cp good.txt $F
echo 1 > $N/enable || fail "enable with the good file again"
cmp -s good.txt $N/resv_state || fail "the good file did not load"

# ---- write errors: the command fails, nothing changes ----------------------
# wfail CTX: every kind of change fails with WRITE_ERR; state and file (if
# any) as they were
wfail() {
	ctx=$1
	cp $N/resv_state st0.txt
	[ ! -e "$W" ] || cp "$W" wf0.txt
	expect_status $WRITE_ERR nvme resv-register $B -n 1 --nrkey=0xb --rrega=0
	expect_status $WRITE_ERR nvme resv-register $A -n 1 --crkey=0xa --nrkey=0xc --rrega=2
	expect_status $WRITE_ERR nvme resv-acquire $A -n 1 --crkey=0xa --rtype=1 --racqa=0
	expect_status $WRITE_ERR nvme resv-register $A -n 1 --crkey=0xa --rrega=1
	expect_status $WRITE_ERR nvme resv-release $A -n 1 --crkey=0xa --rrela=1
	expect_status $WRITE_ERR nvme set-feature $A -n 1 -f 0x83 -v 0
	[ "$(ptpl_feature $A)" = 1 ] || fail "$ctx: PTPL changed by a failed Set Features"
	cmp -s st0.txt $N/resv_state || { cat $N/resv_state; fail "$ctx: the state changed"; }
	[ ! -e "$W" ] || cmp -s wf0.txt "$W" || fail "$ctx: the file changed"
	report $A
	[ "$(u rep.bin 5 2)" = 1 ] && [ "$(u rep.bin 4 1)" = 0 ] ||
		fail "$ctx: the host sees a change"
	rd $B || fail "$ctx: a failed acquire still holds"
	since_mark "$ctx" | grep -q "resv_file $W: write failed" || fail "$ctx: no kernel log line"
}
disconnect
echo 0 > $N/enable
W=/mnt/ptpl/missing/ns1
echo $W > $N/resv_file
echo 1 > $N/enable
connect
kmark missing-dir
wfail missing-dir
disconnect
echo 0 > $N/enable
mount -t tmpfs -o size=1m tmpfs /mnt/ptplro
W=/mnt/ptplro/ns1
cp $F $W
mount -o remount,ro /mnt/ptplro
echo $W > $N/resv_file
echo 1 > $N/enable || fail "enable with the file on a read-only file system"
connect
kmark read-only
wfail read-only
# a FIFO at PATH or PATH.tmp: refused at once, never waited on
disconnect
echo 0 > $N/enable
W=$D/fifo
mkfifo $W
echo $W > $N/resv_file
expect_fail sh -c "echo 1 > $N/enable"
[ "$(cat $N/enable)" = 0 ] || fail "enabled with a FIFO as resv_file"
rm $W
cp $F $W
mkfifo $W.tmp
echo 1 > $N/enable || fail "enable with a FIFO at $W.tmp"
connect
# the write-failed lines are pr_err_ratelimited (10 in 5 s): the two cases
# above tried 12
sleep 6
kmark fifo
wfail fifo
rm $W.tmp
# the original file, still good, takes changes again
disconnect
echo 0 > $N/enable
echo $F > $N/resv_file
echo 1 > $N/enable
connect
ctx=recovered
register $B --nrkey=0xb --rrega=0 || fail "register B"
same_as_file

disconnect
umount /mnt/ptplro
purlin_clear
umount /mnt/ptpl
nullblk_destroy ptplnb
rmmod brd
