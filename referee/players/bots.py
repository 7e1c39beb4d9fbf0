"""Naming bots, building submitted ones, and starting them for play.

A bot is given as one of:

- a built-in name (``random``, ``heuristic``), played in-process;
- the address of a running bot server, ``host:port``;
- a command line the referee launches, with ``{address}`` where the address
  of its Unix socket goes (or ``{port}``, a TCP port, for a bot run without
  a sandbox);
- a folder with a ``bot.yaml`` manifest (built first if it has a build step).

Launched bots and builds run in a sandbox (:mod:`referee.sandbox.bwrap`) unless their
spec says ``sandbox="none"``. :class:`BotPool` turns specs into players and
stops everything it started.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import fcntl
import itertools
import json
import logging
import os
import pathlib
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any

from referee.match.policy import BuildLimits, FaultPolicy, Limits, TimeControl
from referee.players import (
    BUILTIN_BOTS,
    BotConnection,
    BotFault,
    BotInfo,
    FaultKind,
    LaunchedBot,
    Player,
    RemotePlayer,
    build_progress,
    build_settings,
    builtin_player,
)
from referee.players.base import Deadline
from referee.players.launcher import PLACEHOLDERS, command_folder, parent_watch_fd
from referee.players.manifest import MANIFEST_NAME, ManifestError, load_manifest
from referee.sandbox import buildnet, bwrap, safepath, supervisor

__all__ = [
    "BotPool",
    "BotSpec",
    "BotSpecError",
    "BotSupply",
    "BuildResult",
    "DeadPlayer",
    "build_bot",
    "build_bots",
    "build_slot",
    "parse_bot",
    "spec_folder",
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


@dataclasses.dataclass(frozen=True, slots=True)
class BuildResult:
    name: str
    ok: bool
    seconds: float
    log_path: str
    #: The last lines of the build output (for messages); its last line is the verdict.
    tail: str
    #: Why it failed, in one line (a limit, the time, an exit code); "" if it did not.
    reason: str = ""


#: The exit codes of the supervisor when it stopped a build at a limit, and the key of it.
_BUILD_LIMIT_EXITS = {
    supervisor.EXIT_MEMORY_LIMIT: ("memory limit", "memory_bytes"),
    supervisor.EXIT_PROCESS_LIMIT: ("process limit", "processes"),
}
_build_numbers = itertools.count(1)


def _shown_limit(key: str, value: int) -> str:
    return f"{value >> 20} MiB" if key.endswith("_bytes") else str(value)


@contextlib.contextmanager
def _home_lock(home: pathlib.Path) -> Iterator[None]:
    """One build at a time in a build home, even across referees (a lock file beside it).

    While the referee prepares a home no process of the build it belongs to
    runs, so nothing can swap a checked path for a link under it.
    """
    with open(home.parent / f"{home.name}.lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def build_slot(lock_dir: str | os.PathLike[str], jobs: int) -> Iterator[int]:
    """One of ``jobs`` build slots shared by every process using ``lock_dir``; waits for one.

    The actors of a Ray node build in processes of their own: the slots, lock
    files, keep them to ``build.parallel`` builds at once on the node.
    """
    folder = pathlib.Path(lock_dir)
    folder.mkdir(parents=True, exist_ok=True)
    while True:
        for slot in range(max(1, jobs)):
            handle = open(folder / f"build-slot-{slot}.lock", "a")  # noqa: SIM115 (held below)
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                continue
            try:
                yield slot
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
                handle.close()
            return
        time.sleep(0.2)


def _remove_build_cgroup(name: str) -> None:
    """Kill what is left in a build's cgroup and remove it (its supervisor was killed)."""
    found = supervisor.Cgroup.parents()
    if not name or found is None:
        return
    version, parents = found
    group = supervisor.Cgroup(version, {c: os.path.join(p, name) for c, p in parents.items()})
    if any(os.path.isdir(f) for f in group.folders.values()):
        group.kill_all()
        group.remove()


#: How long a ``HOST:PORT`` bot may refuse connections before it is said not to be running.
REFUSED_S = 2.0


