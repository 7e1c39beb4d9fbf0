"""Matchmaking: which bots sit at the ladder's next table.

The ladder plays duplicate sets: a table of ``k`` bots plays one deal
sequence ``k`` times, the seats rotated, so that every comparison between
two bots of the table is paired (the same cards, from every seat). Which
table comes next is chosen to shrink the ratings' uncertainty (OpenSkill's
sigma, :mod:`referee.stats.ratings`):

1. a new version first: a bot with fewer than ``first_sets`` sets (played or
   in flight) gets the next table, the one that has waited longest first, so
   that it has a rating within minutes of becoming active;
2. otherwise, among the bots that have played least (within one set of the
   fewest, so that every bot keeps playing), the one with the largest sigma
   (discounted for its sets in flight) is the anchor, and the table is the
   best of ``candidates`` random ones around it, scored by the uncertainty
   it seats (the sum of sigma squared) less the spread of its ratings (games
   between bots of about the same strength tell the most), a cost for seats
   given to bots that have played more, and a penalty for repeating a
   recent table.

:meth:`Matchmaker.pick` looks at each active bot once and scores a fixed
number of candidate tables, so it takes well under a millisecond per hundred
bots (bench/ladder.py measures it with 200).

>>> m = Matchmaker(table_size=4, seed=1)
>>> for name in "abcdef":
...     m.add(name)
>>> table = m.pick()
>>> len(table), len(set(table))
(4, 4)
"""

from __future__ import annotations

import collections
import dataclasses
import math
import random
from collections.abc import Iterable, Sequence

from referee.stats.ratings import DEFAULT_MU, DEFAULT_SIGMA, Ratings

__all__ = ["Matchmaker", "Standing"]


@dataclasses.dataclass(slots=True)
class Standing:
    """What matchmaking knows of one active bot."""

    name: str
    #: The order in which bots became active (a new version waits its turn by it).
    order: int
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    #: Duplicate sets journaled, and handed out but not yet journaled.
    sets: int = 0
    in_flight: int = 0


class Matchmaker:
    """Picks tables among the active bots; told of every set handed out and every game rated."""

    def __init__(
        self,
        *,
        table_size: int,
        seed: int,
        first_sets: int = 2,
        candidates: int = 48,
        recent_tables: int = 8,
    ) -> None:
        self.table_size = table_size
        self.first_sets = first_sets
        self.candidates = candidates
        self._rng = random.Random(seed)
        self._active: dict[str, Standing] = {}
        self._order = 0
        #: Every bot's rating (active or not): the journal's games, in the order rated.
        self.ratings = Ratings()
        self._recent: collections.deque[frozenset[str]] = collections.deque(maxlen=recent_tables)

    # What it is told ---------------------------------------------------------------------------

    def add(self, name: str, *, sets: int = 0) -> None:
        """A bot became active, having played ``sets`` sets (its rating is the one rated)."""
        if name in self._active:
            return
        self._order += 1
        rating = self.ratings.get(name)
        standing = Standing(name, self._order, sets=sets)
        if rating is not None:
            standing.mu, standing.sigma = rating.mu, rating.sigma
        self._active[name] = standing

    def remove(self, name: str) -> None:
        """A bot retired: no new table seats it (its sets in flight finish)."""
        self._active.pop(name, None)

    @property
    def active(self) -> list[str]:
        return list(self._active)

    def set_started(self, bots: Iterable[str]) -> None:
        """A duplicate set of these bots was handed out."""
        table = frozenset(bots)
        self._recent.append(table)
        for name in table:
            if name in self._active:
                self._active[name].in_flight += 1

    def set_finished(self, bots: Iterable[str], *, counted: bool = True) -> None:
        """A set handed out is over (``counted``: it reached the journal, at least in part)."""
        for name in frozenset(bots):
            standing = self._active.get(name)
            if standing is not None:
                standing.in_flight = max(0, standing.in_flight - 1)
                standing.sets += int(counted)

    def rate(self, bots: Sequence[str], placements: Sequence[int]) -> None:
        """One journaled game's result."""
        for name, rating in zip(bots, self.ratings.rate(bots, placements), strict=True):
            standing = self._active.get(name)
            if standing is not None:
                standing.mu, standing.sigma = rating.mu, rating.sigma

    # Picking -------------------------------------------------------------------------------------

    def pick(self) -> tuple[str, ...] | None:
        """The next table (bots in no particular order), or None with too few active bots."""
        k = self.table_size
        bots = list(self._active.values())
        if len(bots) < k:
            return None
        newest = [b for b in bots if b.sets + b.in_flight < self.first_sets]
        if newest:
            anchor = min(newest, key=lambda b: (b.sets + b.in_flight, b.order))
        else:
            # Among the bots that have played least (within a set of the fewest), the most
            # uncertain: every bot keeps playing, and the games go where sigma is largest.
            least = min(b.sets + b.in_flight for b in bots)
            band = [b for b in bots if b.sets + b.in_flight <= least + 1]
            anchor = max(band, key=lambda b: (_sigma(b), -b.order))
        others = [b for b in bots if b is not anchor]
        # The closest in rating among those least seen, plus random tables around the anchor.
        by_need = sorted(others, key=lambda b: (b.sets + b.in_flight, abs(b.mu - anchor.mu)))
        options = [by_need[: k - 1]]
        for _ in range(self.candidates):
            options.append(self._rng.sample(others, k - 1))
        least = min(b.sets + b.in_flight for b in others)
        best = max(options, key=lambda table: self._score(anchor, table, least))
        return tuple(b.name for b in (anchor, *best))

    def _score(self, anchor: Standing, table: Sequence[Standing], least: int) -> float:
        seats = (anchor, *table)
        uncertainty = sum(_sigma(b) ** 2 for b in seats)
        mus = [b.mu for b in seats]
        spread = max(mus) - min(mus)
        # Seats given to bots that have played more than the others cost a little.
        surplus = sum(b.sets + b.in_flight - least for b in table)
        repeat = 1.0 if frozenset(b.name for b in seats) in self._recent else 0.0
        return uncertainty - 2.0 * spread - 4.0 * surplus - 50.0 * repeat


def _sigma(bot: Standing) -> float:
    """A bot's sigma as it will be once its sets in flight are rated (about: each set's
    games shrink its variance as much as one more set's worth of evidence)."""
    return bot.sigma / math.sqrt(1.0 + bot.in_flight)
