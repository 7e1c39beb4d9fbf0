"""The audit of a tournament folder (``referee verify FOLDER``): :func:`verify_folder`.

:func:`verify_folder` checks every game of a tournament's output folder
(:func:`~referee.audit.logs.verify_log`) and its journal (one ``GameRecord`` per
line) against the logs, and its standings file against standings recomputed
from the journal. With the tournament's key (:mod:`referee.folder.seal`) it
first authenticates the folder: every journal line's MAC, every log's MAC, the
deal seeds (the key's for each place in the schedule) and ``tournament.json``;
anything that fails is refused, naming the file and line.

It reads the folder through its owner (:mod:`referee.folder`) and rebuilds the
schedule with :func:`referee.schedule.schedule_of`; it never imports
the tournament runner and never starts a bot.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import json
import multiprocessing
import os
import pathlib
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

from referee.audit.logs import Discrepancy, GameReport, journal_against_log, verify_log
from referee.folder import (
    JOURNAL_NAME,
    STANDINGS_JSON_NAME,
    STATE_NAME,
    JournalEnd,
    JournalProblem,
    Layout,
    ProblemKind,
    RunEntry,
    TournamentError,
    TournamentState,
    end_problems,
    load_standings,
    read_lines,
    seal,
    state_problem,
)
from referee.schedule import schedule_of

__all__ = ["FolderReport", "cpu_count", "verify_folder"]


@dataclasses.dataclass(slots=True, kw_only=True)
class FolderReport:
    """The audit of a tournament folder."""

    folder: str
    games: list[GameReport] = dataclasses.field(default_factory=list)
    #: Problems of the journal and the standings (the games' are in ``games``).
    problems: list[Discrepancy] = dataclasses.field(default_factory=list)
    #: Remarks that are not errors (logs of unfinished games, no standings file).
    notes: list[str] = dataclasses.field(default_factory=list)
    journal_entries: int = 0
    standings_checked: str | None = None
    #: The key the folder was authenticated with (a path, or "the key given"); None if none.
    authenticated_with: str | None = None
    #: Game ids of the journal lines refused (their MAC failed).
    refused_games: set[str] = dataclasses.field(default_factory=set)

    @property
    def all_problems(self) -> list[Discrepancy]:
        return [g.problem for g in self.games if g.problem] + self.problems

    @property
    def ok(self) -> bool:
        return not self.all_problems


# A tournament folder --------------------------------------------------------------

#: The facts of tournament.json that every run entry of the journal repeats under its MAC.
_SEALED_FACTS = RunEntry.SEALED_FACTS


def verify_folder(
    folder: str | os.PathLike[str],
    *,
    key: bytes | None = None,
    authenticate: bool = True,
    on_start: Callable[[int], None] | None = None,
    on_game: Callable[[GameReport], None] | None = None,
    workers: int = 1,
) -> FolderReport:
    """Verify every game of a tournament folder, its journal and its standings.

    With ``authenticate`` (the default), the journal's line MACs, each game
    log's MAC and the deal seeds are checked with ``key``, by default the
    folder's key file (:mod:`referee.folder.seal`); a folder without a key is then
    a problem, since its results cannot be authenticated. Without
    ``authenticate``, only the rules and the consistency of the files are
    checked. ``on_start`` is told how many games will be replayed, and
    ``on_game`` sees each game's report as it is made, in journal order (for
    progress output).

    The games are independent, so with ``workers`` above 1 they are checked
    in that many processes (:func:`cpu_count` for every core); the report is
    the same, in the same order.
    """
    root = pathlib.Path(folder)
    report = FolderReport(folder=str(root))
    journal_path = root / JOURNAL_NAME
    state = _read_state(root, report)
    if authenticate:
        key = _folder_key(root, key, state, report)
    else:
        key = None
        report.notes.append(
            "not authenticated (no key): the games follow the rules and the files agree, "
            "but a log and journal rewritten consistently would pass too"
        )
    end = JournalEnd()
    # The journal's entries; a bad line is a problem (and is skipped). With ``key`` every
    # line's MAC is checked; ``end`` sees every entry that passed, for _check_end.
    everything: list[tuple[int, dict[str, Any]]] = []
    if not journal_path.is_file():
        report.problems.append(
            Discrepancy(
                path=str(journal_path), line=0, message="no journal: not a tournament folder?"
            )
        )
    for journal_line in read_lines(journal_path, key=key, on_problem=_JournalProblems(report)):
        end.add(journal_line.number, journal_line.entry, journal_line.mac)
        everything.append((journal_line.number, journal_line.entry))
    # Its end is checked once the games are (their problems come first in the report), and
    # not at all when the state, the key or a line has failed already (a broken chain).
    check_end = not report.problems
    entries = [(line, e) for line, e in everything if _is_game_entry(e)]
    report.journal_entries = len(entries)
    seen: dict[str, int] = {}
    # The journal in order: a problem found from the journal alone, or a game to check.
    steps: list[Discrepancy | tuple[int, dict[str, Any], pathlib.Path]] = []
    for line, entry in entries:
        game_id = str(entry.get("game_id", ""))
        if game_id in seen:
            steps.append(
                Discrepancy(
                    path=str(journal_path),
                    line=line,
                    message=f"game {game_id} is in the journal twice (also line {seen[game_id]})",
                )
            )
            continue
        seen[game_id] = line
        log = _log_of(root, entry)
        if log is None:
            steps.append(
                Discrepancy(path=str(journal_path), line=line, message=f"game {game_id} has no log")
            )
            continue
        steps.append((line, entry, log))
    jobs = [
        (log, key, journal_path, line, {k: entry.get(k) for k in ("game_id", "log_mac")})
        for step in steps
        if not isinstance(step, Discrepancy)
        for line, entry, log in [step]
    ]
    if on_start:
        on_start(len(jobs))
    with _game_checks(jobs, workers) as games:
        for step in steps:
            if isinstance(step, Discrepancy):
                report.problems.append(step)
                continue
            line, entry, _ = step
            game = next(games)
            report.games.append(game)
            if on_game:
                on_game(game)
            if game.ok:
                problem = journal_against_log(journal_path, line, entry, game)
                if problem:
                    report.problems.append(problem)
    if check_end:
        _check_end(root, state, end, key, report)
    if key is not None:
        _check_sealed_facts(root, state, everything, report)
        _check_schedule(root, state, key, entries, report)
    _unjournaled_logs(root, seen, report)
    _schedule_note(root, len(seen.keys() | report.refused_games - {""}), report)
    if key is not None and not report.ok:
        report.notes.append("standings not checked: the folder failed authentication")
    else:
        _check_standings(root, [e for _, e in everything], report, key)
    return report


def _read_state(root: pathlib.Path, report: FolderReport) -> dict[str, Any] | None:
    """tournament.json as data, or None (with a note) when there is none."""
    path = root / STATE_NAME
    if not path.is_file():
        report.notes.append(f"no {STATE_NAME}: the schedule and the deal seeds not checked")
        return None
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as error:
        report.problems.append(Discrepancy(path=str(path), line=0, message=f"unreadable: {error}"))
        return None
    if not isinstance(state, dict):
        report.problems.append(Discrepancy(path=str(path), line=0, message="not a JSON object"))
        return None
    problem = state_problem(state)
    if problem:
        report.problems.append(Discrepancy(path=str(path), line=0, message=problem))
        return None
    return state


def _folder_key(
    root: pathlib.Path, key: bytes | None, state: dict[str, Any] | None, report: FolderReport
) -> bytes | None:
    """The key to authenticate with (given, else the folder's); None with a problem if none."""
    where = str(root / seal.KEY_NAME)
    if key is None:
        try:
            key = seal.folder_key(root)
        except seal.SealError as error:
            report.problems.append(Discrepancy(path=where, line=0, message=error.reason))
            return None
        if key is None:
            report.problems.append(
                Discrepancy(
                    path=where,
                    line=0,
                    message=(
                        "no key file, so the journal and the logs cannot be authenticated "
                        "(a folder published without its key): give the key, or check the "
                        "games against the rules only"
                    ),
                )
            )
            return None
    else:
        where = "the key given"
    expected = state.get("key_id") if state else None
    if expected is not None and expected != seal.key_id(key):
        report.problems.append(
            Discrepancy(
                path=str(root / STATE_NAME),
                line=0,
                message=(
                    f"the tournament's key id is {expected}, but {where} has {seal.key_id(key)}: "
                    "not this tournament's key (nothing was authenticated)"
                ),
            )
        )
        return None
    report.authenticated_with = where
    return key


def cpu_count() -> int:
    """The cores this process may run on (its affinity, where the system says)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


#: Games handed to a worker process at a time: few enough for a smooth progress line,
#: enough that a game's check (15-25 ms) outweighs the hand-over.
_CHUNK = 8


@contextlib.contextmanager
def _game_checks(
    jobs: list[tuple[pathlib.Path, bytes | None, pathlib.Path, int, dict[str, Any]]],
    workers: int,
) -> Iterator[Iterator[GameReport]]:
    """The reports of :func:`_verify_game` for ``jobs``, in order, from ``workers`` processes."""
    workers = max(1, min(workers, len(jobs)))
    if workers == 1:
        yield (_verify_game_job(job) for job in jobs)
        return
    # Forked workers start at once with the referee imported; a process that runs
    # threads (a server, say) spawns them instead, since forking it is unsafe.
    method = "fork" if threading.active_count() == 1 and os.name == "posix" else "spawn"
    pool = concurrent.futures.ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context(method), initializer=_leave_ctrl_c
    )
    try:
        yield pool.map(_verify_game_job, jobs, chunksize=_CHUNK)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _leave_ctrl_c() -> None:
    """In a worker: Ctrl-C is the parent's to handle (it stops the pool), not a traceback here."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _verify_game_job(
    job: tuple[pathlib.Path, bytes | None, pathlib.Path, int, dict[str, Any]],
) -> GameReport:
    return _verify_game(*job)


