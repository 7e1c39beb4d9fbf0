"""The tournament runner: build, schedule, play concurrently, journal, resume, report.

A run goes:

1. open the output folder: a new one, or the same tournament to resume (the
   config's :meth:`~referee.config.TournamentConfig.digest` must match the
   one saved in ``tournament.json``; ``fresh`` moves an old folder aside);
2. build the bot folders that have a build step, a few at a time; a bot whose
   build fails on the first run is left out, with the reason kept for the
   standings;
3. make the schedule from the participants and the seed (the same on every
   run of the same folder) and drop the games the journal already has;
4. start the bots (shared by all games, or per table) and play the remaining
   games from a pool of ``concurrency`` threads, each with
   :func:`referee.match.play_game`;
5. append each finished game's record to ``journal.jsonl`` (written and
   fsynced after the game's log is closed and synced), so a kill at any
   moment loses at most the games in flight, which the next run replays;
6. stop every bot and write the standings.

Ctrl-C or SIGTERM stops scheduling, gives the games in flight a moment to
finish (those that do are journaled), stops the bots, and returns a result
marked ``interrupted``; a second signal stops at once.

The output folder is described in docs/config.md.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import dataclasses
import datetime
import json
import logging
import os
import pathlib
import secrets
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import IO, Any

from referee import __version__, bwrap, lifeline, procfs, seal
from referee import sandbox as supervisor
from referee.bots import BotPool, BotSpec, BotSupply, DeadPlayer, build_bot
from referee.config import TournamentConfig
from referee.match import GameRecord, GameSpec, play_game
from referee.players import Player
from referee.schedule import Schedule, ScheduledGame, make_schedule
from referee.standings import Standings, compute_standings, render
from referee.verify import verify_entry

__all__ = [
    "JOURNAL_FORMAT",
    "JOURNAL_VERSION",
    "STATE_FORMAT",
    "STATE_VERSION",
    "Journal",
    "JournalError",
    "Layout",
    "Progress",
    "RunResult",
    "Tournament",
    "TournamentError",
    "TournamentState",
    "authenticated_journal",
    "load_standings",
    "read_journal",
]

log = logging.getLogger(__name__)

STATE_FORMAT = "hearts-referee/tournament"
#: 2: the folder has a key (``key_id``); a version 1 folder is read but not resumed.
STATE_VERSION = 2
JOURNAL_FORMAT = "hearts-referee/journal"
JOURNAL_VERSION = 1
#: Seconds the games in flight get to finish after Ctrl-C before the bots are stopped.
STOP_GRACE_S = 2.0

Echo = Callable[[str], None]


class TournamentError(Exception):
    """A tournament that cannot run or be read; the message says why and what to do."""


class JournalError(TournamentError):
    """A journal line that cannot be read (not a torn last line)."""


# The output folder --------------------------------------------------------------------------


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
        _write_atomic(path, json.dumps(self.to_dict(), indent=2) + "\n")


def _write_atomic(path: pathlib.Path, text: str) -> None:
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


# Progress ------------------------------------------------------------------------------------


class Progress:
    """Games done of total, rate, ETA, faults and leaders, on stderr.

    On a terminal the line is redrawn in place; otherwise a plain line is
    printed every ``interval_s`` seconds or tenth of the games.
    """

    def __init__(
        self,
        *,
        stream: IO[str] | None = None,
        enabled: bool = True,
        tty: bool | None = None,
        interval_s: float = 10.0,
    ) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = self.stream.isatty() if tty is None else tty
        self.interval_s = interval_s if not self.tty else 0.5
        self.total = 0
        self.done = 0
        self.played = 0
        self.faults = 0
        self.errors = 0
        self._points: collections.Counter[str] = collections.Counter()
        self._hands: collections.Counter[str] = collections.Counter()
        self._started = time.monotonic()
        self._last_shown = 0.0
        self._last_done = -1
        self._drawn = False

    def start(self, total: int) -> None:
        self.total = total
        self._started = time.monotonic()

    def add(self, entry: Mapping[str, Any], *, this_run: bool = True) -> None:
        """Count a finished game (``this_run=False`` for those of earlier runs)."""
        self.done += 1
        self.played += this_run
        for seat, bot in enumerate(entry["bots"]):
            self._points[bot] += sum(hand[seat] for hand in entry["hand_scores"])
            self._hands[bot] += len(entry["hand_scores"])
            self.faults += sum(entry["faults"][seat].values())

    def leaders(self, count: int = 3) -> list[tuple[str, float]]:
        """The bots with the fewest points per hand so far."""
        rows = [(bot, self._points[bot] / n) for bot, n in self._hands.items() if n]
        return sorted(rows, key=lambda r: (r[1], r[0]))[:count]

    def line(self) -> str:
        elapsed = time.monotonic() - self._started
        rate = self.played / elapsed * 60 if elapsed > 0 and self.played else 0.0
        left = self.total - self.done
        eta = _duration(left / rate * 60) if rate else "?"
        percent = self.done / self.total * 100 if self.total else 100.0
        leaders = ", ".join(f"{bot} {points:.2f}" for bot, points in self.leaders())
        text = (
            f"games {self.done}/{self.total} ({percent:.0f}%) | {rate:.1f}/min | ETA {eta} | "
            f"faults {self.faults}"
        )
        if self.errors:
            text += f" | referee errors {self.errors}"
        return text + (f" | pts/hand: {leaders}" if leaders else "")

    def refresh(self, *, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        step = max(1, self.total // 10)
        due = now - self._last_shown >= self.interval_s or (
            not self.tty and self.done // step != self._last_done // step
        )
        if not (force or due) or (not self.tty and self.done == self._last_done and not force):
            return
        self._last_shown, self._last_done = now, self.done
        if self.tty:
            self.stream.write("\r" + self.line() + "\x1b[K")
            self._drawn = True
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def finish(self) -> None:
        """The last line (and a newline after an in-place line)."""
        if not self.enabled:
            return
        if self.tty or self.done != self._last_done:
            self.refresh(force=True)
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


# Bots ------------------------------------------------------------------------------------------

BotEvent = Callable[..., None]


class _SharedBots:
    """One process (or connection, or built-in) per bot, shared by every game."""

    def __init__(self, pool: BotPool) -> None:
        self.pool = pool
        self._players: dict[str, Player] = {}

    def start(self, specs: Sequence[BotSpec], broken: Mapping[str, str], on_bot: BotEvent) -> None:
        """Start ``specs`` at once; bots in ``broken`` get a stand-in straight away."""
        for spec in specs:
            if spec.name in broken:
                self._players[spec.name] = DeadPlayer(spec.name, broken[spec.name])
                on_bot(spec.name, "build_failed", broken[spec.name])
        live = [s for s in specs if s.name not in broken]
        self._players.update(self.pool.start_all(live))
        failures = self.pool.failures
        for spec in live:
            if spec.name in failures:
                on_bot(spec.name, "start_failed", failures[spec.name])
            else:
                on_bot(spec.name, "started", info=self._players[spec.name].info.to_dict())

    def players(self, game: ScheduledGame) -> list[Player]:
        return [self._players[b] for b in game.bots]

    def release(self, game: ScheduledGame) -> None:
        return None

    def close(self) -> None:
        self.pool.close()


class _SupplyBots:
    """Bots for games played in threads, from a :class:`BotSupply` (fresh processes per game)."""

    def __init__(self, supply: BotSupply) -> None:
        self.supply = supply

    def players(self, game: ScheduledGame) -> list[Player]:
        return self.supply.players(game.game_id, game.table, game.bots)

    def release(self, game: ScheduledGame) -> None:
        self.supply.release(game.game_id)

    def close(self) -> None:
        self.supply.close()


class _TableEntry:
    def __init__(self, games_left: int) -> None:
        self.lock = threading.Lock()
        self.pool: BotPool | None = None
        self.players: dict[str, Player] | None = None
        self.games_left = games_left


class _TableBots:
    """A process per bot per table: started with the table's first game, stopped after its last."""

    def __init__(
        self,
        make_pool: Callable[[pathlib.Path], BotPool],
        specs: Mapping[str, BotSpec],
        broken: Mapping[str, str],
        todo: Sequence[ScheduledGame],
        log_dir: pathlib.Path,
        on_bot: BotEvent,
    ) -> None:
        self.make_pool = make_pool
        self.specs = specs
        self.broken = broken
        self.log_dir = log_dir
        self.on_bot = on_bot
        self._lock = threading.Lock()
        self._tables = {
            t: _TableEntry(n) for t, n in collections.Counter(g.table for g in todo).items()
        }
        self._closed = False

    def players(self, game: ScheduledGame) -> list[Player]:
        entry = self._tables[game.table]
        with entry.lock:
            if entry.players is None:
                entry.players = self._start_table(game.table, entry, sorted(set(game.bots)))
        return [entry.players[b] for b in game.bots]

    def _start_table(self, table: int, entry: _TableEntry, names: list[str]) -> dict[str, Player]:
        with self._lock:
            if self._closed:
                raise _Stopped()
            entry.pool = self.make_pool(self.log_dir / f"t{table}")
        players: dict[str, Player] = {}
        for name in names:
            if name in self.broken:
                players[name] = DeadPlayer(name, self.broken[name])
                self.on_bot(name, "build_failed", self.broken[name], table=table)
        live = [self.specs[n] for n in names if n not in self.broken]
        players.update(entry.pool.start_all(live))
        failures = entry.pool.failures
        for spec in live:
            if spec.name in failures:
                self.on_bot(spec.name, "start_failed", failures[spec.name], table=table)
            else:
                self.on_bot(spec.name, "started", table=table)
        return players

    def release(self, game: ScheduledGame) -> None:
        entry = self._tables[game.table]
        with entry.lock:
            entry.games_left -= 1
            if entry.games_left == 0 and entry.pool is not None:
                entry.pool.close()
                entry.pool = None

    def close(self) -> None:
        with self._lock:
            self._closed = True
        for entry in self._tables.values():
            pool = entry.pool
            if pool is not None:
                pool.close()


