"""``journal.jsonl``: the one writer (:class:`Journal`) and the one reader (:class:`JournalReader`).

The journal is appended and fsynced entry by entry, each line sealed with
the folder's key and chained to the line before
(:func:`referee.folder.seal.seal_line`). Every reader of a journal reads it
here, with the same checks in the same order: each line's MAC (with the
key), its JSON, that it is an object with a ``type``, and the keys of its
kind (:mod:`referee.folder.entries`).

What a reader does with a line that fails is its own: the reader calls its
``on_problem`` hook with a :class:`JournalProblem` (the file, the line, what
is wrong), the pattern of python-chess's ``pgn.read_game`` and its
visitor's ``handle_error``. :func:`strict` (the default) raises
:class:`~referee.folder.errors.JournalError` naming the line, as the runner,
``referee standings`` and the web need; a lenient hook (``referee verify``:
:class:`Collect`) keeps the problem and the reader goes on with the next line
(after a line whose MAC fails, the chain goes on from the MAC that line
carries, so only the lines changed, or those after a gap, fail). A torn
last line (a kill mid-write) is a problem of kind ``torn`` that
:func:`strict` only logs: it is no entry, and the writer cuts it off.

Reading a journal while it grows (the web's :class:`~referee.web.journal.JournalTail`)
is the same reader fed line by line (:meth:`JournalReader.line`).
"""

from __future__ import annotations

import dataclasses
import enum
import json
import logging
import os
import pathlib
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any, Protocol

from referee.folder import seal
from referee.folder.checks import json_error
from referee.folder.entries import (
    ENTRY_TYPES,
    EndEntry,
    EntryError,
    GameEntry,
    JournalEntry,
    JournalHeader,
    parse_entry,
)
from referee.folder.errors import JournalError
from referee.folder.layout import Layout

if TYPE_CHECKING:
    from referee.match.runner import GameRecord

__all__ = [
    "Collect",
    "Journal",
    "JournalLine",
    "JournalProblem",
    "JournalReader",
    "OnProblem",
    "ProblemKind",
    "journal_entry",
    "read_journal",
    "read_lines",
    "strict",
]

log = logging.getLogger(__name__)


class ProblemKind(enum.StrEnum):
    """What is wrong with a journal line."""

    #: Its MAC does not authenticate it (changed, inserted, moved, or from another journal).
    MAC = "mac"
    #: Not JSON.
    JSON = "json"
    #: JSON, but not an object with a ``type``.
    SHAPE = "shape"
    #: An entry of a known kind whose keys break its rules.
    ENTRY = "entry"
    #: The last line has no newline: a kill mid-write (no entry, and no error).
    TORN = "torn"


@dataclasses.dataclass(frozen=True, slots=True)
class JournalProblem:
    """A journal line that fails: where, what kind, and the message that says why."""

    path: pathlib.Path
    line: int
    kind: ProblemKind
    #: Why, in words (``not JSON: ...``, ``a game entry: scores: ...``, the seal's reason).
    message: str
    #: The line's bytes as read.
    raw: bytes = b""
    #: The error behind the problem (a :class:`~referee.folder.seal.SealError`, a JSON error).
    cause: Exception | None = None

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


#: What a reader does with a line that fails: raise to stop, return to skip it and go on.
OnProblem = Callable[[JournalProblem], None]


def strict(problem: JournalProblem) -> None:
    """The strict reader's hook: a torn last line is logged, any other problem raised."""
    if problem.kind is ProblemKind.TORN:
        log.warning("%s:%d: torn last line ignored", problem.path, problem.line)
        return
    raise JournalError(str(problem))


@dataclasses.dataclass
class Collect:
    """A lenient reader's hook: every problem kept (in :attr:`problems`), the reading goes on."""

    problems: list[JournalProblem] = dataclasses.field(default_factory=list)

    def __call__(self, problem: JournalProblem) -> None:
        self.problems.append(problem)


@dataclasses.dataclass(slots=True)
class JournalLine:
    """One entry read: its line number, the object as written, and its line's MAC."""

    number: int
    #: The object as written (less nothing: ``mac`` included), keys this referee does not
    #: know included.
    entry: dict[str, Any]
    #: The line's MAC (checked, when read with the key); None for a line without one.
    mac: str | None
    _typed: JournalEntry | None = None

    @property
    def kind(self) -> str:
        """The entry's ``type``."""
        return self.entry["type"]

    @property
    def typed(self) -> JournalEntry | None:
        """The typed entry (:mod:`referee.folder.entries`); None for a type not known."""
        if self._typed is None and self.entry["type"] in ENTRY_TYPES:
            self._typed = parse_entry(self.entry)
        return self._typed


