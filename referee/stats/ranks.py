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
from (:func:`separated`): a Student's t test on the difference of their
means over the sets, the sets they shared taken as pairs, which needs at
least :data:`MIN_SETS` sets of each (the fewest with which a bot ahead in
every set is significant by a sign test, whatever the distribution).
With few sets the intervals are honestly wide; with many, the test and the
bootstrap agree and the widening rarely moves a bound.

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

    Two bots are compared by a t test on the difference of their means over
    their sets (the measure the ranks come from), with the variance the sets
    give it as independent units: the sets the two shared count as pairs
    (they share the deals, so the pairing removes the deals' luck and keeps
    the table's give and take). When they shared every set, this is the
    paired t test; when none, Welch's. Each bot needs at least
    :data:`MIN_SETS` sets, and the t quantile has the fewer bot's sets less
    one degrees of freedom. A pair is apart when the test's 95% interval of
    the difference excludes zero on the side of their ranks.

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
    """Count, sum and sum of squares of one bot's measures: mean and variance in one pass."""

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
    #: (i, j) -> [shared sets, sum of i's, sum of j's, sum of i's times j's] over the shared sets
    shared: dict[tuple[int, int], list[float]] = {}
    for row in rows:
        for i, value in row:
            alone[i].add(sign * value)
        for (i, a), (j, b) in itertools.combinations(sorted(row), 2):
            sums = shared.get((i, j))
            if sums is None:
                sums = shared[i, j] = [0, 0.0, 0.0, 0.0]
            sums[0] += 1
            sums[1] += sign * a
            sums[2] += sign * b
            sums[3] += a * b
    apart = set()
    for i, j in itertools.combinations(range(len(bots)), 2):
        mi, mj = alone[i], alone[j]
        if min(mi.n, mj.n) < MIN_SETS:
            continue
        mean_i, mean_j = mi.mean(), mj.mean()
        se2 = mi.variance() / mi.n + mj.variance() / mj.n
        both = shared.get((i, j))
        if both is not None:  # the shared sets' covariance of the two means
            n, sum_i, sum_j, products = both
            co = products - mean_j * sum_i - mean_i * sum_j + n * mean_i * mean_j
            se2 -= 2 * co / (mi.n * mj.n) * (n / (n - 1) if n > 1 else 1.0)
        half = t_quantile_975(min(mi.n, mj.n) - 1) * math.sqrt(max(0.0, se2))
        mean = mean_i - mean_j  # lower is better (the signs are flipped for "higher")
        if (mean < -half) if ranks[bots[i]] < ranks[bots[j]] else (mean > half):
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
