"""grpcurl lists, describes and calls every RPC of every bot kit through reflection.

A bot author's first check of a bot (docs/protocol.md, "Calling your bot with
grpcurl"): over the bot's Unix socket, as the referee starts a sandboxed bot,
``grpcurl -plaintext -unix PATH list``, ``describe`` of every method, and a
call of every hearts.v1 RPC (JSON requests made from the referee's own
messages, with their JSON names) and of the health service, by method name,
with nothing but reflection to go on. For the Python bot (referee.botkit) and
every starter kit, each built alone as in tests/kits/test_starter_kits.py.

grpcurl is a Go program: the test installs the pinned :data:`GRPCURL_VERSION`
with ``go install`` into ``~/.cache/hearts-referee/tools`` once (as
tests/test_proto_lint.py does for buf), or uses a ``grpcurl`` on the PATH of
that version. Without Go it skips with a message. (grpcurl 1.9.2 and 1.9.3
cannot dial ``-unix`` sockets: fullstorydev/grpcurl#546.)
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
from collections.abc import Callable

import grpc
import pytest
from google.protobuf import json_format

from referee import protocol
from referee.engine import GameState, MoonScoring, Phase, Rules, card_list
from tests.helpers import go_install, tools_dir
from tests.kits.conftest import Build
from tests.kits.test_kit_addresses import (
    KITS,
    UDS_AUTHORITY,
    _bot,
    _built,
    _stderr,
    _stop,
    _wait_serving_raw,
)

ROOT = pathlib.Path(__file__).resolve().parents[2]
GRPCURL_VERSION = "v1.9.4"
SERVICE = "hearts.v1.HeartsBot"
METHODS = [
    "Handshake",
    "StartGame",
    "DealHand",
    "PassCards",
    "PlayCard",
    "ChooseMoonScoring",
    "EndHand",
    "EndGame",
]


def _works(grpcurl: str) -> bool:
    run = subprocess.run(
        [grpcurl, "-help"], capture_output=True, text=True, timeout=30, check=False
    )
    return "-unix" in run.stderr + run.stdout


@pytest.fixture(scope="module")
def grpcurl() -> str:
    """The path of grpcurl :data:`GRPCURL_VERSION`: cached, or installed there."""
    folder = tools_dir() / f"grpcurl-{GRPCURL_VERSION}"
    cached = folder / "grpcurl"
    if cached.is_file() and _works(str(cached)):
        return str(cached)
    go = shutil.which("go")
    if go is None:
        pytest.skip(
            f"grpcurl skipped: Go not found; install Go "
            f"(or `go install github.com/fullstorydev/grpcurl/cmd/grpcurl@{GRPCURL_VERSION}` "
            f"into {folder})"
        )
    go_install(go, "github.com/fullstorydev/grpcurl/cmd/grpcurl", GRPCURL_VERSION, folder)
    return str(cached)


def _requests() -> dict[str, str]:
    """A JSON request for every RPC: the referee's own messages, at real positions of a V6 game."""
    rules = Rules(num_players=5, moon_scoring=MoonScoring.SHOOTER_CHOOSES, omnibus=True)
    state = GameState.new(rules, seed=11)
    view = state.view(0)
    messages = {
        "Handshake": protocol.pb.HandshakeRequest(protocol_version=1, referee_version="grpcurl"),
        "StartGame": protocol.start_game_request("g", 0, [f"p{s}" for s in range(5)], rules),
        "DealHand": protocol.deal_hand_request("g", view),
        "PassCards": protocol.pass_request("g", view, "d-pass", 2000, 0),
        "ChooseMoonScoring": protocol.moon_scoring_request("g", view, "d-moon", 2000, 0),
    }
    for seat in state.to_act():
        state.pass_cards(seat, card_list(state.hands[seat])[:3])
    assert state.phase is Phase.PLAYING
    # A few plays in, so the request has a trick in progress.
    for _ in range(2):
        state.play(card_list(state.legal_mask())[0])
    messages["PlayCard"] = protocol.play_request("g", state.view(state.current), "d", 2000, 0)
    state2 = GameState.new(Rules(target_score=1), seed=3)
    while not state2.is_over:
        if state2.phase is Phase.PASSING:
            for seat in state2.to_act():
                state2.pass_cards(seat, card_list(state2.hands[seat])[:3])
        else:
            state2.play(card_list(state2.legal_mask())[0])
    assert state2.outcome is not None
    messages["EndHand"] = protocol.end_hand_request("g", 1, state2.hand_results[-1])
    messages["EndGame"] = protocol.end_game_request("g", 1, state2.outcome, False)
    return {name: json_format.MessageToJson(m) for name, m in messages.items()}


