# SPDX-License-Identifier: GPL-2.0
# Debug-kernel lane, run last in a `make check-debug` boot: a kmemleak scan
# over whatever the tests before it left allocated, and a check that
# lockdep is still on.  Lockdep turns itself off after its first report
# (which fails that test) and also when its tables overflow, which it says
# only at KERN_DEBUG: the console never shows it.
# timeout: 300

KL=/sys/kernel/debug/kmemleak
LS=/proc/lockdep_stats
MP=/sys/module/nvme_core/parameters/multipath
[ -r $MP ] && report "host: nvme_core.multipath=$(cat $MP)"
if [ -e $KL ] && echo scan 2> /dev/null > $KL; then
	# Objects younger than 5 s are left alone; scan again after that.
	sleep 6
	s0=$(date +%s)
	echo scan > $KL
	s1=$(date +%s)
	n=$(grep -c '^unreferenced object' $KL || true)
	report "kmemleak: $n suspected leaks (a scan takes $((s1 - s0))s)"
	if [ "$n" -gt 0 ]; then
		cat $KL
		fail "kmemleak: $n unreferenced objects (above)"
	fi
else
	report "kmemleak: not running"
fi
if [ -r $LS ]; then
	report "lockdep: $(grep -E 'lock-classes|direct dependencies|dependency chains:|stack-trace entries' $LS | sed 's/  */ /g' | tr '\n' ';')"
	if grep -q 'debug_locks: *0' $LS; then
		cat $LS
		fail "lockdep is off: it reported earlier or its tables overflowed"
	fi
else
	report "lockdep: not in this kernel"
fi
