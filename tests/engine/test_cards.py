"""referee.engine.cards: the deck of R1, card parsing and formatting, card masks."""

from __future__ import annotations

import random

import pytest

from referee.engine import (
    ALL_CARDS,
    HEARTS,
    JACK_OF_DIAMONDS,
    QUEEN_OF_SPADES,
    SUIT_MASKS,
    TWO_OF_CLUBS,
    Card,
    CardSet,
    InvalidCardError,
    Rank,
    Suit,
    card_list,
    format_cards,
    mask_of,
    parse_cards,
)

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"]
SUITS = "CDHS"


def test_r1_deck_has_52_distinct_cards_in_index_order():
    """R1: 52 cards; index = suit * 13 + rank - 2 with suits C, D, H, S and 2 < ... < A."""
    texts = [rank + suit for suit in SUITS for rank in RANKS]
    parsed = [Card.parse(t) for t in texts]
    assert parsed == list(range(52))
    assert [str(c) for c in parsed] == texts
    assert ALL_CARDS == 2**52 - 1
    assert card_list(ALL_CARDS) == parsed


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("2C", Rank.TWO, Suit.CLUBS),
        ("TD", Rank.TEN, Suit.DIAMONDS),
        ("10h", Rank.TEN, Suit.HEARTS),
        ("Q♠", Rank.QUEEN, Suit.SPADES),
        (" as ", Rank.ACE, Suit.SPADES),
        ("J♦", Rank.JACK, Suit.DIAMONDS),
    ],
)
def test_parse_accepts_letters_ten_and_symbols(text, rank, suit):
    card = Card.parse(text)
    assert (card.rank, card.suit) == (rank, suit)
    assert card == Card.of(rank, suit)


def test_r1_rank_order_two_lowest_ace_highest():
    """R1: ranks 2 < 3 < ... < 10 < J < Q < K < A within a suit."""
    for suit in SUITS:
        ranks = [Card.parse(r + suit).rank for r in RANKS]
        assert ranks == sorted(ranks)
        assert [int(r) for r in ranks] == list(range(2, 15))


def test_format_str_symbol_and_repr_round_trip():
    qs = Card.parse("QS")
    assert str(qs) == "QS"
    assert qs.symbol() == "Q♠"
    assert Card.parse("10H").symbol() == "10♥"
    assert str(Card.parse("10H")) == "TH"
    assert repr(qs) == "Card.parse('QS')"
    assert eval(repr(qs)) == qs  # the repr pastes back
    for card in card_list(ALL_CARDS):
        assert Card.parse(str(card)) == card
        assert Card.parse(card.symbol()) == card


def test_named_cards_and_suit_masks():
    assert Card.parse("QS") == QUEEN_OF_SPADES
    assert Card.parse("JD") == JACK_OF_DIAMONDS
    assert Card.parse("2C") == TWO_OF_CLUBS
    assert [str(c) for c in card_list(HEARTS)] == [r + "H" for r in RANKS]
    for i, suit in enumerate(SUITS):
        assert [str(c)[-1] for c in card_list(SUIT_MASKS[i])] == [suit] * 13
    assert SUIT_MASKS[0] | SUIT_MASKS[1] | SUIT_MASKS[2] | SUIT_MASKS[3] == ALL_CARDS
    assert Suit.HEARTS.letter == "H" and Suit.SPADES.symbol == "♠"
    assert Rank.TEN.letter == "T"


@pytest.mark.parametrize("text", ["", "Q", "1S", "11S", "QX", "ZZ", "QSS", "10", "♠"])
def test_parse_rejects_non_cards(text):
    with pytest.raises(InvalidCardError, match="not a card"):
        Card.parse(text)


@pytest.mark.parametrize("index", [-1, 52, 100])
def test_card_index_out_of_range(index):
    with pytest.raises(InvalidCardError, match="out of range"):
        Card(index)


def test_card_of_rejects_bad_rank_or_suit():
    with pytest.raises(InvalidCardError):
        Card.of(1, 0)
    with pytest.raises(InvalidCardError):
        Card.of(15, 0)
    with pytest.raises(InvalidCardError):
        Card.of(2, 4)


def test_invalid_card_error_is_value_error():
    assert issubclass(InvalidCardError, ValueError)


def test_parse_cards_separators():
    assert parse_cards("AS QS, 4S,KH") == [Card.parse(t) for t in ("AS", "QS", "4S", "KH")]
    assert parse_cards("   ") == []


def test_cardset_parse_iterates_ascending_and_formats():
    hand = CardSet.parse("AS QS 4S KH 9H 3H JD 8D 6D 2D 10C 7C 5C")
    assert len(hand) == 13
    assert str(hand) == "5C 7C TC 2D 6D 8D JD 3H 9H KH 4S QS AS"
    assert hand.symbols().split()[:3] == ["5♣", "7♣", "10♣"]
    assert repr(hand) == "CardSet.parse('5C 7C TC 2D 6D 8D JD 3H 9H KH 4S QS AS')"
    assert eval(repr(hand)) == hand
    assert Card.parse("QS") in hand
    assert Card.parse("QH") not in hand
    assert "QS" not in hand  # only cards (ints) are members
    assert 99 not in hand
    assert list(hand) == sorted(hand)
    assert hand.cards() == list(hand)


def test_cardset_rejects_duplicates_and_bad_masks():
    with pytest.raises(InvalidCardError, match="duplicate"):
        CardSet.parse("AS QS AS")
    with pytest.raises(InvalidCardError):
        CardSet(1 << 52)
    with pytest.raises(InvalidCardError):
        CardSet(-1)


def test_empty_cardset():
    empty = CardSet()
    assert not empty
    assert len(empty) == 0
    assert list(empty) == []
    assert str(empty) == ""
    assert CardSet.of([]) == 0


def test_mask_of_and_format_cards():
    assert mask_of([0, 0, 51]) == 1 | 1 << 51
    assert format_cards(mask_of(parse_cards("QS 2C"))) == "2C QS"
    assert format_cards(mask_of(parse_cards("QS 2C")), symbols=True) == "2♣ Q♠"


def test_card_list_matches_bit_by_bit_listing():
    rng = random.Random(2024)
    masks = [0, ALL_CARDS, HEARTS, 1, 1 << 51, 1 << 12 | 1 << 13, 1 << 25 | 1 << 26]
    masks += [rng.getrandbits(52) for _ in range(2000)]
    masks += [rng.getrandbits(52) & rng.getrandbits(52) & rng.getrandbits(52) for _ in range(500)]
    for mask in masks:
        expected = [i for i in range(52) if mask >> i & 1]
        listed = card_list(mask)
        assert listed == expected
        assert all(type(c) is Card for c in listed)
