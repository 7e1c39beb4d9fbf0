"""Bots over gRPC: a connection to a bot server, and the player that uses it.

:class:`BotConnection` is the one boundary where ``grpc.RpcError`` becomes a
:class:`~referee.players.base.BotFault`: every call has a deadline, answers
are size-limited by the channel, and status codes map to fault kinds.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Sequence
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from referee import __version__, protocol
from referee.engine import Card, HandResult, MoonScoring, Outcome, Rules, SeatView
from referee.pb.hearts.v1 import hearts_pb2 as pb
from referee.pb.hearts.v1 import hearts_pb2_grpc as pb_grpc
from referee.players.base import BotFault, BotInfo, Deadline, FaultKind, Player
from referee.safetext import printable

__all__ = ["BotConnection", "Connection", "RemotePlayer", "handshake_info", "open_channel"]

log = logging.getLogger(__name__)

#: Longest handshake fields and error details kept (after :func:`printable` escaping).
NAME_CHARS, VERSION_CHARS, AUTHOR_CHARS, LANGUAGE_CHARS = 64, 64, 128, 32
DETAILS_CHARS = 300

_SERVICE = pb.DESCRIPTOR.services_by_name["HeartsBot"]
_RESPONSES = {m.output_type.name: getattr(pb, m.output_type.name) for m in _SERVICE.methods}

_FAULT_OF_CODE = {
    grpc.StatusCode.DEADLINE_EXCEEDED: FaultKind.TIMEOUT,
    grpc.StatusCode.UNAVAILABLE: FaultKind.UNAVAILABLE,
}


def open_channel(address: str, *, max_message_bytes: int = 64 * 1024) -> grpc.Channel:
    """The referee's channel to a bot at ``address`` (``host:port`` or ``unix:/path``)."""
    options = [
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.max_send_message_length", 16 * 1024 * 1024),
        ("grpc.enable_retries", 0),
        ("grpc.initial_reconnect_backoff_ms", 50),
        ("grpc.max_reconnect_backoff_ms", 500),
    ]
    if address.startswith("unix:"):
        # grpcio would send the socket's path as the HTTP/2 :authority, which some
        # servers (Rust's h2, under tonic) refuse as a protocol error; Go and grpcurl
        # send "localhost".
        options.append(("grpc.default_authority", "localhost"))
    return grpc.insecure_channel(address, options=options)


class Connection:
    """What a :class:`RemotePlayer` calls: a bot server, fixed or launched."""

    info: BotInfo
    #: See :attr:`referee.players.base.Player.runs_only_when_asked`.
    runs_only_when_asked: bool = False
    #: True if :meth:`call` takes a request's serialised bytes as well as the message
    #: (a :class:`BotConnection`, or a connection that hands requests on to one): the
    #: player then sends its PlayCard requests as bytes, built without the message.
    takes_bytes: bool = False

    def call(self, rpc: str, request: Any, timeout_s: float) -> Any:
        raise NotImplementedError

    def close(self) -> None:
        return None


