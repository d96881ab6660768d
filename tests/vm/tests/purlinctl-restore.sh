# SPDX-License-Identifier: GPL-2.0
# purlinctl restores an nvmetcli-format file with two subsystems (two
# namespaces each) on two ports, on Purlin and on Linux's nvmet; the stock
# host connects and moves data through both (on Purlin port 2's I/O queues
# are polled: cq_mode, poll_usecs and poll_cpus, which nvmet skips, and
# the host and a namespace have limits per tenant, the "qos" groups); save
# gives back what was restored; restore is idempotent; clear removes
# everything; diff shows drift in keywords and restore --replace removes it.
# timeout: 300

A=nqn.2026-11.io.purlin.test:restore-a
B=nqn.2026-11.io.purlin.test:restore-b
CFG=/tests/data/two-by-two.json
brd_create 16 4

# exercise TARGET-NAME: connect to every subsystem/port pair, verify data.
exercise() {
	local d
	d=$(nvme_connect $A 4420)
	fio_verify "$d" 4k 8 2M
	nvme_disconnect $A
	nvme_connect $B 4421 > /dev/null
	wait_for "nvme_dev_for $B 2"
	fio_verify "$(nvme_dev_for $B 2)" 16k 8 2M
	nvme_disconnect $B
	log "$1: both subsystems served"
}

# normalise: a saved file without what only one of the targets has: ANA
# groups and ana_grpid (Purlin gets them in issue 4), buffered_io (file
# back end, issue 4), pi_enable (nvmet only), mdts (nvmet's per-port MDTS,
# 7.2; Purlin's is fixed at 1 MiB), vendor_id and subsys_vendor_id where
# nvmet lacks them (6.1), and firmware/ieee_oui (which
# nvmet on 6.1 lacks, like max_queue_size), addr_tsas (nvmet on 6.12) and
# param_tos, param_max_pending(_per_addr), param_connect_timeout_ms,
# param_cq_mode, param_poll_usecs, param_poll_cpus, param_srq_size and the "qos" groups
# (Purlin only), and the "resv" group (resv_enable: nvmet's from Linux
# 6.13; resv_state: Purlin's).
# Trailing commas go too: which line is last in an object depends on what
# was dropped (nvmet on a kernel without CONFIG_BLK_DEV_INTEGRITY has no
# pi_enable after inline_data_size).
vendor_ids() {
	if grep -q '"vendor_id"' saved-nvmet.json; then
		cat
	else
		grep -v '"vendor_id"\|"subsys_vendor_id"'
	fi
}
normalise() {
	# 6.1's nvmet has no root discovery_nqn: the "discovery" group is Purlin's here
	sed -e '/"ana_groups": \[\],*$/d' -e '/"ana_groups": \[$/,/^      \],*$/d' \
	    -e '/"ana": {$/,/},*$/d' -e '/"dhchap": {$/,/},*$/d' -e '/"qos": {$/,/},*$/d' -e '/"resv": {$/,/},*$/d' \
	    -e '/^  "discovery": {$/,/^  },*$/d' "$1" |
		grep -v '"firmware"\|"ieee_oui"\|"pi_enable"\|"ana_grpid"\|"buffered_io"\|"max_queue_size"\|"mdts"\|"tsas"\|"tos"\|"max_pending\|"connect_timeout_ms"\|"cq_mode"\|"poll_usecs"\|"poll_cpus"\|"srq_size"' |
		vendor_ids |
		sed 's/,$//'
}

for target in purlin nvmet; do
	log "== $target"
	purlinctl --target $target restore $CFG
	if [ $target = purlin ]; then
		[ "$(cat $PURLIN_CFS/ports/2/param_cq_mode)" = poll ] || fail "port 2 is not polled"
		[ "$(cat $PURLIN_CFS/ports/2/param_poll_usecs)" = 20 ] || fail "poll_usecs not restored"
		[ "$(cat $PURLIN_CFS/ports/2/param_poll_cpus)" = 0 ] || fail "poll_cpus not restored"
		[ "$(cat $PURLIN_CFS/hosts/*/qos_iops)" = 50000 ] || fail "host qos_iops not restored"
		[ "$(cat $PURLIN_CFS/hosts/*/qos_burst_ms)" = 200 ] || fail "host qos_burst_ms not restored"
		[ "$(cat $PURLIN_CFS/subsystems/$A/namespaces/2/qos_bps)" = 1073741824 ] ||
			fail "namespace qos_bps not restored"
	fi
	exercise $target
	purlinctl --target $target save saved-$target.json
	# the limits are saved from Purlin only (nvmet has none: skipped)
	if [ $target = purlin ]; then
		grep -q '"iops": "50000"' saved-$target.json || fail "Purlin's save lacks the host limit"
	elif grep -q '"qos"' saved-$target.json; then
		fail "nvmet's save has a qos group"
	fi
	log "restore again: idempotent"
	purlinctl --target $target restore $CFG
	purlinctl --target $target save saved2-$target.json
	cmp saved-$target.json saved2-$target.json || fail "$target: second restore changed the configuration"
	log "save, clear, restore the saved file: same configuration"
	purlinctl --target $target clear
	purlinctl --target $target save empty-$target.json
	grep -q "$A" empty-$target.json && fail "$target: clear left $A"
	purlinctl --target $target restore saved-$target.json
	purlinctl --target $target save saved3-$target.json
	cmp saved-$target.json saved3-$target.json || fail "$target: save/restore round trip differs"
	exercise $target
	purlinctl --target $target clear
done
log "diff and restore --replace on Purlin: drift shown in keywords, then removed"
purlinctl restore $CFG
expect_err 0 "" purlinctl diff $CFG
[ ! -s out.txt ] || fail "diff right after restore: $(cat out.txt)"
purlinctl host add nqn.2026-11.io.purlin.test:extra
purlinctl subsys set $A model Drifted
purlinctl port add 9 traddr $TRADDR trsvcid 4429
expect_err 8 "" purlinctl diff $CFG
grep -qxF "~ subsys $A: model 'Drifted' -> 'Restore A'" out.txt || fail "diff: model"
grep -qxF -- "- host nqn.2026-11.io.purlin.test:extra" out.txt || fail "diff: extra host"
grep -qxF -- "- port 9" out.txt || fail "diff: extra port"
purlinctl restore $CFG
[ -d $PURLIN_CFS/ports/9 ] || fail "the merge removed port 9"
purlinctl restore $CFG --replace
[ ! -d $PURLIN_CFS/ports/9 ] || fail "--replace left port 9"
[ ! -d $PURLIN_CFS/hosts/nqn.2026-11.io.purlin.test:extra ] || fail "--replace left the extra host"
[ "$(cat $PURLIN_CFS/subsystems/$A/attr_model)" = "Restore A" ] || fail "model not restored"
expect_err 0 "" purlinctl diff $CFG
exercise purlin
purlinctl clear

log "both targets saved the same configuration"
normalise saved-purlin.json > p.json
normalise saved-nvmet.json > n.json
diff -u n.json p.json || fail "Purlin and nvmet saves differ beyond target-specific attributes"
rmmod purlin
