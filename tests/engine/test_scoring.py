"""Scoring a hand: points (R7), the moon (R8) in every V2 mode, Omnibus (V3)."""

from __future__ import annotations

import pytest

from referee.engine import (
    ActionError,
    GameState,
    MoonChoice,
    MoonScoring,
    NotYourTurnError,
    Phase,
    Rules,
    WrongPhaseError,
    card_list,
)

from .helpers import assert_refused, cards, hold_hand, play_out, points_of

# Deal M: seat 0 wins every trick when it plays the forced cards below, whatever
# the others play: A♣ wins trick 1, A♠ and K♠ the spade leads, A♦ a diamond lead,
# and then seat 0 holds only hearts above 5♥ and leads them (R6 exception).
DEAL_M = [
    "AC AD AS KS AH KH QH JH TH 9H 8H 7H 6H",
    "2C 3C 4C 5C 2D 3D 4D 5D 2S 3S 4S 5S 2H",
    "6C 7C 8C 9C 6D 7D 8D 9D 6S 7S 8S 9S 3H",
    "TC JC QC KC TD JD QD KD TS JS QS 4H 5H",
]
MOON_M = {0: "AC AS KS AD AH KH QH JH TH 9H 8H 7H 6H"}

# Deal M2: seat 2 wins only trick 1 (K♣), onto which seat 3, void in clubs,
# discards J♦; seat 0 wins every other trick and so takes all hearts and Q♠.
DEAL_M2 = [
    "4C AD AS KS AH KH QH JH TH 9H 8H 7H 6H",
    "2C 3C 5C 6C 2D 3D 4D 5D 2S 3S 4S 5S 2H",
    "7C 8C 9C TC JC QC KC AC 6D 7D 8D 9D 3H",
    "TD JD QD KD 6S 7S 8S 9S TS JS QS 4H 5H",
]
MOON_M2 = {0: "4C AD AS KS AH KH QH JH TH 9H 8H 7H 6H", 2: "KC 6D", 3: "JD"}


def moon_hand(rules: Rules, deal=DEAL_M, forced=MOON_M, scores=None) -> GameState:
    state = hold_hand(deal, rules, scores=scores)
    play_out(state, forced)
    return state


# R7 -------------------------------------------------------------------------------


def test_r7_points_card_by_card_sum_to_26():
    """R7: a heart is 1, Q♠ 13; each trick's points go to its winner; 26 in all."""
    from .test_passing import DEALT

    state = hold_hand(DEALT)
    play_out(state)
    (result,) = state.hand_results
    assert len(result.tricks) == 13
    won = [0, 0, 0, 0]
    for trick in result.tricks:
        assert trick.points == points_of(card for _, card in trick.plays)
        won[trick.winner] += trick.points
    assert list(result.points) == won
    assert sum(result.points) == 26
    assert max(won) < 26  # the lowest-card play of this deal has no moon
    assert result.scores == result.points
    assert result.moon_shooter is None and result.moon_scoring is None
    assert list(result.totals) == won
    assert state.scores == won
    played = sorted(card for trick in result.tricks for _, card in trick.plays)
    assert played == list(range(52))


def test_r7_totals_add_to_running_scores():
    state = moon_hand(Rules(), scores=[5, 6, 7, 8])
    assert state.hand_results[0].totals == (5, 32, 33, 34)
    assert state.scores == [5, 32, 33, 34]


# R8 / V2 --------------------------------------------------------------------------


def test_r8_moon_add_to_others():
    """R8 (V2 default): the shooter scores 0 and every other player 26."""
    state = moon_hand(Rules())
    (result,) = state.hand_results
    assert all(trick.winner == 0 for trick in result.tricks)
    assert result.points == (26, 0, 0, 0)
    assert result.scores == (0, 26, 26, 26)
    assert result.moon_shooter == 0
    assert result.moon_scoring is MoonScoring.ADD_TO_OTHERS
    assert state.scores == [0, 26, 26, 26]
    assert state.hand_number == 2 and state.phase is Phase.PASSING


def test_v2_moon_subtract_from_self():
    state = moon_hand(Rules(moon_scoring=MoonScoring.SUBTRACT_FROM_SELF))
    (result,) = state.hand_results
    assert result.scores == (-26, 0, 0, 0)
    assert result.moon_scoring is MoonScoring.SUBTRACT_FROM_SELF
    assert state.scores == [-26, 0, 0, 0]


