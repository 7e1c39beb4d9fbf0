"""Bots the referee launches as processes: start, watch, restart, always stop.

Each bot runs under the supervisor :mod:`referee.sandbox.supervisor` in a process group
of its own, with a scrubbed environment and its stdout and stderr appended to
files of its own. By default (``sandbox="bwrap"``) the supervisor runs it in a
bubblewrap sandbox (:mod:`referee.sandbox.bwrap`) with no network, serving gRPC on a
Unix socket (``{address}``/``{socket}`` in its command); with
``sandbox="none"`` it runs on the host, and may serve on a TCP port
(``{port}``). The referee waits for the health service to say SERVING (with a
start-up deadline), shakes hands, and from then on treats it as any gRPC bot.
A bot that dies is restarted on a fresh socket or port, within a restart
budget. Each start gets a socket folder of its own, removed when that start
ends; what the bot writes there is on a tmpfs, charged to its memory cgroup.

A bot runs only while it is asked (:class:`CpuMode`): once it uses the CPU
between its calls (:mod:`referee.sandbox.freezer` watches its cgroup's CPU
time), its cgroup is frozen whenever the referee is not waiting for one of its
answers, and thawed for each call, so that it cannot use the CPU while its
opponents think; a bot idle between its calls is left running. Where its
process serves several games at once, or the machine has no cgroup freezer,
it gets a CPU quota instead (:func:`cpu_mode`); ``limits.ponder`` lets it run
all the time. Every bot that was started is stopped when the referee is done
(:func:`stop_all` runs at exit too); and the supervisor takes the bot down by
itself the moment the referee's process ends, however it ends.
"""

from __future__ import annotations

import atexit
import contextlib
import enum
import itertools
import logging
import os
import pathlib
import secrets
import shlex
import signal
import stat
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from referee.players.base import BotFault, BotInfo, FaultKind
from referee.players.commands import PLACEHOLDERS, command_folder, expand_command, free_port
from referee.players.remote import BotConnection, Connection
from referee.safetext import printable
from referee.sandbox import bwrap, cgroups, freezer, safepath, spawn, supervisor

__all__ = [
    "FALLBACK_CPU_PERCENT",
    "CpuMode",
    "LaunchedBot",
    "ResourceLimits",
    "cpu_mode",
    "cpu_warning",
    "parent_watch_fd",
    "remove_cgroup",
    "stop_all",
]

log = logging.getLogger(__name__)

_RUNNING: weakref.WeakSet[LaunchedBot] = weakref.WeakSet()
#: Variables a bot gets from the referee's environment; nothing else passes.
_PASSED_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "PYTHONPATH", "JAVA_HOME")
#: What a sandboxed bot gets instead (HOME and TMPDIR are its private tmpfs).
_SANDBOX_ENV = ("LANG", "LC_ALL", "TZ", "JAVA_HOME")

ResourceLimits = Mapping[str, int]

# Statuses a client sees when the server's process dies mid-call.
_BROKEN_STREAM = {"UNAVAILABLE", "INTERNAL", "UNKNOWN", "CANCELLED"}

# The supervisor's exit codes when it stopped a bot at a limit.
_LIMIT_EXITS = {
    supervisor.EXIT_MEMORY_LIMIT: FaultKind.MEMORY_LIMIT,
    supervisor.EXIT_CPU_LIMIT: FaultKind.CPU_LIMIT,
    supervisor.EXIT_PROCESS_LIMIT: FaultKind.PROCESS_LIMIT,
}
_numbers = itertools.count(1)
_warned: set[str] = set()

#: The CPU quota of a bot that cannot be frozen, when the organiser set no ``cpu_percent``:
#: one core, so that a bot spinning on every core leaves the others the rest of the machine.
FALLBACK_CPU_PERCENT = 100

