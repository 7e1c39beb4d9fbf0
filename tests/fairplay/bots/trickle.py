"""A bot that thinks between its calls, as long as it is let: the freezer's boundary attack.

    python trickle.py --address {address}

After each answer (its StartGame, which the test calls over and over) it
computes in a thread of its own until its next call arrives: a bot that
ponders on its opponents' time. The test ends each period as soon as the
bot's cgroup has used just over what the freezer allows for it
(:data:`referee.sandbox.freezer.ALLOWANCE_NS` plus ``IDLE_SHARE`` of the
period), so that the bot takes that little too much, whatever the load:
it must be frozen once those few hundred microseconds a period have used up
its credit.
"""

from __future__ import annotations

import threading

from referee.botkit import Bot, serve


class TrickleBot(Bot):
    name = "trickle"

    def __init__(self) -> None:
        self.asked = threading.Event()
        self.answered = threading.Event()
        threading.Thread(target=self._ponder, daemon=True).start()

    def start_game(self, request):
        self.asked.set()  # stop pondering: it is asked (CPU used now would be free)
        self.answered.set()  # ... and ponder again once this answer is on its way

    def _ponder(self) -> None:
        x = 1
        while True:
            self.answered.wait()
            self.answered.clear()
            self.asked.clear()
            while not self.asked.is_set():
                for _ in range(1000):
                    x = (x * 1103515245 + 12345) & 0xFFFFFFFF


def main() -> None:
    serve(TrickleBot())


if __name__ == "__main__":
    main()
