"""Game logs as structured games, for replays and audits.

:func:`load_game` reads a game log (see docs/log-format.md) into a
:class:`Game`: the header, then hand by hand the deal, the passes, the tricks
with their plays, the moon choice and the scoring, with each fault and
forfeit where it happened. Each record is parsed by its record type of
:mod:`referee.match.gamelog` (types, cards); this module checks their order, not the
rules: that is :mod:`referee.audit.logs`, which replays the game through the engine.
:func:`game_actions` and :func:`state_at` rebuild engine states from a game, to look at a position as the engine (or a bot) saw it.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from referee.engine import (
    Action,
    Card,
    GameState,
    MoonChoice,
    MoonScoring,
    Pass,
    PassDirection,
    Play,
    Rules,
    replay,
)
from referee.match.gamelog import (
    RECORD_TYPES,
    DealRecord,
    Fault,
    FaultRecord,
    ForfeitRecord,
    GameAbortRecord,
    GameEndRecord,
    GameHeader,
    HandEndRecord,
    LogError,
    MoonChoiceRecord,
    PassRecord,
    PlayRecord,
    RecordError,
    SeatInfo,
    TrickRecord,
    card_field,
    cards_field,
    field,
    parse_card_list,
    read_log,
)

__all__ = [
    "Fault",
    "Game",
    "GameEnd",
    "Hand",
    "HandEnd",
    "MoonDecision",
    "Note",
    "PassMove",
    "PlayMove",
    "RecordError",
    "SeatInfo",
    "Trick",
    "card_field",
    "cards_field",
    "field",
    "game_actions",
    "load_game",
    "parse_card_list",
    "state_at",
]

#: Seat labels at a table of four (docs/rules.md: seat 0 is North, play goes clockwise).
COMPASS = ("N", "E", "S", "W")


def _sized(values: tuple[int, ...], record_type: str, key: str, size: int) -> list[int]:
    if len(values) != size:
        raise RecordError(f"{record_type} record: {key!r} has {len(values)} entries, not {size}")
    return list(values)


#: Errors of records whose fields have unexpected shapes.
_MALFORMED = (KeyError, TypeError, ValueError, AttributeError, IndexError)


# The structured game -------------------------------------------------------------


@dataclasses.dataclass(slots=True, kw_only=True)
class _Move:
    """What every recorded decision has: who answered, any fault, the timing."""

    #: ``bot``, or ``fallback`` when the referee chose.
    source: str
    fault: Fault | None = None
    decision: str = ""
    ms: float = 0.0
    #: The bot's note with its answer (hearts.v1 ``note``), as logged.
    note: str | None = None
    line: int = 0

    @property
    def fallback(self) -> bool:
        return self.source != "bot"


@dataclasses.dataclass(slots=True, kw_only=True)
class PassMove(_Move):
    """One seat's pass."""

    seat: int
    to: int
    cards: list[Card]
    #: What the bot sent when it was refused (card strings, maybe not cards).
    answer: list[str] | None = None


@dataclasses.dataclass(slots=True, kw_only=True)
class PlayMove(_Move):
    """One card played to a trick."""

    seat: int
    card: Card
    legal: list[Card]
    answer: str | None = None


@dataclasses.dataclass(slots=True, kw_only=True)
class Trick:
    """A trick: its plays in order and, once complete, the winner and points."""

    number: int
    leader: int
    plays: list[PlayMove] = dataclasses.field(default_factory=list)
    winner: int | None = None
    points: int = 0
    #: The first heart (or Q♠ with V1) of the hand was played to this trick.
    breaks_hearts: bool = False
    #: The line of the ``trick`` record (0 while the trick is incomplete).
    line: int = 0

    @property
    def complete(self) -> bool:
        return self.winner is not None


@dataclasses.dataclass(slots=True, kw_only=True)
class MoonDecision:
    """The shooter's moon scoring choice (V2 ``shooter_chooses``)."""

    seat: int
    choice: str
    source: str
    fault: Fault | None = None
    #: The bot's note with its answer (hearts.v1 ``note``), as logged.
    note: str | None = None
    line: int = 0

    @property
    def fallback(self) -> bool:
        return self.source != "bot"


@dataclasses.dataclass(slots=True, kw_only=True)
class HandEnd:
    """The scoring of a hand as recorded."""

    points: list[int]
    scores: list[int]
    moon_shooter: int | None
    moon_scoring: str | None
    totals: list[int]
    line: int = 0


@dataclasses.dataclass(slots=True, kw_only=True)
class Note:
    """A fault outside a decision (a notification RPC) or a forfeit."""

    kind: str  # "fault" or "forfeit"
    seat: int
    text: str
    #: The trick in progress or next (0 before the first play of the hand).
    trick: int
    #: When in the hand: "deal" (before any pass), "pass", "play" or "end" (after scoring).
    stage: str = "deal"
    #: The hand had been scored already (an EndHand fault).
    after_hand: bool = False
    line: int = 0