def build_bot(
    spec: BotSpec,
    log_dir: str | os.PathLike[str],
    *,
    timeout_s: float = 1800,
    sandbox: str = "bwrap",
    limits: BuildLimits | None = None,
    credentials: Collection[str] = (),
    hidden: Sequence[str | os.PathLike[str]] = (),
    registries: Sequence[str] = buildnet.DEFAULT_REGISTRIES,
    on_progress: build_progress.ProgressHook | None = None,
) -> BuildResult:
    """Run the bot's build command in its folder, output to ``log_dir/NAME.build.log``.

    Sandboxed (the default), the build sees its own folder (writable), the
    toolchains (read-only), a home of its own that keeps package caches
    between builds (:func:`referee.sandbox.bwrap.build_home`), the user's
    package-manager settings read-only and without the credentials whose kind
    is not in ``credentials`` (:mod:`referee.players.build_settings`), a scrubbed
    environment and a network of its own whose one way out is a proxy to
    ``registries`` (host names, :mod:`referee.sandbox.buildnet`; it writes its
    refusals to the log), but no other bot and none of ``hidden`` (the output
    folder). It runs under the supervisor with ``limits`` (memory, processes,
    CPU share, output, tmpfs; in a cgroup of its own where the machine allows);
    a build over a limit, or over ``timeout_s``, is stopped and fails with that
    reason. Every process it started is killed when it ends or times out, and
    when the referee dies. ``on_progress(name, elapsed_s, last_line)`` hears
    how it goes once a second (:mod:`referee.players.build_progress`).
    """
    limits = limits or BuildLimits()
    log_dir = pathlib.Path(log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    path = log_dir / f"{safepath.component(spec.name)}.build.log"  # (a bot.yaml's name)
    started = time.monotonic()
    if not spec.build:
        path.write_text("no build step\n")
        return BuildResult(spec.name, True, 0.0, str(path), "")
    sandbox = spec.sandbox or sandbox
    folder = spec.folder or spec.cwd or os.getcwd()
    cgroup = ""
    reason = ""
    with open(path, "wb") as out, contextlib.ExitStack() as held:
        out.write(f"$ {spec.build}\n(in {folder}; sandbox: {sandbox})\n".encode())
        out.flush()
        # The build's proxy lives while the build runs; it writes its lines straight to the
        # log's file (the offset the build's own output shares), the buffer being empty.
        network = contextlib.ExitStack()
        try:
            if sandbox == "bwrap":
                bwrap.check_sandbox()
                home = bwrap.build_home(spec.name)
                held.enter_context(_home_lock(home))
                settings, notes = held.enter_context(
                    build_settings.prepared_settings(credentials, bwrap.runtime_dir())
                )
                proxy = network.enter_context(
                    buildnet.BuildProxy.in_new_folder(
                        buildnet.AllowList.of(registries),
                        bwrap.runtime_dir(),
                        lambda line: os.write(out.fileno(), f"{line}\n".encode()),
                    )
                )
                inner = bwrap.build_command(
                    spec.build,
                    folder=folder,
                    home=home,
                    disk_bytes=limits.disk_bytes,
                    hidden=hidden,
                    proxy_socket=proxy.path,
                    settings=settings,
                    credentials=credentials,
                    notes=notes,
                )
                for note in notes:
                    out.write(f"referee: {note}\n".encode())
                out.flush()
            else:
                inner = ["sh", "-c", spec.build]
            argv = [
                sys.executable,
                "-I",
                supervisor.__file__,
                "--parent-fd",
                str(parent_watch_fd()),
            ]
            # Its own cgroup where the machine allows (else the supervisor measures by polling):
            # memory and processes capped, and a CPU share equal to every other build's.
            if not supervisor.cgroup_support():
                cgroup = f"r{os.getpid()}-build{next(_build_numbers)}"
                argv += ["--cgroup", cgroup]
            argv += ["--limits", json.dumps(limits.to_dict()), "--", *inner]
            proc = subprocess.Popen(
                argv,
                cwd=folder,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                pass_fds=(parent_watch_fd(),),
            )
            try:
                code = build_progress.wait_build(
                    proc, timeout_s, bot=spec.name, log_path=path, on_progress=on_progress
                )
                network.close()  # its summary before the verdict, which ends the log
                if code in _BUILD_LIMIT_EXITS:
                    what, key = _BUILD_LIMIT_EXITS[code]
                    value = getattr(limits, key, 0)
                    reason = f"{what} (build.limits.{key}: {_shown_limit(key, value)})"
                elif code != 0:
                    reason = f"exit code {code}"
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    os.killpg(proc.pid, signal.SIGKILL)  # the supervisor and the sandbox
                proc.wait()
                network.close()
                reason = f"timed out after {timeout_s:.0f} s (build.timeout_s)"
        except (OSError, bwrap.SandboxUnavailable, ValueError) as error:
            network.close()
            reason = f"cannot run the build: {error}"
        finally:
            network.close()
            _remove_build_cgroup(cgroup)
        if reason:
            out.write(f"\nbuild failed: {reason}\n".encode())
    text = path.read_bytes()[-3000:].decode(errors="replace")
    tail = "\n".join(text.rstrip().splitlines()[-15:])
    seconds = round(time.monotonic() - started, 2)
    return BuildResult(spec.name, not reason, seconds, str(path), tail, reason)


def build_bots(
    specs: Iterable[BotSpec],
    log_dir: str | os.PathLike[str],
    *,
    parallel: int | None = None,
    timeout_s: float = 1800,
    sandbox: str = "bwrap",
    limits: BuildLimits | None = None,
    credentials: Collection[str] = (),
    hidden: Sequence[str | os.PathLike[str]] = (),
    registries: Sequence[str] = buildnet.DEFAULT_REGISTRIES,
    on_built: Callable[[list[BotSpec], BuildResult], None] | None = None,
    on_progress: build_progress.ProgressHook | None = None,
) -> dict[str, BuildResult]:
    """Build every bot folder with a build step once (a folder listed twice is built once).

    ``parallel`` builds at a time (None: one per core), each with
    :func:`build_bot` and the same ``limits`` and ``credentials``;
    ``on_built(specs, result)`` hears of each folder as it finishes, and
    ``on_progress`` of each build as it runs (see :func:`build_bot`). Returns
    the result by bot name.
    """
    folders: dict[str | None, list[BotSpec]] = {}
    for spec in specs:
        if spec.build:
            folders.setdefault(spec.folder or spec.cwd, []).append(spec)
    results: dict[str, BuildResult] = {}
    if not folders:
        return results
    jobs = parallel or os.cpu_count() or 1
    executor = concurrent.futures.ThreadPoolExecutor(jobs, thread_name_prefix="build")
    try:
        futures = {
            executor.submit(
                build_bot,
                group[0],
                log_dir,
                timeout_s=timeout_s,
                sandbox=sandbox,
                limits=limits,
                credentials=credentials,
                hidden=hidden,
                registries=registries,
                on_progress=on_progress,
            ): group
            for group in folders.values()
        }
        for future in concurrent.futures.as_completed(futures):
            group, result = futures[future], future.result()
            for spec in group:
                results[spec.name] = result
            if on_built is not None:
                on_built(group, result)
    finally:
        executor.shutdown(wait=False, cancel_futures=True)
    return results


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
        sandbox: str = "bwrap",
        hidden: Sequence[str | os.PathLike[str]] = (),
        shared: bool = False,
    ) -> None:
        self.log_dir = pathlib.Path(log_dir)
        #: Each launched bot serves several games at once: a CPU quota instead of freezing.
        self.shared = shared
        #: The sandbox of launched bots whose spec does not choose one.
        self.sandbox = sandbox
        #: Folders no launched bot may see (the output folder).
        self.hidden = list(hidden)
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
        player = self.launch(spec)
        with self._lock:
            self._players[spec.name] = player
        return player

    def stop(self, player: Player) -> None:
        """Stop one player's process (or connection) started by :meth:`launch`."""
        conn = getattr(player, "connection", None)
        if conn is None:
            return
        with self._lock:
            if conn in self._connections:
                self._connections.remove(conn)
        with contextlib.suppress(Exception):
            conn.close()

    def launch(self, spec: BotSpec) -> Player:
        """A new player for ``spec`` (a new process for a launched bot), not kept by name."""
        tc, policy = self.time_control, self.fault_policy
        if spec.builtin:
            player = builtin_player(spec.builtin)
        elif spec.address:
            conn = BotConnection(spec.address, max_message_bytes=policy.max_message_bytes)
            with self._lock:
                self._connections.append(conn)
            # A HOST:PORT bot is started by the user: refused connections mean it is not running.
            conn.wait_serving(tc.startup_timeout_ms / 1000, refused_s=REFUSED_S)
            conn.handshake(max(tc.notify_timeout_ms / 1000, 5.0))
            player = RemotePlayer(conn)
        else:
            assert spec.command is not None
            try:
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
                    sandbox=spec.sandbox or self.sandbox,
                    folder=spec.folder,
                    hidden=[*self.hidden, self.log_dir],
                    shared=self.shared,
                )
            except ValueError as error:
                raise BotFault(FaultKind.START_FAILED, str(error)) from None
            with self._lock:
                self._connections.append(bot)
            bot.start()
            player = RemotePlayer(bot)
        return player

    def start_or_stand_in(self, spec: BotSpec) -> Player:
        """Start a bot; if it cannot start, a :class:`DeadPlayer` records why."""
        try:
            return self.start(spec)
        except BotFault as fault:
            reason = f"did not start: {fault.message}"
            log.info("bot %s %s", spec.name, reason)  # the runner says it once
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
            except BotFault as fault:
                # Several bots start at once: the message says which one did not.
                errors.append(
                    BotFault(fault.kind, f"{spec.name}: {fault.message}", status=fault.status)
                )
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
        with self._lock:
            connections, self._connections = self._connections, []
        for conn in connections:
            with contextlib.suppress(Exception):
                conn.close()

    def __enter__(self) -> BotPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


