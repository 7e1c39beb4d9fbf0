"""referee.ladder.matchmaking: a new version first, then the most uncertain; sets rotate."""

from __future__ import annotations

import collections
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.ladder.matchmaking import Matchmaker


def _play(m: Matchmaker, strength: dict[str, float], sets: int, rng: random.Random) -> None:
    """``sets`` picks, each played as four games whose placements follow ``strength``."""
    for _ in range(sets):
        table = m.pick()
        assert table is not None
        m.set_started(table)
        for _ in range(len(table)):
            noisy = sorted(table, key=lambda b: -strength[b] - rng.random())
            m.rate(list(table), [noisy.index(b) + 1 for b in table])
        m.set_finished(table)


@given(st.integers(0, 36), st.integers(3, 5), st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_a_table_is_k_different_active_bots(extra: int, k: int, seed: int) -> None:
    n = k + extra
    m = Matchmaker(table_size=k, seed=seed)
    names = [f"b{i}" for i in range(n)]
    for name in names:
        m.add(name)
    for _ in range(5):
        table = m.pick()
        assert table is not None and len(table) == k and len(set(table)) == k
        assert set(table) <= set(names)
        m.set_started(table)


def test_too_few_bots_make_no_table() -> None:
    m = Matchmaker(table_size=4, seed=1)
    for name in "abc":
        m.add(name)
    assert m.pick() is None
    m.add("d")
    assert m.pick() is not None
    m.remove("d")
    assert m.pick() is None


def test_a_new_version_plays_its_first_sets_first() -> None:
    m = Matchmaker(table_size=4, seed=3, first_sets=2)
    rng = random.Random(3)
    strength = {f"b{i}": float(i) for i in range(12)}
    for name in strength:
        m.add(name)
    _play(m, strength, 60, rng)
    m.add("new")
    strength["new"] = 5.0
    first, second = m.pick(), None
    assert first is not None and "new" in first
    m.set_started(first)  # in flight counts: its second set comes next too
    second = m.pick()
    assert second is not None and "new" in second
    m.set_started(second)


def test_a_retired_bot_gets_no_new_table() -> None:
    m = Matchmaker(table_size=4, seed=5)
    for name in "abcdef":
        m.add(name)
    m.remove("a")
    for _ in range(30):
        table = m.pick()
        assert table is not None and "a" not in table
        m.set_started(table)
        m.set_finished(table)


def test_games_go_where_the_uncertainty_is() -> None:
    """After many sets, every bot has played, and sigma has shrunk for all of them."""
    m = Matchmaker(table_size=4, seed=11)
    rng = random.Random(11)
    strength = {f"b{i}": float(i) for i in range(20)}
    for name in strength:
        m.add(name)
    seated: collections.Counter[str] = collections.Counter()
    for _ in range(80):
        table = m.pick()
        assert table is not None
        seated.update(table)
        m.set_started(table)
        for _ in range(4):
            noisy = sorted(table, key=lambda b: -strength[b] - rng.random())
            m.rate(list(table), [noisy.index(b) + 1 for b in table])
        m.set_finished(table)
    assert set(seated) == set(strength)
    # Spread evenly: nobody sits out while another plays twice as much.
    assert max(seated.values()) <= 2 * min(seated.values())
    assert all(m.ratings[b].sigma < 25 / 3 * 0.65 for b in strength)
    # And the ratings order the bots about as their strength does.
    order = sorted(strength, key=lambda b: m.ratings[b].mu)
    assert order.index("b19") > 14 and order.index("b0") < 5


def test_a_table_is_not_repeated_while_others_can_be_made() -> None:
    m = Matchmaker(table_size=4, seed=2)
    for name in "abcdefgh":
        m.add(name)
    last = None
    for _ in range(20):
        table = frozenset(m.pick() or ())
        assert table != last
        m.set_started(table)
        m.set_finished(table)
        last = table
