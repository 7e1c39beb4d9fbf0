"""``referee match``: play one game between 3 to 7 bots and print what happened."""

from __future__ import annotations

import dataclasses
import datetime
import json
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
from referee.cli.options import (
    check_sandbox_or_fail,
    make_policies,
    make_rules,
    out_option,
    rules_options,
    sandbox_option,
    time_options,
)
from referee.folder import MatchLayout
from referee.match.runner import GameRecord, GameSpec, play_game
from referee.players.supply import BotPool
from referee.schedule import derive_seed, rotations
from referee.stats.render import render
from referee.stats.standings import compute_standings

#: The most games one ``referee match`` plays (a tournament config is the tool beyond).
MAX_GAMES = 10_000


@click.command()
@click.argument("bots", nargs=-1, required=True, metavar="BOT BOT BOT [BOT...]")
@click.option("--seed", type=int, default=None, help="Deal seed (default: a random one, printed).")
@click.option(
    "--games",
    type=click.IntRange(1, MAX_GAMES),
    default=1,
    show_default=True,
    help="Games to play, each on a new deal; then the standings with their intervals.",
)
@click.option(
    "--duplicate",
    is_flag=True,
    help="Duplicate sets: each deal played once per rotation of the seats "
    "(--games a multiple of the number of bots).",
)
@rules_options
@time_options
@out_option("Folder for the game log and bot output (default runs/match-...).")
@click.option(
    "--build/--no-build",
    default=True,
    show_default=True,
    help="Run the build step of bot folders first.",
)
@sandbox_option
@click.option(
    "--json", "as_json", is_flag=True, help="Print the game record as JSON instead of tables."
)
def match(
    bots: tuple[str, ...],
    seed: int | None,
    games: int,
    duplicate: bool,
    out_dir: pathlib.Path | None,
    build: bool,
    sandbox: str,
    as_json: bool,
    **options: object,
) -> None:
    """Play one game between BOTs and print hand scores, totals, placements and faults.

    \b
    A BOT is one of:
      random, heuristic             a built-in bot, played in-process
      HOST:PORT                     a running bot server
      'python bot.py --address {address}'
                                    a command the referee launches (sandboxed;
                                    {port} only with --sandbox none)
      sample_bots/go                a folder with a bot.yaml manifest

    Give 4 bots for the standard game, or 3 to 7 (V6).

    \b
    With --games N, N games on new deals, the bots started once, then the
    standings (points per hand with a 95% interval, rank intervals, head to
    head). With --duplicate, each deal is played once per rotation of the
    seats, so every bot plays every hand: a paired comparison with less luck
    (N a multiple of the number of bots). Each game's log is in OUT/games/.
    """
    if not 3 <= len(bots) <= 7:
        raise click.UsageError(f"a game needs 3 to 7 bots (V6), not {len(bots)}")
    if duplicate and games % len(bots):
        raise click.BadParameter(
            f"--games {games} --duplicate: a duplicate set is {len(bots)} games (one per "
            f"rotation of the {len(bots)} seats); give a multiple of {len(bots)}",
            param_hint="--games",
        )
    num_players = options.pop("num_players") or len(bots)
    if num_players != len(bots):
        raise click.UsageError(f"--players {num_players} but {len(bots)} bots were given")
    time_control, fault_policy = make_policies(
        options.pop("move_time_ms"),
        options.pop("time_bank_ms"),  # type: ignore[arg-type]
        options.pop("max_faults"),
        options.pop("startup_timeout_s"),  # type: ignore[arg-type]
    )
    rules = make_rules(num_players, **options)
    specs = bots_of_arguments(bots)
    for s in specs:
        if s.command and sandbox == "bwrap" and "{port}" in s.command:
            raise click.BadParameter(
                f"{s.command!r} uses {{port}}, but a sandboxed bot has no network: serve on "
                "{address} (--address {address}), or use --sandbox none for bots you trust",
                param_hint="BOT",
            )
    check_sandbox_or_fail(specs, sandbox)
    if seed is None:
        # 64 bits: no bot can find the seed by searching for the deal it was given.
        seed = secrets.randbits(64)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out_dir = out_dir or pathlib.Path("runs") / f"match-{stamp}-{seed}"
    plan = _plan(tuple(s.name for s in specs), seed, games, duplicate)
    folder = MatchLayout(out_dir)
    log_path = folder.game_log if games == 1 else folder.games
    prepare_folder(folder, (folder.game_log, folder.games), "match")
    if build:
        build_or_fail(specs, folder, sandbox=sandbox, show_progress=True)
    pool = BotPool(
        log_dir=folder.bots,
        time_control=time_control,
        fault_policy=fault_policy,
        sandbox=sandbox,
        hidden=[out_dir],
    )
    try:
        players = start_or_fail(pool, specs)
        click.echo(f"seed {seed}; log {log_path}", err=True)
        records = []
        for number, game in enumerate(plan, start=1):
            spec = GameSpec(
                game_id=game.game_id,
                seed=game.seed,
                bots=game.bots,
                rules=rules,
                time_control=time_control,
                fault_policy=fault_policy,
            )
            path = log_path if games == 1 else log_path / f"{game.game_id}.jsonl"
            if games > 1:
                path.parent.mkdir(parents=True, exist_ok=True)
            record = play_game(spec, [players[name] for name in game.bots], path)
            records.append(record)
            if games > 1:
                click.echo(_progress(number, games, record), err=True)
    except KeyboardInterrupt:
        click.echo(f"\ninterrupted; the logs so far are in {log_path}", err=True)
        sys.exit(130)
    finally:
        with interrupts_deferred():
            pool.close()
    if games == 1:
        if as_json:
            click.echo(json.dumps(records[0].to_dict(), indent=2))
        else:
            click.echo(summary(records[0]))
        return
    table = compute_standings(
        (_entry(game, record) for game, record in zip(plan, records, strict=True)),
        bots=[s.name for s in specs],
        name=f"match {seed}" + (" (duplicate)" if duplicate else ""),
        games_scheduled=games,
        unsandboxed=[s.name for s in specs if sandbox == "none" and not s.builtin],
    )
    if as_json:
        data = {"standings": table.to_dict(), "games": [r.to_dict() for r in records]}
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(render(table, "table"), nl=False)
        click.echo(
            f"logs: {log_path}; replay one: referee replay {log_path / plan[0].game_id}.jsonl; "
            f"check them all: referee verify {log_path}/*.jsonl"
        )


