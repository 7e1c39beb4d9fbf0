"""A ladder's schedule: duplicate sets decided as the ladder goes, read back from its journal.

A tournament's schedule is known before play; a ladder's is not: its
matchmaking (:mod:`referee.ladder.matchmaking`) picks each table as games
come in. What is fixed is how a set is played: set ``s`` is table ``s`` with
one deal set, its deal seed derived from the folder's key and ``s``
(:meth:`Scheduler.deal_seed`, as every schedule's), and its ``k`` games are
the rotations of the set's base seating (:func:`seatings`), game ``r`` being
``t<s>-d1-r<r>`` at place ``(s - 1) * k + r - 1``.

So a ladder's schedule is what its journal's game entries say, checked:
:meth:`LadderScheduler.from_journal` rebuilds every set the journal names
from the first of its games it holds, and ``referee verify`` holds each game
to it (its place, its seats, and its deal seed from the key).

>>> scheduler = LadderScheduler({3: ("a", "b", "c", "d")}, table_size=4, seed=7)
>>> games = list(scheduler.games(bytes(32)))
>>> [g.game_id for g in games][:2], games[1].bots, games[1].index
(['t3-d1-r1', 't3-d1-r2'], ('b', 'c', 'd', 'a'), 9)
>>> rebuilt = LadderScheduler.from_journal(
...     [{"game_id": "t3-d1-r2", "bots": ["b", "c", "d", "a"]}], table_size=4, seed=7
... )
>>> rebuilt.tables
(('a', 'b', 'c', 'd'),)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from referee.schedule.base import ScheduledGame, Scheduler, seatings

__all__ = ["LADDER_FORMAT", "LadderScheduler", "is_ladder"]

#: The ``ladder`` member of a ladder folder's saved config (tournament.json's ``config``).
LADDER_FORMAT = "hearts-referee/ladder"
_GAME_ID = re.compile(r"^t([1-9][0-9]{0,11})-d1-r([1-9][0-9]?)$")


def is_ladder(config: Mapping[str, Any]) -> bool:
    """Whether a saved canonical config (tournament.json's ``config``) is a ladder's."""
    ladder = config.get("ladder")
    return isinstance(ladder, dict) and ladder.get("format") == LADDER_FORMAT


class LadderScheduler(Scheduler):
    """The duplicate sets of a ladder: set number to base seating (numbers may have gaps:
    a set none of whose games was journaled leaves none)."""

    def __init__(
        self, sets: Mapping[int, Sequence[str]], *, table_size: int, seed: int | str
    ) -> None:
        super().__init__(table_size=table_size, deal_sets=1, duplicate=True, seed=seed)
        for number, base in sets.items():
            if number < 1 or len(base) != table_size or len(set(base)) != table_size:
                raise ValueError(f"set {number}: {list(base)} is not a table of {table_size}")
        self._sets = {n: tuple(sets[n]) for n in sorted(sets)}

    @property
    def tables(self) -> tuple[tuple[str, ...], ...]:
        return tuple(self._sets.values())

    def games(self, key: bytes) -> Iterator[ScheduledGame]:
        """Each set's games, at the places their set numbers give them."""
        k = self.table_size
        for number, base in self._sets.items():
            deal_seed = self.deal_seed(key, number, 1)
            for r, order in enumerate(self.seatings(), start=1):
                yield ScheduledGame(
                    index=(number - 1) * k + r - 1,
                    game_id=f"t{number}-d1-r{r}",
                    table=number,
                    deal_set=1,
                    seating=r,
                    seed=deal_seed,
                    bots=tuple(base[i] for i in order),
                )

    @classmethod
    def from_journal(
        cls, games: Iterable[Mapping[str, Any]], *, table_size: int, seed: int | str
    ) -> LadderScheduler:
        """The sets the journal's game entries name, each from the first of its games.

        A game whose id is not a ladder game's, or whose table is not
        ``table_size`` different bots, names no set (verify then reports it as
        not in the schedule).
        """
        sets: dict[int, tuple[str, ...]] = {}
        for entry in games:
            game_id, bots = entry.get("game_id"), entry.get("bots")
            match = _GAME_ID.match(game_id) if isinstance(game_id, str) else None
            if match is None or int(match[1]) in sets or not isinstance(bots, list):
                continue
            names = [str(b) for b in bots]
            seating = int(match[2])
            if len(names) != table_size or len(set(names)) != table_size or seating > table_size:
                continue
            order = seatings(table_size)[seating - 1]
            base = [""] * table_size
            for seat, i in enumerate(order):
                base[i] = names[seat]
            sets[int(match[1])] = tuple(base)
        return cls(sets, table_size=table_size, seed=seed)
