#!/usr/bin/env python3
"""The referee's time per decision over gRPC, beside a raw gRPC round trip.

    python bench/referee.py [--games 10] [--bots random,heuristic,random,heuristic] [--profile]

What it measures, in one run, on loopback:

- **referee**: full games (default rules) between four Python sample bots,
  sample_bots/python/random and /heuristic twice each, each a separate
  process launched by the referee (BotPool -> LaunchedBot), played by
  referee.match.play_game. The headline figure is **the wall time of
  play_game divided by the decisions** (passes + plays + moon choices): it
  charges the referee for everything it does in a game: the notification
  RPCs (StartGame, DealHand, EndHand, EndGame), the engine, the views, the
  protocol conversions, the log. The mean "ms" of the log's play records (one
  PlayCard decision as the referee times it: request building, the RPC, the
  bot's work, the checks) is printed too.
- **echo**: a raw gRPC unary round trip between two Python processes: this
  process calls a minimal echo server process (a generic handler returning
  its 4-byte request; the same grpcio and the same thread-pool server as
  referee.botkit). One echo call is made after every play of the games
  above (from the log's on_event hook, timed separately and taken off the
  game's wall time), so that the echo is measured under the same conditions
  as the referee: the same load, and a server that idles between calls as
  the bots do. The back-to-back figure (500 calls in a row, a hot server) is
  printed for reference.
- **echo, four servers**: the same, with four echo server processes called
  in the seats' order (after seat s plays, server s), the access pattern of
  the four bots: the transport cost of talking to four idle processes.
- **referee alone**: the same games against four in-process "instant" bots
  behind the gRPC player class (no transport, no thought): the referee's own
  work per decision.

The figures are medians over games. The target is a ratio (referee wall time
per decision / echo) of at most 1.15.

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

    def batch(self, calls: int) -> float:
        """Mean ms of ``calls`` back-to-back round trips (a hot server)."""
        start = time.perf_counter()
        for _ in range(calls):
            self.call(PAYLOAD, timeout=5)
        return (time.perf_counter() - start) * 1000 / calls

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
    echoes: list[Echo] | None = None,
) -> dict:
    """Play one game; with ``echo``/``echoes``, make echo calls after every play.

    The echo calls are timed on their own and their time is taken off the
    game's wall time and CPU time.
    """
    spec = GameSpec(
        game_id=f"bench-{seed}",
        seed=seed,
        bots=bots,
        rules=Rules(),
        time_control=TimeControl(move_time_ms=5000),
        fault_policy=FaultPolicy(),
    )
    one_s: list[float] = []
    four_s: list[float] = []
    echo_cpu_s: list[float] = []

    def on_event(kind: str, record: dict) -> None:
        if kind != "play" or echo is None:
            return
        cpu = time.process_time()
        start = time.perf_counter()
        echo.call(PAYLOAD, timeout=5)
        middle = time.perf_counter()
        if echoes:
            echoes[record["seat"]].call(PAYLOAD, timeout=5)
            four_s.append(time.perf_counter() - middle)
        one_s.append(middle - start)
        echo_cpu_s.append(time.process_time() - cpu)

    start, cpu = time.perf_counter(), time.process_time()
    record = play_game(spec, players, log_dir / f"game-{seed}.jsonl", on_event=on_event)
    wall_ms = (time.perf_counter() - start - sum(one_s) - sum(four_s)) * 1000
    cpu_ms = (time.process_time() - cpu - sum(echo_cpu_s)) * 1000
    plays = [r["ms"] for _, r in read_log(record.log_path) if r["type"] == "play"]
    assert all(not f for f in record.faults), record.faults
    decisions = sum(record.decisions)
    calls = len(one_s) * (2 if echoes else 1)
    return {
        "wall_ms": wall_ms,
        "decisions": decisions,
        "per_decision": wall_ms / decisions,
        "play_ms": statistics.fmean(plays),
        "cpu_ms": cpu_ms / decisions,
        "echo_ms": statistics.fmean(one_s) * 1000 if one_s else math.nan,
        "echo4_ms": statistics.fmean(four_s) * 1000 if four_s else math.nan,
        "echo_cpu_ms": sum(echo_cpu_s) * 1000 / calls if calls else math.nan,
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
    echoes = [Echo() for _ in range(4)]
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="bench-referee-"))
    pool = BotPool(log_dir=tmp / "bots", time_control=TimeControl(move_time_ms=5000))
    try:
        players = start_bots(pool, args.bots.split(","))
        bots = tuple(p.info.name + f"@{s}" for s, p in enumerate(players))
        play_one(players, 0, tmp, bots, echo, echoes)  # warm up the channels and the bots
        instant = [RemotePlayer(InstantConnection()) for _ in range(4)]
        games, alone, hot = [], [], []
        for game in range(1, args.games + 1):
            hot.append(echo.batch(500))
            games.append(play_one(players, game, tmp, bots, echo, echoes))
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
        for e in [echo, *echoes]:
            e.close()

    def median(key: str) -> float:
        return statistics.median(g[key] for g in games)

    echo_ms, echo4_ms, per_decision = median("echo_ms"), median("echo4_ms"), median("per_decision")
    ratios = [g["per_decision"] / g["echo_ms"] for g in games]
    ratio = statistics.median(ratios)
    alone_ms = statistics.median(alone)
    decisions = sum(g["decisions"] for g in games)
    print(
        f"grpcio {grpc.__version__}, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
        f"{len(games)} games, {decisions} decisions, bots {args.bots}"
    )
    print(
        f"raw gRPC echo round trip (Python -> Python):      {echo_ms:.3f} ms "
        f"(back to back: {statistics.median(hot):.3f} ms)"
    )
    print(f"raw gRPC echo, four servers in the bots' order:   {echo4_ms:.3f} ms")
    print(f"referee, game wall time / decisions:              {per_decision:.3f} ms")
    print(f"referee, PlayCard decision (log 'ms', mean):      {median('play_ms'):.3f} ms")
    print(
        f"referee alone (instant in-process bots):          {alone_ms:.3f} ms "
        f"= {alone_ms / echo_ms:.0%} of an echo"
    )
    print(
        f"referee process CPU time per decision:            {median('cpu_ms'):.3f} ms "
        f"(an echo call: {median('echo_cpu_ms'):.3f} ms)"
    )
    print(
        f"RATIO, game wall time per decision / echo:        {ratio:.2f} "
        f"(games {min(ratios):.2f}..{max(ratios):.2f}; "
        f"target <= 1.15: {'met' if ratio <= 1.15 else 'NOT met'})"
    )
    print(f"ratio, PlayCard decision / echo:                  {median('play_ms') / echo_ms:.2f}")
    print(f"ratio, game wall time per decision / four-server echo: {per_decision / echo4_ms:.2f}")


if __name__ == "__main__":
    main()
