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
import os
import pathlib
import threading
from collections.abc import Iterator, Mapping
from typing import IO, Any

from referee import __version__, seal
from referee.match import GameRecord
from referee.standings import Standings, compute_standings
from referee.tournament.schedule import ScheduledGame

__all__ = [
    "JOURNAL_FORMAT",
    "JOURNAL_VERSION",
    "STATE_FORMAT",
    "STATE_VERSION",
    "Journal",
    "JournalError",
    "Layout",
    "TournamentError",
    "TournamentState",
    "authenticated_journal",
    "game_entries",
    "game_log_path",
    "journal_entry",
    "load_standings",
    "read_journal",
    "write_atomic",
]

log = logging.getLogger(__name__)

STATE_FORMAT = "hearts-referee/tournament"
#: 2: the folder has a key (``key_id``); a version 1 folder is read but not resumed.
STATE_VERSION = 2
JOURNAL_FORMAT = "hearts-referee/journal"
JOURNAL_VERSION = 1


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

    def game_log(self, game_id: str) -> pathlib.Path:
        return self.games / f"{game_id}.jsonl"

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
        except (OSError, ValueError) as error:
            raise TournamentError(f"{path}: cannot read the tournament state: {error}") from None
        if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
            raise TournamentError(f"{path}: not a tournament state file ({STATE_FORMAT})")
        if data.get("version") not in (1, STATE_VERSION):
            raise TournamentError(
                f"{path}: state version {data.get('version')!r}; this referee reads {STATE_VERSION}"
            )
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in fields})

    def save(self, path: pathlib.Path) -> None:
        write_atomic(path, json.dumps(self.to_dict(), indent=2) + "\n")


def write_atomic(path: pathlib.Path, text: str) -> None:
    """Write a whole file so that a crash leaves the old or the new one, never half."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)


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
            if key is not None:
                try:
                    previous = seal.check_line(key, previous, line)
                except seal.SealError as error:
                    raise JournalError(f"{path}:{number}: {error}") from None
            try:
                entry = json.loads(line)
            except ValueError as error:
                raise JournalError(f"{path}:{number}: not JSON: {error}") from None
            if not isinstance(entry, dict) or "type" not in entry:
                raise JournalError(f"{path}:{number}: not a journal entry (an object with a type)")
            yield number, entry


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
            log_path = layout.root / str(
                entry.get("log_path") or f"games/{entry.get('game_id')}.jsonl"
            )
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
    known = {e["game_id"] for e in entries}
    if layout.games.is_dir():
        known |= {p.stem for p in layout.games.glob("*.jsonl")}
    close = difflib.get_close_matches(game_id, sorted(known), n=3)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    raise TournamentError(f"no game {game_id!r} in {layout.root}{hint}")
