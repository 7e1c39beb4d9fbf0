"""Playing tricks: first lead (R3), following and winning (R4), the clean first
trick (R5, V7), breaking hearts (R6, V1), and the refusals of illegal plays."""

from __future__ import annotations

import pytest

from referee.engine import (
    CardNotHeldError,
    IllegalMoveError,
    NotYourTurnError,
    Phase,
    Rules,
)

from .helpers import assert_refused, cards, cs, hold_hand, play_trick

C = cards


def one(text: str):
    return C(text)[0]


# Deal A: seat 0 holds every club, seat 1 every diamond, seat 2 every spade,
# seat 3 every heart.
DEAL_A = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
]

# Deal B: seat 1 is void in clubs and holds only hearts and Q♠; seat 3 is void in
# clubs with twelve spades and one heart.
DEAL_B = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH QS",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS AH",
]

# Deal C: everyone but seat 0 is void in clubs and holds points and other cards.
DEAL_C = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "2D 3D 4D 5D 6D 7D 8D 2H 3H 4H 5H 6H 7H",
    "9D TD JD QD KD AD 2S 3S 4S 5S 6S 7S QS",
    "8H 9H TH JH QH KH AH 8S 9S TS JS KS AS",
]

# Deal E: seat 3 wins trick 1 with A♣ and then holds only hearts.
DEAL_E = [
    "2C 3C 4C 5C 8C 9C TC JC QC KC 2D 3D 4D",
    "6C 5D 6D 7D 8D 9D TD JD QD KD AD 2S 3S",
    "7C 4S 5S 6S 7S 8S 9S TS JS QS KS AS AH",
    "AC 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
]

# Deal F: seat 3 wins trick 1 with A♣ and then holds Q♠ and eleven hearts.
DEAL_F = [
    "2C 3C 4C 5C 8C 9C TC JC QC KC 2D 3D 4D",
    "6C 5D 6D 7D 8D 9D TD JD QD KD AD 2S 3S",
    "7C 4S 5S 6S 7S 8S 9S TS JS KS AS KH AH",
    "AC QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH",
]

# Deal G: a mixed deal, every seat holding every suit.
DEAL_G = [
    "2C 5C 9C KC 2D 5D 9D KD 2S 5S 9S KS 2H",
    "3C 6C TC AC 3D 6D TD AD 3S 6S TS AS 3H",
    "4C 7C JC 4D 7D JD 4S 7S JS QS 4H 5H 6H",
    "8C QC 8D QD 8S 7H 8H 9H TH JH QH KH AH",
]


# R3 -------------------------------------------------------------------------------


@pytest.mark.parametrize("holder", [0, 1, 2, 3])
def test_r3_holder_of_two_of_clubs_leads_it(holder):
    hands = list(DEAL_G)
    hands[0], hands[holder] = hands[holder], hands[0]
    state = hold_hand(hands)
    assert state.phase is Phase.PLAYING
    assert state.to_act() == [holder]
    assert state.legal_moves() == cs("2C")
    assert state.legal_moves(holder) == cs("2C")
    for other in {0, 1, 2, 3} - {holder}:
        assert state.legal_moves(other) == cs("")


def test_r3_refuses_any_other_first_lead():
    state = hold_hand(DEAL_G)
    for card in C("5C KC 2D 2S 2H"):
        assert not state.is_legal(card)
        assert_refused(
            state,
            lambda card=card: state.play(card),
            IllegalMoveError,
            r"the first trick must be led with 2♣ \(R3\)",
            rule="R3",
        )
    state.play(one("2C"))
    assert state.trick_plays == [(0, one("2C"))]
    assert state.to_act() == [1]


# R4 -------------------------------------------------------------------------------


