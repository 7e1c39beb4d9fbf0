"""A balanced sample of the tables, when a round robin over tables would be too many.

Every bot sits at the same number of tables and every pair of bots meets
about equally often (:func:`sample_tables`); the games are those of a round
robin over the sampled tables.
"""

from __future__ import annotations

import collections
import itertools
import math
import random
from collections.abc import Sequence
from typing import Any, ClassVar

from referee.schedule.base import Scheduler, base_seating, check_tables, derive_seed

__all__ = ["SampledScheduler", "sample_tables"]


class SampledScheduler(Scheduler):
    """About ``max_tables`` tables of ``table_size`` of ``bots`` (see :func:`sample_tables`)."""

    sampled: ClassVar[bool] = True

    def __init__(self, bots: Sequence[str], *, max_tables: int, **settings: Any) -> None:
        super().__init__(**settings)
        check_tables(
            bots,
            self.table_size,
            duplicate=self.duplicate,
            all_permutations=self.all_permutations,
        )
        self.bots = tuple(bots)
        self.max_tables = max_tables
        groups = sample_tables(self.bots, self.table_size, max_tables, seed=self.seed)
        self._tables = tuple(
            base_seating(group, self.seed, t) for t, group in enumerate(groups, start=1)
        )

    @property
    def tables(self) -> tuple[tuple[str, ...], ...]:
        return self._tables


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
