"""``referee submit URL DIR --token TOKEN``: a bot folder uploaded to a ladder, and followed."""

from __future__ import annotations

import pathlib
from collections.abc import Callable
from typing import Any

import click


@click.command()
@click.argument("url", metavar="URL")
@click.argument(
    "folder",
    metavar="DIR",
    type=click.Path(exists=True, file_okay=False, path_type=pathlib.Path),
)
@click.option(
    "--token",
    envvar="REFEREE_LADDER_TOKEN",
    required=True,
    help="The team's token (printed by referee ladder team add); or $REFEREE_LADDER_TOKEN.",
)
@click.option("--name", "bot", help="The bot's name on the ladder (default: bot.yaml's name).")
@click.option("--no-wait", is_flag=True, help="Return once uploaded; do not follow the status.")
@click.option(
    "--timeout",
    type=click.FloatRange(min=1),
    default=1800,
    show_default=True,
    help="Seconds to follow the status before giving up (the submission goes on).",
)
def submit(
    url: str, folder: pathlib.Path, token: str, bot: str | None, no_wait: bool, timeout: float
) -> None:
    """Upload the bot folder DIR to the ladder at URL as a new version of a team's bot.

    The folder is packed as referee new-bot's kits are (less what its
    .gitignore ignores), uploaded with the team's token, then built and
    checked by the ladder: each status is printed as it changes (received,
    building, checking, then active or rejected with the reason). The exit
    status is 0 once active, 1 if rejected. See docs/ladder.md.
    """
    from referee.cli.scaffold import ScaffoldError, kit_files
    from referee.ladder.submit_client import LadderClient, SubmitError, pack, wait_for

    try:
        client = LadderClient(url, token)
        if client.in_clear:
            click.secho(
                f"warning: {client.url} is plain http: the token crosses the network unencrypted",
                fg="yellow",
                err=True,
            )
        try:
            files = kit_files(folder.resolve())
        except ScaffoldError as error:
            raise SubmitError(str(error)) from None
        packed = pack(folder, files)
        name = bot or packed.name
        size = len(packed.data)
        click.echo(
            f"packed {len(packed.files)} files of {folder} ({size / 1024:.1f} KiB); "
            f"uploading {name} to {client.url}",
            err=True,
        )
        client.check_size(size)
        answer = client.submit(packed.data, name)
        number = int(answer["id"])
        click.echo(f"submission {number}: {answer.get('player', name)} {answer.get('state', '')}")
        if no_wait:
            return
        final = wait_for(
            client, number, _printer(number), timeout_s=timeout, seen=answer.get("state")
        )
    except SubmitError as error:
        raise click.ClickException(str(error)) from None
    except KeyboardInterrupt:
        click.echo("stopped following; the submission goes on (see the ladder's pages)", err=True)
        raise SystemExit(130) from None
    if final.get("state") == "rejected":
        raise SystemExit(1)


def _printer(number: int) -> Callable[[dict[str, Any]], None]:
    """What prints each new status of submission ``number`` (with its reason, if any)."""
    from referee.safetext import shown_text

    def show(status: dict[str, Any]) -> None:
        line = f"submission {number}: {status.get('state')}"
        if status.get("reason"):
            line += f": {shown_text(status['reason'])}"
        click.echo(line)

    return show


__all__ = ["submit"]