def test_r4_must_follow_suit_and_highest_of_led_suit_wins():
    state = hold_hand(DEAL_G)
    state.play(one("2C"))
    # Seat 1 holds clubs: only clubs are legal.
    assert state.legal_moves() == cs("3C 6C TC AC")
    error = assert_refused(
        state,
        lambda: state.play(one("AD")),
        IllegalMoveError,
        r"must follow suit: clubs \(R4\)",
        rule="R4",
    )
    assert error.kind == "illegal_card"
    for card in C("3C JC QC"):
        state.play(card)
    trick = state.tricks[-1]
    assert trick.winner == 3  # Q♣ is the highest club played
    assert trick.leader == 0
    assert trick.points == 0
    assert [(seat, str(card)) for seat, card in trick.plays] == [
        (0, "2C"),
        (1, "3C"),
        (2, "JC"),
        (3, "QC"),
    ]
    assert state.to_act() == [3]  # the winner leads the next trick
    assert state.trick_number == 1


def test_r4_no_trump_a_discard_never_wins():
    """R4: no trump: a higher card of another suit does not beat the led suit."""
    state = hold_hand(DEAL_G)
    play_trick(state, "2C 3C JC QC", leader=0)
    # Seat 3 leads 8S; seats 0, 1, 2 follow; seat 1's A♠ wins (and Q♠ is 13).
    trick = play_trick(state, "8S KS AS QS", leader=3)
    assert (trick.winner, trick.points) == (1, 13)
    # Seat 1 leads a diamond; seat 3 follows with Q♦ then the others.
    trick = play_trick(state, "3D JD 8D 2D", leader=1)
    assert (trick.winner, trick.points) == (2, 0)
    # Seat 2 leads 4C; seat 3 holds 8C and follows; seat 0 and 1 follow.
    trick = play_trick(state, "4C 8C 5C 6C", leader=2)
    assert trick.winner == 3
    # Seat 3, out of clubs and diamonds now? It holds QD; lead Q♦: seat 0 follows 5D,
    # seat 1 6D, seat 2 4D: Q♦ wins.
    trick = play_trick(state, "QD 5D 6D 4D", leader=3)
    assert trick.winner == 3
    # Seat 3 now holds only hearts: leading one is allowed (R6) and breaks hearts.
    assert state.legal_moves() == cs("7H 8H 9H TH JH QH KH AH")
    trick = play_trick(state, "7H 2H 3H 4H", leader=3)
    assert (trick.winner, trick.points) == (3, 4)
    # Seat 3 leads 8H; seats 0 and 1 are void in hearts: their spades, even high
    # ones, cannot win a heart trick.
    state.play(one("8H"))
    assert state.legal_moves() == cs("9C KC 9D KD 2S 5S 9S")
    state.play(one("9S"))
    assert state.legal_moves() == cs("TC AC TD AD 3S 6S TS")
    state.play(one("TS"))
    state.play(one("5H"))
    assert state.tricks[-1].winner == 3
    assert state.tricks[-1].points == 2


def test_r4_points_go_to_the_trick_winner():
    state = hold_hand(DEAL_G)
    play_trick(state, "2C 3C JC QC")
    play_trick(state, "8S KS AS QS")
    assert state.points_taken == [0, 13, 0, 0]
    assert state.taken[1] == cs("8S KS AS QS")


# R5 / V7 --------------------------------------------------------------------------


def test_r5_no_queen_of_spades_on_the_first_trick():
    """R5: seat 2 is void in clubs and holds other spades: Q♠ may not be played."""
    state = hold_hand(DEAL_A)
    state.play(one("2C"))
    assert state.legal_moves() == cs("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD")
    state.play(one("AD"))  # a void player may discard any clean card
    assert state.legal_moves() == cs("2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS")
    assert_refused(
        state,
        lambda: state.play(one("QS")),
        IllegalMoveError,
        r"Q♠ not allowed on the first trick \(R5\)",
        rule="R5",
    )
    state.play(one("AS"))
    # Seat 3 holds only hearts: it may play any of them (R5, "unless nothing else").
    assert state.legal_moves() == cs(DEAL_A[3])
    state.play(one("AH"))
    trick = state.tricks[0]
    assert (trick.winner, trick.points) == (0, 1)  # 2♣ wins: the only club


