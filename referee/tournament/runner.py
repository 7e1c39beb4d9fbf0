"""The tournament runner: build, schedule, play concurrently, journal, resume, report.

A run goes:

1. open the output folder (:mod:`referee.folder`): a new one, or
   the same tournament to resume (the config's
   :meth:`~referee.tournament.config.TournamentConfig.digest` must match the one saved
   in ``tournament.json``; ``fresh`` moves an old folder aside);
2. build the bot folders that have a build step, a few at a time, each in
   its sandbox; a bot whose build fails on the first run is left out, with
   the reason kept for the standings;
3. make the schedule (:mod:`referee.schedule`) from the
   participants, the seed and the folder's key (the same on every run of the
   same folder) and drop the games the journal already has;
4. hand the remaining games, ``concurrency`` at a time, to an executor
   (:mod:`referee.tournament.executors`): threads, local worker processes or
   a Ray cluster; the runner does not know where games run;
5. check each finished game's log against the engine and append its record
   to ``journal.jsonl`` (sealed, written and fsynced after the game's log is
   closed and synced), so a kill at any moment loses at most the games in
   flight, which the next run replays;
6. once every game is in the journal (a gauntlet: once its tests have
   decided), close the journal with a sealed ``end`` entry and record it in
   ``tournament.json`` (sealed too), so that a journal cut short at its end
   is caught (:class:`~referee.folder.authenticate.JournalEnd`);
7. stop every bot and write the standings.

Ctrl-C or SIGTERM stops scheduling, gives the games in flight a moment to
finish (those that do are journaled), stops the bots, and returns a result
marked ``interrupted``; a second signal stops at once.

The output folder is described in docs/config.md.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import datetime
import logging
import math
import os
import pathlib
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from referee import __version__
from referee.audit.logs import verify_entry
from referee.folder import (
    BotEntry,
    GameEntry,
    Journal,
    Layout,
    RunEntry,
    TournamentError,
    TournamentState,
    WarningEntry,
    check_journal_end,
    given_key,
    load_standings,
    new_folder_key,
    read_journal,
    resumed_folder_key,
    seal,
    start_state,
    write_atomic,
)
from referee.match.runner import GameRecord
from referee.players.build_progress import BuildProgress
from referee.players.builds import BuildResult, build_bots
from referee.players.launcher import cpu_warning
from referee.players.specs import BotSpec, spec_folder
from referee.sandbox import bwrap, cgroups, procfs
from referee.schedule import Schedule, ScheduledGame, schedule_of
from referee.stats.render import render
from referee.stats.standings import Standings
from referee.tournament.config import TournamentConfig
from referee.tournament.executors import (
    GameExecutor,
    ProcessExecutor,
    Stopped,
    ThreadExecutor,
    WorkerSettings,
    games_per_table,
)
from referee.tournament.progress import Progress

__all__ = ["STOP_GRACE_S", "RunResult", "Tournament"]

log = logging.getLogger(__name__)

#: Seconds the games in flight get to finish after Ctrl-C before the bots are stopped.
STOP_GRACE_S = 2.0

Echo = Callable[[str], None]


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


def kill_child_groups() -> None:
    """Kill the process groups our children lead (bots starting up, builds) on an interrupt."""
    me = os.getpid()
    for process in procfs.processes():
        if process.ppid == me and process.pgid == process.pid:
            with contextlib.suppress(OSError):
                os.killpg(process.pgid, signal.SIGKILL)


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
    #: Seconds of play: from the first game handed out to the last one done (the progress
    #: line's clock, after the builds and the bots' start-up).
    play_s: float = 0.0
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
        #: The bots whose failure to start this run has already told the user of.
        self._bots_reported: set[str] = set()
        self.stop = threading.Event()
        self.run_number = 1
        self._journal: Journal | None = None
        self._executor: GameExecutor | None = None
        self._scheduled = 0
        self._errors: list[str] = []

    # Opening the folder ---------------------------------------------------------------------

    def _open_folder(self) -> TournamentState:
        """The folder's state: resumed, or new (moving an old folder aside if fresh)."""
        root, config = self.layout.root, self.config
        self.layout.check()  # the folder and its subfolders are folders, before any write
        digest = config.digest()
        given = given_key(self.key_file)  # before --fresh moves a folder (and maybe that key) aside
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
                self._key = resumed_folder_key(self.layout, state, given, self.key_file)
                # Before the state is saved (and sealed) again: a cut journal is not resumed.
                check_journal_end(self.layout, state, self._key)
                state.ranking = config.ranking
                state.save(self.layout.state, key=self._key)
                return state
        root.mkdir(parents=True, exist_ok=True)
        self._key = new_folder_key(self.layout, given, self.key_file)
        return start_state(self.layout, config, config_hash=digest, key=self._key)

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
        count = len({s.folder or s.cwd for s in specs if s.build})
        if not count:
            return {}
        parallel = self.config.build.parallel
        self.echo(f"building {count} bot folder(s), {parallel} at a time ...")
        failed: dict[str, str] = {}

        # A long, quiet build shows its time and its output's last line (referee.players.build_progress).
        builds = BuildProgress()

        def built(group: list[BotSpec], result: BuildResult) -> None:
            builds.done(group[0].name)
            names = ", ".join(s.name for s in group)
            where = os.path.relpath(result.log_path, self.layout.root)
            if result.ok:
                self.echo(f"  built {names} in {result.seconds:.1f} s")
                return
            self.echo(f"  BUILD FAILED: {names} (log: {result.log_path}); it ends:")
            self.echo("    " + result.tail.replace("\n", "\n    "))
            last = result.reason or (result.tail.strip().splitlines()[-1:] or [""])[0]
            for spec in group:
                failed[spec.name] = f"build failed ({where}): {last[:200]}"

        build_bots(
            specs,
            self.layout.builds,
            parallel=parallel,
            timeout_s=self.config.build.timeout_s,
            sandbox=self.config.sandbox,
            limits=self.config.build.limits,
            credentials=self.config.build.credentials,
            hidden=self._hidden(),
            on_built=built,
            registries=self.config.build.registries,
            on_progress=builds.update,
        )
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

    def _schedule(self, state: TournamentState) -> Schedule:
        """The schedule, rebuilt as every reader of the folder does: from tournament.json."""
        try:
            return schedule_of(state.to_dict(), self._key)
        except (KeyError, TypeError, ValueError) as error:
            raise TournamentError(
                f"{self.layout.state}: cannot make its schedule: {error}"
            ) from None

    def _on_bot(self, bot: str, status: str, reason: str = "", **extra: Any) -> None:
        # Said once a run: a bot started per game (or per worker) fails as often as it
        # is started, and the journal keeps every one of them.
        if reason and bot not in self._bots_reported:
            self._bots_reported.add(bot)
            where = f" (table {extra['table']})" if "table" in extra else ""
            self.echo(
                f"bot {bot}{where}: {reason}; its seats get fallback moves "
                "(said once; the journal records each start)"
            )
        assert self._journal is not None
        self._journal.append(
            BotEntry(run=self.run_number, bot=bot, status=status, reason=reason or None, **extra)
        )

    def _hidden(self) -> list[pathlib.Path]:
        """What no bot or build may see, even inside a folder it sees: the output folder,
        the config, a key file given with --key-file, and every bot's own folder (a bot's
        own is shown to it all the same)."""
        paths = [self.layout.root, self.config.path]
        if self.key_file is not None:
            paths.append(self.key_file)
        paths += [pathlib.Path(f) for f in (spec_folder(s) for s in self.config.bots) if f]
        return paths

    def _worker_settings(
        self, specs: Sequence[BotSpec], broken: Mapping[str, str]
    ) -> WorkerSettings:
        config = self.config
        return WorkerSettings(
            specs={s.name: s for s in specs},
            broken=dict(broken),
            log_dir=str(self.layout.bots),
            time_control=config.time_control,
            fault_policy=config.fault_policy,
            limits=config.limits,
            sandbox=config.sandbox,
            hidden=tuple(str(p) for p in self._hidden()),
            lifetime=config.bot_lifetime,
            parent=os.getpid(),
            registries=config.build.registries,
            build=config.build,
            shared=self._shared_processes(),
        )

    def _shared_processes(self) -> bool:
        """True when one bot process may serve several games at once (it cannot be frozen):
        threads share it (``shared``; ``per_table``, whose games of one table may overlap)."""
        return self.config.bot_processes in ("shared", "per_table") and self.concurrency > 1

    def _make_executor(
        self, todo: Sequence[ScheduledGame], broken: Mapping[str, str]
    ) -> GameExecutor:
        """The executor of this run's games, with the bots they need."""
        needed = {b for g in todo for b in g.bots}
        specs = [s for s in self.config.bots if s.name in needed]
        settings = self._worker_settings(specs, broken)
        if self.config.executor.kind == "ray":
            try:
                from referee.tournament.ray_executor import RayExecutor
            except ImportError as error:
                raise TournamentError(
                    f"{self.config.path}: executor: ray needs Ray ({error.name or error}): "
                    'install it with pip install "hearts-referee[ray]" '
                    '(in a checkout: pip install ".[ray]")'
                ) from None
            return RayExecutor(
                self.config.executor,
                settings,
                echo=self.echo,
                build_timeout_s=self.config.build.timeout_s,
            )
        if self.config.bot_processes == "per_worker":
            return ProcessExecutor(self.concurrency, settings)
        return ThreadExecutor(
            self.concurrency,
            settings,
            per_table=self.config.bot_processes == "per_table",
            games_per_table=games_per_table([g.table for g in todo]),
        )

    def _start_bots(self, todo: Sequence[ScheduledGame], broken: Mapping[str, str]) -> None:
        launched = sum(1 for s in self.config.bots if s.command and s.name not in broken)
        if launched and self.config.bot_processes != "per_table":
            self.echo(f"starting {launched} launched bot(s) ...")
        self._executor = self._make_executor(todo, broken)
        self._executor.start(self._on_bot)
        self.progress.where = self._executor.describe()

    def _submit(
        self, game: ScheduledGame, state: TournamentState
    ) -> concurrent.futures.Future[GameRecord]:
        """Hand one game to the executor."""
        assert self._executor is not None
        spec = game.spec(
            rules=self.config.rules,
            time_control=self.config.time_control,
            fault_policy=self.config.fault_policy,
            tournament=state.name,
        )
        return self._executor.submit(spec, self.layout.game_log(game.game_id, game.index))

    def _finish(self, game: ScheduledGame, future: concurrent.futures.Future[GameRecord]) -> bool:
        """Journal a finished game; False if it failed."""
        try:
            record = future.result()
        except (Stopped, concurrent.futures.CancelledError):
            return False
        except Exception as error:
            log.exception("game %s failed", game.game_id)
            self._errors.append(f"{game.game_id}: {type(error).__name__}: {error}")
            self.progress.errors += 1
            return False
        entry = GameEntry.of(
            record,
            place=game.meta(),
            log_path=self.layout.relative(pathlib.Path(record.log_path)),
            run=self.run_number,
        )
        try:
            mac = self._check_log(pathlib.Path(record.log_path), entry.to_json())
        except TournamentError as error:
            log.error("game %s not journaled: %s", game.game_id, error)
            self._errors.append(f"{game.game_id}: {error}")
            self.progress.errors += 1
            return False
        entry = dataclasses.replace(entry, log_mac=mac)
        assert self._journal is not None
        self._journal.append(entry)
        self.progress.add(entry.to_json())
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
        """Play ``todo``; returns whether every game is done (False if some were abandoned)."""
        assert self._executor is not None
        slots = self._executor.slots
        pending: dict[concurrent.futures.Future[GameRecord], ScheduledGame] = {}
        games = iter(todo)

        def fill() -> None:
            while not self.stop.is_set() and len(pending) < slots:
                game = next(games, None)
                if game is None:
                    return
                pending[self._submit(game, state)] = game

        fill()
        while pending and not self.stop.is_set():
            done, _ = concurrent.futures.wait(
                pending, timeout=0.5, return_when=concurrent.futures.FIRST_COMPLETED
            )
            finished = [(future, pending.pop(future)) for future in done]
            fill()  # the next games start before these are journaled
            for future, game in finished:
                self._finish(game, future)
            self.progress.where = self._executor.describe()
            self.progress.refresh()
        if pending:
            self._wind_down(pending)
        return not pending or all(f.done() for f in pending)

    def _wind_down(
        self, pending: dict[concurrent.futures.Future[GameRecord], ScheduledGame]
    ) -> None:
        """After a stop: journal the games that finish within the grace, abandon the rest."""
        self.echo(f"stopping: waiting up to {STOP_GRACE_S:.0f} s for {len(pending)} game(s) ...")
        done, _ = concurrent.futures.wait(pending, timeout=STOP_GRACE_S)
        for future in done:
            self._finish(pending.pop(future), future)
        if self._executor is not None:
            self._executor.close()
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
                kill_child_groups()
                result = self._interrupted_result()
            finally:
                if self._executor is not None:
                    self._executor.close()
                if self._journal is not None:
                    self._journal.close()
        result.signal_name = signals.signal_name
        result.elapsed_s = round(time.monotonic() - started, 2)
        result.play_s = self.progress.elapsed_s if self.progress.played else 0.0
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
        reason = cgroups.cgroup_support() if launched else ""
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
        _, broken = self._participants(state)
        schedule = self._schedule(state)
        self._scheduled = state.games_scheduled = len(schedule)
        state.save(self.layout.state, key=self._key)
        self.progress.start(len(schedule))
        done = self._journaled(schedule)
        self._journal = Journal(self.layout.journal, self._key, promise_end=True)
        self._journal.append(
            RunEntry(
                run=self.run_number,
                started_at=_now(),
                referee_version=__version__,
                concurrency=self.concurrency,
                games_left=len(schedule) - len(done),
                name=state.name,
                seed=state.seed,
                config_hash=state.config_hash,
                participants=None if state.participants is None else tuple(state.participants),
                excluded=dict(state.excluded),
                games_scheduled=state.games_scheduled,
                sealed_end=True,
            )
        )
        launched = any(s.command for s in self.config.bots)
        limits = self.config.limits.to_dict()
        cpu = cpu_warning(limits, shared=self._shared_processes()) if launched else ""
        for message in (m for m in (warning, cpu) if m):
            self._journal.append(WarningEntry(run=self.run_number, message=message))
            self.echo(f"warning: {message}")
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
        if self._executor is not None:
            self._executor.close()
        interrupted = self.stop.is_set()
        if not interrupted and self._complete():
            self._close_journal(state)
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

    def _complete(self) -> bool:
        """Whether the tournament is finished: every scheduled game is in the journal."""
        return self.progress.done >= self._scheduled

    def _close_journal(self, state: TournamentState) -> None:
        """The sealed ``end`` entry, then ``tournament.json`` recording it (in that order, so
        that a kill between the two leaves a closed journal and a state that says less)."""
        assert self._journal is not None
        state.finished = self._journal.append_end(
            run=self.run_number, games_scheduled=state.games_scheduled, finished_at=_now()
        )
        state.save(self.layout.state, key=self._key)

    def _describe(self, schedule: Schedule, left: int, seed: int) -> None:
        s, k = self.config.schedule, self.config.table_size
        kind = "a balanced sample of" if schedule.sampled else "all"
        per_set = len(schedule) // max(1, len(schedule.tables) * s.deal_sets)
        self.echo(
            f"{self.config.name}: {len(schedule)} games = {kind} {len(schedule.tables)} tables of "
            f"{k} x {s.deal_sets} deal set(s) x {per_set} seating(s); seed {seed}; "
            f"{left} to play, {self.concurrency} at a time; output {self.layout.root}"
        )
        if schedule.sampled and s.max_tables is not None and len(schedule.tables) != s.max_tables:
            n = len({b for table in schedule.tables for b in table})
            self.echo(
                f"note: max_tables {s.max_tables} gives {len(schedule.tables)} tables: a balanced "
                f"sample of {n} bots at tables of {k} has a multiple of "
                f"{n // math.gcd(n, k)} tables, so that every bot sits at as many"
            )

    def _write_standings(self, state: TournamentState) -> Standings:
        standings = load_standings(self.layout.root, ranking=self.config.ranking, key=self._key)
        write_atomic(self.layout.standings_json, render(standings, "json") + "\n")
        write_atomic(self.layout.standings_txt, render(standings, "table"))
        write_atomic(self.layout.head_to_head_csv, render(standings, "h2h-csv"))
        return standings


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
