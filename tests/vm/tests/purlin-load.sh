# SPDX-License-Identifier: GPL-2.0
# purlin.ko loads and unloads; its configfs root appears and disappears.
# timeout: 60

modprobe purlin
[ -d $PURLIN_CFS ] || fail "configfs root missing after load"
for d in subsystems ports hosts; do
	[ -d $PURLIN_CFS/$d ] || fail "$PURLIN_CFS/$d missing"
	[ -z "$(ls $PURLIN_CFS/$d)" ] || fail "$PURLIN_CFS/$d not empty"
done
modinfo purlin | grep -q '^version:' || fail "modinfo shows no version"
rmmod purlin
[ ! -e $PURLIN_CFS ] || fail "configfs root still there after unload"
