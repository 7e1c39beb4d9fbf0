"""Every starter kit serves on the address it is given: a Unix socket or host:port.

A sandboxed bot has no network: the referee starts it with ``--address
unix:/abs/path/bot.sock`` on a socket it bind-mounts into the sandbox (and
with ``--port N`` only under ``sandbox: none``). Each test builds a copy of
the kit alone (see ``conftest.built_kit``), starts the built bot directly on
a Unix socket, and talks to it as the referee does: health, handshake,
reflection, and a whole hand of passes and plays judged by the engine. Then
the same bot on ``--address host:port`` and on ``--port``, and the command
line it must refuse. Every process started here is stopped.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import re
import shlex
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator

import grpc
import pytest
import yaml
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from referee import protocol
from referee.engine import Card, GameState, PassDirection, Rules
from referee.pb.hearts.v1 import hearts_pb2 as pb
from referee.pb.hearts.v1 import hearts_pb2_grpc as pb_grpc
from referee.players.remote import BotConnection
from tests.kits.conftest import Build, built_or_skip

KITS = ["go", "rust", "java", "cpp", "node"]
#: Seat 0 holds the two of clubs: on a hold hand its only legal first play.
HANDS = [
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
]
STARTUP_S = 60.0
CALL_S = 10.0

#: The run line's own placeholder (``--port {port}``, or ``--address {address}``).
_PLACEHOLDER = re.compile(r"--(?:port|address)[ =]\{(?:port|address)\}")


def _command(folder: pathlib.Path, *where: str) -> list[str]:
    """The kit's ``run:`` command with ``where`` in place of its address placeholder."""
    run = yaml.safe_load((folder / "bot.yaml").read_text())["run"]
    assert _PLACEHOLDER.search(run), f"no --port {{port}} / --address {{address}} in {run!r}"
    argv = shlex.split(_PLACEHOLDER.sub(" ", run)) + list(where)
    if "/" in argv[0]:
        argv[0] = str(folder / argv[0])  # ./bin/bot: relative to the kit, not to our cwd
    return argv


@contextlib.contextmanager
def _bot(folder: pathlib.Path, logs: pathlib.Path, *where: str) -> Iterator[subprocess.Popen]:
    """The built bot running in its folder; killed with its process group at the end."""
    logs.mkdir(parents=True, exist_ok=True)
    name = "-".join(re.sub(r"\W", "", w) for w in where)[:60] or "none"
    with open(logs / f"{name}.out", "wb") as out, open(logs / f"{name}.err", "wb") as err:
        proc = subprocess.Popen(
            _command(folder, *where),
            cwd=folder,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
    try:
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def _stderr(logs: pathlib.Path) -> str:
    return "\n".join(
        f"--- {p.name}\n{p.read_text(errors='replace')[-2000:]}" for p in sorted(logs.glob("*.err"))
    )


def _connect(address: str, proc: subprocess.Popen, logs: pathlib.Path) -> BotConnection:
    connection = BotConnection(address)
    try:
        connection.wait_serving(STARTUP_S, alive=lambda: proc.poll() is None)
    except Exception as error:
        connection.close()
        raise AssertionError(f"not serving on {address}: {error}\n{_stderr(logs)}") from None
    return connection


def _stop(proc: subprocess.Popen, logs: pathlib.Path) -> None:
    """SIGTERM, as the referee sends: the bot must exit 0 within a few seconds."""
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"still running 10 s after SIGTERM\n{_stderr(logs)}") from None
    assert code == 0, f"exit code {code} after SIGTERM\n{_stderr(logs)}"


def _services(address: str) -> set[str]:
    """The services server reflection lists."""
    with grpc.insecure_channel(address) as channel:
        return set(ProtoReflectionDescriptorDatabase(channel).get_services())


def _play_a_hand(connection: BotConnection) -> int:
    """The bot plays all four seats of hand 1 (passes, then 13 tricks); returns its plays.

    Every answer is parsed as the referee parses it and applied to the
    engine, which refuses an illegal pass or play.
    """
    game_id, rules = "kit-address", Rules()
    state = GameState.new(rules, seed=2026)
    names = [f"seat{s}" for s in range(rules.num_players)]
    for seat in range(rules.num_players):
        start = protocol.start_game_request(game_id, seat, names, rules)
        connection.call("StartGame", start, CALL_S)
        view = state.view(seat)
        connection.call("DealHand", protocol.deal_hand_request(game_id, view), CALL_S)
        request = protocol.pass_request(game_id, view, f"pass-{seat}", 2000, 0)
        reply = connection.call("PassCards", request, CALL_S)
        state.pass_cards(seat, protocol.cards_from_pb(reply.cards))
    plays = 0
    while plays < rules.num_players * rules.cards_per_player:
        seat = state.current
        view = state.view(seat)
        request = protocol.play_request(game_id, view, f"play-{plays}", 2000, 0)
        reply = connection.call("PlayCard", request, CALL_S)
        assert reply.HasField("card"), f"PlayCard answer without a card: {reply}"
        card = protocol.card_from_pb(reply.card)
        assert card in view.legal_moves, f"{card} is not among {view.legal_moves}"
        state.play(card, seat=seat)
        plays += 1
    return plays


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def socket_dir() -> Iterator[pathlib.Path]:
    """A short directory for the socket (a Unix socket path is limited to 107 bytes)."""
    with tempfile.TemporaryDirectory(prefix="kit-sock-") as folder:
        yield pathlib.Path(folder)


