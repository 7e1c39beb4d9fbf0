"""``referee ladder``: a standing competition that teams submit bots to (docs/ladder.md).

- ``referee ladder serve LADDER.yaml [--host] [--port]``: the service (the
  pipeline, the games, and the pages and upload API of
  :mod:`referee.ladder.web`);
- ``referee ladder team add|list|revoke LADDER.yaml ...``: the teams and
  their tokens (a new token is printed once; the database keeps its hash).
"""

from __future__ import annotations

import contextlib
import pathlib

import click

from referee.ladder.db import LadderDB, LadderDBError
from referee.tournament.config import ConfigError

_CONFIG = click.argument(
    "config_path",
    metavar="LADDER.yaml",
    type=click.Path(exists=True, dir_okay=False, path_type=pathlib.Path),
)


def _config(path: pathlib.Path):  # type: ignore[no-untyped-def]
    from referee.ladder.config import load_ladder_config

    try:
        return load_ladder_config(path)
    except ConfigError as error:
        raise click.ClickException(str(error)) from None


def _db(path: pathlib.Path) -> LadderDB:
    """The ladder's database; a new ladder's folder is made as serve makes it."""
    from referee.folder import Layout
    from referee.ladder.service import DB_NAME, Ladder, LadderError

    config = _config(path)
    try:
        if Layout(config.output).state.is_file():  # the ladder exists: its database alone
            return LadderDB(config.output / DB_NAME)
        return Ladder(config, echo=lambda text: click.echo(text, err=True)).db
    except (LadderError, LadderDBError) as error:
        raise click.ClickException(str(error)) from None


@click.group()
def ladder() -> None:
    """Run a ladder: teams submit bots whenever they like; they are built, checked, and
    play at once, the ratings moving live. See docs/ladder.md."""


@ladder.command()
@_CONFIG
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="TCP port."
)
def serve(config_path: pathlib.Path, host: str, port: int) -> None:
    """Serve the ladder of LADDER.yaml: build and check submissions, play games, serve pages.

    Stops on Ctrl-C or SIGTERM (the games in flight get a moment to finish);
    a kill at any moment loses nothing: start it again.
    """
    from referee.ladder.service import Ladder, LadderError

    config = _config(config_path)
    try:
        service = Ladder(config, echo=lambda text: click.echo(text, err=True))
    except (LadderError, LadderDBError) as error:
        raise click.ClickException(str(error)) from None
    from referee.ladder import web
    from referee.web.server import bind_problem, browser_url

    problem = bind_problem(host, port)
    if problem:
        raise click.ClickException(problem)
    # The ladder's own warning: referee serve's says nothing can be changed, but teams upload here.
    warning = web.warning_for(host)
    if warning:
        click.secho(warning, fg="yellow", err=True)
    click.echo(
        f"ladder {config.name}: {config.output}, on {browser_url(host, port)} (Ctrl-C stops)",
        err=True,
    )
    service.start()
    try:
        with contextlib.suppress(KeyboardInterrupt):  # uvicorn stops on Ctrl-C and SIGTERM
            web.serve(service, host=host, port=port)
    finally:
        service.stop()
    click.echo("stopped", err=True)


@ladder.group()
def team() -> None:
    """Add, list and revoke the teams that may submit."""


@team.command("add")
@_CONFIG
@click.argument("name")
def team_add(config_path: pathlib.Path, name: str) -> None:
    """Add team NAME and print its token (once: only its hash is kept)."""
    db = _db(config_path)
    try:
        added, token = db.add_team(name)
    except LadderDBError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"team {added.name} added; its token (shown once, keep it secret):", err=True)
    click.echo(token)


@team.command("list")
@_CONFIG
def team_list(config_path: pathlib.Path) -> None:
    """List the teams, their bots and whether their token is revoked."""
    from tabulate import tabulate

    db = _db(config_path)
    rows = []
    for entry in db.teams():
        bots = ", ".join(b.name for b in db.bots(entry.name))
        status = f"revoked {entry.revoked_at}" if entry.revoked else "ok"
        rows.append([entry.name, entry.created_at, status, bots or "-"])
    if not rows:
        click.echo("no teams yet: referee ladder team add LADDER.yaml NAME", err=True)
        return
    click.echo(tabulate(rows, headers=["team", "added", "token", "bots"], tablefmt="simple"))


@team.command("revoke")
@_CONFIG
@click.argument("name")
def team_revoke(config_path: pathlib.Path, name: str) -> None:
    """Revoke team NAME's token: it can no longer submit (its active bots keep playing)."""
    db = _db(config_path)
    try:
        revoked = db.revoke_team(name)
    except LadderDBError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"team {revoked.name}: token revoked ({revoked.revoked_at})", err=True)
