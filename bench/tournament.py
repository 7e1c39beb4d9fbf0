"""Benchmark: tournament throughput by concurrency, and the referee's memory over long runs.

Two measurements (a script, not a test; the machine may be shared):

1. **Throughput**: games per minute of a tournament between the Python sample
   bots launched as processes (random-py and heuristic-py, each from its
   folder and as a command: four bot processes, one table, duplicate deal
   sets), at concurrency 1 and 2. Bot start-up is not counted: the clock runs
   from the first game to the last. The two are measured alternately for a
   few rounds and the ratio is taken per round; the summary is the median.
   Target: concurrency 2 gives at least 1.6x concurrency 1.
2. **Scaling check**: the same with four bots that sleep 4 ms per decision
   and use almost no CPU, to show what the runner itself allows when the
   machine's CPU is not the limit (a shared machine may not give two cores).
3. **Memory**: the referee process's peak resident memory (``ru_maxrss``)
   over a tournament of built-in bots (in-process, so the referee is all
   there is) of about 100 and about 1000 games, each in a fresh process.
   Target: less than 10% growth.

Usage::

    python bench/tournament.py                 # both
    python bench/tournament.py --rounds 3 --deal-sets 6 --skip-memory
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from referee.sandbox import procfs
from referee.tournament import Progress, Tournament
from referee.tournament.config import load_config

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_bots" / "python"


def _tree_cpu() -> tuple[float, float]:
    """CPU seconds used so far by this process, and by it and every live descendant."""
    children: dict[int, list[int]] = {}
    usage: dict[int, float] = {}
    for process in procfs.processes():
        children.setdefault(process.ppid, []).append(process.pid)
        usage[process.pid] = process.cpu_seconds
    total, todo = 0.0, [os.getpid()]
    while todo:
        pid = todo.pop()
        total += usage.get(pid, 0.0)
        todo.extend(children.get(pid, []))
    return usage.get(os.getpid(), 0.0), total


def _spin(seconds: float) -> float:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass
    return time.process_time()


def available_cores(seconds: float = 2.0) -> float:
    """CPU cores two busy processes get right now (2.0 on an idle 2-core machine)."""
    with multiprocessing.get_context("fork").Pool(2) as pool:
        began = time.perf_counter()
        used = pool.map(_spin, [seconds, seconds])
        return sum(used) / (time.perf_counter() - began)


class _Clock(Progress):
    """A silent progress sink that times the games (from the last start() to finish())
    and measures the CPU the referee and its bots used meanwhile."""

    def __init__(self) -> None:
        super().__init__(enabled=False)
        self.began = self.ended = 0.0
        self.cpu = self.referee_cpu = 0.0

    def start(self, total: int) -> None:
        super().start(total)
        self.began = time.perf_counter()
        referee, total = _tree_cpu()
        self.referee_cpu, self.cpu = -referee, -total

    def finish(self) -> None:
        self.ended = time.perf_counter()
        referee, total = _tree_cpu()
        self.referee_cpu += referee
        self.cpu += total


def _throughput_config(
    folder: pathlib.Path, deal_sets: int, target: int, bot_processes: str
) -> pathlib.Path:
    path = folder / "throughput.yaml"
    path.write_text(
        textwrap.dedent(
            f"""
            name: bench-throughput
            seed: 1
            bots:
              random-py: {SAMPLES / "random"}
              heuristic-py: {SAMPLES / "heuristic"}
              random-cmd: "{{python}} {SAMPLES / "random" / "bot.py"} --port {{port}}"
              heuristic-cmd: "{{python}} {SAMPLES / "heuristic" / "bot.py"} --port {{port}}"
            rules: {{target_score: {target}}}
            schedule: {{deal_sets: {deal_sets}}}
            time_control: {{move_time_ms: 5000}}
            bot_processes: {bot_processes}
            """
        )
    )
    return path


def games_per_minute(
    config: pathlib.Path, out: pathlib.Path, concurrency: int
) -> tuple[float, float, float]:
    """Games per minute of one full run (bot start-up excluded), the CPU cores used by the
    referee and its bots together, and by the referee alone."""
    clock = _Clock()
    result = Tournament(
        load_config(config),
        out_dir=out,
        fresh=True,
        concurrency=concurrency,
        progress=clock,
        echo=lambda _: None,
    ).run()
    if not result.complete:
        raise SystemExit(f"benchmark tournament incomplete: {result}")
    wall = clock.ended - clock.began
    return result.games_played / wall * 60, clock.cpu / wall, clock.referee_cpu / wall


def throughput(rounds: int, deal_sets: int, target: int, bot_processes: str) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-tournament-") as tmp:
        folder = pathlib.Path(tmp)
        config = _throughput_config(folder, deal_sets, target, bot_processes)
        games = 4 * deal_sets
        print(
            f"throughput: 4 Python sample bots as processes, {games} games per run, target {target}"
            f", bot_processes: {bot_processes}"
        )
        print(
            f"{'round':>5}  {'c=1 games/min':>14} {'cores':>9}  {'c=2 games/min':>14} {'cores':>9}"
            f"  {'ratio':>5}  {'free':>4}"
        )
        ratios, ones, twos, frees = [], [], [], []
        for n in range(1, rounds + 1):
            one, one_cores, one_ref = games_per_minute(config, folder / "out", 1)
            free = available_cores()
            two, two_cores, two_ref = games_per_minute(config, folder / "out", 2)
            frees.append(free)
            ones.append(one)
            twos.append(two)
            ratios.append(two / one)
            print(
                f"{n:>5}  {one:>14.1f} {one_cores:>4.2f}/{one_ref:>4.2f}"
                f"  {two:>14.1f} {two_cores:>4.2f}/{two_ref:>4.2f}"
                f"  {two / one:>5.2f}  {free:>4.2f}"
            )
        ratio = statistics.median(ratios)
        verdict = "meets" if ratio >= 1.6 else "BELOW"
        print(
            f"median  {statistics.median(ones):>14.1f} {'':>9}  {statistics.median(twos):>14.1f}"
            f" {'':>9}  {ratio:>5.2f}  ({verdict} the 1.6x target)"
        )
        print(
            "cores: CPU used per second of play by the referee and its bots / by the referee "
            "alone;\nfree: cores two busy-looping processes got between the runs "
            f"(median {statistics.median(frees):.2f}; 2.00 on an idle 2-core machine), "
            "the ceiling of any 2-way speed-up"
        )


_SLEEPY_BOT = """
import time
from referee.botkit import Bot, serve