@dataclasses.dataclass(frozen=True, slots=True)
class _PlannedGame:
    """One game of a match: its id, deal seed, seats, and duplicate set."""

    game_id: str
    seed: int
    bots: tuple[str, ...]
    deal_set: int
    seating: int


def _plan(names: tuple[str, ...], seed: int, games: int, duplicate: bool) -> list[_PlannedGame]:
    """The games of a match: one (seat order as given, deal ``seed``), or ``games`` on
    deals derived from ``seed``; with ``duplicate``, each deal once per rotation of the seats."""
    if games == 1:
        return [_PlannedGame(f"match-{seed}", seed, names, 1, 1)]
    per_set = len(names) if duplicate else 1
    plan = []
    for d in range(1, games // per_set + 1):
        deal = derive_seed(seed, "match", d)
        orders = rotations(len(names)) if duplicate else [tuple(range(len(names)))]
        for r, order in enumerate(orders, start=1):
            game_id = f"d{d}-r{r}" if duplicate else f"g{d}"
            plan.append(_PlannedGame(game_id, deal, tuple(names[i] for i in order), d, r))
    return plan


def _entry(game: _PlannedGame, record: GameRecord) -> dict[str, object]:
    """The game as the standings read a journal's game entry (its duplicate set included)."""
    entry: dict[str, object] = {"type": "game", **record.to_dict()}
    entry.update(table=1, deal_set=game.deal_set, seating=game.seating)
    return entry


def _progress(number: int, games: int, record: GameRecord) -> str:
    """``game 3/8 d1-r3: heuristic 1st (52), ...``: one line per game on stderr."""
    order = sorted(range(len(record.bots)), key=lambda s: (record.placements[s], s))
    places = ", ".join(f"{record.bots[s]} {record.scores[s]}" for s in order)
    faults = sum(sum(f.values()) for f in record.faults)
    extra = f"; {faults} fault{'s' if faults != 1 else ''}" if faults else ""
    return f"game {number}/{games} {record.game_id}: {places}{extra}"
