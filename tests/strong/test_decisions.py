"""The strong bot's decisions over gRPC: passes, plays within the clock, the moon question.

The bot is served in process by referee.botkit on port 0 and asked through a
real channel. No test here measures how fast it is (bench/strong_decisions.py
does, beside a reference of the same run): the searches' clock logic is tested
on a fake clock, and the gRPC calls only carry deadlines far beyond their move
times, so that a hung search fails instead of blocking the suite.
"""

from __future__ import annotations

import concurrent.futures
import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from bot import StrongBot

from referee import botkit, protocol
from referee.engine import GameState, MoonScoring, Pass, Phase, Play, Rules, card_list
from referee.pb.hearts.v1 import hearts_pb2 as pb
from referee.pb.hearts.v1 import hearts_pb2_grpc as pb_grpc
from referee.search import pimc as strong_search


class FakeClock:
    """``time.monotonic`` for the search: each reading advances it by ``step`` seconds.

    It keeps every reading, so that a test can tell whether the search read
    the clock again after it had seen the deadline pass.
    """

    def __init__(self, step: float) -> None:
        self.now = 1000.0
        self.step = step
        self.readings: list[float] = []

    def monotonic(self) -> float:
        self.now += self.step
        self.readings.append(self.now)
        return self.now

    def readings_past(self, deadline: float) -> int:
        return sum(1 for t in self.readings if t >= deadline)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """The searches' clock, faked: only referee.search.pimc's ``time`` is replaced."""
    fake = FakeClock(step=0.001)
    monkeypatch.setattr(strong_search, "time", fake)
    return fake


@pytest.fixture(scope="module")
def stub() -> Iterator[Any]:
    server, port = botkit.make_server(StrongBot(), "127.0.0.1:0")
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield pb_grpc.HeartsBotStub(channel)
    finally:
        channel.close()
        server.stop(None)


def positions(rules: Rules, seed: int) -> Iterator[GameState]:
    """Play decisions of one random hand (random passes and plays)."""
    rng = random.Random(seed)
    state = GameState.new(rules, seed=seed)
    for seat in state.to_act():
        state.apply(Pass(seat, tuple(rng.sample(card_list(state.hands[seat]), 3))))
    while state.phase is Phase.PLAYING and state.hand_number == 1:
        yield state.copy()
        state.apply(Play(state.current, rng.choice(card_list(state.legal_mask()))))


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_passes_three_cards_of_the_hand(stub: Any, players: int) -> None:
    rules = Rules(num_players=players, omnibus=players % 2 == 0)
    for seed in range(10):
        state = GameState.new(rules, seed=seed)
        view = state.view(0)
        request = protocol.pass_request("g", view, "d", 200, 0)
        cards = protocol.cards_from_pb(stub.PassCards(request, timeout=10).cards)
        assert len(set(cards)) == 3 and all(view.hand >> c & 1 for c in cards)


def test_passes_an_unguarded_queen() -> None:
    from referee.search.sim import Variant

    hand = sum(1 << c for c in (49, 40, 1, 2, 3, 4, 5, 6, 7, 8, 14, 15, 16))  # Q♠ 3♠ + low
    assert 49 in strong_search.choose_pass(hand, 3, Variant(4))
    guarded = hand | (1 << 39) | (1 << 41) | (1 << 42)  # Q♠ with 2♠ 3♠ 4♠ 5♠
    guarded &= ~((1 << 1) | (1 << 2) | (1 << 3))
    assert 49 not in strong_search.choose_pass(guarded, 3, Variant(4))


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_searched_pass_is_three_cards_of_the_hand(players: int, clock: FakeClock) -> None:
    from referee.search.sim import Variant

    rules = Rules(num_players=players)
    v = Variant(players, omnibus=players == 5)
    for seed in range(3):
        hand = GameState.new(rules, seed=seed).hands[0]
        stats: dict = {}
        # Room for a few hundred clock readings: several worlds of every candidate pass.
        deadline = clock.now + 0.3
        cards = strong_search.search_pass(
            hand, 3, v, 0, 1, deadline, random.Random(seed), stats=stats
        )
        assert len(set(cards)) == 3 and all(hand >> c & 1 for c in cards)
        assert stats["pass_worlds"] >= 2, stats  # searched, not the hand evaluation's pick
        assert clock.readings_past(deadline) == 1, "read the clock again after the deadline"
    # On a hold hand (nobody passes) or with no time, it is the hand evaluation's pick.
    stats = {}
    assert strong_search.search_pass(hand, 3, v, 0, 0, clock.now + 10, stats=stats) == (
        strong_search.choose_pass(hand, 3, v)
    )
    assert "pass_worlds" not in stats  # nothing searched
    assert strong_search.search_pass(hand, 3, v, 0, 1, 0.0, stats=stats) == (
        strong_search.choose_pass(hand, 3, v)
    )
    assert stats["pass_worlds"] == 0


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(num_players=3, omnibus=True),
        Rules(num_players=7, queen_breaks_hearts=True, points_on_first_trick=True),
    ],
    ids=["4p", "3p-omnibus", "7p-V1-V7"],
)
def test_plays_a_legal_card_within_the_move_time(stub: Any, rules: Rules) -> None:
    for state in positions(rules, seed=rules.num_players):
        view = state.view(state.current)
        request = protocol.play_request("g", view, "d", 50, 0)
        # The deadline only stops a runaway search (bench/strong_decisions.py measures it).
        answer = stub.PlayCard(request, timeout=30)
        card = protocol.card_from_pb(answer.card)
        assert view.legal_moves >> card & 1


