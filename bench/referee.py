#!/usr/bin/env python3
"""The referee's time per decision over gRPC, beside a raw gRPC round trip.

    python bench/referee.py [--games 6] [--echo-calls 2000] [--profile]

What it measures, in one run, on loopback:

- **echo**: a raw gRPC unary round trip between two Python processes: this
  process calls a minimal echo server process (a generic handler that returns
  its 4-byte request; the same grpcio, the same thread-pool server as
  referee.botkit) and times each call.
- **referee**: full games between four Python sample bots
  (sample_bots/python/random and /heuristic, twice each), each a separate
  process launched by the referee (BotPool -> LaunchedBot), played by
  referee.match.play_game with the default rules. The headline figure is
  **wall time of play_game / decisions** (passes + plays + moon choices): it
  charges the referee for everything it does per game, the notification RPCs
  (StartGame, DealHand, EndHand, EndGame), the engine, the views, the
  protocol conversions and the log included. The mean "ms" of the log's play
  records (the time of one PlayCard decision as the referee measures it:
  request building, the RPC, the bot's answer, the parse) is printed too.

Echo batches and games alternate, so that a change in the machine's load
affects both; the figures are medians over batches. The target is a ratio
(referee per decision / echo) of at most 1.15.

``--profile`` runs one more game under cProfile and prints the referee's
hottest functions.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import math
import os
import pathlib
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent import futures
from typing import Any

import grpc

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.bots import BotPool, parse_bot  # noqa: E402
from referee.engine import Rules  # noqa: E402
from referee.gamelog import read_log  # noqa: E402
from referee.match import GameSpec, play_game  # noqa: E402
from referee.pb.hearts.v1 import hearts_pb2 as pb  # noqa: E402
from referee.players import BotInfo, RemotePlayer  # noqa: E402
from referee.players.launcher import free_port  # noqa: E402
from referee.players.remote import Connection  # noqa: E402
from referee.policy import FaultPolicy, TimeControl  # noqa: E402

ECHO_METHOD = "/bench.Echo/Echo"
PAYLOAD = b"ping"


def serve_echo(port: int) -> None:
    """The echo server process: returns every request as it came."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    handler = grpc.method_handlers_generic_handler(
        "bench.Echo", {"Echo": grpc.unary_unary_rpc_method_handler(lambda request, _: request)}
    )
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port(f"127.0.0.1:{port}")
    server.start()
    print("ready", flush=True)
    parent = os.getppid()
    while os.getppid() == parent:  # the benchmark is gone (even killed): stop too
        time.sleep(0.2)
    server.stop(None)


class Echo:
    """A client of an echo server process that it starts and stops."""

    def __init__(self) -> None:
        port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve-echo", str(port)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        if self.proc.stdout.readline().strip() != "ready":
            raise SystemExit("the echo server did not start")
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self.call = self.channel.unary_unary(ECHO_METHOD)
        grpc.channel_ready_future(self.channel).result(timeout=10)
        for _ in range(200):  # warm up
            self.call(PAYLOAD, timeout=5)

    def close(self) -> None:
        self.channel.close()
        self.proc.terminate()
        self.proc.wait(5)


class InstantConnection(Connection):
    """A bot with no transport and no thought: answers the first legal card at once."""

    def __init__(self) -> None:
        self.info = BotInfo(name="instant")

    def call(self, rpc: str, request: Any, timeout_s: float) -> Any:
        if rpc == "PlayCard":
            return pb.PlayCardResponse(card=request.legal_moves[0])
        if rpc == "PassCards":
            return pb.PassCardsResponse(cards=request.hand[: request.count])
        return None


def start_bots(pool: BotPool, folders: list[str]) -> list:
    specs = [
        parse_bot(str(ROOT / "sample_bots" / "python" / f), name=f"{f}-{seat}")
        for seat, f in enumerate(folders)
    ]
    players = pool.start_all(specs, stand_in=False)
    return [players[s.name] for s in specs]


