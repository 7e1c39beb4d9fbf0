"""Cards, suits, ranks and sets of cards as bit masks (R1).

A card is an ``int`` from 0 to 51: ``suit * 13 + (rank - 2)``, with the suits
in the order clubs, diamonds, hearts, spades. A set of cards (a hand, a trick's
cards, the legal moves) is a plain ``int`` with bit ``card`` set for each card
in it, so legal-move generation and scoring are mask arithmetic.

:class:`Card` is an ``int`` subclass with a parse/format pair, and
:class:`CardSet` an ``int`` subclass that iterates, prints and parses, for
people and tests; the hot paths of the engine use plain ints.

>>> Card.parse("QS")
Card.parse('QS')
>>> str(Card.parse("10h")), Card.parse("QS").symbol()
('TH', 'Q♠')
>>> CardSet.parse("AS QS 4S KH")
CardSet.parse('4S QS AS KH')
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator

__all__ = [
    "ALL_CARDS",
    "HEARTS",
    "JACK_OF_DIAMONDS",
    "QUEEN_OF_SPADES",
    "SUIT_MASKS",
    "TWO_OF_CLUBS",
    "Card",
    "CardSet",
    "InvalidCardError",
    "Rank",
    "Suit",
    "card_list",
    "format_cards",
    "mask_of",
    "parse_cards",
    "popcount",
]


class InvalidCardError(ValueError):
    """A card or card list could not be parsed."""


class Suit(enum.IntEnum):
    """The four suits, in the order used for card indices and sorting."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        """One upper-case letter: C, D, H or S."""
        return "CDHS"[self]

    @property
    def symbol(self) -> str:
        """The suit symbol: ♣, ♦, ♥ or ♠."""
        return "♣♦♥♠"[self]

    @property
    def word(self) -> str:
        """For messages: clubs, diamonds, hearts or spades."""
        return self.name.lower()


class Rank(enum.IntEnum):
    """Ranks with their pip values; a higher value wins a trick (R4)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def letter(self) -> str:
        """One character: 2-9, T, J, Q, K, A."""
        return _RANK_LETTERS[self - 2]


_RANK_LETTERS = "23456789TJQKA"
_SUIT_OF_CHAR = {"C": 0, "D": 1, "H": 2, "S": 3, "♣": 0, "♦": 1, "♥": 2, "♠": 3}