def test_v2_shooter_chooses():
    """V2 shooter_chooses: the hand waits for the shooter's choice; nothing else goes."""
    state = moon_hand(Rules(moon_scoring=MoonScoring.SHOOTER_CHOOSES))
    assert state.phase is Phase.MOON_CHOICE
    assert state.to_act() == [0]
    assert state.moon_shooter == 0
    assert state.hand_results == []
    assert state.scores == [0, 0, 0, 0]
    assert state.legal_mask() == 0
    assert_refused(
        state,
        lambda: state.choose_moon_scoring(1, MoonScoring.ADD_TO_OTHERS),
        NotYourTurnError,
        "seat 1 did not shoot the moon; seat 0 did",
    )
    for bad in (MoonScoring.SHOOTER_CHOOSES, None, "sideways"):
        error = assert_refused(
            state,
            lambda bad=bad: state.choose_moon_scoring(0, bad),
            ActionError,
            r"must be add_to_others or subtract_from_self.*\(V2\)",
            rule="V2",
        )
        assert error.kind == "invalid_action"
    assert_refused(
        state,
        lambda: state.play(card_list(state.hands[0] or 1)[0]),
        WrongPhaseError,
        "cannot play a card while the game is moon_choice",
    )
    assert_refused(
        state,
        lambda: state.pass_cards(0, cards("2C 3C 4C")),
        WrongPhaseError,
        "cannot pass cards while the game is moon_choice",
    )
    state.choose_moon_scoring(0, MoonScoring.SUBTRACT_FROM_SELF)
    (result,) = state.hand_results
    assert result.scores == (-26, 0, 0, 0)
    assert result.moon_scoring is MoonScoring.SUBTRACT_FROM_SELF
    assert state.hand_number == 2 and state.phase is Phase.PASSING


def test_v2_shooter_chooses_add_to_others_via_apply():
    state = moon_hand(Rules(moon_scoring=MoonScoring.SHOOTER_CHOOSES))
    state.apply(MoonChoice(0, MoonScoring.ADD_TO_OTHERS))
    assert state.hand_results[0].scores == (0, 26, 26, 26)
    assert state.hand_results[0].moon_scoring is MoonScoring.ADD_TO_OTHERS


def test_v2_shooter_chooses_without_a_moon_needs_no_choice():
    state = moon_hand(
        Rules(moon_scoring=MoonScoring.SHOOTER_CHOOSES, omnibus=True), DEAL_M2, MOON_M2
    )
    assert state.phase is Phase.PASSING
    assert state.hand_results[0].moon_shooter is None


def test_r8_moon_needs_every_heart_and_the_queen():
    """Deal M2 without Omnibus: seat 2 takes only J♦ (no points): still a moon for seat 0."""
    state = moon_hand(Rules(), DEAL_M2, MOON_M2)
    (result,) = state.hand_results
    assert result.tricks[0].winner == 2
    assert result.points == (26, 0, 0, 0)
    assert result.scores == (0, 26, 26, 26)
    assert result.moon_shooter == 0


def test_r8_no_moon_when_one_heart_is_missing():
    """Deal M with 2♥ and 6♥ swapped: seat 0 leads 2♥ and seat 1's 6♥ wins it."""
    hands = list(DEAL_M)
    hands[0] = "AC AD AS KS AH KH QH JH TH 9H 8H 7H 2H"
    hands[1] = "2C 3C 4C 5C 2D 3D 4D 5D 2S 3S 4S 5S 6H"
    state = hold_hand(hands)
    play_out(state, {0: "AC AS KS AD 2H"})
    (result,) = state.hand_results
    trick5 = result.tricks[4]
    assert [str(card) for _, card in trick5.plays] == ["2H", "6H", "3H", "4H"]
    assert (trick5.winner, trick5.points) == (1, 4)
    assert result.moon_shooter is None
    assert result.scores == result.points
    assert sum(result.points) == 26
    assert result.points[0] >= 13  # Q♠ fell to seat 0's spade leads


# V3 -------------------------------------------------------------------------------


def test_v3_omnibus_jack_of_diamonds_counts_minus_ten():
    """V3: without J♦ the moon fails and the hand is scored card by card: 16 in all."""
    state = moon_hand(Rules(omnibus=True), DEAL_M2, MOON_M2)
    (result,) = state.hand_results
    assert result.tricks[0].points == -10
    assert result.points == (26, 0, -10, 0)
    assert result.scores == (26, 0, -10, 0)
    assert result.moon_shooter is None
    assert sum(result.points) == 16


@pytest.mark.parametrize(
    ("mode", "scores"),
    [
        (MoonScoring.ADD_TO_OTHERS, (0, 26, 26, 26)),
        (MoonScoring.SUBTRACT_FROM_SELF, (-26, 0, 0, 0)),
    ],
)
def test_v3_omnibus_moon_with_the_jack(mode, scores):
    """V3: all hearts, Q♠ and J♦ make the moon; the points taken are 26 - 10 = 16."""
    state = moon_hand(Rules(omnibus=True, moon_scoring=mode))
    (result,) = state.hand_results
    assert result.points == (16, 0, 0, 0)
    assert result.scores == scores
    assert result.moon_shooter == 0


def test_v3_jack_of_diamonds_is_zero_without_omnibus():
    state = moon_hand(Rules(), DEAL_M2, MOON_M2)
    assert state.hand_results[0].tricks[0].points == 0
