"""Bots for the CPU isolation tests: an honest one whose time is CPU work, a hog, a neutral one.

    python cpu.py --address {address} --mode work|hog|idle

All three play the same cards (the lowest legal one, passes the lowest
cards), so that a tournament plays the same games whichever is in a seat.

``work``  does a fixed amount of CPU work for every decision (about 20 ms on
          a 2020s core): its decision time is that work plus the referee's
          overhead, so that anything taking its CPU shows in its times.
``hog``   starts one spinning process per core, plus one, when it starts:
          they burn every core all the time, above all while the others think.
          It answers at once itself. At the end of each game it says on stderr
          how many cores' worth of CPU its spinners got since they started.
``idle``  the hog's neutral twin: the same answers, no spinning (the control).

``--hog-after N`` (with ``hog``): a late hog, idle (the control's twin) until
its Nth decision, which starts the spinners (the bot's calls so far looked
innocent: a freezer that watches must catch it then).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from referee.botkit import Bot, serve

#: Iterations of :func:`work` per decision: a fixed amount of work, never a time.
WORK_STEPS = 250_000

#: The spinner, run by a fresh interpreter (a fork of a gRPC server may die before it runs).
_SPIN = "while True:\n    pass\n"


def work(steps: int = WORK_STEPS) -> int:
    """Pure CPU work (a linear congruential generator), the same for every decision."""
    x = 1
    for _ in range(steps):
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    return x


class CpuBot(Bot):
    name = "cpu"

    def __init__(self, mode: str, hog_after: int = 0) -> None:
        self.mode = mode
        self.spinners: list[subprocess.Popen[bytes]] = []
        self.started = time.monotonic()
        self.decisions_left = hog_after
        if mode == "hog" and not hog_after:
            self._spin()

    def _spin(self) -> None:
        cores = os.cpu_count() or 2
        self.spinners = [subprocess.Popen([sys.executable, "-c", _SPIN]) for _ in range(cores + 1)]
        print(f"hog: {len(self.spinners)} spinners", file=sys.stderr, flush=True)

    def _think(self) -> None:
        if self.mode == "work":
            work()
        elif self.mode == "hog" and self.decisions_left:
            self.decisions_left -= 1
            if not self.decisions_left:
                self.started = time.monotonic()
                self._spin()

    def pass_cards(self, request):
        self._think()
        return sorted(request.hand, key=lambda c: (c.rank, c.suit))[: request.count]

    def play_card(self, request):
        self._think()
        return min(request.legal_moves, key=lambda c: (c.rank, c.suit))

    def end_game(self, request):
        if self.spinners:
            cpu = sum(_cpu_seconds(p.pid) for p in self.spinners)
            cores = cpu / (time.monotonic() - self.started)
            print(f"hog: spinners got {cores:.2f} cores", file=sys.stderr, flush=True)


def _cpu_seconds(pid: int) -> float:
    """User and system CPU time of process ``pid`` (from /proc/PID/stat)."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=("work", "hog", "idle"), default="work")
    parser.add_argument("--hog-after", type=int, default=0, metavar="N")
    args, rest = parser.parse_known_args()
    serve(CpuBot(args.mode, args.hog_after), rest)


if __name__ == "__main__":
    main()
