"""``referee play``: play a seat yourself, in the browser, against bots.

The game is an ordinary one (the same engine, match runner, fault policy,
log, replay and verify as ``referee match``); the human seats are
:class:`~referee.web.human.HumanPlayer`\\ s with a generous clock of their
own, each served at a secret URL by :mod:`referee.web.play`.
"""

from __future__ import annotations

import dataclasses
import datetime
import pathlib
import secrets
import sys

import click

from referee.cli.match_common import (
    bots_of_arguments,
    build_or_fail,
    interrupts_deferred,
    prepare_folder,
    start_or_fail,
    summary,
)
from referee.cli.options import check_sandbox_or_fail
from referee.folder import MatchLayout
from referee.match.runner import GameSpec, play_game
from referee.players import Player
from referee.players.supply import BotPool
from referee.sandbox.bwrap import SANDBOX_KINDS
from referee.tournament.config import ConfigError
from referee.web.human import HUMAN, HumanPlayer, follow_all, seat_label
from referee.web.play import PlayServer
from referee.web.play_config import PlayConfig, load_play_config
from referee.web.server import bind_problem, is_loopback

_COMPASS = ("north", "east", "south", "west")


def parse_seat(text: str, num_players: int) -> int:
    """A seat by name (``south``, at a table of four) or number (1 to the table size)."""
    word = text.strip().lower()
    if num_players == 4 and word in _COMPASS:
        return _COMPASS.index(word)
    if word.isdigit() and 1 <= int(word) <= num_players:
        return int(word) - 1
    names = "north, east, south, west or " if num_players == 4 else ""
    raise click.BadParameter(
        f"{text!r} is not a seat at a table of {num_players}: {names}1 to {num_players}",
        param_hint="--seat",
    )


