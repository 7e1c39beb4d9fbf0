"""The output folder of a tournament: its layout, its state and its journal (the one owner).

Every writer and reader of a tournament folder goes through this module: the
runner, ``referee standings``, ``referee replay`` and ``referee verify``. It
owns the file names (:class:`Layout`), ``tournament.json``
(:class:`TournamentState`), and ``journal.jsonl``: appended and fsynced
entry by entry, each entry sealed with the folder key and chained to the one
before (:class:`Journal`), read back and authenticated
(:func:`read_journal`, :func:`authenticated_journal`), and turned into
standings (:func:`load_standings`). The formats are documented in
docs/config.md.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import logging
import math
import os
import pathlib
import threading
from collections.abc import Iterator, Mapping
from typing import IO, Any

from referee import __version__, durable, seal
from referee.match import GameRecord
from referee.standings import Standings, compute_standings
from referee.tournament.schedule import ScheduledGame

__all__ = [
    "GAMES_PER_FOLDER",
    "JOURNAL_FORMAT",
    "JOURNAL_VERSION",
    "LOG_SUFFIX",
    "PLAIN_LOG_SUFFIX",
    "STATE_FORMAT",
    "STATE_VERSION",
    "Journal",
    "JournalError",
    "Layout",
    "TournamentError",
    "TournamentState",
    "authenticated_journal",
    "check_journal_line",
    "entry_problem",
    "game_entries",
    "game_log_path",
    "journal_entry",
    "load_standings",
    "log_game_id",
    "open_journal",
    "read_journal",
    "recorded_file",
    "state_problem",
    "write_atomic",
]

log = logging.getLogger(__name__)

STATE_FORMAT = "hearts-referee/tournament"
#: 2: the folder has a key (``key_id``); a version 1 folder is read but not resumed.
STATE_VERSION = 2
JOURNAL_FORMAT = "hearts-referee/journal"
JOURNAL_VERSION = 1


#: Logs per folder of ``games/`` (:meth:`Layout.game_log`).
GAMES_PER_FOLDER = 100
#: A finished game's log: gzip-compressed JSON Lines.
LOG_SUFFIX = ".jsonl.gz"
#: A game's log while it is played, and every log of a folder of an older referee.
PLAIN_LOG_SUFFIX = ".jsonl"


def log_game_id(name: str) -> str | None:
    """The game id of a log's file name (``t1-d1-r1.jsonl.gz`` or ``.jsonl``), else None."""
    for suffix in (LOG_SUFFIX, PLAIN_LOG_SUFFIX):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return None


class TournamentError(Exception):
    """A tournament that cannot run or be read; the message says why and what to do."""