class BotConnection(Connection):
    """A gRPC channel to one bot server at ``address`` (``host:port``)."""

    takes_bytes = True

    def __init__(self, address: str, *, max_message_bytes: int = 64 * 1024) -> None:
        self.address = address
        self.info = BotInfo(name=address)
        self._channel = open_channel(address, max_message_bytes=max_message_bytes)
        self._stub = pb_grpc.HeartsBotStub(self._channel)
        self._health = health_pb2_grpc.HealthStub(self._channel)
        # The same methods for requests given serialised (sent as they are).
        self._raw = {
            method.name: self._channel.unary_unary(
                f"/{_SERVICE.full_name}/{method.name}",
                request_serializer=None,
                response_deserializer=_RESPONSES[method.output_type.name].FromString,
                _registered_method=True,
            )
            for method in _SERVICE.methods
        }

    def call(self, rpc: str, request: Any, timeout_s: float) -> Any:
        """Call ``rpc`` with a deadline; any failure is a :class:`BotFault`.

        ``request`` is the message, or its serialised bytes.
        """
        try:
            if type(request) is bytes:
                return self._raw[rpc](request, timeout=timeout_s)
            return getattr(self._stub, rpc)(request, timeout=timeout_s)
        except grpc.RpcError as error:
            raise fault_of(error, rpc) from None

    def wait_serving(
        self, timeout_s: float, alive: Any = None, *, refused_s: float | None = None
    ) -> None:
        """Wait until the health service says SERVING; ``alive()`` false aborts.

        With ``refused_s``, a connection refused for that long ends the wait at
        once: a bot the user says is running (``HOST:PORT``) is not, and waiting
        the whole ``timeout_s`` for it helps nobody.
        """
        started = time.monotonic()
        deadline = started + timeout_s
        last = "no answer"
        refused_since: float | None = None
        while True:
            if alive is not None and not alive():
                raise BotFault(FaultKind.START_FAILED, "the bot process exited while starting")
            left = deadline - time.monotonic()
            if left <= 0:
                raise BotFault(
                    FaultKind.START_FAILED,
                    f"not serving at {self.address} after {timeout_s:.1f} s (last: {last})",
                )
            try:
                reply = self._health.Check(
                    health_pb2.HealthCheckRequest(service=""), timeout=min(1.0, left)
                )
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
                last = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
            except grpc.RpcError as error:
                last = f"{error.code().name}"
                if error.code() == grpc.StatusCode.UNIMPLEMENTED:
                    return  # no health service: the handshake will tell
                if "connection refused" in (error.details() or "").lower():
                    now = time.monotonic()
                    refused_since = now if refused_since is None else refused_since
                    if refused_s is not None and now - refused_since >= refused_s:
                        raise BotFault(
                            FaultKind.START_FAILED,
                            f"nothing is listening at {self.address} (connection refused "
                            f"for {now - started:.1f} s): start the bot first, or check the "
                            "host and port",
                        ) from None
                else:
                    refused_since = None
            self._pause_connecting(0.05)

    def _pause_connecting(self, pause_s: float) -> None:
        """Pause ``pause_s`` between two checks while grpcio keeps connecting.

        Not a plain sleep: with grpcio's older client I/O (``referee/__init__.py``)
        a connection makes progress only while a thread waits in grpcio, and a
        channel whose thread sleeps between its checks sees the bot's socket
        seconds after the bot listens.
        """
        end = time.monotonic() + pause_s
        ready = grpc.channel_ready_future(self._channel)
        try:
            ready.result(timeout=pause_s)
        except grpc.FutureTimeoutError:
            ready.cancel()  # its watch of the channel ends with it
            return
        time.sleep(max(0.0, end - time.monotonic()))  # connected, not serving yet

    def handshake(self, timeout_s: float) -> BotInfo:
        """Ask the bot who it is and check its protocol version."""
        reply = self.call(
            "Handshake",
            pb.HandshakeRequest(
                protocol_version=protocol.PROTOCOL_VERSION, referee_version=__version__
            ),
            timeout_s,
        )
        if reply.protocol_version != protocol.PROTOCOL_VERSION:
            raise BotFault(
                FaultKind.HANDSHAKE,
                f"bot speaks protocol version {reply.protocol_version}; "
                f"the referee speaks {protocol.PROTOCOL_VERSION}",
            )
        self.info = handshake_info(reply)
        if not self.info.name:
            self.info = dataclasses.replace(self.info, name=self.address)
        return self.info

    def close(self) -> None:
        self._channel.close()


def handshake_info(reply: pb.HandshakeResponse, *, name: str | None = None) -> BotInfo:
    """What a bot says about itself, made :func:`printable` and cut to size.

    The bot chooses these strings, and they go into logs, journals, tables and
    pages: they are made safe to show once, here. ``name`` replaces the
    bot's own name (a tournament knows a bot by its config name).
    """
    return BotInfo(
        name=printable(reply.name, NAME_CHARS) if name is None else name,
        version=printable(reply.version, VERSION_CHARS),
        author=printable(reply.author, AUTHOR_CHARS),
        language=printable(reply.language, LANGUAGE_CHARS),
        protocol_version=reply.protocol_version,
    )