def _verify_game(
    log: pathlib.Path,
    key: bytes | None,
    journal_path: pathlib.Path,
    line: int,
    entry: dict[str, Any],
) -> GameReport:
    """The game's report: its log's MAC (with a key) and then its replay."""
    if key is not None:
        try:
            data = log.read_bytes()
        except OSError as error:
            problem = Discrepancy(path=str(log), line=0, message=f"unreadable: {error.strerror}")
            return GameReport(path=str(log), game_id=str(entry.get("game_id")), problem=problem)
        mac = entry.get("log_mac")
        if not isinstance(mac, str) or mac != seal.log_mac(key, data):
            message = (
                f"refused: the log does not match the MAC journaled for it ({journal_path}:{line}): "
                "it was changed after the game, or comes from another tournament"
            )
            problem = Discrepancy(path=str(log), line=0, message=message)
            return GameReport(path=str(log), game_id=str(entry.get("game_id")), problem=problem)
    return verify_log(log)


class _JournalProblems:
    """The lenient journal reader's hook: each bad line a problem of the report (or a note)."""

    def __init__(self, report: FolderReport) -> None:
        self.report = report

    def __call__(self, problem: JournalProblem) -> None:
        report, where = self.report, str(problem.path)
        if problem.kind is ProblemKind.TORN:
            report.notes.append(
                f"{where}:{problem.line}: a torn last line (a kill mid-write), ignored as the "
                "tournament does; its game is played again on resume"
            )
        elif problem.kind is ProblemKind.MAC:
            # The reader goes on from the MAC the line carries, so that only the lines
            # changed, or those after a gap, are refused.
            report.problems.append(
                Discrepancy(path=where, line=problem.line, message=f"refused: {problem.message}")
            )
            report.refused_games.add(_game_id_of(problem.raw))
        elif problem.kind is ProblemKind.JSON:
            cause = problem.cause
            why = cause.msg if isinstance(cause, json.JSONDecodeError) else "too long or deep"
            report.problems.append(
                Discrepancy(path=where, line=problem.line, message=f"not JSON: {why}")
            )
        elif problem.kind is ProblemKind.ENTRY:
            report.problems.append(
                Discrepancy(path=where, line=problem.line, message=problem.message)
            )
        # ProblemKind.SHAPE: JSON but no entry (no object with a type): nothing to check.