class JournalError(TournamentError):
    """A journal line that cannot be read (not a torn last line)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Layout:
    """Where things go in a tournament's output folder."""

    root: pathlib.Path

    @property
    def config(self) -> pathlib.Path:
        return self.root / "config.yaml"

    @property
    def state(self) -> pathlib.Path:
        return self.root / "tournament.json"

    @property
    def journal(self) -> pathlib.Path:
        return self.root / "journal.jsonl"

    @property
    def games(self) -> pathlib.Path:
        return self.root / "games"

    @property
    def bots(self) -> pathlib.Path:
        return self.root / "bots"

    @property
    def builds(self) -> pathlib.Path:
        return self.root / "builds"

    @property
    def standings_json(self) -> pathlib.Path:
        return self.root / "standings.json"

    @property
    def standings_txt(self) -> pathlib.Path:
        return self.root / "standings.txt"

    @property
    def head_to_head_csv(self) -> pathlib.Path:
        return self.root / "head_to_head.csv"

    def check(self) -> None:
        """Refuse a folder the referee cannot write into: the root or a subfolder not a folder.

        Checked before anything is written, so that a resumed run fails up front
        rather than after appending to the journal.
        """
        for path in (self.root, self.games, self.bots, self.builds):
            if (path.exists() or path.is_symlink()) and not path.is_dir():
                what = "the output folder" if path == self.root else f"its {path.name} folder"
                raise TournamentError(
                    f"{path} is a file, not a folder ({what}); move it away or choose another "
                    "output folder (--out)"
                )
            if path == self.root and not path.exists():
                for parent in path.parents:
                    if parent.exists() and not parent.is_dir():
                        raise TournamentError(
                            f"{parent} is a file, so the output folder {path} cannot be made"
                        )

    def game_log(self, game_id: str, index: int | None = None) -> pathlib.Path:
        """Where a game's log goes: ``games/<hundred>/<game_id>.jsonl.gz``.

        ``<hundred>`` is the game's place in the schedule (``index``) divided
        by :data:`GAMES_PER_FOLDER`, in three digits: games 0-99 in
        ``games/000/``, 100-199 in ``games/001/``, ..., so no folder holds
        more than a hundred logs. The log is compressed once the game is over
        (:class:`~referee.gamelog.GameLogWriter`). Without ``index``:
        ``games/<game_id>.jsonl``, the flat, plain layout of older referees,
        which is still read.
        """
        if index is None:
            return self.games / f"{game_id}{PLAIN_LOG_SUFFIX}"
        return self.games / f"{index // GAMES_PER_FOLDER:03d}" / f"{game_id}{LOG_SUFFIX}"

    def log_of(self, entry: Mapping[str, Any]) -> pathlib.Path:
        """The log of a journal entry: its ``log_path``, or the flat layout's place.

        As the journal says it (whose lines are sealed): a reader that serves
        files to others must still check that the path stays in the folder.
        """
        relative = entry.get("log_path")
        if not isinstance(relative, str) or not relative:
            return self.game_log(str(entry.get("game_id")))
        return self.root / relative

    def game_logs(self) -> Iterator[tuple[str, pathlib.Path]]:
        """``(game_id, path)`` of every log file in ``games/``, in either layout.

        A game in flight (or cut short by a crash) has a plain ``.jsonl`` in
        its hundred's folder until it is over and compressed.
        """
        if not self.games.is_dir():
            return
        for path in sorted(self.games.glob("*")):
            if path.is_dir():
                for inner in sorted(path.iterdir()):
                    game_id = log_game_id(inner.name)
                    if game_id and inner.is_file():
                        yield game_id, inner
            else:
                game_id = log_game_id(path.name)
                if game_id and path.is_file():
                    yield game_id, path

    def relative(self, path: pathlib.Path) -> str:
        return path.relative_to(self.root).as_posix()


@dataclasses.dataclass(kw_only=True)
class TournamentState:
    """``tournament.json``: what a resumed run must agree with."""

    name: str
    config_hash: str
    #: The canonical config (to say what changed when a config is refused).
    config: dict[str, Any]
    seed: int
    #: Bots in the schedule; None until the first run's builds are done.
    participants: list[str] | None = None
    #: Bots left out after a failed build, with the reason.
    excluded: dict[str, str] = dataclasses.field(default_factory=dict)
    games_scheduled: int | None = None
    ranking: str = "points"
    created_at: str = ""
    referee_version: str = __version__
    #: The fingerprint of the folder's key (:func:`referee.seal.key_id`), never the key;
    #: None for a folder of an older referee, made without a key.
    key_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"format": STATE_FORMAT, "version": STATE_VERSION, **dataclasses.asdict(self)}

    def sealed_facts(self) -> dict[str, Any]:
        """What every ``run`` entry of the journal repeats under its MAC (see load_standings)."""
        return {
            "name": self.name,
            "seed": self.seed,
            "config_hash": self.config_hash,
            "participants": self.participants,
            "excluded": self.excluded,
            "games_scheduled": self.games_scheduled,
        }

    @classmethod
    def load(cls, path: pathlib.Path) -> TournamentState:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError) as error:
            raise TournamentError(f"{path}: cannot read the tournament state: {error}") from None
        if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
            raise TournamentError(f"{path}: not a tournament state file ({STATE_FORMAT})")
        if data.get("version") not in (1, STATE_VERSION):
            raise TournamentError(
                f"{path}: state version {data.get('version')!r}; this referee reads {STATE_VERSION}"
            )
        problem = state_problem(data)
        if problem:
            raise TournamentError(f"{path}: {problem}")
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in fields})

    def save(self, path: pathlib.Path) -> None:
        write_atomic(path, json.dumps(self.to_dict(), indent=2) + "\n")


