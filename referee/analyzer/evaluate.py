"""The expected points of every choice of one decision, from the deciding seat's knowledge only.

This is the strong bot's determinized search (:mod:`referee.search`) turned
into a judge. For a play, the worlds are deals of the cards the seat has not
seen that agree with everything it knew (:class:`~referee.search.deals.Deals`:
every consistent deal equally likely); in each world every legal card is
played and the hand finished with the playout policy
(:func:`~referee.search.sim.playout`), and the seat's points for the hand are
counted. A card's *expected points* is their mean over the worlds; its *loss*
is how much worse that is than the best card's, with the standard error of
that difference over the worlds (the same worlds for every card: paired).

When no more deals are consistent than the search may play (end positions),
it plays every one of them once: the values are then exact, the mean over
consistent deals of the playout's result, and the error 0. Sampling, the
values converge to that same quantity (tests/analysis checks both).

A pass is judged the same way over deals of the 39 unseen cards, the others
passing by the built-in heuristic's rule, among a set of candidate passes
(:func:`pass_options`) that always includes the pass made.

Every search is seeded (:func:`decision_rng`), so an analysis with the same
settings gives the same figures, unless its time budget cut a search short
(:attr:`Estimate.cut` says so).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
import time
from collections.abc import Callable, Iterable

from referee.search.deals import Deals
from referee.search.pimc import (
    Knowledge,
    Worlds,
    candidates,
    choose_pass,
    moon_pick,
    pass_world,
)
from referee.search.sim import (
    HEARTS,
    SHOOTER_CHOOSES,
    SUBTRACT_FROM_SELF,
    Variant,
    hand_scores,
    playout,
)

__all__ = [
    "Estimate",
    "OptionValue",
    "Settings",
    "decision_rng",
    "evaluate_pass",
    "evaluate_play",
    "pass_options",
]

#: Worlds every search plays, whatever its time budget (a standard error needs a few).
MIN_WORLDS = 8


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """How hard the analysis searches; recorded in every analysis file."""

    #: Worlds (deals) searched per decision, at most; all of them when fewer are consistent.
    worlds: int = 200
    #: Time allowed per decision (ms): the search stops at whichever limit comes first.
    budget_ms: int = 500
    #: The seed of every search's random numbers (with the game and the decision).
    seed: int = 0
    #: A pass's candidates: every 3 of this many cards the hand evaluation finds most dangerous.
    pass_width: int = 5

    def __post_init__(self) -> None:
        for name, least in (("worlds", MIN_WORLDS), ("budget_ms", 1), ("pass_width", 3)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                raise ValueError(
                    f"{name} must be a whole number of at least {least}, not {value!r}"
                )
        if not isinstance(self.seed, int) or isinstance(self.seed, bool):
            raise ValueError(f"seed must be a whole number, not {self.seed!r}")

    def to_dict(self) -> dict[str, int]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True, slots=True)
class OptionValue:
    """One choice: its cards, expected points for the hand, loss against the best, and error."""

    cards: tuple[int, ...]
    points: float
    loss: float
    #: Standard error of ``loss`` (0 for the best choice and for exact values).
    error: float
    #: Standard error of ``points`` (0 for exact values).
    points_error: float = 0.0


@dataclasses.dataclass(frozen=True, slots=True)
class Estimate:
    """Every choice's value, best first, and how they were found."""

    options: tuple[OptionValue, ...]
    worlds: int
    #: Every consistent deal was played: the values are exact.
    exact: bool
    #: The time budget stopped the search before its worlds.
    cut: bool

    def of(self, cards: Iterable[int]) -> OptionValue:
        """The option of these cards (a pass in any order)."""
        key = tuple(sorted(cards))
        for option in self.options:
            if tuple(sorted(option.cards)) == key:
                return option
        raise KeyError(key)

    @property
    def best(self) -> OptionValue:
        return self.options[0]


def decision_rng(settings: Settings, game_seed: object, decision: str) -> random.Random:
    """The random numbers of one decision's search: a function of the seed, game and decision."""
    return random.Random(f"hearts-referee/analysis:{settings.seed}:{game_seed}:{decision}")


def _standard_error(values: list[float]) -> float:
    """The standard error of the mean of ``values`` (at least two)."""
    mean = sum(values) / len(values)
    variance = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return math.sqrt(variance / len(values))


def _estimate(
    choices: list[tuple[int, ...]],
    rows: list[list[float]],
    *,
    exact: bool,
    cut: bool,
    aliases: dict[tuple[int, ...], tuple[int, ...]] | None = None,
) -> Estimate:
    """Means, losses against the best and paired standard errors of the rows (one per world)."""
    count = len(rows)
    means = [sum(row[i] for row in rows) / count for i in range(len(choices))]
    best = min(range(len(choices)), key=lambda i: (means[i], i))
    values: dict[tuple[int, ...], OptionValue] = {}
    for i, choice in enumerate(choices):
        error = spread = 0.0
        if not exact and count > 1:
            spread = _standard_error([row[i] for row in rows])
            if i != best:
                error = _standard_error([row[i] - row[best] for row in rows])
        values[choice] = OptionValue(choice, means[i], means[i] - means[best], error, spread)
    for alias, same in (aliases or {}).items():
        v = values[same]
        values[alias] = OptionValue(alias, v.points, v.loss, v.error, v.points_error)
    ordered = sorted(values.values(), key=lambda v: (v.points, v.loss, v.cards))
    return Estimate(tuple(ordered), count, exact, cut)