class Card(int):
    """One card, an int 0..51 (``suit * 13 + rank - 2``).

    Construct with :meth:`parse` or :meth:`of`; ``Card(n)`` takes an index.
    """

    __slots__ = ()

    def __new__(cls, index: int) -> Card:
        if not 0 <= index < 52:
            raise InvalidCardError(f"card index out of range 0..51: {index}")
        return _CARDS[index] if _CARDS else int.__new__(cls, index)

    @classmethod
    def of(cls, rank: Rank | int, suit: Suit | int) -> Card:
        """The card of this rank (2..14) and suit."""
        if not 2 <= rank <= 14 or not 0 <= suit <= 3:
            raise InvalidCardError(f"no card with rank {rank} and suit {suit}")
        return _CARDS[suit * 13 + rank - 2]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``"QS"``, ``"10h"``, ``"TH"`` or ``"Q♠"`` (rank, then suit)."""
        s = text.strip().upper()
        if len(s) < 2 or s[-1] not in _SUIT_OF_CHAR:
            raise InvalidCardError(f"not a card: {text!r} (expected e.g. 'QS', '10H', 'Q♠')")
        rank_text, suit = s[:-1], _SUIT_OF_CHAR[s[-1]]
        if rank_text == "10":
            rank_text = "T"
        if len(rank_text) != 1 or rank_text not in _RANK_LETTERS:
            raise InvalidCardError(f"not a card: {text!r} (unknown rank {rank_text!r})")
        return _CARDS[suit * 13 + _RANK_LETTERS.index(rank_text)]

    @property
    def suit(self) -> Suit:
        return Suit(self // 13)

    @property
    def rank(self) -> Rank:
        return Rank(self % 13 + 2)

    @property
    def mask(self) -> int:
        """The one-bit mask of this card."""
        return 1 << self

    def symbol(self) -> str:
        """For people: ``"Q♠"``, ``"10♥"``."""
        rank = "10" if self % 13 == 8 else _RANK_LETTERS[self % 13]
        return rank + "♣♦♥♠"[self // 13]

    def __str__(self) -> str:
        return _RANK_LETTERS[self % 13] + "CDHS"[self // 13]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


_CARDS: list[Card] = []
_CARDS.extend(int.__new__(Card, i) for i in range(52))

ALL_CARDS = (1 << 52) - 1
SUIT_MASKS = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
HEARTS = SUIT_MASKS[Suit.HEARTS]
QUEEN_OF_SPADES = Card.parse("QS")
JACK_OF_DIAMONDS = Card.parse("JD")
TWO_OF_CLUBS = Card.parse("2C")


def popcount(mask: int) -> int:
    """The number of cards in a mask."""
    return mask.bit_count()


def _suit_table(suit: int) -> tuple[tuple[Card, ...], ...]:
    # Entry b holds the cards of the 13-bit pattern b of this suit, low first;
    # built by doubling: the patterns with bit i set are those without it, plus
    # card i.
    table: list[tuple[Card, ...]] = [()]
    for i in range(13):
        card = _CARDS[13 * suit + i]
        table += [(*t, card) for t in table]
    return tuple(table)


# The cards of every 13-bit pattern of each suit (4 x 8192 small tuples, about
# 3 MB, built in a few tens of milliseconds), so that listing a mask's cards
# costs four table look-ups instead of a loop over its bits: card_list is on
# the hot path of every bot and of the referee.
_SUIT_TABLES = tuple(_suit_table(suit) for suit in range(4))
_CLUB_TABLE, _DIAMOND_TABLE, _HEART_TABLE, _SPADE_TABLE = _SUIT_TABLES


def card_list(mask: int) -> list[Card]:
    """The cards of a mask in ascending index order (clubs first, low first)."""
    return [
        *_CLUB_TABLE[mask & 0x1FFF],
        *_DIAMOND_TABLE[mask >> 13 & 0x1FFF],
        *_HEART_TABLE[mask >> 26 & 0x1FFF],
        *_SPADE_TABLE[mask >> 39 & 0x1FFF],
    ]


def mask_of(cards: Iterable[int]) -> int:
    """The mask of some cards (duplicates collapse; see :func:`parse_cards`)."""
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def parse_cards(text: str) -> list[Card]:
    """Parse a whitespace- or comma-separated card list: ``"AS QS 4S, KH"``."""
    return [Card.parse(t) for t in text.replace(",", " ").split()]


def format_cards(mask: int, *, symbols: bool = False) -> str:
    """The cards of a mask separated by spaces, e.g. ``"2C 9C QS"``."""
    return " ".join(c.symbol() if symbols else str(c) for c in card_list(mask))


class CardSet(int):
    """An immutable set of cards backed by its bit mask.

    Supports ``in``, ``len``, iteration (ascending), and parsing from and
    formatting to card strings. Mask operators return plain ints.
    """

    __slots__ = ()

    def __new__(cls, mask: int = 0) -> CardSet:
        if mask < 0 or mask > ALL_CARDS:
            raise InvalidCardError(f"not a card mask: {mask}")
        return int.__new__(cls, mask)

    @classmethod
    def parse(cls, text: str) -> CardSet:
        """Parse a card list; a repeated card is an error."""
        cards = parse_cards(text)
        mask = mask_of(cards)
        if popcount(mask) != len(cards):
            raise InvalidCardError(f"duplicate card in {text!r}")
        return cls(mask)

    @classmethod
    def of(cls, cards: Iterable[int]) -> CardSet:
        return cls(mask_of(cards))

    def __contains__(self, card: object) -> bool:
        return isinstance(card, int) and 0 <= card < 52 and bool(self >> card & 1)

    def __iter__(self) -> Iterator[Card]:
        return iter(card_list(self))

    def __len__(self) -> int:
        return self.bit_count()

    def __bool__(self) -> bool:
        return int(self) != 0

    def cards(self) -> list[Card]:
        return card_list(self)

    def symbols(self) -> str:
        return format_cards(self, symbols=True)

    def __str__(self) -> str:
        return format_cards(self)

    def __repr__(self) -> str:
        return f"CardSet.parse({format_cards(self)!r})"
