"""A configurable misbehaving Hearts bot for the referee's tests, built on referee.botkit.

Run as a process (what LaunchedBot does)::

    python misbehaving.py --address {address} --fault illegal --on play --after 2 --times 1

or serve in-process with :func:`start_in_process` (port 0). It plays legally
(a random or a greedy strategy) except on the decisions selected by
``--on``/``--after``/``--times``, where it misbehaves as ``--fault`` says:

=============  ==============================================================
``sleep``      answers legally after ``--sleep-ms``
``illegal``    plays a card it holds that is not legal (skips decisions where
               every held card is legal)
``not_held``   plays or passes a card it does not hold
``pass_size``  passes one card too few
``duplicate``  passes the same card twice
``bad_enum``   answers with a card whose suit is 9 (an unknown enum value)
``unset``      answers without a card (PlayCard) or with an unset card (pass)
``raise``      raises an exception (a gRPC UNKNOWN status)
``exit``       the process exits in the middle of the call (exit code 3)
``huge``       passes 100 000 cards (a message far over any sane limit)
``bad_moon``   answers ChooseMoonScoring with the unknown value 7
=============  ==============================================================

Other behaviour: ``--raise-in RPC`` fails the notification RPC (StartGame,
DealHand, EndHand, EndGame), ``--no-moon-rpc`` leaves ChooseMoonScoring unimplemented
(UNIMPLEMENTED, like a bot built on the generated base class), ``--moon-choice``
picks the answer when it is implemented, ``--protocol-version`` is what the
handshake says, ``--no-listen`` never serves (it only sleeps), ``--exit-at-start``
exits before serving, ``--ignore-sigterm`` ignores SIGTERM and
``--spawn-child`` starts a child process that sleeps (both test that the
referee kills the whole process group). ``--once-file PATH`` misbehaves only
if PATH does not exist yet (and creates it), so that a restarted process
behaves. ``--pid-file PATH`` appends "pid pgid" lines of this process and its
child.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence

import grpc

from referee import botkit
from referee.botkit import Bot, pb
from referee.pb.hearts.v1 import hearts_pb2_grpc as pb_grpc

FAULTS = (
    "none",
    "sleep",
    "illegal",
    "not_held",
    "pass_size",
    "duplicate",
    "bad_enum",
    "unset",
    "raise",
    "exit",
    "huge",
    "bad_moon",
)
_ALL = [pb.Card(suit=s, rank=r) for s in range(1, 5) for r in range(2, 15)]


def _key(card: pb.Card) -> tuple[int, int]:
    return (card.suit, card.rank)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--address", default=None, help="unix:/path or host:port (instead of --port)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--fault", choices=FAULTS, default="none")
    p.add_argument("--on", choices=("pass", "play", "moon", "any"), default="play")
    p.add_argument("--after", type=int, default=0, help="behave on this many decisions first")
    p.add_argument("--times", type=int, default=1, help="misbehave this often (0: always)")
    p.add_argument("--sleep-ms", type=int, default=0)
    p.add_argument("--once-file", default=None)
    p.add_argument("--strategy", choices=("random", "greedy"), default="random")
    p.add_argument("--no-moon-rpc", action="store_true")
    p.add_argument(
        "--moon-choice", type=int, default=pb.MOON_SCORING_SUBTRACT_FROM_SELF, help="enum value"
    )
    p.add_argument("--protocol-version", type=int, default=1)
    p.add_argument("--no-listen", action="store_true")
    p.add_argument("--exit-at-start", action="store_true")
    p.add_argument("--ignore-sigterm", action="store_true")
    p.add_argument("--spawn-child", action="store_true")
    p.add_argument("--pid-file", default=None)
    p.add_argument("--raise-in", action="append", default=[], help="a notification RPC that fails")
    p.add_argument("--name", default="misbehaving")
    return p


class MisbehavingBot(Bot):
    """Plays legally except where the options say otherwise; records what it was sent."""

    version = "0.0.1"
    author = "tests"

    def __init__(self, options: argparse.Namespace) -> None:
        self.options = options
        self.name = options.name
        self.rng = random.Random(1)
        self.lock = threading.Lock()
        self.decisions = 0
        self.misbehaved = 0
        #: Requests received, by RPC name (for in-process tests).
        self.requests: dict[str, list[object]] = {}
        #: Every request's RPC, in the order they came.
        self.calls: list[str] = []

    # Bookkeeping ----------------------------------------------------------------

    def _record(self, rpc: str, request: object) -> None:
        with self.lock:
            self.requests.setdefault(rpc, []).append(request)
            self.calls.append(rpc)
        if rpc in self.options.raise_in:
            raise RuntimeError(f"misbehaving bot: deliberate error in {rpc}")

    def _should(self, kind: str, possible: bool = True) -> bool:
        """Whether to misbehave on this decision of ``kind``."""
        o = self.options
        if o.fault == "none" or o.on not in (kind, "any") or not possible:
            return False
        with self.lock:
            self.decisions += 1
            if self.decisions <= o.after:
                return False
            if o.times and self.misbehaved >= o.times:
                return False
            if o.once_file:
                if os.path.exists(o.once_file):
                    return False
                with open(o.once_file, "w") as f:
                    f.write(str(os.getpid()))
            self.misbehaved += 1
            return True

    def _common(self) -> None:
        """Misbehaviour that is the same for every kind of decision."""
        fault = self.options.fault
        if fault == "sleep":
            time.sleep(self.options.sleep_ms / 1000)
        elif fault == "raise":
            raise RuntimeError("misbehaving bot: deliberate error")
        elif fault == "exit":
            sys.stderr.write("misbehaving bot: exiting mid-hand\n")
            sys.stderr.flush()
            os._exit(3)

    # Decisions ------------------------------------------------------------------

    def pass_cards(self, request: pb.PassCardsRequest) -> Sequence[pb.Card]:
        self._record("PassCards", request)
        hand = sorted(request.hand, key=_key)
        cards = self.rng.sample(hand, request.count)
        if not self._should("pass"):
            return cards
        self._common()
        fault = self.options.fault
        if fault == "not_held":
            held = {_key(c) for c in hand}
            return [next(c for c in _ALL if _key(c) not in held), *cards[1:]]
        if fault == "pass_size":
            return cards[:-1]
        if fault == "duplicate":
            return [cards[0], cards[0], cards[1]]
        if fault == "bad_enum":
            return [pb.Card(suit=9, rank=cards[0].rank), *cards[1:]]
        if fault == "unset":
            return [pb.Card(), *cards[1:]]
        if fault == "huge":
            return [cards[0]] * 100_000
        return cards

    def play_card(self, request: pb.PlayCardRequest) -> pb.Card | None:
        self._record("PlayCard", request)
        legal = sorted(request.legal_moves, key=lambda c: (c.rank, c.suit))
        card = legal[-1] if self.options.strategy == "greedy" else self.rng.choice(legal)
        fault = self.options.fault
        legal_keys = {_key(c) for c in legal}
        illegal = [c for c in request.hand if _key(c) not in legal_keys]
        if not self._should("play", possible=fault != "illegal" or bool(illegal)):
            return card
        self._common()
        if fault == "illegal":
            return illegal[0]
        if fault == "not_held":
            held = {_key(c) for c in request.hand}
            return next(c for c in _ALL if _key(c) not in held)
        if fault == "bad_enum":
            return pb.Card(suit=9, rank=card.rank)
        if fault == "unset":
            return None
        return card

    def choose_moon_scoring(self, request: pb.ChooseMoonScoringRequest) -> int:
        self._record("ChooseMoonScoring", request)
        if self._should("moon"):
            self._common()
            if self.options.fault == "bad_moon":
                return 7
        return self.options.moon_choice

    def start_game(self, request: pb.StartGameRequest) -> None:
        self._record("StartGame", request)

    def deal_hand(self, request: pb.DealHandRequest) -> None:
        self._record("DealHand", request)

    def end_hand(self, request: pb.EndHandRequest) -> None:
        self._record("EndHand", request)

    def end_game(self, request: pb.EndGameRequest) -> None:
        self._record("EndGame", request)


def _servicer_class(options: argparse.Namespace) -> type:
    """botkit's servicer, with the handshake and moon RPC the options ask for."""

    class Servicer(botkit._Servicer):
        def Handshake(self, request, context):  # type: ignore[no-untyped-def]
            reply = super().Handshake(request, context)
            reply.protocol_version = options.protocol_version
            return reply

    if options.no_moon_rpc:
        # What a bot built on the generated base class does: UNIMPLEMENTED.
        Servicer.ChooseMoonScoring = pb_grpc.HeartsBotServicer.ChooseMoonScoring  # type: ignore[method-assign]
    return Servicer


