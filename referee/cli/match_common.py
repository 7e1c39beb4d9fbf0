"""What ``referee match`` and ``referee play`` share: the bots given as arguments, their builds, the folder, the summary.

Both play ordinary games in a match folder (:class:`~referee.folder.MatchLayout`)
that must not be a tournament's nor hold a game already; both build the bot
folders first and stop at a failed build with its log's tail, and both print
a game's hand-by-hand scores and placements the same way (:func:`summary`).
"""

from __future__ import annotations

import contextlib
import pathlib
import signal
import threading
from collections.abc import Iterator, Sequence

import click
from tabulate import tabulate

from referee.folder import MatchLayout
from referee.match.runner import GameRecord
from referee.players import BotFault, Player
from referee.players.build_progress import BuildProgress
from referee.players.builds import build_bots
from referee.players.specs import BotSpec, BotSpecError, parse_bot, unique_names
from referee.players.supply import BotPool

__all__ = [
    "bots_of_arguments",
    "build_or_fail",
    "interrupts_deferred",
    "prepare_folder",
    "start_or_fail",
    "summary",
]


def bots_of_arguments(texts: Sequence[str]) -> list[BotSpec]:
    """The BOT arguments as specs, repeated bots named apart (``random``, ``random#2``)."""
    try:
        return unique_names([parse_bot(text) for text in texts])
    except BotSpecError as error:
        raise click.BadParameter(str(error), param_hint="BOT") from None


def prepare_folder(folder: MatchLayout, held: Sequence[pathlib.Path], what: str) -> None:
    """Make ``folder``, which must not be a tournament's nor hold any of ``held`` already.

    ``what`` (``match``, ``game``) is what the command writes, for the messages.
    """
    out_dir = folder.root
    if folder.holds_tournament():
        raise click.BadParameter(
            f"{out_dir} is a tournament's folder; a {what} never writes into one: "
            "choose another folder",
            param_hint="--out",
        )
    for path in held:
        if path.exists() or path.is_symlink():
            raise click.BadParameter(
                f"{out_dir} already holds a {what} ({path}); a {what} never writes over one: "
                "choose another folder",
                param_hint="--out",
            )
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise click.BadParameter(
            f"cannot make the folder {out_dir}: {error.filename or out_dir}: {error.strerror}",
            param_hint="--out",
        ) from None


def build_or_fail(
    specs: Sequence[BotSpec],
    folder: MatchLayout,
    *,
    sandbox: str,
    show_progress: bool = False,
) -> None:
    """Build the bot folders of ``specs`` into ``folder.builds``; a failed build stops the command.

    The builds see nothing of ``folder`` but their logs. ``show_progress``
    says each build as it starts and its time and last line as it runs.
    """
    progress = BuildProgress() if show_progress else None
    if progress is not None:
        for spec in specs:
            if spec.build:
                click.echo(f"building {spec.name} ({spec.build}) ...", err=True)
    results = build_bots(
        specs,
        folder.builds,
        sandbox=sandbox,
        hidden=[folder.root],
        on_progress=progress.update if progress is not None else None,
        on_built=(lambda group, _result: progress.done(group[0].name)) if progress else None,
    )
    for spec in specs:
        result = results.get(spec.name)
        if result is not None and not result.ok:
            raise click.ClickException(
                f"the build of {spec.name} failed (log: {result.log_path}):\n{result.tail}"
            )


def start_or_fail(pool: BotPool, specs: Sequence[BotSpec]) -> dict[str, Player]:
    """Start every bot of ``specs`` at once; one that cannot start stops the command."""
    try:
        return pool.start_all(specs, stand_in=False)
    except BotFault as fault:
        raise click.ClickException(f"a bot did not start: {fault.message}") from None


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[threading.Event]:
    """Ctrl-C does not break off the block; the event given is set when one came.

    For the cleanup (the bots stopped, the server closed) and the wait for
    Ctrl-C after a game: a second Ctrl-C (impatient, or ``timeout``, which
    signals its child and then its whole group) would otherwise break off the
    cleanup with "Aborted!" or an internal error, and could leave a bot running.
    The cleanup's own waits are bounded, so the command still ends. Outside the
    main thread, where no signal arrives, it changes nothing.
    """
    interrupted = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield interrupted
        return
    kept = signal.signal(signal.SIGINT, lambda _signum, _frame: interrupted.set())
    try:
        yield interrupted
    finally:
        signal.signal(signal.SIGINT, kept)


def summary(record: GameRecord) -> str:
    """Hand-by-hand scores, totals, placements and faults as text tables."""
    names = list(record.bots)
    rows = []
    totals = [0] * len(names)
    for number, scores in enumerate(record.hand_scores, start=1):
        totals = [t + s for t, s in zip(totals, scores, strict=True)]
        rows.append([number, *(f"{s:+d} = {t}" for s, t in zip(scores, totals, strict=True))])
    lines = [tabulate(rows, headers=["hand", *names], tablefmt="simple"), ""]
    final = []
    for seat in sorted(range(len(names)), key=lambda s: (record.placements[s], s)):
        # Zero is 0 in both columns, as the standings show them (issue 29).
        faults = ", ".join(f"{k} {v}" for k, v in sorted(record.faults[seat].items())) or "0"
        final.append(
            [
                record.placements[seat],
                names[seat],
                seat,
                record.scores[seat],
                record.moons[seat],
                faults,
                "yes" if record.forfeited[seat] else "no",
                f"{record.think_ms[seat] / max(record.decisions[seat], 1):.1f}",
            ]
        )
    lines.append(
        tabulate(
            final,
            headers=["place", "bot", "seat", "total", "moons", "faults", "forfeit", "ms/decision"],
            tablefmt="simple",
        )
    )
    lines.append("")
    hands = len(record.hand_scores)
    lines.append(
        f"{hands} hand{'' if hands == 1 else 's'} in {record.duration_s:.1f} s; "
        f"log: {record.log_path}"
    )
    return "\n".join(lines)
