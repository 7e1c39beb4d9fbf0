"""Errors of the engine: every refused action says what was wrong and which rule.

All derive from :class:`ActionError` (a ``ValueError``); the state is
unchanged whenever one is raised. ``kind`` is the
:class:`~referee.engine.faults.FaultKind` that the referee records as the
fault of a bot's bad answer.
"""

from __future__ import annotations

from referee.engine.faults import FaultKind

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
    """An action the engine refuses. ``rule`` is the docs/rules.md id, if any."""

    kind: FaultKind = FaultKind.INVALID_ACTION

    def __init__(
        self, message: str, *, rule: str | None = None, kind: FaultKind | None = None
    ) -> None:
        super().__init__(message)
        self.rule = rule
        if kind is not None:  # a finer kind than the class's, for one case of it
            self.kind = kind


class IllegalMoveError(ActionError):
    """A card the player holds but may not play now (R3-R6)."""

    kind = FaultKind.ILLEGAL_CARD


class CardNotHeldError(ActionError):
    """A card that is not in the acting player's hand."""

    kind = FaultKind.CARD_NOT_HELD


class InvalidPassError(ActionError):
    """A pass of the wrong size (kind ``wrong_pass_size``), with a card twice
    (``duplicate_cards``), or of something that is not a card (R2)."""

    kind = FaultKind.INVALID_PASS


class NotYourTurnError(ActionError):
    """A seat acted when it was not its turn, or passed twice."""

    kind = FaultKind.OUT_OF_TURN


class WrongPhaseError(ActionError):
    """An action that does not fit the phase (a play while passing, say)."""

    kind = FaultKind.WRONG_PHASE


class GameOverError(WrongPhaseError):
    """Any action after the game has ended."""

    kind = FaultKind.GAME_OVER
