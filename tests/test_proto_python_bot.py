"""The Python kit's server (referee.botkit): descriptor names, reflection, health.

- The stubs register ``hearts/v1/hearts.proto``, the name every other
  language registers, so a bot that generates its own stubs from the same
  file (docs/protocol.md, step 1) and imports ``referee.botkit`` starts.
- Reflection answers under ``grpc.reflection.v1`` (what grpcurl asks first)
  and ``v1alpha``, and resolves the bot's symbols to that file.
- ``grpc.health.v1.Health/List`` answers.

grpcurl itself is driven against every kit in tests/kits/test_grpcurl.py.
"""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2 as rpb

from referee.botkit import REFLECTION_V1, SERVICE_NAME, Bot, make_server, pb
from referee.pb.hearts.v1 import hearts_pb2_grpc as pb_grpc

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTO_NAME = "hearts/v1/hearts.proto"


class _FirstLegal(Bot):
    name = "first-legal"

    def pass_cards(self, request: pb.PassCardsRequest) -> list[pb.Card]:
        return list(request.hand)[: request.count]

    def play_card(self, request: pb.PlayCardRequest) -> pb.Card:
        return request.legal_moves[0]


@pytest.fixture
def channel(tmp_path: pathlib.Path) -> Iterator[grpc.Channel]:
    """A channel to a botkit server on a Unix socket."""
    address = f"unix:{tmp_path / 'bot.sock'}"
    server, _ = make_server(_FirstLegal(), address, max_workers=4)
    try:
        with grpc.insecure_channel(address) as chan:
            yield chan
    finally:
        server.stop(None)


def test_the_stubs_register_the_proto_under_its_own_name() -> None:
    assert pb.DESCRIPTOR.name == PROTO_NAME
    assert pb.DESCRIPTOR.package == "hearts.v1"
    assert pb.PlayCardRequest.__module__ == "referee.pb.hearts.v1.hearts_pb2"


def _reflect(
    channel: grpc.Channel, service: str, request: rpb.ServerReflectionRequest
) -> rpb.ServerReflectionResponse:
    """One reflection request on ``service`` (v1 and v1alpha share the wire format)."""
    call = channel.stream_stream(
        f"/{service}/ServerReflectionInfo",
        request_serializer=rpb.ServerReflectionRequest.SerializeToString,
        response_deserializer=rpb.ServerReflectionResponse.FromString,
    )
    (answer,) = list(call(iter([request]), timeout=10))
    return answer


def _files(answer: rpb.ServerReflectionResponse) -> list[descriptor_pb2.FileDescriptorProto]:
    assert answer.WhichOneof("message_response") == "file_descriptor_response", answer
    return [
        descriptor_pb2.FileDescriptorProto.FromString(raw)
        for raw in answer.file_descriptor_response.file_descriptor_proto
    ]


@pytest.mark.parametrize("service", [REFLECTION_V1, "grpc.reflection.v1alpha.ServerReflection"])
def test_reflection_v1_and_v1alpha(channel: grpc.Channel, service: str) -> None:
    listed = _reflect(channel, service, rpb.ServerReflectionRequest(list_services=""))
    names = {s.name for s in listed.list_services_response.service}
    assert names == {
        SERVICE_NAME,
        "grpc.health.v1.Health",
        REFLECTION_V1,
        "grpc.reflection.v1alpha.ServerReflection",
    }
    for symbol in (SERVICE_NAME, "hearts.v1.PlayCardRequest", f"{SERVICE_NAME}.PlayCard"):
        answer = _reflect(
            channel, service, rpb.ServerReflectionRequest(file_containing_symbol=symbol)
        )
        assert _files(answer)[0].name == PROTO_NAME
    by_name = _reflect(channel, service, rpb.ServerReflectionRequest(file_by_filename=PROTO_NAME))
    assert _files(by_name)[0].package == "hearts.v1"
    # Every listed service can be described, the v1 reflection service too.
    for name in names:
        answer = _reflect(
            channel, service, rpb.ServerReflectionRequest(file_containing_symbol=name)
        )
        (described,) = [f for f in _files(answer) if f.package == name.rsplit(".", 1)[0]]
        assert name.rsplit(".", 1)[1] in {s.name for s in described.service}


def test_health_check_and_list(channel: grpc.Channel) -> None:
    stub = health_pb2_grpc.HealthStub(channel)
    serving = health_pb2.HealthCheckResponse.SERVING
    for service in ("", SERVICE_NAME):
        check = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
        assert check.status == serving
    listed = stub.List(health_pb2.HealthListRequest(), timeout=10)
    assert {name: s.status for name, s in listed.statuses.items()} == {
        "": serving,
        SERVICE_NAME: serving,
    }


def _start_script(
    folder: pathlib.Path, source: str, args: list[str], *paths: pathlib.Path
) -> tuple[subprocess.Popen[bytes], pathlib.Path]:
    """Run ``source`` as ``folder/bot.py ARGS`` with ``paths`` and the repository importable.

    Returns the process and the file its stdout and stderr go to.
    """
    (folder / "bot.py").write_text(source)
    stderr = folder / "stderr.log"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*map(str, paths), str(ROOT)])}
    with open(stderr, "wb") as err:
        bot = subprocess.Popen(
            [sys.executable, str(folder / "bot.py"), *args],
            cwd=folder,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=err,
            stderr=err,
        )
    return bot, stderr