#: How long a call that failed UNAVAILABLE (or on a reset stream) waits for the process
#: to be seen dead, so that its fault is the crash, not ``unavailable``: its supervisor
#: kills, drains and removes the cgroups first, which took over 0.5 s at a load of 20.
#: A dying bot is seen within 10 ms of its end; only a live one answering so waits it all.
DEATH_WAIT_S = 2.0

#: How long a new start that is frozen from its handshake on (a bot caught using CPU
#: between its calls in an earlier start) runs, thawed, before its first call is sent.
#: A gRPC C-core server frozen while a thread still works on its handshake's answer
#: keeps the clock it read then: its first call after a long freeze (the tablemates
#: starting on a loaded machine) got a deadline already past and failed with
#: DEADLINE_EXCEEDED in milliseconds (the C++ kit, 1 in ~100 starts at load 20; none in
#: 512 starts with this pause). Thawed, those threads finish and read the clock anew.
#: A start that is only watched (not frozen) needs no pause.
FIRST_CALL_SETTLE_S = 0.05


class CpuMode(enum.StrEnum):
    """How a launched bot is kept from taking CPU its opponents need."""

    #: Frozen whenever the referee is not waiting for its answer (the default).
    FREEZE = "freeze"
    #: A CPU quota (``cpu_percent``, or :data:`FALLBACK_CPU_PERCENT`): it cannot be frozen.
    QUOTA = "quota"
    #: Runs all the time, within ``cpu_percent`` if set (``limits.ponder: true``).
    PONDER = "ponder"


def cpu_mode(limits: Mapping[str, Any], *, shared: bool = False) -> tuple[CpuMode, str]:
    """The CPU mode of bots with ``limits`` on this machine, and why, if it is not freezing.

    ``shared``: one bot process serves several games at once (``bot_processes:
    shared`` or ``per_table`` with a concurrency above 1), so that it may be
    asked by one game while another's opponents think: freezing cannot isolate it.
    """
    if limits.get("ponder"):
        return CpuMode.PONDER, ""
    if shared:
        return CpuMode.QUOTA, (
            "one bot process serves several games at once "
            "(bot_processes: shared or per_table, with a concurrency above 1)"
        )
    missing = cgroups.freezer_support()
    if missing:
        return CpuMode.QUOTA, f"no cgroup freezer here ({missing})"
    return CpuMode.FREEZE, ""


def cpu_warning(limits: Mapping[str, Any], *, shared: bool = False) -> str:
    """The journal's warning when launched bots with ``limits`` cannot be frozen here, or ''."""
    mode, why = cpu_mode(limits, shared=shared)
    if mode != CpuMode.QUOTA:
        return ""
    percent = limits.get("cpu_percent") or FALLBACK_CPU_PERCENT
    enforced = "" if not cgroups.cgroup_support() else " (not enforced: no cgroups)"
    return (
        f"bots are not frozen between their calls: {why}; each gets a CPU quota of "
        f"{percent}% of a core instead{enforced}, so a bot can still use CPU while its "
        "opponents think"
    )


_watch_lock = threading.Lock()
_watch: tuple[int, int, int] | None = None  # (pid, read end, write end)


def parent_watch_fd() -> int:
    """The read end of a pipe whose write end only this process holds.

    A supervisor given it reads end-of-file the moment this process ends,
    however it ends. The write end is never inherited (it is not passed to any
    child), so no other process keeps the pipe open.
    """
    global _watch
    with _watch_lock:
        if _watch is None or _watch[0] != os.getpid():  # new after a fork
            read, write = os.pipe()  # both close-on-exec (PEP 446)
            _watch = (os.getpid(), read, write)
        return _watch[1]


