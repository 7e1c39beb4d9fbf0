"""Standings from a hand-made journal match figures computed by hand."""

from __future__ import annotations

import csv
import io
import json
import math
import random

import pytest
from openskill.models import PlackettLuce

from referee.stats.distributions import t_quantile_975
from referee.stats.render import render
from referee.stats.standings import STANDINGS_FORMAT, STANDINGS_VERSION, compute_standings


def game(
    game_id: str,
    index: int,
    deal_set: int,
    bots: list[str],
    hand_scores: list[list[int]],
    placements: list[int],
    winners: list[int],
    **extra: object,
) -> dict[str, object]:
    scores = [sum(hand[s] for hand in hand_scores) for s in range(len(bots))]
    entry = {
        "type": "game",
        "game_id": game_id,
        "index": index,
        "table": 1,
        "deal_set": deal_set,
        "bots": bots,
        "scores": scores,
        "placements": placements,
        "winners": winners,
        "hand_scores": hand_scores,
        "moons": [0] * len(bots),
        "faults": [{} for _ in bots],
        "forfeited": [False] * len(bots),
    }
    entry.update(extra)
    return entry


# Three bots at a table of three; deal set 1 has two games of two hands, deal set 2 one game.
JOURNAL = [
    {"type": "journal", "format": "hearts-referee/journal", "version": 1},
    {"type": "run", "run": 1},
    {"type": "bot", "run": 1, "bot": "d", "status": "start_failed", "reason": "did not start: x"},
    game("g1", 0, 1, ["a", "b", "c"], [[10, 16, 0], [0, 0, 26]], [1, 2, 3], [0],
         moons=[0, 0, 1]),
    game("g2", 1, 1, ["b", "c", "a"], [[5, 5, 16], [13, 13, 0]], [2, 2, 1], [2]),
    game("g3", 2, 2, ["c", "a", "b"], [[0, 26, 0]], [1, 3, 1], [0, 2],
         faults=[{}, {"timeout": 2, "illegal_card": 1}, {}], forfeited=[False, True, False]),
]  # fmt: skip


def standings(ranking: str = "points", entries: list[dict[str, object]] | None = None):
    return compute_standings(
        JOURNAL if entries is None else entries,
        bots=["a", "b", "c", "d"],
        excluded={"e": "build failed (builds/e.build.log): error: no main"},
        ranking=ranking,
        name="hand",
        games_scheduled=4,
    )


def test_figures_per_bot() -> None:
    rows = {row.bot: row for row in standings().bots}
    a, b, c = rows["a"], rows["b"], rows["c"]
    assert (a.games, b.games, c.games) == (3, 3, 3)
    # a wins g1 and g2; b and c share g3.
    assert (a.wins, b.wins, c.wins) == (2.0, 0.5, 0.5)
    assert a.avg_placement == pytest.approx(5 / 3)
    assert b.avg_placement == pytest.approx(5 / 3)
    assert c.avg_placement == pytest.approx(2.0)
    # Per duplicate set: a: (10 + 16) / 4 = 6.5 and 26 / 1; b: 34 / 4 = 8.5 and 0; c: 44 / 4 and 0.
    assert a.points_per_hand == pytest.approx((6.5 + 26) / 2)
    assert b.points_per_hand == pytest.approx(4.25)
    assert c.points_per_hand == pytest.approx(5.5)
    half = 12.706 * (abs(26 - 6.5) / math.sqrt(2)) / math.sqrt(2)
    assert a.points_ci95 == pytest.approx((16.25 - half, 16.25 + half))
    assert a.duplicate_sets == 2 and a.hands == 5
    assert (a.moons, b.moons, c.moons) == (0, 0, 1)
    assert a.faults == {"timeout": 2, "illegal_card": 1} and a.fault_count == 3
    assert (a.forfeits, b.forfeits) == (1, 0)


def test_ranking_and_bots_that_did_not_play() -> None:
    table = standings()
    assert [(r.rank, r.bot, r.status) for r in table.bots] == [
        (1, "b", "ok"),
        (2, "c", "ok"),
        (3, "a", "ok"),
        (4, "d", "did_not_start"),
        (5, "e", "build_failed"),
    ]
    assert table.bots[3].reason == "run 1: did not start: x"
    assert table.bots[4].reason.startswith("build failed")
    assert table.games_played == 3 and not table.complete
    assert [r.bot for r in standings("wins").bots][:3] == ["a", "b", "c"]
    assert [r.bot for r in standings("placement").bots][:3] == ["b", "a", "c"]


def test_head_to_head() -> None:
    h2h = standings().head_to_head
    ab = h2h["a"]["b"]
    assert (ab.ahead, ab.tied, ab.behind) == (2, 0, 1)
    bc = h2h["b"]["c"]
    assert (bc.ahead, bc.tied, bc.behind) == (1, 2, 0)
    assert bc.score == pytest.approx(2 / 3)
    cb = h2h["c"]["b"]
    assert (cb.ahead, cb.tied, cb.behind) == (0, 2, 1)
    assert "d" not in h2h["a"]


