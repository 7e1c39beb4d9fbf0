"""referee.players.launcher: starting a launched bot, refusing it, and stopping it for good.

The misbehaving bot (tests/match/bots/misbehaving.py) is launched as a
process through a BotPool, as tournaments start bots: one that never listens,
exits at start or says the wrong protocol version is refused with the right
fault kind and stopped at once; one that ignores SIGTERM is killed, children
and all.
"""

from __future__ import annotations

import os

import pytest

from referee.players import BotFault, FaultKind
from referee.players.policy import TimeControl
from referee.players.specs import parse_bot
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