def _run(
    grpcurl: str,
    sock: pathlib.Path,
    *args: str,
    data: str | None = None,
    flags: tuple[str, ...] = (),
) -> str:
    """``grpcurl -plaintext -unix [FLAGS] [-d @] SOCK ARGS`` (flags go first); its output."""
    flags = ("-plaintext", "-unix", "-max-time", "20", *flags)
    if data is not None:
        flags += ("-d", "@")
    run = subprocess.run(
        [grpcurl, *flags, str(sock), *args],
        input=data,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, (
        f"grpcurl {' '.join(args)} (exit {run.returncode}):\n{run.stdout}{run.stderr}"
    )
    return run.stdout


def _check_with_grpcurl(grpcurl: str, sock: pathlib.Path) -> None:
    services = set(_run(grpcurl, sock, "list").split())
    # Reflection itself need not be listed (Node's is not; C++'s is v1alpha
    # only): grpcurl asks v1 first and falls back to v1alpha.
    wanted = {SERVICE, "grpc.health.v1.Health"}
    assert wanted <= services, f"grpcurl list: {sorted(services)}"
    methods = set(_run(grpcurl, sock, "list", SERVICE).split())
    assert methods == {f"{SERVICE}.{m}" for m in METHODS}, f"grpcurl list {SERVICE}: {methods}"
    for method in METHODS:
        described = _run(grpcurl, sock, "describe", f"{SERVICE}.{method}")
        assert f"rpc {method} (" in described, described
    trick = _run(grpcurl, sock, "describe", "hearts.v1.Trick")
    # Explicit presence: proto3 `optional`, or the synthetic oneof it is made of
    # (Node's reflection, from protobuf.js, shows the oneof).
    assert "optional int32 winner = 3;" in trick or "oneof _winner {" in trick, trick
    template = _run(
        grpcurl, sock, "describe", "hearts.v1.PlayCardRequest", flags=("-msg-template",)
    )
    # The JSON names where the bot's reflection gives them (Go, Rust, C++,
    # Python), the proto names where it does not (Java): -d takes either.
    assert '"passTo": 0' in template or '"pass_to": 0' in template, template
    passing = _run(grpcurl, sock, "describe", "hearts.v1.PassCardsRequest")
    assert "PassDirection pass_direction = 6;" in passing, passing
    for method, request in _requests().items():
        answer = json.loads(_run(grpcurl, sock, f"{SERVICE}/{method}", data=request) or "{}")
        if method == "Handshake":
            version = answer.get("protocolVersion", answer.get("protocol_version"))
            assert version == 1 and answer["name"], answer
        elif method == "PassCards":
            assert len(answer.get("cards", [])) == 3, answer
        elif method == "PlayCard":
            assert answer.get("card", {}).get("suit", "").startswith("SUIT_"), answer
        elif method == "ChooseMoonScoring":
            choices = ("MOON_SCORING_ADD_TO_OTHERS", "MOON_SCORING_SUBTRACT_FROM_SELF")
            assert answer.get("choice") in choices, answer
        else:
            assert answer == {}, answer
    health = json.loads(_run(grpcurl, sock, "grpc.health.v1.Health/Check", data="{}"))
    assert health.get("status") == "SERVING", health
    # Health/List is newer than some kits' health service (Java's): where the
    # service describes it, it must answer.
    if "rpc List (" in _run(grpcurl, sock, "describe", "grpc.health.v1.Health"):
        listed = json.loads(_run(grpcurl, sock, "grpc.health.v1.Health/List", data="{}"))
        assert listed.get("statuses", {}).get(SERVICE, {}).get("status") == "SERVING", listed


@pytest.mark.toolchain
@pytest.mark.timeout(1800)  # a cold build (Rust, Go, Java) fetches and compiles everything
@pytest.mark.parametrize("kit", ["python", *KITS])
def test_grpcurl_lists_describes_and_calls_every_rpc(
    kit: str,
    grpcurl: str,
    built_kit: Callable[[str], Build],
    tmp_path: pathlib.Path,
) -> None:
    logs = tmp_path / "logs"
    sock_dir = pathlib.Path(os.environ.get("TMPDIR", "/tmp"))
    sock = sock_dir / f"grpcurl-{kit}-{os.getpid()}.sock"
    if kit == "python":
        folder = ROOT / "sample_bots" / "python" / "heuristic"
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        argv = [sys.executable, "bot.py", "--address", f"unix:{sock}"]
        logs.mkdir()
        with open(logs / "python.err", "wb") as err:
            proc = subprocess.Popen(
                argv, cwd=folder, env=env, stdin=subprocess.DEVNULL, stdout=err, stderr=err
            )
        try:
            _serve_and_check(grpcurl, sock, proc, logs)
        finally:
            proc.kill()
            proc.wait(timeout=10)
            sock.unlink(missing_ok=True)
        return
    folder, _ = _built(kit, built_kit)
    try:
        with _bot(folder, logs, "--address", f"unix:{sock}") as proc:
            _serve_and_check(grpcurl, sock, proc, logs)
            _stop(proc, logs)
    finally:
        sock.unlink(missing_ok=True)


def _serve_and_check(
    grpcurl: str, sock: pathlib.Path, proc: subprocess.Popen, logs: pathlib.Path
) -> None:
    with grpc.insecure_channel(f"unix:{sock}", options=UDS_AUTHORITY) as channel:
        _wait_serving_raw(channel, proc, logs)
    try:
        _check_with_grpcurl(grpcurl, sock)
    except AssertionError as error:
        raise AssertionError(f"{error}\n{_stderr(logs)}") from None