def fault_of(error: grpc.RpcError, rpc: str) -> BotFault:
    """The fault a failed call is recorded as (the bot's details made :func:`printable`)."""
    code = error.code()  # type: ignore[attr-defined]
    details = printable(error.details() or "", DETAILS_CHARS)  # type: ignore[attr-defined]
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED and "message" in details.lower():
        return BotFault(FaultKind.OVERSIZED, f"{rpc}: answer too large: {details}")
    kind = _FAULT_OF_CODE.get(code, FaultKind.RPC_ERROR)
    if kind == FaultKind.TIMEOUT:
        return BotFault(kind, f"{rpc}: no answer before the deadline", status=code.name)
    return BotFault(kind, f"{rpc}: {code.name}: {details}", status=code.name)


class RemotePlayer(Player):
    """A player whose every decision is a gRPC call on ``connection``."""

    out_of_process = True

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self._takes_bytes = connection.takes_bytes
        # Notes of answers not yet taken by the runner, by (game id, decision id):
        # one player answers for several seats and games from several threads.
        self._notes: dict[tuple[str, str], str] = {}
        self._notes_lock = threading.Lock()

    @property
    def info(self) -> BotInfo:  # type: ignore[override]
        return self.connection.info

    @property
    def runs_only_when_asked(self) -> bool:  # type: ignore[override]
        return self.connection.runs_only_when_asked

    def take_note(self, game_id: str, decision_id: str) -> str | None:
        with self._notes_lock:
            return self._notes.pop((game_id, decision_id), None)

    def _keep_note(self, game_id: str, decision_id: str, reply: Any) -> None:
        note = protocol.note_from_pb(reply.note)
        if note is not None:
            with self._notes_lock:
                self._notes[(game_id, decision_id)] = note

    def pass_cards(
        self, game_id: str, view: SeatView, decision_id: str, deadline: Deadline
    ) -> list[Card]:
        request = protocol.pass_request(
            game_id, view, decision_id, deadline.move_time_ms, deadline.time_bank_ms
        )
        reply = self.connection.call("PassCards", request, deadline.timeout_s)
        self._keep_note(game_id, decision_id, reply)
        return _parse(lambda: protocol.cards_from_pb(reply.cards))

    def play_card(self, game_id: str, view: SeatView, decision_id: str, deadline: Deadline) -> Card:
        build = protocol.play_request_bytes if self._takes_bytes else protocol.play_request
        request = build(game_id, view, decision_id, deadline.move_time_ms, deadline.time_bank_ms)
        reply = self.connection.call("PlayCard", request, deadline.timeout_s)
        self._keep_note(game_id, decision_id, reply)
        if not reply.HasField("card"):
            raise BotFault(FaultKind.MALFORMED, "PlayCard answer without a card")
        return _parse(lambda: protocol.card_from_pb(reply.card))

    def choose_moon_scoring(
        self, game_id: str, view: SeatView, decision_id: str, deadline: Deadline
    ) -> MoonScoring:
        request = protocol.moon_scoring_request(
            game_id, view, decision_id, deadline.move_time_ms, deadline.time_bank_ms
        )
        try:
            reply = self.connection.call("ChooseMoonScoring", request, deadline.timeout_s)
        except BotFault as fault:
            if fault.status == grpc.StatusCode.UNIMPLEMENTED.name:
                return MoonScoring.ADD_TO_OTHERS  # the documented default: not a fault
            raise
        self._keep_note(game_id, decision_id, reply)
        return _parse(lambda: protocol.moon_choice_from_pb(reply.choice))

    def start_game(
        self, game_id: str, seat: int, names: Sequence[str], rules: Rules, timeout_s: float
    ) -> None:
        request = protocol.start_game_request(game_id, seat, names, rules)
        self.connection.call("StartGame", request, timeout_s)

    def deal_hand(self, game_id: str, view: SeatView, timeout_s: float) -> None:
        self.connection.call("DealHand", protocol.deal_hand_request(game_id, view), timeout_s)

    def end_hand(self, game_id: str, seat: int, result: HandResult, timeout_s: float) -> None:
        self.connection.call("EndHand", protocol.end_hand_request(game_id, seat, result), timeout_s)

    def end_game(
        self, game_id: str, seat: int, outcome: Outcome, forfeited: bool, timeout_s: float
    ) -> None:
        request = protocol.end_game_request(game_id, seat, outcome, forfeited)
        self.connection.call("EndGame", request, timeout_s)


def _parse(parse: Any) -> Any:
    try:
        return parse()
    except protocol.MalformedAnswer as error:
        raise BotFault(FaultKind.MALFORMED, str(error)) from None
