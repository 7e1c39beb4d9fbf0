"""``referee tournament CONFIG.yaml``: run or resume a tournament and print the standings."""

from __future__ import annotations

import pathlib
import threading
from typing import Any

import click

from referee.cli.options import run_options, standings_format_option
from referee.cli.run_common import print_summary, report_interrupted
from referee.folder import JournalError, TournamentError
from referee.stats.render import render
from referee.tournament import Progress, Tournament
from referee.tournament.config import ConfigError, load_config


@click.command()
@click.argument(
    "config_path", metavar="CONFIG.yaml", type=click.Path(dir_okay=False, path_type=pathlib.Path)
)
@run_options()
@standings_format_option("How to print the standings at the end.")
@click.option(
    "--serve",
    "serve",
    is_flag=True,
    help=(
        "Serve the tournament in the browser while it plays (referee serve, on --host and "
        "--port); after the last game it goes on serving until Ctrl-C."
    ),
)
@click.option("--host", default="127.0.0.1", show_default=True, help="With --serve: the address.")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="With --serve."
)
def tournament(
    config_path: pathlib.Path,
    out_dir: pathlib.Path | None,
    fresh: bool,
    concurrency: int | None,
    quiet: bool,
    key_file: pathlib.Path | None,
    fmt: str,
    serve: bool,
    host: str,
    port: int,
) -> None:
    """Run the tournament described by CONFIG.yaml, or resume it.

    Builds the bot folders that need it, plays every scheduled game
    (concurrently), shows progress on stderr and prints the standings.
    Run the same command again after an interruption (Ctrl-C, a crash, a
    kill) and it carries on where it stopped. The config's keys are
    documented in docs/config.md.

    The output folder's secret key (OUT/key, made on the first run) decides
    the deals and seals the journal; with --key-file and the same seed the
    tournament is dealt again exactly, in another folder.
    """
    try:
        config = load_config(config_path)
    except ConfigError as error:
        raise click.ClickException(str(error)) from None
    server = _serve(out_dir or config.output, host, port) if serve else None
    if config.gauntlet is not None:  # format: gauntlet (its own exit codes: docs/sprt.md)
        from referee.cli.gauntlet import run_gauntlet

        run_gauntlet(
            config,
            out_dir=out_dir,
            fresh=fresh,
            concurrency=concurrency,
            quiet=quiet,
            key_file=key_file,
            fmt="json" if fmt == "json" else "text",
        )
    runner = Tournament(
        config,
        out_dir=out_dir,
        fresh=fresh,
        concurrency=concurrency,
        progress=Progress(enabled=not quiet),
        echo=lambda text: click.echo(text, err=True),
        key_file=key_file,
    )
    try:
        result = runner.run()
    except (TournamentError, JournalError) as error:
        raise click.ClickException(str(error)) from None
    if result.interrupted:
        report_interrupted(result)
    if result.standings is not None:
        click.echo(render(result.standings, fmt), nl=False)
    print_summary(result)
    if server is not None and not result.errors:
        _serve_on(server)
    if result.errors:
        raise click.ClickException(
            f"{len(result.errors)} game(s) failed with a referee error and were not counted "
            f"(first: {result.errors[0]}); run the same command again to retry them"
        )


def _serve(root: pathlib.Path, host: str, port: int) -> Any:
    """Start serving the output folder in the background (``--serve``)."""
    from referee.web.server import BackgroundServer, bind_problem, warning_for

    problem = bind_problem(host, port)
    if problem:
        raise click.ClickException(problem)

    warning = warning_for(host)
    if warning:
        click.secho(warning, fg="yellow", err=True)
    server = BackgroundServer(
        root, host=host, port=port, on_error=lambda m: click.echo(m, err=True)
    )
    if not server.start():
        raise click.ClickException(f"cannot serve on {host}:{port} (is the port in use?)")
    click.echo(f"serving {root} on {server.url}", err=True)
    return server


def _serve_on(server: Any) -> None:
    """After the last game, keep the pages up until Ctrl-C."""
    click.echo(f"the tournament is over; still serving on {server.url} (Ctrl-C stops)", err=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()
