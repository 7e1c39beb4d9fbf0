"""Live progress of a tournament on stderr: games done, rate, ETA, faults, leaders.

The leaders' ``pts/hand`` is the standings' ``points_per_hand``
(:class:`referee.stats.standings.PointsPerHand`: the mean over a bot's duplicate
sets of its mean points per hand in each), so the line and the final table
agree on the games counted so far.
"""

from __future__ import annotations

import collections
import sys
import time
from collections.abc import Mapping
from typing import IO, Any

from referee.stats.standings import PointsPerHand

__all__ = ["Progress"]


class Progress:
    """Games done of total, rate, ETA, faults and leaders, on stderr.

    On a terminal the line is redrawn in place; otherwise a plain line is
    printed every ``interval_s`` seconds or tenth of the games.
    """

    def __init__(
        self,
        *,
        stream: IO[str] | None = None,
        enabled: bool = True,
        tty: bool | None = None,
        interval_s: float = 10.0,
    ) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = self.stream.isatty() if tty is None else tty
        self.interval_s = interval_s if not self.tty else 0.5
        self.total = 0
        self.done = 0
        self.played = 0
        self.faults = 0
        self.errors = 0
        #: Where the games run, when worth saying (``ray: 3 nodes, 6 workers``).
        self.where = ""
        #: What ``errors`` counts, as the line says it.
        self.errors_label = "referee errors"
        #: Show the bots with the fewest points per hand (a gauntlet shows its test instead).
        self.show_leaders = True
        #: Games still expected, when fewer than the schedule's (a sequential test's
        #: expectation); the ETA is theirs and says so.
        self.expected_left: int | None = None
        self._points: collections.defaultdict[str, PointsPerHand] = collections.defaultdict(
            PointsPerHand
        )
        self._started = time.monotonic()
        self._stopped: float | None = None
        self._drawing_at: float | None = None
        self._last_shown = 0.0
        self._last_done = -1
        self._drawn = False

    def start(self, total: int) -> None:
        self.total = total
        self._started = time.monotonic()
        self._stopped = None

    @property
    def elapsed_s(self) -> float:
        """Seconds from :meth:`start` to now or to :meth:`finish`: the clock of the rate."""
        return (self._stopped or self._drawing_at or time.monotonic()) - self._started

    @property
    def rate(self) -> float:
        """Games played per minute since :meth:`start` (0 before the first)."""
        elapsed = self.elapsed_s
        return self.played / elapsed * 60 if elapsed > 0 and self.played else 0.0

    def add(self, entry: Mapping[str, Any], *, this_run: bool = True) -> None:
        """Count a finished game (``this_run=False`` for those of earlier runs)."""
        self.done += 1
        self.played += this_run
        for seat, bot in enumerate(entry["bots"]):
            self._points[bot].add(entry, seat)
            self.faults += sum(entry["faults"][seat].values())

    def leaders(self, count: int = 3) -> list[tuple[str, float]]:
        """The bots with the fewest points per hand so far, as the standings count them."""
        rows = [
            (bot, mean)
            for bot, points in self._points.items()
            if (mean := points.mean()) is not None
        ]
        return sorted(rows, key=lambda r: (r[1], r[0]))[:count]

    def line(self) -> str:
        rate = self.rate
        left = self.total - self.done
        expected = self.expected_left is not None and self.expected_left < left
        if expected:
            left = self.expected_left or 0
        eta = _duration(left / rate * 60) if rate else "?"
        if expected:
            eta = f"~{eta} (expected)"
        percent = self.done / self.total * 100 if self.total else 100.0
        leaders = (
            ", ".join(f"{bot} {points:.2f}" for bot, points in self.leaders())
            if self.show_leaders
            else ""
        )
        text = (
            f"games {self.done}/{self.total} ({percent:.0f}%) | {rate:.1f}/min | ETA {eta} | "
            f"faults {self.faults}"
        )
        if self.errors:
            text += f" | {self.errors_label} {self.errors}"
        if self.where:
            text += f" | {self.where}"
        return text + (f" | pts/hand: {leaders}" if leaders else "")

    def refresh(self, *, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        step = max(1, self.total // 10)
        due = now - self._last_shown >= self.interval_s or (
            not self.tty and self.done // step != self._last_done // step
        )
        if not (force or due) or (not self.tty and self.done == self._last_done and not force):
            return
        self._last_shown, self._last_done = now, self.done
        self._drawing_at = now  # the line's clock is the moment it is shown, as finish's
        try:
            text = self.line()
        finally:
            self._drawing_at = None
        if self.tty:
            self.stream.write("\r" + text + "\x1b[K")
            self._drawn = True
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def finish(self) -> None:
        """Stop the clock; the last line (and a newline after an in-place line)."""
        if self._stopped is None:
            # A line already shown for the last game keeps its rate: the clock stops there.
            shown = self.done == self._last_done and self._last_shown > self._started
            self._stopped = self._last_shown if shown else time.monotonic()
        if not self.enabled:
            return
        if self.tty or self.done != self._last_done:
            self.refresh(force=True)
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