@dataclasses.dataclass(slots=True, kw_only=True)
class Hand:
    """One hand: the deal, the passes, the tricks and the result."""

    number: int
    pass_direction: PassDirection
    #: Cards dealt, by seat, before passing.
    dealt: list[list[Card]]
    passes: list[PassMove] = dataclasses.field(default_factory=list)
    tricks: list[Trick] = dataclasses.field(default_factory=list)
    moon_choice: MoonDecision | None = None
    result: HandEnd | None = None
    notes: list[Note] = dataclasses.field(default_factory=list)
    line: int = 0

    def pass_of(self, seat: int) -> PassMove | None:
        """The pass ``seat`` made (None on a hold hand, or if it is not in the log)."""
        return next((p for p in self.passes if p.seat == seat), None)

    def pass_to(self, seat: int) -> PassMove | None:
        """The pass ``seat`` received."""
        return next((p for p in self.passes if p.to == seat), None)

    def cards_at_play(self, seat: int) -> list[Card]:
        """``seat``'s cards after the exchange, when the first trick starts (sorted)."""
        given, got = self.pass_of(seat), self.pass_to(seat)
        cards = set(self.dealt[seat]) - set(given.cards if given else ())
        cards |= set(got.cards if got else ())
        return sorted(cards)

    def held(self, seat: int, after_trick: int) -> list[Card]:
        """``seat``'s cards after ``after_trick`` tricks (0: before the first), sorted."""
        played = {p.card for t in self.tricks[:after_trick] for p in t.plays if p.seat == seat}
        return [c for c in self.cards_at_play(seat) if c not in played]


@dataclasses.dataclass(slots=True, kw_only=True)
class GameEnd:
    """The ``game_end`` record."""

    scores: list[int]
    placements: list[int]
    winners: list[int]
    hands: int
    forfeited: list[bool]
    faults: list[dict[str, int]]
    line: int = 0


@dataclasses.dataclass(slots=True, kw_only=True)
class Game:
    """A game as its log tells it."""

    path: str
    game_id: str
    seed: int | str
    rules: Rules
    seats: list[SeatInfo]
    meta: dict[str, Any]
    started_at: str
    header: dict[str, Any]
    hands: list[Hand] = dataclasses.field(default_factory=list)
    #: Faults and forfeits outside any hand (StartGame, EndGame).
    notes: list[Note] = dataclasses.field(default_factory=list)
    end: GameEnd | None = None
    #: The ``game_abort`` record's reason, if the game was aborted.
    abort: str | None = None
    #: What stopped the reading of a damaged log (with ``strict=False``).
    damage: LogError | None = None
    #: The last line read.
    last_line: int = 0

    @property
    def n(self) -> int:
        return self.rules.num_players

    @property
    def names(self) -> list[str]:
        return [s.bot for s in self.seats]

    def hand(self, number: int) -> Hand:
        """The hand numbered ``number`` (KeyError if the log has none)."""
        for hand in self.hands:
            if hand.number == number:
                return hand
        raise KeyError(number)

    def label(self, seat: int) -> str:
        """A short seat label: N/E/S/W at a table of four, else ``#`` and the seat number."""
        return COMPASS[seat] if self.n == 4 else f"#{seat}"

    def totals_before(self, number: int) -> list[int]:
        """Running totals before hand ``number``, from the recorded hand results."""
        totals = [0] * self.n
        for hand in self.hands:
            if hand.number >= number:
                break
            if hand.result is not None:
                totals = list(hand.result.totals)
        return totals


# Reading --------------------------------------------------------------------------


def load_game(path: str | os.PathLike[str], *, strict: bool = True) -> Game:
    """Read a game log into a :class:`Game`.

    A damaged log (not JSON, a wrong header, a record of the wrong shape or
    out of order) raises :class:`~referee.match.gamelog.LogError` naming the file
    and line; with ``strict=False`` the game read so far is returned instead,
    with the error in :attr:`Game.damage` (the header must still be readable).
    """
    builder: _Builder | None = None
    try:
        for line, record in read_log(path):
            if builder is None:
                builder = _Builder(str(path), line, record)
                continue
            try:
                builder.add(line, record)
            except RecordError as error:
                raise LogError(path, line, str(error)) from None
            except _MALFORMED as error:
                raise LogError(
                    path, line, f"a malformed {record['type']} record: {error}"
                ) from None
    except LogError as error:
        if strict or builder is None:
            raise
        builder.game.damage = error
    if builder is None:
        raise LogError(path, 1, "empty file: no game header")
    return builder.game


