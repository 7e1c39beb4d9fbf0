#!/usr/bin/env python3
"""How long the strong bot takes to answer over gRPC, beside its move time, in the same run.

    python bench/strong_decisions.py [--move-time-ms 50] [--rounds 5]

The speed figures that tests/strong/test_decisions.py once asserted (a play
under 1 s at a 50 ms move time; eight requests at once under 2 s at 200 ms),
measured instead of asserted, since a shared two-core machine makes any
wall-clock target in a test flaky. The bot (sample_bots/python/strong) is
served in process by referee.botkit on port 0 and asked through a real
channel, as in the tests. Each round measures:

- ``single``: one PlayCard at a time over the decisions of a hand, the
  slowest and the median answer;
- ``eight``: eight PlayCard requests sent at the same moment (eight seats of
  eight games), the time until the last answer.

Beside each figure is its reference, the move time the request carried, and
the ratio: the bot aims at about half the move time for one search, and
shares one search thread between requests that arrive together, so the
eight should finish within about one move time (ratio near 1), not eight.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import pathlib
import random
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "sample_bots" / "python" / "strong"))

import grpc  # noqa: E402
from bot import StrongBot  # noqa: E402

from referee import botkit, protocol  # noqa: E402
from referee.engine import GameState, Pass, Phase, Play, Rules, card_list  # noqa: E402
from referee.pb.hearts.v1 import hearts_pb2_grpc as pb_grpc  # noqa: E402


def positions(seed: int) -> list[GameState]:
    """The play decisions of one hand of random passes and plays (default rules)."""
    rng = random.Random(seed)
    state = GameState.new(Rules(), seed=seed)
    for seat in state.to_act():
        state.apply(Pass(seat, tuple(rng.sample(card_list(state.hands[seat]), 3))))
    found = []
    while state.phase is Phase.PLAYING and state.hand_number == 1:
        found.append(state.copy())
        state.apply(Play(state.current, rng.choice(card_list(state.legal_mask()))))
    return found


def single(stub: pb_grpc.HeartsBotStub, states: list[GameState], move_ms: int) -> list[float]:
    """Seconds per answer, one request at a time."""
    times = []
    for state in states:
        request = protocol.play_request("g", state.view(state.current), "d", move_ms, 0)
        started = time.perf_counter()
        stub.PlayCard(request, timeout=60)
        times.append(time.perf_counter() - started)
    return times


def eight(stub: pb_grpc.HeartsBotStub, states: list[GameState], move_ms: int) -> float:
    """Seconds until the last of eight simultaneous requests is answered."""
    requests = [
        protocol.play_request(f"g{i}", s.view(s.current), "d", move_ms, 0)
        for i, s in enumerate(states[:8])
    ]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        started = time.perf_counter()
        list(pool.map(lambda r: stub.PlayCard(r, timeout=60), requests))
        return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--move-time-ms", type=int, default=50, help="one request's move time")
    parser.add_argument(
        "--eight-move-time-ms", type=int, default=200, help="the eight requests' move time"
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    if args.move_time_ms <= 0 or args.eight_move_time_ms <= 0 or args.rounds <= 0:
        parser.error("--move-time-ms, --eight-move-time-ms and --rounds must be positive")
    server, port = botkit.make_server(StrongBot(), "127.0.0.1:0")
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        stub = pb_grpc.HeartsBotStub(channel)
        move_s, eight_s = args.move_time_ms / 1000, args.eight_move_time_ms / 1000
        worst_ratios, eight_ratios = [], []
        for r in range(1, args.rounds + 1):
            states = positions(args.seed + r)
            times = single(stub, states, args.move_time_ms)
            together = eight(stub, states, args.eight_move_time_ms)
            worst, median = max(times), statistics.median(times)
            worst_ratios.append(worst / move_s)
            eight_ratios.append(together / eight_s)
            print(
                f"round {r}: single median {median * 1000:.0f} ms, slowest {worst * 1000:.0f} ms "
                f"(move time {args.move_time_ms} ms: x{worst / move_s:.2f}); "
                f"eight at once {together * 1000:.0f} ms "
                f"(move time {args.eight_move_time_ms} ms: x{together / eight_s:.2f})"
            )
        print(
            f"summary: slowest single answer x{max(worst_ratios):.2f} of its move time "
            f"(median round x{statistics.median(worst_ratios):.2f}); eight at once "
            f"x{max(eight_ratios):.2f} of one move time (median round "
            f"x{statistics.median(eight_ratios):.2f}; one move time each would be x8)"
        )
    finally:
        channel.close()
        server.stop(None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