def test_r5_no_hearts_on_the_first_trick():
    state = hold_hand(DEAL_C)
    state.play(one("2C"))
    assert state.legal_moves() == cs("2D 3D 4D 5D 6D 7D 8D")
    assert_refused(
        state,
        lambda: state.play(one("7H")),
        IllegalMoveError,
        r"hearts not allowed on the first trick \(R5\)",
        rule="R5",
    )


def test_r5_void_holding_only_hearts_and_queen_may_play_them():
    """R5: void in clubs with only hearts and Q♠: any of them may be played."""
    state = hold_hand(DEAL_B)
    state.play(one("2C"))
    assert state.legal_moves() == cs(DEAL_B[1])
    state.play(one("QS"))
    state.play(one("AD"))
    # Seat 3 holds a heart and spades: the heart is not allowed.
    assert state.legal_moves() == cs("2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS")
    assert_refused(
        state,
        lambda: state.play(one("AH")),
        IllegalMoveError,
        r"hearts not allowed on the first trick \(R5\)",
        rule="R5",
    )
    state.play(one("AS"))
    trick = state.tricks[0]
    assert (trick.winner, trick.points) == (0, 13)


def test_r5_void_holding_only_hearts_and_queen_may_play_a_heart():
    state = hold_hand(DEAL_B)
    state.play(one("2C"))
    state.play(one("KH"))
    assert state.hearts_broken  # a heart played to a trick breaks hearts (R6)


def test_v7_points_allowed_on_the_first_trick():
    """V7: with points_on_first_trick the void players may discard hearts and Q♠."""
    state = hold_hand(DEAL_C, Rules(points_on_first_trick=True))
    state.play(one("2C"))
    assert state.legal_moves() == cs(DEAL_C[1])
    state.play(one("7H"))
    assert state.legal_moves() == cs(DEAL_C[2])
    state.play(one("QS"))
    state.play(one("AH"))
    trick = state.tricks[0]
    assert (trick.winner, trick.points) == (0, 15)
    # Following suit still applies (R4) on the first trick under V7.
    state2 = hold_hand(DEAL_G, Rules(points_on_first_trick=True))
    state2.play(one("2C"))
    assert state2.legal_moves() == cs("3C 6C TC AC")


def test_r5_applies_only_to_the_first_trick():
    state = hold_hand(DEAL_A)
    play_trick(state, "2C 2D 2S 2H")  # seat 0 wins with 2C, the only club
    play_trick(state, "3C 3D 3S 3H", leader=0)
    state.play(one("4C"))
    state.play(one("4D"))
    assert one("QS") in state.legal_moves()  # a discard of Q♠ is fine after trick 1


# R6 / V1 --------------------------------------------------------------------------


def test_r6_no_heart_lead_before_hearts_are_broken():
    state = hold_hand(DEAL_G)
    play_trick(state, "2C 3C JC QC")
    # Seat 3 leads, holding hearts and other suits; hearts are not broken.
    assert not state.hearts_broken
    assert state.legal_moves() == cs("8C 8D QD 8S")
    assert_refused(
        state,
        lambda: state.play(one("AH")),
        IllegalMoveError,
        r"hearts not broken \(R6\): A♥ may not be led",
        rule="R6",
    )


def test_r6_leader_with_only_hearts_may_lead_one_and_breaks_hearts():
    state = hold_hand(DEAL_E)
    trick = play_trick(state, "2C 6C 7C AC", leader=0)
    assert trick.winner == 3
    assert state.legal_moves() == cs(DEAL_E[3]) & ~cs("AC")
    assert not state.hearts_broken
    state.play(one("2H"))
    assert state.hearts_broken
    # Seats 0 and 1 are void in hearts, seat 2 must follow with A♥ and wins.
    state.play(one("2D"))
    state.play(one("5D"))
    assert state.legal_moves() == cs("AH")
    state.play(one("AH"))
    assert (state.tricks[-1].winner, state.tricks[-1].points) == (2, 2)


