"""The supervisor fork server (referee.sandbox.forkserver, referee.sandbox.spawn).

A supervisor forked by the server must be what ``Popen`` of its command line
starts: the same exit codes, streams, folder, environment and session, and
nothing of the server's left open (a bot that found the server's socket among
its descriptors could ask it for a process outside any sandbox). A server that
dies takes its supervisors down with it and is started again; where there is
none, a start falls back to ``Popen``.
"""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

from referee.pb.hearts.v1 import hearts_pb2 as pb
from referee.players import BotFault, FaultKind, LaunchedBot
from referee.players.launcher import parent_watch_fd
from referee.protocol import PROTOCOL_VERSION
from referee.sandbox import procfs, spawn, supervisor
from tests.helpers import require_sandbox
from tests.match.conftest import misbehaving_command


def _start(tmp_path: pathlib.Path, *command: str, env: dict[str, str] | None = None, cwd=None):
    out, err = tmp_path / "out.log", tmp_path / "err.log"
    argv = [*supervisor.command(parent_watch_fd()), "--", *command]
    with open(out, "ab") as o, open(err, "ab") as e:
        return spawn.start(
            argv,
            cwd=cwd,
            env=env or {"PATH": "/usr/bin:/bin"},
            stdout=o.fileno(),
            stderr=e.fileno(),
        )


def _parent(pid: int) -> int:
    return next(p.ppid for p in procfs.processes() if p.pid == pid)


def _socket_inodes(pid: int) -> set[str]:
    found = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:"):
            found.add(target)
    return found


def test_a_forked_supervisor_keeps_the_exit_code_streams_folder_and_environment(tmp_path) -> None:
    script = (
        "import os, sys; print(os.getcwd(), os.environ['GREETING'], sorted(os.environ)); "
        "print('to stderr', file=sys.stderr); "
        "print(os.getsid(0) == os.getpgid(0), os.getppid() != 1); sys.exit(3)"
    )
    env = {"PATH": "/usr/bin:/bin", "GREETING": "hello world=1", "LANG": "C.UTF-8"}
    process = _start(tmp_path, sys.executable, "-I", "-c", script, env=env, cwd=tmp_path)
    assert isinstance(process, spawn.SupervisedProcess)  # through the server
    assert _parent(process.pid) == spawn._server.process.pid  # type: ignore[union-attr]
    assert os.getpgid(process.pid) == process.pid == os.getsid(process.pid)  # a new session
    assert process.wait(30) == 3 and process.poll() == 3
    out = (tmp_path / "out.log").read_text().splitlines()
    assert out[0] == f"{tmp_path} hello world=1 ['GREETING', 'LANG', 'PATH']"
    err = (tmp_path / "err.log").read_text()
    assert "to stderr" in err and "bot exited with code 3" in err


def test_supervisors_that_end_at_once_keep_their_exit_codes(tmp_path) -> None:
    # Their exit can be reported before the start that asked for them has its answer.
    started = [_start(tmp_path, "sh", "-c", f"exit {n}") for n in range(20)]
    assert [process.wait(30) for process in started] == list(range(20))


def test_a_supervisor_killed_by_a_signal_reports_it_as_popen_does(tmp_path) -> None:
    process = _start(tmp_path, "sleep", "30")
    with pytest.raises(subprocess.TimeoutExpired):
        process.wait(0.2)
    assert process.poll() is None
    os.killpg(process.pid, signal.SIGKILL)
    assert process.wait(30) == -signal.SIGKILL


def test_nothing_of_the_server_is_open_in_a_sandboxed_bot(tmp_path) -> None:
    require_sandbox()
    bot = LaunchedBot("plain", misbehaving_command(), log_dir=tmp_path / "bots")
    try:
        bot.start()
        server = spawn._server
        assert server is not None and bot.pid is not None
        assert _parent(bot.pid) == server.process.pid
        theirs = _socket_inodes(server.process.pid)
        tree = [bot.pid]
        for _ in range(6):  # the supervisor, bubblewrap, its init, the bot
            tree += [p.pid for p in procfs.processes() if p.ppid in tree and p.pid not in tree]
        assert len(tree) >= 3, tree
        for pid in tree:
            assert not (_socket_inodes(pid) & theirs), pid
        bot.call("Handshake", pb.HandshakeRequest(protocol_version=PROTOCOL_VERSION), 10.0)
    finally:
        bot.close()


def test_a_dead_server_takes_its_supervisors_down_and_the_next_start_gets_a_new_one(
    tmp_path,
) -> None:
    bot = LaunchedBot("mortal", misbehaving_command(), log_dir=tmp_path / "bots", sandbox="none")
    try:
        bot.start()
        server = spawn._server
        assert server is not None and bot.pid is not None
        supervisor_pid = bot.pid
        server.process.kill()
        server.process.wait(10)
        deadline = time.monotonic() + 10
        while server.alive and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not server.alive
        # Its exit could no longer be seen: killed, and said so at the next call.
        assert not os.path.exists(f"/proc/{supervisor_pid}") or _zombie_or_gone(supervisor_pid)
        handshake = pb.HandshakeRequest(protocol_version=PROTOCOL_VERSION)
        with pytest.raises(BotFault) as caught:
            bot.call("Handshake", handshake, 10.0)
        assert caught.value.kind == FaultKind.CRASH
        assert caught.value.message == "bot process killed by SIGKILL; restarted (1 of 3)"
        assert spawn._server is not None and spawn._server is not server  # a new one
        assert bot.pid != supervisor_pid
        bot.call("Handshake", handshake, 10.0)
    finally:
        bot.close()


def _zombie_or_gone(pid: int, wait_s: float = 10.0) -> bool:
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if not any(p.pid == pid and p.alive for p in procfs.processes()):
            return True
        time.sleep(0.02)
    return False


def test_without_a_server_a_start_falls_back_to_popen(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(spawn, "_server", None)
    monkeypatch.setattr(spawn, "_unavailable", "no server here (test)")
    process = _start(tmp_path, sys.executable, "-I", "-c", "raise SystemExit(5)")
    assert isinstance(process, subprocess.Popen)
    assert process.wait(30) == 5
    assert "bot exited with code 5" in (tmp_path / "err.log").read_text()


def test_a_missing_folder_fails_the_start_as_popen_would(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="No such file or directory"):
        _start(tmp_path, "true", cwd=tmp_path / "nowhere")


def test_a_nul_byte_in_a_command_fails_the_start_with_its_name(tmp_path) -> None:
    # YAML's "\0" escape can put one in a bot.yaml's run line: a fault, not a traceback.
    bot = LaunchedBot(
        "nul", ["sh", "-c", "echo a\0b {port}"], log_dir=tmp_path / "bots", sandbox="none"
    )
    with pytest.raises(BotFault) as caught:
        bot.start()
    assert caught.value.kind == FaultKind.START_FAILED
    assert caught.value.message.startswith("cannot start 'sh': ")
    assert "NUL" in caught.value.message
    bot.close()
