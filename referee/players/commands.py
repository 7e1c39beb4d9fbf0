"""Run commands of launched bots: their placeholders, filled in, and the folder they run from.

A command bot is a command line with a placeholder for where it serves
(:data:`PLACEHOLDERS`); :func:`expand_command` fills it in for one start of
:class:`referee.players.launcher.LaunchedBot`, and :func:`command_folder` is
the folder a sandboxed command bot sees (:mod:`referee.players.specs`).
"""

from __future__ import annotations

import os
import pathlib
import re
import shlex
import socket
import sys
from collections.abc import Sequence

__all__ = ["PLACEHOLDERS", "command_folder", "expand_command", "free_port"]

#: Where a bot serves: ``{port}`` (TCP, only without a sandbox), ``{address}``
#: (``unix:/path``) or ``{socket}`` (the path alone).
PLACEHOLDERS = ("{port}", "{address}", "{socket}")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def expand_command(
    template: str | Sequence[str],
    port: int | None = None,
    *,
    socket_path: str | os.PathLike[str] | None = None,
) -> list[str]:
    """Split a run command and fill in ``{port}``, ``{address}``, ``{socket}`` and ``{python}``."""
    parts = shlex.split(template) if isinstance(template, str) else list(template)
    values = {"python": sys.executable}
    if port is not None:
        values["port"] = str(port)
    if socket_path is not None:
        values["address"] = f"unix:{socket_path}"
        values["socket"] = str(socket_path)
    # One pass over each part: a filled-in value (a socket path or the Python's path with
    # braces in it) is never read as a placeholder, whichever placeholder it filled.
    return [_PLACEHOLDER.sub(lambda m: values.get(m[1], m[0]), part) for part in parts]


#: The placeholders of a run command; any other ``{...}`` is left as written.
_PLACEHOLDER = re.compile(r"\{(python|port|address|socket)\}")


def command_folder(args: Sequence[str], cwd: str | os.PathLike[str] | None) -> pathlib.Path:
    """The folder a sandboxed command bot sees: that of the script or program it runs.

    The first argument naming an existing file (other than the referee's own
    Python) decides; relative to ``cwd``. Without one, ``cwd`` itself.
    """
    base = pathlib.Path(cwd or os.getcwd())
    python = {sys.executable, os.path.realpath(sys.executable)}
    for arg in args:
        if arg.startswith("-") or arg in python:
            continue
        path = base / arg
        if path.is_file():
            return path.resolve().parent
    return base.resolve()