# Worker processes (bot_processes: per_worker) ---------------------------------------------------

#: The bots of this worker process: set up by :func:`_worker_init`.
_WORKER: dict[str, Any] = {}


@dataclasses.dataclass(frozen=True)
class _WorkerSettings:
    """What a worker process needs to start its bots (plain, picklable data)."""

    specs: dict[str, BotSpec]
    broken: dict[str, str]
    log_dir: str
    time_control: Any
    fault_policy: Any
    limits: Any
    sandbox: str
    hidden: tuple[str, ...]
    lifetime: str
    #: The referee's pid: the worker dies with it.
    parent: int


def _die_with_parent(parent: int) -> None:
    """End this process the moment ``parent`` ends, however it ends (see :mod:`referee.lifeline`).

    A worker of :func:`referee.lifeline.spawn_context` has already done this
    before its first import; this covers a worker spawned otherwise.
    """
    lifeline.die_with_parent(parent)


def _worker_init(settings: _WorkerSettings, counter: Any) -> None:
    """Set up a game worker process: its own bots, started before its first game.

    The worker ignores Ctrl-C (the main process decides when to stop) and dies
    with the main process, even when that is killed with SIGKILL; its bots'
    supervisors then take the bots down.
    """
    import multiprocessing.util

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(settings.parent)
    with counter.get_lock():
        counter.value += 1
        index = counter.value
    pool = BotPool(
        log_dir=pathlib.Path(settings.log_dir) / f"w{index}",
        time_control=settings.time_control,
        fault_policy=settings.fault_policy,
        limits=settings.limits,
        sandbox=settings.sandbox,
        hidden=settings.hidden,
    )
    events: list[dict[str, Any]] = []
    supply = BotSupply(
        pool,
        settings.specs,
        lifetime=settings.lifetime,
        broken=settings.broken,
        on_event=lambda event: events.append({**event, "worker": index}),
    )
    _WORKER.update(supply=supply, events=events, index=index)
    multiprocessing.util.Finalize(None, supply.close, exitpriority=10)
    supply.warm_up(settings.specs)  # start every bot now, not during the first games


