"""The deals consistent with what a seat knows: counted, enumerated, and sampled uniformly.

:class:`~referee.search.pimc.Worlds` works out what a seat knows of the
others' hands (counts, voids, the clean first trick, hearts led unbroken,
its own pass) and samples deals quickly, but not exactly uniformly: with
constraints, dealing card by card in proportion to the seats' room favours
some deals. The strong bot does not mind; the analysis (:mod:`referee.analysis`)
does, since its estimates must converge to a defined quantity: the mean over
**every consistent deal, each equally likely**. :class:`Deals` gives exactly
that, from the same constraints.

The unseen cards fall into a few *groups* by the set of seats that may hold
them (a suit that two seats are void in, say). A deal is, group by group, how
many of the group's cards each allowed seat gets and which. :meth:`Deals.count`
counts the deals by dynamic programming over the groups and the seats' remaining
room; :meth:`Deals.sample` picks each group's split in proportion to the deals
that complete it (integer arithmetic, so the draw is exactly uniform), then
the cards at random; :meth:`Deals.enumerate` lists every deal (end positions).

Standard library only.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections.abc import Iterator

from referee.search.pimc import Worlds

__all__ = ["Deals"]


def _splits(size: int, room: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Every way to share ``size`` cards among seats with ``room`` places each."""
    if len(room) == 1:
        if size <= room[0]:
            yield (size,)
        return
    rest = sum(room[1:])
    for first in range(max(0, size - rest), min(size, room[0]) + 1):
        for tail in _splits(size - first, room[1:]):
            yield (first, *tail)


def _multinomial(size: int, parts: tuple[int, ...]) -> int:
    ways, left = 1, size
    for part in parts:
        ways *= math.comb(left, part)
        left -= part
    return ways


class Deals:
    """Every deal of the unseen cards that agrees with a :class:`~referee.search.pimc.Worlds`."""

    def __init__(self, worlds: Worlds) -> None:
        self.worlds = worlds
        others = worlds.others
        by_seats: dict[tuple[int, ...], list[int]] = {}
        for c in range(52):
            if worlds.free >> c & 1:
                seats = tuple(i for i, s in enumerate(others) if worlds.allowed[s] >> c & 1)
                by_seats.setdefault(seats, []).append(c)
        #: (indexes into ``others`` that may hold them, the cards), in a fixed order.
        self.groups = sorted(by_seats.items())
        self.need = tuple(worlds.need[s] for s in others)
        self._ways = functools.lru_cache(maxsize=None)(self._count_from)

    def _count_from(self, group: int, need: tuple[int, ...]) -> int:
        """Deals of groups ``group``.. into seats still needing ``need`` cards."""
        if group == len(self.groups):
            return 0 if any(need) else 1
        seats, cards = self.groups[group]
        total = 0
        for parts in _splits(len(cards), tuple(need[i] for i in seats)):
            rest = list(need)
            for i, part in zip(seats, parts, strict=True):
                rest[i] -= part
            after = self._ways(group + 1, tuple(rest))
            if after:
                total += _multinomial(len(cards), parts) * after
        return total

    def count(self) -> int:
        """How many deals agree with what the seat knows (0: the knowledge is inconsistent)."""
        if any(n < 0 for n in self.need):
            return 0
        return self._ways(0, self.need)

    def sample(self, rng: random.Random) -> list[int]:
        """One deal, every consistent deal equally likely: every seat's hand (the seat's own too)."""
        if not self.count():
            raise ValueError("no deal agrees with what the seat knows")
        hands = list(self.worlds.fixed)
        need = list(self.need)
        others = self.worlds.others
        for group, (seats, cards) in enumerate(self.groups):
            options = []
            for parts in _splits(len(cards), tuple(need[i] for i in seats)):
                rest = list(need)
                for i, part in zip(seats, parts, strict=True):
                    rest[i] -= part
                weight = _multinomial(len(cards), parts) * self._ways(group + 1, tuple(rest))
                if weight:
                    options.append((weight, parts, rest))
            pick = rng.randrange(sum(w for w, _, _ in options))
            chosen = options[-1]
            for option in options:
                pick -= option[0]
                if pick < 0:
                    chosen = option
                    break
            _, parts, rest = chosen
            shuffled = list(cards)
            rng.shuffle(shuffled)
            start = 0
            for i, part in zip(seats, parts, strict=True):
                for c in shuffled[start : start + part]:
                    hands[others[i]] |= 1 << c
                start += part
            need = rest
        hands[self.worlds.seat] = self.worlds.hand
        return hands

    def enumerate(self) -> Iterator[list[int]]:
        """Every consistent deal once, in a fixed order (use on end positions: see :meth:`count`)."""
        others = self.worlds.others

        def deal(group: int, need: tuple[int, ...], hands: list[int]) -> Iterator[list[int]]:
            if group == len(self.groups):
                if not any(need):
                    done = list(hands)
                    done[self.worlds.seat] = self.worlds.hand
                    yield done
                return
            seats, cards = self.groups[group]
            for parts in _splits(len(cards), tuple(need[i] for i in seats)):
                rest = list(need)
                for i, part in zip(seats, parts, strict=True):
                    rest[i] -= part
                if not self._ways(group + 1, tuple(rest)):
                    continue
                yield from _assign(cards, seats, parts, group, tuple(rest), hands)

        def _assign(
            cards: list[int],
            seats: tuple[int, ...],
            parts: tuple[int, ...],
            group: int,
            rest: tuple[int, ...],
            hands: list[int],
        ) -> Iterator[list[int]]:
            if not seats:
                yield from deal(group + 1, rest, hands)
                return
            for chosen in itertools.combinations(cards, parts[0]):
                mask = sum(1 << c for c in chosen)
                inner = list(hands)
                inner[others[seats[0]]] |= mask
                left = [c for c in cards if not mask >> c & 1]
                yield from _assign(left, seats[1:], parts[1:], group, rest, inner)

        yield from deal(0, self.need, list(self.worlds.fixed))
