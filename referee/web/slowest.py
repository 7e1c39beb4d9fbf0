"""The slowest decisions of each bot, read from the game logs (a bot's page lists them).

The index (:mod:`referee.web.index`) follows the journal; this module is the
other job it used to do: reading game logs for their timed decisions. A log
is read line by line as bytes and only the lines with an ``"ms":`` field are
parsed (the decisions: a pass, a play, a moon choice), through
:func:`referee.match.gamelog.open_log`, so a gzip-compressed log reads the
same. This is the web's hot loop over a 100,000-game folder: gamelog's
checking reader (:func:`~referee.match.gamelog.read_log`) parses every line
and measured a few percent slower, and the scan needs none of its checks (a
damaged log ends the scan of that log, which the audit reports, not the
page).
"""

from __future__ import annotations

import heapq
import json
import os
import zlib
from collections.abc import Iterator, Sequence

from referee.match.gamelog import open_log

__all__ = ["SLOWEST", "SlowestDecisions", "timed_decisions"]

#: Slowest decisions kept per bot.
SLOWEST = 20

#: What every timed decision's line holds: lines without it are not parsed.
_TIMED = b'"ms":'


def timed_decisions(path: str | os.PathLike[str]) -> Iterator[tuple[int, str, float]]:
    """``(seat, decision id, ms)`` of every timed decision in a game log, in order.

    A log that cannot be read, or a line that is not JSON, ends the scan
    quietly (what was read before it is kept).
    """
    try:
        with open_log(path) as handle:
            for line in handle:
                if _TIMED not in line:
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    return
                ms, seat = record.get("ms"), record.get("seat")
                if isinstance(ms, int | float) and isinstance(seat, int):
                    yield seat, str(record.get("decision", "")), float(ms)
    except (OSError, EOFError, zlib.error):
        return


class SlowestDecisions:
    """The ``keep`` slowest decisions of each bot over the logs added, a min-heap per bot."""

    def __init__(self, keep: int = SLOWEST) -> None:
        self.keep = keep
        self._heaps: dict[str, list[tuple[float, str, str]]] = {}

    def add_log(self, path: str | os.PathLike[str], bots: Sequence[str], game_id: str) -> None:
        """Read one game's log; ``bots`` are its seats' bots (a seat out of range is ignored)."""
        for seat, decision, ms in timed_decisions(path):
            if 0 <= seat < len(bots):
                heap = self._heaps.setdefault(bots[seat], [])
                item = (ms, game_id, decision)
                if len(heap) < self.keep:
                    heapq.heappush(heap, item)
                elif item > heap[0]:
                    heapq.heapreplace(heap, item)

    def of(self, bot: str) -> list[tuple[float, str, str]]:
        """``(ms, game id, decision id)`` of the bot's slowest decisions, slowest first."""
        return sorted(self._heaps.get(bot, ()), reverse=True)
