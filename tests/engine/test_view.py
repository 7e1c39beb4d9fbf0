"""referee.engine.view: a seat's view holds only what that seat may know."""

from __future__ import annotations

import dataclasses
import random

import pytest

from referee.engine import (
    Card,
    CardSet,
    GameState,
    MoonScoring,
    PassDirection,
    Phase,
    Rules,
    SeatView,
    card_list,
)

from .helpers import cards, cs, hold_hand
from .test_passing import DEALT, PASSES, passing_game


def visible_cards(value: object) -> int:
    """Every card mentioned anywhere in a view (recursively through its fields)."""
    if isinstance(value, CardSet):
        return int(value)
    if isinstance(value, Card):
        return 1 << value
    if isinstance(value, tuple | list):
        mask = 0
        for item in value:
            mask |= visible_cards(item)
        return mask
    if dataclasses.is_dataclass(value) and not isinstance(value, type | Rules):
        mask = 0
        for field in dataclasses.fields(value):
            mask |= visible_cards(getattr(value, field.name))
        return mask
    return 0


def assert_view_hides_other_hands(state: GameState) -> None:
    for seat in range(state.n):
        view = state.view(seat)
        seen = visible_cards(view)
        assert seen & view.hand == view.hand  # the scan does find cards
        own_pass = int(view.passed or 0)
        for other in range(state.n):
            if other != seat:
                leaked = state.hands[other] & seen & ~own_pass
                assert not leaked, f"seat {seat} sees seat {other}'s {CardSet(leaked)}"


def test_views_never_hold_another_seats_unplayed_cards():
    """Over whole random games in several variants, at every step, for every seat."""
    rng = random.Random(5)
    for players, moon in (
        (4, MoonScoring.SHOOTER_CHOOSES),
        (3, MoonScoring.ADD_TO_OTHERS),
        (6, MoonScoring.SUBTRACT_FROM_SELF),
    ):
        state = GameState.new(
            Rules(num_players=players, target_score=40, moon_scoring=moon), seed=9
        )
        steps = 0
        while not state.is_over:
            steps += 1
            assert steps < 5000
            assert_view_hides_other_hands(state)
            if state.phase is Phase.PASSING:
                seat = rng.choice(state.to_act())
                state.pass_cards(seat, rng.sample(card_list(state.hands[seat]), 3))
            elif state.phase is Phase.PLAYING:
                state.play(rng.choice(card_list(state.legal_mask())))
            else:
                state.choose_moon_scoring(state.current, MoonScoring.ADD_TO_OTHERS)
        assert_view_hides_other_hands(state)


def test_r2_received_cards_hidden_until_every_pass_is_in():
    state = passing_game()
    for seat in (0, 1, 2):
        state.pass_cards(seat, cards(PASSES[seat]))
    for seat in range(4):
        view = state.view(seat)
        assert view.received is None
        assert view.hand == cs(DEALT[seat])  # nothing has moved yet
        assert view.dealt == cs(DEALT[seat])
        assert view.phase is Phase.PASSING
        assert view.legal_moves == cs("")
    # Seat 1 will receive seat 0's cards: before seat 3 passes it cannot see them.
    assert not visible_cards(state.view(1)) & cs(PASSES[0]) & ~cs(DEALT[1])
    assert state.view(0).passed == cs(PASSES[0])
    assert state.view(3).passed is None
    assert state.view(0).pass_to == 1
    state.pass_cards(3, cards(PASSES[3]))
    for seat in range(4):
        giver = (seat - 1) % 4
        assert state.view(seat).received == cs(PASSES[giver])
        assert state.view(seat).passed == cs(PASSES[seat])


def test_passed_and_received_cards_are_sorted():
    """The order in which the cards were chosen leaks nothing."""
    state = passing_game()
    state.pass_cards(0, cards("AS 8H TS"))
    assert [str(c) for c in state.view(0).passed] == ["8H", "TS", "AS"]
    for seat in (1, 2, 3):
        state.pass_cards(seat, list(reversed(cards(PASSES[seat]))))
    assert [str(c) for c in state.view(1).received] == ["8H", "TS", "AS"]


def test_view_during_play():
    from .test_play import DEAL_G

    state = hold_hand(DEAL_G)
    view = state.view(0)
    assert view.passed == cs("") and view.received == cs("")  # a hold hand
    assert view.pass_direction is PassDirection.HOLD and view.pass_to == 0
    assert view.legal_moves == cs("2C")
    assert state.view(1).legal_moves == cs("")
    assert view.trick_number == 1 and view.hand_number == 1
    state.play(cards("2C")[0])
    state.play(cards("3C")[0])
    view = state.view(2)
    assert view.current_trick.leader == 0
    assert [(s, str(c)) for s, c in view.current_trick.plays] == [(0, "2C"), (1, "3C")]
    assert view.legal_moves == cs("4C 7C JC")
    assert view.hand == cs(DEAL_G[2])
    assert view.tricks == ()
    state.play(cards("JC")[0])
    state.play(cards("QC")[0])
    view = state.view(3)
    assert view.trick_number == 2
    assert len(view.tricks) == 1 and view.tricks[0].winner == 3
    assert view.current_trick.plays == ()
    assert view.current_trick.leader == 3
    assert view.points_taken == (0, 0, 0, 0)
    assert view.scores == (0, 0, 0, 0)
    assert not view.hearts_broken
    assert view.hand == cs(DEAL_G[3]) & ~cs("QC")


def test_view_rejects_bad_seats_and_is_frozen():
    state = GameState.new(Rules(), seed=1)
    with pytest.raises(ValueError, match="no seat 4"):
        state.view(4)
    with pytest.raises(ValueError, match="no seat -1"):
        state.view(-1)
    view = state.view(0)
    assert isinstance(view, SeatView)
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.seat = 1  # type: ignore[misc]
