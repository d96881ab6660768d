# SPDX-License-Identifier: GPL-2.0
#
# Exit 0 if a guest console (carriage returns removed) shows a crash in
# soft-RoCE with nothing of Purlin loaded: an Oops, panic, general
# protection fault or BUG whose call trace holds rdma_rxe frames, and module
# lists that do not name purlin.  tests/vm/run runs a pair test once more
# after such a crash of the host guest (Documentation/testing.md, pair
# tests); a crash in a guest where Purlin is loaded is never excused.
/Oops:|Kernel panic|general protection fault|BUG: / { crash = 1 }
crash && /\[rdma_rxe\]/ { rxe = 1 }
/Modules linked in:/ { mods = mods " " $0 }
END { exit !(crash && rxe && mods != "" && mods !~ /purlin/) }
