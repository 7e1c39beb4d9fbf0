"""Benchmark: games per minute of the Ray executor with 1, 2 and 4 worker nodes.

A script, not a test (the machine may be shared). For each node count N, a
Ray cluster of this machine is started (``ray.cluster_utils.Cluster``: a head
without CPUs and N worker nodes of one CPU each, so one game worker per node)
and plays a tournament of two launched bots from one bot folder that sleep a
fixed time per decision (``--sleep-ms``) and use almost no CPU, so that the
machine's cores are not the limit, with two built-in bots; each bot process
lives for the whole run (``bot_lifetime: run``), so that bot start-ups do
not weigh on the cores either. Each worker node
plays ``--games-per-node`` games (one table, ``N * games-per-node / 4`` deal
sets). Cluster and worker start-up are not counted: the clock runs from the
first game to the last.

Reported per node count: games per minute, the speedup against one node, and
the head's CPU time per game: the referee process (the Ray driver: it
receives each game's record and log, writes, syncs, checks and journals it)
and the head node's own Ray processes (GCS, raylet). Target: at least 3.3x
games per minute at 4 nodes against 1.

Usage::

    python bench/distributed.py
    python bench/distributed.py --nodes 1 2 4 --sleep-ms 100 --games-per-node 8 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import sys
import tempfile
import textwrap
import time
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from referee.sandbox import procfs
from referee.tournament import Progress, Tournament
from referee.tournament.config import load_config

_SLEEPY_BOT = """
import sys
import time

from referee.botkit import Bot, serve

SLEEP_S = {sleep_s}


class SleepyBot(Bot):
    name = "sleepy"

    def pass_cards(self, request):
        time.sleep(SLEEP_S)
        return list(request.hand)[: request.count]

    def play_card(self, request):
        time.sleep(SLEEP_S)
        return request.legal_moves[0]


if __name__ == "__main__":
    serve(SleepyBot())
"""

_MANIFEST = """
name: sleepy
version: 1.0.0
author: bench
language: Python
run: "{python} bot.py --address {address}"
"""


class _Clock(Progress):
    """A silent progress sink that times the games (from start() to finish()) and the head's CPU."""

    def __init__(self, head_pids: list[int]) -> None:
        super().__init__(enabled=False)
        self.head_pids = head_pids
        self.began = self.ended = 0.0
        self.driver_cpu = self.head_cpu = 0.0

    def _head_cpu(self) -> float:
        usage = {p.pid: p.cpu_seconds for p in procfs.processes()}
        return sum(usage.get(pid, 0.0) for pid in self.head_pids)

    def start(self, total: int) -> None:
        super().start(total)
        self.began = time.perf_counter()
        self.driver_cpu = -time.process_time()
        self.head_cpu = -self._head_cpu()

    def finish(self) -> None:
        self.ended = time.perf_counter()
        self.driver_cpu += time.process_time()
        self.head_cpu += self._head_cpu()


def _head_pids(cluster: Any) -> list[int]:
    pids = []
    for infos in cluster.head_node.all_processes.values():
        for info in infos:
            if info.process is not None:
                pids.append(info.process.pid)
    return pids


def measure(nodes: int, folder: pathlib.Path, *, games_per_node: int, target: int) -> dict:
    """Start a cluster of ``nodes`` worker nodes, play the tournament, stop the cluster."""
    from ray.cluster_utils import Cluster

    deal_sets = max(1, nodes * games_per_node // 4)
    config = folder / f"bench-{nodes}.yaml"
    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False}
    )
    try:
        for _ in range(nodes):
            cluster.add_node(num_cpus=1, include_dashboard=False)
        cluster.wait_for_nodes()
        config.write_text(
            textwrap.dedent(
                f"""
                name: bench-distributed-{nodes}
                seed: 3
                bots: {{s1: sleepy, s2: sleepy, h: heuristic, r: random}}
                rules: {{target_score: {target}}}
                schedule: {{deal_sets: {deal_sets}}}
                time_control: {{move_time_ms: 5000, startup_timeout_ms: 60000}}
                bot_lifetime: run
                executor: {{kind: ray, address: "{cluster.address}", workers: {nodes}}}
                output: out-{nodes}
                """
            )
        )
        clock = _Clock(_head_pids(cluster))
        result = Tournament(
            load_config(config), fresh=True, progress=clock, echo=lambda _: None
        ).run()
    finally:
        cluster.shutdown()
    if not result.complete or result.errors:
        raise SystemExit(f"{nodes} node(s): the tournament did not complete: {result.errors}")
    games = result.games_played
    seconds = clock.ended - clock.began
    return {
        "nodes": nodes,
        "games": games,
        "seconds": round(seconds, 2),
        "games_per_min": round(games / seconds * 60, 2),
        "driver_cpu_ms_per_game": round(clock.driver_cpu / games * 1000, 1),
        "head_ray_cpu_ms_per_game": round(clock.head_cpu / games * 1000, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--sleep-ms", type=float, default=100.0)
    parser.add_argument("--games-per-node", type=int, default=8)
    parser.add_argument("--target-score", type=int, default=30)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    ray_tmp = pathlib.Path(tempfile.mkdtemp(prefix="bench-ray-"))
    os.environ["RAY_TMPDIR"] = str(ray_tmp)  # Ray's files here, not in the machine's /tmp/ray
    folder = ray_tmp / "work"
    (folder / "sleepy").mkdir(parents=True)
    (folder / "sleepy" / "bot.py").write_text(_SLEEPY_BOT.format(sleep_s=args.sleep_ms / 1000))
    (folder / "sleepy" / "bot.yaml").write_text(_MANIFEST)
    rows = []
    try:
        for nodes in args.nodes:
            row = measure(
                nodes, folder, games_per_node=args.games_per_node, target=args.target_score
            )
            rows.append(row)
            print(
                f"{nodes} worker node(s): {row['games']} games in {row['seconds']:.1f} s = "
                f"{row['games_per_min']:.1f} games/min; head CPU per game: referee "
                f"{row['driver_cpu_ms_per_game']:.0f} ms, head node's Ray processes "
                f"{row['head_ray_cpu_ms_per_game']:.0f} ms",
                flush=True,
            )
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)
    base = rows[0]["games_per_min"]
    for row in rows:
        row["speedup"] = round(row["games_per_min"] / base, 2)
    print(
        "speedup against "
        f"{rows[0]['nodes']} node(s): "
        + ", ".join(f"{r['nodes']} nodes {r['speedup']:.2f}x" for r in rows)
    )
    last = rows[-1]
    if last["nodes"] == 4 and rows[0]["nodes"] == 1:
        verdict = "met" if last["speedup"] >= 3.3 else "NOT met"
        print(f"target (4 nodes >= 3.3x 1 node): {verdict}")
    if args.json:
        pathlib.Path(args.json).write_text(
            json.dumps({"sleep_ms": args.sleep_ms, "rows": rows}, indent=2) + "\n"
        )


if __name__ == "__main__":
    main()
