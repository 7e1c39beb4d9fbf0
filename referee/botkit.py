"""Everything a Python bot needs except its strategy: the gRPC server around it.

Subclass :class:`Bot`, implement :meth:`Bot.pass_cards` and
:meth:`Bot.play_card` on the protocol's request messages, and call
:func:`serve`::

    from referee.botkit import Bot, serve

    class MyBot(Bot):
        name = "my-bot"

        def pass_cards(self, request):
            return list(request.hand)[: request.count]

        def play_card(self, request):
            return request.legal_moves[0]

    if __name__ == "__main__":
        serve(MyBot())

:func:`serve` parses ``--address`` (a gRPC address: ``unix:/path/bot.sock``,
as the referee gives a sandboxed bot, or ``host:port``) or ``--port`` and
``--host``, serves the bot with the standard health service (SERVING) and
server reflection, and stops cleanly on SIGTERM or Ctrl-C. The bot is called from several threads at once (one
process may play several seats and games), so keep per-game state keyed by
``(request.game_id, request.seat)``, or none at all.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from collections.abc import Sequence
from concurrent import futures
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from referee.pb.hearts.v1 import hearts_pb2 as pb
from referee.pb.hearts.v1 import hearts_pb2_grpc as pb_grpc

__all__ = ["Bot", "pb", "serve"]

log = logging.getLogger(__name__)

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["HeartsBot"].full_name


class Bot:
    """A Hearts bot. Override the decisions; the notifications are optional."""

    name = "python-bot"
    version = "0.1.0"
    author = ""
    language = "Python"

    def pass_cards(self, request: pb.PassCardsRequest) -> Sequence[pb.Card]:
        """Return ``request.count`` distinct cards of ``request.hand``."""
        raise NotImplementedError

    def play_card(self, request: pb.PlayCardRequest) -> pb.Card:
        """Return one card of ``request.legal_moves``."""
        raise NotImplementedError

    def choose_moon_scoring(self, request: pb.ChooseMoonScoringRequest) -> int:
        """V2 shooter_chooses: MOON_SCORING_ADD_TO_OTHERS or _SUBTRACT_FROM_SELF."""
        return pb.MOON_SCORING_ADD_TO_OTHERS

    def start_game(self, request: pb.StartGameRequest) -> None:
        return None

    def deal_hand(self, request: pb.DealHandRequest) -> None:
        return None

    def end_hand(self, request: pb.EndHandRequest) -> None:
        return None

    def end_game(self, request: pb.EndGameRequest) -> None:
        return None


class _Servicer(pb_grpc.HeartsBotServicer):
    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    def Handshake(self, request: Any, context: Any) -> pb.HandshakeResponse:
        return pb.HandshakeResponse(
            name=self.bot.name,
            version=self.bot.version,
            author=self.bot.author,
            language=self.bot.language,
            protocol_version=1,
        )

    def StartGame(self, request: Any, context: Any) -> pb.StartGameResponse:
        self.bot.start_game(request)
        return pb.StartGameResponse()

    def DealHand(self, request: Any, context: Any) -> pb.DealHandResponse:
        self.bot.deal_hand(request)
        return pb.DealHandResponse()

    def PassCards(self, request: Any, context: Any) -> pb.PassCardsResponse:
        return pb.PassCardsResponse(cards=self.bot.pass_cards(request))

    def PlayCard(self, request: Any, context: Any) -> pb.PlayCardResponse:
        return pb.PlayCardResponse(card=self.bot.play_card(request))

    def ChooseMoonScoring(self, request: Any, context: Any) -> pb.ChooseMoonScoringResponse:
        return pb.ChooseMoonScoringResponse(choice=self.bot.choose_moon_scoring(request))

    def EndHand(self, request: Any, context: Any) -> pb.EndHandResponse:
        self.bot.end_hand(request)
        return pb.EndHandResponse()

    def EndGame(self, request: Any, context: Any) -> pb.EndGameResponse:
        self.bot.end_game(request)
        return pb.EndGameResponse()


def make_server(bot: Bot, address: str, *, max_workers: int = 8) -> tuple[grpc.Server, int]:
    """A started server for ``bot`` on ``address`` (``host:port``, port 0 picks one, or
    ``unix:/path``); returns (server, port), the port being 1 for a Unix socket."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=max_workers))
    pb_grpc.add_HeartsBotServicer_to_server(_Servicer(bot), server)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    server.start()
    for service in ("", SERVICE_NAME):
        health_servicer.set(service, health_pb2.HealthCheckResponse.SERVING)
    return server, port


def serve(bot: Bot, argv: Sequence[str] | None = None) -> None:
    """Parse ``--address`` or ``--port``/``--host``, serve ``bot`` until SIGTERM or Ctrl-C."""
    parser = argparse.ArgumentParser(description=f"Hearts bot {bot.name} (hearts.v1 gRPC server)")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--address",
        help="gRPC address to serve on: unix:/path/bot.sock (what a sandboxed bot is given) "
        "or host:port",
    )
    where.add_argument("--port", type=int, help="TCP port to listen on")
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on with --port (default 127.0.0.1)"
    )
    args = parser.parse_args(argv)
    if args.address:
        address = shown = args.address
    else:
        host = f"[{args.host}]" if ":" in args.host else args.host
        address, shown = f"{host}:{args.port}", f"{args.host}:{args.port}"
    try:
        server, port = make_server(bot, address)
    except (OSError, RuntimeError) as error:
        print(f"{bot.name}: cannot listen on {shown}: {error}", file=sys.stderr)
        sys.exit(1)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    if not args.address:
        shown = f"{args.host}:{port}"
    print(f"{bot.name} serving on {shown}", file=sys.stderr, flush=True)
    stop.wait()
    server.stop(grace=1.0).wait()
