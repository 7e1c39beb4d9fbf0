"""A human seat: a :class:`Player` whose answers come from a person at a web page.

The match runner asks a :class:`HumanPlayer` as it asks any bot: it gets the
seat's :class:`~referee.engine.SeatView` and a :class:`Deadline`, publishes
the decision to the seat's page (``referee play``'s server sends
:meth:`HumanPlayer.table` over server-sent events) and waits for the answer
that the page POSTs (:meth:`HumanPlayer.answer`) until the human's clock runs
out; then it raises a timeout fault and the runner's fallback plays, as for
a bot that does not answer.

Between its own decisions the page still shows the game as it goes (the
cards others play, who took the trick, the hands' scores): the player
follows the game's log records (:meth:`HumanPlayer.follow`, given to
:func:`~referee.match.runner.play_game` as ``on_event``) and keeps its own copy of
the authoritative state, a :class:`~referee.engine.GameState` rebuilt move by
move as ``referee replay`` does. What leaves this module is only ever
``SeatView.of(copy, seat)`` (what the seat may know) and public facts (names,
completed tricks, hand scores): never another seat's unplayed cards. The same
copy checks the human's answers through the engine, so a refused card comes
back with the engine's message and rule id (``check_play``: R3-R6; a pass:
R2) and the seat may try again within its clock.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from referee.engine import (
    ActionError,
    Card,
    GameState,
    InvalidCardError,
    MoonScoring,
    Outcome,
    Phase,
    SeatView,
    Suit,
    Trick,
    card_list,
)
from referee.match.gamelog import (
    FaultRecord,
    ForfeitRecord,
    GameHeader,
    MoonChoiceRecord,
    PassRecord,
    PlayRecord,
)
from referee.players.base import BotFault, BotInfo, Deadline, FaultKind, Player
from referee.safetext import shown_name, shown_text

__all__ = ["HUMAN", "HumanPlayer", "Refusal", "follow_all", "seat_label"]

log = logging.getLogger(__name__)

#: The bot id of a human seat in the log header (``human#2`` for a second one).
HUMAN = "human"
#: Seat labels at a table of four (seat 0 is North; play goes clockwise, R1).
_COMPASS = ("North", "East", "South", "West")
#: The order of the suits in a shown hand: the colours alternate.
_SUIT_ORDER = (Suit.CLUBS, Suit.DIAMONDS, Suit.SPADES, Suit.HEARTS)
#: Notes kept for the page (the newest last).
_MAX_NOTES = 20


def seat_label(seat: int, num_players: int) -> str:
    """``North`` .. ``West`` at a table of four, ``Seat 1`` .. ``Seat 7`` at others (V6)."""
    return _COMPASS[seat] if num_players == 4 else f"Seat {seat + 1}"


@dataclasses.dataclass(frozen=True, slots=True)
class Refusal:
    """Why an answer was not taken: the engine's message and rule id, or a stale decision."""

    message: str
    rule: str | None = None
    #: True when the decision is no longer open (answered, timed out, not asked yet).
    stale: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"error": self.message, "rule": self.rule, "stale": self.stale}


@dataclasses.dataclass(slots=True)
class _Pending:
    """The decision the page is asked for."""

    kind: str  # "pass", "play" or "moon"
    decision: str
    view: SeatView
    budget_s: float
    ends_at: float  # time.monotonic()
    answered: threading.Event = dataclasses.field(default_factory=threading.Event)
    answer: Any = None


