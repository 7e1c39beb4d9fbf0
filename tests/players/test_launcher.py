"""referee.players.launcher: starting a launched bot, refusing it, and stopping it for good.

The misbehaving bot (tests/match/bots/misbehaving.py) is launched as a
process through a BotPool, as tournaments start bots: one that never listens,
exits at start or says the wrong protocol version is refused with the right
fault kind and stopped at once; one that ignores SIGTERM is killed, children
and all.
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from referee.pb.hearts.v1 import hearts_pb2 as pb
from referee.players import BotFault, FaultKind, LaunchedBot
from referee.players.policy import TimeControl
from referee.players.specs import parse_bot
from referee.protocol import PROTOCOL_VERSION
from referee.sandbox import procfs
from tests.match.conftest import assert_no_process_left, misbehaving_command


def _zombie(pid: int) -> bool:
    """Gone, or a zombie: not a live process."""
    return not any(p.pid == pid and p.alive for p in procfs.processes())


def test_wrong_protocol_version_of_a_launched_bot(make_pool, launched_pids) -> None:
    pool = make_pool(TimeControl(startup_timeout_ms=20000))
    with pytest.raises(BotFault) as caught:
        pool.start(parse_bot(misbehaving_command("--protocol-version", "3")))
    assert caught.value.kind == FaultKind.HANDSHAKE
    assert "protocol version 3" in caught.value.message
    assert len(launched_pids) == 1
    assert_no_process_left(launched_pids)  # refused and stopped at once


def test_bot_ignoring_sigterm_is_killed(tmp_path, make_pool, launched_pids) -> None:
    pids = tmp_path / "pids"
    pool = make_pool(sandbox="none")  # writes its pids outside its folder
    pool.start(
        parse_bot(misbehaving_command("--ignore-sigterm", "--spawn-child", "--pid-file", str(pids)))
    )
    pool.close()
    assert_no_process_left(launched_pids)
    for line in pids.read_text().splitlines():
        pid = int(line.split()[0])
        assert not os.path.exists(f"/proc/{pid}") or _zombie(pid)


def test_never_listening_bot_fails_to_start(make_pool, launched_pids) -> None:
    pool = make_pool(TimeControl(startup_timeout_ms=1500))
    spec = parse_bot(misbehaving_command("--no-listen"))
    with pytest.raises(BotFault) as caught:
        pool.start(spec)
    assert caught.value.kind == FaultKind.START_FAILED
    message = caught.value.message
    assert "not serving" in message and "1.5 s" in message
    assert "not listening, just sleeping" in message  # the bot's stderr is quoted
    assert_no_process_left(launched_pids)


def test_bot_exiting_at_start(make_pool, launched_pids) -> None:
    pool = make_pool(TimeControl(startup_timeout_ms=20000))
    with pytest.raises(BotFault) as caught:
        pool.start(parse_bot(misbehaving_command("--exit-at-start")))
    assert caught.value.kind == FaultKind.START_FAILED
    assert "exited while starting" in caught.value.message
    assert "exiting at start" in caught.value.message
    assert_no_process_left(launched_pids)


def test_a_bot_that_died_between_its_calls_is_restarted_by_its_next_call(
    tmp_path, launched_pids
) -> None:
    """A bot that died between its calls is found dead before the next call is sent
    (by then its port may be another process's), named as a crash, and restarted."""
    # Unsandboxed, so that the bot is the supervisor's child (not inside bubblewrap).
    bot = LaunchedBot(
        "mortal",
        misbehaving_command(),
        log_dir=tmp_path / "bots",
        max_restarts=1,
        sandbox="none",
    )
    try:
        bot.start()
        handshake = pb.HandshakeRequest(protocol_version=PROTOCOL_VERSION)
        bot.call("Handshake", handshake, 10.0)
        supervisor = bot._proc
        assert supervisor is not None
        (child,) = [p.pid for p in procfs.processes() if p.ppid == supervisor.pid]
        os.kill(child, signal.SIGKILL)
        # The supervisor exits (137: its bot killed by SIGKILL): a zombie until it is
        # reaped, by the fork server once the referee knows of the exit. Either way no
        # call has looked yet: the next one is the first.
        deadline = time.monotonic() + 30
        while _state(supervisor.pid) not in ("Z", "") and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _state(supervisor.pid) in ("Z", "")
        with pytest.raises(BotFault) as caught:
            bot.call("Handshake", handshake, 60.0)
        assert caught.value.kind == FaultKind.CRASH
        assert caught.value.message == "bot process killed by SIGKILL; restarted (1 of 1)"
        assert bot.restarts == 1 and bot._proc is not supervisor
        bot.call("Handshake", handshake, 10.0)  # the new start answers
    finally:
        bot.close()
    assert_no_process_left(launched_pids)


def _state(pid: int) -> str:
    """The state letter of process ``pid`` (Z: a zombie), or "" once it is reaped."""
    return next((p.state for p in procfs.processes() if p.pid == pid), "")
