"""The records of a game log: one type per line type, each with its JSON form and checked parse.

Each record type (:class:`GameHeader`, :class:`DealRecord`, ...
:class:`GameAbortRecord`) has ``to_json()``, what the match runner writes,
and ``from_json()``, which checks the record's shape (its fields, their
types, the cards) and raises :class:`RecordError` (no file or line yet: the
readers add them) when it is wrong. :func:`parse_record` picks the type by
the record's ``type``. docs/log-format.md documents them, and a test holds
it to them.

>>> record = PlayRecord.from_json(
...     {"type": "play", "hand": 1, "trick": 1, "seat": 0, "decision": "d1",
...      "legal": ["2C"], "source": "bot", "card": "2C"})
>>> str(record.card), record.to_json()["legal"]
('2C', ['2C'])
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
from collections.abc import Sequence
from typing import Any, ClassVar

from referee.engine import Card, InvalidCardError, MoonScoring, PassDirection, Rules, RulesError
from referee.safetext import shown_name

__all__ = [
    "LOG_FORMAT",
    "LOG_VERSION",
    "RECORD_TYPES",
    "DealRecord",
    "Fault",
    "FaultRecord",
    "ForfeitRecord",
    "GameAbortRecord",
    "GameEndRecord",
    "GameHeader",
    "HandEndRecord",
    "LogRecord",
    "MoonChoiceRecord",
    "PassRecord",
    "PlayRecord",
    "RecordError",
    "SeatInfo",
    "TrickRecord",
    "card_field",
    "cards_field",
    "field",
    "parse_card_list",
    "parse_record",
]

#: The ``format`` field of the first record of every game log.
LOG_FORMAT = "hearts-referee/game-log"
#: Bumped on any incompatible change of the records.
LOG_VERSION = 1


# Reading fields ---------------------------------------------------------------


class RecordError(ValueError):
    """A record whose fields are missing or of the wrong kind (no file or line yet)."""


def field(record: dict[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    """``record[key]`` checked to be of ``kind`` (a bool is not an int here)."""
    if key not in record:
        raise RecordError(f"{record.get('type', 'the')} record has no {key!r}")
    value = record[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    wrong_bool = isinstance(value, bool) and bool not in kinds
    if wrong_bool or not isinstance(value, kinds):
        names = " or ".join(_KIND_NAMES.get(k, k.__name__) for k in kinds)
        raise RecordError(f"{record.get('type')} record: {key!r} should be {names}, not {value!r}")
    return value


_KIND_NAMES = {
    int: "a number",
    str: "a string",
    list: "a list",
    dict: "an object",
    bool: "true/false",
}


def card_field(record: dict[str, Any], key: str) -> Card:
    """A card string field (``"QS"``) as a :class:`Card`."""
    text = field(record, key, str)
    try:
        return Card.parse(text)
    except InvalidCardError:
        raise RecordError(f"{record.get('type')} record: {key!r} is not a card: {text!r}") from None


def cards_field(record: dict[str, Any], key: str) -> list[Card]:
    """A list of card strings as cards."""
    return parse_card_list(field(record, key, list), f"{record.get('type')} record: {key!r}")


#: Cards as the referee writes them ("QS", "TH"): a log's cards are looked up, not parsed.
_WRITTEN_CARDS = {str(Card(index)): Card(index) for index in range(52)}


def parse_card_list(values: Sequence[Any], what: str) -> list[Card]:
    """Card strings as cards; ``what`` names the list in the error."""
    cards = []
    for value in values:
        card = _WRITTEN_CARDS.get(value) if isinstance(value, str) else None
        if card is None:
            try:
                card = Card.parse(value) if isinstance(value, str) else _not_a_card(value)
            except InvalidCardError:
                raise RecordError(f"{what} holds {value!r}, not a card") from None
        cards.append(card)
    return cards


def _not_a_card(value: object) -> Card:
    raise InvalidCardError(repr(value))


def _int_list(record: dict[str, Any], key: str) -> list[int]:
    values = field(record, key, list)
    if any(not isinstance(v, int) or isinstance(v, bool) for v in values):
        raise RecordError(f"{record.get('type')} record: {key!r} should hold numbers: {values!r}")
    return list(values)


def _optional(record: dict[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    """``record[key]`` checked as by :func:`field`, or None when absent or null."""
    return None if record.get(key) is None else field(record, key, kind)


def _decision(record: dict[str, Any]) -> str:
    """The decision id: a non-empty string when recorded ("" when not)."""
    decision = record.get("decision")
    if "decision" in record and (not isinstance(decision, str) or not decision):
        raise RecordError(f"the decision id should be a string, not {decision!r}")
    return decision or ""


def _shown_value(value: Any) -> str:
    """A value from a log, short and printable, for a message."""
    return shown_name(json.dumps(value, default=str))


def _note(record: dict[str, Any]) -> str | None:
    """A decision's note (hearts.v1 ``note``): a string when recorded, else None.

    Only its type is checked: a note never changes the game, and every view
    shows it through :func:`referee.safetext.printable` at its own length.
    """
    note = record.get("note")
    if note is not None and not isinstance(note, str):
        raise RecordError(f"{record.get('type')} record: 'note' should be a string, not {note!r}")
    return note


def _millis(record: dict[str, Any], key: str) -> float | None:
    """A time in milliseconds (a non-negative number), or None when not recorded."""
    if key not in record:
        return None
    value = record[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise RecordError(f"{key} should be a number of milliseconds, not {value!r}")
    return value


#: Values written as they are (a Card is an int subclass, so it is not among them).
_PLAIN = frozenset({str, int, float, bool, type(None)})


#: Each card as written (``str(Card(i))``), looked up rather than formatted every time.
_CARD_TEXT = tuple(str(Card(index)) for index in range(52))


def _json(value: Any) -> Any:
    """A record field's value as JSON: cards as strings, enums as their values."""
    kind = type(value)
    if kind in _PLAIN:  # most fields: the fast path of every record written
        return value
    if kind is Card:
        return _CARD_TEXT[value]
    if kind is tuple or kind is list:  # a card list (legal moves, a hand) above all
        return [
            v if type(v) in _PLAIN else _CARD_TEXT[v] if type(v) is Card else _json(v)
            for v in value
        ]
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    if isinstance(value, Rules):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return value.to_json()  # type: ignore[attr-defined]
    return value


