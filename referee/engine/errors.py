"""Errors of the engine: every refused action says what was wrong and which rule.

All derive from :class:`ActionError` (a ``ValueError``); the state is
unchanged whenever one is raised. ``kind`` is a short stable identifier that
the referee records as the fault kind of a bot's bad answer.
"""

from __future__ import annotations

__all__ = [
    "ActionError",
    "CardNotHeldError",
    "GameOverError",
    "IllegalMoveError",
    "InvalidPassError",
    "NotYourTurnError",
    "WrongPhaseError",
]


class ActionError(ValueError):
    """An action the engine refuses. ``rule`` is the RULES.md id, if any."""

    kind = "invalid_action"

    def __init__(self, message: str, *, rule: str | None = None, kind: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule
        if kind is not None:  # a finer kind than the class's, for one case of it
            self.kind = kind


class IllegalMoveError(ActionError):
    """A card the player holds but may not play now (R3-R6)."""

    kind = "illegal_card"


class CardNotHeldError(ActionError):
    """A card that is not in the acting player's hand."""

    kind = "card_not_held"


class InvalidPassError(ActionError):
    """A pass of the wrong size (kind ``wrong_pass_size``), with a card twice
    (``duplicate_cards``), or of something that is not a card (R2)."""

    kind = "invalid_pass"


class NotYourTurnError(ActionError):
    """A seat acted when it was not its turn, or passed twice."""

    kind = "out_of_turn"


class WrongPhaseError(ActionError):
    """An action that does not fit the phase (a play while passing, say)."""

    kind = "wrong_phase"


class GameOverError(WrongPhaseError):
    """Any action after the game has ended."""

    kind = "game_over"
