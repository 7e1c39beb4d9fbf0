"""``referee standings OUTPUT_DIR``: standings recomputed from a tournament's journal."""

from __future__ import annotations

import pathlib

import click

from referee.cli.options import FOLDER_KEY_HELP, key_file_option, standings_format_option
from referee.folder import Layout, TournamentError, load_standings, read_journal, seal
from referee.safetext import printable
from referee.stats.render import render
from referee.stats.standings import RANKING_KEYS


@click.command()
@click.argument(
    "out_dir",
    metavar="OUTPUT_DIR",
    type=click.Path(exists=True, file_okay=False, path_type=pathlib.Path),
)
@standings_format_option(
    "table and markdown show standings and head-to-head (the top 12 bots'); csv the standings "
    "rows; h2h-csv the whole head-to-head, a row per pair; json both."
)
@click.option(
    "--ranking",
    type=click.Choice(RANKING_KEYS),
    default=None,
    help="Rank by this key instead of the config's (see docs/config.md).",
)
@key_file_option(FOLDER_KEY_HELP)
def standings(
    out_dir: pathlib.Path, fmt: str, ranking: str | None, key_file: pathlib.Path | None
) -> None:
    """Ranked standings and head-to-head of the tournament in OUTPUT_DIR.

    Recomputed from the journal (journal.jsonl), once its entries and the
    game logs pass their MAC check with the folder's key (a failure is
    refused, naming the file and line). A finished tournament whose journal
    was cut short at its end is refused too, key or not (its standings would
    leave games out). Says on stderr when the tournament is unfinished, game
    logs are missing, or there is no key to check with.
    """
    try:
        key = seal.open_key(out_dir, key_file)
    except seal.SealError as error:
        raise click.ClickException(str(error)) from None
    try:
        table = load_standings(out_dir, ranking=ranking, key=key, authenticate=key is not None)
        missing = _missing_logs(out_dir)
    except TournamentError as error:
        raise click.ClickException(str(error)) from None
    if key is None:
        click.echo(
            f"warning: {out_dir / seal.KEY_NAME} is missing, so these results cannot be "
            "authenticated: anyone who could write the folder could have changed them",
            err=True,
        )
    click.echo(render(table, fmt), nl=False)
    if table.games_scheduled is None:  # a ladder's: its tables are picked as it plays
        click.echo(f"{table.games_played} games played so far (no schedule ahead)", err=True)
    elif not table.complete:
        click.echo(
            f"unfinished: {table.games_played} of {table.games_scheduled} games played; "
            "run the tournament command again to resume it",
            err=True,
        )
    if missing:
        shown = ", ".join(missing[:5]) + (
            f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        )
        click.echo(f"warning: {len(missing)} game log(s) missing: {shown}", err=True)


def _missing_logs(out_dir: pathlib.Path) -> list[str]:
    """The journaled games whose log file is not in the folder."""
    layout = Layout(out_dir)
    missing = []
    for entry in read_journal(layout.journal):
        if entry["type"] == "game":
            path = layout.log_of(entry)
            if not path.is_file():
                shown = entry.get("log_path") or layout.relative(layout.game_log(entry["game_id"]))
                missing.append(printable(str(shown), 200))  # the journal may be hand-written
    return missing
