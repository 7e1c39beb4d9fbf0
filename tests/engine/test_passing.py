"""R2 passing (and V6's cycle at the state level): directions, the exchange, refusals."""

from __future__ import annotations

import pytest

from referee.engine import (
    CardNotHeldError,
    CardSet,
    GameState,
    InvalidPassError,
    MoonScoring,
    NotYourTurnError,
    PassDirection,
    Phase,
    Rules,
    WrongPhaseError,
    card_list,
    format_cards,
)

from .helpers import assert_refused, cards, cs, snapshot

# The deal of seed 2024, hand 1 (pinned in test_deal.py), written out.
DEALT = [
    "4C QC 3D 7D 8D TD JD 8H 2S 4S 6S TS AS",
    "2C 3C 6C 7C AC 4D 5D 9D KD 3H JH 9S JS",
    "5C 9C JC KC 2D 6H 9H TH QH 3S 8S QS KS",
    "8C TC 6D QD AD 2H 4H 5H 7H KH AH 5S 7S",
]
PASSES = ["AS TS 8H", "AC KD JH", "QS KS QH", "AH KH AD"]


def passing_game(hand_number: int = 1) -> GameState:
    return GameState.from_hands(DEALT, Rules(), hand_number=hand_number, seed=2024)


def pass_all(state: GameState, order=(0, 1, 2, 3)) -> None:
    for seat in order:
        state.pass_cards(seat, cards(PASSES[seat]))


def test_r2_hand_1_passes_left():
    """R2/R1: hand 1 passes left, the next seat in play order; worked out by hand."""
    state = passing_game(1)
    assert state.pass_direction is PassDirection.LEFT
    assert [state.pass_to(s) for s in range(4)] == [1, 2, 3, 0]
    pass_all(state)
    assert [format_cards(h) for h in state.hands] == [
        "4C QC 3D 7D 8D TD JD AD KH AH 2S 4S 6S",
        "2C 3C 6C 7C 4D 5D 9D 3H 8H 9S TS JS AS",
        "5C 9C JC KC AC 2D KD 6H 9H TH JH 3S 8S",
        "8C TC 6D QD 2H 4H 5H 7H QH 5S 7S QS KS",
    ]
    assert state.received == [cs(PASSES[3]), cs(PASSES[0]), cs(PASSES[1]), cs(PASSES[2])]
    assert state.dealt == [cs(h) for h in DEALT]  # the deal is kept as dealt
    assert state.phase is Phase.PLAYING
    assert state.to_act() == [1]  # R3: seat 1 holds 2C now


def test_r2_hand_2_passes_right():
    state = passing_game(2)
    assert state.pass_direction is PassDirection.RIGHT
    assert [state.pass_to(s) for s in range(4)] == [3, 0, 1, 2]
    pass_all(state)
    # Seat 0 receives seat 1's AC KD JH, seat 3 receives seat 0's AS TS 8H.
    assert state.received == [cs(PASSES[1]), cs(PASSES[2]), cs(PASSES[3]), cs(PASSES[0])]
    assert state.hands[0] == cs("4C QC AC 3D 7D 8D TD JD KD JH 2S 4S 6S")
    assert state.hands[3] == cs("8C TC 6D QD 2H 4H 5H 7H 8H 5S 7S TS AS")


def test_r2_hand_3_passes_across():
    state = passing_game(3)
    assert state.pass_direction is PassDirection.ACROSS
    assert [state.pass_to(s) for s in range(4)] == [2, 3, 0, 1]
    pass_all(state)
    assert state.received == [cs(PASSES[2]), cs(PASSES[3]), cs(PASSES[0]), cs(PASSES[1])]
    assert state.hands[2] == cs("5C 9C JC KC 2D 6H 9H TH 3S 8S") | cs(PASSES[0])


def test_r2_hand_4_holds():
    """R2: hand 4 has no passing: play starts at once and passing is refused."""
    state = passing_game(4)
    assert state.pass_direction is PassDirection.HOLD
    assert state.phase is Phase.PLAYING
    assert state.to_act() == [1]  # 2C is in seat 1's dealt hand
    assert state.hands == [cs(h) for h in DEALT]
    assert [state.pass_to(s) for s in range(4)] == [0, 1, 2, 3]
    assert_refused(
        state,
        lambda: state.pass_cards(1, cards("AC KD JH")),
        WrongPhaseError,
        "cannot pass cards while the game is playing",
    )


