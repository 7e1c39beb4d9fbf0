"""The progress line's ``pts/hand`` is the standings' ``points_per_hand`` (issue 15, item 8).

Both are the mean over a bot's duplicate sets of its mean points per hand in
each set, which differs from total points over total hands as soon as the
sets have different numbers of hands.
"""

from __future__ import annotations

import io

import pytest

from referee.stats.render import render
from referee.stats.standings import PointsPerHand, compute_standings
from referee.tournament.progress import Progress


def game(game_id: str, table: int, deal_set: int, hand_scores: list[list[int]]) -> dict:
    bots = ["a", "b", "c"]
    totals = [sum(h[s] for h in hand_scores) for s in range(3)]
    placements = [1 + sum(t < totals[s] for t in totals) for s in range(3)]
    return {
        "type": "game",
        "game_id": game_id,
        "index": len(game_id),
        "table": table,
        "deal_set": deal_set,
        "bots": bots,
        "scores": totals,
        "placements": placements,
        "winners": [s for s in range(3) if placements[s] == 1],
        "hand_scores": hand_scores,
        "moons": [0, 0, 0],
        "faults": [{}, {}, {}],
        "forfeited": [False, False, False],
    }


# Set 1: three hands; set 2: one. For a: total/hands = (0+0+0+26)/4 = 6.5, but
# the mean of the set means is (0 + 26) / 2 = 13.
ENTRIES = [
    game("t1-d1-r1", 1, 1, [[0, 13, 13], [0, 20, 6], [0, 6, 20]]),
    game("t1-d2-r1", 1, 2, [[26, 0, 0]]),
]


def test_progress_shows_the_standings_figure():
    progress = Progress(stream=io.StringIO(), enabled=False)
    progress.start(len(ENTRIES))
    for entry in ENTRIES:
        progress.add(entry)
    standings = compute_standings(ENTRIES, bots=["a", "b", "c"])
    by_bot = {row.bot: row.points_per_hand for row in standings.bots}
    leaders = dict(progress.leaders())
    assert leaders == pytest.approx(by_bot)
    assert leaders["a"] == pytest.approx(13.0)  # not 6.5, total over hands
    line = progress.line()
    assert "| pts/hand: b 6.50, c 6.50, a 13.00" in line
    # The same figure, under the same label, in the final table.
    table = render(standings, "table")
    assert "pts/hand" in table
    assert "13.000" in table.split("Head to head")[0]


def test_points_per_hand_counts_each_set_once():
    points = PointsPerHand()
    assert points.mean() is None and points.interval() == (None, None)
    for entry in ENTRIES:
        points.add(entry, 0)
    assert points.set_means() == [0.0, 26.0]
    mean, ci = points.interval()
    assert mean == 13.0 and ci is not None and ci[0] < 13.0 < ci[1]
