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
``--host``, serves the bot with the standard health service (SERVING; Check,
Watch and List) and server reflection (``grpc.reflection.v1``, as grpcurl
asks first, and ``v1alpha``), and stops cleanly on SIGTERM or Ctrl-C. The bot
is called from several threads at once (one process may play several seats
and games), so keep per-game state keyed by ``(request.game_id,
request.seat)``, or none at all.

A decision may carry a note, a line of your own shown beside it in the
replays (``referee replay``, the web replay) for your seat: return
``noted(answer, "why")`` instead of the answer (at most 200 characters are
kept)::

        def play_card(self, request):
            card = request.legal_moves[0]
            return noted(card, f"lowest of {len(request.legal_moves)} legal")

Decision requests carry the rules in force (``request.rules``;
``request.rules.num_players`` is the table size), so a bot needs no state to
know the variant; :func:`referee.protocol.view_from_play_request` turns a
PlayCardRequest into the engine's view, rules included.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import logging
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent import futures
from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from grpc_reflection.v1alpha import reflection_pb2 as reflection_v1alpha_pb2
from grpc_reflection.v1alpha import reflection_pb2_grpc as reflection_v1alpha_pb2_grpc

from referee.pb.hearts.v1 import hearts_pb2 as pb
from referee.pb.hearts.v1 import hearts_pb2_grpc as pb_grpc

__all__ = ["STOP_GRACE", "Bot", "Noted", "make_server", "noted", "pb", "serve"]

log = logging.getLogger(__name__)

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["HeartsBot"].full_name
#: grpcio-reflection implements only v1alpha; v1 is the same protocol under
#: another package name (grpcurl and most clients ask for v1 first).
REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"


def _register_reflection_v1() -> None:
    """Add ``grpc/reflection/v1/reflection.proto`` to the default pool.

    It is v1alpha's file with the package renamed (the messages are the same
    field for field), so that reflection can describe the v1 service too.
    """
    pool = descriptor_pool.Default()
    try:
        pool.FindFileByName("grpc/reflection/v1/reflection.proto")
        return
    except KeyError:
        pass
    proto = descriptor_pb2.FileDescriptorProto()
    reflection_v1alpha_pb2.DESCRIPTOR.CopyToProto(proto)
    proto.name = "grpc/reflection/v1/reflection.proto"
    proto.package = "grpc.reflection.v1"
    proto.ClearField("options")
    for message in proto.message_type:
        for field in message.field:
            if field.HasField("type_name"):
                field.type_name = field.type_name.replace(".v1alpha.", ".v1.")
    for service in proto.service:
        for method in service.method:
            method.input_type = method.input_type.replace(".v1alpha.", ".v1.")
            method.output_type = method.output_type.replace(".v1alpha.", ".v1.")
    pool.Add(proto)


class _Pool:
    """The default descriptor pool, which also finds the file of a method.

    Python's pool does not count ``hearts.v1.HeartsBot.PlayCard`` as a symbol;
    grpcurl asks reflection for it (``describe``, calls by method name) and
    Go's, C++'s and Java's servers answer.
    """

    def __init__(self) -> None:
        self._pool = descriptor_pool.Default()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pool, name)

    def FindFileContainingSymbol(self, symbol: str) -> Any:
        try:
            return self._pool.FindFileContainingSymbol(symbol)
        except KeyError:
            service, _, method = symbol.rpartition(".")
            found = self._pool.FindServiceByName(service)  # KeyError: not found either
            if method not in found.methods_by_name:
                raise
            return found.file


def _json_name(name: str) -> str:
    """protoc's JSON name of a field: lowerCamelCase (``pass_to`` -> ``passTo``)."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


@functools.lru_cache(maxsize=64)
def _with_json_names(serialized: bytes) -> bytes:
    """A serialised FileDescriptorProto with every field's ``json_name`` filled in.

    Python's descriptors leave it out (``CopyToProto``); Go's, C++'s and
    Java's include it, and grpcurl prints, templates and parses JSON by it.
    """
    proto = descriptor_pb2.FileDescriptorProto.FromString(serialized)
    messages = list(proto.message_type)
    while messages:
        message = messages.pop()
        messages.extend(message.nested_type)
        for field in message.field:
            if not field.HasField("json_name"):
                field.json_name = _json_name(field.name)
    return proto.SerializeToString()


class _ReflectionServicer(reflection.ReflectionServicer):
    """grpcio's reflection, with JSON names in the file descriptors it sends."""

    def ServerReflectionInfo(self, request_iterator: Any, context: Any) -> Any:
        for response in super().ServerReflectionInfo(request_iterator, context):
            if response.HasField("file_descriptor_response"):
                files = response.file_descriptor_response.file_descriptor_proto
                files[:] = [_with_json_names(f) for f in files]
            yield response


