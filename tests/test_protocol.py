"""The protocol conversions (referee/protocol.py) round-trip, for random game states."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

import pytest

from referee import protocol
from referee.engine import (
    Card,
    GameState,
    MoonScoring,
    Phase,
    Rules,
    SeatView,
    TieRule,
    Trick,
    card_list,
)
from referee.pb.hearts.v1 import hearts_pb2 as pb

VARIANTS = [
    Rules(),
    Rules(num_players=3, omnibus=True, target_score=60),
    Rules(num_players=5, queen_breaks_hearts=True, points_on_first_trick=True),
    Rules(num_players=6, moon_scoring=MoonScoring.SHOOTER_CHOOSES, tie_rule=TieRule.SHARE),
    Rules(num_players=7, moon_scoring=MoonScoring.SUBTRACT_FROM_SELF, tie_rule=TieRule.LAST_HAND),
]


def random_views(rules: Rules, seed: int, every: int = 3) -> Iterator[tuple[GameState, SeatView]]:
    """Views of the seat to play at every ``every``-th play of a random game."""
    rng = random.Random(seed)
    state = GameState.new(rules, seed)
    plays = 0
    while not state.is_over:
        if state.phase is Phase.PASSING:
            for seat in state.to_act():
                state.pass_cards(seat, rng.sample(card_list(state.hands[seat]), 3))
        elif state.phase is Phase.PLAYING:
            plays += 1
            if plays % every == 0:
                yield state, state.view(state.current)
            state.play(rng.choice(card_list(state.legal_mask())))
        else:
            state.choose_moon_scoring(state.current, rng.choice(list(MoonScoring)[:2]))


def _wire(message):  # type: ignore[no-untyped-def]
    """The message as the other side gets it: serialised and parsed."""
    return type(message).FromString(message.SerializeToString())


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.num_players}p")
def test_play_request_round_trip(rules: Rules) -> None:
    checked = 0
    for seed in range(3):
        for _, view in random_views(rules, seed):
            request = _wire(protocol.play_request("g", view, "d", 1000, 500))
            assert protocol.view_from_play_request(request, rules) == view
            # The request alone is enough: it carries the rules in force.
            assert protocol.view_from_play_request(request) == view
            assert protocol.rules_from_pb(request.rules) == rules
            assert request.rules.num_players == rules.num_players
            # The trick in progress always has its leader, and no winner yet.
            assert request.HasField("current_trick")
            assert not request.current_trick.HasField("winner")
            plays = request.current_trick.plays
            leader = request.current_trick.leader
            if plays:
                assert leader == plays[0].seat
            else:
                assert leader == request.seat
            assert all(t.HasField("winner") for t in request.tricks)
            assert request.game_id == "g" and request.decision_id == "d"
            assert (request.clock.move_time_ms, request.clock.time_bank_ms) == (1000, 500)
            assert len(request.points_taken) == len(request.scores) == rules.num_players
            checked += 1
    assert checked > 50


def _plain_play_request(view: SeatView, move_ms: int, bank_ms: int) -> pb.PlayCardRequest:
    """PlayCardRequest built field by field (what protocol.play_request must equal)."""
    return pb.PlayCardRequest(
        game_id="g",
        seat=view.seat,
        decision_id="d",
        clock=pb.Clock(move_time_ms=move_ms, time_bank_ms=bank_ms),
        hand_number=view.hand_number,
        trick_number=view.trick_number,
        hand=[protocol.card_to_pb(c) for c in view.hand],
        passed=[protocol.card_to_pb(c) for c in view.passed or ()],
        received=[protocol.card_to_pb(c) for c in view.received or ()],
        pass_to=view.pass_to,
        pass_direction=protocol.direction_to_pb(view.pass_direction),
        tricks=[protocol.trick_to_pb(t) for t in view.tricks],
        current_trick=protocol.trick_to_pb(view.current_trick),
        points_taken=view.points_taken,
        scores=view.scores,
        hearts_broken=view.hearts_broken,
        legal_moves=[protocol.card_to_pb(c) for c in view.legal_moves],
        rules=protocol.rules_to_pb(view.rules),
    )


@pytest.mark.parametrize("rules", VARIANTS[:3], ids=lambda r: f"{r.num_players}p")
def test_play_request_is_the_plain_message(rules: Rules) -> None:
    for _, view in random_views(rules, 7, every=2):
        fast = protocol.play_request("g", view, "d", 250, 1234)
        assert fast == _plain_play_request(view, 250, 1234)
        assert _wire(fast).SerializeToString(deterministic=True) == _plain_play_request(
            view, 250, 1234
        ).SerializeToString(deterministic=True)


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.num_players}p")
def test_play_request_bytes_are_what_grpcio_would_send(rules: Rules) -> None:
    """The referee sends play_request_bytes as they are: they must be the very bytes that
    serialising the plain message gives (field order included), for every clock, score
    (negative ones too: ten-byte varints) and id."""
    for n, (_, view) in enumerate(random_views(rules, 11, every=2)):
        move_ms, bank_ms = (0, 0) if n % 5 == 0 else (250 + n, 127 * n)
        if n % 3 == 0:  # scores below zero (a moon subtracted from the shooter)
            view = dataclasses.replace(view, scores=tuple(-26 * s for s in range(len(view.scores))))
        plain = _plain_play_request(view, move_ms, bank_ms)
        plain.game_id, plain.decision_id = f"game-{n}", "d" * n
        sent = protocol.play_request_bytes(f"game-{n}", view, "d" * n, move_ms, bank_ms)
        assert sent == plain.SerializeToString()
        assert sent == plain.SerializeToString(deterministic=True)


def test_play_request_bytes_carry_every_field_of_the_message() -> None:
    """A field added to PlayCardRequest in hearts.proto must be added to the hand-built
    encoder too: over the views of a few games, every field of the message is sent set
    at least once (the bytes would silently leave a new one out)."""
    seen: set[str] = set()
    for n, (_, view) in enumerate(random_views(VARIANTS[0], 5, every=1)):
        sent = protocol.play_request_bytes("g", view, "d", 250, 100 + n)
        seen |= {field.name for field, _ in pb.PlayCardRequest.FromString(sent).ListFields()}
    assert seen == {field.name for field in pb.PlayCardRequest.DESCRIPTOR.fields}


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.num_players}p")
def test_other_requests(rules: Rules) -> None:
    state = GameState.new(rules, 9)
    for seat in range(rules.num_players):
        view = state.view(seat)
        deal = _wire(protocol.deal_hand_request("g", view))
        assert protocol.cards_from_pb(deal.hand) == card_list(view.dealt)
        assert deal.pass_to == view.pass_to == (seat + 1) % rules.num_players
        assert deal.pass_direction == pb.PASS_DIRECTION_LEFT
        request = _wire(protocol.pass_request("g", view, "d", 100, 0))
        assert protocol.cards_from_pb(request.hand) == card_list(view.hand)
        assert request.count == 3 and request.hand_number == 1
        assert request.pass_direction == pb.PASS_DIRECTION_LEFT
        assert request.pass_to == (seat + 1) % rules.num_players
        assert protocol.rules_from_pb(request.rules) == rules
        assert request.rules == protocol.rules_to_pb(rules)
        moon = _wire(protocol.moon_scoring_request("g", view, "m", 100, 0))
        assert protocol.rules_from_pb(moon.rules) == rules
        start = _wire(protocol.start_game_request("g", seat, ["a"] * rules.num_players, rules))
        assert start.rules.cards_per_player == rules.cards_per_player
        assert protocol.cards_from_pb(start.rules.removed_cards) == rules.removed_cards
        assert protocol.rules_from_pb(start.rules) == rules


def test_end_of_hand_and_game() -> None:
    rules = Rules(target_score=30)
    states = [state for state, _ in random_views(rules, 4, every=1)]
    state = states[-1]
    assert state is not None and state.outcome is not None
    result = state.hand_results[-1]
    end = _wire(protocol.end_hand_request("g", 2, result))
    assert tuple(end.hand_scores) == result.scores
    assert tuple(end.scores) == result.totals
    if result.moon_shooter is None:
        assert not end.HasField("moon_shooter")
    else:
        assert end.HasField("moon_shooter") and end.moon_shooter == result.moon_shooter
    assert all(t.HasField("winner") for t in end.tricks)
    assert tuple(protocol.trick_from_pb(t) for t in end.tricks) == result.tricks
    over = _wire(protocol.end_game_request("g", 2, state.outcome, True))
    assert tuple(over.placements) == state.outcome.placements
    assert over.forfeited


def test_every_card_round_trips() -> None:
    for index in range(52):
        message = protocol.card_to_pb(index)
        assert message.suit == index // 13 + 1 and message.rank == index % 13 + 2
        assert protocol.card_from_pb(_wire(message)) == Card(index)
    assert str(protocol.card_from_pb(pb.Card(suit=pb.SUIT_SPADES, rank=pb.RANK_QUEEN))) == "QS"


@pytest.mark.parametrize(
    "card",
    [
        pb.Card(),
        pb.Card(suit=pb.SUIT_HEARTS),
        pb.Card(rank=pb.RANK_TWO),
        pb.Card(suit=5, rank=2),
        pb.Card(suit=1, rank=1),
        pb.Card(suit=1, rank=15),
        pb.Card(suit=-1, rank=3),
    ],
)
def test_bad_cards_are_malformed(card: pb.Card) -> None:
    with pytest.raises(protocol.MalformedAnswer):
        protocol.card_from_pb(_wire(card))


def test_moon_choices() -> None:
    assert protocol.moon_choice_from_pb(1) is MoonScoring.ADD_TO_OTHERS
    assert protocol.moon_choice_from_pb(2) is MoonScoring.SUBTRACT_FROM_SELF
    for bad in (0, 3, 7, -1):
        with pytest.raises(protocol.MalformedAnswer):
            protocol.moon_choice_from_pb(bad)


def test_no_seat_is_minus_one() -> None:
    """Absent seats are unset fields (explicit presence), never the old -1 sentinel."""
    in_progress = protocol.trick_to_pb(Trick(2, ()))
    assert in_progress.leader == 2 and not in_progress.HasField("winner")
    won_by_seat_0 = _wire(protocol.trick_to_pb(Trick(1, (), 0, 3)))
    assert won_by_seat_0.HasField("winner") and won_by_seat_0.winner == 0
    assert protocol.trick_from_pb(in_progress).winner == -1  # the engine's own convention