BotEvent = Callable[[dict[str, Any]], None]


class BotSupply:
    """Players for one game at a time, with launched bots' processes living as long as ``lifetime``.

    - ``run``: one process per bot, for every game;
    - ``table``: one per bot per table: a game of another table gets a new one
      (and the idle process of the old table is stopped);
    - ``game``: a fresh process (a fresh sandbox, a fresh tmp) for every game,
      so that nothing a bot remembers carries over to the next game of a
      duplicate set. A spare process of each bot is started ahead, while the
      current game plays, so that the start cost overlaps play.

    Built-ins and running bots (``host:port``) are shared whatever the
    lifetime. A bot that cannot start is stood in by a :class:`DeadPlayer`
    for that game. ``on_event`` hears of each bot's first start and of every
    failure, as ``{"bot", "status", ...}`` dicts.
    """

    def __init__(
        self,
        pool: BotPool,
        specs: Mapping[str, BotSpec],
        *,
        lifetime: str,
        broken: Mapping[str, str] | None = None,
        on_event: BotEvent | None = None,
    ) -> None:
        if lifetime not in ("game", "table", "run"):
            raise ValueError(f"lifetime must be game, table or run, not {lifetime!r}")
        self.pool = pool
        self.specs = dict(specs)
        self.lifetime = lifetime
        self.broken = dict(broken or {})
        self.on_event = on_event or (lambda event: None)
        self._lock = threading.Lock()
        self._shared: dict[str, Player] = {}
        self._by_table: dict[str, tuple[Any, Player, int]] = {}  # name -> (table, player, users)
        self._spares: dict[str, list[concurrent.futures.Future[Player]]] = {}
        self._in_game: dict[Any, list[Player]] = {}
        self._reported: set[str] = set()
        self._closed = False
        self._starter = concurrent.futures.ThreadPoolExecutor(4, thread_name_prefix="bot-start")

    def _fresh(self, name: str) -> bool:
        spec = self.specs[name]
        return spec.command is not None and name not in self.broken and self.lifetime != "run"

    def _start(self, name: str) -> Player:
        """A new player for ``name``, or a stand-in that says why it could not start."""
        if name in self.broken:
            self._report(name, "build_failed", self.broken[name])
            return DeadPlayer(name, self.broken[name])
        try:
            player = self.pool.launch(self.specs[name])
        except BotFault as fault:
            reason = f"did not start: {fault.message}"
            log.info("bot %s %s", name, reason)  # the runner says it once
            self._report(name, "start_failed", reason, always=True)
            return DeadPlayer(name, reason)
        self._report(name, "started", info=player.info.to_dict())
        return player

    def _report(
        self, name: str, status: str, reason: str = "", *, always: bool = False, **extra: Any
    ) -> None:
        with self._lock:
            if name in self._reported and not always:
                return
            self._reported.add(name)
        event: dict[str, Any] = {"bot": name, "status": status, **extra}
        if reason:
            event["reason"] = reason
        self.on_event(event)

    def warm_up(self, names: Iterable[str]) -> None:
        """Start the bots (or, for ``game``, their first spares) now rather than at the first game."""
        names = list(names)
        if self.lifetime == "game":
            for name in names:
                if self._fresh(name):
                    self._add_spare(name)
            for name in names:
                for future in list(self._spares.get(name, [])):
                    future.result()
            return
        for name in names:
            if not self._fresh(name):
                self._shared_player(name)

    def _shared_player(self, name: str) -> Player:
        with self._lock:
            player = self._shared.get(name)
        if player is None:
            player = self._start(name)
            with self._lock:
                self._shared.setdefault(name, player)
                player = self._shared[name]
        return player

    def _add_spare(self, name: str) -> None:
        with self._lock:
            if self._closed:
                return
            future = self._starter.submit(self._start, name)
            self._spares.setdefault(name, []).append(future)

    def _take_spare(self, name: str) -> Player:
        with self._lock:
            queue = self._spares.get(name) or []
            future = queue.pop(0) if queue else None
        self._add_spare(name)  # the next game's, started while this one plays
        return future.result() if future is not None else self._start(name)

    def players(self, game: Any, table: Any, names: Sequence[str]) -> list[Player]:
        """The players of game ``game`` (a key) at ``table``, by seat."""
        by_name: dict[str, Player] = {}
        for name in dict.fromkeys(names):
            if not self._fresh(name):
                by_name[name] = self._shared_player(name)
            elif self.lifetime == "game":
                by_name[name] = self._take_spare(name)
            else:
                by_name[name] = self._table_player(name, table)
        with self._lock:
            self._in_game[game] = [p for n, p in by_name.items() if self._fresh(n)]
        return [by_name[n] for n in names]

    def _table_player(self, name: str, table: Any) -> Player:
        old = None
        with self._lock:
            current = self._by_table.get(name)
            if current is not None and current[0] == table:
                self._by_table[name] = (table, current[1], current[2] + 1)
                return current[1]
            if current is not None and current[2] == 0:
                old = current[1]
        if old is not None:
            self.pool.stop(old)
        player = self._start(name)
        with self._lock:
            self._by_table[name] = (table, player, 1)
        return player

    def release(self, game: Any) -> None:
        """Game ``game`` is over: stop its fresh processes (``game``) or count it done (``table``)."""
        with self._lock:
            used = self._in_game.pop(game, [])
        if self.lifetime == "game":
            for player in used:  # in the background: the next game need not wait for it
                with self._lock:
                    if not self._closed:
                        self._starter.submit(self.pool.stop, player)
                        continue
                self.pool.stop(player)
            return
        with self._lock:
            for name, (table, player, users) in list(self._by_table.items()):
                if player in used:
                    self._by_table[name] = (table, player, max(0, users - 1))

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self._starter.shutdown(wait=True, cancel_futures=True)
        self.pool.close()
