#!/usr/bin/env python3
"""``referee analyze``'s speed: time per analysed decision, beside a reference of the same run.

    python bench/analysis.py [--games 2] [--worlds 200] [--budget-ms 500]

Plays ``--games`` seeded games of built-in bots (random and heuristic, target
50), analyses every seat of each with the given settings, in this process,
and prints the analysis's time per searched decision (plays and passes apart)
beside the time of one full-hand playout of the search's simulator measured
in the same run (the unit of its work), so that the figure can be compared
across machines and loads. It prints the load average too.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import random
import statistics
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.analyzer.evaluate import Settings  # noqa: E402
from referee.analyzer.game import analyse_game  # noqa: E402
from referee.audit.replay import load_game  # noqa: E402
from referee.engine import Rules  # noqa: E402
from referee.match.runner import GameSpec, play_game  # noqa: E402
from referee.players import builtin_player  # noqa: E402
from referee.search.sim import Variant, playout  # noqa: E402


def playout_us(count: int = 2000) -> float:
    """Microseconds per full-hand playout with the heuristic policy (random deals)."""
    v = Variant(4)
    rng = random.Random(1)
    cards = list(range(52))
    started = time.perf_counter()
    for _ in range(count):
        rng.shuffle(cards)
        hands = [sum(1 << c for c in cards[s * 13 : (s + 1) * 13]) for s in range(4)]
        leader = next(s for s in range(4) if hands[s] & 1)
        playout(v, hands, [0] * 4, leader, [], 0, False)
    return (time.perf_counter() - started) / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--worlds", type=int, default=200)
    parser.add_argument("--budget-ms", type=int, default=500)
    args = parser.parse_args()
    settings = Settings(worlds=args.worlds, budget_ms=args.budget_ms)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    reference = playout_us()
    plays: list[float] = []
    passes: list[float] = []
    cut = 0
    with tempfile.TemporaryDirectory(prefix="bench-analysis-") as tmp:
        for g in range(args.games):
            log = pathlib.Path(tmp) / f"g{g}.jsonl"
            spec = GameSpec(
                game_id=f"g{g}",
                seed=100 + g,
                bots=("r", "h", "r2", "h2"),
                rules=Rules(target_score=50),
            )
            play_game(spec, [builtin_player(b) for b in ("random", "heuristic") * 2], log)
            for analysis in analyse_game(load_game(log), range(4), settings).values():
                for d in analysis.decisions:
                    if d.forced or d.fallback or d.kind == "moon":
                        continue
                    (plays if d.kind == "play" else passes).append(d.ms)
                    cut += d.cut
    after = playout_us()
    print(f"reference: one full-hand playout {reference:.0f} us (again after: {after:.0f} us)")
    reference = (reference + after) / 2  # the load may change during the run: their mean
    for name, times in (("play", plays), ("pass", passes)):
        if times:
            mean = statistics.fmean(times)
            print(
                f"{name}: {len(times)} decisions, {mean:.0f} ms each (median "
                f"{statistics.median(times):.0f}), {mean * 1000 / reference:.0f} playouts' worth"
            )
    every = plays + passes
    print(
        f"all: {statistics.fmean(every):.0f} ms a searched decision "
        f"({settings.worlds} worlds or {settings.budget_ms} ms); {cut} stopped by the budget"
    )
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
