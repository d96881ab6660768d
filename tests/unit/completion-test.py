#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""purlinctl's bash completion in a real interactive bash on a pseudo-terminal.

Each case types a command line, presses TAB once (show-all-if-ambiguous is
on, so one TAB also lists several candidates) and compares the line bash
shows afterwards. It runs with bash's own COMP_WORDBREAKS, so an NQN's ':'
splits words here exactly as at a prompt. Prints TAP; exits 1 on a failure.
"""
import os
import pty
import re
import select
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
COMPLETION = os.path.join(HERE, "../../tools/purlinctl/purlinctl.bash-completion")
BASH_COMPLETION = "/usr/share/bash-completion/bash_completion"
S1 = "nqn.2024-01.io.example:disk1"
S2 = "nqn.2024-01.io.example:disk2"
H1 = "nqn.2014-08.org.nvmexpress:uuid:3c2f1b3e-9d1a-4e6b-8f2c-5a7d9e0b1c4f"


def make_root():
    root = tempfile.mkdtemp(prefix="purlinctl-compl-")
    for d in (f"subsystems/{S1}/namespaces/1", f"subsystems/{S1}/namespaces/7",
              f"subsystems/{S2}/namespaces/3", f"hosts/{H1}", "ports/1", "ports/12",
              "ports/1/referrals/peer", "ports/1/ana_groups/1", "ports/1/ana_groups/2"):
        os.makedirs(os.path.join(root, d))
    return root


class Shell:
    def __init__(self):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execvp("bash", ["bash", "--norc", "--noprofile", "-i"])
        self.send(f"PS1='> '; bind 'set show-all-if-ambiguous on'; "
                  f"bind 'set bell-style none'; source {BASH_COMPLETION}; "
                  f"source {COMPLETION}; echo READY\n")
        self.expect("READY\r\n")

    def send(self, text):
        os.write(self.fd, text.encode())

    def read(self, settle=0.4, limit=5.0):
        out, end, last = b"", time.time() + limit, time.time()
        while time.time() < end:
            r, _, _ = select.select([self.fd], [], [], 0.05)
            if r:
                out += os.read(self.fd, 65536)
                last = time.time()
            elif out and time.time() - last > settle:
                break
        return out.decode(errors="replace")

    def expect(self, what, limit=10.0):
        out, end = "", time.time() + limit
        while time.time() < end and what not in out:
            out += self.read(settle=0.1, limit=0.5)
        if what not in out:
            raise RuntimeError(f"no {what!r} from bash: {out!r}")

    def complete(self, line):
        """The text bash shows after LINE and one TAB, the line then cleared."""
        self.send(line + "\t")
        out = self.read()
        self.send("\x15")  # ^U: clear the line
        self.read(settle=0.2)
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x07|\r", "", out)


def main():
    if not os.path.exists(BASH_COMPLETION) or not shutil.which("bash"):
        print("1..0 # SKIP bash or bash-completion missing (make deps)")
        return 0
    root = make_root()
    cli = f"purlinctl --root {root} "
    cases = [
        # (name, typed, what must appear after the TAB)
        ("NQN completes past its ':'", cli + "subsys show nqn.2024-01.io.example:disk",
         ["disk1", "disk2"]),
        ("a unique NQN completes whole", cli + "ns list nqn.2024-01.io.example:disk2",
         [S2 + " "]),
        ("ns show NQN offers its NSIDs", cli + f"ns show {S1} ", ["1", "7"]),
        ("host NQN with its uuid ':'s", cli + "subsys allow " + S1 + " nqn.2014-08.org.nvmexpress:uu",
         [H1]),
        ("help completes objects", cli + "help s", ["subsys", "save", "status"]),
        ("port ids", cli + "port show 1", ["1", "12"]),
        ("restore's options", cli + "restore x.json --", ["--replace", "--force"]),
        ("objects include diff and status", cli + "d", ["diff "]),
        ("referral names of the port", cli + "referral show 1 p", ["peer "]),
        ("ANA states", cli + "ana-group set 1 2 state non", ["non-optimized "]),
        ("top is an object", cli + "to", ["top "]),
        ("top's sort keys", cli + "top -s m", ["mbps", "mean"]),
        ("top's rows", cli + "top -r n", ["namespaces "]),
    ]
    sh = Shell()
    failed = 0
    print(f"1..{len(cases)}")
    for i, (name, typed, wants) in enumerate(cases, 1):
        got = sh.complete(typed)
        missing = [w for w in wants if w not in got]
        if missing:
            failed += 1
            print(f"not ok {i} - {name}")
            print(f"# typed {typed!r}, missing {missing!r} in {got!r}")
        else:
            print(f"ok {i} - {name}")
    sh.send("exit\n")
    shutil.rmtree(root)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
