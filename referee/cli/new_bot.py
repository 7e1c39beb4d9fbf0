"""``referee new-bot LANGUAGE DIR``: a starter kit for a new bot, ready to build anywhere."""

from __future__ import annotations

import pathlib

import click

from referee.cli.scaffold import LANGUAGES, ScaffoldError, default_author, new_bot

#: Other names of a kit's language: the node kit is written in TypeScript.
ALIASES = {"typescript": "node", "ts": "node", "c++": "cpp", "py": "python"}


@click.command("new-bot")
@click.argument("language", metavar="LANGUAGE")
@click.argument("dest", metavar="DIR", type=click.Path(path_type=pathlib.Path))
@click.option(
    "--name",
    default=None,
    help="The bot's name, in bot.yaml and the kit's files (default: DIR's name, lowercased).",
)
@click.option(
    "--author",
    default=None,
    help="Who writes the bot, in bot.yaml and its handshake "
    "(default: git's user.name, else a placeholder to edit).",
)
def new_bot_command(
    language: str, dest: pathlib.Path, name: str | None, author: str | None
) -> None:
    """Write a self-contained bot in LANGUAGE into DIR (new or empty).

    LANGUAGE is one of python, go, rust, java, cpp, node (TypeScript; also
    typescript or ts). DIR
    gets the starter kit of that language: bot.yaml, a README, the server,
    a one-file strategy to make your own, and the protocol
    (proto/hearts/v1/hearts.proto), so that it builds outside this
    repository. Then, in DIR:

    \b
      referee check-bot .                        # build it and check it
      referee match . random random heuristic    # play a game
    """
    language = ALIASES.get(language.lower(), language.lower())
    if language not in LANGUAGES:
        raise click.BadParameter(
            f"unknown language {language!r}: choose one of {', '.join(LANGUAGES)}",
            param_hint="LANGUAGE",
        )
    try:
        chosen = author if author is not None else default_author()
        bot, files = new_bot(language, dest, name=name, author=chosen)
    except ScaffoldError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"wrote {bot} ({language}, {len(files)} files) to {dest}")
    if author is None:
        click.echo(
            f"author: {chosen} (git's user.name, or a placeholder): change it in bot.yaml "
            "and the kit's server, or give --author",
        )
    click.echo(f"next: cd {dest} and read README.md; `referee check-bot .` builds and checks it")
