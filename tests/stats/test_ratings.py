"""The one OpenSkill model (referee.stats.ratings): its updates, and standings and the web
charts giving the same ratings for the same games."""

from __future__ import annotations

import doctest
import random

import pytest
from openskill.models import PlackettLuce

from referee.stats import ratings as ratings_module
from referee.stats.ratings import DEFAULT_MU, DEFAULT_SIGMA, Rating, Ratings, rate_games
from referee.stats.standings import compute_standings
from referee.web.index import GameRow, rating_history

BOTS = ("a", "b", "c", "d", "e")


def random_games(seed: int, count: int) -> list[dict]:
    """Journal game entries with random tables and placements (ties included), out of order."""
    rng = random.Random(seed)
    entries = []
    for index in range(count):
        seats = rng.sample(BOTS, 4)
        scores = [rng.choice((0, 5, 13, 26, 40)) for _ in seats]
        placements = [1 + sum(other < score for other in scores) for score in scores]
        entries.append(
            {
                "type": "game",
                "game_id": f"g{index}",
                "index": index,
                "table": index // 4,
                "deal_set": 1,
                "bots": seats,
                "scores": scores,
                "placements": placements,
                "winners": [i for i, p in enumerate(placements) if p == 1],
                "hand_scores": [scores],
                "moons": [0, 0, 0, 0],
                "faults": [{}, {}, {}, {}],
                "forfeited": [False] * 4,
            }
        )
    rng.shuffle(entries)
    return entries


def as_row(entry: dict, position: int) -> GameRow:
    n = len(entry["bots"])
    return GameRow(
        index=entry["index"],
        position=position,
        game_id=entry["game_id"],
        bots=tuple(entry["bots"]),
        scores=tuple(entry["scores"]),
        placements=tuple(entry["placements"]),
        hands=1,
        moons=(0,) * n,
        faults=(0,) * n,
        fault_kinds=((),) * n,
        forfeited=(False,) * n,
        log=None,
        log_mac=None,
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_standings_and_the_web_charts_give_the_same_ratings(seed: int) -> None:
    entries = random_games(seed, 40)
    table = compute_standings(entries, bots=BOTS, ranking="ordinal")
    history = rating_history([as_row(e, i) for i, e in enumerate(entries)])
    in_order = sorted(entries, key=lambda e: e["index"])
    expected = rate_games((e["bots"], e["placements"]) for e in in_order)
    for row in table.bots:
        assert (row.mu, row.sigma, row.ordinal) == (
            expected[row.bot].mu,
            expected[row.bot].sigma,
            expected[row.bot].ordinal,
        )
        assert history[row.bot][-1][1] == round(row.ordinal, 4)
        assert len(history[row.bot]) == row.games
    # the schedule order, not the journal's, decides: the shuffled order would differ
    shuffled = rate_games((e["bots"], e["placements"]) for e in entries)
    assert any(shuffled[b] != expected[b] for b in BOTS)


def test_a_table_is_rated_by_openskill_plackett_luce() -> None:
    model = PlackettLuce()
    reference = {b: model.rating(name=b) for b in "wxyz"}
    ratings = Ratings("wxyz")
    for seats, placements in [
        ("wxyz", [1, 2, 3, 4]),
        ("zyxw", [1, 1, 3, 4]),
        ("xwzy", [4, 3, 2, 1]),
    ]:
        rated = model.rate([[reference[b]] for b in seats], ranks=placements)
        for bot, team in zip(seats, rated, strict=True):
            reference[bot] = team[0]
        new = ratings.rate(list(seats), placements)
        assert [r.mu for r in new] == [team[0].mu for team in rated]
    for bot in "wxyz":
        assert ratings[bot].mu == reference[bot].mu
        assert ratings[bot].sigma == reference[bot].sigma
        assert ratings[bot].ordinal == pytest.approx(reference[bot].ordinal(), abs=1e-12)


def test_new_bots_start_at_the_default_and_winners_gain() -> None:
    ratings = Ratings(["idle"])
    assert ratings["idle"] == Rating(DEFAULT_MU, DEFAULT_SIGMA)
    first, *_, last = ratings.rate(["p", "q", "r", "s"], [1, 2, 3, 4])
    assert first.mu > DEFAULT_MU > last.mu
    assert first.sigma < DEFAULT_SIGMA
    assert set(ratings) == {"idle", "p", "q", "r", "s"} and len(ratings) == 5
    assert ratings["idle"] == Rating()


def test_ratings_carry_over_from_saved_values() -> None:
    first = Ratings()
    first.rate(["p", "q", "r", "s"], [1, 2, 3, 4])
    saved = {bot: first[bot].to_dict() for bot in first}
    again = Ratings(initial={bot: Rating.from_dict(data) for bot, data in saved.items()})
    first.rate(["s", "r", "q", "p"], [1, 2, 3, 4])
    again.rate(["s", "r", "q", "p"], [1, 2, 3, 4])
    assert dict(again) == dict(first)


def test_a_table_that_does_not_add_up_is_refused() -> None:
    ratings = Ratings()
    with pytest.raises(ValueError, match="3 bots but 4 placements"):
        ratings.rate(["p", "q", "r"], [1, 2, 3, 4])
    assert len(ratings) == 0


def test_the_module_examples() -> None:
    assert doctest.testmod(ratings_module).failed == 0
