"""Building submitted bots: a bot folder's build step, run in the build sandbox.

:func:`build_bot` runs one :class:`~referee.players.specs.BotSpec`'s ``build``
command under the supervisor, sandboxed (:func:`referee.sandbox.bwrap.build_command`:
its folder writable, a home of its own, the package registries as its only
network) and within its :class:`~referee.players.policy.BuildLimits`, and says
how it went as a :class:`BuildResult` (its log, its last lines, why it
failed). :func:`build_bots` builds every folder of a tournament once, several
at a time; :func:`build_slot` keeps the builds of several processes (a Ray
node's actors) to ``build.parallel`` at once. How a running build is shown is
:mod:`referee.players.build_progress`.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import fcntl
import itertools
import os
import pathlib
import signal
import subprocess
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence

from referee.players import build_progress
from referee.players.launcher import parent_watch_fd, remove_cgroup
from referee.players.policy import BuildLimits
from referee.players.specs import BotSpec
from referee.sandbox import build_settings, buildnet, bwrap, cgroups, safepath, supervisor

__all__ = ["BuildResult", "build_bot", "build_bots", "build_slot"]


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
    is not in ``credentials`` (:mod:`referee.sandbox.build_settings`), a scrubbed
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
            argv = supervisor.command(parent_watch_fd())
            # Its own cgroup where the machine allows (else the supervisor measures by polling):
            # memory and processes capped, and a CPU share equal to every other build's.
            if not cgroups.cgroup_support():
                cgroup = f"r{os.getpid()}-build{next(_build_numbers)}"
                argv += ["--cgroup", cgroup]
            argv += ["--limits", supervisor.encode_limits(limits.to_dict()), "--", *inner]
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
            remove_cgroup(cgroup)
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