def test_r2_passing_is_simultaneous_and_order_free():
    """R2: every seat passes at once; the exchange waits for the last one, in any order."""
    a = passing_game()
    b = passing_game()
    assert a.to_act() == [0, 1, 2, 3]
    pass_all(a)
    for n, seat in enumerate((3, 1, 0, 2)):
        b.pass_cards(seat, cards(PASSES[seat]))
        if n < 3:
            # Nothing moves before the last pass.
            assert b.phase is Phase.PASSING
            assert b.hands == [cs(h) for h in DEALT]
            assert b.received == [0, 0, 0, 0]
            assert seat not in b.to_act()
    assert snapshot(a) == snapshot(b)


def test_pass_accepts_cards_as_ints_in_any_order():
    state = passing_game()
    state.pass_cards(0, [int(c) for c in reversed(cards(PASSES[0]))])
    assert state.passed[0] == cs(PASSES[0])


def test_r2_pass_refusals_leave_the_state_unchanged():
    state = passing_game()
    state.pass_cards(1, cards(PASSES[1]))
    assert_refused(
        state,
        lambda: state.pass_cards(0, cards("AS TS")),
        InvalidPassError,
        r"must pass 3 cards, not 2 \(R2\)",
        rule="R2",
    )
    assert_refused(
        state,
        lambda: state.pass_cards(0, cards("AS TS 8H 2S")),
        InvalidPassError,
        r"must pass 3 cards, not 4 \(R2\)",
        rule="R2",
    )
    assert_refused(
        state, lambda: state.pass_cards(0, []), InvalidPassError, "must pass 3 cards, not 0"
    )
    assert_refused(
        state,
        lambda: state.pass_cards(0, cards("AS TS AS")),
        InvalidPassError,
        r"duplicate card in pass: A♠ \(R2\)",
        rule="R2",
    )
    error = assert_refused(
        state,
        lambda: state.pass_cards(0, cards("AS QS KH")),
        CardNotHeldError,
        "seat 0 does not hold K♥ Q♠",
    )
    assert error.kind == "card_not_held"
    assert_refused(
        state, lambda: state.pass_cards(0, [51, 50, 52]), InvalidPassError, "not a card: 52"
    )
    assert_refused(
        state, lambda: state.pass_cards(0, [51, 50, "QS"]), InvalidPassError, "not a card: 'QS'"
    )
    assert_refused(
        state,
        lambda: state.pass_cards(1, cards("2C 3C 6C")),
        NotYourTurnError,
        "seat 1 has already passed this hand",
    )
    assert_refused(
        state, lambda: state.pass_cards(4, cards("AS TS 8H")), NotYourTurnError, "no seat 4"
    )
    assert_refused(
        state, lambda: state.pass_cards(-1, cards("AS TS 8H")), NotYourTurnError, "no seat -1"
    )
    assert_refused(
        state,
        lambda: state.play(cards("2C")[0]),
        WrongPhaseError,
        "cannot play a card while the game is passing",
    )
    assert_refused(
        state,
        lambda: state.choose_moon_scoring(0, MoonScoring.ADD_TO_OTHERS),
        WrongPhaseError,
        "cannot choose the moon scoring while the game is passing",
    )
    # The refusals did not count as passes: seat 0 can still pass.
    state.pass_cards(0, cards(PASSES[0]))
    assert state.passed[0] == cs(PASSES[0])


def test_r2_pass_twice_after_exchange_is_wrong_phase():
    state = passing_game()
    pass_all(state)
    assert_refused(
        state,
        lambda: state.pass_cards(0, card_list(state.hands[0])[:3]),
        WrongPhaseError,
        "cannot pass cards while the game is playing",
    )


@pytest.mark.parametrize("players", [3, 5, 6, 7])
def test_v6_passing_left_then_right(players):
    """V6: other than four players pass left on hand 1 and right on hand 2."""
    from .helpers import play_out

    state = GameState.new(Rules(num_players=players), seed=8)
    for hand_number, offset in ((1, 1), (2, players - 1), (3, 1)):
        assert state.hand_number == hand_number
        chosen = {s: card_list(state.hands[s])[:3] for s in range(players)}
        before = list(state.hands)
        for seat in range(players):
            state.pass_cards(seat, chosen[seat])
        for seat in range(players):
            giver = (seat - offset) % players
            assert state.received[seat] == CardSet.of(chosen[giver])
            expected = before[seat] & ~CardSet.of(chosen[seat]) | CardSet.of(chosen[giver])
            assert state.hands[seat] == expected
        play_out(state)