class SleepyBot(Bot):
    name = "sleepy"

    def pass_cards(self, request):
        time.sleep(0.004)
        return list(request.hand)[: request.count]

    def play_card(self, request):
        time.sleep(0.004)
        return request.legal_moves[0]

serve(SleepyBot())
"""


def scaling_check(deal_sets: int, target: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-sleepy-") as tmp:
        folder = pathlib.Path(tmp)
        (folder / "sleepy.py").write_text(_SLEEPY_BOT)
        bots = "\n".join(f"  s{i}: '{{python}} sleepy.py --port {{port}}'" for i in range(1, 5))
        config = folder / "sleepy.yaml"
        config.write_text(
            f"seed: 1\nbots:\n{bots}\nrules: {{target_score: {target}}}\n"
            f"schedule: {{deal_sets: {deal_sets}}}\ntime_control: {{move_time_ms: 5000}}\n"
        )
        one, one_cores, _ = games_per_minute(config, folder / "out", 1)
        two, two_cores, _ = games_per_minute(config, folder / "out", 2)
        print(
            f"scaling check, bots sleeping 4 ms per decision ({4 * deal_sets} games): "
            f"c=1 {one:.1f} games/min ({one_cores:.2f} cores), "
            f"c=2 {two:.1f} games/min ({two_cores:.2f} cores): {two / one:.2f}x"
        )


def _memory_child(deal_sets: int, out: str) -> None:
    """Run a built-in tournament in this process and print its peak RSS (KiB) as JSON."""
    folder = pathlib.Path(out)
    config = folder / f"memory-{deal_sets}.yaml"
    config.write_text(
        textwrap.dedent(
            f"""
            name: bench-memory
            seed: 1
            bots: {{r1: random, r2: random, h1: heuristic, h2: heuristic, h3: heuristic}}
            schedule: {{deal_sets: {deal_sets}}}
            concurrency: 2
            """
        )
    )
    result = Tournament(
        load_config(config), out_dir=folder / f"out-{deal_sets}", echo=lambda _: None
    ).run()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # The game workers (bot_processes: per_worker) have ended by now: the largest of them.
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(
        json.dumps(
            {
                "games": result.games_played,
                "maxrss_kib": peak,
                "worker_maxrss_kib": workers,
                "s": result.elapsed_s,
            }
        )
    )


def memory(sizes: list[int]) -> None:
    print("memory: built-in bots (5 bots, 5 tables of 4, duplicate), concurrency 2")
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
        for deal_sets in sizes:
            out = subprocess.run(
                [sys.executable, __file__, "--memory-child", str(deal_sets), tmp],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            rows.append(json.loads(out.strip().splitlines()[-1]))
            row = rows[-1]
            print(
                f"  {row['games']:>5} games: peak RSS {row['maxrss_kib'] / 1024:7.1f} MiB, "
                f"largest game worker {row['worker_maxrss_kib'] / 1024:7.1f} MiB "
                f"({row['s']:.0f} s)"
            )
    growths = [rows[-1][key] / rows[0][key] - 1 for key in ("maxrss_kib", "worker_maxrss_kib")]
    verdict = "meets" if max(growths) < 0.10 else "ABOVE"
    print(
        f"  growth {rows[0]['games']} -> {rows[-1]['games']} games: referee {growths[0]:+.1%}, "
        f"worker {growths[1]:+.1%} ({verdict} the < 10% target)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of c=1 and c=2")
    parser.add_argument("--deal-sets", type=int, default=8, help="deal sets (x4 games) per run")
    parser.add_argument("--target", type=int, default=100, help="target score of the games")
    parser.add_argument(
        "--bot-processes",
        choices=["shared", "per_worker", "both"],
        default="both",
        help="how games and bot processes are laid out (the config key bot_processes)",
    )
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--skip-scaling", action="store_true")
    parser.add_argument(
        "--memory-child", nargs=2, metavar=("DEAL_SETS", "DIR"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.memory_child:
        _memory_child(int(args.memory_child[0]), args.memory_child[1])
        return
    if not args.skip_throughput:
        modes = ["shared", "per_worker"] if args.bot_processes == "both" else [args.bot_processes]
        for mode in modes:
            throughput(args.rounds, args.deal_sets, args.target, mode)
    if not args.skip_scaling:
        scaling_check(2, args.target)
    if not args.skip_memory:
        memory([5, 50])


if __name__ == "__main__":
    main()