def test_openskill_rates_games_in_schedule_order() -> None:
    model = PlackettLuce()
    ratings = {b: model.rating(name=b) for b in "abc"}
    for entry in JOURNAL[3:]:
        seats = entry["bots"]
        rated = model.rate([[ratings[b]] for b in seats], ranks=entry["placements"])
        for bot, team in zip(seats, rated, strict=True):
            ratings[bot] = team[0]
    rows = {row.bot: row for row in standings().bots}
    for bot in "abc":
        assert rows[bot].mu == pytest.approx(ratings[bot].mu)
        assert rows[bot].sigma == pytest.approx(ratings[bot].sigma)
        assert rows[bot].ordinal == pytest.approx(ratings[bot].ordinal())
    shuffled = JOURNAL[:]
    random.Random(1).shuffle(shuffled)
    assert standings(entries=shuffled).to_dict() == standings().to_dict()


def test_a_game_journaled_twice_counts_once() -> None:
    assert standings(entries=[*JOURNAL, JOURNAL[-1]]).to_dict() == standings().to_dict()


def test_t_quantiles() -> None:
    assert t_quantile_975(1) == 12.706
    assert t_quantile_975(30) == 2.042
    assert t_quantile_975(31) == pytest.approx(2.0395, abs=1e-3)
    assert t_quantile_975(1000) == pytest.approx(1.9623, abs=1e-3)


def test_json_contract() -> None:
    data = json.loads(render(standings(), "json"))
    assert data["format"] == STANDINGS_FORMAT and data["version"] == STANDINGS_VERSION
    assert data["tournament"] == "hand" and data["ranking"] == "points"
    assert (data["games_played"], data["games_scheduled"], data["complete"]) == (3, 4, False)
    first = data["bots"][0]
    assert set(first) >= {
        "rank", "bot", "status", "reason", "notes", "games", "wins", "avg_placement",
        "points_per_hand", "points_ci95", "duplicate_sets", "hands", "moons", "faults",
        "forfeits", "mu", "sigma", "ordinal", "ms_per_decision",
    }  # fmt: skip
    assert data["head_to_head"]["a"]["b"] == {"ahead": 2, "tied": 0, "behind": 1}


def test_text_formats() -> None:
    table = render(standings(), "table")
    assert "pts/hand" in table and "Head to head" in table
    assert "did_not_start [1]" in table  # the long reason is a footnote under the table
    assert "\n[1] d: run 1: did not start: x" in table
    assert "67% (3)" in table  # b ahead of c: 1 win and 2 ties in 3 games
    markdown = render(standings(), "markdown")
    assert "| rank" in markdown and markdown.startswith("## hand:")
    rows = list(csv.DictReader(io.StringIO(render(standings(), "csv"))))
    assert [r["bot"] for r in rows] == ["b", "c", "a", "d", "e"]
    assert rows[2]["faults"] == "illegal_card=1;timeout=2" and rows[2]["forfeits"] == "1"
    assert float(rows[0]["points_per_hand"]) == pytest.approx(4.25)


def test_many_bots_show_the_top_of_the_head_to_head_and_say_where_the_rest_is() -> None:
    bots = [f"bot-{n:02d}" for n in range(24)]
    rng = random.Random(3)
    entries = []
    for index in range(400):
        seats = rng.sample(bots, 4)
        placements = [1, 2, 3, 4]
        rng.shuffle(placements)
        hands = [[[0, 4, 9, 13][p - 1] for p in placements]]
        entries.append(game(f"g{index}", index, index, seats, hands, placements, [0]))
    table = compute_standings(entries, bots=bots, excluded={}, ranking="points", name="many")
    text = render(table, "table")
    head, h2h = text.split("Head to head")
    assert all(bot in head for bot in bots)  # every bot is ranked
    assert max(len(line) for line in h2h.splitlines()) < 200  # not 361 characters
    top = [b.bot for b in table.bots]
    assert all(bot in h2h for bot in top[:12]) and not any(bot in h2h for bot in top[12:-1])
    assert "the top 12 of 24 bots by rank; the whole matrix: head_to_head.csv" in h2h
    assert "--format h2h-csv" in h2h and "referee serve" in h2h
    pairs = list(csv.DictReader(io.StringIO(render(table, "h2h-csv"))))
    met = {(a, b) for a, row in table.head_to_head.items() for b, h in row.items() if h.games}
    assert {(r["bot"], r["opponent"]) for r in pairs} == met and len(met) > 12 * 11
    first = pairs[0]
    h = table.head_to_head[first["bot"]][first["opponent"]]
    assert (int(first["ahead"]), int(first["tied"]), int(first["behind"])) == (
        h.ahead,
        h.tied,
        h.behind,
    )
    assert float(first["score"]) == h.score
    few = render(standings(), "table")
    assert "the whole matrix" not in few


