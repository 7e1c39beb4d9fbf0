"""``referee verify``: replay logs through the engine and check every record."""

from __future__ import annotations

import pathlib

import click

from referee.audit.folder import FolderReport, cpu_count, verify_folder
from referee.audit.logs import Discrepancy, GameReport, verify_log
from referee.cli.options import FOLDER_KEY_HELP, jobs_option, key_file_option, quiet_option
from referee.folder.layout import (
    GAME_LOG_NAME,
    GAMES_NAME,
    JOURNAL_NAME,
    STATE_NAME,
    Layout,
    MatchLayout,
)
from referee.folder.seal import SealError, load_key
from referee.tournament.progress import Progress

__all__ = ["verify"]


@click.command()
@click.argument(
    "paths",
    metavar="LOG_OR_DIR...",
    nargs=-1,
    required=True,
    type=click.Path(exists=True, path_type=pathlib.Path),
)
@quiet_option("Print only the problems.")
@key_file_option(FOLDER_KEY_HELP)
@click.option(
    "--no-key",
    is_flag=True,
    help="Check a folder without its key: the rules and the files' agreement only, no MACs.",
)
@jobs_option("Check a folder's games in this many processes (default: one per core).")
def verify(
    paths: tuple[pathlib.Path, ...],
    quiet: bool,
    key_file: pathlib.Path | None,
    no_key: bool,
    jobs: int | None,
) -> None:
    """Check game logs, or tournament folders, against the rules engine.

    \b
    For each game: the deals are the seed's, every pass and play was legal,
    every offered legal-move set was exactly the engine's, fallback moves are
    the seeded ones, tricks, hand scores, moons and totals are the engine's,
    and fault counts, forfeits and the final result add up. For a tournament
    folder also: every journal entry has its log and agrees with it, and
    standings.json agrees with standings recomputed from the journal; and,
    with the folder's key (DIR/key, or --key-file), every journal line's and
    log's MAC and every deal seed. A folder without its key fails, as its
    results cannot be authenticated, unless --no-key is given.

    Prints the first discrepancy of each game with its place (file:line,
    hand, trick, seat) and exits with status 1 if there is any. A folder's
    games are checked on every core (--jobs), with progress on stderr.
    """
    if key_file is not None and no_key:
        raise click.UsageError("--key-file and --no-key exclude each other")
    try:
        key = load_key(key_file) if key_file is not None else None
    except SealError as error:
        raise click.BadParameter(str(error), param_hint="--key-file") from None
    failed = False
    for path in paths:
        if path.is_dir() and not Layout(path).held_tournament():
            failed |= not _match_folder(path, quiet)
        elif path.is_dir():
            failed |= not _folder(path, quiet, key, not no_key, jobs or cpu_count())
        else:
            failed |= not _log(path, quiet)
    if failed:
        raise SystemExit(1)


def _fail(text: str) -> None:
    click.echo(click.style("FAIL ", fg="red", bold=True) + text)


def _problem(problem: Discrepancy) -> None:
    _fail(str(problem))


def _log(path: pathlib.Path, quiet: bool) -> bool:
    report = verify_log(path)
    if report.problem:
        _problem(report.problem)
        return False
    if not quiet:
        click.echo(f"OK {path}: {_game_summary(report)}")
    return True


def _match_folder(path: pathlib.Path, quiet: bool) -> bool:
    """A match's folder (``game.jsonl``, ``games/*.jsonl``) or a folder of logs: each log."""
    logs = MatchLayout(path).game_logs() or sorted(p for p in path.glob("*.jsonl") if p.is_file())
    if not logs:
        _fail(
            f"{path}: no game logs here: not a tournament folder (no {JOURNAL_NAME} or "
            f"{STATE_NAME}), nor a match's (no {GAME_LOG_NAME} or {GAMES_NAME}/*.jsonl)"
        )
        return False
    if not quiet:
        click.echo(
            f"note: {path} is not a tournament folder (no {JOURNAL_NAME}): "
            f"its {_count(len(logs), 'game log')} checked one by one"
        )
    ok = True
    for log in logs:
        ok &= _log(log, quiet)
    return ok


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _game_summary(report: GameReport) -> str:
    return (
        f"game {report.game_id}, {_count(report.hands, 'hand')}, {_count(report.records, 'record')}"
    )


def _folder(
    path: pathlib.Path, quiet: bool, key: bytes | None, authenticate: bool, jobs: int
) -> bool:
    progress = Progress(enabled=not quiet)
    progress.errors_label = "problems"

    def on_game(game: GameReport) -> None:
        if game.problem is not None:
            progress.errors += 1
        if {"bots", "hand_scores", "faults"} <= game.summary.keys():
            progress.add(game.summary)
        else:  # a log too damaged to say who played
            progress.done += 1
            progress.played += 1
        progress.refresh()

    report = verify_folder(
        path,
        key=key,
        authenticate=authenticate,
        on_start=progress.start,
        on_game=on_game,
        workers=jobs,
    )
    progress.finish()
    for problem in report.all_problems:
        _problem(problem)
    if not quiet:
        for note in report.notes:
            click.echo(f"note: {note}")
    if report.ok and not quiet:
        click.echo(f"OK {path}: {_folder_summary(report)}")
    return report.ok


def _folder_summary(report: FolderReport) -> str:
    hands = sum(g.hands for g in report.games)
    records = sum(g.records for g in report.games)
    standings = "standings agree" if report.standings_checked else "no standings to check"
    sealed = (
        f"authentic (MACs and deal seeds checked with {report.authenticated_with})"
        if report.authenticated_with
        else "NOT authenticated (--no-key)"
    )
    return (
        f"{_count(len(report.games), 'game')} ({_count(hands, 'hand')}, "
        f"{_count(records, 'record')}) replayed; "
        f"the journal's {report.journal_entries} entries agree with the logs; {standings}; "
        f"{sealed}"
    )
