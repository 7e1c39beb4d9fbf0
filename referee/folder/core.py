"""The output folder of a tournament: its layout, its state and its journal (the one owner).

Every writer and reader of a tournament folder goes through this module: the
runner, ``referee standings``, ``referee replay`` and ``referee verify``. It
owns the file names (:class:`Layout`), ``tournament.json``
(:class:`TournamentState`), and ``journal.jsonl``: appended and fsynced
entry by entry, each entry sealed with the folder key and chained to the one
before (:class:`Journal`), closed with a sealed ``end`` entry when the
tournament is finished (recorded in ``tournament.json``, itself sealed, so
that a journal cut short at its end is caught: :class:`JournalEnd`), read
back and authenticated (:func:`read_journal`, :func:`authenticated_journal`),
and turned into standings (:func:`load_standings`). The formats are
documented in docs/config.md.
"""

from __future__ import annotations

import dataclasses
import difflib
import hmac
import json
import logging
import math
import os
import pathlib
import threading
from collections.abc import Iterator, Mapping
from typing import IO, Any

from referee import __version__, durable
from referee.folder import seal
from referee.match.runner import GameRecord
from referee.stats.standings import RANKING_KEYS, Standings, compute_standings
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
    "JournalEnd",
    "JournalError",
    "Layout",
    "TournamentError",
    "TournamentState",
    "authenticated_journal",
    "check_journal_end",
    "check_journal_line",
    "end_problems",
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
#: 3: the state is sealed (``state_mac``) and records the journal's end (``finished``).
STATE_VERSION = 3
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
        (:class:`~referee.match.gamelog.GameLogWriter`). Without ``index``:
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
    #: The fingerprint of the folder's key (:func:`referee.folder.seal.key_id`), never the key;
    #: None for a folder of an older referee, made without a key.
    key_id: str | None = None
    #: The journal's last ``end`` entry once the tournament is finished: ``games`` (game
    #: entries before it), ``line`` (its line number) and ``end_mac`` (its MAC). The
    #: journal must still hold that line (:func:`end_problems`); None while unfinished.
    finished: dict[str, Any] | None = None
    #: The MAC of the other members (:meth:`sealed_body`, :func:`referee.folder.seal.state_mac`),
    #: set by :meth:`save` with the key; None in a folder of an older referee.
    state_mac: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"format": STATE_FORMAT, "version": STATE_VERSION, **dataclasses.asdict(self)}

    def sealed_body(self) -> bytes:
        """What ``state_mac`` covers: :meth:`to_dict` less ``state_mac``, as canonical JSON."""
        data = {k: v for k, v in self.to_dict().items() if k != "state_mac"}
        text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return text.encode("utf-8")

    def seal_problem(self, key: bytes) -> str | None:
        """Why ``state_mac`` does not authenticate this state with ``key`` (None when it does)."""
        if self.state_mac is None:
            return "not sealed (no state_mac)"
        if not hmac.compare_digest(self.state_mac, seal.state_mac(key, self.sealed_body())):
            return (
                "its seal (state_mac) does not match: it was changed after the referee wrote "
                "it, or comes from another tournament"
            )
        return None

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
        if data.get("version") not in (1, 2, STATE_VERSION):
            raise TournamentError(
                f"{path}: state version {data.get('version')!r}; this referee reads {STATE_VERSION}"
            )
        problem = state_problem(data)
        if problem:
            raise TournamentError(f"{path}: {problem}")
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TournamentState:
        """The state of checked data (:func:`state_problem`); unknown keys are left out."""
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in fields})

    def save(self, path: pathlib.Path, *, key: bytes | None = None) -> None:
        """Write ``tournament.json`` atomically, sealed with ``key`` (the runner always gives it)."""
        self.state_mac = None
        if key is not None:
            self.state_mac = seal.state_mac(key, self.sealed_body())
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

    With ``key``, each line's MAC is checked first (:func:`referee.folder.seal.check_line`);
    a line that fails raises :class:`JournalError` naming it.
    """
    for _, entry, _ in _journal_lines(pathlib.Path(path), key):
        yield entry


def _journal_lines(
    path: pathlib.Path, key: bytes | None
) -> Iterator[tuple[int, dict[str, Any], str | None]]:
    """``(line number, entry, its MAC)`` of each journal line (see :func:`read_journal`)."""
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
            yield number, entry, previous if key is not None else seal.line_mac(line)


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
    "sealed_end": (False, lambda v: isinstance(v, bool), "true or false"),
}
_BOT_KEYS: dict[str, tuple[bool, Any, str]] = {
    "bot": (True, lambda v: isinstance(v, str), "a bot name"),
    "status": (False, lambda v: isinstance(v, str), "a status"),
    "run": (False, lambda v: _is_int(v) and v >= 1, "a run number (1, 2, ...)"),
    "reason": (False, lambda v: v is None or isinstance(v, str), "a string"),
    "table": (False, lambda v: v is None or _is_int(v), "a table number"),
}


def _is_mac(value: Any) -> bool:
    return (
        isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
    )


_END_KEYS: dict[str, tuple[bool, Any, str]] = {
    "run": (True, lambda v: _is_int(v) and v >= 1, "a run number (1, 2, ...)"),
    "games": (True, lambda v: _is_int(v) and v >= 0, "the number of game entries before it"),
    "games_scheduled": (False, lambda v: v is None or (_is_int(v) and v >= 0), "a number"),
    "last_game": (False, lambda v: v is None or isinstance(v, str), "a game id"),
    "last_game_mac": (False, lambda v: v is None or _is_mac(v), "a MAC (64 hex digits)"),
    "finished_at": (False, lambda v: isinstance(v, str), "a time"),
}
_JOURNAL_KEYS: dict[str, tuple[bool, Any, str]] = {
    "sealed_end": (False, lambda v: isinstance(v, bool), "true or false"),
}
_ENTRY_KEYS = {
    "journal": _JOURNAL_KEYS,
    "game": _GAME_KEYS,
    "run": _RUN_KEYS,
    "bot": _BOT_KEYS,
    "end": _END_KEYS,
}
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
    "ranking": (False, lambda v: v in RANKING_KEYS, f"a ranking key ({', '.join(RANKING_KEYS)})"),
    "created_at": (False, lambda v: isinstance(v, str), "a time"),
    "referee_version": (False, lambda v: isinstance(v, str), "a version"),
    "key_id": (False, lambda v: v is None or isinstance(v, str), "the key's id (hex digits)"),
    "finished": (
        False,
        lambda v: (
            v is None
            or (
                isinstance(v, dict)
                and _is_int(v.get("games"))
                and v["games"] >= 0
                and _is_int(v.get("line"))
                and v["line"] >= 1
                and _is_mac(v.get("end_mac"))
            )
        ),
        "null, or the journal's end: {games, line, end_mac}",
    ),
    "state_mac": (False, lambda v: v is None or _is_mac(v), "a MAC (64 hex digits)"),
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
            header: dict[str, Any] = {
                "type": "journal",
                "format": JOURNAL_FORMAT,
                "version": JOURNAL_VERSION,
            }
            if promise_end:
                header["sealed_end"] = True
            self.append(header)

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

    def append(self, entry: Mapping[str, Any]) -> str:
        """Seal, write and fsync one entry; returns its line's MAC."""
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
            self.lines += 1
            self._count(entry, self._previous)
            return self._previous

    def append_end(
        self, *, run: int, games_scheduled: int | None, finished_at: str
    ) -> dict[str, Any]:
        """Close the journal of a finished tournament with a sealed ``end`` entry.

        It counts the game entries before it and names the last one (its id
        and its line's MAC). Returns what ``tournament.json`` records of it
        (:attr:`TournamentState.finished`): ``games``, ``line``, ``end_mac``.
        """
        with self._lock:
            last_id, last_mac = self._last_game or (None, None)
            games = self.games
            mac = self.append(
                {
                    "type": "end",
                    "run": run,
                    "games": games,
                    "games_scheduled": games_scheduled,
                    "last_game": last_id,
                    "last_game_mac": last_mac,
                    "finished_at": finished_at,
                }
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


class JournalEnd:
    """What a journal says of its own end, gathered line by line as it is read.

    A journal made by this referee promises, in its first line and every
    ``run`` line (``sealed_end``, sealed like every line), that it is closed
    with an ``end`` entry once the tournament is finished, and that
    ``tournament.json`` is sealed (``state_mac``) and records that end
    (``finished``). Removing lines from the end of the journal keeps the
    chain of MACs whole, so that alone cannot tell a cut journal from an
    unfinished one: the end that ``tournament.json`` records can
    (:func:`end_problems`).
    """

    def __init__(self) -> None:
        #: A line (authenticated, when read with the key) promised the sealed end.
        self.promised = False
        self.promised_at = 0
        #: Game entries, the number of the last line read, and the type of the last entry.
        self.games = 0
        self.last_line = 0
        self.last_type = ""
        #: The MAC of each ``end`` line: (line number, its ``games``).
        self.ends: dict[str, tuple[int, int]] = {}
        self.problems: list[tuple[int, str]] = []

    def add(self, number: int, entry: Mapping[str, Any], mac: str | None) -> None:
        """One line read (``mac``: its MAC, None when it has none)."""
        kind = entry.get("type")
        self.last_line, self.last_type = number, str(kind)
        if entry.get("sealed_end") is True and kind in ("journal", "run") and not self.promised:
            self.promised, self.promised_at = True, number
        if kind == "game":
            self.games += 1
        elif kind == "end":
            if entry.get("games") != self.games:
                self.problems.append(
                    (
                        number,
                        f"the end entry counts {entry.get('games')} games, but "
                        f"{self.games} come before it",
                    )
                )
            if mac is not None:
                self.ends[mac] = (number, self.games)


def end_problems(
    end: JournalEnd, state: TournamentState | None, layout: Layout, key: bytes | None
) -> list[tuple[pathlib.Path, int, str]]:
    """``(file, line, problem)`` for a journal cut short at its end, or a state not sealed.

    ``end`` has read the whole journal. Caught: the end entry that
    ``tournament.json`` records as the tournament's finish is not in the
    journal (its last lines, the end entry among them, were removed, or the
    journal was put back to an older copy); an end entry whose count of games
    is wrong; and, with the key, a ``tournament.json`` that the journal says
    is sealed but is missing, unsealed or changed (so that its ``finished``
    cannot be taken out). Not caught: a folder put back as a whole to the
    files it held earlier (its journal, and its ``tournament.json`` copied at
    that time), since those files were once the referee's own.
    """
    problems = [(layout.journal, line, text) for line, text in end.problems]
    if state is None:
        if end.promised:
            problems.append(
                (
                    layout.state,
                    0,
                    f"missing, though the journal ({layout.journal}:"
                    f"{end.promised_at}) says the referee keeps it: it was removed",
                )
            )
        return problems
    if key is not None and (end.promised or state.state_mac is not None):
        problem = state.seal_problem(key)
        if problem:
            where = (
                f" ({layout.journal}:{end.promised_at} says it is sealed)" if end.promised else ""
            )
            problems.append((layout.state, 0, f"{problem}{where}"))
            return problems  # its finished cannot be trusted either way
    finished = state.finished
    if finished is not None and finished["end_mac"] not in end.ends:
        recorded = (
            f"{layout.state.name} records that the tournament finished with "
            f"{finished['games']} games (its end entry at line {finished['line']})"
        )
        if end.last_line < finished["line"]:
            problem = (
                f"cut short: {recorded}, but the journal ends at line {end.last_line} with "
                f"{end.games} games: its last lines were removed"
            )
        else:
            problem = (
                f"{recorded}, but the journal holds no such line: it was rewritten, or comes "
                "from another tournament"
            )
        problems.append((layout.journal, 0, problem))
    return problems


def authenticated_journal(
    layout: Layout, state: TournamentState, key: bytes
) -> Iterator[dict[str, Any]]:
    """The journal's entries, streamed, each authenticated with the folder's ``key``.

    Checked: every line's MAC (chained, so lines removed, inserted or moved
    are caught too); every game entry's ``log_mac`` against its log's bytes
    (a missing log is left to the caller); ``tournament.json``'s facts
    against those sealed in every ``run`` entry; and, once the last line is
    read, the journal's end (:func:`end_problems`: not cut short, and
    ``tournament.json`` sealed). The first failure raises
    :class:`JournalError` naming the file and line.
    """
    if state.key_id is not None and state.key_id != seal.key_id(key):
        raise JournalError(
            f"{layout.state}: the tournament's key id is {state.key_id}, but this key's is "
            f"{seal.key_id(key)}: not this tournament's key"
        )
    facts = state.sealed_facts()
    journal = layout.journal
    end = JournalEnd()
    for number, entry, mac in _journal_lines(journal, key):
        end.add(number, entry, mac)
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
    _raise_first(end_problems(end, state, layout, key))


def _unauthenticated_journal(layout: Layout, state: TournamentState) -> Iterator[dict[str, Any]]:
    """The journal's entries as they are (no key), and still refused when cut short at its end."""
    end = JournalEnd()
    for number, entry, mac in _journal_lines(layout.journal, None):
        end.add(number, entry, mac)
        yield entry
    _raise_first(end_problems(end, state, layout, None))


def check_journal_end(layout: Layout, state: TournamentState, key: bytes) -> None:
    """Read the whole journal with ``key`` and refuse one cut short (:func:`end_problems`).

    The runner calls it before it resumes a folder, so that a cut journal's
    missing games are not played again, and a changed ``tournament.json`` is
    not sealed anew. Raises :class:`JournalError` naming the file and line.
    """
    end = JournalEnd()
    for number, entry, mac in _journal_lines(layout.journal, key):
        end.add(number, entry, mac)
    problems = end_problems(end, state, layout, key)
    if problems:
        path, line, text = problems[0]
        where = f"{path}:{line}" if line else str(path)
        raise JournalError(
            f"{where}: {text}; the tournament is not resumed (its results are not the "
            "referee's as written): put the files back from a copy, or use --fresh to move the "
            "folder aside and start over"
        )


def _raise_first(problems: list[tuple[pathlib.Path, int, str]]) -> None:
    if problems:
        path, line, text = problems[0]
        raise JournalError(f"{path}:{line}: {text}" if line else f"{path}: {text}")


def open_journal(
    root: str | os.PathLike[str], *, key: bytes | None = None, authenticate: bool = True
) -> tuple[Layout, TournamentState, Iterator[dict[str, Any]]]:
    """A folder's layout, state and journal entries, authenticated as :func:`load_standings` says."""
    layout = Layout(pathlib.Path(root))
    if not layout.state.exists():
        raise TournamentError(f"{root}: not a tournament output folder (no {layout.state.name})")
    state = TournamentState.load(layout.state)
    entries: Iterator[dict[str, Any]] = _unauthenticated_journal(layout, state)
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