def _check_end(
    root: pathlib.Path,
    state: dict[str, Any] | None,
    end: JournalEnd,
    key: bytes | None,
    report: FolderReport,
) -> None:
    """A finished tournament's journal must end as ``tournament.json`` records it (not cut).

    Left out (by the caller) when the journal or ``tournament.json`` has
    already failed (a refused line breaks the chain), and here when the state
    could not be read, so the report names the first cause, not its echoes.
    """
    state_path = root / STATE_NAME
    if state is None and state_path.exists():
        return
    parsed = TournamentState.from_dict(state) if state is not None else None
    for path, line, message in end_problems(end, parsed, Layout(root), key):
        report.problems.append(Discrepancy(path=str(path), line=line, message=message))
    if parsed is None or not end.promised or parsed.config.get("gauntlet"):
        return
    scheduled = parsed.games_scheduled
    if scheduled and end.games >= scheduled and end.last_type != "end":
        report.notes.append(
            f"not closed: every one of the {scheduled} scheduled games is in the journal, but no "
            "end entry follows them: the referee stopped before it closed the journal (run the "
            "tournament again to close it), or the end entry was removed and tournament.json "
            "put back to a copy from before the end"
        )


def _game_id_of(raw: bytes) -> str:
    """The game id a journal line claims (for the notes only), or ""."""
    try:
        entry = json.loads(raw)
    except (ValueError, RecursionError):
        return ""
    return str(entry.get("game_id", "")) if _is_game_entry(entry) else ""