def _worlds_of(
    deals: Deals, settings: Settings, rng: random.Random
) -> tuple[Iterable[list[int]], bool]:
    """The deals to search: all of them when few enough (exact), else a uniform sample."""
    if deals.count() <= settings.worlds:
        return deals.enumerate(), True
    return (deals.sample(rng) for _ in range(settings.worlds)), False


def evaluate_play(
    k: Knowledge,
    settings: Settings,
    rng: random.Random,
    *,
    clock: Callable[[], float] = time.monotonic,
) -> Estimate:
    """Every legal card's expected points for the hand, seen from ``k`` (see the module's text)."""
    v = k.variant
    seat = k.seat
    worlds = Worlds(k, rng)
    deals = Deals(worlds)
    moves = candidates(k.legal, worlds.played)
    # Cards with only played cards between them play alike: valued once (pimc.candidates).
    aliases: dict[tuple[int, ...], tuple[int, ...]] = {}
    legal = [c for c in range(52) if k.legal >> c & 1]
    for c in legal:
        if c not in moves:
            aliases[(c,)] = (max(m for m in moves if m < c and m // 13 == c // 13),)
    if len(legal) == 1:
        return Estimate((OptionValue((legal[0],), math.nan, 0.0, 0.0),), 0, True, False)
    choose = v.moon_scoring == SHOOTER_CHOOSES
    deadline = clock() + settings.budget_ms / 1000
    deal_iter, exact = _worlds_of(deals, settings, rng)
    rows: list[list[float]] = []
    cut = False
    for hands in deal_iter:
        row = []
        for m in moves:
            h = list(hands)
            h[seat] &= ~(1 << m)
            taken = playout(
                v,
                h,
                list(worlds.taken),
                k.leader,
                [*k.current, m],
                len(k.tricks),
                k.hearts_broken or bool((1 << m) & HEARTS) or (v.qs_breaks and m == 49),
            )
            choice = moon_pick(k, taken) if choose else None
            row.append(float(hand_scores(v, taken, choice)[seat]))
        rows.append(row)
        if len(rows) >= MIN_WORLDS and clock() >= deadline:
            cut = True
            break
    if cut:
        exact = False
    return _estimate([(m,) for m in moves], rows, exact=exact, cut=cut, aliases=aliases)


def pass_options(
    hand: int, count: int, variant: Variant, made: Iterable[int], width: int
) -> list[tuple[int, ...]]:
    """The passes a pass is compared with: the one made, the hand evaluation's, and every
    ``count`` of the ``width`` cards that evaluation finds most dangerous (sorted tuples)."""
    order: list[int] = []
    picked = 0
    for _ in range(width):
        left = hand & ~picked
        if not left:
            break
        c = choose_pass(left, 1, variant)[0]
        order.append(c)
        picked |= 1 << c
    options = [tuple(sorted(made)), tuple(sorted(choose_pass(hand, count, variant)))]
    options.extend(itertools.combinations(sorted(order), count))
    return list(dict.fromkeys(options))


def evaluate_pass(
    *,
    hand: int,
    made: Iterable[int],
    variant: Variant,
    seat: int,
    pass_to: int,
    settings: Settings,
    rng: random.Random,
    clock: Callable[[], float] = time.monotonic,
) -> Estimate:
    """The expected points for the hand of the pass made and of the candidate passes.

    Each world deals the 39 unseen cards to the others (uniformly), lets them
    pass by the built-in heuristic's rule (:func:`~referee.search.pimc.simple_pass`),
    exchanges, and plays the whole hand out with the playout policy.
    """
    made = tuple(sorted(made))
    count = len(made)
    options = pass_options(hand, count, variant, made, settings.pass_width)
    masks = [sum(1 << c for c in option) for option in options]
    n = variant.n
    offset = (pass_to - seat) % n
    per = variant.tricks
    others = [s for s in range(n) if s != seat]
    unseen = [c for c in range(52) if (variant.deck & ~hand) >> c & 1]
    choose = variant.moon_scoring == SHOOTER_CHOOSES
    deadline = clock() + settings.budget_ms / 1000
    rows: list[list[float]] = []
    cut = False
    for _ in range(settings.worlds):
        after = pass_world(rng, unseen, hand, seat, others, per, count, offset, n)
        row = []
        for m in masks:
            h = list(after)
            h[seat] &= ~m
            h[pass_to] |= m
            leader = next(s for s in range(n) if h[s] & variant.first_lead)
            taken = playout(variant, h, [0] * n, leader, [], 0, False)
            mine = taken[seat] & variant.moon == variant.moon
            choice = SUBTRACT_FROM_SELF if choose and mine else None
            row.append(float(hand_scores(variant, taken, choice)[seat]))
        rows.append(row)
        if len(rows) >= MIN_WORLDS and clock() >= deadline:
            cut = True
            break
    return _estimate(options, rows, exact=False, cut=cut)
