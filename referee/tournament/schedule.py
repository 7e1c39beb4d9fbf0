"""Tournament schedules: which bots meet, in which seats, on which deals.

A schedule is a list of tables (sets of ``k`` bots) and, for each table, its
games. With N bots every combination of k plays (a round robin over tables);
when a ``max_tables`` smaller than that is given, a balanced sample is drawn
instead: every bot sits at the same number of tables and every pair of bots
meets about equally often.

Duplicate deals: a table plays ``deal_sets`` deal sequences (each a game seed).
With ``duplicate`` on, each deal sequence is replayed with the seats rotated
k times, so every bot at the table plays every hand from every seat; those
games form one *duplicate set*, the unit of the standings' statistics. With
``all_permutations`` the set holds every seating (k! games) instead. Without
``duplicate``, each deal sequence is played once, the seating rotated from one
deal set to the next.

The tables and seatings derive from the tournament seed through SHA-256; the
deal seeds derive from the tournament's secret key too
(:func:`referee.folder.seal.game_seed`), so that nobody can compute a deal in
advance from the seed. The same key, seed and settings give the same schedule
on any machine:

>>> key = bytes(32)
>>> s = make_schedule(["a", "b", "c", "d", "e"], table_size=4, seed=1, key=key)
>>> len(s.tables), len(s.games), s.games[0].game_id
(5, 20, 't1-d1-r1')
>>> make_schedule(["a", "b", "c", "d", "e"], table_size=4, seed=1, key=key) == s
True
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import itertools
import math
import random
from collections.abc import Sequence
from typing import Any

from referee.folder.seal import game_seed

__all__ = ["Schedule", "ScheduledGame", "derive_seed", "make_schedule", "sample_tables"]


@dataclasses.dataclass(frozen=True, slots=True)
class ScheduledGame:
    """One game of the schedule."""

    #: Position in the schedule (0-based): the canonical order of games.
    index: int
    game_id: str
    #: Table number, deal set number and seating number (all 1-based).
    table: int
    deal_set: int
    seating: int
    #: The deal seed (the same for every game of a duplicate set): 32 hex digits.
    seed: str
    #: Bot names by seat.
    bots: tuple[str, ...]

    @property
    def set_key(self) -> tuple[int, int]:
        """The duplicate set the game belongs to."""
        return (self.table, self.deal_set)

    def meta(self) -> dict[str, Any]:
        """Schedule facts for logs and the journal."""
        return {
            "index": self.index,
            "table": self.table,
            "deal_set": self.deal_set,
            "seating": self.seating,
        }


@dataclasses.dataclass(frozen=True, slots=True)
class Schedule:
    """Tables (bot names, in base seating order) and their games."""

    tables: tuple[tuple[str, ...], ...]
    games: tuple[ScheduledGame, ...]
    #: True when the tables are a balanced sample rather than every combination.
    sampled: bool

    def __len__(self) -> int:
        return len(self.games)

    def by_id(self) -> dict[str, ScheduledGame]:
        return {g.game_id: g for g in self.games}

    def games_of_table(self) -> collections.Counter[int]:
        """How many games each table plays."""
        return collections.Counter(g.table for g in self.games)


def derive_seed(seed: int | str, *parts: object) -> int:
    """A 48-bit seed from the tournament seed and a path, for the tables and seatings.

    >>> derive_seed(1, "table", 3, "set", 2)
    218057773303430
    """
    text = "/".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:6], "big")


def make_schedule(
    bots: Sequence[str],
    *,
    table_size: int = 4,
    deal_sets: int = 1,
    duplicate: bool = True,
    all_permutations: bool = False,
    max_tables: int | None = None,
    seed: int | str = 0,
    key: bytes,
) -> Schedule:
    """The schedule of a tournament between ``bots`` (see the module docs).

    ``key`` is the tournament's secret key (:mod:`referee.folder.seal`): the deal
    seeds derive from it, the tables and seatings from ``seed`` alone.
    """
    if len(set(bots)) != len(bots):
        raise ValueError("bot names must be unique")
    if not 3 <= table_size <= 7:
        raise ValueError(f"table_size must be 3 to 7, not {table_size}")
    if len(bots) < table_size:
        raise ValueError(f"{len(bots)} bots cannot fill a table of {table_size}")
    if all_permutations and not duplicate:
        raise ValueError("all_permutations needs duplicate")
    combos = math.comb(len(bots), table_size)
    sampled = max_tables is not None and max_tables < combos
    if sampled:
        assert max_tables is not None
        groups = sample_tables(bots, table_size, max_tables, seed=seed)
    else:
        groups = [tuple(c) for c in itertools.combinations(bots, table_size)]
    tables = tuple(_base_seating(group, seed, t) for t, group in enumerate(groups, start=1))
    games = _games(tables, deal_sets, duplicate, all_permutations, seed, key)
    return Schedule(tables=tables, games=games, sampled=sampled)


def _base_seating(group: Sequence[str], seed: int | str, table: int) -> tuple[str, ...]:
    """The table's seat order before rotation: shuffled, so no bot always follows another."""
    seats = list(group)
    random.Random(derive_seed(seed, "seating", table)).shuffle(seats)
    return tuple(seats)


