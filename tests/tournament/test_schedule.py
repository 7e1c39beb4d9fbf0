"""Schedule properties: every combination, seat balance, duplicate sets, seeds, sampling."""

from __future__ import annotations

import collections
import doctest
import itertools
import json
import math
import pathlib
import re
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from referee.folder.seal import game_seed
from referee.schedule import (
    GauntletScheduler,
    RoundRobinScheduler,
    SampledScheduler,
    Schedule,
    Scheduler,
    make_schedule,
    rotations,
    sample_tables,
    schedule_of,
    scheduler_of,
    seatings,
    table_scheduler,
)
from referee.tournament.config import load_config
from referee.tournament.gauntlet_config import GauntletConfig
from tests.tournament.conftest import write_config

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


# The interface: each kind gives the games it gave before, and schedule_of rebuilds them ----------

#: Schedules captured from the code before the schedules moved behind one interface
#: (referee/schedule/ and gauntlet.py's make_gauntlet_schedule at commit
#: 20881f7), for fixed settings and KEY: every game's id, deal seed, seats and meta.
BEFORE = json.loads((pathlib.Path(__file__).parent / "data" / "schedules.json").read_text())


def _laid_out(schedule: Schedule) -> dict[str, Any]:
    return {
        "tables": [list(t) for t in schedule.tables],
        "sampled": schedule.sampled,
        "games": [[g.game_id, g.seed, list(g.bots), g.meta()] for g in schedule.games],
    }


def _scheduler(args: dict[str, Any]) -> Scheduler:
    """The scheduler of a captured case, of the kind its settings call for."""
    args = dict(args)
    if "gauntlet" in args:
        g = args.pop("gauntlet")
        config = GauntletConfig(
            candidate=g["candidate"],
            baselines=tuple(g["baselines"]),
            opponents=tuple(g["opponents"]),
        )
        return GauntletScheduler(config, **args)
    bots = args.pop("bots")
    if "max_tables" in args:
        return SampledScheduler(bots, **args)
    return RoundRobinScheduler(bots, **args)


@pytest.mark.parametrize("case", sorted(BEFORE))
def test_each_kind_gives_the_games_it_gave_before(case: str) -> None:
    want = BEFORE[case]["schedule"]
    scheduler = _scheduler(BEFORE[case]["args"])
    schedule = scheduler.schedule(KEY)
    assert _laid_out(schedule) == want
    # The interface's counts, without laying the games out.
    assert len(scheduler) == len(schedule) == len(want["games"])
    assert scheduler.sets == len({g.set_key for g in schedule.games})
    per_set = collections.Counter(g.set_key for g in schedule.games)
    assert set(per_set.values()) == {len(scheduler.seatings()) * scheduler.subjects}
    assert scheduler.sampled == want["sampled"]
    # The games' indexes are their order; the kind is what the functions of old pick too.
    assert [g.index for g in schedule.games] == list(range(len(schedule)))


@pytest.mark.parametrize("case", sorted(c for c in BEFORE if "gauntlet" not in c))
def test_make_schedule_picks_the_kind(case: str) -> None:
    args = dict(BEFORE[case]["args"])
    scheduler = table_scheduler(args.pop("bots"), **args)
    assert type(scheduler) is (
        SampledScheduler if "max_tables" in BEFORE[case]["args"] else RoundRobinScheduler
    )
    bots = BEFORE[case]["args"]["bots"]
    assert _laid_out(make_schedule(bots, key=KEY, **args)) == BEFORE[case]["schedule"]


def test_a_max_tables_at_or_above_every_combination_is_the_round_robin() -> None:
    bots = [f"b{i}" for i in range(5)]
    assert isinstance(table_scheduler(bots, max_tables=5), RoundRobinScheduler)
    assert isinstance(table_scheduler(bots, max_tables=4), SampledScheduler)


def test_the_seatings_function_is_the_sets_seat_orders() -> None:
    assert seatings(3) == rotations(3) == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    assert seatings(5, duplicate=False) == [(0, 1, 2, 3, 4)]
    perms = seatings(4, all_permutations=True)
    assert len(perms) == 24 == len(set(perms))
    assert all(sorted(p) == [0, 1, 2, 3] for p in perms)