def _worker_events() -> list[dict[str, Any]]:
    """The bot events of this worker not yet reported (and forget them)."""
    events = list(_WORKER["events"])
    del _WORKER["events"][: len(events)]
    return events


def _worker_ready() -> list[dict[str, Any]]:
    """A warm-up task: by the time it runs, the worker has started its bots."""
    time.sleep(0.2)  # keeps this worker busy so that the other warm-up tasks go elsewhere
    return _worker_events()


def _worker_play(spec: GameSpec, log_path: str) -> tuple[GameRecord, list[dict[str, Any]]]:
    """Play one game in a worker process; returns its record and the bot events."""
    supply: BotSupply = _WORKER["supply"]
    players = supply.players(spec.game_id, spec.meta.get("table"), spec.bots)
    try:
        return play_game(spec, players, log_path), _worker_events()
    finally:
        supply.release(spec.game_id)


class _WorkerBots:
    """Games in ``concurrency`` worker processes, each with its own bot processes.

    Each worker has a GIL and a gRPC client of its own, so games scale with
    the cores; the price is a copy of every launched bot per worker.
    """

    def __init__(self, concurrency: int, settings: _WorkerSettings, on_bot: BotEvent) -> None:
        self.on_bot = on_bot
        # Spawned, not forked: the referee's gRPC threads must not be forked. Each worker
        # dies with the referee from its start, before it imports our modules.
        context = lifeline.spawn_context()
        counter = context.Value("i", 0)  # numbers the workers: bots/w1, bots/w2, ...
        # The workers are all spawned here, by the warm-up tasks, from this thread.
        self._executor = concurrent.futures.ProcessPoolExecutor(
            concurrency,
            mp_context=context,
            initializer=_worker_init,
            initargs=(settings, counter),
        )
        # Start the workers (and so their bots) before play, one warm-up task each.
        warm_ups = [self._executor.submit(_worker_ready) for _ in range(concurrency)]
        for future in warm_ups:
            for event in future.result():
                self.on_bot(**event)

    def play(self, spec: GameSpec, log_path: pathlib.Path) -> GameRecord:
        """Play a game in a worker (blocking the calling thread) and journal its bot events."""
        record, events = self._executor.submit(_worker_play, spec, str(log_path)).result()
        for event in events:
            self.on_bot(**event)
        return record

    def release(self, game: ScheduledGame) -> None:
        return None

    def close(self, grace_s: float = 5.0) -> None:
        """Stop the workers, each stopping its bots; kill those still busy after ``grace_s``.

        A killed worker's bots are stopped by their sandboxes, which watch it.
        """
        processes = list((getattr(self._executor, "_processes", None) or {}).values())
        self._executor.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + grace_s
        for process in processes:
            with contextlib.suppress(Exception):
                process.join(max(0.0, deadline - time.monotonic()))
        killed = False
        for process in processes:
            with contextlib.suppress(Exception):
                if process.is_alive():
                    process.terminate()
                    process.join(5)
                    killed = True
        if killed:
            time.sleep(0.3)  # the sandboxes notice within 0.05 s


