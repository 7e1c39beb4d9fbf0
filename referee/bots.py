"""Naming bots, building submitted ones, and starting them for play.

A bot is given as one of:

- a built-in name (``random``, ``heuristic``), played in-process;
- the address of a running bot server, ``host:port``;
- a command line the referee launches, with ``{port}`` where the port goes;
- a folder with a ``bot.yaml`` manifest (built first if it has a build step).

:class:`BotPool` turns specs into players and stops everything it started.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import pathlib
import re
import subprocess
import threading
import time
from collections.abc import Iterable, Mapping
from typing import Any

from referee.manifest import MANIFEST_NAME, ManifestError, load_manifest
from referee.players import (
    BUILTIN_BOTS,
    BotConnection,
    BotFault,
    BotInfo,
    FaultKind,
    LaunchedBot,
    Player,
    RemotePlayer,
    builtin_player,
)
from referee.players.base import Deadline
from referee.policy import FaultPolicy, Limits, TimeControl

__all__ = [
    "BotPool",
    "BotSpec",
    "BotSpecError",
    "BuildResult",
    "DeadPlayer",
    "build_bot",
    "parse_bot",
]

log = logging.getLogger(__name__)

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
    #: Resource limits of a launched bot (see referee/sandbox.py).
    limits: Mapping[str, int] = dataclasses.field(default_factory=dict)
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
    if "{port}" in text:
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
            build=manifest.build,
            origin=str(manifest.path),
        )
    if _ADDRESS.match(text):
        return BotSpec(name=name or text, address=text, origin="address")
    raise BotSpecError(
        f"{text!r} is not a bot: expected a built-in ({', '.join(BUILTIN_BOTS)}), "
        "a running bot's host:port, a command containing {port}, or a folder with a bot.yaml"
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


@dataclasses.dataclass(frozen=True, slots=True)
class BuildResult:
    name: str
    ok: bool
    seconds: float
    log_path: str
    #: The last lines of the build output (for messages).
    tail: str


def build_bot(
    spec: BotSpec, log_dir: str | os.PathLike[str], *, timeout_s: float = 1800
) -> BuildResult:
    """Run the bot's build command in its folder, output to ``log_dir/NAME.build.log``."""
    log_dir = pathlib.Path(log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    path = log_dir / f"{spec.name}.build.log"
    started = time.monotonic()
    if not spec.build:
        path.write_text("no build step\n")
        return BuildResult(spec.name, True, 0.0, str(path), "")
    with open(path, "wb") as out:
        out.write(f"$ {spec.build}\n(in {spec.cwd})\n".encode())
        out.flush()
        try:
            proc = subprocess.run(
                ["sh", "-c", spec.build],
                cwd=spec.cwd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=timeout_s,
                start_new_session=True,
                check=False,
            )
            ok = proc.returncode == 0
            if not ok:
                out.write(f"\nbuild failed with exit code {proc.returncode}\n".encode())
        except subprocess.TimeoutExpired:
            ok = False
            out.write(f"\nbuild timed out after {timeout_s:.0f} s\n".encode())
        except OSError as error:
            ok = False
            out.write(f"\ncannot run the build: {error}\n".encode())
    text = path.read_bytes()[-3000:].decode(errors="replace")
    tail = "\n".join(text.rstrip().splitlines()[-15:])
    return BuildResult(spec.name, ok, round(time.monotonic() - started, 2), str(path), tail)


class DeadPlayer(Player):
    """Stands in for a bot that could not be started: every call is a fault."""

    def __init__(self, name: str, reason: str) -> None:
        self.info = BotInfo(name=name)
        self.reason = reason

    def _fail(self) -> Any:
        raise BotFault(FaultKind.START_FAILED, self.reason)

    def pass_cards(self, game_id: str, view: Any, decision_id: str, deadline: Deadline) -> Any:
        return self._fail()

    def play_card(self, game_id: str, view: Any, decision_id: str, deadline: Deadline) -> Any:
        return self._fail()


class BotPool:
    """Starts bots from specs, hands out their players, and stops them all.

    A launched bot is one process shared by every seat and game it plays, as
    are connections to running bots; built-ins are in-process objects.
    """

    def __init__(
        self,
        *,
        log_dir: str | os.PathLike[str],
        time_control: TimeControl | None = None,
        fault_policy: FaultPolicy | None = None,
        limits: Limits | None = None,
    ) -> None:
        self.log_dir = pathlib.Path(log_dir)
        #: Default resource limits of launched bots; a spec's own limits override them.
        self.limits = limits or Limits()
        self.time_control = time_control or TimeControl()
        self.fault_policy = fault_policy or FaultPolicy()
        self._players: dict[str, Player] = {}
        self._connections: list[Any] = []
        self._failures: dict[str, str] = {}
        self._lock = threading.Lock()

    @property
    def failures(self) -> dict[str, str]:
        """Bots that could not be started, with the reason."""
        return dict(self._failures)

    def start(self, spec: BotSpec) -> Player:
        """Start (or connect to) a bot; raises :class:`BotFault` if it cannot."""
        tc, policy = self.time_control, self.fault_policy
        if spec.builtin:
            player = builtin_player(spec.builtin)
        elif spec.address:
            conn = BotConnection(spec.address, max_message_bytes=policy.max_message_bytes)
            self._connections.append(conn)
            conn.wait_serving(tc.startup_timeout_ms / 1000)
            conn.handshake(max(tc.notify_timeout_ms / 1000, 5.0))
            player = RemotePlayer(conn)
        else:
            assert spec.command is not None
            bot = LaunchedBot(
                spec.name,
                spec.command,
                cwd=spec.cwd,
                log_dir=self.log_dir,
                startup_timeout_s=tc.startup_timeout_ms / 1000,
                handshake_timeout_s=max(tc.notify_timeout_ms / 1000, 5.0),
                max_restarts=policy.max_restarts,
                max_message_bytes=policy.max_message_bytes,
                limits={**self.limits.to_dict(), **spec.limits},
            )
            self._connections.append(bot)
            bot.start()
            player = RemotePlayer(bot)
        with self._lock:
            self._players[spec.name] = player
        return player

    def start_or_stand_in(self, spec: BotSpec) -> Player:
        """Start a bot; if it cannot start, a :class:`DeadPlayer` records why."""
        try:
            return self.start(spec)
        except BotFault as fault:
            reason = f"did not start: {fault.message}"
            log.warning("bot %s %s", spec.name, reason)
            with self._lock:
                self._failures[spec.name] = reason
                player = DeadPlayer(spec.name, reason)
                self._players[spec.name] = player
            return player

    def start_all(self, specs: Iterable[BotSpec], *, stand_in: bool = True) -> dict[str, Player]:
        """Start several bots at once (their start-ups overlap)."""
        specs = list(specs)
        start = self.start_or_stand_in if stand_in else self.start
        errors: list[BaseException] = []

        def run(spec: BotSpec) -> None:
            try:
                start(spec)
            except BaseException as error:
                errors.append(error)

        threads = [threading.Thread(target=run, args=(s,), daemon=True) for s in specs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        return {s.name: self._players[s.name] for s in specs}

    def player(self, name: str) -> Player:
        return self._players[name]

    def restarts(self) -> dict[str, int]:
        return {c.name: c.restarts for c in self._connections if isinstance(c, LaunchedBot)}

    def close(self) -> None:
        """Stop every launched bot and close every connection."""
        for conn in self._connections:
            with contextlib.suppress(Exception):
                conn.close()
        self._connections.clear()

    def __enter__(self) -> BotPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
