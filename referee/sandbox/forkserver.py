"""The supervisor fork server: one interpreter that forks a supervisor for each bot start (stdlib only).

``python -I -S supervise.py --serve SOCKET_FD PARENT_FD``, started once per
referee process by :mod:`referee.sandbox.spawn`.

Every start of a launched bot used to run the supervisor in an interpreter of
its own: about 15 ms of CPU for the interpreter's start and 6 ms more for the
supervisor's imports, of a sandboxed Go bot's 60-odd ms for a start and its
stop (``docs/performance.md``), paid four times a game with ``bot_lifetime:
game``. This server pays them once: it imports the supervisor, and for each
request forks a child that becomes exactly what the command line would have
started (a new session, the request's standard streams, folder and
environment, nothing else open but the parent pipe) and runs
:func:`referee.sandbox.supervisor.main` with the request's arguments.

It speaks over a ``SOCK_SEQPACKET`` socket (one message a datagram, fields
separated by NUL bytes) with the referee, which holds the other end:

- ``spawn ID CWD N ARG1..ARGN KEY=VALUE...`` with three file descriptors
  (``SCM_RIGHTS``: the child's stdin, stdout and stderr): answered
  ``pid ID PID`` or ``error ID MESSAGE``;
- ``exit PID CODE`` is sent when a child ends (CODE as ``Popen.returncode``
  gives it: the exit code, or minus the signal). The child is *not* reaped
  then (``WNOWAIT``), so that its pid cannot go to another process while the
  referee may still signal it, until the referee answers ``reap PID``.

It exits when the referee closes its end of the socket, or when the pipe of
``PARENT_FD`` (whose write end only the referee holds) reads end-of-file: the
referee died. Its children go on without it: each supervisor watches that pipe
itself and takes its bot down, as before, when the referee is gone.
"""

from __future__ import annotations

import _signal
import os
import select
import socket
import sys

from referee.sandbox import supervisor
from referee.sandbox.cgroups import suppress

#: The file descriptors that come with a ``spawn`` request: stdin, stdout, stderr.
STREAMS = 3
#: The largest message either side sends (a bubblewrap command line is 5-10 KiB);
#: within the default socket buffer (208 KiB), so that one always fits.
MAX_MESSAGE = 192 << 10


def encode(*fields: str) -> bytes:
    """One message: its fields joined by NUL bytes (no field may hold one)."""
    for field in fields:
        if "\0" in field:
            raise ValueError(f"a NUL byte in {field[:40]!r}")
    return "\0".join(fields).encode("utf-8", "surrogateescape")


def decode(message: bytes) -> list[str]:
    return message.decode("utf-8", "surrogateescape").split("\0")


def _return_code(info: os.waitid_result) -> int:
    if info.si_code == os.CLD_EXITED:
        return info.si_status
    return -info.si_status  # killed, or killed with a core dump


def _become_supervisor(fields: list[str], streams: list[int], keep: int) -> None:
    """In the forked child: be what ``Popen(argv, cwd, env, start_new_session=True)`` starts.

    Nothing of the server stays open but the parent pipe ``keep``: not its socket
    (a supervisor could otherwise spawn), nor its wake-up pipe.
    """
    code = 127
    try:
        _signal.set_wakeup_fd(-1)
        # As a new interpreter has them (the server ignores SIGTERM and SIGINT).
        _signal.signal(_signal.SIGCHLD, _signal.SIG_DFL)
        _signal.signal(_signal.SIGTERM, _signal.SIG_DFL)
        _signal.signal(_signal.SIGINT, _signal.default_int_handler)
        os.setsid()
        for target, fd in enumerate(streams):
            os.dup2(fd, target)
        for fd in streams:
            if fd > 2:
                os.close(fd)
        os.closerange(3, keep)
        os.closerange(keep + 1, os.sysconf("SC_OPEN_MAX"))
        cwd, count = fields[2], int(fields[3])
        argv, env = fields[4 : 4 + count], fields[4 + count :]
        if cwd:
            os.chdir(cwd)
        os.environ.clear()
        os.environ.update(item.split("=", 1) for item in env)  # type: ignore[misc]
        code = supervisor.main(argv)
    except BaseException as error:  # anything at all: the child must never return to the loop
        supervisor._say(f"the supervisor could not start: {error!r}")
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


