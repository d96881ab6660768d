#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""purlinctl top on a pseudo-terminal, against a fake target tree.

On a terminal top must take keys one at a time without echo (ICANON and ECHO
off while it runs), redraw in place, quit on q, and give the terminal back
as it found it: after q, after SIGINT and after SIGTERM. tcgetattr() on the
pty's master reads the slave's settings. Prints TAP; exits 1 on a failure.
"""
import os
import pty
import select
import shutil
import signal
import sys
import tempfile
import termios
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "../../tools/purlinctl/purlinctl")
S1 = "nqn.2026-12.io.purlin.test:tty"


def make_root():
    root = tempfile.mkdtemp(prefix="purlinctl-top-")
    for d in ("hosts", "ports", "subsystems", f"controllers/{S1}:5"):
        os.makedirs(os.path.join(root, d))
    files = {"discovery_nqn": "nqn.2014-08.org.nvmexpress.discovery",
             f"controllers/{S1}:5/cntlid": "5",
             f"controllers/{S1}:5/subsysnqn": S1,
             f"controllers/{S1}:5/hostnqn": "nqn.2026-12.io.purlin.test:h1",
             f"controllers/{S1}:5/port": "1",
             f"controllers/{S1}:5/stats": "read_cmds=0 read_bytes=0 write_cmds=0 "
             "write_bytes=0 errors=0 other_cmds=0 inflight=2 flush_cmds=0"}
    for path, text in files.items():
        with open(os.path.join(root, path), "w") as f:
            f.write(text + "\n")
    return root


def lflag(fd):
    return termios.tcgetattr(fd)[3]


def read_until(fd, what, limit=10.0):
    out, end = b"", time.time() + limit
    while time.time() < end and what not in out:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                out += os.read(fd, 65536)
            except OSError:
                break
    return out


def run(root, stop):
    """Start top on a pty, check it, stop it with stop(pid, fd); return what failed."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(TOOL, [TOOL, "--root", root, "top", "-d", "0.2"])
    problems = []
    # a whole frame: the title, then the row, whose host NQN ends it
    out = read_until(fd, b"test:h1")
    if b"q quit" not in out:
        problems.append(f"no frame with the keys: {out[-300:]!r}")
    if b"\x1b[2J" not in out:
        problems.append("the screen is not cleared")
    if lflag(fd) & (termios.ICANON | termios.ECHO):
        problems.append("ICANON or ECHO still on while top runs")
    if b"\n5 " not in out.replace(b"\r", b""):
        problems.append("no line for controller 5")
    stop(pid, fd)
    end = time.time() + 10
    status = None
    while time.time() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        read_until(fd, b"\0", 0.1)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        problems.append("top did not end")
    try:
        after = lflag(fd)
        if not (after & termios.ICANON) or not (after & termios.ECHO):
            problems.append("the terminal is left without ICANON or ECHO")
    except termios.error as e:
        problems.append(f"tcgetattr after: {e}")
    if status is not None and os.waitstatus_to_exitcode(status) != 0:
        problems.append(f"exit {os.waitstatus_to_exitcode(status)}")
    os.close(fd)
    return problems


def main():
    if not os.access(TOOL, os.X_OK):
        print("1..1\nnot ok 1 - purlinctl is built (make tools, or make unit)")
        return 1
    root = make_root()
    cases = [
        ("q quits and restores the terminal", lambda pid, fd: os.write(fd, b"q")),
        ("SIGINT ends it and restores the terminal", lambda pid, fd: os.kill(pid, signal.SIGINT)),
        ("SIGTERM ends it and restores the terminal", lambda pid, fd: os.kill(pid, signal.SIGTERM)),
    ]
    failed = 0
    print(f"1..{len(cases)}")
    for i, (name, stop) in enumerate(cases, 1):
        problems = run(root, stop)
        if problems:
            failed += 1
            print(f"not ok {i} - {name}")
            for p in problems:
                print(f"# {p}")
        else:
            print(f"ok {i} - {name}")
    shutil.rmtree(root)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