def make_server(
    options: argparse.Namespace, address: str
) -> tuple[grpc.Server, int, MisbehavingBot]:
    """botkit.make_server for a MisbehavingBot configured by ``options``."""
    bot = MisbehavingBot(options)
    saved = botkit._Servicer
    botkit._Servicer = _servicer_class(options)  # type: ignore[misc]
    try:
        server, port = botkit.make_server(bot, address)
    finally:
        botkit._Servicer = saved  # type: ignore[misc]
    return server, port, bot


def start_in_process(*args: str) -> tuple[grpc.Server, int, MisbehavingBot]:
    """A started in-process server on a free port: ``(server, port, bot)``."""
    return make_server(parser().parse_args(list(args)), "127.0.0.1:0")


def main(argv: list[str]) -> None:
    options = parser().parse_args(argv)
    child = None
    if options.spawn_child:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    if options.pid_file:
        with open(options.pid_file, "a") as f:
            f.write(f"{os.getpid()} {os.getpgid(0)}\n")
            if child:
                f.write(f"{child.pid} {os.getpgid(child.pid)}\n")
    if options.ignore_sigterm:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if options.exit_at_start:
        print("misbehaving bot: exiting at start", file=sys.stderr, flush=True)
        sys.exit(4)
    if options.no_listen:
        print("misbehaving bot: not listening, just sleeping", file=sys.stderr, flush=True)
        while True:
            time.sleep(1)
    address = options.address or f"{options.host}:{options.port}"
    server, port, _ = make_server(options, address)
    print(f"{options.name} serving on {options.address or port}", file=sys.stderr, flush=True)
    stop = threading.Event()
    if not options.ignore_sigterm:
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    server.stop(grace=0.5).wait()


if __name__ == "__main__":
    main(sys.argv[1:])
