"""A bot that tests its limits at its first decision, then plays the lowest legal card.

    python hog.py --address {address} --mode shm --mb 200

Modes (each at the first PlayCard of a process):

``shm``       writes ``--mb`` MiB into /dev/shm (a tmpfs: memory, not disk)
``tmp``       writes ``--mb`` MiB into its HOME/TMPDIR (a tmpfs too)
``orphan``    double-forks a daemon in a new session that holds ``--mb`` MiB
``forkbomb``  starts processes until it can't
``spin``      burns CPU for ``--seconds`` of wall time (1) and prints the CPU time it got
``none``      nothing
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from referee.botkit import Bot, serve


def _write(folder: str, mb: int) -> str:
    path = os.path.join(folder, "hog.bin")
    block = b"\xa5" * (1 << 20)
    written = 0
    try:
        with open(path, "wb") as f:
            for _ in range(mb):
                f.write(block)
                f.flush()
                written += 1
    except OSError as error:
        return f"wrote {written} MiB, then {error.strerror}"
    return f"wrote {written} MiB"


#: The orphan's program, run by a fresh interpreter: it double-forks into a new
#: session, and the daemon holds argv[1] MiB, then writes one byte to stdout.
_ORPHAN = r"""
import os, sys, time
os.setsid()
if os.fork() == 0:
    hoard = bytearray(int(sys.argv[1]) << 20)
    for i in range(0, len(hoard), 4096):
        hoard[i] = 1
    os.write(1, b"x")
    time.sleep(600)
os._exit(0)
"""


def _orphan(mb: int) -> str:
    """A daemon (double fork, new session) that holds ``mb`` MiB; returns when it holds them.

    The forks happen in a fresh interpreter: a fork of this process (a gRPC
    server with its threads) may die in the child before it runs a line.
    """
    proc = subprocess.Popen([sys.executable, "-c", _ORPHAN, str(mb)], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    held = proc.stdout.read(1)  # end of file if it was killed first
    proc.wait()
    time.sleep(3.0)  # time for the referee to notice, on a loaded machine too
    return "orphan holds its memory" if held else "orphan gone before holding its memory"


def _forkbomb() -> str:
    children = 0
    try:
        for _ in range(10_000):
            if os.fork() == 0:
                time.sleep(600)
                os._exit(0)
            children += 1
    except OSError as error:
        return f"{children} children, then {error.strerror}"
    return f"{children} children"


def _spin(seconds: float) -> str:
    start_cpu, start = time.process_time(), time.monotonic()
    while time.monotonic() - start < seconds:
        pass
    return f"cpu {time.process_time() - start_cpu:.3f}"


class HogBot(Bot):
    name = "hog"

    def __init__(self, mode: str, mb: int, seconds: float = 1.0) -> None:
        self.mode, self.mb, self.seconds, self.done = mode, mb, seconds, False

    def pass_cards(self, request):
        return sorted(request.hand, key=lambda c: (c.suit, c.rank))[: request.count]

    def play_card(self, request):
        if not self.done:
            self.done = True
            said = {
                "shm": lambda: _write("/dev/shm", self.mb),
                "tmp": lambda: _write(os.environ.get("TMPDIR", "/tmp"), self.mb),
                "orphan": lambda: _orphan(self.mb),
                "forkbomb": _forkbomb,
                "spin": lambda: _spin(self.seconds),
                "none": lambda: "nothing",
            }[self.mode]()
            print(f"hog {self.mode}: {said}", file=sys.stderr, flush=True)
        return min(request.legal_moves, key=lambda c: (c.rank, c.suit))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="none")
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=1.0)
    args, rest = parser.parse_known_args()
    serve(HogBot(args.mode, args.mb, args.seconds), rest)


if __name__ == "__main__":
    main()
