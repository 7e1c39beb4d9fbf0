"""A bot that misbehaves at random decisions, for the chaos tournament (issue 7).

    python chaos_bot.py --address {address} --modes sleep,illegal --rate 0.3 --seed 1

It plays legally (a random legal card, a random pass) except that at each
decision, with probability ``--rate``, it picks one of its ``--modes``:

==============  ===========================================================
``sleep``       answers after sleeping past the whole deadline
``burn_bank``   answers just inside move time + time bank (drains the bank)
``illegal``     plays a held card that is not legal (when there is one)
``not_held``    plays or passes a card it does not hold
``pass_size``   passes two cards
``duplicate``   passes the same card three times
``malformed``   answers with an unknown suit enum value
``grpc_error``  fails the call with a gRPC status (INTERNAL)
``crash``       the process exits in the middle of the call
``memory``      allocates memory until the referee's sandbox stops it
``spawn``       keeps starting child processes that sleep for days, until the
                sandbox's process limit stops it
``spam``        prints megabytes to stdout and stderr, then answers legally
``oversized``   passes 200 000 cards (a message far over the size limit)
==============  ===========================================================

``--hang-at-start`` never starts serving (it sleeps), for the start-up
deadline. The bot writes no files.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import threading
import time

import grpc

from referee.botkit import Bot, pb, serve

MODES = (
    "sleep",
    "burn_bank",
    "illegal",
    "not_held",
    "pass_size",
    "duplicate",
    "malformed",
    "grpc_error",
    "crash",
    "memory",
    "spawn",
    "spam",
    "oversized",
)
_ALL = [pb.Card(suit=s, rank=r) for s in range(1, 5) for r in range(2, 15)]


class _Abort(Exception):
    """Raised to fail the RPC with a gRPC status."""


class ChaosBot(Bot):
    language = "Python"
    author = "chaos"

    def __init__(self, name: str, modes: list[str], rate: float, seed: int) -> None:
        self.name = name
        self.modes = modes
        self.rate = rate
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.hoard: list[bytearray] = []

    def _pick(self, decision_id: str) -> str | None:
        with self.lock:
            if self.modes and self.rng.random() < self.rate:
                return self.rng.choice(self.modes)
        return None

    # Misbehaviours common to passes and plays; None means "answer normally".
    def _act(self, mode: str | None, clock: pb.Clock) -> None:
        if mode == "sleep":
            time.sleep((clock.move_time_ms + clock.time_bank_ms) / 1000 + 1.0)
        elif mode == "burn_bank":
            time.sleep(max(0.0, (clock.move_time_ms + clock.time_bank_ms) / 1000 - 0.05))
        elif mode == "grpc_error":
            raise _Abort("chaos: INTERNAL on purpose")
        elif mode == "crash":
            os._exit(7)
        elif mode == "memory":
            while True:
                self.hoard.append(bytearray(16 * 1024 * 1024))
                time.sleep(0.01)
        elif mode == "spawn":
            while True:
                subprocess.Popen(
                    ["sleep", "1000000"],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                time.sleep(0.02)
        elif mode == "spam":
            line = "chaos spam " * 100 + "\n"
            for _ in range(4000):  # about 4.4 MB to each stream
                sys.stdout.write(line)
                sys.stderr.write(line)

    def pass_cards(self, request: pb.PassCardsRequest) -> list[pb.Card]:
        hand = list(request.hand)
        mode = self._pick(request.decision_id)
        self._act(mode, request.clock)
        if mode == "not_held":
            held = {(c.suit, c.rank) for c in hand}
            return [c for c in _ALL if (c.suit, c.rank) not in held][:1] + hand[:2]
        if mode == "pass_size":
            return hand[:2]
        if mode == "duplicate":
            return [hand[0]] * 3
        if mode == "malformed":
            return [pb.Card(suit=9, rank=2), *hand[:2]]
        if mode == "oversized":
            return [hand[0]] * 200_000
        return self.rng.sample(hand, request.count)

    def play_card(self, request: pb.PlayCardRequest) -> pb.Card:
        mode = self._pick(request.decision_id)
        self._act(mode, request.clock)
        legal = {(c.suit, c.rank) for c in request.legal_moves}
        if mode == "illegal":
            illegal = [c for c in request.hand if (c.suit, c.rank) not in legal]
            if illegal:
                return illegal[0]
        if mode == "not_held":
            held = {(c.suit, c.rank) for c in request.hand}
            return next(c for c in _ALL if (c.suit, c.rank) not in held)
        if mode == "malformed":
            return pb.Card(suit=9, rank=14)
        with self.lock:
            return self.rng.choice(list(request.legal_moves))


def _install_abort(bot: ChaosBot) -> None:
    """Turn _Abort into a gRPC INTERNAL status rather than UNKNOWN."""
    from referee import botkit

    original = botkit._Servicer

    class Servicer(original):  # type: ignore[misc, valid-type]
        def PassCards(self, request, context):
            try:
                return super().PassCards(request, context)
            except _Abort as error:
                context.abort(grpc.StatusCode.INTERNAL, str(error))

        def PlayCard(self, request, context):
            try:
                return super().PlayCard(request, context)
            except _Abort as error:
                context.abort(grpc.StatusCode.INTERNAL, str(error))

    botkit._Servicer = Servicer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", type=int)
    where.add_argument("--address", help="unix:/path or host:port")
    parser.add_argument("--name", default="chaos")
    parser.add_argument("--modes", default="", help=f"comma-separated: {', '.join(MODES)}")
    parser.add_argument("--rate", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hang-at-start", action="store_true")
    args = parser.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    unknown = sorted(set(modes) - set(MODES))
    if unknown:
        parser.error(f"unknown modes: {', '.join(unknown)}")
    if args.hang_at_start:
        time.sleep(10**6)
    # Not the pid: in a sandbox (a pid namespace of its own) every process has the same one.
    bot = ChaosBot(args.name, modes, args.rate, args.seed ^ int.from_bytes(os.urandom(8), "big"))
    _install_abort(bot)
    serve(bot, ["--address", args.address] if args.address else ["--port", str(args.port)])


if __name__ == "__main__":
    main()
