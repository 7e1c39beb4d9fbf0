"""Benchmark: ``referee verify`` of a tournament folder, on one process and on every core.

A script, not a test (the machine may be shared). It plays two tournaments
of built-in bots (5 bots, 5 tables of 4, duplicate deal sets; in-process, so
they are quick) into temporary folders, a small and a large one, and then
verifies each folder with ``verify_folder`` as ``referee verify`` does
(authenticated with the folder's key, standings recomputed) on 1 process and
on every core, alternately for a few rounds. It prints, side by side:

- the time per game on 1 process and on N, for both folders (linear in games:
  the time per game stays flat from the small folder to the large one);
- the speedup of N processes over 1, per round and its median. Target: at
  least 1.7x on 2 cores;
- the CPU time of both (this process and the pool's workers): what the pool
  adds, a figure a busy shared machine distorts less than the wall time.

Usage::

    python bench/verify.py                      # 100 and 300 games, 3 rounds
    python bench/verify.py --deal-sets 5 20 --rounds 2
"""

from __future__ import annotations

import argparse
import os
import pathlib
import resource
import statistics
import sys
import tempfile
import textwrap
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from referee.audit.folder import cpu_count, verify_folder
from referee.tournament import Progress, Tournament
from referee.tournament.config import load_config

#: 5 bots make 5 tables of 4; each deal set is played 4 times (rotations): 20 games a set.
GAMES_PER_DEAL_SET = 20


def make_folder(
    parent: pathlib.Path, deal_sets: int, *, name: str = "bench-verify"
) -> pathlib.Path:
    """A finished tournament folder of built-in bots: ``20 * deal_sets`` games, with its key."""
    config = parent / f"{name}-{deal_sets}.yaml"
    config.write_text(
        textwrap.dedent(
            f"""
            name: {name}
            seed: 7
            bots: {{r1: random, r2: random, h1: heuristic, h2: heuristic, h3: heuristic}}
            schedule: {{deal_sets: {deal_sets}}}
            bot_processes: per_worker
            concurrency: {max(2, cpu_count())}
            """
        )
    )
    out = parent / f"{name}-{deal_sets}"
    result = Tournament(
        load_config(config), out_dir=out, echo=lambda _: None, progress=Progress(enabled=False)
    ).run()
    if not result.complete or result.errors:
        raise SystemExit(f"the tournament in {out} did not finish: {result.errors[:3]}")
    return out


def _cpu_s() -> float:
    """CPU seconds of this process and its reaped children (the pool's workers)."""
    own, children = (
        resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _timed(folder: pathlib.Path, workers: int) -> tuple[float, float]:
    """Wall and CPU seconds of one verify_folder."""
    cpu, started = _cpu_s(), time.perf_counter()
    report = verify_folder(folder, workers=workers)
    seconds = time.perf_counter() - started
    if not report.ok:
        raise SystemExit(f"{folder}: verify failed: {report.all_problems[0]}")
    return seconds, _cpu_s() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--deal-sets", type=int, nargs=2, default=[5, 15], help="deal sets (x20 games) per folder"
    )
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of 1 and N")
    parser.add_argument("--workers", type=int, default=cpu_count(), help="N (default: the cores)")
    args = parser.parse_args()
    n = args.workers
    with tempfile.TemporaryDirectory(prefix="bench-verify-") as tmp:
        started = time.perf_counter()
        folders = [make_folder(pathlib.Path(tmp), d) for d in args.deal_sets]
        sizes = [d * GAMES_PER_DEAL_SET for d in args.deal_sets]
        print(
            f"verify: folders of {' and '.join(map(str, sizes))} built-in games "
            f"(played in {time.perf_counter() - started:.0f} s); 1 process vs {n} "
            f"({cpu_count()} cores here, load average {os.getloadavg()[0]:.1f}), "
            f"{args.rounds} alternating rounds"
        )
        per_game: dict[tuple[int, int], list[float]] = {}
        ratios: dict[int, list[float]] = {size: [] for size in sizes}
        cpu: dict[tuple[int, int], list[float]] = {}
        for round_ in range(1, args.rounds + 1):
            for folder, size in zip(folders, sizes, strict=True):
                one, one_cpu = _timed(folder, 1)
                many, many_cpu = _timed(folder, n)
                cpu.setdefault((size, 1), []).append(one_cpu)
                cpu.setdefault((size, n), []).append(many_cpu)
                per_game.setdefault((size, 1), []).append(one / size * 1000)
                per_game.setdefault((size, n), []).append(many / size * 1000)
                ratios[size].append(one / many)
                print(
                    f"  round {round_}, {size:>5} games: 1 process {one:6.2f} s "
                    f"({one / size * 1000:5.1f} ms/game) | {n} processes {many:6.2f} s "
                    f"({many / size * 1000:5.1f} ms/game) | speedup {one / many:4.2f}x | "
                    f"CPU {one_cpu:5.1f} s vs {many_cpu:5.1f} s"
                )
        print("  median ms per game (whole verify: journal, MACs, replays, standings):")
        for size in sizes:
            print(
                f"    {size:>5} games: 1 process {statistics.median(per_game[size, 1]):5.1f} | "
                f"{n} processes {statistics.median(per_game[size, n]):5.1f} | "
                f"speedup {statistics.median(ratios[size]):4.2f}x"
            )
        small, large = sizes
        growth = statistics.median(per_game[large, n]) / statistics.median(per_game[small, n])
        speedup = statistics.median(ratios[large])
        verdict = "meets" if speedup >= 1.7 else "BELOW"
        overhead = statistics.median(cpu[large, n]) / statistics.median(cpu[large, 1]) - 1
        print(
            f"  linear in games: ms/game at {large} over {small} games = {growth:.2f} "
            f"(1.00 is linear); speedup at {large} games {speedup:.2f}x on {n} processes "
            f"({verdict} the >= 1.7x target on 2 cores)"
        )
        print(
            f"  CPU time of {n} processes over 1 at {large} games: {overhead:+.0%} (the work "
            f"added by the pool; with {n} idle cores the speedup is about {n / (1 + overhead):.2f}x)"
        )


if __name__ == "__main__":
    main()
