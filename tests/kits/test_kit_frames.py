"""No starter kit makes the referee read frames it did not ask for, call after call.

Every frame a bot's server sends is work for the referee on every decision: it
reads it, and answers a PING. grpc-go's default server probes the bandwidth
with a PING (and a WINDOW_UPDATE) after nearly every call, which cost the
referee about a tenth of its CPU per decision with Go bots; the Go kit turns
the probe off with fixed flow-control windows (``docs/performance.md``). Each
kit, built and started as a tournament starts it (sandboxed, from its own
folder), answers calls from a bare HTTP/2 client that counts what comes back:
an answer's HEADERS, DATA and trailers, and at most a couple of PINGs in all.
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable

import pytest

from referee import __version__, protocol
from referee.pb.hearts.v1 import hearts_pb2 as pb
from referee.players.policy import Limits, TimeControl
from referee.players.specs import parse_bot
from referee.players.supply import BotPool
from tests.helpers import require_sandbox
from tests.kits.conftest import ROOT, Build, built_or_skip
from tests.kits.http2_probe import Http2Probe

CALLS = 20
#: A server may ping now and then (grpc-core's keepalive does, twice in 200 calls).
MOST_PINGS = 2
HANDSHAKE = "/hearts.v1.HeartsBot/Handshake"


def _frames(folder: pathlib.Path, logs: pathlib.Path) -> dict[str, int]:
    """The frames the bot in ``folder`` sends over ``CALLS`` handshakes, by type."""
    require_sandbox()
    spec = parse_bot(str(folder))
    request = pb.HandshakeRequest(
        protocol_version=protocol.PROTOCOL_VERSION, referee_version=__version__
    ).SerializeToString()
    # Pondering: never frozen between calls, since these calls bypass the referee's thaw.
    time_control = TimeControl(startup_timeout_ms=60_000)
    with BotPool(log_dir=logs, time_control=time_control, limits=Limits(ponder=True)) as pool:
        address = pool.launch(spec).connection.address
        assert address and address.startswith("unix:"), address
        probe = Http2Probe(address.removeprefix("unix:"))
        try:
            reply = pb.HandshakeResponse.FromString(probe.call(HANDSHAKE, request))
            assert reply.protocol_version == protocol.PROTOCOL_VERSION
            probe.received.clear()  # the connection's SETTINGS and their ACK came with the first
            for _ in range(CALLS):
                probe.call(HANDSHAKE, request)
            return dict(probe.received)
        finally:
            probe.close()


@pytest.mark.toolchain
@pytest.mark.timeout(1800)  # a cold build (Rust, Java) fetches and compiles everything
@pytest.mark.parametrize("kit", ["go", "rust", "java", "cpp", "node"])
def test_a_kit_sends_an_answer_per_call_and_no_probe(
    kit: str, built_kit: Callable[[str], Build], tmp_path: pathlib.Path
) -> None:
    build = built_or_skip(kit, built_kit)
    frames = _frames(build.folder, tmp_path / "logs")
    assert frames.get("HEADERS") == 2 * CALLS, frames  # the answer's headers and trailers
    assert frames.get("DATA") == CALLS, frames
    assert frames.get("PING", 0) <= MOST_PINGS, f"{kit}: {frames}"
    assert not frames.keys() - {"HEADERS", "DATA", "PING", "WINDOW_UPDATE"}, frames


def test_the_python_sample_bot_sends_an_answer_per_call_and_no_probe(
    tmp_path: pathlib.Path,
) -> None:
    frames = _frames(ROOT / "sample_bots" / "python" / "heuristic", tmp_path / "logs")
    assert frames.get("HEADERS") == 2 * CALLS, frames
    assert frames.get("DATA") == CALLS, frames
    assert frames.get("PING", 0) <= MOST_PINGS, frames
