"""A build's progress while it runs: the elapsed time and the last line of its output.

A bot's build can be long and quiet (a cold Go or Rust build fetches and
compiles for a minute or more). :func:`wait_build` waits for the build's
process as :meth:`subprocess.Popen.wait` would, and once a second hands
``on_progress`` the bot's name, the seconds since the build started and the
last line the build wrote to its log. :class:`BuildProgress` is what the
commands (``referee check-bot``, ``match``, ``tournament``) give it: a status
line on stderr, rewritten in place on a terminal, and elsewhere (a CI log, a
pipe) a line once a build has run :data:`QUIET_FIRST_S` seconds and then
every :data:`QUIET_EVERY_S`, so that a log shows a long build is alive
without a line per second.

Every line shown went through :func:`~referee.safetext.printable`: a build's
output is the bot author's text.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

from referee.safetext import printable

__all__ = [
    "LINE_CHARS",
    "QUIET_EVERY_S",
    "QUIET_FIRST_S",
    "BuildProgress",
    "ProgressHook",
    "last_line",
    "wait_build",
]

#: How often, in seconds, a build's progress is reported to ``on_progress``.
TICK_S = 1.0
#: Off a terminal, a build's first line once it has run this long (seconds) ...
QUIET_FIRST_S = 3.0
#: ... and then one line per build at most this often.
QUIET_EVERY_S = 15.0
#: The most characters shown of a build's last line.
LINE_CHARS = 100
#: How much of the log's end is read to find its last line.
_TAIL_BYTES = 4096

#: ``on_progress(bot, elapsed_s, last_line)``.
ProgressHook = Callable[[str, float, str], None]


def last_line(path: str | os.PathLike[str]) -> str:
    """The last non-empty line of the file at ``path`` (a build's log), printable; "" if none.

    A line still being written counts; a carriage return (a download's progress
    bar) starts a new line, so the latest state shows.
    """
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - _TAIL_BYTES))
            data = handle.read()
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace").replace("\r", "\n")
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    return printable(lines[-1], LINE_CHARS) if lines else ""


def wait_build(
    proc: subprocess.Popen[bytes],
    timeout_s: float,
    *,
    bot: str,
    log_path: str | os.PathLike[str],
    on_progress: ProgressHook | None,
) -> int:
    """``proc.wait(timeout_s)``, telling ``on_progress`` how the build goes once a second.

    Raises :class:`subprocess.TimeoutExpired` as ``wait`` does. A hook that
    raises is not the build's failure: its error is dropped.
    """
    if on_progress is None:
        return proc.wait(timeout_s)
    started = time.monotonic()
    deadline = started + timeout_s
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise subprocess.TimeoutExpired(proc.args, timeout_s)
        try:
            return proc.wait(min(TICK_S, left))
        except subprocess.TimeoutExpired:
            pass
        with contextlib.suppress(Exception):  # a display must never fail a build
            on_progress(bot, time.monotonic() - started, last_line(log_path))


class BuildProgress:
    """A status line of the builds running, on ``stream`` (stderr by default).

    Pass :meth:`update` as the build's ``on_progress`` and call :meth:`done`
    when a build ends. On a terminal one line shows every running build and
    is rewritten in place; elsewhere each build gets a line every
    ``quiet_every_s`` seconds. Safe to call from several build threads.
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        interactive: bool | None = None,
        quiet_every_s: float = QUIET_EVERY_S,
    ) -> None:
        self.stream = stream or sys.stderr
        self.interactive = self.stream.isatty() if interactive is None else interactive
        self.quiet_every_s = quiet_every_s
        self._lock = threading.Lock()
        self._running: dict[str, tuple[float, str]] = {}
        self._printed: dict[str, float] = {}
        self._width = 0

    def update(self, bot: str, elapsed_s: float, line: str) -> None:
        """A build's news: ``elapsed_s`` seconds in, its output's last line ``line``."""
        with self._lock:
            self._running[bot] = (elapsed_s, line)
            if self.interactive:
                self._redraw()
            elif elapsed_s - self._printed.get(bot, QUIET_FIRST_S - self.quiet_every_s) >= (
                self.quiet_every_s
            ):
                self._printed[bot] = elapsed_s
                self.stream.write(_status(bot, elapsed_s, line) + "\n")
                self.stream.flush()

    def done(self, bot: str) -> None:
        """The build of ``bot`` has ended: its part of the line goes."""
        with self._lock:
            self._running.pop(bot, None)
            self._printed.pop(bot, None)
            if self.interactive:
                self._redraw()

    def clear(self) -> None:
        """Every build has ended (or the next message is due): the status line goes."""
        with self._lock:
            self._running.clear()
            self._printed.clear()
            if self.interactive and self._width:
                self._redraw()

    def _redraw(self) -> None:
        text = "  |  ".join(_status(b, e, line) for b, (e, line) in self._running.items())
        width = _columns() - 1
        text = text[:width]
        self.stream.write("\r" + text + " " * max(0, self._width - len(text)) + "\r")
        self._width = len(text)
        if not text:
            self._width = 0
        self.stream.flush()


def _status(bot: str, elapsed_s: float, line: str) -> str:
    """``building go-starter: 34 s: go: downloading google.golang.org/grpc v1.79.1``."""
    name = printable(bot, 64)
    return f"building {name}: {elapsed_s:.0f} s" + (f": {line}" if line else "")


def _columns() -> int:
    try:
        return os.get_terminal_size().columns
    except OSError:
        return 100
