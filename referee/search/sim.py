"""A compact Hearts simulator for the search's playouts: cards are ints, hands bit masks.

The card numbering is the referee engine's (``suit * 13 + rank - 2``, suits
clubs, diamonds, hearts, spades), so a hand is a 52-bit int and legal moves,
trick winners and scores are mask arithmetic. It knows the rules of
docs/rules.md that matter inside one hand (R3-R8, V1-V3, V6, V7) and nothing
about passing, totals or game end. tests/strong/test_cross_check.py checks its
legal moves, trick winners and hand scores against ``referee.engine`` on
thousands of random positions in every variant.

Standard library only: the strong bot imports it from the referee package
(read-only in its sandbox), as the game analysis does.
"""

from __future__ import annotations

import random

SUIT_MASKS = tuple(0x1FFF << (13 * s) for s in range(4))
CLUBS, DIAMONDS, HEARTS, SPADES = SUIT_MASKS
QS = 1 << 49  # Q♠: 3 * 13 + 12 - 2
KS = 1 << 50
AS = 1 << 51
JD = 1 << 22  # J♦: 1 * 13 + 11 - 2
FULL = (1 << 52) - 1
NOT_HEARTS = FULL & ~HEARTS
CLEAN = FULL & ~HEARTS & ~QS  # cards allowed on the first trick (R5)
HIGH_SPADES = KS | AS

# V2's moon scorings, by the engine's names.
ADD_TO_OTHERS = "add_to_others"
SUBTRACT_FROM_SELF = "subtract_from_self"
SHOOTER_CHOOSES = "shooter_chooses"

# V6: the cards removed so that the deck divides evenly (docs/rules.md).
_REMOVED = {3: (13,), 4: (), 5: (13, 0), 6: (13, 14, 1, 2), 7: (13, 14, 1)}


def deck_mask(num_players: int) -> int:
    """The cards in play at a table of ``num_players`` (V6)."""
    mask = FULL
    for card in _REMOVED[num_players]:
        mask &= ~(1 << card)
    return mask


class Variant:
    """The rules of one hand, as the simulator needs them."""

    __slots__ = (
        "clean_first",
        "deck",
        "first_lead",
        "moon",
        "moon_scoring",
        "n",
        "omnibus",
        "qs_breaks",
        "tricks",
    )

    def __init__(
        self,
        num_players: int = 4,
        *,
        queen_breaks_hearts: bool = False,
        moon_scoring: str = ADD_TO_OTHERS,
        omnibus: bool = False,
        points_on_first_trick: bool = False,
    ) -> None:
        self.n = num_players
        self.deck = deck_mask(num_players)
        self.tricks = self.deck.bit_count() // num_players
        clubs = self.deck & CLUBS
        self.first_lead = clubs & -clubs  # R3: the lowest club in the deck
        self.qs_breaks = queen_breaks_hearts
        self.clean_first = not points_on_first_trick
        self.omnibus = omnibus
        self.moon = HEARTS | QS | (JD if omnibus else 0)
        self.moon_scoring = moon_scoring


def legal_mask(
    variant: Variant, hand: int, trick: int, lead_suit: int, trick_number: int, broken: bool
) -> int:
    """The legal plays (a mask) of ``hand``; ``trick`` is the mask of the trick's cards so far.

    The cascade of docs/rules.md: follow suit (R4), first trick clean (R5,
    V7), first lead (R3), hearts not broken (R6), otherwise anything.
    """
    if trick:
        follow = hand & SUIT_MASKS[lead_suit]
        if follow:
            return follow
        if trick_number == 0 and variant.clean_first:
            return hand & CLEAN or hand
        return hand
    if trick_number == 0:
        return variant.first_lead & hand
    if broken:
        return hand
    return hand & NOT_HEARTS or hand


def trick_points(variant: Variant, cards: int) -> int:
    """Points in a set of cards (R7, V3)."""
    points = (cards & HEARTS).bit_count()
    if cards & QS:
        points += 13
    if variant.omnibus and cards & JD:
        points -= 10
    return points


def shooter(variant: Variant, taken: list[int]) -> int:
    """The seat that shot the moon (R8, V3) given each seat's cards taken, or -1."""
    moon = variant.moon
    for seat, cards in enumerate(taken):
        if cards & moon == moon:
            return seat
    return -1


def hand_scores(variant: Variant, taken: list[int], choice: str | None = None) -> list[int]:
    """Each seat's score for the hand (R7, R8, V2, V3), given each seat's cards taken.

    ``choice`` is the shooter's pick under V2 shooter_chooses (add_to_others
    when not given, as for a bot that does not answer).
    """
    moon = shooter(variant, taken)
    if moon < 0:
        return [trick_points(variant, cards) for cards in taken]
    mode = variant.moon_scoring
    if mode == SHOOTER_CHOOSES:
        mode = choice or ADD_TO_OTHERS
    if mode == SUBTRACT_FROM_SELF:
        return [-26 if s == moon else 0 for s in range(variant.n)]
    return [0 if s == moon else 26 for s in range(variant.n)]


def winner_card(trick: int, lead_suit: int) -> int:
    """The card that wins a trick (R4): the highest of the led suit."""
    return (trick & SUIT_MASKS[lead_suit]).bit_length() - 1


