# SPDX-License-Identifier: GPL-2.0
#
# Exit 0 if a guest console (carriage returns removed) shows a crash in
# soft-RoCE with nothing of Purlin loaded: an Oops, panic, general
# protection fault or BUG whose call trace holds rdma_rxe frames, and module
# lists that do not name purlin.  tests/vm/run runs a pair test once more
# after such a crash of the host guest (Documentation/testing.md, pair
# tests).
#
# With -v loaded=1, Purlin may be loaded, but no call trace in the console
# may hold one of its frames: tests/vm/run then runs the pair test once
# more too, and a second such crash fails it (a fault of Purlin's that
# corrupts soft-RoCE's memory would not stay away twice in a row).
/Oops:|Kernel panic|general protection fault|BUG: / { crash = 1 }
crash && /\[rdma_rxe\]/ { rxe = 1 }
/\[purlin\]/ { pframe = 1 }
/Modules linked in:/ { mods = mods " " $0 }
END {
	if (!(crash && rxe && mods != ""))
		exit 1
	if (mods !~ /purlin/)
		exit 0
	exit !(loaded && !pframe)
}