#: grpc-core (Python's grpcio >= 1.57) sends the %-encoded socket path as the
#: ``:authority`` of a ``unix:`` channel, which hyper's h2 (tonic, the Rust
#: kit) refuses with RST_STREAM PROTOCOL_ERROR (hyperium/h2#487,
#: grpc/grpc#38142). Clients that talk to tonic over a Unix socket send
#: ``localhost`` instead (grpcurl, Kubernetes); until BotConnection does, the
#: referee cannot talk to the Rust kit over a Unix socket.
UDS_AUTHORITY = [("grpc.default_authority", "localhost")]


def _built(kit: str, built_kit: Callable[[str], Build]) -> tuple[pathlib.Path, str]:
    build = built_or_skip(kit, built_kit)
    name = yaml.safe_load((build.folder / "bot.yaml").read_text())["name"]
    return build.folder, name


def _wait_serving_raw(channel: grpc.Channel, proc: subprocess.Popen, logs: pathlib.Path) -> None:
    """Health SERVING on a plain channel (not the referee's), or an error naming the bot's stderr."""
    stub = health_pb2_grpc.HealthStub(channel)
    deadline = time.monotonic() + STARTUP_S
    last = "no answer"
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the bot exited with code {proc.returncode}\n{_stderr(logs)}")
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=1.0)
            if reply.status == health_pb2.HealthCheckResponse.SERVING:
                return
            last = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
        except grpc.RpcError as error:
            last = f"{error.code().name}: {error.details()}"
        time.sleep(0.1)
    raise AssertionError(f"not serving after {STARTUP_S:.0f} s (last: {last})\n{_stderr(logs)}")


@pytest.mark.toolchain
@pytest.mark.timeout(1800)  # a cold build (Rust, Go, Java) fetches and compiles everything
@pytest.mark.parametrize("kit", KITS)
def test_kit_serves_the_referee_on_a_unix_socket(
    kit: str, built_kit: Callable[[str], Build], socket_dir: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    """``--address unix:PATH``, as a sandboxed bot is started: the referee plays a hand with it."""
    folder, name = _built(kit, built_kit)
    logs = tmp_path / "logs"
    # A socket file left at that path by an earlier run of the bot must not stop it.
    path = socket_dir / "bot.sock"
    with socket.socket(socket.AF_UNIX) as stale:
        stale.bind(str(path))
    address = f"unix:{path}"
    with _bot(folder, logs, "--address", address) as proc:
        # First as any gRPC client may: health, reflection (grpcurl's
        # `list`) and the handshake.
        with grpc.insecure_channel(address, options=UDS_AUTHORITY) as channel:
            _wait_serving_raw(channel, proc, logs)
            services = set(ProtoReflectionDescriptorDatabase(channel).get_services())
            assert {"hearts.v1.HeartsBot", "grpc.health.v1.Health"} <= services, services
            hello = pb_grpc.HeartsBotStub(channel).Handshake(pb.HandshakeRequest(), timeout=CALL_S)
            assert hello.name == name
        assert address in _stderr(logs), f"{address} not logged on stderr\n{_stderr(logs)}"
        # Then as the referee does.
        connection = _connect(address, proc, logs)
        try:
            assert connection.handshake(CALL_S).name == name
            assert _play_a_hand(connection) == 52
        finally:
            connection.close()
        _stop(proc, logs)


@pytest.mark.toolchain
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("kit", KITS)
def test_kit_serves_on_host_port_and_refuses_a_bad_command_line(
    kit: str, built_kit: Callable[[str], Build], socket_dir: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    """``--address HOST:PORT`` and ``--port PORT`` (``sandbox: none``); never both, never neither."""
    folder, name = _built(kit, built_kit)
    logs = tmp_path / "logs"
    for where in (("--address", f"127.0.0.1:{_free_port()}"), ("--port", str(_free_port()))):
        address = where[1] if where[0] == "--address" else f"127.0.0.1:{where[1]}"
        with _bot(folder, logs, *where) as proc:
            connection = _connect(address, proc, logs)
            try:
                assert connection.handshake(CALL_S).name == name
                assert "hearts.v1.HeartsBot" in _services(address)
                view = GameState.from_hands(HANDS, pass_direction=PassDirection.HOLD).view(0)
                request = protocol.play_request("kit-tcp", view, "d", 2000, 0)
                reply = connection.call("PlayCard", request, CALL_S)
                assert protocol.card_from_pb(reply.card) == Card.parse("2C")
            finally:
                connection.close()
            _stop(proc, logs)

    for where in ((), ("--address", f"unix:{socket_dir / 'x.sock'}", "--port", str(_free_port()))):
        with _bot(folder, logs, *where) as proc:
            try:
                code = proc.wait(timeout=STARTUP_S)
            except subprocess.TimeoutExpired:
                raise AssertionError(f"{where or 'no address'}: still running") from None
            assert code == 2, f"{where or 'no address'}: exit code {code}\n{_stderr(logs)}"
