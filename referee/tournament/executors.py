"""Executors: where a tournament's games run. Each turns a :class:`GameSpec` into a :class:`GameRecord`.

The runner (:mod:`referee.tournament.runner`) does not know where games run:
it hands each game's spec and the path its log must have to a
:class:`GameExecutor` and gets back a future of the game's record, with the
log complete and synced at that path. Implementations:

- :class:`ThreadExecutor`: games in threads of the referee process, with
  bots from a :class:`~referee.players.supply.BotSupply` (one process per bot, or a
  fresh one per game) or one process per bot per table
  (``bot_processes: shared`` / ``per_table``);
- :class:`ProcessExecutor`: games in local worker processes, each with its
  own bots (``bot_processes: per_worker``, the default): each worker has its
  own GIL and gRPC client, so games scale with the cores;
- :class:`referee.tournament.ray_executor.RayExecutor`: games on the worker
  nodes of a Ray cluster (``executor: {kind: ray}``).

Every executor reports its bots' events (started, did not start, build
failed) through the ``on_bot`` callback given to :meth:`GameExecutor.start`,
as keyword arguments of the journal's ``bot`` entries.
"""

from __future__ import annotations

import abc
import collections
import concurrent.futures
import contextlib
import dataclasses
import pathlib
import signal
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from referee.match.runner import GameRecord, GameSpec, play_game
from referee.players import Player
from referee.players.specs import BotSpec
from referee.players.supply import BotPool, BotSupply, DeadPlayer
from referee.sandbox import buildnet, lifeline

__all__ = [
    "BotEvent",
    "GameExecutor",
    "ProcessExecutor",
    "Stopped",
    "ThreadExecutor",
    "WorkerSettings",
]

#: ``on_bot(bot=..., status=..., reason=..., **extra)``: one bot event, as a journal entry.
BotEvent = Callable[..., None]


class Stopped(Exception):
    """A game not started because the tournament is stopping."""


@dataclasses.dataclass(frozen=True)
class WorkerSettings:
    """What a worker needs to start its bots (plain, picklable data)."""

    specs: dict[str, BotSpec]
    broken: dict[str, str]
    log_dir: str
    time_control: Any
    fault_policy: Any
    limits: Any
    sandbox: str
    hidden: tuple[str, ...]
    lifetime: str
    #: The referee's pid: a local worker dies with it.
    parent: int
    #: The hosts a build's network reaches (``build.registries``): a Ray node builds too.
    registries: tuple[str, ...] = buildnet.DEFAULT_REGISTRIES
    #: How a Ray node builds: limits, credentials, builds at once (``build``, a BuildConfig).
    build: Any = None
    #: One bot process may serve several games at once (``bot_processes: shared`` or
    #: ``per_table``, concurrency above 1): bots get a CPU quota instead of being frozen.
    shared: bool = False

    def pool(self, log_dir: pathlib.Path) -> BotPool:
        return BotPool(
            log_dir=log_dir,
            time_control=self.time_control,
            fault_policy=self.fault_policy,
            limits=self.limits,
            sandbox=self.sandbox,
            hidden=self.hidden,
            shared=self.shared,
        )


class GameExecutor(abc.ABC):
    """Plays games somewhere; thread-safe."""

    #: Games it plays at once.
    slots: int = 1

    def start(self, on_bot: BotEvent) -> None:
        """Start the workers and their bots before the first game."""
        return None

    @abc.abstractmethod
    def submit(
        self, spec: GameSpec, log_path: pathlib.Path
    ) -> concurrent.futures.Future[GameRecord]:
        """Play the game of ``spec``; on success its log is complete and synced at ``log_path``."""

    def describe(self) -> str:
        """Where the games run, for the progress line ('' when it goes without saying)."""
        return ""

    @abc.abstractmethod
    def close(self) -> None:
        """Stop the workers and every bot they started; games in flight are abandoned."""


# Threads ---------------------------------------------------------------------------------------


class _Bots(abc.ABC):
    """Players for the games of a :class:`ThreadExecutor`."""

    @abc.abstractmethod
    def players(self, game_id: str, table: Any, bots: Sequence[str]) -> list[Player]: ...

    def release(self, game_id: str, table: Any) -> None:
        return None

    @abc.abstractmethod
    def close(self) -> None: ...


