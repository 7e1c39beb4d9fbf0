"""Bots the referee launches as processes: start, watch, restart, always stop.

Each bot runs under :mod:`referee.sandbox` in a process group of its own, with
a scrubbed environment and its stdout and stderr appended to files of its own.
The referee waits for the health service to say SERVING (with a start-up
deadline), shakes hands, and from then on treats it as any gRPC bot. A bot
that dies is restarted on a fresh port, within a restart budget. Every bot
that was started is stopped when the referee is done (:func:`stop_all` runs
at exit too); and the sandbox kills the group by itself if the referee dies.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import pathlib
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from referee.players.base import BotFault, BotInfo, FaultKind
from referee.players.remote import BotConnection, Connection

__all__ = ["LaunchedBot", "ResourceLimits", "free_port", "stop_all"]

log = logging.getLogger(__name__)

_SANDBOX = pathlib.Path(__file__).resolve().parent.parent / "sandbox.py"
_RUNNING: weakref.WeakSet[LaunchedBot] = weakref.WeakSet()
#: Variables a bot gets from the referee's environment; nothing else passes.
_PASSED_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "PYTHONPATH", "JAVA_HOME")

ResourceLimits = Mapping[str, int]

# Statuses a client sees when the server's process dies mid-call.
_BROKEN_STREAM = {"UNAVAILABLE", "INTERNAL", "UNKNOWN", "CANCELLED"}

# The sandbox's exit codes when it stopped a bot at a limit (see referee/sandbox.py).
_LIMIT_EXITS = {
    243: FaultKind.MEMORY_LIMIT,
    244: FaultKind.CPU_LIMIT,
    245: FaultKind.PROCESS_LIMIT,
}


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def expand_command(template: str | Sequence[str], port: int) -> list[str]:
    """Split a run command and fill in ``{port}`` and ``{python}``."""
    parts = shlex.split(template) if isinstance(template, str) else list(template)
    values = {"port": str(port), "python": sys.executable}
    out = []
    for part in parts:
        for key, value in values.items():
            part = part.replace("{" + key + "}", value)
        out.append(part)
    return out


class LaunchedBot(Connection):
    """A bot process started from a command line with a ``{port}`` placeholder."""

    def __init__(
        self,
        name: str,
        command: str | Sequence[str],
        *,
        cwd: str | os.PathLike[str] | None = None,
        log_dir: str | os.PathLike[str],
        startup_timeout_s: float = 30.0,
        handshake_timeout_s: float = 5.0,
        max_restarts: int = 3,
        max_message_bytes: int = 64 * 1024,
        limits: ResourceLimits | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        if "{port}" not in (command if isinstance(command, str) else " ".join(command)):
            raise ValueError(f"bot {name!r}: the command must contain {{port}}: {command!r}")
        self.name = name
        self.command = command
        self.cwd = pathlib.Path(cwd) if cwd else None
        self.log_dir = pathlib.Path(log_dir)
        self.startup_timeout_s = startup_timeout_s
        self.handshake_timeout_s = handshake_timeout_s
        self.max_restarts = max_restarts
        self.max_message_bytes = max_message_bytes
        self.limits = dict(limits or {})
        self.extra_env = dict(env or {})
        self.info = BotInfo(name=name)
        self.restarts = 0
        self.starts = 0
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._conn: BotConnection | None = None
        self._generation = 0
        self._dead_reason: str | None = None
        self._closed = False

    # Life cycle ---------------------------------------------------------------

    @property
    def address(self) -> str | None:
        """``127.0.0.1:PORT`` of the running process, or None."""
        conn = self._conn
        return conn.address if conn else None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def stdout_path(self) -> pathlib.Path:
        return self.log_dir / f"{self.name}.stdout.log"

    @property
    def stderr_path(self) -> pathlib.Path:
        return self.log_dir / f"{self.name}.stderr.log"

    def start(self) -> BotInfo:
        """Start the process and wait until it serves and has shaken hands."""
        with self._lock:
            self._start_locked()
            return self.info

    def _env(self) -> dict[str, str]:
        env = {k: os.environ[k] for k in _PASSED_ENV if k in os.environ}
        env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
        env.setdefault("LANG", "C.UTF-8")
        env["PYTHONUNBUFFERED"] = "1"
        env.update(self.extra_env)
        return env

    def _start_locked(self) -> None:
        if self._closed:
            raise BotFault(FaultKind.CRASH, f"bot {self.name!r} has been stopped")
        self.log_dir.mkdir(parents=True, exist_ok=True)
        port = free_port()
        args = expand_command(self.command, port)
        sandbox = [sys.executable, "-I", str(_SANDBOX), "--parent", str(os.getpid())]
        if self.limits:
            sandbox += ["--limits", json.dumps(self.limits)]
        self.starts += 1
        header = f"--- referee: start {self.starts} of {self.name}: {shlex.join(args)}\n"
        with open(self.stdout_path, "ab") as out, open(self.stderr_path, "ab") as err:
            out.write(header.encode())
            err.write(header.encode())
            out.flush()
            err.flush()
            try:
                self._proc = subprocess.Popen(
                    [*sandbox, "--", *args],
                    cwd=self.cwd,
                    env=self._env(),
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    start_new_session=True,
                )
            except OSError as error:
                raise BotFault(
                    FaultKind.START_FAILED, f"cannot start {args[0]!r}: {error}"
                ) from None
        _RUNNING.add(self)
        self._generation += 1
        conn = BotConnection(f"127.0.0.1:{port}", max_message_bytes=self.max_message_bytes)
        try:
            conn.wait_serving(self.startup_timeout_s, alive=lambda: self._proc.poll() is None)
            info = conn.handshake(self.handshake_timeout_s)
        except BotFault as fault:
            conn.close()
            self._stop_process()
            tail = self._stderr_tail()
            kind = fault.kind if fault.kind == FaultKind.HANDSHAKE else FaultKind.START_FAILED
            raise BotFault(kind, f"{fault.message}{tail}") from None
        self._conn = conn
        self.info = BotInfo(
            name=self.name,
            version=info.version,
            author=info.author,
            language=info.language,
            protocol_version=info.protocol_version,
        )
        self._dead_reason = None
        log.info("bot %s serving on port %d (pid %d)", self.name, port, self._proc.pid)

    def _stderr_tail(self, lines: int = 5) -> str:
        try:
            text = self.stderr_path.read_bytes()[-4000:].decode(errors="replace")
        except OSError:
            return ""
        tail = [line for line in text.splitlines() if line.strip()][-lines:]
        return ("; stderr ends: " + " | ".join(tail)) if tail else ""

    def exit_description(self) -> str:
        """How the process ended, from the sandbox's exit code."""
        code = self._proc.poll() if self._proc else None
        if code is None:
            return "still running"
        if code in _LIMIT_EXITS:
            return f"stopped at its {_LIMIT_EXITS[code].replace('_', ' ')}"
        if code > 128:
            with contextlib.suppress(ValueError):
                return f"killed by {signal.Signals(code - 128).name}"
        return f"exited with code {code}"

    def _died_kind(self) -> str:
        """The fault kind of a dead process: a resource limit, or a plain crash."""
        code = self._proc.poll() if self._proc else None
        kind = _LIMIT_EXITS.get(code) if code is not None else None
        if kind:
            return kind
        if code == 128 + signal.SIGXCPU:
            return FaultKind.CPU_LIMIT
        if self.limits.get("address_space_bytes"):
            tail = self._stderr_tail(20).lower()
            if any(sign in tail for sign in ("memoryerror", "bad_alloc", "out of memory")):
                return FaultKind.MEMORY_LIMIT
        return FaultKind.CRASH

    def _handle_death(self, generation: int) -> BotFault:
        """Record the death of process ``generation`` and restart it if allowed."""
        with self._lock:
            if generation != self._generation:
                return BotFault(FaultKind.CRASH, "bot process died (already restarted)")
            kind = self._died_kind()
            how = self.exit_description()
            if self._conn:
                self._conn.close()
                self._conn = None
            if self._closed:
                return BotFault(kind, f"bot process {how}")
            if self.restarts >= self.max_restarts:
                self._dead_reason = (
                    f"bot process {how}; no restarts left ({self.max_restarts} used)"
                )
                return BotFault(kind, self._dead_reason)
            self.restarts += 1
            try:
                self._start_locked()
            except BotFault as fault:
                self._dead_reason = f"bot process {how}; restart failed: {fault.message}"
                return BotFault(kind, self._dead_reason)
            return BotFault(
                kind, f"bot process {how}; restarted ({self.restarts} of {self.max_restarts})"
            )

    def call(self, rpc: str, request: Any, timeout_s: float) -> Any:
        with self._lock:
            conn, generation, proc = self._conn, self._generation, self._proc
        if conn is None or proc is None:
            raise BotFault(
                FaultKind.CRASH, self._dead_reason or f"bot {self.name!r} is not running"
            )
        if proc.poll() is not None:
            raise self._handle_death(generation)
        try:
            return conn.call(rpc, request, timeout_s)
        except BotFault as fault:
            if proc.poll() is not None:
                raise self._handle_death(generation) from None
            if fault.kind == FaultKind.UNAVAILABLE or fault.status in _BROKEN_STREAM:
                # A dying process shows as UNAVAILABLE or a reset stream before
                # it can be reaped: give it a moment, so that the fault names
                # the real cause.
                for _ in range(10):
                    time.sleep(0.01)
                    if proc.poll() is not None:
                        raise self._handle_death(generation) from None
            raise

    def _stop_process(self, grace_s: float = 2.0) -> None:
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(grace_s)
        # Kill the whole group even when the sandbox is gone: a bot's child
        # that ignored SIGTERM may still be in it.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5)

    def close(self) -> None:
        """Stop the bot and everything it started."""
        with self._lock:
            self._closed = True
            if self._conn:
                self._conn.close()
                self._conn = None
            self._stop_process()
        _RUNNING.discard(self)


def stop_all() -> None:
    """Stop every launched bot that is still running (also called at exit)."""
    for bot in list(_RUNNING):
        with contextlib.suppress(Exception):
            bot.close()


atexit.register(stop_all)
