# SPDX-License-Identifier: GPL-2.0
# configfs ABI: invalid writes, mkdirs and links fail with the errno
# Documentation/configfs.md names and change nothing; every value shown can
# be written back; listener bind errors reach ln(1) with their errno.
# timeout: 120

NQN=nqn.2026-11.io.purlin.test:cfs
S=$PURLIN_CFS/subsystems/$NQN
P=$PURLIN_CFS/ports/1
brd_create 16

# errtext ERRNO: the text the shell prints for that errno.
errtext() {
	case "$1" in
	EINVAL) echo "Invalid argument" ;;
	EBUSY) echo "Device or resource busy" ;;
	EACCES) echo "Permission denied" ;;
	EPERM) echo "Operation not permitted" ;;
	ENOENT) echo "No such file or directory" ;;
	EEXIST) echo "File exists" ;;
	ENODEV) echo "No such device" ;;
	EADDRNOTAVAIL) echo "Cannot assign requested address" ;;
	EADDRINUSE) echo "Address already in use" ;;
	*) fail "errtext: unknown errno $1" ;;
	esac
}

# has_errno ERRNO FILE WHAT: FILE (a failed command's stderr) names ERRNO.
has_errno() {
	grep -q "$(errtext "$1")" "$2" ||
		fail "$3: want $1 ($(errtext "$1")), got: $(cat "$2")"
}

# bad_write ERRNO VALUE FILE: the write must fail with ERRNO (the one
# Documentation/configfs.md names) and FILE keep its value.
bad_write() {
	local before
	before=$(cat "$3")
	if (echo "$2" > "$3") 2>err.txt; then
		fail "writing '$2' to $3 succeeded"
	fi
	has_errno "$1" err.txt "writing '$2' to $3"
	[ "$(cat "$3")" = "$before" ] || fail "$3 changed after a failed write"
}

# bad_mkdir ERRNO DIR: mkdir must fail with ERRNO.
bad_mkdir() {
	if mkdir "$2" 2>err.txt; then fail "mkdir $2 succeeded"; fi
	has_errno "$1" err.txt "mkdir $2"
}

# bad_ln ERRNO TARGET LINK: ln -s must fail with ERRNO and leave no link.
bad_ln() {
	if ln -s "$2" "$3" 2>err.txt; then fail "ln -s $2 $3 succeeded"; fi
	has_errno "$1" err.txt "ln -s $2 $3"
	[ ! -e "$3" ] && [ ! -L "$3" ] || fail "failed link $3 left behind"
}