class LaunchedBot(Connection):
    """A bot process started from a command line with a ``{address}`` (or ``{port}``) placeholder.

    ``sandbox`` is ``"bwrap"`` (the default: see :mod:`referee.sandbox.bwrap`) or
    ``"none"``; ``folder`` is the bot's folder (a sandboxed bot sees it
    read-only; for a bare command, the folder of its script), ``hidden`` are
    folders the bot must not see even inside its own (the output folder).
    """

    #: Requests go on to the process's :class:`BotConnection` as they are, bytes too.
    takes_bytes = True

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
        sandbox: str = "bwrap",
        folder: str | os.PathLike[str] | None = None,
        hidden: Sequence[str | os.PathLike[str]] = (),
        shared: bool = False,
    ) -> None:
        text = command if isinstance(command, str) else " ".join(command)
        if not any(p in text for p in PLACEHOLDERS):
            raise ValueError(
                f"bot {name!r}: the command must contain {{address}} (or {{socket}}, or "
                f"{{port}} without a sandbox): {command!r}"
            )
        if sandbox not in bwrap.SANDBOX_KINDS:
            raise ValueError(f"bot {name!r}: sandbox must be one of {bwrap.SANDBOX_KINDS}")
        if sandbox == "bwrap" and "{port}" in text:
            raise ValueError(
                f"bot {name!r}: a sandboxed bot has no network: serve on {{address}} "
                "(a Unix socket, e.g. --address {address}) instead of {port}, "
                "or set `sandbox: none` for a bot you trust"
            )
        self.name = name
        self.sandbox = sandbox
        self.folder = pathlib.Path(folder) if folder else None
        self.hidden = list(hidden)
        self._tcp = "{port}" in text
        self.command = command
        self.cwd = pathlib.Path(cwd) if cwd else None
        self.log_dir = pathlib.Path(log_dir)
        self.startup_timeout_s = startup_timeout_s
        self.handshake_timeout_s = handshake_timeout_s
        self.max_restarts = max_restarts
        self.max_message_bytes = max_message_bytes
        self.limits = dict(limits or {})
        #: How the bot is kept off the CPU while its opponents think (see :class:`CpuMode`).
        self.cpu_mode, why = cpu_mode(self.limits, shared=shared)
        if self.cpu_mode == CpuMode.QUOTA:
            self.limits["cpu_percent"] = self.limits.get("cpu_percent") or FALLBACK_CPU_PERCENT
            if why not in _warned:  # once per process (a Ray node's worker, say)
                _warned.add(why)
                log.warning("launched bots get a CPU quota, not frozen between calls: %s", why)
        self.extra_env = dict(env or {})
        self.info = BotInfo(name=name)
        self.restarts = 0
        self.starts = 0
        self._lock = threading.Lock()
        self._proc: spawn.Process | None = None
        self._conn: BotConnection | None = None
        self._generation = 0
        self._dead_reason: str | None = None
        self._closed = False
        self._socket_dir: pathlib.Path | None = None
        self._home: pathlib.Path | None = None
        self._pinned: pathlib.Path | None = None
        self._cgroup = ""
        # The freezer of the running start, and the calls in flight (frozen at zero).
        self._gate = threading.Lock()
        self._freezer: freezer.Freezer | None = None
        # The start whose first call has had its FIRST_CALL_SETTLE_S.
        self._settled_generation = 0
        # This start was frozen right after its handshake (caught in an earlier start):
        # its first call waits FIRST_CALL_SETTLE_S, thawed. A watched start is not frozen.
        self._frozen_since_start = False
        self._asked = 0
        #: Why the bot is frozen between its calls (it used CPU there), or '' while it is not:
        #: once caught, every later start of it is frozen from the start.
        self.frozen_because = ""

    # Life cycle ---------------------------------------------------------------

    @property
    def address(self) -> str | None:
        """``unix:/path`` or ``127.0.0.1:PORT`` of the running process, or None."""
        conn = self._conn
        return conn.address if conn else None

    @property
    def runs_only_when_asked(self) -> bool:  # type: ignore[override]
        """True when the bot is frozen between its calls now (see :class:`CpuMode`)."""
        found = self._freezer
        return found is not None and found.freezing

    @property
    def running_freezer(self) -> freezer.Freezer | None:
        """The freezer of the running start (its CPU credit, whether it is frozen), or None."""
        return self._freezer

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
        if self.sandbox == "bwrap":
            env = {k: os.environ[k] for k in _SANDBOX_ENV if k in os.environ}
            python_bin = str(pathlib.Path(sys.executable).parent)
            env["PATH"] = f"/usr/local/bin:/usr/bin:/bin:{python_bin}"
        else:
            env = {k: os.environ[k] for k in _PASSED_ENV if k in os.environ}
            env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
            if self._home is not None:
                # A fresh HOME and TMPDIR per process, as a sandboxed bot's tmpfs: what one
                # process leaves there, the next does not find (a trusted bot could still
                # write elsewhere).
                env["HOME"] = env["TMPDIR"] = str(self._home)
        env.setdefault("LANG", "C.UTF-8")
        env["PYTHONUNBUFFERED"] = "1"
        env.update(self.extra_env)
        return env

    def _where(self) -> tuple[int | None, pathlib.Path | None]:
        """A fresh TCP port, or a fresh socket path in a folder of its own."""
        if self._tcp:
            return free_port(), None
        # A folder per start: what one start wrote there (it is the bot's to write, on a
        # tmpfs) never carries over to the next; the supervisor removes it when the start
        # ends. A random name: a bot must not be able to guess where the others' sockets are.
        self._remove_socket_dir()
        self._socket_dir = bwrap.runtime_dir() / f"b{secrets.token_hex(6)}"
        self._socket_dir.mkdir(mode=0o700)
        return None, self._socket_dir / "bot.sock"

    def _remove_socket_dir(self) -> None:
        if self._socket_dir is not None:
            with contextlib.suppress(OSError):  # the bot wrote it: never follows its links
                safepath.remove(self._socket_dir, ignore_errors=True)
            self._socket_dir = None

    def _pin_socket(self, path: pathlib.Path, alive: Any) -> pathlib.Path:
        """A hard link, where only the referee can see it, to the socket the bot made at ``path``.

        The bot can write its socket's folder: it could replace the socket with a
        symbolic link to another bot's, which the referee, outside the sandbox, would
        follow. So the referee waits for a real socket at ``path`` and from then on
        connects through a link of its own to that very inode.
        """
        deadline = time.monotonic() + self.startup_timeout_s
        while True:
            try:
                mode = path.lstat().st_mode
                break
            except FileNotFoundError:
                pass
            if not alive():
                raise BotFault(FaultKind.START_FAILED, "the bot process exited while starting")
            if time.monotonic() > deadline:
                raise BotFault(
                    FaultKind.START_FAILED,
                    f"not serving at unix:{path} after {self.startup_timeout_s:.1f} s "
                    "(no socket there)",
                )
            time.sleep(0.02)
        if not stat.S_ISSOCK(mode):
            kind = "a symbolic link" if stat.S_ISLNK(mode) else "not a socket"
            raise BotFault(
                FaultKind.START_FAILED,
                f"{path} is {kind}: a bot must serve on a socket of its own at {{address}}",
            )
        if self._pinned is not None:  # a dead predecessor's
            with contextlib.suppress(OSError):
                self._pinned.unlink()
        pinned = bwrap.runtime_dir() / "pins" / f"{path.parent.name}-{self.starts}.sock"
        pinned.parent.mkdir(mode=0o700, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            pinned.unlink()
        os.link(path, pinned, follow_symlinks=False)
        if not stat.S_ISSOCK(pinned.lstat().st_mode):  # swapped between the check and the link
            pinned.unlink()
            raise BotFault(FaultKind.START_FAILED, f"{path} changed while the referee looked")
        self._pinned = pinned
        return pinned

    def _argv(self, args: list[str]) -> list[str]:
        """The supervisor's command line around the bot's ``args``."""
        argv = supervisor.command(parent_watch_fd())
        # Its own cgroups where the machine allows; else the supervisor measures by polling.
        self._cgroup = f"r{os.getpid()}-{next(_numbers)}" if not cgroups.cgroup_support() else ""
        if self._cgroup:
            argv += ["--cgroup", self._cgroup]
        if self._socket_dir is not None and not self._tcp:
            argv += ["--scratch", str(self._socket_dir)]
        limits = dict(self.limits)
        if self._cgroup:
            # The CPU quota is set once the bot serves (_cap_cpu), not from its first
            # instruction: a start under a small quota was slow past any startup timeout
            # on some kernels (a Python gRPC bot under 5%: 141 s, against 0.3 s unquoted,
            # measured), and a start is bounded by the startup timeout anyway.
            limits.pop("cpu_percent", None)
        if limits:
            argv += ["--limits", supervisor.encode_limits(limits)]
        if self.sandbox == "none":
            return [*argv, "--", *args]
        bwrap.check_sandbox()
        folder = self.folder or command_folder(args, self.cwd)
        cwd = self.cwd or pathlib.Path.cwd()
        # Relative paths in the command are made absolute, the sandbox starting in the bot's
        # folder; never through symbolic links (a venv's python is a link to the base one).
        args = [
            os.path.normpath(cwd / a)
            if not os.path.isabs(a) and "/" in a and not a.startswith("-") and (cwd / a).is_file()
            else a
            for a in args
        ]
        inner = bwrap.bot_command(
            args,
            folder=folder,
            socket_dir=self._socket_dir if not self._tcp else None,
            disk_bytes=int(self.limits.get("disk_bytes") or 0),
            env=self._env(),
            hidden=self.hidden,
        )
        return [*argv, "--", *inner]

    def _start_locked(self) -> None:
        if self._closed:
            raise BotFault(FaultKind.CRASH, f"bot {self.name!r} has been stopped")
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self._stop_freezer()  # a dead predecessor's
        port, socket_path = self._where()
        if self.sandbox == "none":
            self._remove_home()
            self._home = bwrap.runtime_dir() / f"h{next(_numbers)}"
            self._home.mkdir(mode=0o700)
        args = expand_command(self.command, port, socket_path=socket_path)
        try:
            argv = self._argv(args)
        except (bwrap.SandboxUnavailable, ValueError) as error:
            raise BotFault(FaultKind.START_FAILED, str(error)) from None
        self.starts += 1
        header = f"--- referee: start {self.starts} of {self.name}: {shlex.join(args)}\n"
        with open(self.stdout_path, "ab") as out, open(self.stderr_path, "ab") as err:
            out.write(header.encode())
            err.write(header.encode())
            out.flush()
            err.flush()
            try:
                # Forked by the fork server where it runs: the same supervisor, without
                # an interpreter's start (docs/performance.md).
                self._proc = spawn.start(
                    argv, cwd=self.cwd, env=self._env(), stdout=out.fileno(), stderr=err.fileno()
                )
            except (OSError, ValueError) as error:  # ValueError: a NUL byte in the command
                raise BotFault(
                    FaultKind.START_FAILED, f"cannot start {args[0]!r}: {error}"
                ) from None
        _RUNNING.add(self)
        self._generation += 1
        started = time.monotonic()
        alive = lambda: self._proc.poll() is None  # noqa: E731
        try:
            if port is not None:
                address = f"127.0.0.1:{port}"
            else:
                assert socket_path is not None
                address = f"unix:{self._pin_socket(socket_path, alive)}"
        except BotFault as fault:
            self._stop_process()
            raise BotFault(fault.kind, f"{fault.message}{self._stderr_tail()}") from None
        conn = BotConnection(address, max_message_bytes=self.max_message_bytes)
        try:
            left = self.startup_timeout_s - (time.monotonic() - started)
            conn.wait_serving(max(left, 0.1), alive=alive)
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
        self._cap_cpu()
        self._start_freezer()
        log.info("bot %s serving on %s (pid %d)", self.name, address, self._proc.pid)

    # Freezing ----------------------------------------------------------------------

    def _cap_cpu(self) -> None:
        """Hold the new start to its ``cpu_percent`` from now on (see :meth:`_argv`)."""
        percent = int(self.limits.get("cpu_percent") or 0)
        if not percent or not self._cgroup:
            return
        group = cgroups.Cgroup.named(self._cgroup)
        if group is None or not group.cap_cpu(percent):
            log.warning("bot %s: its CPU quota of %d%% could not be set", self.name, percent)

    def _start_freezer(self) -> None:
        """Watch (or, if it was caught before, freeze) the new start until it is asked."""
        if self.cpu_mode != CpuMode.FREEZE:
            return
        found = None
        if self._cgroup:
            found = freezer.Freezer.of(self._cgroup, freezing=bool(self.frozen_because))
        if found is None:
            log.warning("bot %s: its cgroup has no freezer; it runs between its calls", self.name)
        with self._gate:
            self._freezer = found
            self._frozen_since_start = found is not None and bool(self.frozen_because)
            if found is not None and self._asked == 0:
                found.answered()  # frozen, or its CPU watched from now on

    def _caught(self, used_ns: int, calls: int) -> None:
        """Report a bot that used CPU between its calls: frozen between them from now on."""
        self.frozen_because = (
            f"it used {used_ns / 1e6:.1f} ms of CPU between its calls "
            f"{calls - 1} and {calls} of start {self.starts}, past its credit"
        )
        log.warning(
            "bot %s: %s; frozen between its calls from now on", self.name, self.frozen_because
        )
        with contextlib.suppress(OSError), open(self.stderr_path, "a") as err:
            err.write(f"--- referee: {self.frozen_because}; frozen between its calls from now on\n")

    def freeze_between_calls(self, reason: str) -> None:
        """Freeze the bot between its calls from now on, for good, as if caught: ``reason`` why.

        For measuring what freezing costs (``bench/freezing.py``); a bot that cannot be
        frozen (another :class:`CpuMode`, no freezer) is left as it is.
        """
        with self._gate:
            found = self._freezer
            if self.cpu_mode != CpuMode.FREEZE or found is None:
                return
            self.frozen_because = reason
            found.freezing = True
            if self._asked == 0:
                found.freeze()

    def _stop_freezer(self) -> None:
        """Thaw for good: a frozen process cannot handle SIGTERM (nor, in cgroup v1, die)."""
        with self._gate:
            freezer, self._freezer = self._freezer, None
        if freezer is not None:
            freezer.close()

    @contextlib.contextmanager
    def thawed(self) -> Iterator[None]:
        """The bot runs inside this block (and while any other call waits for it)."""
        self._thaw_for_call()
        try:
            yield
        finally:
            self._call_answered()

    def _thaw_for_call(self) -> None:
        """A call starts: thaw the bot (or measure its last period between calls).

        Plain methods rather than :meth:`thawed` on the path of every call: its
        generator context manager was part of the 15-25 µs of bookkeeping around
        each call (``docs/performance.md``).
        """
        used = 0
        with self._gate:
            self._asked += 1
            found = self._freezer
            if self._asked == 1 and found is not None:
                used = found.asked()
        if used:
            self._caught(used, found.calls if found is not None else 0)

    def _call_answered(self) -> None:
        """A call's answer (or its deadline) is in: freeze the bot if no other call waits."""
        with self._gate:
            self._asked -= 1
            if self._asked == 0 and self._freezer is not None:
                self._freezer.answered()

    def _stderr_tail(self, lines: int = 5) -> str:
        try:
            text = self.stderr_path.read_bytes()[-4000:].decode(errors="replace")
        except OSError:
            return ""
        # The bot wrote it: shown only made printable (no escapes, newlines or bidi tricks).
        tail = [printable(line, 200) for line in text.splitlines() if line.strip()][-lines:]
        return ("; stderr ends: " + " | ".join(tail)) if tail else ""

    def exit_description(self) -> str:
        """How the process ended, from the sandbox's exit code."""
        code = self._proc.poll() if self._proc else None
        if code is None:
            return "still running"
        if code in _LIMIT_EXITS:
            return f"stopped at its {_LIMIT_EXITS[code].replace('_', ' ')}"
        # 128 + the signal: the supervisor's word for its bot; minus it: the supervisor's
        # own death (killed, or its fork server gone).
        if code > 128 or code < 0:
            with contextlib.suppress(ValueError):
                return f"killed by {signal.Signals(abs(code) % 128).name}"
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
        # A waitpid before each call, though a dead bot's call would fail on its own: a
        # bot on a TCP port (sandbox: none) that died may have left its port to another
        # process, which the call would reach as if it were the bot (the takeover attack
        # of tests/fairplay/test_attacks.py, without a sandbox).
        if proc.poll() is not None:
            raise self._handle_death(generation)
        self._thaw_for_call()
        try:
            if self._settled_generation != generation:  # the first call of this start
                self._settled_generation = generation
                if self._frozen_since_start:  # only a start frozen since its handshake
                    time.sleep(FIRST_CALL_SETTLE_S)
            return self._call(conn, generation, proc, rpc, request, timeout_s)
        finally:
            self._call_answered()

    def _call(
        self,
        conn: BotConnection,
        generation: int,
        proc: spawn.Process,
        rpc: str,
        request: Any,
        timeout_s: float,
    ) -> Any:
        try:
            return conn.call(rpc, request, timeout_s)
        except BotFault as fault:
            if proc.poll() is not None:
                raise self._handle_death(generation) from None
            if fault.kind == FaultKind.UNAVAILABLE or fault.status in _BROKEN_STREAM:
                # A dying process shows as UNAVAILABLE or a reset stream before
                # it can be reaped (its supervisor first takes down its sandbox and
                # cgroup): give it a moment, so that the fault names the real cause.
                deadline = time.monotonic() + DEATH_WAIT_S
                while time.monotonic() < deadline:
                    time.sleep(0.01)
                    if proc.poll() is not None:
                        raise self._handle_death(generation) from None
            raise

    def _stop_process(self, grace_s: float = 2.0) -> None:
        proc = self._proc
        if proc is None:
            return
        self._stop_freezer()
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
        remove_cgroup(self._cgroup)

    def close(self) -> None:
        """Stop the bot and everything it started."""
        with self._lock:
            self._closed = True
            if self._conn:
                self._conn.close()
                self._conn = None
            self._stop_process()
            self._remove_socket_dir()
            if self._pinned is not None:
                with contextlib.suppress(OSError):
                    self._pinned.unlink()
            self._remove_home()
        _RUNNING.discard(self)

    def _remove_home(self) -> None:
        if self._home is not None:
            with contextlib.suppress(OSError):  # the bot wrote it: never follows its links
                safepath.remove(self._home, ignore_errors=True)
            self._home = None


def remove_cgroup(name: str) -> None:
    """Kill what is left in the cgroups named ``name`` (a bot's, a build's) and remove them.

    For when their supervisor could not (it was killed); no name, or no cgroups here: nothing.
    """
    if not name:
        return
    found = cgroups.Cgroup.parents()
    if found is None:
        return
    version, parents = found
    group = cgroups.Cgroup(version, {c: os.path.join(p, name) for c, p in parents.items()})
    if any(os.path.isdir(f) for f in group.folders.values()):
        group.kill_all()
        group.remove()


def stop_all() -> None:
    """Stop every launched bot that is still running (also called at exit)."""
    for bot in list(_RUNNING):
        with contextlib.suppress(Exception):
            bot.close()


atexit.register(stop_all)