class JournalReader:
    """Reads a journal's lines in order, checking each, and tells ``on_problem`` of those that
    fail.

    With ``key`` each line's MAC is checked, chained to the line before. The
    reader keeps the number of the last line read and the MAC the next line
    must follow, so that it can be fed a growing file line by line
    (:meth:`line`) or read a whole one (:meth:`lines`).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        key: bytes | None = None,
        on_problem: OnProblem = strict,
    ) -> None:
        self.path = pathlib.Path(path)
        self.key = key
        self.on_problem = on_problem
        #: The number of the last line read.
        self.number = 0
        #: The MAC of the last line read (the next line's MAC is chained to it).
        self.previous = ""

    def lines(self) -> Iterator[JournalLine]:
        """Every entry of the file from its first line, streamed; none when there is no file."""
        if not self.path.exists():
            return
        with open(self.path, "rb") as handle:
            for raw in handle:
                if not raw.endswith(b"\n"):
                    if raw.strip():
                        self._problem(
                            ProblemKind.TORN, "torn last line ignored", raw, number=self.number + 1
                        )
                    return
                line = self.line(raw)
                if line is not None:
                    yield line

    def line(self, raw: bytes) -> JournalLine | None:
        """The next line (complete, with its newline) checked: its entry, or None when it is
        blank or fails (after ``on_problem`` has been told, if it did not raise)."""
        self.number += 1
        if not raw.strip():
            return None
        if self.key is not None:
            try:
                mac: str | None = seal.check_line(self.key, self.previous, raw)
            except seal.SealError as error:
                self._problem(ProblemKind.MAC, str(error), raw, error)
                # A lenient reader goes on from the MAC the line carries, so that the lines
                # after it are checked against it, and only changed lines fail.
                self.previous = seal.line_mac(raw) or self.previous
                return None
            self.previous = mac or ""
        else:
            mac = seal.line_mac(raw)
        try:
            entry = json.loads(raw)
        except (ValueError, RecursionError) as error:
            self._problem(ProblemKind.JSON, f"not JSON: {json_error(error)}", raw, error)
            return None
        if not isinstance(entry, dict) or not isinstance(entry.get("type"), str):
            self._problem(ProblemKind.SHAPE, "not a journal entry (an object with a type)", raw)
            return None
        kind = ENTRY_TYPES.get(entry["type"])
        if kind is not None:
            try:
                kind.check(entry)
            except EntryError as error:
                self._problem(ProblemKind.ENTRY, f"a {entry['type']} entry: {error}", raw, error)
                return None
        return JournalLine(self.number, entry, mac)

    def _problem(
        self,
        kind: ProblemKind,
        message: str,
        raw: bytes,
        cause: Exception | None = None,
        *,
        number: int | None = None,
    ) -> None:
        line = self.number if number is None else number
        self.on_problem(JournalProblem(self.path, line, kind, message, raw, cause))


def read_lines(
    path: str | os.PathLike[str], *, key: bytes | None = None, on_problem: OnProblem = strict
) -> Iterator[JournalLine]:
    """The lines of a journal, streamed and checked (:class:`JournalReader`)."""
    return JournalReader(path, key=key, on_problem=on_problem).lines()


def read_journal(
    path: str | os.PathLike[str], *, key: bytes | None = None
) -> Iterator[dict[str, Any]]:
    """The entries of a journal, streamed, read strictly; a torn last line is skipped.

    With ``key``, each line's MAC is checked first (:func:`referee.folder.seal.check_line`);
    a line that fails raises :class:`~referee.folder.errors.JournalError` naming it.
    """
    for line in read_lines(path, key=key):
        yield line.entry


class Journal:
    """Appends entries to ``journal.jsonl``, each sealed, written and fsynced before it counts.

    Each line ends with its ``mac`` (:func:`referee.folder.seal.seal_line`), chained
    to the line before, so the journal can be authenticated with the key. A
    new journal made with ``promise_end`` says in its first line
    (``sealed_end``) that it is closed with an ``end`` entry
    (:meth:`append_end`) once the tournament is finished.
    """

    def __init__(self, path: pathlib.Path, key: bytes, *, promise_end: bool = False) -> None:
        self.path = path
        self._key = key
        self._lock = threading.RLock()
        _repair_tail(path)
        #: Lines in the file (the next one appended is ``lines + 1``) and game entries among them.
        self.lines = 0
        self.games = 0
        self._previous = ""
        self._last_game: tuple[str, str] | None = None  # (game id, line MAC)
        self._scan()
        new = not path.exists() or path.stat().st_size == 0
        self._file: IO[bytes] | None = open(path, "ab")  # noqa: SIM115
        if new:
            self.append(JournalHeader(sealed_end=True if promise_end else None))

    def _scan(self) -> None:
        """The count of lines and games, and the MACs the next lines refer to, from the file."""
        if not self.path.exists():
            return
        with open(self.path, "rb") as handle:
            for line in handle:
                self.lines += 1
                if not line.strip():
                    continue
                mac = seal.line_mac(line)
                if mac is None:
                    raise JournalError(
                        f"{self.path}:{self.lines}: a line without a MAC: not a journal this "
                        "referee can continue"
                    )
                self._previous = mac
                self._count(_entry_of(line), mac)

    def _count(self, entry: Mapping[str, Any] | None, mac: str) -> None:
        if entry is not None and entry.get("type") == "game":
            self.games += 1
            self._last_game = (str(entry.get("game_id")), mac)

    def append(self, entry: JournalEntry | Mapping[str, Any]) -> str:
        """Seal, write and fsync one entry; returns its line's MAC.

        ``entry`` is a typed entry (:mod:`referee.folder.entries`); a plain
        object is written as it is (a test's journal, holding what the
        referee would never write).
        """
        data = entry.to_json() if isinstance(entry, JournalEntry) else entry
        if "mac" in data:
            raise ValueError("a journal entry gets its mac from the journal")
        body = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
        with self._lock:
            if self._file is None:
                raise ValueError(f"{self.path}: journal closed")
            line = seal.seal_line(self._key, self._previous, body)
            self._file.write(line)
            self._file.flush()
            os.fsync(self._file.fileno())
            self._previous = seal.line_mac(line) or ""
            self.lines += 1
            self._count(data, self._previous)
            return self._previous

    def append_end(
        self, *, run: int, games_scheduled: int | None, finished_at: str
    ) -> dict[str, Any]:
        """Close the journal of a finished tournament with a sealed ``end`` entry.

        It counts the game entries before it and names the last one (its id
        and its line's MAC). Returns what ``tournament.json`` records of it
        (:attr:`~referee.folder.state.TournamentState.finished`): ``games``, ``line``,
        ``end_mac``.
        """
        with self._lock:
            last_id, last_mac = self._last_game or (None, None)
            games = self.games
            mac = self.append(
                EndEntry(
                    run=run,
                    games=games,
                    games_scheduled=games_scheduled,
                    last_game=last_id,
                    last_game_mac=last_mac,
                    finished_at=finished_at,
                )
            )
            return {"games": games, "line": self.lines, "end_mac": mac}

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None


def _entry_of(line: bytes) -> dict[str, Any] | None:
    """A journal line's entry, or None when it is not a JSON object (left to the readers)."""
    try:
        entry = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return entry if isinstance(entry, dict) else None


def _repair_tail(path: pathlib.Path) -> None:
    """Cut a torn last line off, so that the next entry starts on a line of its own."""
    if not path.exists():
        return
    with open(path, "rb+") as handle:
        size = handle.seek(0, os.SEEK_END)
        if size == 0:
            return
        handle.seek(max(0, size - 65536))
        tail = handle.read()
        if tail.endswith(b"\n"):
            return
        cut = tail.rfind(b"\n")
        keep = size - len(tail) + cut + 1 if cut >= 0 else 0
        log.warning("%s: cutting a torn last line (%d bytes)", path, size - keep)
        handle.truncate(keep)
        os.fsync(handle.fileno())


class _Placed(Protocol):
    """A game with a place in a schedule (:class:`~referee.schedule.ScheduledGame`)."""

    def meta(self) -> dict[str, Any]: ...


def journal_entry(
    record: GameRecord, game: _Placed, *, run: int, layout: Layout, log_mac: str | None = None
) -> dict[str, Any]:
    """The journal object of a finished game (:meth:`GameEntry.of`, as JSON): its record, its
    place in the schedule (``game.meta()``), its log relative to the folder, its log's MAC."""
    return GameEntry.of(
        record,
        place=game.meta(),
        log_path=layout.relative(pathlib.Path(record.log_path)),
        log_mac=log_mac,
        run=run,
    ).to_json()
