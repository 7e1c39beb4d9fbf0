"""check-bot's judges: every way a PassCards or PlayCard answer can be wrong, named.

``judge_pass`` and ``judge_play`` decide whether a bot's answer is usable and
say why not in the words check-bot reports. Each case builds the answer
message a bot would send (``referee.protocol``'s converters, or a raw
``pb.Card`` for a malformed one) at a position written from card strings.
"""

from __future__ import annotations

import pytest

from referee import protocol
from referee.checkbot.situations import judge_pass, judge_play
from referee.engine import Card, CardSet, GameState, Phase, Play
from referee.pb.hearts.v1 import hearts_pb2 as pb

HANDS = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
]
MIXED = "2C 3D 4H 5S 6C 7D 8H 9S TC JD QH KS AC"


def passes(*cards: str) -> pb.PassCardsResponse:
    return pb.PassCardsResponse(cards=protocol.cards_to_pb(Card.parse(c) for c in cards))


def plays(card: str) -> pb.PlayCardResponse:
    return pb.PlayCardResponse(card=protocol.card_to_pb(Card.parse(card)))


def hand(text: str) -> int:
    return int(CardSet.parse(text))


# PassCards (R2) ------------------------------------------------------------------------------


def test_three_distinct_held_cards_pass() -> None:
    problem, cards = judge_pass(passes("QH", "AC", "2C"), hand(MIXED), 3)
    assert problem is None
    assert cards == [Card.parse("QH"), Card.parse("AC"), Card.parse("2C")]


@pytest.mark.parametrize("answer", [("QH", "AC"), ("QH", "AC", "2C", "3D"), ()])
def test_the_wrong_number_of_cards_is_named_with_the_count(answer: tuple[str, ...]) -> None:
    problem, cards = judge_pass(passes(*answer), hand(MIXED), 3)
    shown = " ".join(Card.parse(c).symbol() for c in answer)
    assert problem == f"answered {len(answer)} cards ({shown}); `count` is 3 (R2)"
    assert cards is None


def test_a_card_passed_twice_is_named() -> None:
    problem, cards = judge_pass(passes("QH", "AC", "QH"), hand(MIXED), 3)
    assert problem == "answered Q♥ twice (Q♥ A♣ Q♥); the cards must be distinct (R2)"
    assert cards is None


def test_cards_not_held_are_named() -> None:
    # 2♥ and A♠ are not in the hand; Q♥ is.
    problem, cards = judge_pass(passes("QH", "2H", "AS"), hand(MIXED), 3)
    assert problem == "answered Q♥ 2♥ A♠, but does not hold 2♥ A♠"
    assert cards is None


def test_a_malformed_card_in_a_pass_is_named() -> None:
    answer = pb.PassCardsResponse(
        cards=[*protocol.cards_to_pb([Card.parse("QH"), Card.parse("AC")]), pb.Card(suit=9, rank=3)]
    )
    problem, cards = judge_pass(answer, hand(MIXED), 3)
    assert problem is not None and problem.startswith("answered a malformed card: ")
    assert cards is None


# PlayCard (R3, R4) ----------------------------------------------------------------------------


@pytest.fixture
def first_trick() -> GameState:
    """A hand without passing, seat 0 holding every club: it must lead 2♣ (R3)."""
    state = GameState.from_hands(HANDS, hand_number=4)  # the fourth hand holds (no pass)
    assert state.phase is Phase.PLAYING and state.current == 0
    return state


def test_a_legal_card_is_taken(first_trick: GameState) -> None:
    assert judge_play(first_trick, 0, plays("2C")) == (None, Card.parse("2C"))


def test_no_card_is_named() -> None:
    state = GameState.from_hands(HANDS, hand_number=4)
    problem, card = judge_play(state, 0, pb.PlayCardResponse())
    assert problem == "answered without a card (PlayCardResponse.card is not set)"
    assert card is None


def test_a_card_not_held_is_named_with_the_hand(first_trick: GameState) -> None:
    problem, card = judge_play(first_trick, 0, plays("QS"))
    held = CardSet.parse(HANDS[0]).symbols()
    assert problem == f"answered Q♠, which it does not hold (hand: {held})"
    assert card is None


def test_a_held_but_illegal_card_names_the_rule_and_the_legal_cards(
    first_trick: GameState,
) -> None:
    problem, card = judge_play(first_trick, 0, plays("AC"))
    assert problem is not None and card is None
    assert problem.startswith("answered A♣, which is not in legal_moves (R3: ")
    assert problem.endswith("; legal: 2♣")


def test_not_following_suit_is_named_with_r4() -> None:
    hands = [
        "2C 3D 4H 5S 6C 7D 8H 9S TC JD QH KS AC",
        "3C 4D 5H 6S 7C 8D 9H TS JC QD KH AS 2D",
        "4C 5D 6H 7S 8C 9D TH JS QC KD AH 2S 3H",
        "5C 6D 7H 8S 9C TD JH QS KC AD 2H 3S 4S",
    ]
    state = GameState.from_hands(hands, hand_number=4)
    state.apply(Play(0, Card.parse("2C")))
    problem, card = judge_play(state, 1, plays("4D"))  # seat 1 holds 3♣, 7♣ and J♣
    assert card is None and problem is not None
    assert problem.startswith("answered 4♦, which is not in legal_moves (R4: ")
    assert problem.endswith("; legal: 3♣ 7♣ J♣")


def test_a_malformed_card_is_named(first_trick: GameState) -> None:
    problem, card = judge_play(first_trick, 0, pb.PlayCardResponse(card=pb.Card(suit=1, rank=99)))
    assert problem is not None and problem.startswith("answered a malformed card: ")
    assert card is None