class _Server:
    def __init__(self, sock: socket.socket, parent_fd: int) -> None:
        self.sock = sock
        self.parent_fd = parent_fd
        self.running: set[int] = set()  # children not yet reported
        self.exited: set[int] = set()  # reported, waiting for the referee's reap
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        os.set_blocking(parent_fd, False)
        # SIGCHLD writes a byte to the wake-up pipe, so select sees an exit at once.
        _signal.set_wakeup_fd(self.wake_w)
        _signal.signal(_signal.SIGCHLD, lambda *_: None)
        _signal.signal(_signal.SIGTERM, _signal.SIG_IGN)  # ends with the referee, not on its own
        _signal.signal(_signal.SIGINT, _signal.SIG_IGN)

    def send(self, *fields: str) -> None:
        with suppress(OSError):  # the referee is gone: the loop sees it next
            self.sock.send(encode(*fields))

    def spawn(self, fields: list[str], streams: list[int]) -> None:
        request = fields[1] if len(fields) > 1 else ""
        try:
            if len(streams) != STREAMS or len(fields) < 4:
                raise ValueError(f"a spawn needs {STREAMS} streams and a command")
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
        except (OSError, ValueError) as error:
            for fd in streams:
                os.close(fd)
            self.send("error", request, str(error))
            return
        if pid == 0:
            _become_supervisor(fields, streams, self.parent_fd)
        for fd in streams:
            os.close(fd)
        self.running.add(pid)
        self.send("pid", request, str(pid))

    def report_exits(self) -> None:
        for pid in sorted(self.running):
            try:
                info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:  # not ours to wait for (never seen): gone, as if killed
                self.running.discard(pid)
                self.send("exit", str(pid), "-9")
                continue
            if info is None:
                continue
            self.running.discard(pid)
            self.exited.add(pid)
            self.send("exit", str(pid), str(_return_code(info)))

    def reap(self, pid: int) -> None:
        if pid in self.exited:
            self.exited.discard(pid)
            with suppress(ChildProcessError):
                os.waitpid(pid, 0)

    def handle(self) -> bool:
        """Read one message; False once the referee closed its end."""
        try:
            message, ancdata, flags, _addr = self.sock.recvmsg(
                MAX_MESSAGE, socket.CMSG_SPACE(STREAMS * 4)
            )
        except (BlockingIOError, InterruptedError):
            return True
        except OSError:
            return False
        streams: list[int] = []
        for level, kind, data in ancdata:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                usable = len(data) - len(data) % 4
                streams += [
                    int.from_bytes(data[i : i + 4], sys.byteorder) for i in range(0, usable, 4)
                ]
        if not message and not streams:
            return False
        fields = decode(message)
        cut = bool(flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC))
        if fields[0] == "spawn" and not cut:
            self.spawn(fields, streams)
            return True
        for fd in streams:  # only a whole spawn request brings streams
            os.close(fd)
        if cut:
            if fields[0] == "spawn" and len(fields) > 1:
                self.send("error", fields[1], f"a request over {MAX_MESSAGE} bytes")
            return True
        if fields[0] == "reap" and len(fields) == 2 and fields[1].isdigit():
            self.reap(int(fields[1]))
        return True

    def run(self) -> int:
        while True:
            self.report_exits()
            try:
                ready = select.select([self.sock, self.parent_fd, self.wake_r], [], [])[0]
            except InterruptedError:
                continue
            if self.wake_r in ready:
                with suppress(OSError):  # BlockingIOError: drained
                    while os.read(self.wake_r, 512):
                        pass
            if self.parent_fd in ready and supervisor._parent_gone(self.parent_fd):
                return 0
            if self.sock in ready and not self.handle():
                return 0


def serve(argv: list[str]) -> int:
    """Serve spawn requests on the socket ``argv[0]`` until the referee closes it or dies."""
    if len(argv) != 2 or not all(a.isdigit() for a in argv):
        supervisor._say("usage: supervise.py --serve SOCKET_FD PARENT_FD")
        return 2
    sock = socket.socket(fileno=int(argv[0]))
    return _Server(sock, int(argv[1])).run()
