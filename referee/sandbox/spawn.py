"""Starting supervisors through the fork server (:mod:`referee.sandbox.forkserver`).

:func:`start` takes the supervisor's command line, as
:func:`referee.sandbox.supervisor.command` writes it, and returns a process
handle with what the launcher uses of ``subprocess.Popen``: ``pid``,
``poll()``, ``wait(timeout)`` and ``returncode``. The supervisor it starts is
the same program, with the same arguments, standard streams, folder,
environment and session; only its interpreter's start and imports, about 20 ms
of CPU a start, are paid once per referee process rather than once per start.

The server is started on the first request of each process (a forked game
worker starts its own) and lives as long as the process: it exits when the
process ends, however it ends. Where it cannot be started, or dies, a start
falls back to ``subprocess.Popen`` of the same command line, so a start never
fails for want of it. A supervisor whose server died is killed (its whole
group) and reported as killed by SIGKILL: its exit could no longer be seen.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import logging
import os
import signal
import socket
import subprocess
import threading
from collections.abc import Mapping, Sequence

from referee.sandbox import forkserver, supervisor

log = logging.getLogger(__name__)

#: How long a start waits for the server's answer before it falls back to Popen.
ANSWER_TIMEOUT_S = 10.0


class SupervisedProcess:
    """A supervisor forked by the server: the part of ``Popen``'s interface the launcher uses."""

    def __init__(self, args: Sequence[str], pid: int) -> None:
        self.args = list(args)
        self.pid = pid
        self.returncode: int | None = None
        self._ended = threading.Event()

    def _exited(self, code: int) -> None:
        self.returncode = code
        self._ended.set()

    def poll(self) -> int | None:
        """The exit code (minus the signal that killed it), or None while it runs."""
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the exit; ``subprocess.TimeoutExpired`` after ``timeout`` seconds."""
        if not self._ended.wait(timeout):
            raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        assert self.returncode is not None
        return self.returncode


#: What :func:`start` returns.
Process = SupervisedProcess | subprocess.Popen[bytes]


class _Unavailable(Exception):
    """The server could not be started, or is gone: start with Popen instead."""


class ForkServer:
    """One running fork server and the supervisors it forked for this process."""

    def __init__(self, parent_fd: int) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.owner = os.getpid()
        self._sock = ours
        self._numbers = itertools.count(1)
        self._send_lock = threading.Lock()
        self._lock = threading.Lock()
        self._answers: dict[str, list[str]] = {}
        self._answered = threading.Condition(self._lock)
        self._running: dict[int, SupervisedProcess] = {}  # by pid, until their exit
        self._started: dict[str, SupervisedProcess] = {}  # by request, until start() takes it
        self._gone = False
        try:
            self.process = subprocess.Popen(
                [*supervisor.interpreter(), "--serve", str(theirs.fileno()), str(parent_fd)],
                pass_fds=(theirs.fileno(), parent_fd),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                start_new_session=True,  # Ctrl-C at the terminal is the referee's to handle
                env={"LANG": "C.UTF-8"},
            )
        except OSError as error:
            ours.close()
            raise _Unavailable(str(error)) from None
        finally:
            theirs.close()
        self._reader = threading.Thread(target=self._read, name="referee-forkserver", daemon=True)
        self._reader.start()

    def start(
        self,
        args: Sequence[str],
        *,
        cwd: str | os.PathLike[str] | None,
        env: Mapping[str, str],
        stdout: int,
        stderr: int,
    ) -> SupervisedProcess:
        """Fork a supervisor with ``args`` (what follows the script on its command line)."""
        if cwd is not None and not os.path.isdir(cwd):  # as Popen says it
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), os.fspath(cwd))
        request = str(next(self._numbers))
        fields = [
            "spawn",
            request,
            os.fspath(cwd) if cwd is not None else "",
            str(len(args)),
            *args,
            *(f"{k}={v}" for k, v in env.items()),
        ]
        message = forkserver.encode(*fields)
        if len(message) > forkserver.MAX_MESSAGE:
            raise _Unavailable(f"a command line of {len(message)} bytes is too long for it")
        with open(os.devnull, "rb") as devnull:
            streams = [devnull.fileno(), stdout, stderr]
            try:
                with self._send_lock:
                    socket.send_fds(self._sock, [message], streams)
            except OSError as error:
                raise _Unavailable(f"the fork server is gone ({error})") from None
        with self._answered:
            if not self._answered.wait_for(
                lambda: request in self._answers or self._gone, ANSWER_TIMEOUT_S
            ):
                raise _Unavailable(f"no answer from the fork server in {ANSWER_TIMEOUT_S} s")
            answer = self._answers.pop(request, None)
            # Taken with the answer: its exit may already have been reported meanwhile.
            process = self._started.pop(request, None)
        if answer is None:
            raise _Unavailable("the fork server is gone")
        if answer[0] != "pid":
            raise OSError(f"the fork server could not start the supervisor: {answer[-1]}")
        assert process is not None
        process.args = [*supervisor.interpreter(), *args]
        return process

    def _send(self, *fields: str) -> None:
        with contextlib.suppress(OSError), self._send_lock:  # gone: _read sees it
            self._sock.send(forkserver.encode(*fields))

    def _read(self) -> None:
        while True:
            try:
                message = self._sock.recv(4096)  # its answers are a few bytes
            except OSError:
                message = b""
            if not message:
                self._lost()
                return
            fields = forkserver.decode(message)
            if fields[0] in ("pid", "error") and len(fields) == 3:
                with self._answered:
                    if fields[0] == "pid":
                        # Known before its exit can be reported: the server answers first.
                        pid = int(fields[2])
                        process = SupervisedProcess([], pid)
                        self._running[pid] = self._started[fields[1]] = process
                    self._answers[fields[1]] = fields
                    self._answered.notify_all()
            elif fields[0] == "exit" and len(fields) == 3:
                pid = int(fields[1])
                with self._lock:
                    process = self._running.pop(pid, None)
                if process is not None:
                    process._exited(int(fields[2]))
                self._send("reap", str(pid))  # only now may its pid go to another process

    def _lost(self) -> None:
        """The server died (or this process is closing it): no exit can be seen any more."""
        with self._answered:
            self._gone = True
            running, self._running = self._running, {}
            self._answered.notify_all()
        for process in running.values():
            with contextlib.suppress(OSError):
                os.killpg(process.pid, signal.SIGKILL)
            process._exited(-signal.SIGKILL)
        if running:
            log.warning(
                "the supervisor fork server ended with %d supervisor(s) running: killed",
                len(running),
            )

    @property
    def alive(self) -> bool:
        return not self._gone and self.owner == os.getpid()


_server: ForkServer | None = None
_server_lock = threading.Lock()
_unavailable = ""  # why the server could not be started in this process


def _get_server(parent_fd: int) -> ForkServer | None:
    global _server, _unavailable
    with _server_lock:
        if _server is not None and _server.alive:
            return _server
        if _server is not None and _server.owner == os.getpid():
            _server.process.poll()  # a dead server: reaped, not left a zombie
        if _server is not None and _server.owner != os.getpid():
            _server, _unavailable = None, ""  # a forked child: its parent's server is not its own
        if _unavailable:
            return None
        try:
            _server = ForkServer(parent_fd)
        except _Unavailable as error:
            _unavailable = str(error)
            log.warning("no supervisor fork server (%s): supervisors start on their own", error)
            return None
        return _server


def _served_args(argv: Sequence[str]) -> tuple[list[str], int] | None:
    """The supervisor's arguments and its parent pipe, if ``argv`` starts the supervisor."""
    prefix = supervisor.interpreter()
    args = list(argv[len(prefix) :])
    if list(argv[: len(prefix)]) != prefix or args[:1] != ["--parent-fd"] or len(args) < 2:
        return None
    if not args[1].isdigit():
        return None
    return args, int(args[1])


def start(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None,
    env: Mapping[str, str],
    stdout: int,
    stderr: int,
) -> Process:
    """Start the supervisor command line ``argv`` (see :func:`referee.sandbox.supervisor.command`).

    Through the fork server when it runs, else (or for any other command line)
    as ``subprocess.Popen(argv, cwd=cwd, env=env, stdin=DEVNULL, stdout=stdout,
    stderr=stderr, start_new_session=True)`` would, passing the parent pipe.
    """
    served = _served_args(argv)
    server = _get_server(served[1]) if served else None
    if server is not None and served is not None:
        try:
            return server.start(served[0], cwd=cwd, env=env, stdout=stdout, stderr=stderr)
        except _Unavailable as error:
            log.warning("supervisor fork server: %s; starting this supervisor on its own", error)
    return subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        start_new_session=True,
        pass_fds=(served[1],) if served else (),
    )
