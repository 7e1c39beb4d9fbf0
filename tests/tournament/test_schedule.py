"""Schedule properties: every combination, seat balance, duplicate sets, seeds, sampling."""

from __future__ import annotations

import collections
import itertools
import math
import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from referee.folder.seal import game_seed
from referee.tournament.schedule import make_schedule, sample_tables

BOTS = [f"bot{i}" for i in range(6)]
KEY = bytes(range(32))


def test_every_combination_plays_once() -> None:
    schedule = make_schedule(BOTS, key=KEY, table_size=4, seed=3)
    tables = [frozenset(t) for t in schedule.tables]
    assert len(tables) == math.comb(6, 4) == len(set(tables))
    assert set(tables) == {frozenset(c) for c in itertools.combinations(BOTS, 4)}
    assert not schedule.sampled


@pytest.mark.parametrize("k", [3, 4, 5, 6, 7])
def test_duplicate_sets_play_every_deal_from_every_seat(k: int) -> None:
    bots = [f"b{i}" for i in range(k + 1)]
    schedule = make_schedule(bots, key=KEY, table_size=k, deal_sets=2, seed=11)
    sets = collections.defaultdict(list)
    for game in schedule.games:
        sets[game.set_key].append(game)
    assert len(sets) == len(schedule.tables) * 2
    for games in sets.values():
        assert len(games) == k
        assert len({g.seed for g in games}) == 1
        assert len({frozenset(g.bots) for g in games}) == 1
        for bot in games[0].bots:
            assert sorted(g.bots.index(bot) for g in games) == list(range(k))
    seeds = [games[0].seed for games in sets.values()]
    assert len(set(seeds)) == len(seeds)


def test_seats_are_balanced_over_the_tournament() -> None:
    schedule = make_schedule(BOTS, key=KEY, table_size=4, deal_sets=3, seed=5)
    seats = collections.Counter(
        (bot, seat) for g in schedule.games for seat, bot in enumerate(g.bots)
    )
    assert len(set(seats.values())) == 1
    assert len(seats) == len(BOTS) * 4


def test_all_permutations() -> None:
    schedule = make_schedule(BOTS[:4], key=KEY, table_size=4, all_permutations=True, seed=1)
    assert len(schedule.games) == 24
    assert len({g.bots for g in schedule.games}) == 24
    assert {g.game_id for g in schedule.games} >= {"t1-d1-p1", "t1-d1-p24"}


def test_without_duplicate_seats_rotate_from_deal_set_to_deal_set() -> None:
    schedule = make_schedule(BOTS[:4], key=KEY, table_size=4, deal_sets=4, duplicate=False, seed=1)
    assert len(schedule.games) == 4
    assert len({g.seed for g in schedule.games}) == 4
    for bot in BOTS[:4]:
        assert sorted(g.bots.index(bot) for g in schedule.games) == [0, 1, 2, 3]


def test_reproducible_from_the_seed() -> None:
    one = make_schedule(BOTS, key=KEY, table_size=4, deal_sets=2, seed=42)
    assert make_schedule(BOTS, key=KEY, table_size=4, deal_sets=2, seed=42) == one
    other = make_schedule(BOTS, key=KEY, table_size=4, deal_sets=2, seed=43)
    assert [g.seed for g in other.games] != [g.seed for g in one.games]
    assert [g.bots for g in other.games] != [g.bots for g in one.games]


def test_the_deal_seeds_come_from_the_key() -> None:
    one = make_schedule(BOTS, key=KEY, table_size=4, deal_sets=2, seed=42)
    again = make_schedule(BOTS, key=bytes(range(32)), table_size=4, deal_sets=2, seed=42)
    other = make_schedule(BOTS, key=bytes(32), table_size=4, deal_sets=2, seed=42)
    assert again == one
    # Another key: the same tables and seatings (from the seed), but other deals, every one.
    assert other.tables == one.tables
    assert [(g.game_id, g.bots) for g in other.games] == [(g.game_id, g.bots) for g in one.games]
    assert not {g.seed for g in other.games} & {g.seed for g in one.games}
    # Each game's seed is its duplicate set's: 32 hex digits from the key, by table and set.
    for g in one.games:
        table, deal_set, _ = (int(part[1:]) for part in g.game_id.split("-"))
        assert re.fullmatch("[0-9a-f]{32}", g.seed), g.seed
        assert g.seed == game_seed(KEY, 42, table=table, deal_set=deal_set), g.game_id
    assert len({g.seed for g in one.games}) == len(one.tables) * 2  # one per table and set


def test_game_ids_and_indexes() -> None:
    schedule = make_schedule(BOTS, key=KEY, table_size=3, deal_sets=2, seed=1)
    ids = [g.game_id for g in schedule.games]
    assert len(set(ids)) == len(ids)
    assert [g.index for g in schedule.games] == list(range(len(ids)))
    assert ids[:4] == ["t1-d1-r1", "t1-d1-r2", "t1-d1-r3", "t1-d2-r1"]


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="cannot fill a table of 4"):
        make_schedule(BOTS[:3], key=KEY, table_size=4)
    with pytest.raises(ValueError, match="unique"):
        make_schedule(["a", "a", "b", "c"], key=KEY, table_size=3)


def test_sampled_schedule_is_balanced() -> None:
    bots = [f"b{i}" for i in range(20)]
    schedule = make_schedule(bots, key=KEY, table_size=4, max_tables=200, seed=9)
    assert schedule.sampled and len(schedule.tables) == 200
    appearances = collections.Counter(b for t in schedule.tables for b in t)
    assert set(appearances.values()) == {40}
    pairs = collections.Counter(
        frozenset(p) for t in schedule.tables for p in itertools.combinations(t, 2)
    )
    counts = [pairs[frozenset(p)] for p in itertools.combinations(bots, 2)]
    assert max(counts) - min(counts) <= 2
    assert len({frozenset(t) for t in schedule.tables}) == 200


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(min_value=4, max_value=14),
    k=st.integers(min_value=3, max_value=7),
    max_tables=st.integers(min_value=1, max_value=60),
    seed=st.integers(min_value=0, max_value=10**6),
)
def test_sampled_tables_give_every_bot_the_same_number(
    n: int, k: int, max_tables: int, seed: int
) -> None:
    assume(k <= n)
    bots = [f"b{i}" for i in range(n)]
    tables = sample_tables(bots, k, max_tables, seed=seed)
    step = n // math.gcd(n, k)
    assert len(tables) == max(step, max_tables // step * step)
    assert all(len(set(t)) == k for t in tables)
    appearances = collections.Counter(b for t in tables for b in t)
    assert set(appearances.values()) == {len(tables) * k // n}
    assert sample_tables(bots, k, max_tables, seed=seed) == tables
