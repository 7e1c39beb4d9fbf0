"""``referee gauntlet CONFIG.yaml``: is the candidate better than its baselines?

Runs (or resumes) a ``format: gauntlet`` config: paired games on duplicate
deals and a sequential test (docs/sprt.md). The exit code is for CI:
0 H1 accepted (better), 1 H0 accepted, 2 no decision, 3 an error, 130
interrupted. ``referee gauntlet OUT_DIR`` prints a folder's result again.
"""

from __future__ import annotations

import pathlib
import sys

import click

from referee.cli.options import run_options
from referee.cli.run_common import print_summary, report_interrupted
from referee.folder import JournalError, TournamentError
from referee.tournament.config import ConfigError, load_config
from referee.tournament.gauntlet import GauntletProgress, GauntletTournament
from referee.tournament.gauntlet_report import folder_report, render_report

#: Exit code of an error (config, folder, key, referee errors): not 1, which means H0.
ERROR_EXIT = 3


class GauntletError(click.ClickException):
    exit_code = ERROR_EXIT


@click.command()
@click.argument("path", metavar="CONFIG.yaml|OUT_DIR", type=click.Path(path_type=pathlib.Path))
@run_options(
    fresh_help="Start over: move an existing output folder aside.",
    key_file_help="Use this key (another folder's 'key') instead of a new one.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="How to print the result.",
)
def gauntlet(
    path: pathlib.Path,
    out_dir: pathlib.Path | None,
    fresh: bool,
    concurrency: int | None,
    quiet: bool,
    key_file: pathlib.Path | None,
    fmt: str,
) -> None:
    """Play a gauntlet (format: gauntlet) and test whether the candidate is better.

    Every deal is played with the candidate and with each baseline in the
    same seat against the same opponents; a sequential probability ratio
    test on the paired differences stops as soon as the answer is clear.
    Run the same command again after an interruption and it resumes (the
    test is rebuilt from the journal). Given an output folder instead of a
    config, prints that gauntlet's result again.

    Exit code: 0 H1 accepted (the candidate is better), 1 H0 accepted,
    2 no decision, 3 an error, 130 interrupted.
    """
    if path.is_dir():
        _print_folder(path, key_file, fmt)
        return
    try:
        config = load_config(path)
    except ConfigError as error:
        raise GauntletError(str(error)) from None
    if config.gauntlet is None:
        raise GauntletError(f"{path}: not a gauntlet: add format: gauntlet and a gauntlet section")
    run_gauntlet(
        config,
        out_dir=out_dir,
        fresh=fresh,
        concurrency=concurrency,
        quiet=quiet,
        key_file=key_file,
        fmt=fmt,
    )


def run_gauntlet(
    config: object,
    *,
    out_dir: pathlib.Path | None,
    fresh: bool,
    concurrency: int | None,
    quiet: bool,
    key_file: pathlib.Path | None,
    fmt: str,
) -> None:
    """Run a gauntlet config, print its result and exit with its code."""
    runner = GauntletTournament(
        config,
        out_dir=out_dir,
        fresh=fresh,
        concurrency=concurrency,
        progress=GauntletProgress(enabled=not quiet),
        echo=lambda text: click.echo(text, err=True),
        key_file=key_file,
    )
    try:
        result = runner.run()
    except (TournamentError, JournalError) as error:
        raise GauntletError(str(error)) from None
    if result.interrupted:
        report_interrupted(result)
    print_summary(result)
    if result.errors:
        raise GauntletError(
            f"{len(result.errors)} game(s) failed with a referee error and were not counted "
            f"(first: {result.errors[0]}); run the same command again to retry them"
        )
    report = runner.report
    if report is None:
        raise GauntletError("the gauntlet ended without a result")
    click.echo(render_report(report, fmt), nl=False)
    sys.exit(report["exit_code"])


def _print_folder(root: pathlib.Path, key_file: pathlib.Path | None, fmt: str) -> None:
    from referee.folder import seal

    try:
        key = seal.load_key(key_file) if key_file is not None else None
        report = folder_report(root, key=key)
    except seal.SealError as error:
        raise GauntletError(f"--key-file: {error}") from None
    except (TournamentError, JournalError) as error:
        raise GauntletError(str(error)) from None
    click.echo(render_report(report, fmt), nl=False)
    sys.exit(report["exit_code"])
