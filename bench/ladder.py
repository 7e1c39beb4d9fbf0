"""Benchmark: the ladder (``referee ladder serve``), each figure beside a reference of the same run.

1. **Picking the next table with 200 active bots** (goal: at most 5 ms):
   matchmaking (:mod:`referee.ladder.matchmaking`) with 200 active bots
   whose ratings came from 2,000 rated games; the median and 95th percentile
   of ``--picks`` picks, each followed by the set being handed out and
   finished (so the picks differ). Reference: rating one game of four
   (:class:`referee.stats.ratings.Ratings`), the work each journaled game
   costs the matchmaker anyway.
2. **The ladder process's memory after 1,000 games against after 100**
   (goal: at most +10%, a ladder runs for days): a real ladder in this
   process (its database, the pipeline building and checking four Python
   bots in the sandbox, the game loop with ``bot_processes: shared`` so the
   games' threads are this process's), its resident memory sampled when the
   journal holds 100 games (the reference) and when it holds ``--games``.
3. **The ladder page with 100,000 journaled games** and **upload to first
   game** are the web's: ``bench/ladder_web.py`` (run here with ``page`` and
   ``upload``).

Usage::

    python bench/ladder.py pick [--picks 2000]
    python bench/ladder.py memory [--games 1000]
    python bench/ladder.py page | upload     # bench/ladder_web.py's parts
    python bench/ladder.py all
"""

from __future__ import annotations

import argparse
import pathlib
import random
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from referee.ladder.config import parse_ladder_config
from referee.ladder.matchmaking import Matchmaker
from referee.ladder.service import Ladder
from referee.stats.ratings import Ratings

PICK_TARGET_MS = 5.0
MEMORY_TARGET = 0.10
ROOT = pathlib.Path(__file__).resolve().parent.parent


def _ms(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, ordered[int(len(ordered) * 0.95)] * 1000


def pick_time(picks: int, bots: int = 200) -> None:
    """Part 1: the time of one pick with ``bots`` active bots, beside rating one game."""
    rng = random.Random(1)
    m = Matchmaker(table_size=4, seed=1)
    names = [f"team{i}-bot.v1" for i in range(bots)]
    strength = {n: rng.random() for n in names}
    for name in names:
        m.add(name)
    for _ in range(2000):  # ratings as a ladder has them after a while
        table = rng.sample(names, 4)
        order = sorted(table, key=lambda b: -strength[b] - rng.random())
        m.rate(table, [order.index(b) + 1 for b in table])
    times: list[float] = []
    for _ in range(picks):
        started = time.perf_counter()
        table = m.pick()
        times.append(time.perf_counter() - started)
        assert table is not None
        m.set_started(table)
        m.set_finished(table)
    reference = Ratings(names)
    rated: list[float] = []
    for _ in range(picks):
        table = rng.sample(names, 4)
        started = time.perf_counter()
        reference.rate(table, [1, 2, 3, 4])
        rated.append(time.perf_counter() - started)
    median, p95 = _ms(times)
    ref_median, ref_p95 = _ms(rated)
    verdict = "ok" if p95 <= PICK_TARGET_MS else "OVER"
    print(f"pick the next table, {bots} active bots ({picks} picks)")
    print(
        f"  pick:        median {median:.3f} ms, p95 {p95:.3f} ms  (goal <= {PICK_TARGET_MS} ms: {verdict})"
    )
    print(f"  reference, rating one game of 4: median {ref_median:.3f} ms, p95 {ref_p95:.3f} ms")


def _rss_bytes() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def memory_growth(games: int, first: int = 100) -> None:
    """Part 2: the process's resident memory after ``games`` games against after ``first``."""
    sys.path.insert(0, str(ROOT))
    from tests.ladder.bots import bot_folder

    with tempfile.TemporaryDirectory(prefix="ladder-bench-") as tmp:
        base = pathlib.Path(tmp)
        config = parse_ladder_config(
            {
                "name": "bench",
                "output": "out",
                "concurrency": 2,
                "bot_processes": "shared",
                "bot_lifetime": "run",
                "rules": {"target_score": 30},
                "submissions": {"check_full_game": False},
            },
            path=base / "LADDER.yaml",
        )
        lines: list[str] = []
        ladder = Ladder(config, echo=lines.append)
        for team, kind in (("a", "random"), ("b", "heuristic"), ("c", "starter"), ("d", "lowest")):
            record, _ = ladder.db.add_team(team)
            submission = ladder.begin_submission(record, kind)
            bot_folder(ladder.submission_folder(submission.id), kind)
            ladder.upload_received(submission.id)
        ladder.start()
        samples: dict[int, int] = {}
        started = time.monotonic()
        try:
            for target in (first, games):
                while ladder.status()["games_played"] < target:
                    time.sleep(0.5)
                samples[target] = _rss_bytes()
                print(
                    f"  {target} games after {time.monotonic() - started:.0f} s: "
                    f"resident {samples[target] / 2**20:.1f} MiB",
                    flush=True,
                )
        finally:
            ladder.stop()
        shutil.rmtree(base / "out", ignore_errors=True)
    growth = samples[games] / samples[first] - 1
    verdict = "ok" if growth <= MEMORY_TARGET else "OVER"
    print(f"ladder process memory: after {games} games against after {first} (the reference)")
    print(f"  growth {growth * 100:+.1f}%  (goal <= +{MEMORY_TARGET * 100:.0f}%: {verdict})")


def _web(part: str) -> None:
    import subprocess

    subprocess.run([sys.executable, str(ROOT / "bench" / "ladder_web.py"), part], check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", choices=["pick", "memory", "page", "upload", "all"])
    parser.add_argument("--picks", type=int, default=2000)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--first", type=int, default=100, help="the reference's games")
    args = parser.parse_args()
    if args.part in ("pick", "all"):
        pick_time(args.picks)
    if args.part in ("memory", "all"):
        memory_growth(args.games, args.first)
    if args.part in ("page", "all"):
        _web("page")
    if args.part in ("upload", "all"):
        _web("upload")


if __name__ == "__main__":
    main()
