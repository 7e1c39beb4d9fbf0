"""GameState construction and queries, Trick/HandResult values, the error classes."""

from __future__ import annotations

import pytest

from referee.engine import (
    ActionError,
    CardNotHeldError,
    GameOverError,
    GameState,
    IllegalMoveError,
    InvalidPassError,
    NotYourTurnError,
    PassDirection,
    Phase,
    Rules,
    Trick,
    WrongPhaseError,
)

from .helpers import cards, cs, hold_hand
from .test_passing import DEALT
from .test_play import DEAL_G


def test_from_hands_accepts_strings_masks_and_card_lists():
    a = GameState.from_hands(DEALT, Rules())
    b = GameState.from_hands([int(cs(h)) for h in DEALT], Rules())
    c = GameState.from_hands([cards(h) for h in DEALT], Rules())
    assert a.hands == b.hands == c.hands == [cs(h) for h in DEALT]
    assert a.phase is Phase.PASSING
    assert a.pass_direction is PassDirection.LEFT


def test_from_hands_hand_number_scores_and_direction():
    state = GameState.from_hands(DEALT, Rules(), hand_number=7, scores=[1, 2, 3, 4])
    assert state.hand_number == 7
    assert state.pass_direction is PassDirection.ACROSS  # hand 7 = hand 3 of the cycle
    assert state.scores == [1, 2, 3, 4]
    state = GameState.from_hands(DEALT, Rules(), pass_direction=PassDirection.RIGHT)
    assert state.pass_direction is PassDirection.RIGHT
    assert state.pass_to(0) == 3


@pytest.mark.parametrize(
    ("hands", "match"),
    [
        (DEALT[:3], "3 hands given for 4 players"),
        ([DEALT[0], DEALT[0], DEALT[2], DEALT[3]], "seat 1 holds a card dealt twice"),
        ([DEALT[0] + " 2C", DEALT[1], DEALT[2], DEALT[3]], "seat 0 holds 14 cards, not 13"),
        ([DEALT[0], DEALT[1], DEALT[2], DEALT[3].replace("AH", "AH AH")], "duplicate"),
    ],
)
def test_from_hands_refuses_bad_deals(hands, match):
    with pytest.raises(ValueError, match=match):
        GameState.from_hands(hands, Rules())


def test_from_hands_refuses_wrong_score_count():
    with pytest.raises(ValueError, match="3 scores given for 4 players"):
        GameState.from_hands(DEALT, Rules(), scores=[0, 0, 0])


def test_to_act_by_phase():
    state = GameState.from_hands(DEALT, Rules())
    assert state.to_act() == [0, 1, 2, 3]
    state = hold_hand(DEAL_G)
    assert state.to_act() == [0]


def test_repr_and_trick_text():
    state = hold_hand(DEAL_G)
    assert repr(state) == "<GameState hand 1 trick 1 playing scores [0, 0, 0, 0]>"
    for card in cards("2C 3C JC QC"):
        state.play(card)
    trick = state.tricks[0]
    assert str(trick) == "[0:2C 1:3C 2:JC 3:QC] -> 3 (0)"
    assert trick.cards == cs("2C 3C JC QC")
    assert str(Trick(1, ((1, cards("5D")[0]),))) == "[1:5D]"
    assert state.last_trick == trick


def test_error_classes():
    """Every refusal is an ActionError (a ValueError) with a stable kind."""
    kinds = {}
    for cls in (
        ActionError,
        IllegalMoveError,
        CardNotHeldError,
        InvalidPassError,
        NotYourTurnError,
        WrongPhaseError,
        GameOverError,
    ):
        assert issubclass(cls, ActionError) and issubclass(cls, ValueError)
        kinds[cls.kind] = cls
    assert len(kinds) == 7  # distinct kinds
    assert issubclass(GameOverError, WrongPhaseError)
    error = IllegalMoveError("must follow suit", rule="R4")
    assert (str(error), error.rule, error.kind) == ("must follow suit", "R4", "illegal_card")
    assert ActionError("x").rule is None