class HumanPlayer(Player):
    """One human seat, answered through :meth:`answer` (the page's POST).

    ``token`` is the secret of the seat's URL (a fresh random one by default);
    ``on_change`` is called (from the game's thread or the server's) whenever
    :meth:`table` has changed.
    """

    def __init__(
        self,
        seat: int,
        *,
        name: str = HUMAN,
        token: str | None = None,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.seat = seat
        self.name = name
        self.token = token or secrets.token_urlsafe(24)
        self.info = BotInfo(name=HUMAN, version="1", author="a person", language="browser")
        self._on_change = on_change
        self._lock = threading.Lock()
        self._version = 0
        self._state: GameState | None = None
        self._names: tuple[str, ...] = ()
        self._pending: _Pending | None = None
        #: This hand's pass as answered, before every seat's pass is in (the view still
        #: holds the cards then, R2).
        self._my_pass: tuple[Card, ...] | None = None
        self._last_trick: tuple[int, Trick] | None = None
        self._refused: dict[str, Any] | None = None
        self._notes: list[str] = []
        self._aborted: str | None = None

    # What the page shows -----------------------------------------------------------

    @property
    def version(self) -> int:
        """Goes up by one whenever :meth:`table` changes."""
        return self._version

    @property
    def game_over(self) -> bool:
        state = self._state
        return state is not None and state.is_over

    def table(self) -> dict[str, Any]:
        """The seat's page data, JSON-ready: its SeatView and public facts only."""
        with self._lock:
            return self._table()

    def _table(self) -> dict[str, Any]:
        state = self._state
        data: dict[str, Any] = {"version": self._version, "seat": self.seat}
        if state is None:
            return {**data, "phase": "waiting", "aborted": self._aborted}
        view = SeatView.of(state, self.seat)
        n = state.n
        rules = state.rules
        pending = self._pending
        my_turn_to_play = pending is not None and pending.kind == "play"
        shown_hand = int(view.hand)
        if self._my_pass is not None and view.passed is None:
            for card in self._my_pass:
                shown_hand &= ~(1 << card)
        cards = []
        for card in _sorted_hand(shown_hand):
            entry: dict[str, Any] = {"card": str(card)}
            if my_turn_to_play:
                entry["legal"] = bool(view.legal_moves >> card & 1)
                if not entry["legal"]:
                    entry["reason"], entry["rule"] = _refusal_of(state, self.seat, card)
            cards.append(entry)
        last = self._last_trick
        data.update(
            {
                "phase": view.phase.name.lower(),
                "rules": {**rules.to_dict(), "pass_count": rules.pass_count},
                "seats": [
                    {"seat": s, "label": seat_label(s, n), "name": shown_name(self._names[s])}
                    for s in range(n)
                ],
                "hand_number": view.hand_number,
                "trick_number": view.trick_number,
                "pass_direction": view.pass_direction.value,
                "pass_to": view.pass_to,
                "pass_from": (self.seat - view.pass_direction.offset(n)) % n,
                "hand": cards,
                "passed": _codes(self._my_pass if view.passed is None else view.passed),
                "received": _codes(view.received),
                "trick": {
                    "leader": view.current_trick.leader if view.current_trick.plays else -1,
                    "to_lead": state.current
                    if view.phase is Phase.PLAYING and not view.current_trick.plays
                    else -1,
                    "plays": [[s, str(c)] for s, c in view.current_trick.plays],
                },
                "to_play": state.current if view.phase is Phase.PLAYING else -1,
                "last_trick": None
                if last is None
                else {
                    "hand": last[0],
                    "leader": last[1].leader,
                    "plays": [[s, str(c)] for s, c in last[1].plays],
                    "winner": last[1].winner,
                    "points": last[1].points,
                },
                "hearts_broken": view.hearts_broken,
                "points_taken": list(view.points_taken),
                "scores": list(view.scores),
                "hands": [
                    {
                        "hand": r.hand_number,
                        "scores": list(r.scores),
                        "totals": list(r.totals),
                        "moon_shooter": r.moon_shooter,
                    }
                    for r in state.hand_results
                ],
                "decision": None
                if pending is None
                else {
                    "id": pending.decision,
                    "kind": pending.kind,
                    "ms_left": max(0, round((pending.ends_at - time.monotonic()) * 1000)),
                    "ms_total": round(pending.budget_s * 1000),
                },
                "refused": self._refused,
                "notes": list(self._notes),
                "outcome": _outcome(state.outcome),
                "aborted": self._aborted,
            }
        )
        return data

    def _changed(self) -> None:
        """Call with the lock held."""
        self._version += 1
        if self._on_change is not None:
            self._on_change()

    def _note(self, text: str) -> None:
        self._notes = [*self._notes[-(_MAX_NOTES - 1) :], shown_text(text)]

    # The game's records --------------------------------------------------------------

    def follow(self, record_type: str, data: dict[str, Any]) -> None:
        """Take one log record of the game (``play_game(..., on_event=...)``)."""
        with self._lock:
            try:
                self._follow(record_type, data)
            except (ActionError, ValueError, KeyError) as error:
                # The copy lost step with the game (it cannot, as both apply the same
                # records to the same engine); the page says so rather than lie.
                log.error("human seat %d: cannot follow %s: %s", self.seat, record_type, error)
                self._aborted = f"the table lost track of the game ({record_type}: {error})"
            self._changed()

    def _follow(self, record_type: str, data: dict[str, Any]) -> None:
        if record_type == GameHeader.TYPE:
            header = GameHeader.from_json(data)
            self._state = GameState.new(header.rules, header.seed)
            self._names = tuple(s.bot for s in header.seats)
            return
        state = self._state
        if state is None:
            return
        if record_type == PassRecord.TYPE:
            record = PassRecord.from_json(data)
            state.pass_cards(record.seat, record.cards)
            if state.phase is not Phase.PASSING:
                self._my_pass = None
            if record.seat == self.seat and record.source == "fallback":
                self._note(f"Hand {record.hand}: the fallback passed {_symbols(record.cards)}.")
        elif record_type == PlayRecord.TYPE:
            record = PlayRecord.from_json(data)
            hand = state.hand_number
            tricks = len(state.tricks)
            state.play(record.card, record.seat)
            if state.hand_number != hand or len(state.tricks) != tricks:
                trick = state.last_trick
                assert trick is not None
                self._last_trick = (hand, trick)
            if record.seat == self.seat and record.source == "fallback":
                self._note(f"Hand {record.hand}: the fallback played {record.card.symbol()}.")
        elif record_type == MoonChoiceRecord.TYPE:
            record = MoonChoiceRecord.from_json(data)
            state.choose_moon_scoring(record.seat, record.choice)
        elif record_type == FaultRecord.TYPE:
            fault = FaultRecord.from_json(data)
            if fault.seat == self.seat:
                self._note(f"Hand {fault.hand}: {fault.message} ({fault.kind}).")
        elif record_type == ForfeitRecord.TYPE:
            forfeit = ForfeitRecord.from_json(data)
            if forfeit.seat == self.seat:
                self._note(
                    f"Hand {forfeit.hand}: this seat forfeited ({forfeit.reason}); "
                    "the fallback plays it from now on."
                )

    def abort(self, reason: str) -> None:
        """The game stopped before its end (the referee was interrupted)."""
        with self._lock:
            self._aborted = reason
            self._changed()

    # Answers from the page -----------------------------------------------------------

    def answer(self, decision: str, value: Any) -> Refusal | None:
        """The page's answer to ``decision``: None when taken, else why not.

        ``value`` is a list of card strings (a pass), a card string (a play) or a
        moon scoring name (V2). The engine decides: a card it refuses comes back
        with its message and rule, and the decision stays open.
        """
        with self._lock:
            pending = self._pending
            if pending is None or pending.decision != decision:
                return Refusal(
                    "that decision is not open (answered, or the clock ran out)", stale=True
                )
            state = self._state
            assert state is not None
            try:
                taken = self._check(pending.kind, state, value)
            except _Refused as refused:
                self._refused = {"decision": decision, **refused.refusal.to_dict()}
                self._changed()
                return refused.refusal
            pending.answer = taken
            self._pending = None
            self._refused = None
            if pending.kind == "pass":
                self._my_pass = tuple(taken)
            pending.answered.set()
            self._changed()
            return None

    def _check(self, kind: str, state: GameState, value: Any) -> Any:
        if kind == "pass":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise _Refused(Refusal("a pass is a list of cards"))
            cards = [_card(v) for v in value]
            try:  # on a copy: the real state takes the pass from the runner's record
                state.copy().pass_cards(self.seat, cards)
            except ActionError as error:
                raise _Refused(Refusal(str(error), error.rule)) from None
            return cards
        if kind == "play":
            if not isinstance(value, str):
                raise _Refused(Refusal("a play is one card"))
            card = _card(value)
            try:
                state.check_play(self.seat, card)
            except ActionError as error:
                raise _Refused(Refusal(str(error), error.rule)) from None
            return card
        try:
            choice = MoonScoring(value)
            state.copy().choose_moon_scoring(self.seat, choice)
        except (ValueError, ActionError) as error:
            rule = error.rule if isinstance(error, ActionError) else "V2"
            raise _Refused(Refusal(f"not a moon choice: {value!r}", rule)) from None
        return choice

    # The Player interface -------------------------------------------------------------

    def _ask(self, kind: str, view: SeatView, decision: str, deadline: Deadline) -> Any:
        if view.seat != self.seat:
            raise BotFault(FaultKind.INVALID_ACTION, f"asked for seat {view.seat}")
        # The whole of what the referee allows (it adds only the grace to this).
        budget = (deadline.move_time_ms + deadline.time_bank_ms) / 1000
        pending = _Pending(kind, decision, view, budget, time.monotonic() + budget)
        with self._lock:
            state = self._state
            if state is None:  # nothing could check or show the decision
                raise BotFault(
                    FaultKind.RPC_ERROR,
                    "the human seat does not follow the game: play_game needs "
                    "on_event=follow_all(humans)",
                )
            if int(SeatView.of(state, self.seat).hand) != int(view.hand):
                log.error("human seat %d: the table's copy differs from the game", self.seat)
            self._pending = pending
            self._refused = None
            self._changed()
        if pending.answered.wait(budget):
            return pending.answer
        with self._lock:
            if pending.answered.is_set():  # answered in the last moment
                return pending.answer
            self._pending = None
            self._refused = None
            self._note(f"Hand {view.hand_number}: the clock ran out ({budget:g} s).")
            self._changed()
        raise BotFault(FaultKind.TIMEOUT, f"no answer from the human in {budget:g} s")

    def pass_cards(
        self, game_id: str, view: SeatView, decision_id: str, deadline: Deadline
    ) -> list[Card]:
        return list(self._ask("pass", view, decision_id, deadline))

    def play_card(self, game_id: str, view: SeatView, decision_id: str, deadline: Deadline) -> Card:
        return Card(self._ask("play", view, decision_id, deadline))

    def choose_moon_scoring(
        self, game_id: str, view: SeatView, decision_id: str, deadline: Deadline
    ) -> MoonScoring:
        return MoonScoring(self._ask("moon", view, decision_id, deadline))

    def end_game(
        self, game_id: str, seat: int, outcome: Outcome, forfeited: bool, timeout_s: float
    ) -> None:
        with self._lock:
            self._changed()


class _Refused(Exception):
    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.message)
        self.refusal = refusal