def _enable_reflection(server: grpc.Server, services: Sequence[str]) -> None:
    """Serve reflection v1alpha and v1 (one servicer; the wire format is the same)."""
    _register_reflection_v1()
    names = (*services, reflection.SERVICE_NAME, REFLECTION_V1)
    servicer = _ReflectionServicer(names, pool=_Pool())
    reflection_v1alpha_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    v1 = grpc.method_handlers_generic_handler(
        REFLECTION_V1,
        {
            "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
                servicer.ServerReflectionInfo,
                request_deserializer=reflection_v1alpha_pb2.ServerReflectionRequest.FromString,
                response_serializer=reflection_v1alpha_pb2.ServerReflectionResponse.SerializeToString,
            )
        },
    )
    server.add_generic_rpc_handlers((v1,))


class _HealthServicer(health.HealthServicer):
    """grpcio's health servicer, with List (its own answers UNIMPLEMENTED)."""

    def List(self, request: Any, context: Any) -> health_pb2.HealthListResponse:
        with self._lock:
            statuses = dict(self._server_status)
        return health_pb2.HealthListResponse(
            statuses={
                name: health_pb2.HealthCheckResponse(status=status)
                for name, status in statuses.items()
            }
        )


@dataclasses.dataclass(frozen=True, slots=True)
class Noted:
    """A decision's answer with a note for the replays (see :func:`noted`)."""

    answer: Any
    note: str


def noted(answer: Any, note: str) -> Noted:
    """``answer`` (the cards, the card or the moon choice) sent with ``note``.

    The referee logs the note with the decision and shows it in the replays
    for this seat (hearts.v1 ``note``); it never changes the game. At most 200
    characters are kept, and control characters are shown as escapes.
    """
    return Noted(answer, str(note))


def _split(answer: Any) -> tuple[Any, str]:
    """A method's return value as (answer, note)."""
    if isinstance(answer, Noted):
        return answer.answer, answer.note
    return answer, ""


class Bot:
    """A Hearts bot: override the two decisions; the moon question and notifications are optional.

    Each method gets the request message of its RPC (the classes of
    :mod:`referee.pb.hearts.v1.hearts_pb2`, also ``referee.botkit.pb``) and is
    called from one of the server's threads, possibly for several games and
    seats at once: keep no state, or key it by ``(request.game_id,
    request.seat)`` under a lock. An exception becomes a gRPC error status,
    which the referee counts as an ``rpc_error`` fault (and plays a fallback).

    The class attributes answer ``Handshake`` (with ``protocol_version`` 1).
    See docs/botkit.md.
    """

    #: The bot's own name, for logs (standings use the name the referee was given).
    name: str = "python-bot"
    #: The bot's version, for logs.
    version: str = "0.1.0"
    #: Who wrote it (check-bot warns when it is empty).
    author: str = ""
    #: The language it is written in.
    language: str = "Python"

    def pass_cards(self, request: pb.PassCardsRequest) -> Sequence[pb.Card] | Noted:
        """The cards to pass: ``request.count`` distinct cards of ``request.hand``.

        Required. Only asked on a passing hand (not on a hold hand);
        ``request.pass_to`` is the seat that gets them.
        """
        raise NotImplementedError

    def play_card(self, request: pb.PlayCardRequest) -> pb.Card | Noted:
        """The card to play: one of ``request.legal_moves``.

        Required. The request carries everything the seat may know: the
        hand, the tricks so far, the trick in progress, the scores, the rules
        in force and the clock (``request.clock.move_time_ms``).
        """
        raise NotImplementedError

    def choose_moon_scoring(self, request: pb.ChooseMoonScoringRequest) -> int | Noted:
        """How a moon this bot shot scores: ``pb.MOON_SCORING_ADD_TO_OTHERS`` or
        ``pb.MOON_SCORING_SUBTRACT_FROM_SELF``.

        Asked only under V2 ``shooter_chooses``, of the seat that shot the
        moon. The default, adding 26 to the others, is also what the referee
        plays for a bot that does not answer.
        """
        return pb.MOON_SCORING_ADD_TO_OTHERS

    def start_game(self, request: pb.StartGameRequest) -> None:
        """Notification: a game starts (its id, your seat, the players, the rules).

        Optional. A bot restarted during a game is not sent it again, so do
        not depend on it: every decision request carries the rules too.
        """
        return None

    def deal_hand(self, request: pb.DealHandRequest) -> None:
        """Notification: a hand is dealt (the hand, its number, the pass direction). Optional."""
        return None

    def end_hand(self, request: pb.EndHandRequest) -> None:
        """Notification: a hand is over (points by seat, the moon shooter, tricks). Optional."""
        return None

    def end_game(self, request: pb.EndGameRequest) -> None:
        """Notification: the game is over (scores, placements): drop its state. Optional."""
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
        cards, note = _split(self.bot.pass_cards(request))
        return pb.PassCardsResponse(cards=cards, note=note)

    def PlayCard(self, request: Any, context: Any) -> pb.PlayCardResponse:
        card, note = _split(self.bot.play_card(request))
        return pb.PlayCardResponse(card=card, note=note)

    def ChooseMoonScoring(self, request: Any, context: Any) -> pb.ChooseMoonScoringResponse:
        choice, note = _split(self.bot.choose_moon_scoring(request))
        return pb.ChooseMoonScoringResponse(choice=choice, note=note)

    def EndHand(self, request: Any, context: Any) -> pb.EndHandResponse:
        self.bot.end_hand(request)
        return pb.EndHandResponse()

    def EndGame(self, request: Any, context: Any) -> pb.EndGameResponse:
        self.bot.end_game(request)
        return pb.EndGameResponse()


