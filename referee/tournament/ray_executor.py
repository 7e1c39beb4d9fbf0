"""The Ray executor: a tournament's games on the worker nodes of a Ray cluster.

``executor: {kind: ray, address: ..., workers: N}`` runs N game-worker actors
(:class:`_GameWorker`), each with its own sandboxed bots, as a local worker
process of ``bot_processes: per_worker`` has; the referee process is the
cluster's driver (the head of the tournament). Bot folders reach the nodes
through Ray's runtime environment: they are staged (without build outputs)
into one ``working_dir``, copied once per node into the run's own folder
there, and built in that copy (once per node), in the sandbox.

The head stays the only writer of the output folder: an actor plays a game
into a log on its node's temporary folder and returns the log's bytes with
the game's record; the head writes the log at its place, syncs it, and the
runner checks and journals it as for a local game. A game whose actor dies
(its node was lost, its process killed) is handed to another actor, and a
new actor is started in place of the dead one, wherever the cluster has room.
Nothing of a lost game reaches the folder, so nothing is lost or counted
twice.

Ray is an optional dependency (``pip install ".[ray]"``); this module is
imported only for ``executor: ray``.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import dataclasses
import fcntl
import hashlib
import json
import logging
import os
import pathlib
import shutil
import signal
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import ray
import ray.exceptions

import referee
from referee import __version__
from referee.folder import MatchLayout, TournamentError
from referee.match.gamelog import store_log
from referee.match.runner import GameRecord, GameSpec, play_game
from referee.players.builds import build_bot, build_slot
from referee.players.specs import BotSpec
from referee.players.supply import BotSupply
from referee.sandbox import bwrap, safepath
from referee.tournament.config import BuildConfig, ExecutorConfig
from referee.tournament.executors import BotEvent, GameExecutor, Stopped, WorkerSettings

__all__ = ["STAGE_IGNORE", "RayExecutor", "stage_bot_folders"]

log = logging.getLogger(__name__)

#: Always left out of a staged bot folder.
STAGE_IGNORE = ("__pycache__", ".git", "*.pyc")
#: Also left out of a bot folder with a build step: its build outputs, rebuilt on each node.
BUILD_OUTPUTS = ("target", "build", "node_modules", "bin", "dist", "obj", "out")
#: The staged folders' place inside the working directory the actors get.
STAGED = "bots"
#: Consecutive failures to start an actor after which its lane stops trying.
MAX_START_FAILURES = 3
#: Seconds an actor gets to stop its bots before it is killed.
CLOSE_GRACE_S = 5.0


def stage_bot_folders(specs: dict[str, BotSpec], stage: pathlib.Path) -> dict[str, BotSpec]:
    """Copy the folders of launched folder bots into ``stage/bots/NAME``; specs pointing there.

    The returned specs' ``folder`` and ``cwd`` are relative to ``stage``
    (each actor makes them absolute in its working directory). Bots without a
    folder (built-ins, addresses, bare commands) are returned unchanged: a bare
    command runs in its own ``cwd``, which must exist on every node.
    """
    staged: dict[str, BotSpec] = {}
    by_folder: dict[str, str] = {}
    for name, spec in specs.items():
        if not (spec.command and spec.folder):
            staged[name] = spec
            continue
        source = pathlib.Path(spec.folder).resolve()
        relative = by_folder.get(str(source))
        if relative is None:
            relative = f"{STAGED}/{_safe_name(name)}"
            ignore = STAGE_IGNORE + (BUILD_OUTPUTS if spec.build else ())
            shutil.copytree(
                source,
                stage / relative,
                ignore=_without_links_out(source, shutil.ignore_patterns(*ignore), name),
                symlinks=True,
            )
            by_folder[str(source)] = relative
        cwd = relative
        if spec.cwd and pathlib.Path(spec.cwd).resolve() != source:
            inner = pathlib.Path(spec.cwd).resolve().relative_to(source)
            cwd = f"{relative}/{inner.as_posix()}"
        staged[name] = dataclasses.replace(spec, folder=relative, cwd=cwd)
    return staged


def _without_links_out(
    source: pathlib.Path, ignore: Callable[[str, list[str]], set[str]], bot: str
) -> Callable[[str, list[str]], set[str]]:
    """``ignore`` for copytree, which also leaves out every link but one to a file of the folder.

    Ray packs the working directory following links: a link in a bot folder
    (``key -> ~/.ssh/id_ed25519``, ``all -> /``) would carry what it points to
    onto every node, into the bot's folder. A link to a file inside the folder
    is harmless (Ray copies that file); any other is left out, as a bot
    sandboxed here could not have followed it either, and logged.
    """
    root = source.resolve()

    def links_out(folder: str, names: list[str]) -> set[str]:
        skipped = set(ignore(folder, names))
        for name in names:
            path = pathlib.Path(folder, name)
            if name in skipped or not path.is_symlink():
                continue
            target = path.resolve()
            if not (target.is_file() and root in target.parents):
                log.warning(
                    "bot %s: the link %s (to %s) is left out of the staged folder",
                    bot,
                    path.relative_to(source),
                    os.readlink(path),
                )
                skipped.add(name)
        return skipped

    return links_out


def _safe_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "bot"


def _node_dir(run_id: str) -> pathlib.Path:
    """This node's folder of the run: bot logs, build logs, game logs in progress.

    In Ray's session folder of the node (``/tmp/ray/session_*/hearts-referee/RUN``), beside
    Ray's own logs; else in the node's temporary folder.
    """
    try:
        session = ray._private.worker.global_worker.node.get_session_dir_path()
    except Exception:
        session = None
    base = pathlib.Path(session) if session else pathlib.Path(tempfile.gettempdir())
    return base / "hearts-referee" / run_id


@contextlib.contextmanager
def _folder_lock(folder: pathlib.Path, lock_dir: pathlib.Path) -> Any:
    """A file lock per bot folder: the actors of a node share its extracted working directory."""
    lock_dir.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(str(folder).encode()).hexdigest()[:16]
    with open(lock_dir / f"{digest}.lock", "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield lock_dir / f"{digest}.built"
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def _grpc_client_as_found() -> Any:
    """``GRPC_EXPERIMENTS`` as the process found it while Ray starts its processes.

    The referee's choice of grpcio's client (referee/__init__.py) is measured for
    the referee's own calls; Ray's servers and workers, which inherit the
    environment of ``ray.init``, keep their own defaults.
    """
    if not referee.GRPC_CLIENT_CHOSEN:
        yield
        return
    chosen = os.environ.pop("GRPC_EXPERIMENTS", None)
    try:
        yield
    finally:
        if chosen is not None:
            os.environ["GRPC_EXPERIMENTS"] = chosen


def _node_copy(here: pathlib.Path, root: pathlib.Path) -> pathlib.Path:
    """The staged bot folders, copied once per node into the run's own folder of the node.

    Ray's extracted working directory is Ray's: its agent may unpack it again
    or collect it while the run goes on (nodes sharing a machine share it, and a
    joining node unpacks it anew), which would take the builds' outputs from
    under running bots. The copy belongs to the run alone; builds and bots use it.
    """
    target = root / "stage"
    with _folder_lock(target, root / "locks") as marker:
        if not marker.exists():
            # (The builds write this copy: removed without following any link they made.)
            with contextlib.suppress(OSError):
                safepath.remove(target, ignore_errors=True)
            shutil.copytree(here, target, symlinks=True)
            marker.write_text("copied\n")
    return target


class _GameWorker:
    """A game worker on a node: its own bots, built and started at creation; one game at a time."""

    def __init__(
        self,
        settings: WorkerSettings,
        index: int,
        run_id: str,
        build_timeout_s: float,
    ) -> None:
        self.index = index
        self.node_ip = ray.util.get_node_ip_address()
        root = _node_dir(run_id)
        # The runtime environment's working directory (the staged folders), as copied.
        here = _node_copy(pathlib.Path.cwd(), root)
        # Each worker plays in a match folder of its own (its logs and bots' logs).
        worker = MatchLayout(root / f"w{index}")
        self.games_dir = worker.games
        self.games_dir.mkdir(parents=True, exist_ok=True)
        specs = {
            name: dataclasses.replace(
                spec,
                folder=str(here / spec.folder),
                cwd=str(here / (spec.cwd or spec.folder)),
            )
            if spec.command and spec.folder and not os.path.isabs(spec.folder)
            else spec
            for name, spec in settings.specs.items()
        }
        if any(s.command and (s.sandbox or settings.sandbox) == "bwrap" for s in specs.values()):
            bwrap.check_sandbox()  # refuse to play here rather than stand every bot in
        self._events: list[dict[str, Any]] = []
        broken = dict(settings.broken)
        broken.update(self._build(specs, broken, root, settings, build_timeout_s))
        self.supply = BotSupply(
            settings.pool(worker.bots),
            specs,
            lifetime=settings.lifetime,
            broken=broken,
            on_event=self._event,
        )
        self.supply.warm_up(specs)

    def _event(self, event: dict[str, Any]) -> None:
        self._events.append({**event, "worker": self.index, "node": self.node_ip})

    def _take_events(self) -> list[dict[str, Any]]:
        events = list(self._events)
        del self._events[: len(events)]
        return events

    def _build(
        self,
        specs: dict[str, BotSpec],
        broken: dict[str, str],
        root: pathlib.Path,
        settings: WorkerSettings,
        timeout_s: float,
    ) -> dict[str, str]:
        """Build the staged folders with a build step (once per node); failed ones with why."""
        failed: dict[str, str] = {}
        done: dict[str, tuple[bool, str]] = {}
        for name, spec in specs.items():
            if not spec.build or not spec.folder or name in broken:
                continue
            folder = pathlib.Path(spec.folder)
            if spec.folder not in done:
                with _folder_lock(folder, root / "locks") as marker:
                    if marker.exists():
                        done[spec.folder] = tuple(json.loads(marker.read_text()))  # type: ignore[assignment]
                    else:
                        build = settings.build or BuildConfig()
                        # The node's actors build in processes of their own: slots shared
                        # through lock files keep them to build.parallel at once.
                        with build_slot(root / "locks", build.parallel):
                            result = build_bot(
                                spec,
                                MatchLayout(root).builds,
                                timeout_s=timeout_s,
                                sandbox=settings.sandbox,
                                limits=build.limits,
                                credentials=build.credentials,
                                hidden=settings.hidden,
                                registries=settings.registries,
                            )
                        last = (
                            result.reason or (result.tail.strip().splitlines()[-1:] or [""])[0]
                        )[:200]
                        done[spec.folder] = (
                            result.ok,
                            f"build failed on node {self.node_ip} ({result.log_path}): {last}",
                        )
                        marker.write_text(json.dumps(done[spec.folder]))
            ok, reason = done[spec.folder]
            if not ok:
                failed[name] = reason
        return failed

    def ready(self) -> dict[str, Any]:
        """Who this worker is, and the bot events of its start."""
        return {
            "index": self.index,
            "node": self.node_ip,
            "pid": os.getpid(),
            "version": __version__,
            "events": self._take_events(),
        }

    def play(
        self, spec_data: dict[str, Any], name: str
    ) -> tuple[dict[str, Any], bytes, list[dict[str, Any]]]:
        """Play one game: its record, its log's bytes and the bot events since the last call.

        The log is written under ``name``, the name of its place on the head, so that its
        bytes are in the form that name calls for.
        """
        spec = GameSpec.from_dict(spec_data)
        path = self.games_dir / pathlib.PurePath(name).name
        players = self.supply.players(spec.game_id, spec.meta.get("table"), spec.bots)
        try:
            record = play_game(spec, players, path)
        finally:
            self.supply.release(spec.game_id)
        data = path.read_bytes()
        path.unlink()
        return record.to_dict(), data, self._take_events()

    def close(self) -> None:
        self.supply.close()


_RemoteWorker = ray.remote(_GameWorker)

#: What a lost actor or node looks like to the caller: the game is played again elsewhere.
_LOST: tuple[type[BaseException], ...] = tuple(
    getattr(ray.exceptions, name)
    for name in ("RayActorError", "ObjectLostError", "NodeDiedError", "WorkerCrashedError")
    if hasattr(ray.exceptions, name)
)


@dataclasses.dataclass
class _Job:
    spec: dict[str, Any]
    log_path: pathlib.Path
    future: concurrent.futures.Future[GameRecord]
    #: Actors that died with this game (for the message if it can never be played).
    attempts: int = 0


class RayExecutor(GameExecutor):
    """Games on a Ray cluster: ``slots`` game-worker actors, each with its own bots."""

    def __init__(
        self,
        config: ExecutorConfig,
        settings: WorkerSettings,
        *,
        echo: Callable[[str], None] | None = None,
        build_timeout_s: float = 1800.0,
        actor_options: dict[str, Any] | None = None,
    ) -> None:
        self.config = config
        self.settings = settings
        self.echo = echo or (lambda text: None)
        self.build_timeout_s = build_timeout_s
        #: Ray options of each actor (``num_cpus``: 1 by default, a worker per CPU).
        self.actor_options = {"num_cpus": 1, **(actor_options or {})}
        self.slots = config.workers or 1
        self.run_id = f"{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:8]}"
        self._on_bot: BotEvent = lambda **event: None
        self._queue: collections.deque[_Job] = collections.deque()
        self._cond = threading.Condition()
        self._closed = False
        self._started_ray = False
        self._stage: pathlib.Path | None = None
        self._runtime_env: dict[str, Any] = {}
        self._specs: dict[str, BotSpec] = {}
        self._actors: dict[int, Any] = {}  # lane -> live actor handle
        self._lanes: list[threading.Thread] = []
        self._next_index = 0
        self._lanes_alive = 0
        self._nodes = 0
        self._nodes_checked = 0.0

    # Start -------------------------------------------------------------------------------------

    def _connect(self) -> None:
        """Connect as the driver, with the staged bot folders as the job's working directory."""
        if ray.is_initialized():
            raise TournamentError(
                "executor: ray: Ray is already initialized in this process; the executor "
                "connects on its own (the staged bot folders are the job's working directory)"
            )
        address = self.config.address
        kwargs: dict[str, Any] = {
            "logging_level": logging.WARNING,
            "log_to_driver": False,
            "runtime_env": self._runtime_env,
        }
        # ray.init installs a SIGTERM handler that exits at once; the runner's own (stop
        # scheduling, let the games in flight finish) must stay.
        main = threading.current_thread() is threading.main_thread()
        kept = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            with _grpc_client_as_found():
                if address == "local":
                    ray.init(include_dashboard=False, **kwargs)
                else:
                    ray.init(address=address, **kwargs)
        except ConnectionError as error:
            raise TournamentError(
                f"executor: ray: cannot connect to the Ray cluster at {address}: {error} "
                "(start one with `ray start --head`, or use address: local)"
            ) from None
        finally:
            if main:
                for sig, handler in kept.items():
                    if handler is not None:
                        signal.signal(sig, handler)
        self._started_ray = True

    def _stage_folders(self) -> None:
        self._stage = pathlib.Path(tempfile.mkdtemp(prefix="hearts-ray-stage-"))
        self._specs = stage_bot_folders(self.settings.specs, self._stage)
        # An empty working directory would still be uploaded: a marker keeps it a directory.
        (self._stage / "RUN_ID").write_text(self.run_id + "\n")
        self._runtime_env = {"working_dir": str(self._stage)}

    def _new_actor(self) -> tuple[int, Any]:
        with self._cond:
            self._next_index += 1
            index = self._next_index
        settings = dataclasses.replace(self.settings, specs=self._specs, parent=0)
        actor = _RemoteWorker.options(
            max_restarts=0,
            max_task_retries=0,
            scheduling_strategy="SPREAD",
            **self.actor_options,
        ).remote(settings, index, self.run_id, self.build_timeout_s)
        return index, actor

    def _report(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            with contextlib.suppress(Exception):
                self._on_bot(**event)

    def start(self, on_bot: BotEvent) -> None:
        self._on_bot = on_bot
        self._stage_folders()
        self._connect()
        if self.config.workers is None:
            self.slots = max(1, int(ray.cluster_resources().get("CPU", 1)))
        self.echo(f"ray: starting {self.slots} game worker(s) ...")
        starting = [self._new_actor() for _ in range(self.slots)]
        readies = [actor.ready.remote() for _, actor in starting]
        try:
            infos = ray.get(readies)
        except ray.exceptions.RayError as error:
            for _, actor in starting:
                with contextlib.suppress(Exception):
                    ray.kill(actor)
            raise TournamentError(f"executor: ray: a game worker did not start: {error}") from None
        for info in infos:
            if info["version"] != __version__:
                self.echo(
                    f"warning: ray worker {info['index']} on {info['node']} runs referee "
                    f"{info['version']}, the head {__version__}"
                )
            self._report(info["events"])
        for lane, (_, actor) in enumerate(starting):
            self._actors[lane] = actor
            thread = threading.Thread(
                target=self._lane, args=(lane,), name=f"ray-lane-{lane}", daemon=True
            )
            self._lanes.append(thread)
        self._lanes_alive = len(self._lanes)
        for thread in self._lanes:
            thread.start()
        self.echo(self.describe())

    # Playing -----------------------------------------------------------------------------------

    def submit(
        self, spec: GameSpec, log_path: pathlib.Path
    ) -> concurrent.futures.Future[GameRecord]:
        future: concurrent.futures.Future[GameRecord] = concurrent.futures.Future()
        with self._cond:
            if self._closed or not self._lanes:
                raise Stopped()
            if self._lanes_alive == 0:
                future.set_exception(RuntimeError("executor: ray: no game worker can start"))
                return future
            self._queue.append(_Job(spec.to_dict(), pathlib.Path(log_path), future))
            self._cond.notify()
        return future

    def _next_job(self) -> _Job | None:
        with self._cond:
            while not self._queue and not self._closed:
                self._cond.wait()
            if self._closed:
                return None
            return self._queue.popleft()

    def _wait(self, ref: Any) -> Any:
        """``ray.get(ref)``, giving up (Stopped) when the executor closes."""
        while True:
            ready, _ = ray.wait([ref], timeout=0.5)
            if ready:
                return ray.get(ref)
            if self._closed:
                raise Stopped()

    def _lane(self, lane: int) -> None:
        """Feed one actor games, one at a time; replace it when it dies."""
        while True:
            job = self._next_job()
            if job is None:
                return
            if job.attempts == 0 and not job.future.set_running_or_notify_cancel():
                continue  # cancelled while queued
            actor = self._actors[lane]
            try:
                record, data, events = self._wait(actor.play.remote(job.spec, job.log_path.name))
            except Stopped:
                job.future.set_exception(Stopped())
                return
            except _LOST as error:
                job.attempts += 1
                self._lost(lane, job, error)
                if not self._replace(lane):
                    return
                continue
            except ray.exceptions.RayTaskError as error:  # the game failed: a referee error
                job.future.set_exception(error.as_instanceof_cause())
                continue
            except Exception as error:
                job.future.set_exception(error)
                continue
            self._report(events)
            try:
                job.future.set_result(self._write(job, record, data))
            except Exception as error:
                job.future.set_exception(error)

    def _lost(self, lane: int, job: _Job, error: BaseException) -> None:
        """The actor of ``lane`` died during ``job``: the game goes back, first in line."""
        game = job.spec["game_id"]
        self.echo(f"ray: a game worker was lost during game {game} ({_short(error)}); replaying it")
        with self._cond:
            if self._closed:
                job.future.set_exception(Stopped())
                return
            self._queue.appendleft(job)  # its future, already running, stays the runner's
            self._cond.notify()

    def _replace(self, lane: int) -> bool:
        """A new actor for ``lane``, wherever the cluster has room; False if none can start."""
        with contextlib.suppress(Exception):
            ray.kill(self._actors[lane])
        for attempt in range(MAX_START_FAILURES):
            if self._closed:
                return False
            index, actor = self._new_actor()
            self._actors[lane] = actor
            try:
                info = self._wait(actor.ready.remote())
            except Stopped:
                with contextlib.suppress(Exception):
                    ray.kill(actor)
                return False
            except ray.exceptions.RayError as error:
                self.echo(f"ray: game worker {index} did not start ({_short(error)})")
                with contextlib.suppress(Exception):
                    ray.kill(actor)
                time.sleep(1.0 + attempt)
                continue
            self._report(info["events"])
            self.echo(f"ray: game worker {index} started on {info['node']}")
            return True
        with self._cond:
            self._lanes_alive -= 1
            if self._lanes_alive == 0:  # nobody left to play the queued games
                while self._queue:
                    job = self._queue.popleft()
                    job.future.set_exception(
                        RuntimeError("executor: ray: no game worker can start")
                    )
        return False

    def _write(self, job: _Job, record_data: dict[str, Any], data: bytes) -> GameRecord:
        """Write a game's log where the runner expects it, synced; the record pointing there.

        Written whole (a temporary file renamed over it) and synced with its folder, so that
        a crash of the head leaves no half log under the final name.
        """
        path = job.log_path
        store_log(path, data)
        record = GameRecord.from_dict(record_data)
        return dataclasses.replace(record, log_path=str(path))

    # Reporting and closing ---------------------------------------------------------------------

    def describe(self) -> str:
        now = time.monotonic()
        if self._started_ray and now - self._nodes_checked > 5.0:
            self._nodes_checked = now
            with contextlib.suppress(Exception):
                self._nodes = sum(1 for n in ray.nodes() if n.get("Alive"))
        with self._cond:
            workers = self._lanes_alive
        return f"ray: {self._nodes} node{'s' if self._nodes != 1 else ''}, {workers} worker{'s' if workers != 1 else ''}"

    def close(self) -> None:
        with self._cond:
            if self._closed:
                return
            self._closed = True
            queued = list(self._queue)
            self._queue.clear()
            self._cond.notify_all()
        for job in queued:
            with contextlib.suppress(concurrent.futures.InvalidStateError):
                job.future.set_exception(Stopped())
        actors = list(self._actors.values())
        self._actors.clear()
        if ray.is_initialized() and actors:
            closing = [a.close.remote() for a in actors]
            with contextlib.suppress(Exception):
                ray.wait(closing, num_returns=len(closing), timeout=CLOSE_GRACE_S)
            for actor in actors:
                with contextlib.suppress(Exception):
                    ray.kill(actor)
        for thread in self._lanes:
            thread.join(timeout=2.0)
        if self._started_ray:
            with contextlib.suppress(Exception):
                ray.shutdown()
            self._started_ray = False
        if self._stage is not None:
            with contextlib.suppress(OSError):
                safepath.remove(self._stage, ignore_errors=True)
            self._stage = None


def _short(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0][:160]}" if text else type(error).__name__