def play_one(
    players: list,
    seed: int,
    log_dir: pathlib.Path,
    bots: tuple[str, ...],
    echo: Echo | None = None,
    echo_per_trick: int = 4,
) -> dict:
    """Play one game; with ``echo``, interleave echo calls (after every trick).

    The echo calls are timed on their own and their time is taken off the
    game's wall time, so the game and the echo are measured under the same
    conditions, a few milliseconds apart.
    """
    spec = GameSpec(
        game_id=f"bench-{seed}",
        seed=seed,
        bots=bots,
        rules=Rules(),
        time_control=TimeControl(move_time_ms=5000),
        fault_policy=FaultPolicy(),
    )
    echo_s: list[float] = []
    echo_cpu_s: list[float] = []

    def on_event(kind: str, _: dict) -> None:
        if echo is not None and kind == "trick":
            start, cpu = time.perf_counter(), time.process_time()
            for _ in range(echo_per_trick):
                echo.call(PAYLOAD, timeout=5)
            echo_s.append(time.perf_counter() - start)
            echo_cpu_s.append(time.process_time() - cpu)

    start, cpu = time.perf_counter(), time.process_time()
    record = play_game(spec, players, log_dir / f"game-{seed}.jsonl", on_event=on_event)
    wall_ms = (time.perf_counter() - start - sum(echo_s)) * 1000
    cpu_ms = (time.process_time() - cpu - sum(echo_cpu_s)) * 1000
    echo_calls = len(echo_s) * echo_per_trick
    plays = [r["ms"] for _, r in read_log(record.log_path) if r["type"] == "play"]
    assert all(not f for f in record.faults), record.faults
    decisions = sum(record.decisions)
    return {
        "wall_ms": wall_ms,
        "decisions": decisions,
        "per_decision": wall_ms / decisions,
        "play_ms": statistics.fmean(plays),
        "cpu_ms": cpu_ms / decisions,
        "echo_ms": sum(echo_s) * 1000 / echo_calls if echo_s else math.nan,
        "echo_cpu_ms": sum(echo_cpu_s) * 1000 / echo_calls if echo_s else math.nan,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10, help="games played (default 10)")
    parser.add_argument(
        "--bots",
        default="random,heuristic,random,heuristic",
        help="the sample bots by seat, folders of sample_bots/python (default: %(default)s)",
    )
    parser.add_argument("--profile", action="store_true", help="profile one more game")
    parser.add_argument("--serve-echo", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_echo is not None:
        serve_echo(args.serve_echo)
        return

    echo = Echo()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="bench-referee-"))
    pool = BotPool(log_dir=tmp / "bots", time_control=TimeControl(move_time_ms=5000))
    try:
        players = start_bots(pool, args.bots.split(","))
        bots = tuple(p.info.name + f"@{s}" for s, p in enumerate(players))
        play_one(players, 0, tmp, bots, echo)  # warm up the channels and the bots
        instant = [RemotePlayer(InstantConnection()) for _ in range(4)]
        games, alone = [], []
        for game in range(1, args.games + 1):
            games.append(play_one(players, game, tmp, bots, echo))
            alone.append(play_one(instant, game, tmp, bots)["per_decision"])
            g = games[-1]
            print(
                f"  game {game}: {g['decisions']} decisions, {g['per_decision']:.3f} ms/decision; "
                f"echo {g['echo_ms']:.3f} ms; ratio {g['per_decision'] / g['echo_ms']:.2f}",
                file=sys.stderr,
            )
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            play_one(players, 999, tmp, bots)
            profiler.disable()
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(25)
            print(out.getvalue())
    finally:
        pool.close()
        echo.close()

    echo_ms = statistics.median(g["echo_ms"] for g in games)
    per_decision = statistics.median(g["per_decision"] for g in games)
    play_ms = statistics.median(g["play_ms"] for g in games)
    ratios = [g["per_decision"] / g["echo_ms"] for g in games]
    play_ratios = [g["play_ms"] / g["echo_ms"] for g in games]
    alone_ms = statistics.median(alone)
    cpu_ms = statistics.median(g["cpu_ms"] for g in games)
    echo_cpu_ms = statistics.median(g["echo_cpu_ms"] for g in games)
    decisions = sum(g["decisions"] for g in games)
    print(
        f"grpcio {grpc.__version__}, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
        f"{len(games)} games, {decisions} decisions, bots {args.bots}"
    )
    print(f"raw gRPC echo round trip (Python -> Python):  {echo_ms:.3f} ms")
    print(f"referee, game wall time / decisions:          {per_decision:.3f} ms")
    print(f"referee, PlayCard decision (log 'ms', mean):  {play_ms:.3f} ms")
    print(
        f"referee alone (instant in-process bots):      {alone_ms:.3f} ms "
        f"= {alone_ms / echo_ms:.0%} of an echo"
    )
    ratio = statistics.median(ratios)
    print(
        f"ratio, game wall time per decision / echo:    {ratio:.2f} "
        f"(games: {min(ratios):.2f}..{max(ratios):.2f}; "
        f"target <= 1.15: {'met' if ratio <= 1.15 else 'NOT met'})"
    )
    print(f"ratio, PlayCard decision / echo:              {statistics.median(play_ratios):.2f}")
    print(
        f"referee process CPU time per decision:        {cpu_ms:.3f} ms "
        f"(an echo call: {echo_cpu_ms:.3f} ms of the caller's CPU)"
    )


if __name__ == "__main__":
    main()