class _SupplyBots(_Bots):
    """From a :class:`BotSupply`: one process per bot for the run, or a fresh one per game."""

    def __init__(self, supply: BotSupply) -> None:
        self.supply = supply

    def players(self, game_id: str, table: Any, bots: Sequence[str]) -> list[Player]:
        return self.supply.players(game_id, table, bots)

    def release(self, game_id: str, table: Any) -> None:
        self.supply.release(game_id)

    def close(self) -> None:
        self.supply.close()


class _TableEntry:
    def __init__(self, games_left: int) -> None:
        self.lock = threading.Lock()
        self.pool: BotPool | None = None
        self.players: dict[str, Player] | None = None
        self.games_left = games_left


class _TableBots(_Bots):
    """A process per bot per table: started with the table's first game, stopped after its last.

    Each table's bots have a log folder of their own (``bots/tN``).
    """

    def __init__(
        self,
        make_pool: Callable[[pathlib.Path], BotPool],
        specs: Mapping[str, BotSpec],
        broken: Mapping[str, str],
        games_per_table: Mapping[Any, int],
        log_dir: pathlib.Path,
        on_bot: BotEvent,
    ) -> None:
        self.make_pool = make_pool
        self.specs = specs
        self.broken = broken
        self.log_dir = log_dir
        self.on_bot = on_bot
        self._lock = threading.Lock()
        self._tables = {t: _TableEntry(n) for t, n in games_per_table.items()}
        self._closed = False

    def players(self, game_id: str, table: Any, bots: Sequence[str]) -> list[Player]:
        entry = self._tables[table]
        with entry.lock:
            if entry.players is None:
                entry.players = self._start_table(table, entry, sorted(set(bots)))
        return [entry.players[b] for b in bots]

    def _start_table(self, table: Any, entry: _TableEntry, names: list[str]) -> dict[str, Player]:
        with self._lock:
            if self._closed:
                raise Stopped()
            entry.pool = self.make_pool(self.log_dir / f"t{table}")
        players: dict[str, Player] = {}
        for name in names:
            if name in self.broken:
                players[name] = DeadPlayer(name, self.broken[name])
                self.on_bot(bot=name, status="build_failed", reason=self.broken[name], table=table)
        live = [self.specs[n] for n in names if n not in self.broken]
        players.update(entry.pool.start_all(live))
        failures = entry.pool.failures
        for spec in live:
            if spec.name in failures:
                self.on_bot(
                    bot=spec.name, status="start_failed", reason=failures[spec.name], table=table
                )
            else:
                self.on_bot(bot=spec.name, status="started", table=table)
        return players

    def release(self, game_id: str, table: Any) -> None:
        entry = self._tables[table]
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


class ThreadExecutor(GameExecutor):
    """Games in ``slots`` threads of this process.

    ``lifetime`` is the bots' (``run``, ``table`` or ``game``); with
    ``per_table`` (or ``table``), each table's bots are started with its first
    game and stopped after its last, which ``games_per_table`` counts.
    """

    def __init__(
        self,
        slots: int,
        settings: WorkerSettings,
        *,
        per_table: bool = False,
        games_per_table: Mapping[Any, int] | None = None,
    ) -> None:
        self.slots = slots
        self.settings = settings
        self.per_table = per_table or settings.lifetime == "table"
        self.games_per_table = dict(games_per_table or {})
        self._bots: _Bots | None = None
        self._closed = False
        self._pool = concurrent.futures.ThreadPoolExecutor(slots, thread_name_prefix="game")

    def _make_pool(self, log_dir: pathlib.Path) -> BotPool:
        return self.settings.pool(log_dir)

    def start(self, on_bot: BotEvent) -> None:
        s = self.settings
        log_dir = pathlib.Path(s.log_dir)
        if s.lifetime != "game" and self.per_table:
            self._bots = _TableBots(
                self._make_pool, s.specs, s.broken, self.games_per_table, log_dir, on_bot
            )
            return
        supply = BotSupply(
            self._make_pool(log_dir),
            s.specs,
            lifetime="game" if s.lifetime == "game" else "run",
            broken=s.broken,
            on_event=lambda event: on_bot(**event),
        )
        supply.warm_up(s.specs)
        self._bots = _SupplyBots(supply)

    def _play(self, spec: GameSpec, log_path: pathlib.Path) -> GameRecord:
        if self._closed or self._bots is None:
            raise Stopped()
        table = spec.meta.get("table")
        players = self._bots.players(spec.game_id, table, spec.bots)
        try:
            return play_game(spec, players, log_path)
        finally:
            self._bots.release(spec.game_id, table)

    def submit(
        self, spec: GameSpec, log_path: pathlib.Path
    ) -> concurrent.futures.Future[GameRecord]:
        return self._pool.submit(self._play, spec, log_path)

    def close(self) -> None:
        self._closed = True
        if self._bots is not None:
            self._bots.close()
        self._pool.shutdown(wait=False, cancel_futures=True)


