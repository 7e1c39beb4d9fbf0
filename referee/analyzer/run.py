"""Analysing logs: one game, or every game of a folder in worker processes.

:func:`analyse_log` is the unit of work: it reads a log, analyses the seats
of the chosen bots (reusing what the analysis file beside it already holds
for the same log and settings), writes the file, and returns what it found.
:func:`analyse_logs` runs it over many logs, ``jobs`` at a time, in spawned
worker processes that die with the referee (:mod:`referee.sandbox.lifeline`).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import os
import pathlib
import signal
from collections.abc import Callable, Iterator, Sequence

from referee import __version__
from referee.analysis.record import (
    AnalysisError,
    AnalysisFile,
    SeatAnalysis,
    analysis_path,
    log_digest,
    read_analysis,
    write_analysis,
)
from referee.analyzer.evaluate import Settings
from referee.analyzer.game import AnalysisReplayError, analyse_game
from referee.audit.replay import COMPASS, Game, load_game
from referee.folder import Layout, TournamentError, game_entries, game_log_path
from referee.match.gamelog import LogError

__all__ = [
    "LogResult",
    "SeatChoice",
    "analyse_log",
    "analyse_logs",
    "cpu_count",
    "logs_of",
    "seat_choice",
]


@dataclasses.dataclass(frozen=True, slots=True)
class SeatChoice:
    """Which seats to analyse: bots by name, or (for one log) seat numbers; or every seat."""

    bots: tuple[str, ...] = ()
    seats: tuple[int, ...] = ()
    every: bool = False

    def of(self, game: Game) -> list[int]:
        if self.every:
            return list(range(game.n))
        return [s.seat for s in game.seats if s.bot in self.bots or s.seat in self.seats]


@dataclasses.dataclass(frozen=True, slots=True)
class LogResult:
    """What one log's analysis gave: its seats, how many decisions were searched now, or an error."""

    log: str
    game_id: str = ""
    seats: tuple[SeatAnalysis, ...] = ()
    #: Bots at the table (for a "no such bot" message).
    bots: tuple[str, ...] = ()
    searched: int = 0
    reused: int = 0
    error: str = ""


def logs_of(source: pathlib.Path) -> list[pathlib.Path]:
    """The logs to analyse: the log itself, a tournament folder's journaled games in journal
    order, or the logs in a folder (``referee match --out``'s ``game.jsonl``, say)."""
    if source.is_file():
        return [source]
    layout = Layout(source)
    if layout.journal.is_file():
        logs = []
        for entry in game_entries(source):
            try:
                logs.append(game_log_path(source, entry["game_id"]))
            except TournamentError:
                continue  # journaled but missing: verify reports it
        return list(dict.fromkeys(logs))
    found = sorted(
        p for pattern in ("*.jsonl", "*.jsonl.gz") for p in source.glob(pattern) if p.is_file()
    )
    if not found:
        raise TournamentError(
            f"{source} is neither a game log, a tournament folder, nor a folder of game logs"
        )
    return found


def analyse_log(
    log: pathlib.Path,
    choice: SeatChoice,
    settings: Settings,
    *,
    force: bool = False,
    on_decision: Callable[[], None] | None = None,
) -> LogResult:
    """Analyse the chosen seats of one log and write the analysis file beside it."""
    try:
        game = load_game(log)
    except LogError as error:
        return LogResult(str(log), error=str(error))
    bots = tuple(s.bot for s in game.seats)
    seats = choice.of(game)
    if not seats:
        return LogResult(str(log), game.game_id, bots=bots)
    where = analysis_path(log)
    try:
        digest = log_digest(log)
        existing = read_analysis(where)
    except AnalysisError as error:
        if not force:
            return LogResult(str(log), game.game_id, bots=bots, error=f"{error}; use --force")
        existing = None
    except OSError as error:
        return LogResult(str(log), game.game_id, bots=bots, error=f"{log}: {error.strerror}")
    if existing is None or existing.log_sha256 != digest:
        existing = AnalysisFile(
            log=log.name, log_sha256=digest, game_id=game.game_id, referee_version=__version__
        )
    wanted = settings.to_dict()
    kept = {
        s: a for s, a in existing.seats.items() if s in seats and a.settings == wanted and not force
    }
    todo = [s for s in seats if s not in kept]
    try:
        fresh = analyse_game(game, todo, settings, on_decision=on_decision) if todo else {}
    except AnalysisReplayError as error:
        return LogResult(str(log), game.game_id, bots=bots, error=str(error))
    if fresh:
        existing.seats.update(fresh)
        existing.referee_version = __version__
        try:
            write_analysis(where, existing)
        except OSError as error:
            return LogResult(
                str(log), game.game_id, bots=bots, error=f"cannot write {where}: {error.strerror}"
            )
    searched = sum(1 for a in fresh.values() for d in a.decisions if d.searched)
    reused = sum(1 for a in kept.values() for d in a.decisions if d.searched)
    ordered = tuple(existing.seats[s] for s in seats)
    return LogResult(str(log), game.game_id, ordered, bots, searched, reused)


def _ignore_ctrl_c() -> None:
    """In a worker: Ctrl-C is the parent's to handle (it stops the pool), not a traceback here."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _job(args: tuple[pathlib.Path, SeatChoice, Settings, bool]) -> LogResult:
    log, choice, settings, force = args
    return analyse_log(log, choice, settings, force=force)


def analyse_logs(
    logs: Sequence[pathlib.Path],
    choice: SeatChoice,
    settings: Settings,
    *,
    jobs: int = 1,
    force: bool = False,
) -> Iterator[LogResult]:
    """Every log's result, in the order the logs finish (``jobs`` processes at a time)."""
    jobs = max(1, min(jobs, len(logs)))
    if jobs == 1:
        for log in logs:
            yield analyse_log(log, choice, settings, force=force)
        return
    from referee.sandbox import lifeline

    pool = concurrent.futures.ProcessPoolExecutor(
        jobs, mp_context=lifeline.spawn_context(), initializer=_ignore_ctrl_c
    )
    try:
        futures = [pool.submit(_job, (log, choice, settings, force)) for log in logs]
        for future in concurrent.futures.as_completed(futures):
            yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def seat_choice(texts: Sequence[str], *, every: bool, single: Game | None) -> SeatChoice:
    """The seats ``--seat`` names: bot names, or for one log a seat number or N/E/S/W."""
    bots: list[str] = []
    seats: list[int] = []
    for text in texts:
        value = text.strip()
        if single is not None and value.isascii() and value.isdigit() and int(value) < single.n:
            seats.append(int(value))
        elif single is not None and single.n == 4 and value.upper() in COMPASS:
            seats.append(COMPASS.index(value.upper()))
        else:
            bots.append(value)
    return SeatChoice(tuple(bots), tuple(seats), every)


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