def rotations(k: int) -> list[tuple[int, ...]]:
    """The seat orders of one duplicate set at a table of ``k``: each rotation of the seats.

    Game ``r`` of the set seats ``base[order[s]]`` in seat ``s``, so every bot
    plays every seat, and so every dealt hand, once.

    >>> rotations(3)
    [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    """
    return _seatings(k, True, False)


def _seatings(k: int, duplicate: bool, all_permutations: bool) -> list[tuple[int, ...]]:
    """Seat orders of a duplicate set, as permutations of the base seating."""
    if all_permutations:
        return list(itertools.permutations(range(k)))
    if duplicate:
        return [tuple((s + r) % k for s in range(k)) for r in range(k)]
    return [tuple(range(k))]


def _games(
    tables: Sequence[tuple[str, ...]],
    deal_sets: int,
    duplicate: bool,
    all_permutations: bool,
    seed: int | str,
    key: bytes,
) -> tuple[ScheduledGame, ...]:
    k = len(tables[0])
    seatings = _seatings(k, duplicate, all_permutations)
    letter = "p" if all_permutations else "r"
    games: list[ScheduledGame] = []
    for t, base in enumerate(tables, start=1):
        for d in range(1, deal_sets + 1):
            deal_seed = game_seed(key, seed, table=t, deal_set=d)
            for r, order in enumerate(seatings, start=1):
                if not duplicate:
                    # One game per deal set: rotate from set to set to balance seats.
                    order = tuple((s + d - 1) % k for s in range(k))
                games.append(
                    ScheduledGame(
                        index=len(games),
                        game_id=f"t{t}-d{d}-{letter}{r}",
                        table=t,
                        deal_set=d,
                        seating=r,
                        seed=deal_seed,
                        bots=tuple(base[i] for i in order),
                    )
                )
    return tuple(games)


def sample_tables(
    bots: Sequence[str], table_size: int, max_tables: int, *, seed: int | str = 0
) -> list[tuple[str, ...]]:
    """A balanced sample of tables: every bot at the same number, pairs spread evenly.

    The number of tables is the largest multiple of ``N / gcd(N, k)`` not
    above ``max_tables`` (at least one such multiple), so that each bot can sit
    at exactly ``tables * k / N`` of them. Tables are drawn greedily: a bot
    whose remaining quota equals the tables left must sit (this keeps the
    quotas feasible), and the other seats go to bots that have met the
    table's bots least often, ties broken by the seeded generator.
    """
    n, k = len(bots), table_size
    step = n // math.gcd(n, k)
    count = max(step, max_tables // step * step)
    quota = dict.fromkeys(bots, count * k // n)
    pairs: collections.Counter[frozenset[str]] = collections.Counter()
    rng = random.Random(derive_seed(seed, "sample"))
    tables: list[tuple[str, ...]] = []
    seen: set[frozenset[str]] = set()
    for left in range(count, 0, -1):
        table = [b for b in bots if quota[b] == left]
        while len(table) < k:
            table.append(_next_seat(bots, table, quota, pairs, seen, rng, k))
        for b in table:
            quota[b] -= 1
        for a, b in itertools.combinations(table, 2):
            pairs[frozenset((a, b))] += 1
        seen.add(frozenset(table))
        tables.append(tuple(sorted(table, key=bots.index)))
    return tables


def _next_seat(
    bots: Sequence[str],
    table: list[str],
    quota: dict[str, int],
    pairs: collections.Counter[frozenset[str]],
    seen: set[frozenset[str]],
    rng: random.Random,
    table_size: int,
) -> str:
    """The bot that best fills the next seat of ``table`` (see :func:`sample_tables`).

    Preferred: not completing a table already drawn, then the fewest meetings
    with the bot's most-met tablemate, then the fewest meetings in all, then
    the most quota left, then chance.
    """
    last_seat = len(table) + 1 == table_size

    def cost(bot: str) -> tuple[int, int, int, int, float]:
        met = [pairs[frozenset((bot, other))] for other in table]
        repeat = int(last_seat and frozenset([*table, bot]) in seen)
        return (repeat, max(met, default=0), sum(met), -quota[bot], rng.random())

    candidates = [b for b in bots if quota[b] > 0 and b not in table]
    return min(candidates, key=cost)
