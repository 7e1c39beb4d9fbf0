"""What the match runner asks of a player, whatever it is (gRPC bot or built-in).

A :class:`Player` answers for one bot; one player object may serve several
seats and games at once (every call names the game and the seat). Players
return engine values; checking them against the rules is the runner's job.
Anything that goes wrong in getting an answer is raised as :class:`BotFault`
with a stable ``kind``, a :class:`~referee.engine.faults.FaultKind` (the one
registry of kinds, owned by the engine and re-exported here).
"""

from __future__ import annotations

import abc
import dataclasses
from collections.abc import Sequence

from referee.engine import Card, FaultKind, HandResult, MoonScoring, Outcome, Rules, SeatView

__all__ = ["BotFault", "BotInfo", "Deadline", "FaultKind", "Player"]


class BotFault(Exception):
    """A bot failed to give a usable answer; ``kind`` is a :class:`FaultKind` value."""

    def __init__(self, kind: FaultKind, message: str, *, status: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        #: The gRPC status code's name when the bot answered with an error status.
        self.status = status

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"


@dataclasses.dataclass(frozen=True, slots=True)
class BotInfo:
    """Who a bot says it is (its handshake)."""

    name: str
    version: str = ""
    author: str = ""
    language: str = ""
    protocol_version: int = 1

    def to_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True, slots=True)
class Deadline:
    """The clock of one decision: what the bot is told, and when the referee gives up."""

    move_time_ms: int
    time_bank_ms: int
    #: Seconds after which the call is abandoned (move time + bank + grace).
    timeout_s: float


class Player(abc.ABC):
    """One bot, as the match runner sees it."""

    #: The bot's identity from its handshake (or built-in description).
    info: BotInfo
    #: True if the bot cannot run between its calls now (a launched bot frozen in between,
    #: once it used CPU there): the match runner then asks the simultaneous passes of its
    #: game one seat at a time, so that it does not run while another thinks.
    runs_only_when_asked: bool = False
    #: True if the answers come from another process (a bot over gRPC): the match runner
    #: asks such players at the same time, each from a thread of its own, and calls
    #: in-process players (built-ins, a person's seat) itself, one after the other.
    out_of_process: bool = False

    @abc.abstractmethod
    def pass_cards(
        self, game_id: str, view: SeatView, decision_id: str, deadline: Deadline
    ) -> list[Card]:
        """The cards ``view.seat`` passes (R2); the runner checks them."""

    @abc.abstractmethod
    def play_card(self, game_id: str, view: SeatView, decision_id: str, deadline: Deadline) -> Card:
        """The card ``view.seat`` plays; the runner checks it against the legal moves."""

    def choose_moon_scoring(
        self, game_id: str, view: SeatView, decision_id: str, deadline: Deadline
    ) -> MoonScoring:
        """V2 shooter_chooses. A player that does not implement it gets the default."""
        return MoonScoring.ADD_TO_OTHERS

    def take_note(self, game_id: str, decision_id: str) -> str | None:
        """The note the bot sent with its answer to ``decision_id`` (hearts.v1 ``note``), once.

        The runner asks right after each decision, answered or not, and logs
        the note with it; a note is the bot author's text and never changes
        the game. Players without notes have none.
        """
        return None

    # Notifications: nothing to answer; the default ignores them.

    def start_game(
        self, game_id: str, seat: int, names: Sequence[str], rules: Rules, timeout_s: float
    ) -> None:
        return None

    def deal_hand(self, game_id: str, view: SeatView, timeout_s: float) -> None:
        return None

    def end_hand(self, game_id: str, seat: int, result: HandResult, timeout_s: float) -> None:
        return None

    def end_game(
        self, game_id: str, seat: int, outcome: Outcome, forfeited: bool, timeout_s: float
    ) -> None:
        return None

    def close(self) -> None:
        """Release what the player holds (connections, processes)."""
        return None