# Local worker processes ----------------------------------------------------------------------

#: The bots of this worker process: set up by :func:`_worker_init`.
_WORKER: dict[str, Any] = {}


def _worker_init(settings: WorkerSettings, counter: Any) -> None:
    """Set up a game worker process: its own bots, started before its first game.

    The worker ignores Ctrl-C (the main process decides when to stop) and dies
    with the main process, even when that is killed with SIGKILL (a worker of
    :func:`referee.sandbox.lifeline.spawn_context` has asked for that before its first
    import; this covers a worker spawned otherwise); its bots' supervisors
    then take the bots down.
    """
    import multiprocessing.util

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    lifeline.die_with_parent(settings.parent)
    with counter.get_lock():
        counter.value += 1
        index = counter.value
    events: list[dict[str, Any]] = []
    supply = BotSupply(
        settings.pool(pathlib.Path(settings.log_dir) / f"w{index}"),
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


class ProcessExecutor(GameExecutor):
    """Games in ``slots`` local worker processes, each with its own bot processes.

    Each worker has a GIL and a gRPC client of its own, so games scale with
    the cores; the price is a copy of every launched bot per worker.
    """

    def __init__(self, slots: int, settings: WorkerSettings) -> None:
        self.slots = slots
        self.settings = settings
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        self._on_bot: BotEvent = lambda **event: None

    def start(self, on_bot: BotEvent) -> None:
        self._on_bot = on_bot
        # Spawned, not forked: the referee's gRPC threads must not be forked. Each worker
        # dies with the referee from its start, before it imports our modules.
        context = lifeline.spawn_context()
        counter = context.Value("i", 0)  # numbers the workers: bots/w1, bots/w2, ...
        # The workers are all spawned here, by the warm-up tasks, from this thread.
        self._executor = concurrent.futures.ProcessPoolExecutor(
            self.slots,
            mp_context=context,
            initializer=_worker_init,
            initargs=(self.settings, counter),
        )
        # Start the workers (and so their bots) before play, one warm-up task each.
        warm_ups = [self._executor.submit(_worker_ready) for _ in range(self.slots)]
        for future in warm_ups:
            for event in future.result():
                on_bot(**event)

    def submit(
        self, spec: GameSpec, log_path: pathlib.Path
    ) -> concurrent.futures.Future[GameRecord]:
        if self._executor is None:
            raise Stopped()
        played = self._executor.submit(_worker_play, spec, str(log_path))
        result: concurrent.futures.Future[GameRecord] = concurrent.futures.Future()

        def done(future: concurrent.futures.Future[Any]) -> None:
            if future.cancelled():
                result.cancel()
                result.set_running_or_notify_cancel()
                return
            error = future.exception()
            if error is not None:
                result.set_exception(error)
                return
            record, events = future.result()
            for event in events:  # the bot events of the game, journaled before it
                with contextlib.suppress(Exception):
                    self._on_bot(**event)
            result.set_result(record)

        played.add_done_callback(done)
        return result

    def close(self, grace_s: float = 5.0) -> None:
        """Stop the workers, each stopping its bots; kill those still busy after ``grace_s``.

        A killed worker's bots are stopped by their supervisors, which watch it.
        """
        executor, self._executor = self._executor, None
        if executor is None:
            return
        processes = list((getattr(executor, "_processes", None) or {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
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
            time.sleep(0.3)  # the supervisors notice at once


def games_per_table(tables: Sequence[Any]) -> dict[Any, int]:
    """How many games each table has (for :class:`ThreadExecutor`'s per-table bots)."""
    return dict(collections.Counter(tables))