def test_csv_and_json_give_every_figure_at_full_precision() -> None:
    rows = list(csv.DictReader(io.StringIO(render(standings(), "csv"))))
    data = {b["bot"]: b for b in json.loads(render(standings(), "json"))["bots"]}
    for row in rows:
        for key in ("avg_placement", "points_per_hand"):
            if row[key]:
                assert float(row[key]) == data[row["bot"]][key]
    thirds = [b for b in standings().bots if b.avg_placement and b.games == 3]
    assert any(len(repr(b.avg_placement)) > 6 for b in thirds)  # 5/3 is not cut to 1.667


def _set_game(name: str, table: int, deal_set: int, bots: list[str], points: list[int]):
    """One game of a duplicate set: one hand with these points, placed by them."""
    order = sorted(range(len(bots)), key=lambda s: points[s])
    placements = [1 + sorted(points).index(points[s]) for s in range(len(bots))]
    entry = game(name, table * 1000 + deal_set, deal_set, bots, [points], placements, [order[0]])
    entry["table"] = table
    return entry


def _rotations(r: random.Random, sets: int, strong: str | None) -> list[dict[str, object]]:
    """Four bots over ``sets`` duplicate sets of four rotations; ``strong`` takes fewer points."""
    bots = ["a", "b", "c", "d"]
    entries = []
    for d in range(1, sets + 1):
        deal = [r.randint(0, 13) for _ in bots]
        for rot in range(4):
            seated = bots[rot:] + bots[:rot]
            points = [max(0, deal[s] - (20 if b == strong else 0)) + r.randint(0, 3)
                      for s, b in enumerate(seated)]  # fmt: skip
            entries.append(_set_game(f"d{d}-r{rot}", 1, d, seated, points))
    return entries


def test_rank_intervals_of_identical_bots_overlap_and_say_so() -> None:
    """Four copies of one bot: bootstrap rank ranges over the duplicate sets overlap (32 sets)."""
    entries = _rotations(random.Random(4), 32, strong=None)
    table = compute_standings(entries, bots=["a", "b", "c", "d"], name="same")
    for row in table.bots:
        assert row.rank_ci95 is not None
        low, high = row.rank_ci95
        assert low <= row.rank <= high and high > low
        assert row.rank_tied_with  # cannot be told apart from at least one other copy
    text = render(table, "table")
    assert "\u2248: ranks that cannot be told apart" in text
    data = json.loads(render(table, "json"))["bots"]
    assert all(b["rank_ci95"][0] < b["rank_ci95"][1] and b["rank_tied_with"] for b in data)
    markdown = render(table, "markdown")
    assert f"| {data[0]['rank_ci95'][0]}..{data[0]['rank_ci95'][1]} \u2248 " in markdown


def test_rank_interval_of_a_bot_far_ahead_is_one_to_one() -> None:
    entries = _rotations(random.Random(5), 32, strong="c")
    table = compute_standings(entries, bots=["a", "b", "c", "d"], name="ahead")
    first = table.bots[0]
    assert first.bot == "c" and first.rank_ci95 == (1, 1) and first.rank_tied_with == ()
    assert all("c" not in row.rank_tied_with for row in table.bots[1:])
    first_row = render(table, "table").splitlines()[3].split()
    assert first_row[:2] == ["1", "c"] and first_row[9] == "1..1"
    rows = list(csv.DictReader(io.StringIO(render(table, "csv"))))
    assert (rows[0]["rank_low"], rows[0]["rank_high"]) == ("1", "1")


def test_rank_intervals_are_deterministic_and_follow_the_ranking() -> None:
    entries = _rotations(random.Random(6), 24, strong=None)
    shuffled = list(entries)
    random.Random(1).shuffle(shuffled)
    bots = ["a", "b", "c", "d"]
    first = compute_standings(entries, bots=bots)
    again = compute_standings(shuffled, bots=bots)
    assert [(b.bot, b.rank_ci95) for b in first.bots] == [(b.bot, b.rank_ci95) for b in again.bots]
    for ranking in ("placement", "wins"):
        table = compute_standings(entries, bots=bots, ranking=ranking)
        assert all(b.rank_ci95 is not None for b in table.bots)
    by_ordinal = compute_standings(entries, bots=bots, ranking="ordinal")
    assert all(b.rank_ci95 is None for b in by_ordinal.bots)  # not a mean over sets


def test_rank_intervals_leave_out_bots_that_did_not_play() -> None:
    table = standings()
    by_bot = {b.bot: b for b in table.bots}
    assert by_bot["d"].rank_ci95 is None and by_bot["e"].rank_ci95 is None
    assert all(by_bot[b].rank_ci95 is not None for b in "abc")
