"""The Python sample bots answer legally, over gRPC, to many random requests.

Each bot is served in-process on port 0 by referee.botkit and asked, through
a real channel, every decision of random games in several rule variants.
"""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import grpc
import pytest

from referee import botkit, protocol
from referee.engine import GameState, MoonScoring, Phase, Rules, TieRule, card_list
from referee.pb.hearts.v1 import hearts_pb2 as pb
from referee.pb.hearts.v1 import hearts_pb2_grpc as pb_grpc
from tests.match.conftest import SAMPLE_HEURISTIC, SAMPLE_RANDOM

VARIANTS = [
    Rules(target_score=60),
    Rules(num_players=3, omnibus=True, target_score=60),
    Rules(num_players=5, queen_breaks_hearts=True, points_on_first_trick=True, target_score=60),
    Rules(
        num_players=7,
        moon_scoring=MoonScoring.SHOOTER_CHOOSES,
        tie_rule=TieRule.SHARE,
        target_score=50,
    ),
]


def _load(folder: Any, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, folder / "bot.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module", params=["random", "heuristic"])
def stub(request: pytest.FixtureRequest) -> Iterator[Any]:
    if request.param == "random":
        bot = _load(SAMPLE_RANDOM, "sample_random_bot").RandomBot()
    else:
        bot = _load(SAMPLE_HEURISTIC, "sample_heuristic_bot").HeuristicBot()
    server, port = botkit.make_server(bot, "127.0.0.1:0")
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield pb_grpc.HeartsBotStub(channel)
    finally:
        channel.close()
        server.stop(None)


def test_handshake(stub: Any) -> None:
    reply = stub.Handshake(pb.HandshakeRequest(protocol_version=1), timeout=5)
    assert reply.protocol_version == 1
    assert reply.name.endswith("-py") and reply.version and reply.author
    assert reply.language == "Python"


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.num_players}p")
def test_answers_are_always_legal(stub: Any, rules: Rules) -> None:
    """Every decision of random games, asked of the bot; the game goes on with its answers."""
    asked = 0
    for seed in range(2):
        state = GameState.new(rules, seed)
        while not state.is_over:
            if state.phase is Phase.PASSING:
                for seat in state.to_act():
                    view = state.view(seat)
                    request = protocol.pass_request("g", view, f"p{asked}", 1000, 0)
                    reply = stub.PassCards(request, timeout=5)
                    cards = protocol.cards_from_pb(reply.cards)
                    assert len(cards) == 3 == len(set(cards))
                    assert all(view.hand >> c & 1 for c in cards), (cards, view.hand)
                    state.pass_cards(seat, cards)
                    asked += 1
            elif state.phase is Phase.PLAYING:
                view = state.view(state.current)
                request = protocol.play_request("g", view, f"d{asked}", 1000, 0)
                reply = stub.PlayCard(request, timeout=5)
                assert reply.HasField("card")
                card = protocol.card_from_pb(reply.card)
                assert view.legal_moves >> card & 1, (str(card), str(view.legal_moves))
                state.play(card)
                asked += 1
            else:
                view = state.view(state.current)
                reply = stub.ChooseMoonScoring(
                    protocol.moon_scoring_request("g", view, "m", 1000, 0), timeout=5
                )
                state.choose_moon_scoring(state.current, protocol.moon_choice_from_pb(reply.choice))
        assert state.outcome is not None
    assert asked > 100


def test_random_requests(stub: Any) -> None:
    """Play requests from states a game rarely reaches: random hands, tricks, legal moves."""
    rng = random.Random(5)
    for i in range(150):
        rules = Rules(num_players=rng.choice([3, 4, 5, 6, 7]))
        state = GameState.new(rules, rng.randrange(10**6))
        # Walk a random number of random moves into the game.
        for _ in range(rng.randrange(60)):
            if state.is_over:
                break
            if state.phase is Phase.PASSING:
                for seat in state.to_act():
                    state.pass_cards(seat, rng.sample(card_list(state.hands[seat]), 3))
            elif state.phase is Phase.PLAYING:
                state.play(rng.choice(card_list(state.legal_mask())))
            else:
                state.choose_moon_scoring(state.current, MoonScoring.ADD_TO_OTHERS)
        if state.phase is not Phase.PLAYING:
            continue
        view = state.view(state.current)
        reply = stub.PlayCard(protocol.play_request("g", view, f"r{i}", 1000, 0), timeout=5)
        assert view.legal_moves >> protocol.card_from_pb(reply.card) & 1
