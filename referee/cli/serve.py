"""``referee serve RUNS_DIR``: every tournament folder under RUNS_DIR, live in the browser."""

from __future__ import annotations

import contextlib
import pathlib

import click


@click.command()
@click.argument(
    "runs_dir",
    metavar="RUNS_DIR",
    type=click.Path(exists=True, file_okay=False, path_type=pathlib.Path),
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on (loopback by default; another one is served with a warning).",
)
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="TCP port."
)
def serve(runs_dir: pathlib.Path, host: str, port: int) -> None:
    """Serve the tournaments under RUNS_DIR in the browser, read-only.

    The list of tournaments with their progress; live standings with their
    confidence intervals; a page per bot (charts of its points per hand and
    its OpenSkill ordinal, head to head, faults, slowest decisions); the game
    list, filterable, opening the replay viewer; a gauntlet's sequential
    test. Tournaments still being played update without a reload. See
    docs/serve.md.
    """
    from referee.web.server import bind_problem, browser_url, warning_for
    from referee.web.server import serve as run

    problem = bind_problem(host, port)
    if problem:
        raise click.ClickException(problem)

    warning = warning_for(host)
    if warning:
        click.secho(warning, fg="yellow", err=True)
    where = browser_url(host, port) if port else f"a free port of {host} (below)"
    click.echo(f"serving {runs_dir} on {where} (Ctrl-C stops)", err=True)
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn stops on Ctrl-C, then re-raises it
        run(runs_dir, host=host, port=port)
    click.echo("stopped", err=True)
