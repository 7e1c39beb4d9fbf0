"""``referee check-bot``: check one bot against the protocol and the rules, for its author."""

from __future__ import annotations

import datetime
import json
import pathlib
import re
import sys

import click

from referee.checkbot import check_bot as run_checks
from referee.cli.options import SECONDS, check_sandbox_or_fail, sandbox_option
from referee.folder import MatchLayout
from referee.players.build_progress import BuildProgress
from referee.players.policy import TimeControl
from referee.players.specs import BotSpecError, parse_bot
from referee.sandbox.build_settings import CREDENTIAL_KINDS


@click.command("check-bot")
@click.argument("bot", metavar="BOT")
@click.option(
    "--move-time-ms",
    type=click.IntRange(1, TimeControl.maximum("move_time_ms")),
    default=1000,
    show_default=True,
    help="The time control: every decision must be answered within this.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="The report as text for people or as JSON for programs.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=pathlib.Path),
    default=None,
    help="Folder for the bot's output, build log and game log (default runs/check-bot-...).",
)
@click.option(
    "--build/--no-build",
    default=True,
    show_default=True,
    help="Run the build step of a bot folder first.",
)
@click.option(
    "--startup-timeout-s",
    type=SECONDS,
    default=30.0,
    show_default=True,
    help="How long a launched bot may take to start serving.",
)
@click.option(
    "--seed",
    type=int,
    default=1,
    show_default=True,
    help="Seed of the deals (the same seed gives the same situations).",
)
@click.option(
    "--full-game/--no-full-game",
    default=True,
    show_default=True,
    help="End with a full game through the match runner.",
)
@click.option(
    "--build-credentials",
    "build_credentials",
    metavar="KINDS",
    default="",
    help="Let the build see these kinds of the user's credentials, comma-separated "
    f"({', '.join(CREDENTIAL_KINDS)}), as build.credentials does; none by default.",
)
@sandbox_option
def check_bot(
    bot: str,
    move_time_ms: int,
    output_format: str,
    out_dir: pathlib.Path | None,
    build: bool,
    startup_timeout_s: float,
    seed: int,
    full_game: bool,
    build_credentials: str,
    sandbox: str,
) -> None:
    """Check that BOT follows the hearts.v1 protocol and the rules; exit 1 on any failure.

    \b
    BOT is one of:
      HOST:PORT                     a running bot server
      'python bot.py --address {address}'
                                    a command check-bot launches
      sample_bots/go                a folder with a bot.yaml manifest (built first)

    check-bot builds and starts the bot as a tournament does (in the same
    sandbox, with a tournament's default limits) and drives it through scripted situations: the
    handshake, the health and reflection services, every pass direction and
    table size, the first-trick rules, void discards, leading before hearts
    are broken, the moon question, eight games at once, the notifications,
    and a full game through the referee. Every answer is judged against the
    rules and timed against --move-time-ms. The report says what passed, what
    failed and why (see docs/check-bot.md).
    """
    try:
        spec = parse_bot(bot)
    except BotSpecError as error:
        raise click.BadParameter(str(error), param_hint="BOT") from None
    if spec.builtin:
        raise click.BadParameter(
            f"{bot!r} is a built-in bot; check-bot checks gRPC bots "
            "(a folder, a command with {address}, or host:port)",
            param_hint="BOT",
        )
    if spec.command and sandbox == "bwrap" and "{port}" in spec.command:
        raise click.BadParameter(
            f"{spec.command!r} uses {{port}}, but a sandboxed bot has no network: serve on "
            "{address} (--address {address}), or use --sandbox none for a bot you trust",
            param_hint="BOT",
        )
    kinds = tuple(dict.fromkeys(k.strip() for k in build_credentials.split(",") if k.strip()))
    for kind in kinds:
        if kind not in CREDENTIAL_KINDS:
            raise click.BadParameter(
                f"{kind!r} is not a kind of credentials: expected {', '.join(CREDENTIAL_KINDS)}",
                param_hint="--build-credentials",
            )
    check_sandbox_or_fail([spec], sandbox)
    if out_dir is None:
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", spec.name).strip("-") or "bot"
        out_dir = pathlib.Path("runs") / f"check-bot-{safe}-{stamp}"

    folder = MatchLayout(out_dir)
    if folder.holds_tournament():
        raise click.BadParameter(
            f"{out_dir} is a tournament's folder; check-bot never writes into one: "
            "choose another folder",
            param_hint="--out",
        )
    if full_game and folder.game_log.exists():
        raise click.BadParameter(
            f"{out_dir} already holds a game ({folder.game_log}); check-bot never "
            "writes over one: choose another folder",
            param_hint="--out",
        )

    # A long, quiet build (a cold Go or Rust one) shows its time and its output's last line.
    builds = BuildProgress() if output_format == "text" else None

    def progress(message: str) -> None:
        if builds is not None:
            builds.clear()  # the build is over when the next step begins
            click.echo(f"check-bot: {message} ...", err=True)

    try:
        report = run_checks(
            spec,
            out_dir=out_dir,
            move_time_ms=move_time_ms,
            startup_timeout_s=startup_timeout_s,
            seed=seed,
            build=build,
            full_game=full_game,
            progress=progress,
            sandbox=sandbox,
            build_credentials=kinds,
            on_build_progress=builds.update if builds else None,
        )
    except KeyboardInterrupt:
        click.echo("\ninterrupted; the bot has been stopped", err=True)
        sys.exit(130)
    if output_format == "json":
        # ASCII: a bot's strings can't carry bidi or control characters to the terminal.
        click.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=True))
    else:
        click.echo(report.text())
    sys.exit(0 if report.ok else 1)
