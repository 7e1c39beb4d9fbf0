"""A bot that thinks between its calls by just over what the freezer allows, on purpose.

    python trickle.py --address {address} --over-us 1000

After each answer (its StartGame, which the test calls over and over) it
burns, in a thread of its own, the allowance of the period that follows
(:data:`referee.sandbox.freezer.ALLOWANCE_NS` plus ``IDLE_SHARE`` of the
period, which it expects to be as long as the last one) plus ``--over-us``
microseconds of CPU: a bot that ponders as much as it can while keeping as
close to the rule as it dares. The referee must freeze it once the few
microseconds too many have used up its credit.
"""

from __future__ import annotations

import argparse
import queue
import threading
import time

from referee.botkit import Bot, serve
from referee.sandbox.freezer import ALLOWANCE_NS, IDLE_SHARE

#: How long the burner waits after an answer before it burns: the answer is on its way
#: by then (CPU burnt while it is asked would be free, and the test would prove nothing).
SETTLE_S = 0.002


class TrickleBot(Bot):
    name = "trickle"

    def __init__(self, over_ns: int) -> None:
        self.over_ns = over_ns
        self.answered_at = 0
        self.burns: queue.SimpleQueue[int] = queue.SimpleQueue()
        threading.Thread(target=self._burner, daemon=True).start()

    def start_game(self, request):
        now = time.monotonic_ns()
        period = now - self.answered_at if self.answered_at else 0
        self.answered_at = now
        self.burns.put(ALLOWANCE_NS + int(period * IDLE_SHARE) + self.over_ns)

    def _burner(self) -> None:
        while True:
            target = self.burns.get()
            time.sleep(SETTLE_S)
            start = time.thread_time_ns()
            while time.thread_time_ns() - start < target:
                pass


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--over-us", type=int, default=1000)
    args, rest = parser.parse_known_args()
    serve(TrickleBot(args.over_us * 1000), rest)


if __name__ == "__main__":
    main()