class _Builder:
    """Adds records one by one to a :class:`Game`."""

    def __init__(self, path: str, line: int, header: dict[str, Any]) -> None:
        try:
            self.game = _game_from_header(path, header)
        except (RecordError, *_MALFORMED) as error:
            raise LogError(path, line, f"bad game header: {error}") from None
        self.game.last_line = line
        self.hearts_broken = False

    @property
    def current(self) -> Hand:
        if not self.game.hands:
            raise RecordError("a record of a hand before the first deal")
        return self.game.hands[-1]

    def add(self, line: int, record: dict[str, Any]) -> None:
        kind = record["type"]
        handler = getattr(self, f"_add_{kind}", None)
        if handler is None:
            raise RecordError(f"unknown record type {kind!r}")
        if self.game.end is not None and kind != "fault":
            raise RecordError(f"a {kind} record after game_end")
        if kind == "game":
            raise RecordError("a second game header")
        handler(line, _RECORD_OF[kind].from_json(record))
        self.game.last_line = line

    def _hand_of(self, record: Any) -> Hand:
        hand = self.current
        if record.hand != hand.number:
            raise RecordError(
                f"{record.TYPE} record of hand {record.hand} during hand {hand.number}"
            )
        return hand

    def _seat_of(self, record: Any, key: str = "seat") -> int:
        seat = getattr(record, key)
        if not 0 <= seat < self.game.n:
            raise RecordError(f"{record.TYPE} record: no seat {seat} at a table of {self.game.n}")
        return seat

    def _add_deal(self, line: int, record: DealRecord) -> None:
        number = record.hand
        expected = self.game.hands[-1].number + 1 if self.game.hands else 1
        if number != expected:
            raise RecordError(f"the deal of hand {number} where hand {expected} was due")
        if len(record.hands) != self.game.n:
            raise RecordError(f"deal record: {len(record.hands)} hands for {self.game.n} seats")
        dealt = [list(h) for h in record.hands]
        self.game.hands.append(
            Hand(number=number, pass_direction=record.pass_direction, dealt=dealt, line=line)
        )
        self.hearts_broken = False

    def _add_pass(self, line: int, record: PassRecord) -> None:
        hand = self._hand_of(record)
        seat = self._seat_of(record)
        hand.passes.append(
            PassMove(
                seat=seat,
                to=(seat + hand.pass_direction.offset(self.game.n)) % self.game.n,
                cards=list(record.cards),
                source=record.source,
                fault=record.fault,
                answer=None if record.answer is None else list(record.answer),
                decision=record.decision,
                ms=float(record.ms or 0),
                note=record.note,
                line=line,
            )
        )

    def _add_play(self, line: int, record: PlayRecord) -> None:
        hand = self._hand_of(record)
        number = record.trick
        seat = self._seat_of(record)
        trick = hand.tricks[-1] if hand.tricks else None
        if trick is None or trick.complete:
            done = trick.number if trick else 0
            if number != done + 1:
                raise RecordError(f"a play to trick {number} where trick {done + 1} was due")
            trick = Trick(number=number, leader=seat)
            hand.tricks.append(trick)
        elif number != trick.number:
            raise RecordError(f"a play to trick {number} while trick {trick.number} is open")
        else:
            due = (trick.leader + len(trick.plays)) % self.game.n
            if seat != due:
                raise RecordError(
                    f"a play of seat {seat} to trick {number}, where seat {due} was due "
                    "(a play given twice, or out of turn)"
                )
        move = PlayMove(
            seat=seat,
            card=record.card,
            legal=list(record.legal),
            source=record.source,
            fault=record.fault,
            answer=record.answer,
            decision=record.decision,
            ms=float(record.ms or 0),
            note=record.note,
            line=line,
        )
        trick.plays.append(move)
        if not self.hearts_broken and self.game.rules.breaks_hearts(move.card):
            self.hearts_broken = trick.breaks_hearts = True

    def _add_trick(self, line: int, record: TrickRecord) -> None:
        hand = self._hand_of(record)
        number = record.trick
        trick = hand.tricks[-1] if hand.tricks else None
        if trick is None or trick.number != number or trick.complete:
            raise RecordError(f"the end of trick {number}, which has no plays")
        trick.leader = self._seat_of(record, "leader")
        trick.winner = self._seat_of(record, "winner")
        trick.points = record.points
        trick.line = line

    def _add_moon_choice(self, line: int, record: MoonChoiceRecord) -> None:
        hand = self._hand_of(record)
        hand.moon_choice = MoonDecision(
            seat=self._seat_of(record),
            choice=record.choice.value,
            source=record.source,
            fault=record.fault,
            note=record.note,
            line=line,
        )

    def _add_hand_end(self, line: int, record: HandEndRecord) -> None:
        hand = self._hand_of(record)
        n = self.game.n
        shooter = record.moon_shooter
        if shooter is not None:
            shooter = self._seat_of(record, "moon_shooter")
        hand.result = HandEnd(
            points=_sized(record.points, record.TYPE, "points", n),
            scores=_sized(record.scores, record.TYPE, "scores", n),
            moon_shooter=shooter,
            moon_scoring=None if record.moon_scoring is None else record.moon_scoring.value,
            totals=_sized(record.totals, record.TYPE, "totals", n),
            line=line,
        )

    def _add_fault(self, line: int, record: FaultRecord) -> None:
        seat = self._seat_of(record)
        during = record.during
        text = f"{record.fault}" + (f" (during {during})" if during else "")
        self._note(Note(kind="fault", seat=seat, text=text, trick=0, line=line))

    def _add_forfeit(self, line: int, record: ForfeitRecord) -> None:
        seat = self._seat_of(record)
        text = record.reason or f"{record.faults} faults"
        self._note(Note(kind="forfeit", seat=seat, text=text, trick=0, line=line))

    def _note(self, note: Note) -> None:
        """File a note under its hand, at the trick in progress, or under the game."""
        if not self.game.hands or self.game.end is not None:
            self.game.notes.append(note)
            return
        hand = self.game.hands[-1]
        note.after_hand = hand.result is not None
        tricks = hand.tricks
        note.trick = (tricks[-1].number + tricks[-1].complete) if tricks else 0
        if note.after_hand:
            note.stage = "end"
        elif tricks:
            note.stage = "play"
        elif hand.passes:
            note.stage = "pass"
        hand.notes.append(note)

    def _add_game_end(self, line: int, record: GameEndRecord) -> None:
        n = self.game.n
        if len(record.faults) != n or len(record.forfeited) != n:
            raise RecordError(f"game_end record: faults and forfeited need {n} entries")
        self.game.end = GameEnd(
            scores=_sized(record.scores, record.TYPE, "scores", n),
            placements=_sized(record.placements, record.TYPE, "placements", n),
            winners=list(record.winners),
            hands=record.hands,
            forfeited=list(record.forfeited),
            faults=[dict(f) for f in record.faults],
            line=line,
        )

    def _add_game_abort(self, line: int, record: GameAbortRecord) -> None:
        self.game.abort = record.reason

    def _add_game(self, line: int, record: GameHeader) -> None:  # pragma: no cover - see add
        raise RecordError("a second game header")


