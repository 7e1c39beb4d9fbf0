"""A Hearts bot with one deliberate defect, for the tests of ``referee check-bot``.

Built on referee.botkit; it plays random legal cards except for the defect
``--mode`` names:

==================  ============================================================
none                 no defect: a correct random bot
illegal-first-trick  void in clubs on the first trick, plays Q♠ or a heart
wrong-version        says protocol_version 2 in its handshake
slow                 sleeps ``--sleep-ms`` before every PassCards answer
near-limit           sleeps ``--sleep-ms`` before one decision in every ``--every``
                     (8; PassCards and PlayCard), so that its p95 is the sleep
pass-two             passes 2 cards instead of ``count``
crash                exits (code 3) on every PlayCard
hang                 never answers PlayCard
no-start             exits at once, before serving
bare                 serves no health service and no reflection, and leaves
                     ChooseMoonScoring unimplemented
==================  ============================================================

Run:  python broken.py --address unix:/tmp/b.sock --mode pass-two
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import threading
import time
from concurrent import futures

import grpc

from referee import botkit
from referee.botkit import Bot, pb
from referee.pb.hearts.v1 import hearts_pb2_grpc as pb_grpc

MODES = (
    "none",
    "illegal-first-trick",
    "wrong-version",
    "slow",
    "near-limit",
    "pass-two",
    "crash",
    "hang",
    "no-start",
    "bare",
)


class BrokenBot(Bot):
    version = "0.0.1"
    author = "check-bot tests"

    def __init__(self, mode: str, sleep_ms: int, every: int = 8) -> None:
        self.name = f"broken-{mode}"
        self.mode = mode
        self.sleep_ms = sleep_ms
        self.every = every
        self.rng = random.Random(7)
        self.decisions = 0
        self.lock = threading.Lock()

    def near_limit(self) -> None:
        """In ``near-limit`` mode, sleep before every ``every``-th decision."""
        if self.mode != "near-limit":
            return
        with self.lock:
            self.decisions += 1
            due = self.decisions % self.every == 1 % self.every
        if due:
            time.sleep(self.sleep_ms / 1000)

    def pass_cards(self, request):
        self.near_limit()
        if self.mode == "slow":
            time.sleep(self.sleep_ms / 1000)
        cards = self.rng.sample(list(request.hand), request.count)
        return cards[:2] if self.mode == "pass-two" else cards

    def play_card(self, request):
        self.near_limit()
        if self.mode == "crash":
            print("broken bot: crashing on purpose", file=sys.stderr, flush=True)
            os._exit(3)
        if self.mode == "hang":
            time.sleep(3600)
        plays = request.current_trick.plays
        void = plays and not any(c.suit == plays[0].card.suit for c in request.hand)
        if self.mode == "illegal-first-trick" and request.trick_number == 1 and void:
            queen = [
                c for c in request.hand if c.suit == pb.SUIT_SPADES and c.rank == pb.RANK_QUEEN
            ]
            hearts = [c for c in request.hand if c.suit == pb.SUIT_HEARTS]
            legal = {(c.suit, c.rank) for c in request.legal_moves}
            for card in queen + hearts:
                if (card.suit, card.rank) not in legal:
                    return card
        return self.rng.choice(list(request.legal_moves))


class Servicer(botkit._Servicer):
    def Handshake(self, request, context):
        reply = super().Handshake(request, context)
        if self.bot.mode == "wrong-version":
            reply.protocol_version = 2
        return reply


def serve_bare(bot: BrokenBot, address: str) -> None:
    """A server with the HeartsBot service only (as a bot written from the .proto alone)."""

    class Bare(Servicer):
        ChooseMoonScoring = pb_grpc.HeartsBotServicer.ChooseMoonScoring

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    pb_grpc.add_HeartsBotServicer_to_server(Bare(bot), server)
    server.add_insecure_port(address)
    server.start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    server.stop(grace=0.5).wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", type=int)
    where.add_argument("--address", help="unix:/path or host:port")
    parser.add_argument("--mode", choices=MODES, required=True)
    parser.add_argument("--sleep-ms", type=int, default=300)
    parser.add_argument("--every", type=int, default=8)
    options = parser.parse_args()
    bot = BrokenBot(options.mode, options.sleep_ms, options.every)
    if options.mode == "no-start":
        print("broken bot: cannot start (on purpose)", file=sys.stderr, flush=True)
        sys.exit(5)
    if options.mode == "bare":
        serve_bare(bot, options.address or f"127.0.0.1:{options.port}")
        return
    botkit._Servicer = Servicer  # serve() builds its server with this servicer
    where = ["--address", options.address] if options.address else ["--port", str(options.port)]
    botkit.serve(bot, where)


if __name__ == "__main__":
    main()