class _Stopped(Exception):
    """A game not started because the tournament is stopping."""


# Signals ------------------------------------------------------------------------------------------


class _StopSignals:
    """SIGINT/SIGTERM handling: the first signal asks to stop, the second stops now.

    While ``soft`` is false (building, starting bots) even the first signal
    raises :class:`KeyboardInterrupt` at once.
    """

    def __init__(self, stop: threading.Event) -> None:
        self.stop = stop
        self.soft = False
        self.signal_name = ""
        self._old: dict[int, Any] = {}

    def _handle(self, signum: int, frame: Any) -> None:
        self.signal_name = signal.Signals(signum).name
        if self.stop.is_set() or not self.soft:
            self.stop.set()
            raise KeyboardInterrupt
        self.stop.set()

    def __enter__(self) -> _StopSignals:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._old[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._old.items():
            signal.signal(sig, handler)


def _kill_child_groups() -> None:
    """Kill the process groups our children lead (bots starting up, builds) on an interrupt."""
    me = os.getpid()
    for process in procfs.processes():
        if process.ppid == me and process.pgid == process.pid:
            with contextlib.suppress(OSError):
                os.killpg(process.pgid, signal.SIGKILL)


# The runner ------------------------------------------------------------------------------------


@dataclasses.dataclass(kw_only=True)
class RunResult:
    """What a run did."""

    out_dir: pathlib.Path
    games_scheduled: int
    #: Games in the journal now (from every run).
    games_done: int
    #: Games played by this run.
    games_played: int
    interrupted: bool = False
    signal_name: str = ""
    #: Games that failed with a referee error (not journaled; a new run retries them).
    errors: list[str] = dataclasses.field(default_factory=list)
    standings: Standings | None = None
    elapsed_s: float = 0.0
    #: Worker threads still busy at the end (an interrupted run does not wait for them).
    lingering: bool = False

    @property
    def complete(self) -> bool:
        return self.games_done >= self.games_scheduled and not self.interrupted


class Tournament:
    """Runs (or resumes) the tournament of a config into an output folder."""

    def __init__(
        self,
        config: TournamentConfig,
        *,
        out_dir: str | os.PathLike[str] | None = None,
        fresh: bool = False,
        concurrency: int | None = None,
        progress: Progress | None = None,
        echo: Echo | None = None,
        key_file: str | os.PathLike[str] | None = None,
    ) -> None:
        self.config = config
        #: A key to use instead of a new one (``--key-file``): copied into a new folder.
        self.key_file = pathlib.Path(key_file) if key_file is not None else None
        #: The folder's key, once the folder is open; it never leaves this process.
        self._key = b""
        self.layout = Layout(pathlib.Path(out_dir) if out_dir else config.output)
        self.fresh = fresh
        self.concurrency = concurrency or config.concurrency
        self.progress = progress or Progress(enabled=False)
        self.echo: Echo = echo or (lambda text: print(text, file=sys.stderr, flush=True))
        self.stop = threading.Event()
        self.run_number = 1
        self._journal: Journal | None = None
        self._bots: _SharedBots | _TableBots | _SupplyBots | _WorkerBots | None = None
        self._scheduled = 0
        self._errors: list[str] = []

    # Opening the folder ---------------------------------------------------------------------

    def _open_folder(self) -> TournamentState:
        """The folder's state: resumed, or new (moving an old folder aside if fresh)."""
        root, config = self.layout.root, self.config
        digest = config.digest()
        given = self._given_key()  # before --fresh moves a folder (and maybe that key) aside
        # A key alone is what a first run leaves if it dies before tournament.json is saved.
        if root.exists() and any(not seal.is_key_file(p.name) for p in root.iterdir()):
            if self.fresh:
                self._move_aside()
            elif not self.layout.state.exists():
                raise TournamentError(
                    f"{root} is not empty and holds no tournament ({self.layout.state.name}); "
                    "choose another output folder (--out) or use --fresh to move it aside"
                )
            else:
                state = TournamentState.load(self.layout.state)
                if state.config_hash != digest:
                    raise TournamentError(_changed_message(root, state, config))
                self._key = self._resume_key(state, given)
                state.ranking = config.ranking
                state.save(self.layout.state)
                return state
        root.mkdir(parents=True, exist_ok=True)
        self._key = self._new_key(given)
        state = TournamentState(
            name=config.name,
            config_hash=digest,
            config=config.canonical(),
            # 128 bits, though the deals do not depend on the seed's secrecy but on the key's.
            seed=config.seed if config.seed is not None else secrets.randbits(128),
            ranking=config.ranking,
            created_at=_now(),
            key_id=seal.key_id(self._key),
        )
        with contextlib.suppress(OSError):
            self.layout.config.write_bytes(config.path.read_bytes())
        state.save(self.layout.state)
        return state

    def _given_key(self) -> bytes | None:
        try:
            return seal.load_key(self.key_file) if self.key_file is not None else None
        except seal.SealError as error:
            raise TournamentError(f"--key-file: {error}") from None

    def _new_key(self, given: bytes | None) -> bytes:
        """The key of a new folder: ``--key-file``'s copied in, else a new random one."""
        path = self.layout.root / seal.KEY_NAME
        try:
            key = seal.create_key(path, given)
        except seal.SealError as error:
            raise TournamentError(str(error)) from None
        except OSError as error:
            raise TournamentError(f"{path}: cannot write the key: {error.strerror}") from None
        if given is not None and key != given:
            raise TournamentError(_key_mismatch(path, self.key_file))
        return key

    def _resume_key(self, state: TournamentState, given: bytes | None) -> bytes:
        """The key of the tournament being resumed: the folder's, or ``--key-file``'s put back."""
        root = self.layout.root
        path = root / seal.KEY_NAME
        if state.key_id is None:
            raise TournamentError(
                f"{root} holds a tournament of an older referee, made without a key; finish it "
                "with that referee, or use --fresh to move it aside and start over"
            )
        try:
            own = seal.folder_key(root)
        except seal.SealError as error:
            raise TournamentError(str(error)) from None
        if own is not None and given is not None and own != given:
            raise TournamentError(_key_mismatch(path, self.key_file))
        key = own or given
        if key is None:
            raise TournamentError(
                f"{path}: the tournament's key is missing, and the deals of the games left and "
                "the journal's MACs depend on it: put it back, or give it with --key-file"
            )
        if seal.key_id(key) != state.key_id:
            raise TournamentError(
                f"{self.key_file or path}: not this tournament's key (key id {seal.key_id(key)}; "
                f"the tournament's is {state.key_id})"
            )
        if own is None:
            seal.create_key(path, key)
        return key

    def _move_aside(self) -> None:
        root = self.layout.root
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        target = root.with_name(f"{root.name}.old-{stamp}")
        n = 1
        while target.exists():
            n += 1
            target = root.with_name(f"{root.name}.old-{stamp}-{n}")
        root.rename(target)
        self.echo(f"--fresh: moved the old {root} to {target}")

    # Building ---------------------------------------------------------------------------------

    def _build(self, specs: Sequence[BotSpec]) -> dict[str, str]:
        """Build the bots with a build step, a few at a time; failed ones with the reason."""
        folders: dict[str | None, list[BotSpec]] = collections.defaultdict(list)
        for spec in specs:
            if spec.build:
                folders[spec.cwd].append(spec)
        if not folders:
            return {}
        parallel = self.config.build.parallel
        self.echo(f"building {len(folders)} bot folder(s), {parallel} at a time ...")
        executor = concurrent.futures.ThreadPoolExecutor(parallel, thread_name_prefix="build")
        failed: dict[str, str] = {}
        try:
            futures = {
                executor.submit(
                    build_bot,
                    group[0],
                    self.layout.builds,
                    timeout_s=self.config.build.timeout_s,
                    sandbox=self.config.sandbox,
                    disk_bytes=self.config.limits.disk_bytes,
                    hidden=[self.layout.root],
                ): group
                for group in folders.values()
            }
            for future in concurrent.futures.as_completed(futures):
                group, result = futures[future], future.result()
                names = ", ".join(s.name for s in group)
                where = os.path.relpath(result.log_path, self.layout.root)
                if result.ok:
                    self.echo(f"  built {names} in {result.seconds:.1f} s")
                    continue
                self.echo(f"  BUILD FAILED: {names} (log: {result.log_path}); it ends:")
                self.echo("    " + result.tail.replace("\n", "\n    "))
                last = result.tail.strip().splitlines()[-1:] or [""]
                for spec in group:
                    failed[spec.name] = f"build failed ({where}): {last[0][:200]}"
        finally:
            executor.shutdown(wait=False, cancel_futures=True)
        return failed

    def _participants(self, state: TournamentState) -> tuple[list[str], dict[str, str]]:
        """Participants (fixed by the first run) and bots whose build failed in this run."""
        specs = list(self.config.bots)
        if state.participants is not None:
            playing = [s for s in specs if s.name in state.participants]
            return state.participants, self._build(playing)
        failed = self._build(specs)
        state.participants = [s.name for s in specs if s.name not in failed]
        state.excluded = failed
        k = self.config.table_size
        if len(state.participants) < k:
            raise TournamentError(
                f"only {len(state.participants)} bots are left after failed builds "
                f"({', '.join(failed)}); a table needs {k}"
            )
        return state.participants, {}

    # Playing -----------------------------------------------------------------------------------

    def _schedule(self, participants: Sequence[str], seed: int) -> Schedule:
        s = self.config.schedule
        return make_schedule(
            participants,
            table_size=self.config.table_size,
            deal_sets=s.deal_sets,
            duplicate=s.duplicate,
            all_permutations=s.all_permutations,
            max_tables=s.max_tables,
            seed=seed,
            key=self._key,
        )

    def _make_pool(self, log_dir: pathlib.Path) -> BotPool:
        return BotPool(
            log_dir=log_dir,
            sandbox=self.config.sandbox,
            hidden=[self.layout.root],
            time_control=self.config.time_control,
            fault_policy=self.config.fault_policy,
            limits=self.config.limits,
        )

    def _on_bot(self, bot: str, status: str, reason: str = "", **extra: Any) -> None:
        entry = {"type": "bot", "run": self.run_number, "bot": bot, "status": status}
        if reason:
            entry["reason"] = reason
            where = f" (table {extra['table']})" if "table" in extra else ""
            self.echo(f"bot {bot}{where}: {reason}; its seats get fallback moves")
        entry.update(extra)
        assert self._journal is not None
        self._journal.append(entry)

    def _start_bots(self, todo: Sequence[ScheduledGame], broken: Mapping[str, str]) -> None:
        needed = {b for g in todo for b in g.bots}
        specs = [s for s in self.config.bots if s.name in needed]
        lifetime = self.config.bot_lifetime
        if self.config.bot_processes == "per_worker":
            settings = _WorkerSettings(
                specs={s.name: s for s in specs},
                broken=dict(broken),
                log_dir=str(self.layout.bots),
                time_control=self.config.time_control,
                fault_policy=self.config.fault_policy,
                limits=self.config.limits,
                sandbox=self.config.sandbox,
                hidden=(str(self.layout.root),),
                lifetime=lifetime,
                parent=os.getpid(),
            )
            self._bots = _WorkerBots(self.concurrency, settings, self._on_bot)
            return
        if lifetime == "game":
            supply = BotSupply(
                self._make_pool(self.layout.bots),
                {s.name: s for s in specs},
                lifetime="game",
                broken=broken,
                on_event=lambda event: self._on_bot(**event),
            )
            supply.warm_up(s.name for s in specs)
            self._bots = _SupplyBots(supply)
            return
        if self.config.bot_processes == "per_table" or lifetime == "table":
            self._bots = _TableBots(
                self._make_pool,
                {s.name: s for s in specs},
                broken,
                todo,
                self.layout.bots,
                self._on_bot,
            )
            return
        launched = sum(1 for s in specs if s.command and s.name not in broken)
        if launched:
            self.echo(f"starting {launched} bot process(es) ...")
        self._bots = _SharedBots(self._make_pool(self.layout.bots))
        self._bots.start(specs, broken, self._on_bot)

    def _play(self, game: ScheduledGame, state: TournamentState) -> GameRecord:
        """Play one game (in a worker thread)."""
        if self.stop.is_set():
            raise _Stopped()
        assert self._bots is not None
        spec = GameSpec(
            game_id=game.game_id,
            seed=game.seed,
            bots=game.bots,
            rules=self.config.rules,
            time_control=self.config.time_control,
            fault_policy=self.config.fault_policy,
            meta={"tournament": state.name, **game.meta()},
        )
        if isinstance(self._bots, _WorkerBots):
            return self._bots.play(spec, self.layout.game_log(game.game_id))
        players = self._bots.players(game)
        try:
            return play_game(spec, players, self.layout.game_log(game.game_id))
        finally:
            self._bots.release(game)

    def _finish(self, game: ScheduledGame, future: concurrent.futures.Future[GameRecord]) -> bool:
        """Journal a finished game; False if it failed."""
        try:
            record = future.result()
        except _Stopped:
            return False
        except Exception as error:
            log.exception("game %s failed", game.game_id)
            self._errors.append(f"{game.game_id}: {type(error).__name__}: {error}")
            self.progress.errors += 1
            return False
        entry = journal_entry(record, game, run=self.run_number, layout=self.layout, log_mac="")
        try:
            entry["log_mac"] = self._check_log(pathlib.Path(record.log_path), entry)
        except TournamentError as error:
            log.error("game %s not journaled: %s", game.game_id, error)
            self._errors.append(f"{game.game_id}: {error}")
            self.progress.errors += 1
            return False
        assert self._journal is not None
        self._journal.append(entry)
        self.progress.add(entry)
        return True

    def _check_log(self, path: pathlib.Path, entry: Mapping[str, Any]) -> str:
        """Replay a finished game's log through the engine; its MAC if it is sound.

        The log must follow the rules and agree with the game's record, so a
        corrupted log never reaches the journal. The MAC is of the bytes that
        were checked.
        """
        try:
            data = path.read_bytes()
            report = verify_entry(path, entry)
            changed = path.read_bytes() != data
        except OSError as error:
            raise TournamentError(f"{path}: cannot read the log: {error.strerror}") from None
        except Exception as error:  # a bug in the check must not stop the tournament
            log.exception("checking %s", path)
            raise TournamentError(f"{path}: the check failed: {error!r}") from None
        if report.problem is not None:
            raise TournamentError(f"the log fails the check before journaling: {report.problem}")
        if changed:
            raise TournamentError(f"{path}: the log changed while it was checked")
        return seal.log_mac(self._key, data)

    def _play_all(self, todo: Sequence[ScheduledGame], state: TournamentState) -> bool:
        """Play ``todo``; returns whether every worker is done (False if some were abandoned)."""
        executor = concurrent.futures.ThreadPoolExecutor(
            self.concurrency, thread_name_prefix="game"
        )
        pending: dict[concurrent.futures.Future[GameRecord], ScheduledGame] = {}
        games = iter(todo)

        def fill() -> None:
            while not self.stop.is_set() and len(pending) < self.concurrency:
                game = next(games, None)
                if game is None:
                    return
                pending[executor.submit(self._play, game, state)] = game

        try:
            fill()
            while pending and not self.stop.is_set():
                done, _ = concurrent.futures.wait(
                    pending, timeout=0.5, return_when=concurrent.futures.FIRST_COMPLETED
                )
                finished = [(future, pending.pop(future)) for future in done]
                fill()  # the next games start before these are journaled
                for future, game in finished:
                    self._finish(game, future)
                self.progress.refresh()
            if pending:
                self._wind_down(pending)
        finally:
            executor.shutdown(wait=False, cancel_futures=True)
        return not pending or all(f.done() for f in pending)

    def _wind_down(
        self, pending: dict[concurrent.futures.Future[GameRecord], ScheduledGame]
    ) -> None:
        """After a stop: journal the games that finish within the grace, abandon the rest."""
        self.echo(f"stopping: waiting up to {STOP_GRACE_S:.0f} s for {len(pending)} game(s) ...")
        done, _ = concurrent.futures.wait(pending, timeout=STOP_GRACE_S)
        for future in done:
            self._finish(pending.pop(future), future)
        if self._bots is not None:
            self._bots.close()
        # The abandoned games now end quickly (their bots are gone); they are not journaled.
        concurrent.futures.wait(pending, timeout=5)

    def run(self) -> RunResult:
        """Run or resume the tournament; see the module docs."""
        started = time.monotonic()
        signals = _StopSignals(self.stop)
        result: RunResult | None = None
        with signals:
            try:
                result = self._run(signals)
            except KeyboardInterrupt:
                _kill_child_groups()
                result = self._interrupted_result()
            finally:
                if self._bots is not None:
                    self._bots.close()
                if self._journal is not None:
                    self._journal.close()
        result.signal_name = signals.signal_name
        result.elapsed_s = round(time.monotonic() - started, 2)
        return result

    def _interrupted_result(self) -> RunResult:
        done = sum(1 for e in read_journal(self.layout.journal) if e["type"] == "game")
        return RunResult(
            out_dir=self.layout.root,
            games_scheduled=self._scheduled,
            games_done=done,
            games_played=self.progress.played,
            interrupted=True,
            errors=self._errors,
            lingering=True,
        )

    def _journaled(self, schedule: Schedule) -> set[str]:
        """The scheduled games the journal already has (counted in the progress)."""
        ids = schedule.by_id()
        done: set[str] = set()
        for entry in read_journal(self.layout.journal, key=self._key):
            if entry["type"] == "run":
                self.run_number = entry["run"] + 1
                continue
            game_id = entry.get("game_id")
            if entry["type"] == "game" and game_id in ids and game_id not in done:
                done.add(game_id)
                self.progress.add(entry, this_run=False)
        return done

    def _check_isolation(self) -> str:
        """Refuse to start when sandboxed bots can't be sandboxed here; a warning if no cgroups."""
        launched = [s for s in self.config.bots if s.command]
        if any(s.sandbox == "bwrap" for s in launched):
            try:
                bwrap.check_sandbox()
            except bwrap.SandboxUnavailable as error:
                raise TournamentError(f"{self.config.path}: {error}") from None
        reason = supervisor.cgroup_support() if launched else ""
        if reason:
            return (
                f"bot limits are measured by polling, not enforced by cgroups ({reason}): "
                "memory a bot holds in its tmpfs or /dev/shm is not counted, and a short "
                "burst over a limit can go unseen"
            )
        return ""

    def _run(self, signals: _StopSignals) -> RunResult:
        warning = self._check_isolation()
        state = self._open_folder()
        participants, broken = self._participants(state)
        schedule = self._schedule(participants, state.seed)
        self._scheduled = state.games_scheduled = len(schedule)
        state.save(self.layout.state)
        self.progress.start(len(schedule))
        done = self._journaled(schedule)
        self._journal = Journal(self.layout.journal, self._key)
        self._journal.append(
            {
                "type": "run",
                "run": self.run_number,
                "started_at": _now(),
                "referee_version": __version__,
                "concurrency": self.concurrency,
                "games_left": len(schedule) - len(done),
                **state.sealed_facts(),
            }
        )
        if warning:
            self._journal.append({"type": "warning", "run": self.run_number, "message": warning})
            self.echo(f"warning: {warning}")
        unsandboxed = self.config.unsandboxed
        if unsandboxed:
            self.echo(f"not sandboxed (sandbox: none): {', '.join(unsandboxed)}")
        todo = [g for g in schedule.games if g.game_id not in done]
        self._describe(schedule, len(todo), state.seed)
        finished = True
        if todo:
            self._start_bots(todo, broken)
            signals.soft = True
            self.progress.start(len(schedule))
            self.progress.refresh(force=True)
            finished = self._play_all(todo, state)
            self.progress.finish()
            signals.soft = False
        if self._bots is not None:
            self._bots.close()
        interrupted = self.stop.is_set()
        standings = None if interrupted else self._write_standings(state)
        return RunResult(
            out_dir=self.layout.root,
            games_scheduled=len(schedule),
            games_done=self.progress.done,
            games_played=self.progress.played,
            interrupted=interrupted,
            errors=self._errors,
            standings=standings,
            lingering=not finished,
        )

    def _describe(self, schedule: Schedule, left: int, seed: int) -> None:
        s, k = self.config.schedule, self.config.table_size
        kind = "a balanced sample of" if schedule.sampled else "all"
        per_set = len(schedule) // max(1, len(schedule.tables) * s.deal_sets)
        self.echo(
            f"{self.config.name}: {len(schedule)} games = {kind} {len(schedule.tables)} tables of "
            f"{k} x {s.deal_sets} deal set(s) x {per_set} seating(s); seed {seed}; "
            f"{left} to play, {self.concurrency} at a time; output {self.layout.root}"
        )

    def _write_standings(self, state: TournamentState) -> Standings:
        standings = load_standings(self.layout.root, ranking=self.config.ranking, key=self._key)
        _write_atomic(self.layout.standings_json, render(standings, "json") + "\n")
        _write_atomic(self.layout.standings_txt, render(standings, "table"))
        return standings


def _key_mismatch(path: pathlib.Path, key_file: pathlib.Path | None) -> str:
    return (
        f"{path.parent} already has a different key ({path}) than --key-file {key_file}; "
        "a tournament keeps its key: drop --key-file, or choose another output folder (--out)"
    )


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            out.update(_flatten(value, path + "."))
        else:
            out[path] = value
    return out


def _changed_message(root: pathlib.Path, state: TournamentState, config: TournamentConfig) -> str:
    old, new = _flatten(state.config), _flatten(config.canonical())
    changed = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
    shown = ", ".join(changed[:6]) + (f" and {len(changed) - 6} more" if len(changed) > 6 else "")
    return (
        f"{root} holds a tournament with a different configuration "
        f"(changed: {shown or 'the config hash'}); "
        "run it with its own config, choose another output folder (--out), "
        "or use --fresh to move the old folder aside and start over"
    )