def _card(text: str) -> Card:
    try:
        return Card.parse(text)
    except (InvalidCardError, ValueError):
        raise _Refused(Refusal(f"not a card: {text[:20]!r}")) from None


def _refusal_of(state: GameState, seat: int, card: Card) -> tuple[str, str | None]:
    """The engine's reason for refusing ``card`` now (the page shows it before a click)."""
    try:
        state.check_play(seat, card)
    except ActionError as error:
        return str(error), error.rule
    return "", None  # pragma: no cover - only asked about cards outside the legal set


def _sorted_hand(mask: int) -> list[Card]:
    cards = card_list(mask)
    return sorted(cards, key=lambda c: (_SUIT_ORDER.index(Suit(c // 13)), c))


def _codes(cards: Iterable[int] | None) -> list[str] | None:
    return None if cards is None else [str(Card(c)) for c in card_list(_mask(cards))]


def _mask(cards: Iterable[int]) -> int:
    if isinstance(cards, int):
        return int(cards)
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def _symbols(cards: Iterable[Card]) -> str:
    return " ".join(Card(c).symbol() for c in cards)


def _outcome(outcome: Outcome | None) -> dict[str, Any] | None:
    if outcome is None:
        return None
    return {
        "scores": list(outcome.scores),
        "placements": list(outcome.placements),
        "winners": list(outcome.winners),
        "hands": outcome.hands_played,
    }


def follow_all(players: Iterable[HumanPlayer]) -> Callable[[str, dict[str, Any]], None]:
    """One ``on_event`` for :func:`~referee.match.runner.play_game` that feeds every human seat."""
    seats = list(players)

    def on_event(record_type: str, data: dict[str, Any]) -> None:
        for player in seats:
            player.follow(record_type, data)

    return on_event