def _check_sealed_facts(
    root: pathlib.Path,
    state: dict[str, Any] | None,
    entries: list[tuple[int, dict[str, Any]]],
    report: FolderReport,
) -> None:
    """tournament.json must say what the journal's (authenticated) run entries say."""
    if state is None:
        return
    runs = [(line, e) for line, e in entries if e.get("type") == "run"]
    for line, run in runs:
        for name in _SEALED_FACTS:
            if name in run and run[name] != state.get(name):
                report.problems.append(
                    Discrepancy(
                        path=str(root / STATE_NAME),
                        line=0,
                        message=(
                            f"its {name} {json.dumps(state.get(name))} disagrees with the run "
                            f"entry sealed in {root / JOURNAL_NAME}:{line}: {json.dumps(run[name])}"
                        ),
                    )
                )
                return


def _check_schedule(
    root: pathlib.Path,
    state: dict[str, Any] | None,
    key: bytes,
    entries: list[tuple[int, dict[str, Any]]],
    report: FolderReport,
) -> None:
    """Each game is the schedule's: its place, its seats and its deal seed (from the key)."""
    if state is None:
        return
    try:
        schedule = schedule_of(state, key, games=(e for _, e in entries)).by_id()
    except (KeyError, TypeError, ValueError) as error:
        report.problems.append(
            Discrepancy(
                path=str(root / STATE_NAME),
                line=0,
                message=f"cannot make the tournament's schedule from it: {error!r}",
            )
        )
        return
    journal_path = str(root / JOURNAL_NAME)
    for line, entry in entries:
        game_id = entry.get("game_id")
        game = schedule.get(game_id) if isinstance(game_id, str) else None
        if game is None:
            report.problems.append(
                Discrepancy(
                    path=journal_path, line=line, message=f"game {game_id} is not in the schedule"
                )
            )
            continue
        want = {"seed": game.seed, "bots": list(game.bots), **game.meta()}
        for name, value in want.items():
            if name in entry and entry[name] != value:
                what = "the key's deal seed for its place" if name == "seed" else "the schedule's"
                report.problems.append(
                    Discrepancy(
                        path=journal_path,
                        line=line,
                        message=(
                            f"game {game_id}: its {name} {json.dumps(entry[name])} is not "
                            f"{what} ({json.dumps(value)})"
                        ),
                    )
                )
                break


