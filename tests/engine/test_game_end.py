"""The end of the game: target (R9, V4), ties for the lowest total (V5), game over."""

from __future__ import annotations

import pytest

from referee.engine import (
    GameOverError,
    MoonScoring,
    Phase,
    Rules,
    TieRule,
    card_list,
)

from .helpers import assert_refused, cards, hold_hand, play_out
from .test_scoring import DEAL_M, DEAL_M2, MOON_M, MOON_M2

# Deal M, add_to_others: the hand scores (0, 26, 26, 26).
# Deal M2 with Omnibus: the hand scores (26, 0, -10, 0).


def end_of_game(rules: Rules, scores, deal=DEAL_M, forced=MOON_M):
    state = hold_hand(deal, rules, scores=scores, seed=5)
    play_out(state, forced)
    return state


def omnibus(tie_rule: TieRule, target: int = 100) -> Rules:
    return Rules(omnibus=True, tie_rule=tie_rule, target_score=target)


def test_r9_game_ends_when_a_total_reaches_the_target_exactly():
    state = end_of_game(Rules(), [10, 74, 20, 30])
    assert state.phase is Phase.GAME_OVER and state.is_over
    outcome = state.outcome
    assert outcome is not None
    assert outcome.scores == (10, 100, 46, 56)
    assert outcome.winners == (0,)
    assert outcome.placements == (1, 4, 2, 3)
    assert outcome.hands_played == 1
    assert state.to_act() == []
    assert state.legal_mask() == 0


def test_r9_game_goes_on_below_the_target():
    state = end_of_game(Rules(), [10, 73, 20, 30])
    assert state.scores == [10, 99, 46, 56]
    assert state.outcome is None
    assert state.hand_number == 2
    assert state.phase is Phase.PASSING  # hand 2 passes right


def test_r9_the_player_reaching_the_target_need_not_be_the_shooter():
    state = end_of_game(Rules(moon_scoring=MoonScoring.SUBTRACT_FROM_SELF), [120, 0, 0, 0])
    # The shooter goes from 120 to 94: nobody is at 100 any more, the game goes on.
    assert state.scores == [94, 0, 0, 0]
    assert state.outcome is None


@pytest.mark.parametrize(("target", "over"), [(50, True), (51, False), (100, False)])
def test_v4_target_score(target, over):
    state = end_of_game(Rules(target_score=target), [10, 24, 0, 0])
    assert state.scores == [10, 50, 26, 26]
    assert state.is_over is over
    if over:
        assert state.outcome.winners == (0,)


def test_v5_share_tied_lowest_share_first_place():
    state = end_of_game(omnibus(TieRule.SHARE), [80, 40, 50, 70], DEAL_M2, MOON_M2)
    assert state.scores == [106, 40, 40, 70]
    assert state.outcome.winners == (1, 2)
    assert state.outcome.placements == (4, 1, 1, 3)


def test_v5_last_hand_lower_last_hand_score_wins():
    """V5 last_hand: seats 1 and 2 tie at 40; seat 2 scored -10 in the last hand, seat 1 0."""
    state = end_of_game(omnibus(TieRule.LAST_HAND), [80, 40, 50, 70], DEAL_M2, MOON_M2)
    assert state.outcome.winners == (2,)
    assert state.outcome.placements == (4, 2, 1, 3)


def test_v5_last_hand_still_tied_share():
    """V5 last_hand: seats 1 and 3 tie at 40 and both scored 0 in the last hand."""
    state = end_of_game(omnibus(TieRule.LAST_HAND), [80, 40, 60, 40], DEAL_M2, MOON_M2)
    assert state.scores == [106, 40, 50, 40]
    assert state.outcome.winners == (1, 3)
    assert state.outcome.placements == (4, 1, 3, 1)


def test_v5_tie_not_for_the_lowest_total_ends_the_game():
    state = end_of_game(omnibus(TieRule.PLAY_ON), [80, 30, 80, 70], DEAL_M2, MOON_M2)
    assert state.scores == [106, 30, 70, 70]
    assert state.outcome.winners == (1,)
    assert state.outcome.placements == (4, 1, 2, 2)


def test_v5_play_on_keeps_playing_until_one_player_alone_is_lowest():
    state = end_of_game(omnibus(TieRule.PLAY_ON), [80, 40, 50, 70], DEAL_M2, MOON_M2)
    assert state.scores == [106, 40, 40, 70]
    assert state.outcome is None
    assert state.hand_number == 2
    while not state.is_over:
        assert state.hand_number < 40
        if state.phase is Phase.PASSING:
            for seat in state.to_act():
                state.pass_cards(seat, card_list(state.hands[seat])[-3:])
        play_out(state)
        totals = state.hand_results[-1].totals
        lowest = min(totals)
        alone = [s for s in range(4) if totals[s] == lowest]
        # Over exactly when one player alone has the lowest total (someone is >= 100).
        assert state.is_over == (len(alone) == 1)
    assert state.outcome.winners == tuple(alone)
    assert state.outcome.hands_played == state.hand_results[-1].hand_number


