"""Naming bots: what a bot given on the command line or in a config is.

A bot is given as one of:

- a built-in name (``random``, ``heuristic``), played in-process;
- the address of a running bot server, ``host:port``;
- a command line the referee launches, with ``{address}`` where the address
  of its Unix socket goes (or ``{port}``, a TCP port, for a bot run without
  a sandbox);
- a folder with a ``bot.yaml`` manifest (:mod:`referee.players.manifest`;
  built first if it has a build step, :mod:`referee.players.builds`).

:func:`parse_bot` turns such a string into a :class:`BotSpec`, plain data that
the builds (:mod:`referee.players.builds`) and the supply of players
(:mod:`referee.players.supply`) take; a string that is none of these is a
:class:`BotSpecError` saying what was expected.

>>> parse_bot("heuristic").kind
'builtin'
>>> parse_bot("localhost:50051").address
'localhost:50051'
>>> parse_bot("python bots/my_bot.py --socket {address}").name
'my_bot'
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import re
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from referee.players.builtin import BUILTIN_BOTS
from referee.players.commands import PLACEHOLDERS, command_folder
from referee.players.manifest import MANIFEST_NAME, ManifestError, load_manifest

__all__ = ["BotSpec", "BotSpecError", "parse_bot", "spec_folder", "unique_names"]

_ADDRESS = re.compile(r"^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9_.\-]+):\d{1,5}$")


class BotSpecError(ValueError):
    """A bot that cannot be understood; the message says what was expected."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class BotSpec:
    """How to reach one bot. Exactly one of builtin, address, command is set."""

    name: str
    builtin: str | None = None
    address: str | None = None
    command: str | None = None
    #: Working directory of a launched command (a bot folder).
    cwd: str | None = None
    #: Shell command that builds the bot, run in ``cwd`` before play.
    build: str | None = None
    #: Resource limits of a launched bot (see referee/sandbox/supervisor.py).
    limits: Mapping[str, int] = dataclasses.field(default_factory=dict)
    #: "bwrap" (the default) or "none" for a launched bot; None: the config's default.
    sandbox: str | None = None
    #: The bot's folder (a bot.yaml's); a sandboxed bot sees it, read-only.
    folder: str | None = None
    #: Where it came from, for messages ("bot.yaml in sample_bots/go").
    origin: str = ""

    @property
    def kind(self) -> str:
        if self.builtin:
            return "builtin"
        if self.address:
            return "address"
        return "command"

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in dataclasses.asdict(self).items() if v not in (None, "", {})}


def parse_bot(text: str, *, name: str | None = None, base: pathlib.Path | None = None) -> BotSpec:
    """A :class:`BotSpec` from a command-line or config string.

    Relative folders are resolved against ``base`` (the config's folder).
    """
    text = text.strip()
    if not text:
        raise BotSpecError("empty bot")
    if text in BUILTIN_BOTS:
        return BotSpec(name=name or text, builtin=text, origin="built-in")
    if any(p in text for p in PLACEHOLDERS):
        if "\x00" in text:  # no program can be given it
            raise BotSpecError(f"the command {text!r} holds a NUL character")
        try:
            shlex.split(text)
        except ValueError as error:  # No closing quotation, say
            raise BotSpecError(f"the command {text!r}: {str(error).lower()}") from None
        return BotSpec(
            name=name or _command_name(text),
            command=text,
            cwd=str(base) if base else None,
            origin="command",
        )
    folder = (base / text) if base and not os.path.isabs(text) else pathlib.Path(text)
    if folder.is_dir():
        if not (folder / MANIFEST_NAME).is_file():
            raise BotSpecError(f"{folder}: a bot folder needs a {MANIFEST_NAME} manifest")
        try:
            manifest = load_manifest(folder)
        except ManifestError as error:
            raise BotSpecError(str(error)) from None
        return BotSpec(
            name=name or manifest.name,
            command=manifest.run,
            cwd=str(manifest.folder),
            folder=str(manifest.folder),
            build=manifest.build,
            origin=str(manifest.path),
        )
    if _ADDRESS.match(text):
        return BotSpec(name=name or text, address=text, origin="address")
    if base is not None and not os.path.isabs(text) and ("/" in text or os.path.isdir(text)):
        # A path that is a folder from where the user stands, but not from the config's.
        here = pathlib.Path(text)
        found = (
            f"; {here.resolve()} exists: write {os.path.relpath(here.resolve(), base)!r}"
            if (here.is_dir())
            else ""
        )
        raise BotSpecError(
            f"{text!r} is not a bot: no folder {folder} (bot paths are relative to the "
            f"config's folder, {base}, not to the working directory{found}), and not a "
            "built-in, host:port or command either"
        )
    raise BotSpecError(
        f"{text!r} is not a bot: expected a built-in ({', '.join(BUILTIN_BOTS)}), "
        "a running bot's host:port, a command containing {address} (or {port} without a "
        "sandbox), or a folder with a bot.yaml"
    )


def _command_name(command: str) -> str:
    """The script a command runs (``python bots/my_bot.py ...`` -> ``my_bot``), else its program.

    Option values (``--level 3``) are never taken for the name.
    """
    words = [w for w in command.split() if "{" not in w and not w.startswith("-")]
    paths = [pathlib.PurePath(w) for w in words]
    scripts = [p.stem for p in paths if p.suffix in (".py", ".js", ".mjs", ".jar", ".rb", ".pl")]
    if scripts:
        return scripts[0]
    return paths[0].name if paths and paths[0].name else "bot"


def spec_folder(spec: BotSpec) -> pathlib.Path | None:
    """The folder a launched bot sees: its bot folder, or the folder of the script it runs."""
    if spec.command is None:
        return None
    if spec.folder:
        return pathlib.Path(spec.folder)
    try:
        args = shlex.split(spec.command)
    except ValueError:
        return None
    return command_folder(args, spec.cwd)


def unique_names(specs: Sequence[BotSpec]) -> list[BotSpec]:
    """``specs`` with repeated names told apart: ``random``, ``random#2``, ``random#3``...

    >>> [s.name for s in unique_names([parse_bot("random")] * 3)]
    ['random', 'random#2', 'random#3']
    """
    seen: dict[str, int] = {}
    out = []
    for spec in specs:
        seen[spec.name] = seen.get(spec.name, 0) + 1
        if seen[spec.name] > 1:
            spec = dataclasses.replace(spec, name=f"{spec.name}#{seen[spec.name]}")
        out.append(spec)
    return out