@click.command()
@click.argument("bots", nargs=-1, required=True, metavar="BOT BOT BOT [BOT...]")
@click.option(
    "--seat",
    "seats",
    multiple=True,
    help="Your seat: north, east, south, west (four players) or 1 to the table size "
    "(default: south, the third seat); give it again for a second human seat (each gets "
    "its own URL).",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=pathlib.Path),
    default=None,
    help="YAML file with rules (table size, variants, target), time_control, fault_policy, "
    "human (your clock), seed, sandbox (docs/config.md).",
)
@click.option(
    "--think-time",
    type=click.FloatRange(1, 3600),
    default=None,
    help="Seconds you have for each decision (default 300, or human.move_time_ms).",
)
@click.option("--seed", type=int, default=None, help="Deal seed (default: a random one).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to serve on.")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="0: any free."
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=pathlib.Path),
    default=None,
    help="Folder for the game log and bot output (default runs/play-...).",
)
@click.option("--build/--no-build", default=True, show_default=True, help="Build bot folders.")
@click.option(
    "--sandbox",
    type=click.Choice(SANDBOX_KINDS),
    default=None,
    help="Run launched bots in bubblewrap (default, or the config's sandbox); 'none' only "
    "for bots you trust.",
)
def play(
    bots: tuple[str, ...],
    seats: tuple[str, ...],
    config_path: pathlib.Path | None,
    think_time: float | None,
    seed: int | None,
    host: str,
    port: int,
    out_dir: pathlib.Path | None,
    build: bool,
    sandbox: str | None,
) -> None:
    """Play Hearts in your browser against BOTs (the other seats, in seat order).

    \b
    A BOT is what `referee match` takes: random, heuristic, HOST:PORT, a
    command with {address}, or a bot folder. The URL printed for each human
    seat holds its secret: whoever has it plays the seat. The table stays
    open after the game (placements, the replay) until Ctrl-C.
    """
    config = _config(config_path)
    seats = seats or ("3",)  # South at a table of four
    num_players = config.num_players or len(bots) + len(seats)
    if not 3 <= num_players <= 7:
        raise click.UsageError(
            f"a game needs 3 to 7 seats (V6), not {num_players} "
            f"({len(bots)} bots and {len(seats)} human seats)"
        )
    if len(bots) + len(seats) != num_players:
        raise click.UsageError(
            f"{config_path}: rules.num_players is {num_players}, but {len(bots)} bots and "
            f"{len(seats)} human seats were given"
        )
    human_seats = [parse_seat(s, num_players) for s in seats]
    if len(set(human_seats)) != len(human_seats):
        raise click.BadParameter("the same seat was given twice", param_hint="--seat")
    rules = dataclasses.replace(config.rules, num_players=num_players)
    human_clock = config.human
    if think_time is not None:
        human_clock = dataclasses.replace(human_clock, move_time_ms=round(think_time * 1000))
    sandbox = sandbox or config.sandbox
    specs = bots_of_arguments(bots)
    check_sandbox_or_fail(specs, sandbox)
    if seed is None:
        seed = config.seed if config.seed is not None else secrets.randbits(64)
    problem = bind_problem(host, port)  # before any folder is made or bot built
    if problem is not None:
        raise click.ClickException(problem)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out_dir = out_dir or pathlib.Path("runs") / f"play-{stamp}-{seed}"
    log_path = _log_path(out_dir)
    if not is_loopback(host):
        click.echo(
            f"warning: serving on {host}, not loopback: anyone who can reach it and learns a "
            "seat's URL plays that seat",
            err=True,
        )
    if build:
        build_or_fail(specs, MatchLayout(out_dir), sandbox=sandbox, show_progress=True)
    humans = [
        HumanPlayer(s, name=HUMAN if i == 0 else f"{HUMAN}#{i + 1}")
        for i, s in enumerate(human_seats)
    ]
    names: list[str] = []
    bot_specs = iter(specs)
    seat_specs = {}
    for seat in range(num_players):
        human = next((h for h in humans if h.seat == seat), None)
        if human is not None:
            names.append(human.name)
        else:
            spec = next(bot_specs)
            seat_specs[seat] = spec
            names.append(spec.name)
    game = GameSpec(
        game_id=f"play-{seed}",
        seed=seed,
        bots=tuple(names),
        rules=rules,
        time_control=config.time_control,
        fault_policy=config.fault_policy,
        meta={"human_seats": human_seats},
        seat_time_controls={h.seat: human_clock for h in humans},
    )
    server = PlayServer(humans, log_path, host=host, port=port)
    if not server.start():
        raise click.ClickException(server.error or f"cannot serve on {host}:{port}")
    pool = BotPool(
        log_dir=MatchLayout(out_dir).bots,
        time_control=config.time_control,
        fault_policy=config.fault_policy,
        sandbox=sandbox,
        hidden=[out_dir],
    )
    try:
        started = start_or_fail(pool, specs)
        players: list[Player] = [
            next((h for h in humans if h.seat == s), None) or started[seat_specs[s].name]
            for s in range(num_players)
        ]
        for human in humans:
            label = seat_label(human.seat, num_players)
            click.echo(f"{label}: play at {server.url(human)}")
        click.echo(f"seed {seed}; log {log_path}", err=True)
        sys.stdout.flush()
        record = play_game(game, players, log_path, on_event=follow_all(humans))
        click.echo(summary(record))
        click.echo("the table stays open (placements, replay) until Ctrl-C", err=True)
        with interrupts_deferred() as interrupted:
            while not interrupted.wait(0.5):
                pass
    except KeyboardInterrupt:
        finished = all(h.game_over for h in humans)
        if not finished:
            for human in humans:
                human.abort("the referee was stopped")
            click.echo(f"\ninterrupted; the log so far is in {log_path}", err=True)
            sys.exit(130)
    finally:
        with interrupts_deferred():
            pool.close()
            server.stop()


def _config(path: pathlib.Path | None) -> PlayConfig:
    if path is None:
        return PlayConfig()
    try:
        return load_play_config(path)
    except ConfigError as error:
        raise click.ClickException(str(error)) from None


def _log_path(out_dir: pathlib.Path) -> pathlib.Path:
    """The game's log in ``out_dir``, made; never over a tournament's folder or a game."""
    folder = MatchLayout(out_dir)
    prepare_folder(folder, (folder.game_log,), "game")
    return folder.game_log
