"""Time control and fault policy: fixed before play, recorded in every log."""

from __future__ import annotations

import dataclasses

__all__ = ["FaultPolicy", "TimeControl"]


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class TimeControl:
    """How long a bot may take, as measured by the referee.

    A decision may take ``move_time_ms`` for free; with a time bank, the
    overrun of an answer is charged to the seat's bank for the game
    (Kaggle-style), and an answer later than ``move_time_ms`` plus what is left
    of the bank plus ``grace_ms`` is a timeout.
    """

    #: Free time per decision.
    move_time_ms: int = 1000
    #: Per-game bank per seat; 0 for none.
    time_bank_ms: int = 0
    #: Allowance for transport jitter, never told to the bot.
    grace_ms: int = 100
    #: Deadline of the notification RPCs (StartGame, DealHand, EndHand, EndGame).
    notify_timeout_ms: int = 1000
    #: How long a launched bot may take to start serving (health SERVING).
    startup_timeout_ms: int = 30000

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{f.name} must be a non-negative integer (ms), not {value!r}")
        if self.move_time_ms == 0:
            raise ValueError("move_time_ms must be positive")

    def to_dict(self) -> dict[str, int]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class FaultPolicy:
    """What the referee does about faults.

    Every fault gets a fallback move (a seeded choice among the legal moves),
    so the game goes on. After ``max_faults`` faults in one game the seat is
    played by the fallback for the rest of the game and has forfeited it.
    """

    #: Faults in one game after which the seat forfeits; 0 never forfeits.
    max_faults: int = 5
    #: Restarts allowed per launched bot process over a whole run.
    max_restarts: int = 3
    #: Largest message accepted from a bot, in bytes.
    max_message_bytes: int = 64 * 1024

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{f.name} must be a non-negative integer, not {value!r}")
        if self.max_message_bytes < 1024:
            raise ValueError("max_message_bytes must be at least 1024")

    def to_dict(self) -> dict[str, int]:
        return dataclasses.asdict(self)