def test_game_over_refuses_every_action_and_changes_nothing():
    state = end_of_game(Rules(moon_scoring=MoonScoring.SHOOTER_CHOOSES), [10, 90, 20, 30])
    assert state.phase is Phase.MOON_CHOICE
    state.choose_moon_scoring(0, MoonScoring.ADD_TO_OTHERS)
    assert state.is_over
    error = assert_refused(
        state,
        lambda: state.play(cards("2C")[0]),
        GameOverError,
        "cannot play a card: the game is over",
    )
    assert error.kind == "game_over"
    assert_refused(
        state,
        lambda: state.pass_cards(0, cards("2C 3C 4C")),
        GameOverError,
        "cannot pass cards: the game is over",
    )
    assert_refused(
        state,
        lambda: state.choose_moon_scoring(0, MoonScoring.ADD_TO_OTHERS),
        GameOverError,
        "cannot choose the moon scoring: the game is over",
    )
    assert_refused(
        state, lambda: state.check_play(0, cards("2C")[0]), GameOverError, "game is over"
    )
    assert state.to_act() == []
    assert state.legal_moves() == 0


# V8: the hand cap ---------------------------------------------------------------------------

SUBTRACT = MoonScoring.SUBTRACT_FROM_SELF


def capped_hand(rules: Rules, scores, hand: int, deal=DEAL_M, forced=MOON_M):
    """Hand ``hand`` of a game, played out (seat 0 shoots the moon with deal M)."""
    state = hold_hand(deal, rules, scores=scores, seed=5, hand_number=hand)
    play_out(state, forced)
    return state


def test_v8_a_game_moons_keep_below_the_target_ends_after_the_capped_hand():
    """V8: subtract_from_self moons keep every total below 100; the game ends after hand 100."""
    state = capped_hand(Rules(moon_scoring=SUBTRACT), [-78, 60, 70, 90], hand=100)
    assert state.scores == [-104, 60, 70, 90] and max(state.scores) < 100
    assert state.is_over and state.phase is Phase.GAME_OVER
    assert state.outcome.hands_played == 100
    assert state.outcome.winners == (0,) and state.outcome.placements == (1, 2, 3, 4)


def test_v8_before_the_cap_the_game_goes_on():
    state = capped_hand(Rules(moon_scoring=SUBTRACT), [-78, 60, 70, 90], hand=99)
    assert not state.is_over and state.hand_number == 100


def test_v8_a_chosen_cap_and_the_target_first():
    """V8 with max_hands 3: the game ends after hand 3; a total at the target still ends it before."""
    assert capped_hand(Rules(moon_scoring=SUBTRACT, max_hands=3), [0, 0, 0, 0], hand=3).is_over
    assert not capped_hand(Rules(moon_scoring=SUBTRACT, max_hands=3), [0, 0, 0, 0], 2).is_over
    early = capped_hand(Rules(max_hands=3), [10, 74, 20, 30], hand=1)  # R9: 100 reached
    assert early.is_over and early.outcome.hands_played == 1


def test_v8_play_on_cannot_play_on_at_the_cap_tied_players_share():
    """V5 play_on at the cap: no next hand, so the tied lowest totals share first place."""
    rules = Rules(tie_rule=TieRule.PLAY_ON, max_hands=3)
    state = capped_hand(rules, [26, 0, 0, 10], hand=3)  # add_to_others: seat 0 gets 0
    assert state.scores == [26, 26, 26, 36]
    assert state.outcome.winners == (0, 1, 2) and state.outcome.placements == (1, 1, 1, 4)
    assert not capped_hand(rules, [26, 0, 0, 10], hand=2).is_over


def test_v8_last_hand_breaks_a_tie_at_the_cap_as_at_the_target():
    state = capped_hand(Rules(tie_rule=TieRule.LAST_HAND, max_hands=3), [26, 0, 0, 10], hand=3)
    assert state.outcome.winners == (0,)  # it scored 0 in the last hand, seats 1 and 2 26
    assert state.outcome.placements == (1, 2, 2, 4)


def test_v8_no_cap_in_a_game_of_an_older_referee():
    """max_hands 0 (a log header without the key): the game goes on, as it did then."""
    rules = Rules.from_dict(
        {k: v for k, v in Rules(moon_scoring=SUBTRACT).to_dict().items() if k != "max_hands"}
    )
    state = capped_hand(rules, [-78, 60, 70, 90], hand=10_000)
    assert not state.is_over and state.hand_number == 10_001