def _is_game_entry(entry: Any) -> bool:
    """A journal line that records a game (other lines: schedule, bots)."""
    return (
        isinstance(entry, dict)
        and entry.get("type", "game") == "game"
        and "game_id" in entry
        and "scores" in entry
    )


def _log_of(root: pathlib.Path, entry: dict[str, Any]) -> pathlib.Path | None:
    """The log of a journal entry: its ``log_path``, or ``games/<id>.jsonl`` (older folders)."""
    candidates = [Layout(root).game_log(str(entry.get("game_id")))]
    log_path = entry.get("log_path")
    if isinstance(log_path, str) and log_path:
        given = pathlib.Path(log_path)
        candidates += [given] if given.is_absolute() else [root / given, given]
    return next((c for c in candidates if c.is_file()), None)


def _unjournaled_logs(root: pathlib.Path, seen: dict[str, int], report: FolderReport) -> None:
    known = seen.keys() | report.refused_games
    extra = sorted(
        Layout(root).relative(path)
        for game_id, path in Layout(root).game_logs()
        if game_id not in known
    )
    if extra:
        shown = ", ".join(extra[:5]) + (" ..." if len(extra) > 5 else "")
        report.notes.append(
            f"{len(extra)} game log(s) not in the journal (unfinished games, "
            f"played again on resume): {shown}"
        )


def _schedule_note(root: pathlib.Path, games: int, report: FolderReport) -> None:
    """Say so when the tournament's state file schedules games the journal does not have."""
    try:
        state = json.loads((root / STATE_NAME).read_text(encoding="utf-8"))
        scheduled = state.get("games_scheduled")
    except (OSError, ValueError, AttributeError, RecursionError):
        return
    config = state.get("config") if isinstance(state, dict) else None
    gauntlet = isinstance(config, dict) and config.get("gauntlet")
    if isinstance(scheduled, int) and games < scheduled and gauntlet:
        report.notes.append(
            f"a gauntlet: {games} of at most {scheduled} games are in the journal "
            "(it stops when its test decides; referee gauntlet FOLDER shows the result)"
        )
        return
    if isinstance(scheduled, int) and games < scheduled:
        report.notes.append(
            f"unfinished: {games} of {scheduled} scheduled games are in the journal "
            "(run the tournament again to resume it)"
        )


def _check_standings(
    root: pathlib.Path,
    entries: list[dict[str, Any]],
    report: FolderReport,
    key: bytes | None,
) -> None:
    """Compare the folder's standings file with standings recomputed from the journal."""
    path = root / STANDINGS_JSON_NAME
    if not path.is_file():
        report.notes.append(f"no {STANDINGS_JSON_NAME}: standings not checked")
        return
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as error:
        report.problems.append(Discrepancy(path=str(path), line=0, message=f"unreadable: {error}"))
        return
    try:
        fresh = _recompute_standings(root, saved, entries, key)
    except (KeyError, TypeError, ValueError) as error:
        report.problems.append(
            Discrepancy(path=str(path), line=0, message=f"cannot recompute the standings: {error}")
        )
        return
    saved, fresh, older = _as_of_version(saved, fresh)
    if older:
        report.notes.append(older)
    difference = _first_difference(saved, fresh)
    if difference:
        report.problems.append(
            Discrepancy(
                path=str(path),
                line=0,
                message=f"{difference} (recomputed from the journal)",
            )
        )
    report.standings_checked = str(path)


