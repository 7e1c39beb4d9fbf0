"""The rules engine: pure Hearts rules (docs/rules.md R1-R9, V1-V7), no I/O, no clocks.

Typical use::

    from referee.engine import GameState, Rules

    state = GameState.new(Rules(), seed=42)
    for seat in state.to_act():               # all seats pass at once (R2)
        state.pass_cards(seat, list(state.view(seat).hand)[:3])
    while not state.is_over:
        ...
        state.play(next(iter(state.legal_moves())))
"""

from referee.engine.cards import (
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
from referee.engine.errors import (
    ActionError,
    CardNotHeldError,
    GameOverError,
    IllegalMoveError,
    InvalidPassError,
    NotYourTurnError,
    WrongPhaseError,
)
from referee.engine.faults import LIMIT_KINDS, NOT_RECORDED, FaultKind
from referee.engine.legal import LegalCase, legal_case
from referee.engine.replay import ReplayError, replay
from referee.engine.rules import (
    MAX_HANDS,
    MAX_TARGET_SCORE,
    MoonScoring,
    PassDirection,
    Rules,
    RulesError,
    TieRule,
)
from referee.engine.state import (
    Action,
    GameState,
    HandResult,
    MoonChoice,
    Outcome,
    Pass,
    Phase,
    Play,
    Trick,
    deal,
)
from referee.engine.view import SeatView

__all__ = [
    "ALL_CARDS",
    "HEARTS",
    "JACK_OF_DIAMONDS",
    "LIMIT_KINDS",
    "MAX_HANDS",
    "MAX_TARGET_SCORE",
    "NOT_RECORDED",
    "QUEEN_OF_SPADES",
    "SUIT_MASKS",
    "TWO_OF_CLUBS",
    "Action",
    "ActionError",
    "Card",
    "CardNotHeldError",
    "CardSet",
    "FaultKind",
    "GameOverError",
    "GameState",
    "HandResult",
    "IllegalMoveError",
    "InvalidCardError",
    "InvalidPassError",
    "LegalCase",
    "MoonChoice",
    "MoonScoring",
    "NotYourTurnError",
    "Outcome",
    "Pass",
    "PassDirection",
    "Phase",
    "Play",
    "Rank",
    "ReplayError",
    "Rules",
    "RulesError",
    "SeatView",
    "Suit",
    "TieRule",
    "Trick",
    "WrongPhaseError",
    "card_list",
    "deal",
    "format_cards",
    "legal_case",
    "mask_of",
    "parse_cards",
    "replay",
]