# The records --------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Fault:
    """A fault as recorded: its kind (a :class:`~referee.engine.FaultKind` value) and message."""

    kind: str
    message: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}" if self.message else self.kind

    def to_json(self) -> dict[str, Any]:
        return {"kind": _json(self.kind), "message": self.message}

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> Fault | None:
        """The ``fault`` field of a decision record (None when it has none)."""
        raw = record.get("fault")
        if raw is None:
            return None
        if not isinstance(raw, dict):
            raise RecordError(f"{record.get('type')} record: 'fault' should be an object")
        kind = raw.get("kind")
        if not isinstance(kind, str):
            raise RecordError("a fault without a kind")
        return cls(kind=kind, message=str(raw.get("message", "")))


class LogRecord:
    """What every record type has: its ``type`` and its JSON form."""

    __slots__ = ()
    TYPE: ClassVar[str]
    #: Fields left out of the JSON object when None (the others are written as null).
    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset()

    def to_json(self) -> dict[str, Any]:
        """The record as written: ``type`` first, then the fields in order."""
        data: dict[str, Any] = {"type": self.TYPE}
        for name in _field_names(type(self)):
            value = getattr(self, name)
            if value is None and name in self._OMIT_NONE:
                continue
            data[name] = _json(value)
        return data


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    """A record class's field names in order (read once: records are written on every move)."""
    return tuple(f.name for f in dataclasses.fields(cls))


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class SeatInfo:
    """A seat of the header: the bot in it, and what it said in its handshake."""

    seat: int
    bot: str
    name: str = ""
    version: str = ""
    author: str = ""
    language: str = ""

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class GameHeader(LogRecord):
    """``game``: the first line of every log."""

    TYPE: ClassVar[str] = "game"
    format: str = LOG_FORMAT
    version: int = LOG_VERSION
    referee_version: str
    game_id: str | int
    seed: int | str
    rules: Rules
    seats: tuple[SeatInfo, ...]
    time_control: dict[str, Any]
    fault_policy: dict[str, Any]
    meta: dict[str, Any]
    started_at: str

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> GameHeader:
        """The header; bad rules raise :class:`~referee.engine.RulesError`.

        A seat's missing names are empty (``bot`` too); the time control and
        fault policy are kept as written (empty when absent).
        """
        game_id = field(record, "game_id", (str, int))
        try:
            rules = Rules.from_dict(dict(field(record, "rules", dict)))
        except TypeError as error:  # an unknown or missing variant
            raise RulesError(str(error)) from None
        seed = field(record, "seed", (int, str))
        seats = []
        for index, raw in enumerate(field(record, "seats", list)):
            if not isinstance(raw, dict):
                raise RecordError(f"seat {index} is not an object")
            seats.append(
                SeatInfo(
                    seat=index,
                    bot=str(raw.get("bot") or ""),
                    **{k: str(raw.get(k) or "") for k in ("name", "version", "author", "language")},
                )
            )
        policy, control, meta = (record.get(k) for k in ("fault_policy", "time_control", "meta"))
        for key, value in (("fault_policy", policy), ("time_control", control), ("meta", meta)):
            # Absent in hand-written and early logs; present, an object: a list or a number
            # would read as "no fault policy", and verify would check no forfeits at all.
            if value is not None and not isinstance(value, dict):
                raise RecordError(
                    f"the header's {key!r} should be an object, not {type(value).__name__} "
                    f"{_shown_value(value)}"
                )
        return cls(
            format=str(record.get("format", "")),
            version=record.get("version", LOG_VERSION),
            referee_version=str(record.get("referee_version", "")),
            game_id=game_id,
            seed=seed,
            rules=rules,
            seats=tuple(seats),
            time_control=dict(control) if isinstance(control, dict) else {},
            fault_policy=dict(policy) if isinstance(policy, dict) else {},
            meta=dict(meta) if isinstance(meta, dict) else {},
            started_at=str(record.get("started_at", "")),
        )

    @property
    def max_faults(self) -> int:
        """The fault policy's ``max_faults`` (0: no forfeits)."""
        limit = self.fault_policy.get("max_faults")
        return limit if isinstance(limit, int) and limit > 0 else 0


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class DealRecord(LogRecord):
    """``deal``: a hand is dealt (the cards by seat, before passing)."""

    TYPE: ClassVar[str] = "deal"
    hand: int
    pass_direction: PassDirection
    hands: tuple[tuple[Card, ...], ...]

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> DealRecord:
        hand = field(record, "hand", int)
        try:
            direction = PassDirection(field(record, "pass_direction", str))
        except ValueError:
            raise RecordError(f"unknown pass_direction {record['pass_direction']!r}") from None
        hands = tuple(
            tuple(
                parse_card_list(h if isinstance(h, list) else [h], f"deal record: hand of seat {s}")
            )
            for s, h in enumerate(field(record, "hands", list))
        )
        return cls(hand=hand, pass_direction=direction, hands=hands)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class PassRecord(LogRecord):
    """``pass``: one seat's pass."""

    TYPE: ClassVar[str] = "pass"
    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset({"fault", "answer", "ms", "note"})
    hand: int
    seat: int
    decision: str
    fault: Fault | None = None
    #: What the bot sent when it was refused (card strings, maybe not cards).
    answer: tuple[str, ...] | None = None
    #: ``bot``, or ``fallback`` when the referee chose.
    source: str
    cards: tuple[Card, ...]
    ms: float | None = None
    #: The bot's note with its answer (made printable, at most 200 characters).
    note: str | None = None

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> PassRecord:
        answer = record.get("answer")
        return cls(
            hand=field(record, "hand", int),
            seat=field(record, "seat", int),
            decision=_decision(record),
            fault=Fault.from_json(record),
            answer=tuple(str(a) for a in answer) if isinstance(answer, list) else None,
            source=field(record, "source", str),
            cards=tuple(cards_field(record, "cards")),
            ms=_millis(record, "ms"),
            note=_note(record),
        )


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class PlayRecord(LogRecord):
    """``play``: one card played, from the legal moves offered."""

    TYPE: ClassVar[str] = "play"
    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset({"fault", "answer", "ms", "bank_ms", "note"})
    hand: int
    trick: int
    seat: int
    decision: str
    legal: tuple[Card, ...]
    fault: Fault | None = None
    #: What the bot sent when it was refused (a card string, maybe not a card).
    answer: str | None = None
    source: str
    card: Card
    ms: float | None = None
    bank_ms: float | None = None
    #: The bot's note with its answer (made printable, at most 200 characters).
    note: str | None = None

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> PlayRecord:
        answer = record.get("answer")
        return cls(
            hand=field(record, "hand", int),
            trick=field(record, "trick", int),
            seat=field(record, "seat", int),
            decision=_decision(record),
            legal=tuple(cards_field(record, "legal")),
            fault=Fault.from_json(record),
            answer=None if answer is None else str(answer),
            source=field(record, "source", str),
            card=card_field(record, "card"),
            ms=_millis(record, "ms"),
            bank_ms=_millis(record, "bank_ms"),
            note=_note(record),
        )


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class TrickRecord(LogRecord):
    """``trick``: a trick is complete."""

    TYPE: ClassVar[str] = "trick"
    hand: int
    trick: int
    leader: int
    #: In play order, starting with the leader's.
    cards: tuple[Card, ...]
    winner: int
    points: int

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> TrickRecord:
        return cls(
            hand=field(record, "hand", int),
            trick=field(record, "trick", int),
            leader=field(record, "leader", int),
            cards=tuple(cards_field(record, "cards")),
            winner=field(record, "winner", int),
            points=field(record, "points", int),
        )


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class MoonChoiceRecord(LogRecord):
    """``moon_choice``: the shooter's choice (V2 ``shooter_chooses``)."""

    TYPE: ClassVar[str] = "moon_choice"
    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset({"fault", "ms", "note"})
    hand: int
    seat: int
    decision: str
    fault: Fault | None = None
    source: str
    choice: MoonScoring
    ms: float | None = None
    #: The bot's note with its answer (made printable, at most 200 characters).
    note: str | None = None

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> MoonChoiceRecord:
        hand, seat, decision = (
            field(record, "hand", int),
            field(record, "seat", int),
            _decision(record),
        )
        fault, source = Fault.from_json(record), field(record, "source", str)
        try:
            choice = MoonScoring(field(record, "choice", str))
        except ValueError:
            raise RecordError(f"unknown moon choice {record['choice']!r}") from None
        return cls(
            hand=hand,
            seat=seat,
            decision=decision,
            fault=fault,
            source=source,
            choice=choice,
            ms=_millis(record, "ms"),
            note=_note(record),
        )


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class HandEndRecord(LogRecord):
    """``hand_end``: the hand is scored (lists by seat)."""

    TYPE: ClassVar[str] = "hand_end"
    hand: int
    points: tuple[int, ...]
    scores: tuple[int, ...]
    moon_shooter: int | None
    moon_scoring: MoonScoring | None
    totals: tuple[int, ...]

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> HandEndRecord:
        hand = field(record, "hand", int)
        points, scores = _int_list(record, "points"), _int_list(record, "scores")
        shooter = _optional(record, "moon_shooter", int)
        scoring = _optional(record, "moon_scoring", str)
        try:
            moon_scoring = None if scoring is None else MoonScoring(scoring)
        except ValueError:
            raise RecordError(f"unknown moon_scoring {scoring!r}") from None
        return cls(
            hand=hand,
            points=tuple(points),
            scores=tuple(scores),
            moon_shooter=shooter,
            moon_scoring=moon_scoring,
            totals=tuple(_int_list(record, "totals")),
        )


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class FaultRecord(LogRecord):
    """``fault``: a fault outside a decision (a notification RPC that failed)."""

    TYPE: ClassVar[str] = "fault"
    seat: int
    #: The RPC: StartGame, DealHand, EndHand or EndGame.
    during: str
    hand: int
    kind: str
    message: str

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> FaultRecord:
        return cls(
            seat=field(record, "seat", int),
            during=str(record.get("during") or ""),
            hand=record.get("hand") if isinstance(record.get("hand"), int) else 0,
            kind=field(record, "kind", str),
            message=str(record.get("message", "")),
        )

    @property
    def fault(self) -> Fault:
        return Fault(self.kind, self.message)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ForfeitRecord(LogRecord):
    """``forfeit``: a seat reached ``max_faults``."""

    TYPE: ClassVar[str] = "forfeit"
    seat: int
    hand: int
    faults: int
    reason: str

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> ForfeitRecord:
        return cls(
            seat=field(record, "seat", int),
            hand=record.get("hand") if isinstance(record.get("hand"), int) else 0,
            faults=field(record, "faults", int),
            reason=str(record.get("reason") or ""),
        )


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class GameEndRecord(LogRecord):
    """``game_end``: the last line of a complete game (lists by seat)."""

    TYPE: ClassVar[str] = "game_end"
    scores: tuple[int, ...]
    placements: tuple[int, ...]
    winners: tuple[int, ...]
    hands: int
    forfeited: tuple[bool, ...]
    #: ``{kind: count}`` by seat.
    faults: tuple[dict[str, int], ...]

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> GameEndRecord:
        scores, placements = _int_list(record, "scores"), _int_list(record, "placements")
        winners, hands = _int_list(record, "winners"), field(record, "hands", int)
        forfeited = field(record, "forfeited", list)
        if any(not isinstance(f, bool) for f in forfeited):
            raise RecordError(f"game_end record: 'forfeited' should hold true/false: {forfeited!r}")
        faults = field(record, "faults", list)
        for counts in faults:
            if not isinstance(counts, dict) or any(
                not isinstance(n, int) or isinstance(n, bool) for n in counts.values()
            ):
                raise RecordError(
                    f"game_end record: 'faults' should hold {{kind: count}} objects: {faults!r}"
                )
        return cls(
            scores=tuple(scores),
            placements=tuple(placements),
            winners=tuple(winners),
            hands=hands,
            forfeited=tuple(forfeited),
            faults=tuple(dict(f) for f in faults),
        )


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class GameAbortRecord(LogRecord):
    """``game_abort``: the game could not finish."""

    TYPE: ClassVar[str] = "game_abort"
    hand: int
    reason: str

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> GameAbortRecord:
        return cls(
            hand=record.get("hand") if isinstance(record.get("hand"), int) else 0,
            reason=str(record.get("reason", "?")),
        )


#: The record types by their ``type``.
RECORD_TYPES: dict[str, Any] = {
    cls.TYPE: cls
    for cls in (
        GameHeader,
        DealRecord,
        PassRecord,
        PlayRecord,
        TrickRecord,
        MoonChoiceRecord,
        HandEndRecord,
        FaultRecord,
        ForfeitRecord,
        GameEndRecord,
        GameAbortRecord,
    )
}


def parse_record(record: dict[str, Any]) -> Any:
    """A record object as its record type (:class:`RecordError` if its shape is wrong)."""
    cls = RECORD_TYPES.get(record.get("type"))  # type: ignore[arg-type]
    if cls is None:
        raise RecordError(f"unknown record type {record.get('type')!r}")
    return cls.from_json(record)
