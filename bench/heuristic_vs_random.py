#!/usr/bin/env python3
"""The heuristic sample bot against the random one: win rate, placement and points, with 95% CIs.

    python bench/heuristic_vs_random.py [--games 1000] [--process-games 50]

Two heuristic and two random bots sit alternately (H R H R); every deal seed
is played twice, the second time with the seats rotated by one (R H R H), so
that each bot plays every seat and both sides get the same cards. Games use
the default rules (docs/rules.md: four players, 100 points, moon adds to others).

Two runs:

1. ``--games`` games (default 1000) between the built-in in-process bots
   ``heuristic`` and ``random`` (referee/players/builtin.py), for speed;
2. ``--process-games`` games (default 50) between the real sample bots,
   sample_bots/python/heuristic and sample_bots/python/random, launched as
   gRPC server processes by the referee, to confirm that they agree.

For each bot: the win rate (a first place shared by k seats counts 1/k),
the average placement (1 = first) and the average points per hand (lower is
better). The 95% confidence intervals are normal intervals over deal seeds
(the two games of a seed are one sample, since they share the cards).
"""

from __future__ import annotations

import argparse
import math
import pathlib
import statistics
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.engine import Rules  # noqa: E402
from referee.match.runner import GameRecord, GameSpec, play_game  # noqa: E402
from referee.players import Player, builtin_player  # noqa: E402
from referee.players.policy import FaultPolicy, TimeControl  # noqa: E402
from referee.players.specs import parse_bot  # noqa: E402
from referee.players.supply import BotPool  # noqa: E402

SIDES = ("heuristic", "random")
PATTERNS = (
    ("heuristic", "random", "heuristic", "random"),
    ("random", "heuristic", "random", "heuristic"),
)


def mean_ci(values: list[float]) -> tuple[float, float]:
    """The mean and the half-width of its normal 95% confidence interval."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.nan
    return mean, 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def seat_stats(record: GameRecord) -> list[tuple[float, int, float]]:
    """Per seat: (win share, placement, points per hand)."""
    winners = record.winners
    hands = len(record.hand_scores)
    return [
        (
            (1 / len(winners)) if seat in winners else 0.0,
            record.placements[seat],
            record.scores[seat] / hands,
        )
        for seat in range(len(record.bots))
    ]


def run(
    label: str, players: dict[str, Player], games: int, log_dir: pathlib.Path, first_seed: int
) -> dict[str, dict[str, list[float]]]:
    """Play ``games`` games; per side, per seed: the means of its seats' figures."""
    per_seed: dict[int, dict[str, list[tuple[float, int, float]]]] = {}
    faults = 0
    started = time.perf_counter()
    for game in range(games):
        seed, pattern = first_seed + game // 2, PATTERNS[game % 2]
        spec = GameSpec(
            game_id=f"{label}-{seed}-{game % 2}",
            seed=seed,
            bots=tuple(f"{side}@{seat}" for seat, side in enumerate(pattern)),
            rules=Rules(),
            time_control=TimeControl(move_time_ms=5000),
            fault_policy=FaultPolicy(max_faults=0),
        )
        path = log_dir / f"{spec.game_id}.jsonl"
        record = play_game(spec, [players[side] for side in pattern], path)
        path.unlink()
        faults += sum(sum(f.values()) for f in record.faults)
        stats = seat_stats(record)
        entry = per_seed.setdefault(seed, {side: [] for side in SIDES})
        for seat, side in enumerate(pattern):
            entry[side].append(stats[seat])
        if (game + 1) % 100 == 0:
            print(f"  {label}: {game + 1} games", file=sys.stderr)
    elapsed = time.perf_counter() - started
    print(f"{label}: {games} games in {elapsed:.0f} s, {faults} faults")
    out: dict[str, dict[str, list[float]]] = {}
    for side in SIDES:
        rows = [entry[side] for entry in per_seed.values()]
        out[side] = {
            "win": [statistics.fmean(r[0] for r in row) for row in rows],
            "place": [statistics.fmean(r[1] for r in row) for row in rows],
            "points": [statistics.fmean(r[2] for r in row) for row in rows],
        }
    return out


def report(label: str, results: dict[str, dict[str, list[float]]]) -> None:
    print(f"\n{label}")
    print("two seats each; a seat's fair share of wins is 25%, of placements 2.5")
    print(f"{'bot':<10} {'win rate':>16} {'avg placement':>18} {'points per hand':>18}")
    for side in SIDES:
        r = results[side]
        win, win_ci = mean_ci(r["win"])
        place, place_ci = mean_ci(r["place"])
        points, points_ci = mean_ci(r["points"])
        print(
            f"{side:<10} {win * 100:8.1f}% ± {win_ci * 100:4.1f}"
            f" {place:10.2f} ± {place_ci:4.2f}"
            f" {points:10.2f} ± {points_ci:4.2f}"
        )
    diff = [
        h - r
        for h, r in zip(results["heuristic"]["points"], results["random"]["points"], strict=True)
    ]
    d, d_ci = mean_ci(diff)
    print(f"heuristic - random, points per hand: {d:+.2f} ± {d_ci:.2f} (paired by seed)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="built-in games (default 1000)")
    parser.add_argument(
        "--process-games", type=int, default=50, help="games with launched sample bots (default 50)"
    )
    parser.add_argument("--seed", type=int, default=1, help="first deal seed")
    args = parser.parse_args()
    log_dir = pathlib.Path(tempfile.mkdtemp(prefix="bench-hvr-"))

    if args.games:
        players = {side: builtin_player(side) for side in SIDES}
        builtin = run("built-in", players, args.games, log_dir, args.seed)
        report(f"built-in bots, {args.games} games (95% CI over {args.games // 2} seeds)", builtin)

    if args.process_games:
        with BotPool(log_dir=log_dir / "bots", time_control=TimeControl(move_time_ms=5000)) as pool:
            folder = ROOT / "sample_bots" / "python"
            players = {side: pool.start(parse_bot(str(folder / side), name=side)) for side in SIDES}
            launched = run("launched", players, args.process_games, log_dir, args.seed)
        report(
            f"sample bots as gRPC processes, {args.process_games} games "
            f"(95% CI over {args.process_games // 2} seeds)",
            launched,
        )


if __name__ == "__main__":
    main()
