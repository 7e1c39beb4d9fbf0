"""The fault kinds: every reason the referee records a bot's answer as unusable.

:class:`FaultKind` is the one registry of them. The engine owns it because its
refusals carry a kind (:attr:`~referee.engine.errors.ActionError.kind`); the
rest of the referee imports it from here (``referee.engine.FaultKind``, also
re-exported by :mod:`referee.players`), never the other way round: this module
imports nothing but the standard library. docs/log-format.md lists the kinds
with these meanings, and a test holds the two together.
"""

from __future__ import annotations

import enum

__all__ = ["LIMIT_KINDS", "NOT_RECORDED", "FaultKind"]


class FaultKind(enum.StrEnum):
    """A fault kind, as written in logs, journals and reports.

    Each member's :attr:`meaning` completes the sentence "the bot ...".
    """

    meaning: str

    def __new__(cls, value: str, meaning: str) -> FaultKind:
        member = str.__new__(cls, value)
        member._value_ = value
        member.meaning = meaning
        return member

    # The bot's answer, as the referee's clock and the rules judge it.
    TIMEOUT = (
        "timeout",
        "did not answer within the move time plus its time bank (plus grace)",
    )
    ILLEGAL_CARD = "illegal_card", "played a card it holds that is not among the legal moves"
    CARD_NOT_HELD = "card_not_held", "played or passed a card it does not hold"
    WRONG_PASS_SIZE = "wrong_pass_size", "passed other than 3 cards"
    DUPLICATE_CARDS = "duplicate_cards", "passed the same card twice"
    MALFORMED = (
        "malformed",
        "sent an answer with an unset or unknown enum value, or no card",
    )
    # The transport.
    RPC_ERROR = "rpc_error", "answered with a gRPC error status"
    UNAVAILABLE = "unavailable", "could not be reached"
    OVERSIZED = "oversized", "sent an answer larger than `max_message_bytes`"
    # A launched bot's process.
    CRASH = (
        "crash",
        "(a launched bot) its process died; it is restarted within `max_restarts`",
    )
    MEMORY_LIMIT = "memory_limit", "(a launched bot) died at its memory limit"
    CPU_LIMIT = "cpu_limit", "(a launched bot) died at its CPU time limit"
    PROCESS_LIMIT = (
        "process_limit",
        "(a launched bot) was stopped at its process limit (a fork refused)",
    )
    START_FAILED = (
        "start_failed",
        "never started serving (every decision of its games is this fault)",
    )
    HANDSHAKE = (
        "handshake",
        "answered `Handshake` with a protocol version the referee does not speak",
    )
    # The engine's other refusals: never a bot's fault in a log, because the
    # referee asks only the seat whose turn it is, in the phase, with parsed cards.
    INVALID_ACTION = "invalid_action", "sent an action the engine refuses (any other reason)"
    INVALID_PASS = "invalid_pass", "passed something that is not a card"
    OUT_OF_TURN = "out_of_turn", "acted when it was not its turn, or passed twice"
    WRONG_PHASE = "wrong_phase", "acted in the wrong phase (a play while passing, say)"
    GAME_OVER = "game_over", "acted after the game had ended"

    @property
    def recorded(self) -> bool:
        """Whether the referee can record this kind for a bot (see :data:`NOT_RECORDED`)."""
        return self not in NOT_RECORDED


#: Kinds of the engine's refusals that a log never holds (see the comment above them).
NOT_RECORDED = frozenset(
    {
        FaultKind.INVALID_ACTION,
        FaultKind.INVALID_PASS,
        FaultKind.OUT_OF_TURN,
        FaultKind.WRONG_PHASE,
        FaultKind.GAME_OVER,
    }
)

#: Kinds of a launched bot stopped at a resource limit by its supervisor
#: (``referee/sandbox/supervisor.py`` exits with one ``EXIT_*`` code for each; the
#: launcher's ``_LIMIT_EXITS`` is the one map from those codes to these kinds).
LIMIT_KINDS = frozenset({FaultKind.MEMORY_LIMIT, FaultKind.CPU_LIMIT, FaultKind.PROCESS_LIMIT})