def _as_of_version(
    saved: dict[str, Any], fresh: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any], str | None]:
    """Saved and recomputed standings made comparable when the saved file is an older version.

    A folder written by an older referee keeps its standings file: the figures
    whose method has changed since (:data:`~referee.stats.standings.CHANGED_SINCE`)
    are left out of both sides, with a note; every other figure is rechecked.
    """
    from referee.stats import standings

    version = saved.get("version")
    if not isinstance(version, int) or version >= standings.STANDINGS_VERSION:
        return saved, fresh, None  # the current version (or a damaged one: the diff says so)
    left_out = sorted(
        {field for v, fields in standings.CHANGED_SINCE.items() if v >= version for field in fields}
    )

    def without(data: dict[str, Any]) -> dict[str, Any]:
        rows = [
            {k: v for k, v in row.items() if k not in left_out} if isinstance(row, dict) else row
            for row in data.get("bots", [])
        ]
        return {**data, "version": version, "bots": rows}

    note = (
        f"{STANDINGS_JSON_NAME} is standings version {version} (this referee writes "
        f"{standings.STANDINGS_VERSION}): {', '.join(left_out)} not rechecked, computed "
        "by an older method"
    )
    return without(saved), without(fresh), note


def _recompute_standings(
    root: pathlib.Path, saved: dict[str, Any], entries: list[dict[str, Any]], key: bytes | None
) -> dict[str, Any]:
    """Standings recomputed from the journal with the saved file's ranking.

    The tournament's own :func:`~referee.folder.load_standings` is used
    (authenticating with ``key`` when there is one) when the folder has its
    state file; otherwise the bots, name and ranking come from the saved
    standings.
    """
    from referee.stats import standings

    if saved.get("format") != standings.STANDINGS_FORMAT:
        raise ValueError(f"not a {standings.STANDINGS_FORMAT} file")
    if Layout(root).state.is_file():
        try:
            table = load_standings(
                root, ranking=saved["ranking"], key=key, authenticate=key is not None
            )
        except TournamentError as error:
            raise ValueError(str(error)) from None
        return table.to_dict()
    rows = saved["bots"]
    excluded = {r["bot"]: r.get("reason", "") for r in rows if r.get("status") == "build_failed"}
    table = standings.compute_standings(
        entries,
        bots=[r["bot"] for r in rows],
        excluded=excluded,
        ranking=saved["ranking"],
        name=saved.get("tournament", ""),
        games_scheduled=saved.get("games_scheduled"),
    )
    return table.to_dict()


def _first_difference(saved: Any, fresh: Any, where: str = "") -> str | None:
    """Where two JSON values first differ (floats within 1e-6), or None."""
    if isinstance(saved, dict) and isinstance(fresh, dict):
        for key in sorted(set(saved) | set(fresh)):
            if key not in fresh or key not in saved:
                return f"{where}.{key} is only in one of them".lstrip(".")
            found = _first_difference(saved[key], fresh[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(saved, list) and isinstance(fresh, list) and len(saved) == len(fresh):
        for index, (a, b) in enumerate(zip(saved, fresh, strict=True)):
            found = _first_difference(a, b, f"{where}[{index}]")
            if found:
                return found
        return None
    numbers = (int, float)
    if isinstance(saved, numbers) and isinstance(fresh, numbers):
        if abs(saved - fresh) <= 1e-6 * max(1.0, abs(fresh)):
            return None
    elif saved == fresh:
        return None
    return f"{where.lstrip('.')} is {json.dumps(saved)}, but {json.dumps(fresh)}"
