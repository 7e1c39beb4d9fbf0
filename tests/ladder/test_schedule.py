"""The ladder's schedule kind (referee.schedule.ladder), as verify rebuilds it."""

from __future__ import annotations

from referee.folder import seal
from referee.schedule import LadderScheduler, is_ladder, schedule_of, seatings

KEY = bytes(range(32))


def test_a_set_is_the_rotations_of_its_base_with_the_keys_seed() -> None:
    games = list(LadderScheduler({5: ("a", "b", "c", "d")}, table_size=4, seed=9).games(KEY))
    assert [g.game_id for g in games] == [f"t5-d1-r{r}" for r in range(1, 5)]
    assert [g.index for g in games] == [16, 17, 18, 19]
    assert {g.seed for g in games} == {seal.game_seed(KEY, 9, table=5, deal_set=1)}
    for game, order in zip(games, seatings(4), strict=True):
        assert game.bots == tuple("abcd"[i] for i in order)
    # Every bot plays every seat once.
    for seat in range(4):
        assert {g.bots[seat] for g in games} == set("abcd")


def test_the_schedule_is_rebuilt_from_any_game_of_each_set() -> None:
    made = LadderScheduler({1: ("a", "b", "c", "d"), 3: ("e", "a", "c", "f")}, table_size=4, seed=1)
    games = list(made.games(KEY))
    journal = [{"type": "game", "game_id": g.game_id, "bots": list(g.bots)} for g in games]
    # Sets cut short: only some of their games in the journal, in any order.
    partial = [journal[6], journal[2], journal[7]]
    saved = {
        "config": {
            "ladder": {"format": "hearts-referee/ladder", "version": 1},
            "rules": {"num_players": 4},
            "bots": {},
            "schedule": {
                "deal_sets": 1,
                "duplicate": True,
                "all_permutations": False,
                "max_tables": None,
            },
        },
        "seed": 1,
    }
    assert is_ladder(saved["config"])
    rebuilt = schedule_of(saved, KEY, games=partial).by_id()
    assert rebuilt == {g.game_id: g for g in games}


def test_a_game_that_is_no_ladder_game_names_no_set() -> None:
    entries = [
        {"game_id": "t1-d2-r1", "bots": ["a", "b", "c", "d"]},  # a second deal set
        {"game_id": "t2-d1-r1", "bots": ["a", "a", "c", "d"]},  # a bot twice
        {"game_id": "t3-d1-r9", "bots": ["a", "b", "c", "d"]},  # no such seating
        {"game_id": "x", "bots": ["a", "b", "c", "d"]},
    ]
    assert LadderScheduler.from_journal(entries, table_size=4, seed=1).tables == ()
