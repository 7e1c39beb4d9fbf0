"""The journal's entries, one frozen dataclass per kind, each with ``to_json``/``from_json``.

A line of ``journal.jsonl`` is one entry: its ``type`` says the kind,

- ``journal`` (:class:`JournalHeader`): the first line;
- ``run`` (:class:`RunEntry`): each run's start, sealing what ``tournament.json`` must say;
- ``bot`` (:class:`BotEntry`): a bot started, or not;
- ``warning`` (:class:`WarningEntry`): what a run warned of (a limit not enforced);
- ``game`` (:class:`GameEntry`): a finished game, its record and its log's MAC;
- ``end`` (:class:`EndEntry`): the tournament finished.

``to_json`` gives the object as it is written (``type`` first, then the keys
in the order of the fields, a field that is None left out unless null is one
of its values); the journal adds the ``mac``. ``from_json`` checks every key it
knows and raises :class:`EntryError` naming the first one wrong (``"scores:
expected a list of integers, one per seat, got ..."``); keys it does not know
are ignored, and :func:`parse_entry` leaves a type it does not know alone
(docs/config.md: readers ignore types and keys they do not know). The table
of kinds and keys in docs/config.md is held to :data:`ENTRY_TYPES` by a test.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from referee.folder.checks import (
    KeySpec,
    ints,
    is_int,
    is_mac,
    is_number,
    keys_problem,
    shown,
    strs,
)

if TYPE_CHECKING:
    from referee.match.runner import GameRecord

__all__ = [
    "ENTRY_TYPES",
    "JOURNAL_FORMAT",
    "JOURNAL_VERSION",
    "BotEntry",
    "EndEntry",
    "EntryError",
    "GameEntry",
    "JournalEntry",
    "JournalHeader",
    "RunEntry",
    "WarningEntry",
    "entry_problem",
    "parse_entry",
]

JOURNAL_FORMAT = "hearts-referee/journal"
JOURNAL_VERSION = 1

_Entry = TypeVar("_Entry", bound="JournalEntry")


class EntryError(ValueError):
    """A journal entry that breaks its kind's rules; the message names the key."""


def _run_number(v: Any) -> bool:
    return is_int(v) and v >= 1


_RUN_NUMBER = "a run number (1, 2, ...)"
_COUNT = "a number"


def _count_or_none(v: Any) -> bool:
    return v is None or (is_int(v) and v >= 0)


def _reasons(v: Any) -> bool:
    return isinstance(v, dict) and all(isinstance(r, str) for r in v.values())


