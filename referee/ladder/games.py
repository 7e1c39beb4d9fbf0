"""The ladder's games: pick a table, play its duplicate set, check and journal every game.

:class:`GameLoop` runs in a thread of the ladder service. It keeps up to
``concurrency`` games in flight: whenever there is room it asks matchmaking
(:mod:`referee.ladder.matchmaking`) for the next table and hands the table's
whole duplicate set (:class:`referee.schedule.LadderScheduler`) to an
executor, the tournaments' own (:mod:`referee.tournament.executors`: worker
processes, threads, or Ray). Each finished game's log is replayed through the
engine before its entry is appended to the journal (sealed and fsynced, as a
tournament's), and only then does it count for the ratings.

The executors' bots are fixed when they start, and a ladder's bots change:
so the games run in *generations*, an executor per set of active bots. A new
version that becomes active (or one that retires) starts a new generation
for the next tables; the old one finishes the sets it was given and is
closed.

After a kill, the journal is the whole truth: the ratings are rebuilt from
it, a set of which some games were journaled is completed (when its bots are
still active), and the next set number follows the highest journaled one, so
no game is played or counted twice.
"""

from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
import logging
import os
import pathlib
import threading
from typing import TYPE_CHECKING, Any

from referee.audit.logs import verify_entry
from referee.folder import BotEntry, Journal, TournamentError, journal_entry, read_journal, seal
from referee.ladder.matchmaking import Matchmaker
from referee.match.runner import GameRecord
from referee.players.specs import BotSpec
from referee.schedule import LadderScheduler, ScheduledGame
from referee.schedule.base import base_seating
from referee.tournament.executors import (
    GameExecutor,
    ProcessExecutor,
    Stopped,
    ThreadExecutor,
    WorkerSettings,
)

if TYPE_CHECKING:
    from referee.ladder.service import Ladder

__all__ = ["STOP_GRACE_S", "GameLoop"]

log = logging.getLogger(__name__)

#: Seconds the games in flight get to finish when the ladder stops.
STOP_GRACE_S = 2.0


@dataclasses.dataclass(eq=False)
class _Generation:
    """An executor with the bots it was started with."""

    number: int
    players: frozenset[str]
    executor: GameExecutor
    in_flight: int = 0


@dataclasses.dataclass(eq=False)
class _Set:
    """A duplicate set handed out."""

    number: int
    bots: tuple[str, ...]
    left: int
    journaled: int = 0


