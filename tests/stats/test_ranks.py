"""Rank intervals (referee.stats.ranks): honest with few duplicate sets, sharp with many
(issue 28: two identical bots over two sets were ranked 1..1 and 2..2)."""

from __future__ import annotations

import doctest
import random

import pytest

from referee.stats import ranks as ranks_module
from referee.stats.ranks import MIN_SETS, overlapping, rank_intervals, separated
from referee.stats.render import render
from referee.stats.standings import compute_standings


def two_bots(rng: random.Random, sets: int, gap: float, noise: float = 1.0) -> dict:
    """Per-set points of ``a`` and ``b`` (``b`` takes ``gap`` more), each set's deal shared."""
    result = {}
    for d in range(sets):
        deal = rng.uniform(0, 10)
        result["t", d] = {
            "a": deal + rng.gauss(0, noise),
            "b": deal + gap + rng.gauss(0, noise),
        }
    return result


def ranked(sets: dict, lower_is_better: bool = True) -> dict[str, int]:
    """The bots ranked by their mean over their sets, as the standings rank them."""
    totals: dict[str, list[float]] = {}
    for row in sets.values():
        for bot, value in row.items():
            totals.setdefault(bot, []).append(value)
    means = {bot: sum(v) / len(v) for bot, v in totals.items()}
    order = sorted(means, key=lambda b: means[b] if lower_is_better else -means[b])
    return {bot: rank for rank, bot in enumerate(order, start=1)}


def test_identical_bots_over_two_sets_overlap_even_when_one_led_both() -> None:
    # The bug: "a" was ahead of its identical copy in both sets, so every bootstrap
    # resample agreed and the intervals were 1..1 and 2..2.
    sets = {("t", 1): {"a": 2.9, "b": 3.3}, ("t", 2): {"a": 2.1, "b": 2.5}}
    intervals = rank_intervals(sets, {"a": 1, "b": 2})
    assert intervals == {"a": (1, 2), "b": (1, 2)}
    assert overlapping(intervals) == {"a": ["b"], "b": ["a"]}


@pytest.mark.parametrize("count", range(2, MIN_SETS))
def test_no_pair_is_told_apart_below_the_minimum_of_sets(count: int) -> None:
    """However lopsided: a bot ahead by 20 points in every one of fewer than 6 sets."""
    rng = random.Random(count)
    sets = two_bots(rng, count, gap=20.0, noise=0.01)
    assert separated(sets, {"a": 1, "b": 2}) == set()
    assert rank_intervals(sets, {"a": 1, "b": 2}) == {"a": (1, 2), "b": (1, 2)}


def test_clearly_different_bots_over_many_sets_separate() -> None:
    sets = two_bots(random.Random(3), 30, gap=3.0)
    ranks = ranked(sets)
    assert ranks == {"a": 1, "b": 2}
    assert separated(sets, ranks) == {("a", "b")}
    assert rank_intervals(sets, ranks) == {"a": (1, 1), "b": (2, 2)}


def test_identical_bots_are_rarely_told_apart_and_different_ones_usually_are() -> None:
    """The test's error rates: about 5% false separations, and power against a real gap."""
    rng = random.Random(28)
    trials = 400
    false = sum(
        bool(separated(s, ranked(s))) for s in (two_bots(rng, 10, 0.0) for _ in range(trials))
    )
    assert false / trials < 0.09
    found = sum(
        bool(separated(s, ranked(s))) for s in (two_bots(rng, 10, 2.0) for _ in range(trials))
    )
    assert found / trials > 0.9  # a gap of 1.4 standard deviations of a set's difference


def test_a_difference_against_the_ranks_order_does_not_separate() -> None:
    sets = two_bots(random.Random(5), 20, gap=4.0)
    assert separated(sets, {"a": 2, "b": 1}) == set()  # ranked the wrong way round
    assert separated(sets, {"a": 1, "b": 2}, lower_is_better=False) == set()


def test_bots_that_never_shared_a_set_are_compared_by_their_own_sets() -> None:
    rng = random.Random(6)
    sets = {("a", d): {"a": rng.gauss(3, 1)} for d in range(12)}
    sets |= {("b", d): {"b": rng.gauss(9, 1)} for d in range(12)}
    assert separated(sets, {"a": 1, "b": 2}) == {("a", "b")}
    few = {k: v for k, v in sets.items() if k[1] < MIN_SETS - 1}
    assert separated(few, {"a": 1, "b": 2}) == set()


def test_an_interval_spans_every_bot_it_is_not_separated_from() -> None:
    rng = random.Random(7)
    sets = {}
    for d in range(30):
        deal = rng.uniform(0, 10)
        sets["t", d] = {
            "a": deal + rng.gauss(0, 1),
            "b": deal + rng.gauss(0, 1),  # a copy of a
            "c": deal + 6 + rng.gauss(0, 1),
        }
    ranks = ranked(sets)
    intervals = rank_intervals(sets, ranks)
    assert intervals["c"] == (3, 3)
    assert intervals["a"] == intervals["b"] == (1, 2)


def _set(table: int, deal_set: int, points: dict[str, float]) -> list[dict]:
    """A duplicate set as journal game entries: each bot's points per hand in one game each."""
    bots = sorted(points)
    scores = [round(points[b]) for b in bots]
    placements = [1 + sum(o < s for o in scores) for s in scores]
    return [
        {
            "type": "game",
            "game_id": f"t{table}-d{deal_set}",
            "index": table * 100 + deal_set,
            "table": table,
            "deal_set": deal_set,
            "bots": bots,
            "scores": scores,
            "placements": placements,
            "winners": [i for i, p in enumerate(placements) if p == 1],
            "hand_scores": [scores],
            "moons": [0] * len(bots),
            "faults": [{}] * len(bots),
            "forfeited": [False] * len(bots),
        }
    ]


def test_the_standings_of_two_identical_bots_over_two_sets_say_they_cannot_be_told_apart() -> None:
    entries = _set(1, 1, {"h": 3, "h2": 4, "r": 10, "r2": 12})
    entries += _set(1, 2, {"h": 2, "h2": 3, "r": 11, "r2": 9})
    table = compute_standings(entries, bots=["h", "h2", "r", "r2"])
    assert [(b.bot, b.rank_ci95) for b in table.bots][:2] == [("h", (1, 4)), ("h2", (1, 4))]
    assert all(b.rank_tied_with for b in table.bots)
    assert "1..1" not in render(table, "table")


def test_the_module_examples() -> None:
    assert doctest.testmod(ranks_module).failed == 0


def test_a_large_sampled_tournament_keeps_informative_intervals() -> None:
    """40 bots at random tables of 4 over 2,000 sets: a pair shares about 15 sets, each bot
    has about 200; the test uses them all, so bots a point per hand apart are told apart."""
    rng = random.Random(8)
    bots = [f"b{i:02d}" for i in range(40)]
    sets = {}
    for d in range(2000):
        deal = rng.uniform(0, 10)
        sets["t", d] = {b: deal + int(b[1:]) * 0.5 + rng.gauss(0, 3) for b in rng.sample(bots, 4)}
    ranks = ranked(sets)
    apart = separated(sets, ranks)
    means = {b: sum(r[b] for r in sets.values() if b in r) for b in bots}
    counts = {b: sum(b in r for r in sets.values()) for b in bots}
    means = {b: means[b] / counts[b] for b in bots}
    for a in bots:
        for b in bots:
            if means[a] + 1.0 < means[b]:
                assert (a, b) in apart, (a, b, means[a], means[b])
