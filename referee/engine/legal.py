"""The legal plays, and the rule that decides them: the one statement of the cascade.

:func:`legal_case` says, for a hand and the state of the trick, which case of
the cascade applies (first lead R3, follow suit R4, first trick clean R5 and
V7, hearts broken R6) and the legal plays it leaves. It is the source of
truth: :meth:`GameState.legal_mask <referee.engine.state.GameState.legal_mask>`
is the same cascade written for speed (the hottest path of a searching bot),
tested against this function over every combination of its inputs, and
:meth:`~referee.engine.state.GameState.check_play` explains a refusal from the
case. Anything else that needs to know *why* a set of plays is legal (check-bot's
situations, say) asks this function rather than re-classifying.
"""

from __future__ import annotations

import enum

from referee.engine.cards import HEARTS, QUEEN_OF_SPADES, SUIT_MASKS

__all__ = ["LegalCase", "legal_case"]

_ALL = (1 << 52) - 1
_NOT_HEARTS = ~HEARTS & _ALL
#: The cards allowed on the first trick when it must be clean (R5): no heart, no Q♠.
CLEAN = _NOT_HEARTS & ~(1 << QUEEN_OF_SPADES)


class LegalCase(enum.Enum):
    """The case of the cascade that decides a seat's legal plays.

    ``rule`` is the docs/rules.md id that restricts the plays (None when any card
    may be played); ``meaning`` completes "the seat ...".
    """

    rule: str | None
    meaning: str

    def __new__(cls, value: str, rule: str | None, meaning: str) -> LegalCase:
        member = object.__new__(cls)
        member._value_ = value
        member.rule = rule
        member.meaning = meaning
        return member

    FIRST_LEAD = "first_lead", "R3", "leads the first trick: only the lowest club of the deck"
    FOLLOW_SUIT = "follow_suit", "R4", "holds the led suit: any card of it"
    FIRST_TRICK_CLEAN = (
        "first_trick_clean",
        "R5",
        "is void in the led suit on the first trick: no heart and no Q♠, as it holds other cards",
    )
    FIRST_TRICK_ONLY_POINTS = (
        "first_trick_only_points",
        "R5",
        "is void in the led suit on the first trick holding only hearts and Q♠: any of them",
    )
    DISCARD = "discard", None, "is void in the led suit: any card"
    HEARTS_NOT_BROKEN = (
        "hearts_not_broken",
        "R6",
        "leads before hearts are broken: no heart, as it holds other cards",
    )
    ONLY_HEARTS = (
        "only_hearts",
        "R6",
        "leads before hearts are broken holding only hearts: any of them",
    )
    LEAD = "lead", None, "leads with hearts broken, or holding no heart: any card"


def legal_case(
    hand: int,
    lead_suit: int,
    *,
    first_trick: bool,
    hearts_broken: bool,
    clean_first_trick: bool,
    first_lead: int,
) -> tuple[LegalCase, int]:
    """The case that applies and the legal plays (a mask) of a seat to play.

    ``hand`` is the seat's cards (a mask); ``lead_suit`` the suit led to the
    trick in progress, or -1 when the seat leads; ``first_trick`` whether it is
    the hand's first trick; ``clean_first_trick`` is ``not
    rules.points_on_first_trick`` (V7); ``first_lead`` the one-card mask of the
    lowest club of the deck (R3, V6).
    """
    if lead_suit >= 0:
        follow = hand & SUIT_MASKS[lead_suit]
        if follow:
            return LegalCase.FOLLOW_SUIT, follow
        if first_trick and clean_first_trick:
            clean = hand & CLEAN
            if not clean:
                return LegalCase.FIRST_TRICK_ONLY_POINTS, hand
            if clean != hand:
                return LegalCase.FIRST_TRICK_CLEAN, clean
        return LegalCase.DISCARD, hand
    if first_trick:
        return LegalCase.FIRST_LEAD, first_lead
    if not hearts_broken:
        others = hand & _NOT_HEARTS
        if not others:
            return LegalCase.ONLY_HEARTS, hand
        if others != hand:
            return LegalCase.HEARTS_NOT_BROKEN, others
    return LegalCase.LEAD, hand