#: The record type of each ``type`` a game holds after its header.
_RECORD_OF: dict[str, Any] = {t: c for t, c in RECORD_TYPES.items() if c is not GameHeader}


def _game_from_header(path: str, raw: dict[str, Any]) -> Game:
    header = GameHeader.from_json(raw)
    rules = header.rules
    if len(header.seats) != rules.num_players:
        raise RecordError(f"{len(header.seats)} seats for {rules.num_players} players")
    # A seat without a bot name is shown by its number.
    seats = [s if s.bot else dataclasses.replace(s, bot=f"seat {s.seat}") for s in header.seats]
    return Game(
        path=path,
        game_id=str(header.game_id),
        seed=header.seed,
        rules=rules,
        seats=seats,
        meta=header.meta,
        started_at=header.started_at,
        header=raw,
    )


# The engine's view ----------------------------------------------------------------


def game_actions(game: Game, *, until: tuple[int, int, int] | None = None) -> list[Action]:
    """The game's passes, plays and moon choices as engine actions, in order.

    ``until=(hand, trick, plays)`` stops before the play numbered ``plays``
    (0-based) of that trick; ``(hand, 0, 0)`` stops before the first trick
    (after the passes) of the hand.
    """
    actions: list[Action] = []
    for hand in game.hands:
        if until and hand.number > until[0]:
            break
        actions.extend(Pass(p.seat, tuple(p.cards)) for p in hand.passes)
        for trick in hand.tricks:
            for index, play in enumerate(trick.plays):
                if until and (hand.number, trick.number, index) >= until:
                    return actions
                actions.append(Play(play.seat, play.card))
        if until and hand.number == until[0]:
            break
        if hand.moon_choice is not None:
            actions.append(MoonChoice(hand.moon_choice.seat, MoonScoring(hand.moon_choice.choice)))
    return actions


def state_at(game: Game, hand: int, trick: int = 1, plays: int = 0) -> GameState:
    """The engine's state before play ``plays`` (0-based) of ``trick`` in ``hand``.

    ``trick=0`` gives the state before the first trick, after the passes.
    Raises :class:`~referee.engine.ReplayError` if the log's moves do not
    replay (``referee verify`` says where). The state's
    :meth:`~referee.engine.GameState.view` is what the seat to play was shown.
    """
    return replay(game.rules, game.seed, game_actions(game, until=(hand, trick, plays)))