def make_server(bot: Bot, address: str, *, max_workers: int = 8) -> tuple[grpc.Server, int]:
    """Start serving ``bot`` on ``address``; return ``(server, port)``.

    ``address`` is ``host:port`` (port 0 picks a free one) or
    ``unix:/path``; the port returned is the one bound, 1 for a Unix socket.
    The server also serves the health service (SERVING for ``""`` and
    ``hearts.v1.HeartsBot``) and reflection (v1 and v1alpha), and calls the
    bot from up to ``max_workers`` threads at once. Stop it with
    ``server.stop(grace)``. This is :func:`serve` without the command line,
    for tests and for programs with their own.

    Raises :class:`OSError` when it cannot listen on ``address``.
    """
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=max_workers))
    pb_grpc.add_HeartsBotServicer_to_server(_Servicer(bot), server)
    health_servicer = _HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    _enable_reflection(server, (SERVICE_NAME, health.SERVICE_NAME))
    port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    server.start()
    for service in ("", SERVICE_NAME):
        health_servicer.set(service, health_pb2.HealthCheckResponse.SERVING)
    return server, port


#: Seconds :func:`serve` gives the calls in flight once told to stop.
STOP_GRACE = 1.0

_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def serve(bot: Bot, argv: Sequence[str] | None = None) -> None:
    """Serve ``bot`` as its command line says, until SIGTERM or Ctrl-C.

    The command line (``argv``, by default ``sys.argv[1:]``) has exactly one of:

    - ``--address ADDRESS``: a gRPC address, ``unix:/abs/path/bot.sock`` (what
      the referee gives a sandboxed bot as ``{address}``) or ``host:port``;
    - ``--port N`` (0: a free port), with ``--host HOST`` (default
      ``127.0.0.1``).

    Anything else is a usage error (exit code 2); an address it cannot listen
    on exits with code 1. Once serving it prints ``NAME serving on ADDRESS``
    to stderr, and on SIGTERM or SIGINT it stops, whichever of its threads
    took the signal, giving the calls in flight a second (:data:`STOP_GRACE`).
    To take options of your own, parse them first
    (``argparse.ArgumentParser.parse_known_args``) and pass the rest as
    ``argv``.
    """
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
    with _stop_signals() as wait_for_stop:
        try:
            server, port = make_server(bot, address)
        except (OSError, RuntimeError) as error:
            print(f"{bot.name}: cannot listen on {shown}: {error}", file=sys.stderr)
            sys.exit(1)
        if not args.address:
            shown = f"{args.host}:{port}"
        print(f"{bot.name} serving on {shown}", file=sys.stderr, flush=True)
        try:
            wait_for_stop()
        finally:
            # Bounded, so that a gRPC shutdown that never reports back cannot
            # keep the process alive past the referee's patience.
            server.stop(grace=STOP_GRACE).wait(STOP_GRACE + 5.0)


@contextlib.contextmanager
def _stop_signals() -> Iterator[Callable[[], None]]:
    """Catch SIGTERM and SIGINT for the block; yield a wait for the first one.

    The kernel may hand a process-directed signal to any thread that does not
    block it, and here that includes gRPC's and the executor's. A Python
    handler only ever runs in the main thread, and only when that thread is
    running bytecode, so a main thread asleep on an ``Event`` never learns of
    a signal that landed on a gRPC thread and the bot never stops. The
    wake-up fd does not care which thread took the signal: CPython's C-level
    handler writes the signal's number to it from whichever thread that was,
    and the main thread sleeps in a ``read`` of the other end. The handlers
    are installed before the server starts, so a signal during the start is
    kept too, and no thread's signal mask is touched (the bot's own child
    processes would inherit a blocked mask).
    """
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    previous_handlers = {sig: signal.signal(sig, _note_stop_signal) for sig in _STOP_SIGNALS}
    previous_fd = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)

    def wait_for_stop() -> None:
        while True:
            byte = os.read(read_end, 1)
            if byte and byte[0] in _STOP_SIGNALS:
                return

    try:
        yield wait_for_stop
    finally:
        signal.set_wakeup_fd(previous_fd)
        for sig, handler in previous_handlers.items():
            signal.signal(sig, handler)
        os.close(read_end)
        os.close(write_end)


def _note_stop_signal(signum: int, frame: Any) -> None:
    """The Python half of a stop signal: nothing, the wake-up fd carries it.

    A handler of our own (rather than the default) is what makes CPython write
    the signal to the wake-up fd and keeps SIGINT from raising
    ``KeyboardInterrupt`` at a random point of the main thread.
    """
