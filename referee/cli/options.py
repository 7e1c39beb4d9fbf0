"""Options shared by several subcommands: rules, time control, fault policy, and the run
options (``--out``, ``--fresh``, ``-j``, ``-q``, ``--key-file``), each defined once here.

The run options differ between commands only in their help text, so each is a function
of its help (the defaults are the tournament's); :func:`run_options` puts the five on
the commands that run a tournament folder (``tournament``, ``gauntlet``).
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable, Sequence
from typing import Any

import click

from referee.engine import MAX_HANDS, MAX_TARGET_SCORE, MoonScoring, Rules, RulesError, TieRule
from referee.players.policy import FaultPolicy, TimeControl
from referee.sandbox.bwrap import SANDBOX_KINDS, SandboxUnavailable, check_sandbox

F = Callable[..., Any]


class _Seconds(click.ParamType):
    """A startup timeout in seconds: a finite number from 0.1 to an hour."""

    name = "seconds"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        top = TimeControl.maximum("startup_timeout_ms") / 1000
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not 0.1 <= number <= top:  # NaN fails this too
            self.fail(f"{value!r} is not a number of seconds from 0.1 to {top:g}", param, ctx)
        return number


SECONDS = _Seconds()


def rules_options(f: F) -> F:
    """Every variant of docs/rules.md as an option; defaults are the marked defaults."""
    options = [
        click.option(
            "--players",
            "num_players",
            type=click.IntRange(3, 7),
            default=None,
            help="V6: players at the table (default: the number of bots given).",
        ),
        click.option(
            "--target",
            "target_score",
            type=click.IntRange(1, MAX_TARGET_SCORE),
            default=100,
            show_default=True,
            help="V4: the target score that ends the game.",
        ),
        click.option(
            "--queen-breaks-hearts/--no-queen-breaks-hearts",
            default=False,
            show_default=True,
            help="V1: Q♠ breaks hearts.",
        ),
        click.option(
            "--moon",
            "moon_scoring",
            type=click.Choice([m.value for m in MoonScoring]),
            default=MoonScoring.ADD_TO_OTHERS.value,
            show_default=True,
            help="V2: moon scoring.",
        ),
        click.option(
            "--omnibus/--no-omnibus", default=False, show_default=True, help="V3: J♦ counts -10."
        ),
        click.option(
            "--tie-rule",
            type=click.Choice([t.value for t in TieRule]),
            default=TieRule.PLAY_ON.value,
            show_default=True,
            help="V5: ties for the lowest total at the end.",
        ),
        click.option(
            "--points-on-first-trick/--no-points-on-first-trick",
            default=False,
            show_default=True,
            help="V7: allow hearts and Q♠ on the first trick.",
        ),
        click.option(
            "--max-hands",
            type=click.IntRange(1, MAX_HANDS),
            default=None,
            help="V8: the game ends after this hand (default: 100, or the target if more).",
        ),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def make_rules(num_players: int, **values: Any) -> Rules:
    try:
        return Rules(num_players=num_players, **values)
    except RulesError as error:
        raise click.UsageError(str(error)) from None


def time_options(f: F) -> F:
    """Time control and fault policy options."""
    options = [
        click.option(
            "--move-time-ms",
            type=click.IntRange(1, TimeControl.maximum("move_time_ms")),
            default=1000,
            show_default=True,
            help="Free time per decision.",
        ),
        click.option(
            "--time-bank-ms",
            type=click.IntRange(0, TimeControl.maximum("time_bank_ms")),
            default=0,
            show_default=True,
            help="Per-game time bank per seat; overruns are charged to it.",
        ),
        click.option(
            "--max-faults",
            type=click.IntRange(0, FaultPolicy.maximum("max_faults")),
            default=5,
            show_default=True,
            help="Faults in one game after which a seat forfeits it (0: never).",
        ),
        click.option(
            "--startup-timeout-s",
            type=SECONDS,
            default=30.0,
            show_default=True,
            help="How long a launched bot may take to start.",
        ),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def make_policies(
    move_time_ms: int, time_bank_ms: int, max_faults: int, startup_timeout_s: float
) -> tuple[TimeControl, FaultPolicy]:
    return (
        TimeControl(
            move_time_ms=move_time_ms,
            time_bank_ms=time_bank_ms,
            startup_timeout_ms=int(startup_timeout_s * 1000),
        ),
        FaultPolicy(max_faults=max_faults),
    )


def standings_format_option(help: str) -> Callable[[F], F]:
    """``--format`` of the standings (table, markdown, csv, json), stored as ``fmt``."""
    from referee.stats.render import FORMATS

    return click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        default="table",
        show_default=True,
        help=help,
    )


def sandbox_option(f: F) -> F:
    """``--sandbox bwrap|none``: how launched bots and builds run (see docs/security.md)."""
    return click.option(
        "--sandbox",
        type=click.Choice(SANDBOX_KINDS),
        default="bwrap",
        show_default=True,
        help="Run launched bots and builds in a bubblewrap sandbox (no network, only their "
        "own folder); 'none' only for bots you trust.",
    )(f)


def check_sandbox_or_fail(specs: Sequence[Any], default: str) -> None:
    """A clear error up front when some bot needs the sandbox and this machine can't make one."""
    if any(s.command and (s.sandbox or default) == "bwrap" for s in specs):
        try:
            check_sandbox()
        except SandboxUnavailable as error:
            raise click.ClickException(str(error)) from None