def test_many_requests_at_once_are_answered(stub: Any) -> None:
    """Eight seats asked at the same moment share one search thread fairly."""
    states = list(positions(Rules(), seed=3))[:8]
    requests = [
        protocol.play_request(f"g{i}", s.view(s.current), "d", 200, 0) for i, s in enumerate(states)
    ]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda r: stub.PlayCard(r, timeout=30), requests))
    for state, answer in zip(states, answers, strict=True):
        assert state.legal_mask() >> protocol.card_from_pb(answer.card) & 1


def test_searches_waiting_behind_another_share_the_time_left() -> None:
    """One search at a time: each gets its deadline's time left divided by those still waiting.

    The first search holds the lock until three more are waiting; each then
    stops no later than its share, and none past its own deadline.
    """
    bot = StrongBot()
    waiting = threading.Event()
    stops: list[tuple[float, float, float]] = []  # (asked at, deadline, stop)

    def search_for(deadline: float, asked: float):
        def search(stop: float) -> float:
            stops.append((asked, deadline, stop))
            if len(stops) == 1:  # the first: hold the lock until the others queue behind it
                assert waiting.wait(30)
            return stop

        return search

    def ask(seconds: float) -> float:
        asked = time.monotonic()
        return bot._searching(asked + seconds, search_for(asked + seconds, asked))

    def wait_until(condition: Callable[[], bool]) -> None:
        give_up = time.monotonic() + 30
        while not condition():
            assert time.monotonic() < give_up, "the searches never queued"
            time.sleep(0.01)

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        first = pool.submit(ask, 60.0)
        wait_until(lambda: bool(stops))
        rest = [pool.submit(ask, 60.0) for _ in range(3)]
        wait_until(lambda: bot._waiting == 3)
        waiting.set()
        for future in [first, *rest]:
            future.result(timeout=60)
    assert len(stops) == 4
    assert all(stop <= deadline for _, deadline, stop in stops)
    # Searches 2 and 3 started with two and one still behind them: a third and a half of the
    # 60 s left (plus half the time they waited), well under 36 s.
    for asked, deadline, stop in stops[1:3]:
        assert stop - asked < (deadline - asked) * 0.6, (stop - asked, deadline - asked)
    # The last one had nobody behind it: all the time left to its deadline.
    asked, deadline, stop = stops[3]
    assert stop > deadline - 5


def test_search_stops_at_its_deadline(clock: FakeClock) -> None:
    state = next(s for s in positions(Rules(), seed=8) if s.trick_number == 1)
    from bot import knowledge

    k = knowledge(protocol.play_request("g", state.view(state.current), "d", 50, 0))
    assert bin(k.legal).count("1") > 1  # a real choice, so it searches
    stats: dict = {}
    deadline = clock.now + 0.2
    card = strong_search.choose_play(k, deadline, random.Random(1), stats=stats)
    assert state.legal_mask() >> card & 1
    assert stats["decisions"] == 1 and stats["worlds"] >= 2, stats
    # It stopped at the first reading past the deadline: one playout late at most.
    assert clock.readings_past(deadline) == 1
    # Past the deadline already, it answers without searching (the heuristic's card).
    stats = {}
    late = strong_search.choose_play(k, clock.now - 1, random.Random(1), stats=stats)
    assert state.legal_mask() >> late & 1 and stats == {}


def test_time_budget() -> None:
    # About half the move time, less a margin; a slice of the bank on top; never negative.
    assert 0.08 < strong_search.time_budget(200, 0, 10) < 0.12
    assert strong_search.time_budget(200, 10_000, 10) > 0.5
    assert strong_search.time_budget(5, 0, 10) == 0.0


@pytest.mark.parametrize(
    ("seat", "scores", "expected"),
    [
        (0, (10, 20, 30, 40), "add_to_others"),  # alone lowest: hasten the end
        (0, (50, 20, 30, 40), "subtract_from_self"),  # trailing: more hands to catch up
        (0, (60, 70, 80, 30), "subtract_from_self"),  # adding ends the game, we lose
        (1, (80, 60, 78, 79), "add_to_others"),  # adding ends the game, we win
        (2, (30, 40, 56, 50), "subtract_from_self"),  # tied lowest is not alone
    ],
)
def test_moon_choice(seat: int, scores: tuple[int, ...], expected: str) -> None:
    assert strong_search.choose_moon(seat, scores) == expected


def test_answers_the_moon_question_over_grpc(stub: Any) -> None:
    rules = Rules(moon_scoring=MoonScoring.SHOOTER_CHOOSES)
    for scores, expected in (
        ((10, 20, 30, 40), pb.MOON_SCORING_ADD_TO_OTHERS),
        ((90, 20, 30, 40), pb.MOON_SCORING_SUBTRACT_FROM_SELF),
    ):
        request = pb.ChooseMoonScoringRequest(
            game_id="g",
            seat=0,
            decision_id="m",
            hand_number=3,
            scores=scores,
            rules=protocol.rules_to_pb(rules),
            clock=pb.Clock(move_time_ms=200),
        )
        assert stub.ChooseMoonScoring(request, timeout=5).choice == expected
