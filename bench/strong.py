#!/usr/bin/env python3
"""The strong bot against the heuristic: duplicate deals, paired by seat, with a 95% CI.

    python bench/strong.py [--deal-sets 300] [--move-time-ms 200] [--out DIR] [-j 2]

A gauntlet (referee/tournament/gauntlet.py, docs/sprt.md) with a fixed
number of deal sets: the candidate, the strong bot folder
(sample_bots/python/strong, launched and sandboxed as in any tournament), and
the baseline, the built-in ``heuristic`` (the strongest heuristic bot we
have; sample_bots/python/heuristic plays the same rules), each sit in every
seat of every deal (the rotations) against three built-in ``heuristic``
opponents. A deal set gives one paired sample: the baseline's points per hand
minus the candidate's, over the rotations of that deal in the same seats
against the same opponents (positive: the strong bot takes fewer points).

Each game is one hand (target score 1, ties shared; so hand 1, passing
left), which keeps 300 deal sets within the hour on two cores; the rules are
otherwise the defaults. The figures are the gauntlet's own
(``test: fixed``: mean, Student's t 95% CI, LOS), plus, from its journal, the
candidate's and the baseline's win share, moons shot, faults (timeouts in
particular) and decision times. The bot's process lives for the whole run
(``--bot-lifetime run``; it keeps no state between games), so that process
starts do not compete with the games. The output folder keeps the journal and
every game log (``referee verify DIR`` re-checks them;
``referee gauntlet DIR`` prints the result again).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.folder import open_journal  # noqa: E402

CONFIG = """\
# Written by bench/strong.py.
name: strong-bench
seed: {seed}
format: gauntlet
bots:
  strong: {strong}
  heuristic: heuristic
  h1: heuristic
  h2: heuristic
  h3: heuristic
gauntlet:
  candidate: strong
  baseline: heuristic
  opponents: [h1, h2, h3]
  metric: points
  test: fixed
rules:
  num_players: 4
  target_score: 1
  tie_rule: share
schedule:
  deal_sets: {deal_sets}
  duplicate: true
time_control:
  move_time_ms: {move_time_ms}
  time_bank_ms: {time_bank_ms}
bot_processes: per_worker
# The strong bot keeps no state between games (nothing to carry within a duplicate
# set), so one process per worker serves the whole run: no process start per game
# competing with the games for the two cores.
bot_lifetime: {bot_lifetime}
concurrency: {concurrency}
"""


def journal_figures(out: pathlib.Path) -> dict[str, dict[str, float]]:
    """Per subject (candidate and baseline): games, win share, moons, faults by kind, ms."""
    figures: dict[str, dict] = {}
    _, _, entries = open_journal(out)  # authenticated with the folder's key
    for entry in entries:
        if entry.get("type") != "game":
            continue
        meta = {**entry.get("meta", {}), **entry}
        subject = meta.get("subject")
        if subject not in entry.get("bots", ()):
            continue
        seat = list(entry["bots"]).index(subject)
        f = figures.setdefault(
            subject,
            {"games": 0, "wins": 0.0, "moons": 0, "faults": collections.Counter(), "ms": []},
        )
        f["games"] += 1
        winners = entry.get("winners", [])
        if seat in winners:
            f["wins"] += 1 / len(winners)
        f["moons"] += entry.get("moons", [0] * len(entry["bots"]))[seat]
        f["faults"].update(entry.get("faults", [{}] * len(entry["bots"]))[seat])
        decisions = entry.get("decisions", [0] * len(entry["bots"]))[seat]
        think = entry.get("think_ms", [0.0] * len(entry["bots"]))[seat]
        if decisions:
            f["ms"].append(think / decisions)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deal-sets", type=int, default=300, help="duplicate deal sets (300)")
    parser.add_argument("--move-time-ms", type=int, default=200, help="free time per move (200)")
    parser.add_argument("--time-bank-ms", type=int, default=0, help="time bank per game (0)")
    parser.add_argument("--seed", type=int, default=2026, help="the gauntlet's seed")
    parser.add_argument("-j", "--concurrency", type=int, default=2, help="games at once (2)")
    parser.add_argument(
        "--bot-lifetime",
        choices=("run", "table", "game"),
        default="run",
        help="how long the strong bot's process lives (run; docs/config.md)",
    )
    parser.add_argument(
        "--out", type=pathlib.Path, default=ROOT / "runs" / "bench-strong", help="output folder"
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    config = args.out.parent / f"{args.out.name}.yaml"
    config.write_text(
        CONFIG.format(
            seed=args.seed,
            strong=ROOT / "sample_bots" / "python" / "strong",
            deal_sets=args.deal_sets,
            move_time_ms=args.move_time_ms,
            time_bank_ms=args.time_bank_ms,
            concurrency=args.concurrency,
            bot_lifetime=args.bot_lifetime,
        )
    )
    load_before = os.getloadavg()
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "referee.cli", "gauntlet", str(config), "--out", str(args.out)],
        check=False,
    )
    wall = time.monotonic() - started
    load_after = os.getloadavg()
    if done.returncode not in (0, 1, 2):
        print(f"referee gauntlet failed with exit code {done.returncode}", file=sys.stderr)
        return done.returncode
    report = json.loads((args.out / "gauntlet.json").read_text())
    points = report["results"][0]["points_per_hand"]
    figures = journal_figures(args.out)
    print()
    print(
        f"strong vs heuristic: {args.deal_sets} deal sets x 4 rotations, one-hand games, "
        f"{args.move_time_ms} ms a move, bank {args.time_bank_ms} ms, "
        f"concurrency {args.concurrency}, bot lifetime {args.bot_lifetime}"
    )
    if points.get("ci95"):
        lo, hi = points["ci95"]
        print(
            f"heuristic - strong, points per hand: {points['mean']:+.3f} "
            f"(95% CI {lo:+.3f} .. {hi:+.3f}; sd {points['sd']:.2f}; LOS {points['los']:.4f}; "
            f"{points['sets']} sets)"
        )
    for subject in ("strong", "heuristic"):
        f = figures.get(subject)
        if not f:
            continue
        timeouts = f["faults"].get("timeout", 0)
        ms = statistics.fmean(f["ms"]) if f["ms"] else 0.0
        print(
            f"{subject:<10} games {f['games']}, win share {f['wins'] / f['games']:.1%}, "
            f"moons {f['moons']}, timeouts {timeouts}, faults {sum(f['faults'].values())} "
            f"{dict(f['faults']) or ''}, mean ms per decision {ms:.1f}"
        )
    print(
        f"wall time {wall / 60:.1f} min; load average before {load_before[0]:.2f}, "
        f"after {load_after[0]:.2f} (1 min), {load_after[2]:.2f} (15 min); "
        f"{os.cpu_count()} CPUs"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