class GameLoop:
    """Plays the ladder's games until the ladder stops (:meth:`run`)."""

    def __init__(self, ladder: Ladder, journal: Journal, key: bytes) -> None:
        self.ladder = ladder
        self.config = ladder.config
        self.layout = ladder.layout
        self.journal = journal
        self._key = key
        m = self.config.matchmaking
        self.matchmaker = Matchmaker(
            table_size=self.config.table_size,
            seed=ladder.seed % 2**32,
            first_sets=m.first_sets,
            candidates=m.candidates,
            recent_tables=m.seed_tables,
        )
        self._lock = threading.RLock()
        self._specs: dict[str, BotSpec] = {}
        self._active: dict[str, None] = {}  # in activation order
        self._pending: dict[
            concurrent.futures.Future[GameRecord], tuple[_Set, ScheduledGame, _Generation]
        ] = {}
        self._generations: list[_Generation] = []
        self._generation_number = 0
        #: Games journaled by this run.
        self.played = 0
        self.run_number = 1
        self._sets_of: collections.Counter[str] = collections.Counter()
        self._unfinished: dict[int, tuple[tuple[str, ...], set[int]]] = {}
        self._next_set = 1
        self._read_journal()

    def _read_journal(self) -> None:
        """The ratings, set counts and unfinished sets of the games journaled so far."""
        games: list[dict[str, Any]] = []
        for entry in read_journal(self.layout.journal, key=self._key):
            if entry.get("type") == "run":
                self.run_number = max(self.run_number, int(entry["run"]) + 1)
            elif entry.get("type") == "game":
                games.append(entry)
        k = self.config.table_size
        sets: dict[int, tuple[tuple[str, ...], set[int]]] = {}
        # Rated in schedule order, as the standings rate them.
        for entry in sorted(games, key=lambda e: e.get("index", 0)):
            self.matchmaker.rate(entry["bots"], entry["placements"])
            table = int(entry.get("table", 0))
            bots, seatings = sets.setdefault(table, (tuple(sorted(entry["bots"])), set()))
            seatings.add(int(entry.get("seating", 0)))
        for table, (bots, seatings) in sets.items():
            for name in bots:
                self._sets_of[name] += 1
            if len(seatings) < k:
                self._unfinished[table] = (bots, seatings)
        self._next_set = max(sets, default=0) + 1

    # Told by the service ----------------------------------------------------------------------

    def activate(self, player: str, spec: BotSpec) -> None:
        """A version became active: the next tables may seat it."""
        with self._lock:
            self._specs[player] = spec
            self._active[player] = None
            self.matchmaker.add(player, sets=self._sets_of[player])

    def retire(self, player: str) -> None:
        """A version retired: no new table seats it (its sets in flight finish)."""
        with self._lock:
            self._active.pop(player, None)
            self.matchmaker.remove(player)

    def active(self) -> list[str]:
        with self._lock:
            return list(self._active)

    def in_flight(self) -> int:
        with self._lock:
            return len(self._pending)

    # Playing ------------------------------------------------------------------------------------

    def run(self) -> None:
        """Play until the ladder stops. A referee error in one round is logged and the loop
        goes on after a pause (a ladder runs for days); what was journaled stays."""
        stop = self.ladder.stopping
        self._resume_sets()
        while not stop.is_set():
            try:
                self._round()
            except Exception as error:
                log.exception("the ladder's game loop")
                self.ladder.echo(
                    f"the game loop failed ({type(error).__name__}: {error}); going on in 5 s"
                )
                stop.wait(5.0)
        self._wind_down()

    def _round(self) -> None:
        """Hand out what there is room for, then journal what finished within half a second."""
        self._fill()
        with self._lock:
            pending = list(self._pending)
        if not pending:
            self.ladder.stopping.wait(0.5)
            return
        done, _ = concurrent.futures.wait(
            pending, timeout=0.5, return_when=concurrent.futures.FIRST_COMPLETED
        )
        for future in done:
            self._finish(future)
        self._close_idle()

    def _resume_sets(self) -> None:
        """Finish the sets a kill cut short, when their bots are still active."""
        for number, (bots, seatings) in sorted(self._unfinished.items()):
            with self._lock:
                if not set(bots) <= set(self._active):
                    continue
            first = self._first_game_bots(number)
            if first is None:
                continue
            games = [g for g in self._set_games(number, first) if g.seating not in seatings]
            self._start_set(number, bots, games)
        self._unfinished.clear()

    def _first_game_bots(self, number: int) -> tuple[str, ...] | None:
        """The base seating of a journaled set (from any of its games)."""
        entries = [
            e
            for e in read_journal(self.layout.journal, key=self._key)
            if e.get("type") == "game" and e.get("table") == number
        ]
        scheduler = LadderScheduler.from_journal(
            entries, table_size=self.config.table_size, seed=self.ladder.seed
        )
        return scheduler.tables[0] if scheduler.tables else None

    def _fill(self) -> None:
        """Hand out new sets while fewer than ``concurrency`` games are in flight."""
        while not self.ladder.stopping.is_set():
            with self._lock:
                if len(self._pending) >= self.config.concurrency:
                    return
                table = self.matchmaker.pick()
                if table is None:
                    return
                number = self._next_set
                self._next_set += 1
            # Shuffled by the seed, so that no bot always follows another.
            base = base_seating(sorted(table), self.ladder.seed, number)
            games = self._set_games(number, base)
            if not self._start_set(number, tuple(sorted(table)), games):
                return

    def _set_games(self, number: int, base: tuple[str, ...]) -> list[ScheduledGame]:
        scheduler = LadderScheduler(
            {number: base}, table_size=self.config.table_size, seed=self.ladder.seed
        )
        return list(scheduler.games(self._key))

    def _start_set(self, number: int, bots: tuple[str, ...], games: list[ScheduledGame]) -> bool:
        """Hand a set's games to the generation of the bots active now; False if it failed."""
        try:
            generation = self._generation()
        except Exception as error:
            log.exception("starting the games' executor")
            self.ladder.echo(f"cannot start the games' executor: {error}")
            self.ladder.stopping.wait(5.0)
            return False
        played = _Set(number, bots, left=len(games))
        with self._lock:
            self.matchmaker.set_started(bots)
            for game in games:
                spec = game.spec(
                    rules=self.config.rules,
                    time_control=self.config.time_control,
                    fault_policy=self.config.fault_policy,
                    tournament=self.config.name,
                )
                try:
                    future = generation.executor.submit(
                        spec, self.layout.game_log(game.game_id, game.index)
                    )
                except Stopped:
                    played.left -= 1
                    continue
                generation.in_flight += 1
                self._pending[future] = (played, game, generation)
            if played.left == 0:
                self.matchmaker.set_finished(bots, counted=False)
        return True

    def _generation(self) -> _Generation:
        """The executor of the bots active now (a new one when they changed)."""
        with self._lock:
            players = frozenset(self._active)
            current = self._generations[-1] if self._generations else None
            if current is not None and current.players == players:
                return current
            specs = {name: self._specs[name] for name in players}
            self._generation_number += 1
            number = self._generation_number
        executor = self._make_executor(specs)
        try:
            executor.start(self._on_bot)
        except BaseException:
            executor.close()
            raise
        generation = _Generation(number, players, executor)
        with self._lock:
            self._generations.append(generation)
        return generation

    def _make_executor(self, specs: dict[str, BotSpec]) -> GameExecutor:
        config = self.config
        shared = config.bot_processes == "shared" and config.concurrency > 1
        settings = WorkerSettings(
            specs=specs,
            broken={},
            log_dir=str(self.layout.bots),
            time_control=config.time_control,
            fault_policy=config.fault_policy,
            limits=config.limits,
            sandbox=config.sandbox,
            hidden=tuple(str(p) for p in self.ladder.hidden()),
            lifetime=config.bot_lifetime,
            parent=os.getpid(),
            registries=config.build.registries,
            build=config.build,
            shared=shared,
        )
        if config.executor.kind == "ray":
            try:
                from referee.tournament.ray_executor import RayExecutor
            except ImportError as error:
                raise TournamentError(
                    f"{config.path}: executor: ray needs Ray ({error.name or error}): "
                    'install it with pip install "hearts-referee[ray]"'
                ) from None
            return RayExecutor(
                config.executor,
                settings,
                echo=self.ladder.echo,
                build_timeout_s=config.build.timeout_s,
            )
        if config.bot_processes == "per_worker":
            return ProcessExecutor(config.concurrency, settings)
        return ThreadExecutor(config.concurrency, settings)

    def _on_bot(self, bot: str, status: str, reason: str = "", **extra: Any) -> None:
        self.journal.append(
            BotEntry(run=self.run_number, bot=bot, status=status, reason=reason or None, **extra)
        )

    def _finish(self, future: concurrent.futures.Future[GameRecord]) -> None:
        with self._lock:
            played, game, generation = self._pending.pop(future)
            generation.in_flight -= 1
        journaled = self._journal_game(game, future)
        with self._lock:
            played.left -= 1
            played.journaled += int(journaled)
            if played.left == 0:
                self.matchmaker.set_finished(played.bots, counted=played.journaled > 0)

    def _journal_game(
        self, game: ScheduledGame, future: concurrent.futures.Future[GameRecord]
    ) -> bool:
        try:
            record = future.result()
        except (Stopped, concurrent.futures.CancelledError):
            return False
        except Exception as error:
            log.exception("game %s failed", game.game_id)
            self.ladder.echo(f"game {game.game_id} failed: {type(error).__name__}: {error}")
            return False
        entry = journal_entry(record, game, run=self.run_number, layout=self.layout, log_mac="")
        path = pathlib.Path(record.log_path)
        try:
            data = path.read_bytes()
            report = verify_entry(path, entry)
        except Exception as error:
            log.exception("checking %s", path)
            self.ladder.echo(f"game {game.game_id} not journaled: the check failed: {error!r}")
            return False
        if report.problem is not None:
            self.ladder.echo(f"game {game.game_id} not journaled: {report.problem}")
            return False
        entry["log_mac"] = seal.log_mac(self._key, data)
        with self._lock:
            self.journal.append(entry)
            self.matchmaker.rate(record.bots, record.placements)
            self.played += 1
        return True

    def _close_idle(self) -> None:
        """Close the generations that are not the current one and have no game in flight."""
        with self._lock:
            idle = [g for g in self._generations[:-1] if g.in_flight == 0]
            self._generations = [g for g in self._generations if g not in idle]
        for generation in idle:
            generation.executor.close()

    def _wind_down(self) -> None:
        with self._lock:
            pending = list(self._pending)
        if pending:
            self.ladder.echo(
                f"stopping: waiting up to {STOP_GRACE_S:.0f} s for {len(pending)} game(s) ..."
            )
            done, _ = concurrent.futures.wait(pending, timeout=STOP_GRACE_S)
            for future in done:
                self._finish(future)
        self.close()

    def close(self) -> None:
        """Close every executor (their bots are stopped; games in flight are abandoned)."""
        with self._lock:
            generations, self._generations = self._generations, []
        for generation in generations:
            generation.executor.close()