def test_r6_only_hearts_and_queen_must_lead_the_queen():
    """R6: holding only hearts and Q♠, the leader must lead Q♠ (hearts not broken)."""
    state = hold_hand(DEAL_F)
    play_trick(state, "2C 6C 7C AC", leader=0)
    assert state.legal_moves() == cs("QS")
    assert_refused(
        state,
        lambda: state.play(one("2H")),
        IllegalMoveError,
        r"hearts not broken \(R6\): 2♥ may not be led",
        rule="R6",
    )
    trick = play_trick(state, "QS 2D 2S AS", leader=3)
    assert (trick.winner, trick.points) == (2, 13)
    # R6 default: Q♠ did not break hearts; seat 2 may not lead its hearts.
    assert not state.hearts_broken
    assert state.legal_moves() == cs("4S 5S 6S 7S 8S 9S TS JS KS")
    assert_refused(
        state,
        lambda: state.play(one("AH")),
        IllegalMoveError,
        r"hearts not broken \(R6\)",
        rule="R6",
    )
    # A heart discarded to trick 3 breaks hearts; then seat 2 may lead A♥.
    play_trick(state, "4S 2H 3D 3S", leader=2)
    assert state.hearts_broken
    assert state.tricks[-1].winner == 2  # 4♠ beats 3♠; the heart is a discard
    assert one("AH") in state.legal_moves()
    assert state.legal_moves() == cs("5S 6S 7S 8S 9S TS JS KS KH AH")


# Deal F2: seat 3 again ends up with Q♠ and hearts after winning trick 1, while
# seats 1 and 2 are void in clubs and hold a heart.
DEAL_F2 = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D",
    "3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD AH",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS KH",
    "AC QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH",
]


def test_r6_only_hearts_and_queen_after_hearts_broken_may_lead_a_heart():
    """R6 with V7: hearts broken on trick 1; the leader with Q♠ and hearts may lead either."""
    state = hold_hand(DEAL_F2, Rules(points_on_first_trick=True))
    trick = play_trick(state, "2C AH KH AC", leader=0)
    assert (trick.winner, trick.points) == (3, 2)
    assert state.hearts_broken
    assert state.legal_moves() == cs(DEAL_F2[3]) & ~cs("AC")
    state.play(one("2H"))
    # The same cards without V7: no heart on trick 1, so Q♠ must be led.
    state = hold_hand(DEAL_F2)
    assert state.legal_moves(0) == cs("2C")
    state.play(one("2C"))
    assert state.legal_moves() == cs("3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD")
    state.play(one("3D"))
    state.play(one("2S"))
    state.play(one("AC"))
    assert not state.hearts_broken
    assert state.legal_moves() == cs("QS")


def test_v1_queen_of_spades_breaks_hearts():
    """V1 true: once Q♠ has been played, hearts may be led."""
    state = hold_hand(DEAL_F, Rules(queen_breaks_hearts=True))
    play_trick(state, "2C 6C 7C AC", leader=0)
    play_trick(state, "QS 2D 2S AS", leader=3)
    assert state.hearts_broken
    assert state.legal_moves() == cs("4S 5S 6S 7S 8S 9S TS JS KS KH AH")
    state.play(one("AH"))
    assert state.trick_plays == [(2, one("AH"))]


def test_r6_discarding_a_heart_after_the_first_trick_breaks_hearts():
    state = hold_hand(DEAL_G)
    play_trick(state, "2C 3C JC QC")
    trick = play_trick(state, "8C 9C TC 4C", leader=3)
    assert trick.winner == 1  # T♣ is the highest club
    state.play(one("6C"))
    state.play(one("7C"))
    # Seat 3 is void in clubs now: it may discard anything, a heart too.
    assert state.legal_moves() == cs("8D QD 8S 7H 8H 9H TH JH QH KH AH")
    assert not state.hearts_broken
    state.play(one("AH"))
    assert state.hearts_broken
    state.play(one("KC"))
    assert (state.tricks[-1].winner, state.tricks[-1].points) == (0, 1)
    # Seat 0 may now lead its heart.
    assert one("2H") in state.legal_moves()