BOT_WITH_OWN_STUBS = """
import sys
from hearts.v1 import hearts_pb2  # the bot's own stubs, generated from hearts.proto
from referee.botkit import Bot, serve


class OwnStubsBot(Bot):
    name = "own-stubs"

    def pass_cards(self, request):
        return list(request.hand)[: request.count]

    def play_card(self, request):
        card = request.legal_moves[-1]
        return hearts_pb2.Card(suit=card.suit, rank=card.rank)


serve(OwnStubsBot())
"""


@pytest.mark.timeout(120)
def test_a_bot_with_its_own_stubs_and_botkit_starts(tmp_path: pathlib.Path) -> None:
    """docs/protocol.md step 1 (generate the stubs) together with referee.botkit."""
    protoc = pytest.importorskip("grpc_tools.protoc")
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    made = protoc.main(
        [
            "protoc",
            f"-I{ROOT / 'proto'}",
            f"--python_out={stubs}",
            f"--grpc_python_out={stubs}",
            str(ROOT / "proto" / PROTO_NAME),
        ]
    )
    assert made == 0
    for package in ("hearts", "hearts/v1"):
        (stubs / package / "__init__.py").touch()
    address = f"unix:{tmp_path / 'bot.sock'}"
    bot, stderr = _start_script(tmp_path, BOT_WITH_OWN_STUBS, ["--address", address], stubs)
    try:
        with grpc.insecure_channel(address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            deadline = time.monotonic() + 60
            while True:
                assert bot.poll() is None, f"the bot exited:\n{stderr.read_text()}"
                try:
                    check = health.Check(
                        health_pb2.HealthCheckRequest(service=SERVICE_NAME), timeout=2
                    )
                    if check.status == health_pb2.HealthCheckResponse.SERVING:
                        break
                except grpc.RpcError:
                    pass
                assert time.monotonic() < deadline, f"never SERVING:\n{stderr.read_text()}"
                time.sleep(0.1)
            legal = [
                pb.Card(suit=pb.SUIT_CLUBS, rank=pb.RANK_TWO),
                pb.Card(suit=pb.SUIT_HEARTS, rank=pb.RANK_ACE),
            ]
            answer = pb_grpc.HeartsBotStub(channel).PlayCard(
                pb.PlayCardRequest(game_id="g", seat=0, hand=legal, legal_moves=legal), timeout=10
            )
            assert answer.card == legal[-1]
    finally:
        bot.terminate()
        bot.wait(timeout=10)
    assert "duplicate symbol" not in stderr.read_text()


SIGNALLED_BOT = """
import signal
import sys
import threading

from referee.botkit import Bot, serve

STOP = getattr(signal, sys.argv.pop(1))


class SignalledBot(Bot):
    name = "signalled"

    def pass_cards(self, request):
        return list(request.hand)[: request.count]

    def play_card(self, request):
        if request.game_id == "signal-this-thread":
            # A thread-directed signal: it lands on this gRPC worker thread,
            # as a process-directed one may whenever the kernel so chooses.
            signal.pthread_kill(threading.get_ident(), STOP)
        return request.legal_moves[-1]


serve(SignalledBot())
"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize("where", ["process", "grpc-thread"])
@pytest.mark.parametrize("stop", ["SIGTERM", "SIGINT"])
def test_serve_stops_on_a_stop_signal_whichever_thread_takes_it(
    tmp_path: pathlib.Path, stop: str, where: str
) -> None:
    """SIGTERM and Ctrl-C stop a botkit bot with exit code 0, the call in flight answered.

    A stop signal that the kernel hands to one of gRPC's threads used to go
    unseen: the Python handler runs only in the main thread, which slept on an
    Event, and the bot ran on until it was killed (a suite run caught the
    referee's SIGTERM doing this once).
    """
    address = f"unix:{tmp_path / 'bot.sock'}"
    bot, stderr = _start_script(tmp_path, SIGNALLED_BOT, [stop, "--address", address])
    try:
        with grpc.insecure_channel(address) as channel:
            grpc.channel_ready_future(channel).result(timeout=60)
            legal = [pb.Card(suit=pb.SUIT_CLUBS, rank=pb.RANK_TWO)]
            game_id = "signal-this-thread" if where == "grpc-thread" else "g"
            answer = pb_grpc.HeartsBotStub(channel).PlayCard(
                pb.PlayCardRequest(game_id=game_id, seat=0, hand=legal, legal_moves=legal),
                timeout=30,
            )
            assert answer.card == legal[0]
        if where == "process":
            bot.send_signal(getattr(signal, stop))
        # The bot gives calls in flight a second; 30 s is only a bound on a hang.
        returncode = bot.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the bot did not stop on {stop} sent to its {where}:\n{stderr.read_text()}")
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    assert returncode == 0, stderr.read_text()
    assert "Traceback" not in stderr.read_text()