def heuristic_card(
    hand: int, legal: int, trick: int, lead_suit: int, played: int, last: bool, qs_out: bool
) -> int:
    """The playout policy: the card a sensible, quick player picks.

    ``played`` is how many cards the trick holds already, ``last`` whether
    this seat completes it, ``qs_out`` whether Q♠ is still to be played by
    somebody (so that A♠ and K♠ are dangerous). Leading: the lowest card,
    avoiding high spades while Q♠ is out. Following: duck under the winning
    card with the highest card that still loses; when it must win, the last
    seat sheds its highest card (never Q♠), others their lowest. Void: Q♠,
    then A♠/K♠ while Q♠ is out, then the highest heart, then the highest card.
    """
    if not played:
        best, best_rank = -1, 99
        for s in (0, 1, 2, 3):
            m = legal & SUIT_MASKS[s]
            if not m:
                continue
            low = (m & -m).bit_length() - 1
            rank = low - 13 * s
            if s == 3 and qs_out and (1 << low) & (QS | HIGH_SPADES):
                rank += 20  # leading Q♠ or a spade above it collects Q♠
            elif s == 2:
                rank += 1
            if rank < best_rank:
                best, best_rank = low, rank
        return best
    suit = SUIT_MASKS[lead_suit]
    follow = legal & suit
    if follow:
        win = (trick & suit).bit_length() - 1
        under = follow & ((1 << win) - 1)
        if under:
            return under.bit_length() - 1
        if last:
            shed = follow & ~QS or follow
            return shed.bit_length() - 1
        low = follow & ~QS or follow
        return (low & -low).bit_length() - 1
    if legal & QS:
        return 49
    if qs_out and legal & HIGH_SPADES:
        return (legal & HIGH_SPADES).bit_length() - 1
    hearts = legal & HEARTS
    if hearts:
        return hearts.bit_length() - 1
    best, best_rank = -1, -1
    for s in (0, 1, 3, 2):
        m = legal & SUIT_MASKS[s]
        if m:
            high = m.bit_length() - 1
            if high - 13 * s > best_rank:
                best, best_rank = high, high - 13 * s
    return best


def random_bit(mask: int, rng: random.Random) -> int:
    """A uniformly random card of a non-empty mask."""
    k = rng.randrange(mask.bit_count())
    for _ in range(k):
        mask &= mask - 1
    return (mask & -mask).bit_length() - 1


def playout(
    variant: Variant,
    hands: list[int],
    taken: list[int],
    leader: int,
    trick_cards: list[int],
    trick_number: int,
    broken: bool,
    rng: random.Random | None = None,
    epsilon: float = 0.0,
    trace: list[int] | None = None,
) -> list[int]:
    """Play the hand out from a position with the playout policy; each seat's cards taken.

    ``hands`` and ``taken`` are changed in place (pass copies). ``trick_cards``
    are the cards of the trick in progress in play order from ``leader`` (all
    ``n`` of them when the search's own card completes it).
    With ``rng`` and ``epsilon`` > 0 each play is a random legal card with
    probability ``epsilon`` (``epsilon`` 1: random playouts). ``trace``, if
    given, gets the cards played in order (for the cross-check test).
    """
    n = variant.n
    tricks = variant.tricks
    qs_breaks = variant.qs_breaks
    clean_first = variant.clean_first
    first_lead = variant.first_lead
    qs_out = any(h & QS for h in hands)
    trick = 0
    lead_suit = -1
    win_card = win_seat = -1
    seat = leader
    for c in trick_cards:
        if not trick:
            lead_suit = c // 13
        if c // 13 == lead_suit and c > win_card:
            win_card, win_seat = c, seat
        trick |= 1 << c
        seat = seat + 1 if seat + 1 < n else 0
    played = len(trick_cards)
    if played == n:  # the cards given complete their trick
        taken[win_seat] |= trick
        trick_number += 1
        if trick_number == tricks:
            return taken
        trick = played = 0
        seat = win_seat
    randomize = rng is not None and epsilon > 0.0
    while True:
        hand = hands[seat]
        # legal_mask(), inlined for speed (the cross-check test covers both).
        if played:
            legal = hand & SUIT_MASKS[lead_suit]
            if not legal:
                legal = (hand & CLEAN or hand) if trick_number == 0 and clean_first else hand
        elif trick_number == 0:
            legal = first_lead & hand
        elif broken:
            legal = hand
        else:
            legal = hand & NOT_HEARTS or hand
        if legal & (legal - 1) == 0:
            card = legal.bit_length() - 1
        elif randomize and (epsilon >= 1.0 or rng.random() < epsilon):
            card = random_bit(legal, rng)
        else:
            card = heuristic_card(hand, legal, trick, lead_suit, played, played == n - 1, qs_out)
        if trace is not None:
            trace.append(card)
        bit = 1 << card
        hands[seat] = hand ^ bit
        if not played:
            lead_suit = card // 13
            win_card, win_seat = card, seat
        elif card > win_card and card // 13 == lead_suit:
            win_card, win_seat = card, seat
        trick |= bit
        played += 1
        if bit & HEARTS or (qs_breaks and bit == QS):
            broken = True
        if bit == QS:
            qs_out = False
        if played == n:
            taken[win_seat] |= trick
            trick_number += 1
            if trick_number == tricks:
                return taken
            trick = 0
            played = 0
            seat = win_seat
        else:
            seat = seat + 1 if seat + 1 < n else 0
