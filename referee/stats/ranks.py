"""Rank intervals: how sure a ranking is, by a bootstrap over duplicate sets.

A bot's rank in the standings comes from a mean over its duplicate sets
(points per hand, say). Play the same bots on other deals and the means move,
and so may the ranks. :func:`rank_intervals` resamples the duplicate sets
with replacement (the sets are the independent units: the games of a set
share its deals), recomputes every bot's mean over the resampled sets and
ranks the bots again, ``replicates`` times; a bot's interval is the 2.5% and
97.5% quantiles of its ranks, widened to contain the rank it was given, as
LMSYS's Chatbot Arena shows rank ranges. The random draws are seeded with a
constant and the sets taken in a canonical order, so the same journal always
gives the same intervals.

Two bots whose intervals overlap cannot be told apart at that level
(:func:`overlapping`).

>>> sets = {("t1", d): {"a": 1.0 + d % 3, "b": 9.0 + d % 2} for d in range(20)}
>>> rank_intervals(sets, {"a": 1, "b": 2})
{'a': (1, 1), 'b': (2, 2)}
"""

from __future__ import annotations

import collections
import random
from collections.abc import Hashable, Mapping
from typing import TypeAlias

__all__ = ["REPLICATES", "RankInterval", "overlapping", "rank_intervals"]

#: Bootstrap replicates: the 2.5% quantile of 1000 is the 25th lowest rank. Large
#: journals get fewer (never below 200), so that standings stay quick to recompute:
#: about ``CELL_BUDGET`` (set, bot) cells are summed in all.
REPLICATES = 1000
MIN_REPLICATES = 200
CELL_BUDGET = 400_000
#: The seed of the draws (a constant: the intervals are a function of the journal).
SEED = "hearts-referee/rank-bootstrap/v1"

RankInterval: TypeAlias = tuple[int, int]


def rank_intervals(
    sets: Mapping[Hashable, Mapping[str, float]],
    ranks: Mapping[str, int],
    *,
    lower_is_better: bool = True,
    replicates: int | None = None,
    level: float = 0.95,
) -> dict[str, RankInterval]:
    """The ``level`` interval of each ranked bot's rank.

    ``sets`` maps each duplicate set to the measure of each bot that played
    in it (its points per hand in that set, for instance); ``ranks`` are the
    ranks the standings gave the bots to be bootstrapped (1 = best; the
    bots ranked for other reasons, such as a failed build, are left out).
    In a replicate a bot's rank is 1 + the number of bots with a strictly
    better mean; a bot that drew none of its sets keeps its mean over all of
    them. ``replicates`` defaults to :data:`REPLICATES`, fewer for a large
    journal (a function of its size only, so the result stays deterministic).

    >>> same = {("t", d): {"a": float(d % 5), "b": float((d + 2) % 5)} for d in range(30)}
    >>> lo_a, hi_a = rank_intervals(same, {"a": 1, "b": 2})["a"]
    >>> lo_a, hi_a
    (1, 2)
    """
    bots = sorted(ranks)
    if not bots:
        return {}
    index = {bot: i for i, bot in enumerate(bots)}
    keys = sorted((k for k in sets if any(b in index for b in sets[k])), key=repr)
    rows = [[(index[b], v) for b, v in sets[k].items() if b in index] for k in keys]
    sign = 1.0 if lower_is_better else -1.0
    overall = [0.0] * len(bots)
    counts = [0] * len(bots)
    for row in rows:
        for i, value in row:
            overall[i] += value
            counts[i] += 1
    overall = [s / c if c else 0.0 for s, c in zip(overall, counts, strict=True)]
    if replicates is None:
        cells = sum(len(row) for row in rows)
        replicates = max(MIN_REPLICATES, min(REPLICATES, CELL_BUDGET // max(1, cells)))
    rng = random.Random(SEED)
    drawn: list[list[int]] = [[] for _ in bots]
    population = range(len(rows))
    for _ in range(replicates if rows else 0):
        sums = [0.0] * len(bots)
        weights = [0] * len(bots)
        for position, times in collections.Counter(rng.choices(population, k=len(rows))).items():
            for i, value in rows[position]:
                sums[i] += times * value
                weights[i] += times
        means = [sign * (s / w if w else m) for s, w, m in zip(sums, weights, overall, strict=True)]
        for i, mine in enumerate(means):
            drawn[i].append(1 + sum(other < mine for other in means))
    tail = (1 - level) / 2
    result = {}
    for bot in bots:
        given = ranks[bot]
        samples = sorted(drawn[index[bot]])
        if not samples:
            result[bot] = (given, given)
            continue
        low = samples[int(tail * len(samples))]
        high = samples[min(len(samples) - 1, int((1 - tail) * len(samples)))]
        result[bot] = (min(low, given), max(high, given))
    return result


def overlapping(intervals: Mapping[str, RankInterval]) -> dict[str, list[str]]:
    """For each bot, the other bots whose rank interval overlaps its own (by rank).

    >>> overlapping({"a": (1, 2), "b": (1, 3), "c": (3, 3), "d": (4, 4)})
    {'a': ['b'], 'b': ['a', 'c'], 'c': ['b'], 'd': []}
    """
    return {
        bot: [
            other
            for other, (lo, hi) in sorted(intervals.items(), key=lambda kv: (kv[1], kv[0]))
            if other != bot and lo <= mine[1] and mine[0] <= hi
        ]
        for bot, mine in intervals.items()
    }