def _saved(case: str, *, seed: int | str | None = None) -> dict[str, Any]:
    """What tournament.json would hold for a captured case (its config as canonical data)."""
    args = BEFORE[case]["args"]
    schedule = {
        "deal_sets": args.get("deal_sets", 1),
        "duplicate": args.get("duplicate", True),
        "all_permutations": args.get("all_permutations", False),
        "max_tables": args.get("max_tables"),
    }
    config: dict[str, Any] = {"rules": {"num_players": args["table_size"]}, "schedule": schedule}
    if "gauntlet" in args:
        g = args["gauntlet"]
        config["gauntlet"] = dict(g)
        names = [g["candidate"], *g["baselines"], *g["opponents"]]
        config["bots"] = {name: {"builtin": "random"} for name in names}
        participants = names
    else:
        config["bots"] = {name: {"builtin": "random"} for name in args["bots"]}
        participants = list(args["bots"])
    return {
        "config": config,
        "seed": args["seed"] if seed is None else seed,
        "participants": participants,
    }


@pytest.mark.parametrize("case", sorted(BEFORE))
def test_schedule_of_rebuilds_each_kind_from_tournament_json(case: str) -> None:
    saved = _saved(case)
    assert _laid_out(schedule_of(saved, KEY)) == BEFORE[case]["schedule"]
    # Its shape needs no key (a published folder's, for the web view).
    scheduler = scheduler_of(saved)
    assert len(scheduler) == len(BEFORE[case]["schedule"]["games"])
    assert isinstance(scheduler, GauntletScheduler) == ("gauntlet" in case)


def test_schedule_of_follows_the_saved_seed_participants_and_key() -> None:
    saved = _saved("round_robin")
    base = schedule_of(saved, KEY)
    assert schedule_of(saved, bytes(32)).games[0].seed != base.games[0].seed
    assert [g.bots for g in schedule_of(saved, bytes(32)).games] == [g.bots for g in base.games]
    assert schedule_of(_saved("round_robin", seed=8), KEY).tables != base.tables
    # Bots left out after a failed build are not scheduled; without participants, the config's.
    fewer = {**saved, "participants": ["a", "b", "c", "d"]}
    assert {b for g in schedule_of(fewer, KEY).games for b in g.bots} == {"a", "b", "c", "d"}
    assert schedule_of({**saved, "participants": None}, KEY) == base


def test_schedule_of_the_runners_own_config(tmp_path: pathlib.Path) -> None:
    """A real config's canonical form is what schedule_of reads (the runner saves it so)."""
    config = load_config(
        write_config(
            tmp_path,
            """
            seed: 5
            bots: {a: random, b: random, c: random, d: random, e: random}
            schedule: {deal_sets: 2, max_tables: 3}
            """,
        )
    )
    saved = {"config": config.canonical(), "seed": 5, "participants": ["a", "b", "c", "d", "e"]}
    schedule = schedule_of(saved, KEY)
    assert schedule == make_schedule(
        ["a", "b", "c", "d", "e"], deal_sets=2, max_tables=3, seed=5, key=KEY
    )
    assert schedule.sampled and len(schedule.tables) == 5  # 3 rounds up to a balanced 5


def test_schedule_of_a_config_it_cannot_read_raises_for_the_caller_to_name() -> None:
    saved = _saved("round_robin")
    with pytest.raises(KeyError):
        schedule_of({**saved, "config": {**saved["config"], "schedule": {}}}, KEY)
    with pytest.raises(ValueError, match="cannot fill a table"):
        schedule_of({**saved, "participants": ["a", "b"]}, KEY)
    gauntlet = _saved("gauntlet")
    gauntlet["config"]["gauntlet"]["opponents"] = ["a"]
    with pytest.raises(ValueError, match="needs 3 opponents"):
        scheduler_of(gauntlet)


def test_the_schedule_modules_examples() -> None:
    from referee.schedule import base, build, gauntlet, round_robin

    for module in (base, build, gauntlet, round_robin):
        assert doctest.testmod(module).failed == 0, module.__name__