# Run options --------------------------------------------------------------------------

OUT_HELP = "Output folder (default: the config's output, else runs/NAME)."
FRESH_HELP = "Start over: move an existing output folder aside instead of resuming it."
CONCURRENCY_HELP = "Games played at once (default: the config's concurrency, else the CPU count)."
QUIET_HELP = "No progress display."
KEY_FILE_HELP = (
    "Use this tournament key (a folder's 'key' file) instead of a new one, to replay a "
    "tournament elsewhere; copied into the output folder, refused if it has another key."
)
#: ``--key-file`` of the commands that read a folder (standings, verify).
FOLDER_KEY_HELP = "The tournament's key (default: the folder's 'key' file)."


def out_option(help: str = OUT_HELP) -> Callable[[F], F]:
    """``--out DIRECTORY``, stored as ``out_dir`` (a ``pathlib.Path`` or None)."""
    return click.option(
        "--out",
        "out_dir",
        type=click.Path(file_okay=False, path_type=pathlib.Path),
        default=None,
        help=help,
    )


def fresh_option(help: str = FRESH_HELP) -> Callable[[F], F]:
    """``--fresh``: start the output folder over instead of resuming it."""
    return click.option("--fresh", is_flag=True, help=help)


def concurrency_option(help: str = CONCURRENCY_HELP) -> Callable[[F], F]:
    """``-j/--concurrency N``: games played at once, stored as ``concurrency``."""
    return click.option("-j", "--concurrency", type=click.IntRange(1, 256), default=None, help=help)


def jobs_option(help: str, *, most: int | None = None) -> Callable[[F], F]:
    """``-j/--jobs N``: worker processes (verify, analyze), stored as ``jobs``."""
    return click.option(
        "-j", "--jobs", type=click.IntRange(min=1, max=most), default=None, help=help
    )


def quiet_option(help: str = QUIET_HELP) -> Callable[[F], F]:
    """``-q/--quiet``."""
    return click.option("-q", "--quiet", is_flag=True, help=help)


def key_file_option(help: str = KEY_FILE_HELP) -> Callable[[F], F]:
    """``--key-file FILE``, stored as ``key_file`` (a ``pathlib.Path`` or None)."""
    return click.option(
        "--key-file",
        type=click.Path(dir_okay=False, path_type=pathlib.Path),
        default=None,
        help=help,
    )


def run_options(
    *,
    out_help: str = OUT_HELP,
    fresh_help: str = FRESH_HELP,
    key_file_help: str = KEY_FILE_HELP,
) -> Callable[[F], F]:
    """``--out``, ``--fresh``, ``-j``, ``-q`` and ``--key-file``, in that order."""
    options = [
        out_option(out_help),
        fresh_option(fresh_help),
        concurrency_option(),
        quiet_option(),
        key_file_option(key_file_help),
    ]

    def decorate(f: F) -> F:
        for option in reversed(options):
            f = option(f)
        return f

    return decorate