# write_back DIR: every writable attribute accepts the value it shows
# (read-only ones such as the statistics are 0444, write-only ones such
# as revalidate_size 0200).
write_back() {
	local f v
	for f in "$1"/*; do
		[ -f "$f" ] || continue
		case "$(stat -c %a "$f")" in 4*|2*) continue ;; esac
		v=$(cat "$f")
		echo "$v" > "$f" 2>/dev/null || fail "writing back '$v' to $f failed"
		[ "$(cat "$f")" = "$v" ] || fail "$f changed on write-back"
	done
}

modprobe purlin
log "object names"
# Names nvmet takes are taken (printable, at most 223 bytes), with a
# warning when they are not of the specification's nqn. form.
for n in testnqn blktests-subsystem-1; do
	mkdir $PURLIN_CFS/subsystems/$n || fail "mkdir subsystems/$n refused (nvmet takes it)"
	dmesg | grep -q "subsystem name '$n' is not of the form" ||
		fail "no warning for subsystem name $n"
	rmdir $PURLIN_CFS/subsystems/$n
done
mkdir $PURLIN_CFS/hosts/testhost || fail "mkdir hosts/testhost refused"
dmesg | grep -q "host name 'testhost' is not of the form" || fail "no warning for host testhost"
rmdir $PURLIN_CFS/hosts/testhost
mkdir $PURLIN_CFS/subsystems/nqn.2024-01.io.example:quiet
dmesg | grep -q "'nqn.2024-01.io.example:quiet' is not of the form" &&
	fail "a well-formed NQN was warned about"
rmdir $PURLIN_CFS/subsystems/nqn.2024-01.io.example:quiet
bad_mkdir EINVAL "$PURLIN_CFS/subsystems/$(printf 'bad\001name')"
bad_mkdir EINVAL $PURLIN_CFS/subsystems/$(printf 'n%.0s' $(seq 224))
bad_mkdir EINVAL $PURLIN_CFS/subsystems/nqn.2014-08.org.nvmexpress.discovery
bad_mkdir EINVAL $PURLIN_CFS/hosts/nqn.2014-08.org.nvmexpress.discovery
bad_mkdir EINVAL "$PURLIN_CFS/hosts/$(printf 'h\177')"
bad_mkdir EINVAL $PURLIN_CFS/ports/abc
bad_mkdir EINVAL $PURLIN_CFS/ports/70000
mkdir $S
bad_mkdir EINVAL $S/namespaces/0
bad_mkdir EINVAL $S/namespaces/abc
bad_mkdir EINVAL $S/namespaces/5000
mkdir $S/namespaces/1
mkdir $P

log "subsystem attributes"
bad_write EINVAL 123456789012345678901 $S/attr_serial
bad_write EINVAL "$(printf 'a\tb')" $S/attr_serial
bad_write EINVAL 12345678901234567890123456789012345678901 $S/attr_model
bad_write EINVAL 123456789 $S/attr_firmware
bad_write EINVAL banana $S/attr_version
bad_write EINVAL 0.3 $S/attr_version
bad_write EINVAL 2 $S/attr_allow_any_host
bad_write EINVAL 0 $S/attr_cntlid_min
bad_write EINVAL 65520 $S/attr_cntlid_max
echo 10 > $S/attr_cntlid_max
bad_write EINVAL 11 $S/attr_cntlid_min
bad_write EINVAL 0 $S/attr_qid_max
bad_write EINVAL 0x1000000 $S/attr_ieee_oui
echo 1.4 > $S/attr_version
[ "$(cat $S/attr_version)" = 1.4 ] || fail "version readback"
echo 2.0.1 > $S/attr_version
[ "$(cat $S/attr_version)" = 2.0.1 ] || fail "tertiary version readback"
echo 1.3 > $S/attr_version
write_back $S

log "namespace attributes"
N=$S/namespaces/1
bad_write ENOENT /dev/does-not-exist $N/device_path
bad_write EINVAL relative/path $N/device_path
mkdir -p /tmp/a-directory
bad_write EINVAL /tmp/a-directory $N/device_path	# neither block device nor file
bad_write EACCES 1 $N/stats	# read-only (configfs refuses the open)
bad_write EACCES 1 $S/controllers
bad_write EINVAL not-a-uuid $N/device_uuid
bad_write EINVAL 0f3e2a6c-1b5d-4e8f-9a7b-2c4d6e8f0a1 $N/device_uuid
bad_write EINVAL 1122 $N/device_nguid
bad_write EINVAL 11223344-5566-7788-99aa-bbccddeeff0g $N/device_nguid
bad_write EINVAL 1 $N/enable	# no device yet
echo /dev/ram0 > $N/device_path
write_back $N
echo 1 > $N/enable
bad_write EBUSY /dev/ram0 $N/device_path	# busy while enabled
bad_write EBUSY 0f3e2a6c-1b5d-4e8f-9a7b-2c4d6e8f0a1b $N/device_uuid
echo 0 > $N/enable
echo 1 > $N/enable

log "port attributes"
bad_write EINVAL tcp $P/addr_trtype
bad_write EINVAL ib $P/addr_adrfam
bad_write EINVAL 999.1.1.1 $P/addr_traddr
bad_write EINVAL fd99::1 $P/addr_traddr	# adrfam is ipv4
bad_write EINVAL abc $P/addr_trsvcid
bad_write EINVAL 0 $P/addr_trsvcid
bad_write EINVAL maybe $P/addr_treq
bad_write EINVAL 20000 $P/param_inline_data_size
bad_write EINVAL 8 $P/param_max_queue_size
bad_write EINVAL 2000 $P/param_max_queue_size
echo $TRADDR > $P/addr_traddr
echo -1 > $P/param_inline_data_size
[ "$(cat $P/param_inline_data_size)" = 4096 ] || fail "inline size default"
write_back $P

log "bind failure goes back to ln"
mkdir $PURLIN_CFS/ports/2
echo 10.99.0.77 > $PURLIN_CFS/ports/2/addr_traddr
bad_ln EADDRNOTAVAIL $S $PURLIN_CFS/ports/2/subsystems/$NQN
[ -z "$(ls $PURLIN_CFS/ports/2/subsystems)" ] || fail "failed link left behind"
dmesg | grep -q "port 2: cannot listen on 10.99.0.77:4420" || fail "no log line for the bind failure"
echo 10.99.0.1 > $PURLIN_CFS/ports/2/addr_traddr	# still writable

log "enabled port refuses address changes; duplicate listener refused"
purlin_link 1 $NQN
bad_write EACCES 4421 $P/addr_trsvcid
bad_write EACCES 10.99.0.2 $P/addr_traddr
bad_write EACCES 8192 $P/param_inline_data_size
mkdir $S-2 2>/dev/null || mkdir $PURLIN_CFS/subsystems/$NQN-2
bad_ln EADDRINUSE $PURLIN_CFS/subsystems/$NQN-2 $PURLIN_CFS/ports/2/subsystems/$NQN-2
rmdir $PURLIN_CFS/subsystems/$NQN-2
bad_ln EEXIST $S $P/subsystems/$NQN-again	# same subsystem twice
bad_ln EINVAL $PURLIN_CFS/ports/2 $P/subsystems/x	# not a subsystem
rm $P/subsystems/$NQN
echo 4421 > $P/addr_trsvcid	# writable again once disabled

log "the subsystem still works after all that"
echo 1 > $S/attr_allow_any_host
purlin_link 1 $NQN
dev=$(nvme connect -t rdma -a $TRADDR -s 4421 -n $NQN > /dev/null &&
	wait_for "nvme_dev_for $NQN" && nvme_dev_for $NQN)
fio_verify "$dev" 4k 4 1M
nvme_disconnect $NQN
rmdir $PURLIN_CFS/ports/2
purlin_clear