class JournalEntry:
    """What every kind of entry has: its ``type``, the keys it checks, and its JSON form."""

    __slots__ = ()
    TYPE: ClassVar[str]
    #: Each key this kind knows: (required, check, what it must hold). ``from_json`` checks
    #: them in this order, so the first key wrong is the one named.
    KEYS: ClassVar[Mapping[str, KeySpec]]
    #: Fields written as null when None (the others are left out when None).
    _NULLABLE: ClassVar[frozenset[str]] = frozenset()

    def to_json(self) -> dict[str, Any]:
        """The entry as written: ``type`` first, then the fields in order (less the ``mac``)."""
        data: dict[str, Any] = {"type": self.TYPE}
        for name in _field_names(type(self)):
            value = getattr(self, name)
            if value is None and name not in self._NULLABLE:
                continue
            data[name] = _json(value)
        return data

    @classmethod
    def check(cls, data: Mapping[str, Any]) -> None:
        """Raise :class:`EntryError` naming the first key of ``data`` that breaks its rule."""
        if data.get("type") != cls.TYPE:
            raise EntryError(f"type: expected {cls.TYPE!r}, got {shown(data.get('type'))}")
        problem = keys_problem(data, cls.KEYS)
        if problem:
            raise EntryError(problem)

    @classmethod
    def from_json(cls: type[_Entry], data: Mapping[str, Any]) -> _Entry:
        """The entry of a JSON object (checked: :meth:`check`); keys not known are ignored."""
        cls.check(data)
        names = _field_names(cls)
        return cls(**{k: _frozen(v) for k, v in data.items() if k in names})


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def _json(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_json(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _json(v) for k, v in value.items()}
    return value


def _frozen(value: Any) -> Any:
    """Lists as tuples (the entries are frozen); objects stay dicts."""
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class JournalHeader(JournalEntry):
    """``journal``: the first line, naming the format; with ``sealed_end``, a promise that the
    journal is closed with an ``end`` entry and ``tournament.json`` sealed."""

    TYPE: ClassVar[str] = "journal"
    KEYS: ClassVar[Mapping[str, KeySpec]] = {
        "format": (False, lambda v: isinstance(v, str), "a format name"),
        "version": (False, is_int, "a version number"),
        "sealed_end": (False, lambda v: isinstance(v, bool), "true or false"),
    }
    format: str = JOURNAL_FORMAT
    version: int = JOURNAL_VERSION
    #: Written only when true (a journal of an older referee has no such promise).
    sealed_end: bool | None = None


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class RunEntry(JournalEntry):
    """``run``: a run starts; it seals what ``tournament.json`` must agree with (its facts)."""

    TYPE: ClassVar[str] = "run"
    KEYS: ClassVar[Mapping[str, KeySpec]] = {
        "run": (True, _run_number, _RUN_NUMBER),
        "started_at": (False, lambda v: isinstance(v, str), "a time"),
        "referee_version": (False, lambda v: isinstance(v, str), "a version"),
        "concurrency": (False, is_int, "a number"),
        "name": (False, lambda v: isinstance(v, str), "a name"),
        "seed": (False, is_int, "an integer"),
        "config_hash": (False, lambda v: isinstance(v, str), "the config's hash (hex digits)"),
        "participants": (False, lambda v: v is None or strs(v), "a list of bot names"),
        "excluded": (False, _reasons, "an object of bot name: reason"),
        "games_scheduled": (False, _count_or_none, _COUNT),
        "games_left": (False, _count_or_none, _COUNT),
        "sealed_end": (False, lambda v: isinstance(v, bool), "true or false"),
    }
    #: Null is a value of these: no participants or schedule yet, no end (a ladder's games).
    _NULLABLE: ClassVar[frozenset[str]] = frozenset(
        {"participants", "games_scheduled", "games_left"}
    )
    #: The keys that ``tournament.json`` must agree with (:meth:`TournamentState.sealed_facts`).
    SEALED_FACTS: ClassVar[tuple[str, ...]] = (
        "name",
        "seed",
        "config_hash",
        "participants",
        "excluded",
        "games_scheduled",
    )
    run: int
    started_at: str | None = None
    referee_version: str | None = None
    concurrency: int | None = None
    games_left: int | None = None
    name: str | None = None
    seed: int | None = None
    config_hash: str | None = None
    participants: tuple[str, ...] | None = None
    excluded: Mapping[str, str] | None = None
    games_scheduled: int | None = None
    sealed_end: bool | None = None


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class BotEntry(JournalEntry):
    """``bot``: a bot was started (``status`` ``started``) or not (``start_failed``,
    ``build_failed``, with the ``reason``); where it ran (its ``table``, or a worker's)."""

    TYPE: ClassVar[str] = "bot"
    KEYS: ClassVar[Mapping[str, KeySpec]] = {
        "bot": (True, lambda v: isinstance(v, str), "a bot name"),
        "status": (False, lambda v: isinstance(v, str), "a status"),
        "run": (False, _run_number, _RUN_NUMBER),
        "reason": (False, lambda v: v is None or isinstance(v, str), "a string"),
        "table": (False, lambda v: v is None or is_int(v), "a table number"),
        "info": (
            False,
            lambda v: v is None or isinstance(v, dict),
            "the bot's handshake (an object)",
        ),
        "worker": (False, lambda v: v is None or is_int(v), "a worker number"),
        "node": (False, lambda v: v is None or isinstance(v, str), "a node's address"),
    }
    run: int | None = None
    bot: str
    status: str | None = None
    reason: str | None = None
    #: The table the bot was started for (with ``per_table``).
    table: int | None = None
    #: What the bot said in its handshake (name, version, author, language, protocol_version).
    info: Mapping[str, Any] | None = None
    #: The worker process that started it, and its node (on a Ray cluster).
    worker: int | None = None
    node: str | None = None


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class WarningEntry(JournalEntry):
    """``warning``: what a run warned of (bot limits not enforced, CPU time shared)."""

    TYPE: ClassVar[str] = "warning"
    KEYS: ClassVar[Mapping[str, KeySpec]] = {
        "run": (False, _run_number, _RUN_NUMBER),
        "message": (True, lambda v: isinstance(v, str), "the warning (a string)"),
    }
    run: int | None = None
    message: str


def _faults(v: Any) -> bool:
    return isinstance(v, list) and all(
        isinstance(f, dict) and all(isinstance(k, str) and is_int(n) for k, n in f.items())
        for f in v
    )


#: The game keys that hold one value per seat.
_PER_SEAT = ("scores", "placements", "moons", "faults", "forfeited", "decisions", "think_ms")


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class GameEntry(JournalEntry):
    """``game``: a finished game: its record (:class:`~referee.match.runner.GameRecord`), its
    place in the schedule, its log and the log's MAC, and the run that played it."""

    TYPE: ClassVar[str] = "game"
    KEYS: ClassVar[Mapping[str, KeySpec]] = {
        "game_id": (True, lambda v: isinstance(v, str) and v, "a game id (a string)"),
        "seed": (False, lambda v: is_int(v) or isinstance(v, str), "an integer or a string"),
        "bots": (True, lambda v: strs(v) and 3 <= len(v) <= 7, "a list of 3 to 7 bot names"),
        "scores": (True, ints, "a list of integers, one per seat"),
        "placements": (True, ints, "a list of placements, one per seat"),
        "winners": (True, ints, "a list of seats"),
        "hand_scores": (
            True,
            lambda v: isinstance(v, list) and all(ints(h) for h in v),
            "a list of hands, each a list of integers",
        ),
        "moons": (True, ints, "a list of integers, one per seat"),
        "faults": (True, _faults, "a list of {kind: count}, one per seat"),
        "forfeited": (
            True,
            lambda v: isinstance(v, list) and all(isinstance(f, bool) for f in v),
            "a list of true/false, one per seat",
        ),
        "decisions": (True, ints, "a list of integers, one per seat"),
        "think_ms": (
            True,
            lambda v: isinstance(v, list) and all(is_number(t) for t in v),
            "a list of numbers, one per seat",
        ),
        "duration_s": (False, is_number, "a number"),
        "meta": (False, lambda v: isinstance(v, dict), "an object"),
        "index": (True, lambda v: is_int(v) and v >= 0, "a position in the schedule (0, 1, ...)"),
        "table": (False, lambda v: is_int(v) and v >= 1, "a table number (1, 2, ...)"),
        "deal_set": (False, lambda v: is_int(v) and v >= 1, "a deal set number (1, 2, ...)"),
        "seating": (False, lambda v: is_int(v) and v >= 1, "a seating number (1, 2, ...)"),
        "pair": (False, lambda v: isinstance(v, str), "a gauntlet pair's id (t1-d2-r3)"),
        "role": (False, lambda v: isinstance(v, str), "candidate or baseline"),
        "subject": (False, lambda v: isinstance(v, str), "a bot name"),
        "log_path": (False, lambda v: isinstance(v, str) and v, "a path in the folder"),
        "log_mac": (False, lambda v: isinstance(v, str), "a MAC (64 hex digits)"),
        "run": (False, _run_number, _RUN_NUMBER),
    }
    game_id: str
    seed: int | str | None = None
    bots: tuple[str, ...]
    scores: tuple[int, ...]
    placements: tuple[int, ...]
    winners: tuple[int, ...]
    hand_scores: tuple[tuple[int, ...], ...]
    moons: tuple[int, ...]
    faults: tuple[Mapping[str, int], ...]
    forfeited: tuple[bool, ...]
    decisions: tuple[int, ...]
    think_ms: tuple[float, ...]
    #: The game's log, relative to the folder (``games/000/t1-d1-r1.jsonl.gz``).
    log_path: str | None = None
    duration_s: float | None = None
    meta: Mapping[str, Any] | None = None
    #: Its place in the schedule (0-based, the canonical order) and its duplicate set.
    index: int
    table: int | None = None
    deal_set: int | None = None
    seating: int | None = None
    #: A gauntlet's game: the games that differ only by the subject (``t1-d2-r3``), and
    #: whose turn it is (``role`` ``candidate`` or ``baseline``: the ``subject``).
    pair: str | None = None
    role: str | None = None
    subject: str | None = None
    #: The MAC of the log's bytes (:func:`referee.folder.seal.log_mac`).
    log_mac: str | None = None
    run: int | None = None

    @classmethod
    def check(cls, data: Mapping[str, Any]) -> None:
        """:meth:`JournalEntry.check`, and then one value per seat, seats and placements in range."""
        super(GameEntry, cls).check(data)
        seats = len(data["bots"])
        for key in _PER_SEAT:
            if len(data[key]) != seats:
                raise EntryError(f"{key}: {len(data[key])} values for {seats} seats")
        for number, hand in enumerate(data["hand_scores"], start=1):
            if len(hand) != seats:
                raise EntryError(
                    f"hand_scores: hand {number} has {len(hand)} values for {seats} seats"
                )
        if any(not 0 <= w < seats for w in data["winners"]):
            raise EntryError(
                f"winners: expected seats 0 to {seats - 1}, got {shown(data['winners'])}"
            )
        if any(not 1 <= p <= seats for p in data["placements"]):
            raise EntryError(f"placements: expected 1 to {seats}, got {shown(data['placements'])}")

    @classmethod
    def of(
        cls,
        record: GameRecord,
        *,
        place: Mapping[str, int],
        log_path: str,
        log_mac: str | None = None,
        run: int,
    ) -> GameEntry:
        """The entry of a finished game: its ``record``, its ``place`` in the schedule
        (``index``, ``table``, ``deal_set``, ``seating``), its log (relative to the folder)."""
        values = {k: _frozen(v) for k, v in record.to_dict().items()}
        values.update(place, log_path=log_path, log_mac=log_mac, run=run)
        names = _field_names(cls)
        unknown = values.keys() - names
        if unknown:  # a record's field this entry does not know would be lost
            raise TypeError(f"GameEntry has no field for {', '.join(sorted(unknown))}")
        return cls(**values)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class EndEntry(JournalEntry):
    """``end``: the tournament finished; the game entries before it, and the last one."""

    TYPE: ClassVar[str] = "end"
    KEYS: ClassVar[Mapping[str, KeySpec]] = {
        "run": (True, _run_number, _RUN_NUMBER),
        "games": (True, lambda v: is_int(v) and v >= 0, "the number of game entries before it"),
        "games_scheduled": (False, _count_or_none, _COUNT),
        "last_game": (False, lambda v: v is None or isinstance(v, str), "a game id"),
        "last_game_mac": (False, lambda v: v is None or is_mac(v), "a MAC (64 hex digits)"),
        "finished_at": (False, lambda v: isinstance(v, str), "a time"),
    }
    _NULLABLE: ClassVar[frozenset[str]] = frozenset(
        {"games_scheduled", "last_game", "last_game_mac", "finished_at"}
    )
    run: int
    games: int
    games_scheduled: int | None = None
    #: The last game entry's id and its line's MAC (None when there is none).
    last_game: str | None = None
    last_game_mac: str | None = None
    finished_at: str | None = None


#: Every kind of entry, by its ``type``.
ENTRY_TYPES: Mapping[str, type[JournalEntry]] = {
    cls.TYPE: cls for cls in (JournalHeader, RunEntry, BotEntry, WarningEntry, GameEntry, EndEntry)
}


def parse_entry(data: Mapping[str, Any]) -> JournalEntry | None:
    """The typed entry of a journal object; None for a type this referee does not know.

    Raises :class:`EntryError` naming the key that is wrong.
    """
    kind = ENTRY_TYPES.get(data.get("type"))  # type: ignore[arg-type]
    return kind.from_json(data) if kind is not None else None


def entry_problem(entry: Mapping[str, Any]) -> str | None:
    """What is wrong with a journal entry of a known type ("key: expected ..."), or None.

    Types and keys this referee does not know are left alone (docs/config.md).
    """
    kind = ENTRY_TYPES.get(entry.get("type"))  # type: ignore[arg-type]
    if kind is None:
        return None
    try:
        kind.check(entry)
    except EntryError as error:
        return str(error)
    return None
