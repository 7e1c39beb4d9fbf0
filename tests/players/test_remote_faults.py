"""referee.players.remote.fault_of: the one place a gRPC error becomes a fault kind.

Every error here is real: a generic gRPC server (port 0, in this process)
aborts each call with the status code and details the test asks for, or
answers with more bytes than the referee's channel accepts, or answers too
late; the client is the referee's own channel (``open_channel``). What the
bot wrote in its details reaches the fault message only through
``printable`` and cut to ``DETAILS_CHARS``.
"""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Iterator

import grpc
import pytest

from referee.players import BotFault, FaultKind
from referee.players.remote import DETAILS_CHARS, fault_of, open_channel

METHOD = "/test.Echo/Call"
#: What the test server answers the oversized call with: more than the channel's limit.
LIMIT = 4096


class _Handler(grpc.GenericRpcHandler):
    """``request`` is ``CODE|details`` (abort), ``big`` (answer LIMIT * 2 bytes) or ``slow``."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def service(self, details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        if details.method != METHOD:
            return None
        return grpc.unary_unary_rpc_method_handler(self._call)

    def _call(self, request: bytes, context: grpc.ServicerContext) -> bytes:
        if request == b"big":
            return b"x" * (LIMIT * 2)
        if request == b"slow":
            self.release.wait(30)
            return b"late"
        code, _, text = request.decode().partition("|")
        context.abort(grpc.StatusCode[code], text)
        raise AssertionError("abort returns only by raising")


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[grpc.Channel, _Handler]]:
    handler = _Handler()
    srv = grpc.server(concurrent.futures.ThreadPoolExecutor(4), handlers=[handler])
    port = srv.add_insecure_port("127.0.0.1:0")
    srv.start()
    channel = open_channel(f"127.0.0.1:{port}", max_message_bytes=LIMIT)
    try:
        yield channel, handler
    finally:
        handler.release.set()
        channel.close()
        srv.stop(None)


def error_of(channel: grpc.Channel, request: bytes, timeout: float = 30) -> grpc.RpcError:
    call = channel.unary_unary(METHOD)
    with pytest.raises(grpc.RpcError) as caught:
        call(request, timeout=timeout)
    return caught.value


#: Every other status code a bot can answer with is an rpc_error naming the code.
OTHER_CODES = [
    c
    for c in grpc.StatusCode
    if c not in (grpc.StatusCode.OK, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE)
]


@pytest.mark.parametrize("code", OTHER_CODES, ids=lambda c: c.name)
def test_an_error_status_is_an_rpc_error_naming_the_code_and_the_details(server, code) -> None:
    channel, _ = server
    fault = fault_of(error_of(channel, f"{code.name}|it went wrong".encode()), "PlayCard")
    assert isinstance(fault, BotFault)
    assert fault.kind is FaultKind.RPC_ERROR
    assert fault.status == code.name
    assert fault.message == f"PlayCard: {code.name}: it went wrong"


def test_unavailable_is_its_own_kind(server) -> None:
    channel, _ = server
    fault = fault_of(error_of(channel, b"UNAVAILABLE|going away"), "PassCards")
    assert fault.kind is FaultKind.UNAVAILABLE
    assert (fault.status, fault.message) == ("UNAVAILABLE", "PassCards: UNAVAILABLE: going away")


def test_a_bot_answering_deadline_exceeded_itself_is_a_timeout(server) -> None:
    channel, _ = server
    fault = fault_of(error_of(channel, b"DEADLINE_EXCEEDED|I give up"), "PlayCard")
    assert fault.kind is FaultKind.TIMEOUT
    assert fault.message == "PlayCard: no answer before the deadline"  # not the bot's words


def test_a_late_answer_is_a_timeout(server) -> None:
    channel, handler = server
    # The deadline is short, but the bot answers only when released, long after it.
    error = error_of(channel, b"slow", timeout=0.5)
    handler.release.set()
    fault = fault_of(error, "PlayCard")
    assert fault.kind is FaultKind.TIMEOUT
    assert fault.status == "DEADLINE_EXCEEDED"
    assert fault.message == "PlayCard: no answer before the deadline"


def test_an_answer_over_the_channel_limit_is_oversized(server) -> None:
    channel, _ = server
    error = error_of(channel, b"big")
    assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED  # the client refused it
    fault = fault_of(error, "PassCards")
    assert fault.kind is FaultKind.OVERSIZED
    assert fault.message.startswith("PassCards: answer too large: ")
    assert str(LIMIT) in fault.message  # gRPC's words give the limit


def test_resource_exhausted_from_the_bot_without_message_is_an_rpc_error(server) -> None:
    channel, _ = server
    fault = fault_of(error_of(channel, b"RESOURCE_EXHAUSTED|out of memory"), "PlayCard")
    assert fault.kind is FaultKind.RPC_ERROR
    assert fault.message == "PlayCard: RESOURCE_EXHAUSTED: out of memory"


def test_the_bots_details_are_made_printable_and_cut(server) -> None:
    channel, _ = server
    hostile = "\x1b[2J\u202eevil\n" + "y" * 1000
    fault = fault_of(error_of(channel, f"INTERNAL|{hostile}".encode()), "PlayCard")
    details = fault.message.removeprefix("PlayCard: INTERNAL: ")
    assert details.startswith("\\x1b[2J\\u202eevil\\n"), details[:40]
    assert not any(ch in fault.message for ch in "\x1b\u202e\n")
    assert len(details) <= DETAILS_CHARS