def test_r6_queen_lead_before_hearts_broken():
    """R6: Q♠ may be led at any time, also before hearts are broken."""
    hands = [
        "2C 5C 9C KC 2D 5D 9D KD 2S 5S 9S KS 2H",
        "3C 6C TC AC 3D 6D TD AD 3S 6S TS AS 3H",
        "4C 7C QC 4D 7D JD 4S 7S JS QS 4H 5H 6H",
        "8C JC 8D QD 8S 7H 8H 9H TH JH QH KH AH",
    ]
    state = hold_hand(hands)
    play_trick(state, "2C 3C QC 8C")  # seat 2 wins with Q♣
    assert not state.hearts_broken
    assert one("QS") in state.legal_moves()
    assert state.legal_moves() == cs("4C 7C 4D 7D JD 4S 7S JS QS")
    state.play(one("QS"))
    assert not state.hearts_broken  # R6 default: Q♠ does not break hearts


# Out of turn, not held ------------------------------------------------------------


def test_play_out_of_turn_and_not_held_are_refused():
    state = hold_hand(DEAL_G)
    error = assert_refused(
        state,
        lambda: state.play(one("3C"), seat=1),
        NotYourTurnError,
        "seat 1 played out of turn: seat 0 is to play",
    )
    assert error.kind == "out_of_turn"
    state.play(one("2C"), seat=0)
    assert_refused(
        state,
        lambda: state.play(one("4C"), seat=1),
        CardNotHeldError,
        "seat 1 does not hold 4♣",
    )
    assert_refused(
        state, lambda: state.play(one("4C")), CardNotHeldError, "seat 1 does not hold 4♣"
    )
    assert_refused(
        state, lambda: state.play(one("2C")), CardNotHeldError, "seat 1 does not hold 2♣"
    )
    assert_refused(state, lambda: state.play(52), CardNotHeldError, "not a card: 52")
    assert_refused(state, lambda: state.play(-1), CardNotHeldError, "not a card: -1")
    assert_refused(state, lambda: state.play("3C"), CardNotHeldError, "not a card: '3C'")
    assert_refused(
        state,
        lambda: state.play(one("3C"), seat=2),
        NotYourTurnError,
        "seat 2 played out of turn: seat 1 is to play",
    )
    assert state.legal_moves(2) == cs("")
    assert not state.is_legal(one("3C"), seat=2)
    assert not state.is_legal(60)
    assert state.is_legal(one("3C"))


def test_check_play_raises_what_play_would_and_changes_nothing():
    state = hold_hand(DEAL_G)
    state.play(one("2C"))
    assert state.check_play(1, one("3C")) is None
    assert_refused(state, lambda: state.check_play(1, one("AD")), IllegalMoveError, "R4")
    assert_refused(state, lambda: state.check_play(0, one("5C")), NotYourTurnError, "seat 0")
    assert_refused(state, lambda: state.check_play(1, one("4C")), CardNotHeldError, "4♣")


def test_apply_dispatches_actions():
    from referee.engine import Play

    state = hold_hand(DEAL_G)
    state.apply(Play(0, one("2C")))
    assert state.trick_plays == [(0, one("2C"))]
    assert_refused(state, lambda: state.apply(Play(1, one("AD"))), IllegalMoveError, "must follow")
    with pytest.raises(TypeError, match="not an action"):
        state.apply("play 1 3C")  # type: ignore[arg-type]


def test_copy_is_independent():
    state = hold_hand(DEAL_G)
    twin = state.copy()
    state.play(one("2C"))
    assert twin.trick_plays == []
    assert twin.hands[0] == cs(DEAL_G[0])
    twin.play(one("2C"))
    twin.play(one("AC"))
    assert state.trick_plays == [(0, one("2C"))]
    assert state.to_act() == [1]
