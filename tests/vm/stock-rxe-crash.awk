# SPDX-License-Identifier: GPL-2.0
#
# Exit 0 if a guest console (carriage returns removed) shows a crash in
# soft-RoCE with nothing of Purlin loaded: an Oops, panic, general
# protection fault or BUG whose call trace holds rdma_rxe frames, and module
# lists that do not name purlin: a pair test is run once more after such a
# crash (Documentation/testing.md, pair tests).
#
# With -v loaded=1, which tests/vm/run uses, Purlin may also be loaded,
# provided no call trace in the console holds one of its frames; a second
# such crash fails the test (a fault of Purlin's that corrupts soft-RoCE's
# memory would not stay away twice in a row).
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
