"""The ladder's schedule kind: duplicate sets decided as the ladder goes, read back from its journal.

A tournament's schedule is known before play; a ladder's is not: matchmaking
(:mod:`referee.ladder.matchmaking`) picks each table as the games come in.
What is fixed is how a table's set is played: set ``s`` is table ``s`` with
one deal set, its deal seed derived from the folder's key and ``s``
(:func:`referee.folder.seal.game_seed`, as a tournament's), and its ``k``
games are the rotations of the set's base seating
(:func:`referee.tournament.schedule.rotations`), game ``r`` being
``t<s>-d1-r<r>`` at place ``(s - 1) * k + r - 1``.

So the schedule of a ladder folder is what its journal's game entries say,
checked: :func:`ladder_schedule` rebuilds every set that the journal names
from the first of its games it holds, and ``referee verify`` then holds each
game to it (its place, its seats, and its deal seed from the key).

>>> games = set_games(3, ("a", "b", "c", "d"), seed=7, key=bytes(32))
>>> [g.game_id for g in games][:2], games[1].bots, games[1].index
(['t3-d1-r1', 't3-d1-r2'], ('b', 'c', 'd', 'a'), 9)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from referee.folder.seal import game_seed
from referee.tournament.schedule import ScheduledGame, rotations

__all__ = ["LADDER_FORMAT", "is_ladder", "ladder_schedule", "set_games"]

#: The ``ladder`` member of a ladder folder's saved config (tournament.json's ``config``).
LADDER_FORMAT = "hearts-referee/ladder"
_GAME_ID = re.compile(r"^t([1-9][0-9]*)-d1-r([1-9][0-9]*)$")


def is_ladder(saved_config: Mapping[str, Any]) -> bool:
    """Whether a saved config (tournament.json's ``config``) is a ladder's."""
    ladder = saved_config.get("ladder")
    return isinstance(ladder, dict) and ladder.get("format") == LADDER_FORMAT


def set_games(
    number: int, base: Sequence[str], *, seed: int | str, key: bytes
) -> list[ScheduledGame]:
    """The games of duplicate set ``number`` whose base seating is ``base``."""
    k = len(base)
    deal_seed = game_seed(key, seed, table=number, deal_set=1)
    return [
        ScheduledGame(
            index=(number - 1) * k + r - 1,
            game_id=f"t{number}-d1-r{r}",
            table=number,
            deal_set=1,
            seating=r,
            seed=deal_seed,
            bots=tuple(base[i] for i in order),
        )
        for r, order in enumerate(rotations(k), start=1)
    ]


def _base_of(bots: Sequence[str], seating: int) -> tuple[str, ...] | None:
    """The base seating that game ``seating`` of a set seats as ``bots``."""
    k = len(bots)
    if not 1 <= seating <= k:
        return None
    order = rotations(k)[seating - 1]
    base: list[str | None] = [None] * k
    for seat, i in enumerate(order):
        base[i] = bots[seat]
    return tuple(b for b in base if b is not None)


def ladder_schedule(
    entries: Iterable[Mapping[str, Any]], *, seed: int | str, key: bytes, table_size: int
) -> dict[str, ScheduledGame]:
    """The games of every set the journal's ``entries`` name, by game id.

    A set is rebuilt from the first of its games in the journal; a game whose
    id is not a ladder game's (or whose table is not ``table_size`` bots) is
    left out, which verify reports as a game not in the schedule.
    """
    schedule: dict[str, ScheduledGame] = {}
    for entry in entries:
        game_id, bots = entry.get("game_id"), entry.get("bots")
        if not isinstance(game_id, str) or game_id in schedule:
            continue
        match = _GAME_ID.match(game_id)
        if not match or not isinstance(bots, list) or len(bots) != table_size:
            continue
        base = _base_of([str(b) for b in bots], int(match[2]))
        if base is None:
            continue
        for game in set_games(int(match[1]), base, seed=seed, key=key):
            schedule[game.game_id] = game
    return schedule
