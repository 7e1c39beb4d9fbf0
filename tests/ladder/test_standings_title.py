"""referee standings on a ladder's folder: a ladder has no end, so its title counts games so far."""

from __future__ import annotations

from referee.stats.render import render
from referee.stats.standings import compute_standings


def test_a_ladder_title_says_games_played_so_far_not_of_what() -> None:
    # The ladder's run entry has no games_scheduled: it plays on.
    ladder = compute_standings([], bots=["owls/v1", "larks/v1"], name="spring")
    title = render(ladder, "table").splitlines()[0]
    assert "0 games played so far" in title
    assert "?" not in title and "incomplete" not in title


def test_a_tournament_short_of_its_schedule_is_still_incomplete() -> None:
    tournament = compute_standings([], bots=["a", "b"], name="cup", games_scheduled=12)
    title = render(tournament, "table").splitlines()[0]
    assert "0 of 12 games (incomplete)" in title