#: The files the referee records at the top of a tournament folder (and ``game.jsonl``, a match's).
_RECORDED_NAMES = (
    "journal.jsonl",
    "tournament.json",
    "key",
    "config.yaml",
    "standings.json",
    "standings.txt",
    "head_to_head.csv",
    "game.jsonl",
    "gauntlet.json",
    "gauntlet.txt",
)
#: The first bytes of the JSON Lines files the referee writes.
_RECORDED_STARTS = (b'{"type":"game","format":"hearts-referee/', b'{"type":"journal"')


def recorded_file(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` is, when it is a file the referee recorded (None when it is not).

    A file the referee recorded is never written over by another command (a
    replay page written onto the log it shows, say): a game log or journal
    wherever it is, and the files of a tournament or match folder (its
    ``journal.jsonl``, ``tournament.json``, ``key``, ``games/``, ``builds/``,
    ``bots/``, standings).
    """
    path = pathlib.Path(path)
    try:
        with open(path, "rb") as handle:
            start = handle.read(64)
    except OSError:
        start = b""
    if start.startswith(_RECORDED_STARTS):
        return "a game log or journal"
    folders = [path.parent, *path.parent.parents][:3]
    for depth, folder in enumerate(folders):
        layout = Layout(folder)
        if not (
            layout.state.is_file()
            or layout.journal.is_file()
            or (folder / seal.KEY_NAME).is_file()
            or (folder / "game.jsonl").is_file()
        ):
            continue
        inside = path.relative_to(folder).parts
        if depth == 0 and path.name in _RECORDED_NAMES:
            return f"the {path.name} of {folder}"
        if inside[0] in ("games", "builds", "bots"):
            return f"a file of {folder / inside[0]}"
    return None


def write_atomic(path: pathlib.Path, text: str) -> None:
    """Write a whole text file so that a crash leaves the old or the new one, never half."""
    durable.write_bytes(path, text.encode("utf-8"))


# The journal ------------------------------------------------------------------------------


def read_journal(
    path: str | os.PathLike[str], *, key: bytes | None = None
) -> Iterator[dict[str, Any]]:
    """The entries of a journal, streamed; a torn last line (a kill mid-write) is skipped.

    With ``key``, each line's MAC is checked first (:func:`referee.seal.check_line`);
    a line that fails raises :class:`JournalError` naming it.
    """
    for _, entry in _journal_lines(pathlib.Path(path), key):
        yield entry


def _journal_lines(path: pathlib.Path, key: bytes | None) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, entry)`` of each journal line (see :func:`read_journal`)."""
    if not path.exists():
        return
    previous = ""
    with open(path, "rb") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.endswith(b"\n"):
                log.warning("%s:%d: torn last line ignored", path, number)
                return
            if not line.strip():
                continue
            previous, entry = check_journal_line(line, f"{path}:{number}", key, previous)
            yield number, entry


def check_journal_line(
    line: bytes, where: str, key: bytes | None, previous: str
) -> tuple[str, dict[str, Any]]:
    """One journal line checked: its MAC chained to ``previous`` (with ``key``), its JSON,
    its fields; returns ``(its MAC, the entry)``. A failure is a :class:`JournalError` at
    ``where`` (``file:line``)."""
    if key is not None:
        try:
            previous = seal.check_line(key, previous, line)
        except seal.SealError as error:
            raise JournalError(f"{where}: {error}") from None
    try:
        entry = json.loads(line)
    except (ValueError, RecursionError) as error:
        raise JournalError(f"{where}: not JSON: {_json_error(error)}") from None
    if not isinstance(entry, dict) or not isinstance(entry.get("type"), str):
        raise JournalError(f"{where}: not a journal entry (an object with a type)")
    problem = entry_problem(entry)
    if problem:
        raise JournalError(f"{where}: a {entry['type']} entry: {problem}")
    return previous, entry


# What each known entry type must hold, key by key: (required, check, expected).
def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**128


def _is_number(value: Any) -> bool:
    return (_is_int(value) or isinstance(value, float)) and math.isfinite(value)


def _ints(value: Any) -> bool:
    return isinstance(value, list) and all(_is_int(v) for v in value)


def _strs(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


_GAME_KEYS: dict[str, tuple[bool, Any, str]] = {
    "game_id": (True, lambda v: isinstance(v, str) and v, "a game id (a string)"),
    "seed": (False, lambda v: _is_int(v) or isinstance(v, str), "an integer or a string"),
    "bots": (True, lambda v: _strs(v) and 3 <= len(v) <= 7, "a list of 3 to 7 bot names"),
    "scores": (True, _ints, "a list of integers, one per seat"),
    "placements": (True, _ints, "a list of placements, one per seat"),
    "winners": (True, _ints, "a list of seats"),
    "hand_scores": (
        True,
        lambda v: isinstance(v, list) and all(_ints(h) for h in v),
        "a list of hands, each a list of integers",
    ),
    "moons": (True, _ints, "a list of integers, one per seat"),
    "faults": (
        True,
        lambda v: (
            isinstance(v, list)
            and all(
                isinstance(f, dict) and all(isinstance(k, str) and _is_int(n) for k, n in f.items())
                for f in v
            )
        ),
        "a list of {kind: count}, one per seat",
    ),
    "forfeited": (
        True,
        lambda v: isinstance(v, list) and all(isinstance(f, bool) for f in v),
        "a list of true/false, one per seat",
    ),
    "decisions": (True, _ints, "a list of integers, one per seat"),
    "think_ms": (
        True,
        lambda v: isinstance(v, list) and all(_is_number(t) for t in v),
        "a list of numbers, one per seat",
    ),
    "duration_s": (False, _is_number, "a number"),
    "meta": (False, lambda v: isinstance(v, dict), "an object"),
    "index": (True, lambda v: _is_int(v) and v >= 0, "a position in the schedule (0, 1, ...)"),
    "table": (False, lambda v: _is_int(v) and v >= 1, "a table number (1, 2, ...)"),
    "deal_set": (False, lambda v: _is_int(v) and v >= 1, "a deal set number (1, 2, ...)"),
    "seating": (False, lambda v: _is_int(v) and v >= 1, "a seating number (1, 2, ...)"),
    "log_path": (False, lambda v: isinstance(v, str) and v, "a path in the folder"),
    "log_mac": (False, lambda v: isinstance(v, str), "a MAC (64 hex digits)"),
    "run": (False, lambda v: _is_int(v) and v >= 1, "a run number (1, 2, ...)"),
}
_RUN_KEYS: dict[str, tuple[bool, Any, str]] = {
    "run": (True, lambda v: _is_int(v) and v >= 1, "a run number (1, 2, ...)"),
    "name": (False, lambda v: isinstance(v, str), "a name"),
    "seed": (False, _is_int, "an integer"),
    "participants": (False, lambda v: v is None or _strs(v), "a list of bot names"),
    "excluded": (
        False,
        lambda v: isinstance(v, dict) and all(isinstance(r, str) for r in v.values()),
        "an object of bot name: reason",
    ),
    "games_scheduled": (False, lambda v: v is None or (_is_int(v) and v >= 0), "a number"),
    "games_left": (False, lambda v: v is None or (_is_int(v) and v >= 0), "a number"),
}
_BOT_KEYS: dict[str, tuple[bool, Any, str]] = {
    "bot": (True, lambda v: isinstance(v, str), "a bot name"),
    "status": (False, lambda v: isinstance(v, str), "a status"),
    "run": (False, lambda v: _is_int(v) and v >= 1, "a run number (1, 2, ...)"),
    "reason": (False, lambda v: v is None or isinstance(v, str), "a string"),
    "table": (False, lambda v: v is None or _is_int(v), "a table number"),
}
_ENTRY_KEYS = {"game": _GAME_KEYS, "run": _RUN_KEYS, "bot": _BOT_KEYS}
_PER_SEAT = ("scores", "placements", "moons", "faults", "forfeited", "decisions", "think_ms")


_STATE_KEYS: dict[str, tuple[bool, Any, str]] = {
    "name": (True, lambda v: isinstance(v, str) and v, "the tournament's name"),
    "config_hash": (True, lambda v: isinstance(v, str) and v, "the config's hash (hex digits)"),
    "config": (
        True,
        lambda v: (
            isinstance(v, dict)
            and all(isinstance(v.get(k, {}), dict) for k in ("bots", "rules", "schedule"))
        ),
        "the canonical config (an object whose bots, rules and schedule are objects)",
    ),
    "seed": (True, _is_int, "an integer"),
    "participants": (False, lambda v: v is None or _strs(v), "a list of bot names"),
    "excluded": (
        False,
        lambda v: isinstance(v, dict) and all(isinstance(r, str) for r in v.values()),
        "an object of bot name: reason",
    ),
    "games_scheduled": (False, lambda v: v is None or (_is_int(v) and v >= 0), "a number"),
    "ranking": (False, lambda v: isinstance(v, str), "a ranking key"),
    "created_at": (False, lambda v: isinstance(v, str), "a time"),
    "referee_version": (False, lambda v: isinstance(v, str), "a version"),
    "key_id": (False, lambda v: v is None or isinstance(v, str), "the key's id (hex digits)"),
}


def state_problem(data: Mapping[str, Any]) -> str | None:
    """What is wrong with the fields of ``tournament.json`` ("key: expected ..."), or None."""
    return _keys_problem(data, _STATE_KEYS)


def _keys_problem(data: Mapping[str, Any], keys: dict[str, tuple[bool, Any, str]]) -> str | None:
    for key, (required, check, expected) in keys.items():
        if key not in data:
            if required:
                return f"{key}: missing; expected {expected}"
            continue
        if not check(data[key]):
            return f"{key}: expected {expected}, got {_shown(data[key])}"
    return None


def entry_problem(entry: Mapping[str, Any]) -> str | None:
    """What is wrong with a journal entry of a known type ("key: expected ..."), or None.

    Types and keys this referee does not know are left alone (docs/config.md).
    """
    problem = _keys_problem(entry, _ENTRY_KEYS.get(entry["type"], {}))
    if problem or entry["type"] != "game":
        return problem
    seats = len(entry["bots"])
    for key in _PER_SEAT:
        if len(entry[key]) != seats:
            return f"{key}: {len(entry[key])} values for {seats} seats"
    for number, hand in enumerate(entry["hand_scores"], start=1):
        if len(hand) != seats:
            return f"hand_scores: hand {number} has {len(hand)} values for {seats} seats"
    if any(not 0 <= w < seats for w in entry["winners"]):
        return f"winners: expected seats 0 to {seats - 1}, got {_shown(entry['winners'])}"
    if any(not 1 <= p <= seats for p in entry["placements"]):
        return f"placements: expected 1 to {seats}, got {_shown(entry['placements'])}"
    return None


def _json_error(error: Exception) -> str:
    if isinstance(error, json.JSONDecodeError):
        return str(error)
    if isinstance(error, RecursionError):
        return "nested too deeply"
    return "a number too long"


def _shown(value: Any) -> str:
    text = json.dumps(value) if _jsonable(value) else repr(value)
    return text if len(text) <= 80 else f"{text[:60]}... ({len(text)} characters)"


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (ValueError, TypeError):
        return False
    return True


class Journal:
    """Appends entries to ``journal.jsonl``, each sealed, written and fsynced before it counts.

    Each line ends with its ``mac`` (:func:`referee.seal.seal_line`), chained
    to the line before, so the journal can be authenticated with the key.
    """

    def __init__(self, path: pathlib.Path, key: bytes) -> None:
        self.path = path
        self._key = key
        self._lock = threading.Lock()
        _repair_tail(path)
        self._previous = _last_mac(path)
        new = not path.exists() or path.stat().st_size == 0
        self._file: IO[bytes] | None = open(path, "ab")  # noqa: SIM115
        if new:
            self.append({"type": "journal", "format": JOURNAL_FORMAT, "version": JOURNAL_VERSION})

    def append(self, entry: Mapping[str, Any]) -> None:
        if "mac" in entry:
            raise ValueError("a journal entry gets its mac from the journal")
        body = json.dumps(entry, separators=(",", ":"), ensure_ascii=False).encode()
        with self._lock:
            if self._file is None:
                raise ValueError(f"{self.path}: journal closed")
            line = seal.seal_line(self._key, self._previous, body)
            self._file.write(line)
            self._file.flush()
            os.fsync(self._file.fileno())
            self._previous = seal.line_mac(line) or ""

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None


def _last_mac(path: pathlib.Path) -> str:
    """The MAC of a journal's last line, which the next line chains to ("" when empty)."""
    last = b""
    if path.exists():
        with open(path, "rb") as handle:
            for line in handle:
                if line.strip():
                    last = line
    if not last:
        return ""
    mac = seal.line_mac(last)
    if mac is None:
        raise JournalError(
            f"{path}: the last line has no MAC: not a journal this referee can continue"
        )
    return mac


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


def journal_entry(
    record: GameRecord, game: ScheduledGame, *, run: int, layout: Layout, log_mac: str
) -> dict[str, Any]:
    """The journal line of a finished game: its record, its place in the schedule, its log's MAC."""
    entry: dict[str, Any] = {"type": "game", **record.to_dict()}
    entry.update(game.meta())
    entry["log_path"] = layout.relative(pathlib.Path(record.log_path))
    entry["log_mac"] = log_mac
    entry["run"] = run
    return entry


def authenticated_journal(
    layout: Layout, state: TournamentState, key: bytes
) -> Iterator[dict[str, Any]]:
    """The journal's entries, streamed, each authenticated with the folder's ``key``.

    Checked: every line's MAC (chained, so lines removed, inserted or moved
    are caught too); every game entry's ``log_mac`` against its log's bytes
    (a missing log is left to the caller); and ``tournament.json``'s facts
    against those sealed in every ``run`` entry. The first failure raises
    :class:`JournalError` naming the file and line.
    """
    if state.key_id is not None and state.key_id != seal.key_id(key):
        raise JournalError(
            f"{layout.state}: the tournament's key id is {state.key_id}, but this key's is "
            f"{seal.key_id(key)}: not this tournament's key"
        )
    facts = state.sealed_facts()
    journal = layout.journal
    for number, entry in _journal_lines(journal, key):
        if entry["type"] == "run":
            for name, value in facts.items():
                if name in entry and entry[name] != value:
                    raise JournalError(
                        f"{layout.state}: its {name} disagrees with the run entry sealed in "
                        f"{journal}:{number}"
                    )
        elif entry["type"] == "game":
            log_path = layout.log_of(entry)
            if log_path.is_file():
                data = log_path.read_bytes()
                mac = entry.get("log_mac")
                if not isinstance(mac, str) or mac != seal.log_mac(key, data):
                    raise JournalError(
                        f"{log_path}: the log does not match the MAC journaled for it "
                        f"({journal}:{number}): it was changed after the game, or comes from "
                        "another tournament"
                    )
        yield entry


def open_journal(
    root: str | os.PathLike[str], *, key: bytes | None = None, authenticate: bool = True
) -> tuple[Layout, TournamentState, Iterator[dict[str, Any]]]:
    """A folder's layout, state and journal entries, authenticated as :func:`load_standings` says."""
    layout = Layout(pathlib.Path(root))
    if not layout.state.exists():
        raise TournamentError(f"{root}: not a tournament output folder (no {layout.state.name})")
    state = TournamentState.load(layout.state)
    entries: Iterator[dict[str, Any]] = read_journal(layout.journal)
    if authenticate:
        if key is None:
            try:
                key = seal.folder_key(layout.root)
            except seal.SealError as error:
                raise TournamentError(str(error)) from None
        if key is None:
            raise TournamentError(
                f"{layout.root / seal.KEY_NAME}: no key file, so the results cannot be "
                "authenticated (a folder published without its key)"
            )
        entries = authenticated_journal(layout, state, key)
    return layout, state, entries


def load_standings(
    root: str | os.PathLike[str],
    *,
    ranking: str | None = None,
    key: bytes | None = None,
    authenticate: bool = True,
) -> Standings:
    """Standings recomputed from an output folder's state and journal.

    The journal is authenticated first (:func:`authenticated_journal`) with
    ``key``, by default the folder's key file; any failure raises
    :class:`JournalError` naming the file and line. A folder without its key
    (one published, say) cannot be authenticated: that raises
    :class:`TournamentError` unless ``authenticate`` is false, which trusts
    the journal as it is.
    """
    _, state, entries = open_journal(root, key=key, authenticate=authenticate)
    return compute_standings(
        entries,
        bots=state.participants or list(state.config.get("bots", {})),
        excluded=state.excluded,
        ranking=ranking or state.ranking,
        name=state.name,
        games_scheduled=state.games_scheduled,
        unsandboxed=[
            name
            for name, bot in state.config.get("bots", {}).items()
            if isinstance(bot, dict) and bot.get("sandbox") == "none"
        ],
    )


def game_entries(root: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The game entries of a folder's journal, for showing (not authenticated: see verify).

    Raises :class:`TournamentError` when ``root`` holds no journal, and
    :class:`JournalError` (naming the line) for a line that is not an entry.
    """
    layout = Layout(pathlib.Path(root))
    if not layout.journal.is_file():
        raise TournamentError(
            f"{layout.root} is neither a game log nor a tournament folder "
            f"(no {layout.journal.name})"
        )
    return [
        e
        for e in read_journal(layout.journal)
        if e.get("type") == "game" and isinstance(e.get("game_id"), str)
    ]


def game_log_path(root: str | os.PathLike[str], game_id: str) -> pathlib.Path:
    """The log of game ``game_id`` in a tournament folder; the error says which games exist."""
    layout = Layout(pathlib.Path(root))
    path = layout.game_log(game_id)
    if path.is_file():
        return path
    entries = game_entries(layout.root)
    for entry in entries:
        if entry["game_id"] == game_id and isinstance(entry.get("log_path"), str):
            candidate = (layout.root / entry["log_path"]).resolve()
            if layout.root.resolve() in candidate.parents and candidate.is_file():
                return candidate
    logs = dict(layout.game_logs())  # a game not journaled (yet): in flight, or cut short
    if game_id in logs:
        return logs[game_id]
    known = {e["game_id"] for e in entries} | logs.keys()
    close = difflib.get_close_matches(game_id, sorted(known), n=3)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    raise TournamentError(f"no game {game_id!r} in {layout.root}{hint}")
