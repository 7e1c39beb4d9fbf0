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

The bootstrap alone is overconfident with few sets: it only knows the sets
it has, so when one of two identical bots happened to be ahead in both of
two sets, every resample says so and it reports ``1..1`` and ``2..2``
(a Bayesian bootstrap's Dirichlet weights have the same blind spot: any
weighting of two sets that agree keeps their order). So each interval is
also widened to contain the rank of every bot it is not *clearly separated*
from (:func:`separated`): a paired Student's t test over the sets the two
bots share, which needs at least :data:`MIN_SETS` of them (the fewest with
which a bot ahead in every set is significant by a sign test, whatever the
distribution). With few sets the intervals are honestly wide; with many,
the test and the bootstrap agree and the widening rarely moves a bound.

Two bots whose intervals overlap cannot be told apart at that level
(:func:`overlapping`).

>>> sets = {("t1", d): {"a": 1.0 + d % 3, "b": 9.0 + d % 2} for d in range(20)}
>>> rank_intervals(sets, {"a": 1, "b": 2})
{'a': (1, 1), 'b': (2, 2)}
>>> rank_intervals({k: sets[k] for k in list(sets)[:2]}, {"a": 1, "b": 2})
{'a': (1, 2), 'b': (1, 2)}
"""

from __future__ import annotations

import collections
import itertools
import math
import random
from collections.abc import Hashable, Mapping, Sequence
from typing import TypeAlias

from referee.stats.distributions import t_quantile_975

__all__ = ["MIN_SETS", "REPLICATES", "RankInterval", "overlapping", "rank_intervals", "separated"]

#: Bootstrap replicates: the 2.5% quantile of 1000 is the 25th lowest rank. Large
#: journals get fewer (never below 200), so that standings stay quick to recompute:
#: about ``CELL_BUDGET`` (set, bot) cells are summed in all.
REPLICATES = 1000
MIN_REPLICATES = 200
CELL_BUDGET = 400_000
#: The seed of the draws (a constant: the intervals are a function of the journal).
SEED = "hearts-referee/rank-bootstrap/v1"
#: The fewest duplicate sets on which two bots can be told apart: a bot ahead in each of
#: n sets has a two-sided sign-test p of 2 / 2**n, below 5% from 6 sets on.
MIN_SETS = 6

RankInterval: TypeAlias = tuple[int, int]


def rank_intervals(
    sets: Mapping[Hashable, Mapping[str, float]],
    ranks: Mapping[str, int],
    *,
    lower_is_better: bool = True,
    replicates: int | None = None,
) -> dict[str, RankInterval]:
    """The 95% interval of each ranked bot's rank.

    ``sets`` maps each duplicate set to the measure of each bot that played
    in it (its points per hand in that set, for instance); ``ranks`` are the
    ranks the standings gave the bots to be bootstrapped (1 = best; the
    bots ranked for other reasons, such as a failed build, are left out).
    In a replicate a bot's rank is 1 + the number of bots with a strictly
    better mean; a bot that drew none of its sets keeps its mean over all of
    them. ``replicates`` defaults to :data:`REPLICATES`, fewer for a large
    journal (a function of its size only, so the result stays deterministic).
    Each interval also contains the given rank of every bot that is not
    :func:`separated` from it.

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
    tail = 0.025
    apart = _separated(rows, bots, ranks, sign)
    result = {}
    for bot in bots:
        me = index[bot]
        near = [ranks[other] for other in bots if other != bot and (me, index[other]) not in apart]
        low = high = ranks[bot]
        samples = sorted(drawn[me])
        if samples:
            low = min(low, samples[int(tail * len(samples))])
            high = max(high, samples[min(len(samples) - 1, int((1 - tail) * len(samples)))])
        result[bot] = (min([low, *near]), max([high, *near]))
    return result


def separated(
    sets: Mapping[Hashable, Mapping[str, float]],
    ranks: Mapping[str, int],
    *,
    lower_is_better: bool = True,
) -> set[tuple[str, str]]:
    """The pairs ``(better, worse)`` of ranked bots that are clearly apart, in their ranks' order.

    Two bots that shared at least :data:`MIN_SETS` sets are compared by a
    paired t test on the difference of their measures in those sets (the
    sets share the deals, so the pairing removes the deals' luck); two that
    shared fewer, by Welch's t test on their measures in all their sets, if
    each has at least :data:`MIN_SETS`. A pair is apart when the test's 95%
    interval of the difference excludes zero on the side of their ranks.

    >>> few = {("t", d): {"a": 2.0 + d, "b": 3.0 + d} for d in range(5)}
    >>> separated(few, {"a": 1, "b": 2})
    set()
    >>> many = {("t", d): {"a": 2.0 + d % 3, "b": 5.0 + d % 2} for d in range(6)}
    >>> separated(many, {"a": 1, "b": 2})
    {('a', 'b')}
    """
    bots = sorted(ranks)
    index = {bot: i for i, bot in enumerate(bots)}
    keys = sorted((k for k in sets if any(b in index for b in sets[k])), key=repr)
    rows = [[(index[b], v) for b, v in sets[k].items() if b in index] for k in keys]
    apart = _separated(rows, bots, ranks, 1.0 if lower_is_better else -1.0)
    return {(bots[i], bots[j]) for i, j in apart if ranks[bots[i]] < ranks[bots[j]]}


class _Moments:
    """Count, sum and sum of squares: a sample's mean and variance in one pass."""

    __slots__ = ("n", "squares", "total")

    def __init__(self) -> None:
        self.n = 0
        self.total = 0.0
        self.squares = 0.0

    def add(self, x: float) -> None:
        self.n += 1
        self.total += x
        self.squares += x * x

    def mean(self) -> float:
        return self.total / self.n

    def variance(self) -> float:
        mean = self.mean()
        return max(0.0, (self.squares - self.n * mean * mean) / (self.n - 1))


def _separated(
    rows: Sequence[Sequence[tuple[int, float]]],
    bots: Sequence[str],
    ranks: Mapping[str, int],
    sign: float,
) -> set[tuple[int, int]]:
    """Both orders ``(i, j)`` of every pair of bot indices that :func:`separated` calls apart."""
    alone = [_Moments() for _ in bots]
    paired: dict[tuple[int, int], _Moments] = collections.defaultdict(_Moments)
    for row in rows:
        for i, value in row:
            alone[i].add(sign * value)
        for (i, a), (j, b) in itertools.combinations(sorted(row), 2):
            paired[i, j].add(sign * (a - b))
    apart = set()
    for i, j in itertools.combinations(range(len(bots)), 2):
        # mean, squared standard error and degrees of freedom of (bot i - bot j): lower is better
        both = paired.get((i, j))
        if both is not None and both.n >= MIN_SETS:
            mean, se2, df = both.mean(), both.variance() / both.n, both.n - 1.0
        elif alone[i].n >= MIN_SETS and alone[j].n >= MIN_SETS:
            vi, vj = alone[i].variance() / alone[i].n, alone[j].variance() / alone[j].n
            mean, se2 = alone[i].mean() - alone[j].mean(), vi + vj
            terms = vi * vi / (alone[i].n - 1) + vj * vj / (alone[j].n - 1)
            df = se2 * se2 / terms if terms else alone[i].n + alone[j].n - 2.0
        else:
            continue
        half = t_quantile_975(max(1, math.floor(df))) * math.sqrt(se2)
        i_ahead = ranks[bots[i]] < ranks[bots[j]]
        if (mean < -half) if i_ahead else (mean > half):
            apart.update({(i, j), (j, i)})
    return apart


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
