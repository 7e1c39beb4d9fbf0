"""What the commands that run a tournament folder (``tournament``, ``gauntlet``) print
around a run: the interrupt notice with the command that resumes it, the summary
line, the next steps."""

from __future__ import annotations

import os
import pathlib
import shlex
import sys
import threading

import click

from referee.tournament import RunResult

__all__ = ["next_steps", "print_summary", "report_interrupted", "resume_command"]


def resume_command() -> str:
    """The command line that resumes this run (without --fresh)."""
    args = [a for a in sys.argv[1:] if a != "--fresh"]
    return shlex.join(["referee", *args])


def report_interrupted(result: RunResult) -> None:
    """Say where the run stopped and how to resume it, then exit 130 (an interrupt's code)."""
    why = result.signal_name or "interrupt"
    if result.games_scheduled:
        where = (
            f"after {result.games_done} of {result.games_scheduled} games "
            f"(the journal in {result.out_dir} is intact)"
        )
    else:
        where = "before play"
    click.echo(
        f"\n{why}: stopped {where}.\nTo resume, run the same command again:\n  {resume_command()}",
        err=True,
    )
    sys.stdout.flush()
    sys.stderr.flush()
    if (
        result.lingering
        and threading.active_count() > 1
        and threading.current_thread() is threading.main_thread()
    ):
        # Games abandoned mid-flight may still be winding down in worker threads: do not wait.
        os._exit(130)
    sys.exit(130)


def print_summary(result: RunResult) -> None:
    """The run's last lines on stderr: games, time, the output folder, what to do next."""
    # The rate is the progress line's: games over the time of play, not the builds and start-up.
    played = f"{result.games_played} games played"
    if result.games_played and result.play_s:
        rate = result.games_played / result.play_s * 60
        played += f" in {result.play_s:.1f} s ({rate:.1f}/min)"
    click.echo(
        f"{played}; {result.elapsed_s:.1f} s in all, with builds and bot start-up; "
        f"{result.games_done} of {result.games_scheduled} done; output: {result.out_dir}",
        err=True,
    )
    if result.games_done:
        click.echo(next_steps(result.out_dir), err=True)


def next_steps(out_dir: pathlib.Path) -> str:
    """What to do with a played folder: see it in the browser, replay a game, audit it."""
    out = shlex.quote(str(out_dir))
    runs = shlex.quote(str(out_dir.parent))
    steps = [
        (f"referee serve {runs}", "standings, bots and replays in the browser"),
        (f"referee replay {out}", "its games; --game ID [--seat BOT] replays one"),
        (f"referee verify {out}", "replay every game through the engine (an audit)"),
    ]
    width = max(len(command) for command, _ in steps)
    return "\n".join(["next:", *(f"  {c:<{width}}  {what}" for c, what in steps)])
