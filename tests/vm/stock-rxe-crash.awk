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
# memory would not stay away twice in a row).  With loaded=1 a guest that
# hung in soft-RoCE counts too: the harness's NMI (tests/vm/run, nmi_guest)
# found its CPU with rdma_rxe frames on its stack (7.2's rxe_receiver frees
# queued packets under the QP's state lock, and a freed page-pool page's
# recycling runs the network softirq, whose rxe_rcv spins on that lock).
# The NMI's panic prints no module list, hence loaded=1 only; its stack
# counts by its reliable frames (not "?" ones, not the Workqueue: line),
# and only in a guest of one CPU (-v cpus=N, default 1: the panic shows one
# CPU's stack, and another's could hold a Purlin frame).
/Oops:|Kernel panic|general protection fault|BUG: / { crash = 1 }
crash && /\[rdma_rxe\]/ { rxe = 1 }
/Kernel panic - not syncing: NMI/ { nmi = 1 }
nmi && /\[rdma_rxe\]/ && !/ \? |Workqueue:/ { nmirxe = 1 }
/\[purlin\]/ { pframe = 1 }
/Modules linked in:/ { mods = mods " " $0 }
END {
	if (loaded && nmirxe && !pframe && (cpus == "" || cpus <= 1))
		exit 0
	if (!(crash && rxe && mods != ""))
		exit 1
	if (mods !~ /purlin/)
		exit 0
	exit !(loaded && !pframe)
}
