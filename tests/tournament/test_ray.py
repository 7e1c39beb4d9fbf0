"""The Ray executor on a real multi-node Ray cluster of this machine (a head and two worker nodes).

Every tournament here is also played locally: with deterministic bots, the
same seed and the same key (``key_file``), the standings and the journaled
games must be equal wherever the games ran, after a resume, and after a
worker node was lost mid-tournament.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from referee.audit.folder import verify_folder
from referee.folder import TournamentError, read_journal
from referee.sandbox import procfs
from referee.tournament import Progress, Tournament
from referee.tournament.config import load_config

from .conftest import (
    copy_heuristic,
    journal_games,
    wait_no_processes_in,
    without_timing,
    write_config,
)

#: 4 bots (one launched from a bot folder): 1 table x 3 deal sets x 4 seatings = 12 games.
CONFIG = """
name: ray-{name}
seed: 11
bots: {{hpy: hpy, heur: heuristic, rnd: random, rnd2: random}}
rules: {{target_score: 30}}
schedule: {{deal_sets: 3}}
time_control: {{move_time_ms: 5000, startup_timeout_ms: 60000}}
concurrency: 2
{executor}
output: out-{name}
"""
GAMES = 12


def _config(folder: pathlib.Path, name: str, executor: str = "") -> pathlib.Path:
    return write_config(folder, CONFIG.format(name=name, executor=executor), f"{name}.yaml")


def _ray_config(folder: pathlib.Path, name: str, address: str) -> pathlib.Path:
    return _config(folder, name, f'executor: {{kind: ray, address: "{address}", workers: 2}}')


def _run(path: pathlib.Path, **options: Any) -> tuple[Any, list[str]]:
    messages: list[str] = []
    result = Tournament(load_config(path), echo=messages.append, **options).run()
    return result, messages


def _standings(out: pathlib.Path) -> list[dict[str, Any]]:
    return without_timing(json.loads((out / "standings.json").read_text())["bots"])


def _ray_processes(root: pathlib.Path) -> list[int]:
    """Live processes working in ``root`` or holding a file there (Ray's agents keep their
    logs open there but work in the driver's folder; bots work in the staged folders)."""
    found = []
    for process in procfs.processes():
        if process.pid == os.getpid() or not process.alive:
            continue
        try:
            paths = [os.readlink(f"/proc/{process.pid}/cwd")]
            for fd in os.listdir(f"/proc/{process.pid}/fd"):
                with contextlib.suppress(OSError):
                    paths.append(os.readlink(f"/proc/{process.pid}/fd/{fd}"))
        except OSError:
            continue
        if any(p == str(root) or p.startswith(f"{root}/") for p in paths):
            found.append(process.pid)
    return found


def _describe(pids: list[int]) -> list[str]:
    """Each process's pid, state, parent and command line, and its parent's, for the message
    (a sandbox left once in a suite run: whose child it was says which layer let it live)."""
    table = {process.pid: process for process in procfs.processes()}

    def one(pid: int) -> str:
        process = table.get(pid)
        try:
            command = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            process = None
        if process is None:
            return f"{pid}: (gone)"
        text = command.decode(errors="replace")
        if len(text) > 280:  # the sandbox's options, then what it runs
            text = f"{text[:120]} ... {text[-160:]}"
        return f"{pid} state {process.state} ppid {process.ppid}: {text}"

    out = []
    for pid in pids:
        parent = table[pid].ppid if pid in table else 0
        out.append(one(pid) + (f"\n    parent {one(parent)}" if parent > 1 else ""))
    return out


def _wait_no_ray_processes(root: pathlib.Path, wait_s: float = 30.0) -> list[int]:
    deadline = time.monotonic() + wait_s
    while (left := _ray_processes(root)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


class _Cluster:
    """A Ray cluster of this machine: a head without CPUs and worker nodes of one CPU each."""

    def __init__(self, root: pathlib.Path) -> None:
        from ray.cluster_utils import Cluster

        self.root = root
        self.cluster = Cluster(
            initialize_head=True,
            head_node_args={"num_cpus": 0, "include_dashboard": False},
        )
        for _ in range(2):
            self.add_worker()
        self.cluster.wait_for_nodes()

    @property
    def address(self) -> str:
        return self.cluster.address

    def add_worker(self) -> Any:
        return self.cluster.add_node(num_cpus=1, include_dashboard=False)

    def workers(self) -> list[Any]:
        return list(self.cluster.worker_nodes)

    def shutdown(self) -> None:
        self.cluster.shutdown()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """Configs, bot folder and output folders of this module's tournaments."""
    path = tmp_path_factory.mktemp("ray")
    bot = copy_heuristic(path, "hpy")
    # A build step, so that each node builds its copy (in the sandbox) before play.
    (bot / "bot.yaml").write_text(
        'name: hpy\nbuild: cp bot.py built.py\nrun: "{python} built.py --address {address}"\n'
    )
    return path


@pytest.fixture(scope="module")
def cluster(folder: pathlib.Path) -> Iterator[_Cluster]:
    """Head + 2 worker nodes; every process of Ray (and so every bot) ends with the module."""
    pytest.importorskip("ray", reason='Ray is not installed (pip install ".[ray]")')
    # Ray's files (and its ray_current_cluster) under a folder of ours, not the machine's /tmp/ray.
    ray_tmp = pathlib.Path(tempfile.mkdtemp(prefix="hr-ray-"))
    old = os.environ.get("RAY_TMPDIR")
    os.environ["RAY_TMPDIR"] = str(ray_tmp)
    made = None
    try:
        made = _Cluster(ray_tmp)
        yield made
    finally:
        if made is not None:
            made.shutdown()
        if old is None:
            os.environ.pop("RAY_TMPDIR", None)
        else:
            os.environ["RAY_TMPDIR"] = old
        left = _wait_no_ray_processes(ray_tmp) + wait_no_processes_in(folder)
        shutil.rmtree(ray_tmp, ignore_errors=True)
        assert not left, f"processes outlived the Ray cluster: {_describe(left)}"


@pytest.fixture(scope="module")
def reference(folder: pathlib.Path) -> pathlib.Path:
    """The same tournament played locally (worker processes): its output folder."""
    result, _ = _run(_config(folder, "local"))
    assert result.complete and not result.errors, result.errors
    return folder / "out-local"


def _same_as_reference(out: pathlib.Path, reference: pathlib.Path) -> None:
    report = verify_folder(out)
    assert report.ok, [str(p) for p in report.all_problems]
    assert _standings(out) == _standings(reference)
    assert journal_games(out / "journal.jsonl") == journal_games(reference / "journal.jsonl")


def _wait_for_games(journal: pathlib.Path, games: int, timeout_s: float = 300) -> bool:
    """Wait until the journal holds ``games`` games."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if (
            journal.exists()
            and sum(1 for e in read_journal(journal) if e["type"] == "game") >= games
        ):
            return True
        time.sleep(0.1)
    return False


@pytest.mark.slow
def test_a_ray_tournament_equals_the_local_one(
    cluster: _Cluster, folder: pathlib.Path, reference: pathlib.Path
) -> None:
    progress = Progress(enabled=False)
    result, _ = _run(
        _ray_config(folder, "ray", cluster.address),
        key_file=reference / "key",
        progress=progress,
    )
    out = folder / "out-ray"
    assert result.complete and result.games_played == GAMES and not result.errors, result.errors
    _same_as_reference(out, reference)
    # Live progress names the nodes (the head and two workers) and the game workers.
    assert progress.where == "ray: 3 nodes, 2 workers", progress.where
    assert "ray: 3 nodes, 2 workers" in progress.line()
    # Each worker started its own copy of the launched bot, built on its node; logged by the head.
    started = [
        e for e in read_journal(out / "journal.jsonl") if e["type"] == "bot" and e["bot"] == "hpy"
    ]
    assert sorted((e["status"], e["worker"]) for e in started) == [("started", 1), ("started", 2)]
    assert all(e["node"] for e in started)
    # The nodes built the staged folder (once: the nodes of this machine share Ray's folder).
    builds = list(cluster.root.glob("ray/session_2*/hearts-referee/*/builds/hpy.build.log"))
    assert len(builds) == 1, builds
    # The head wrote every game log, whole; nothing else is in the output folder's games.
    logs = [p for p in (out / "games").rglob("*") if p.is_file()]
    assert len(logs) == GAMES and not [p for p in logs if p.name.endswith(".tmp")], logs


@pytest.mark.slow
def test_a_ray_tournament_resumes(
    cluster: _Cluster, folder: pathlib.Path, reference: pathlib.Path
) -> None:
    config = _ray_config(folder, "resume", cluster.address)
    out = folder / "out-resume"
    first = Tournament(load_config(config), echo=lambda text: None, key_file=reference / "key")

    def terminate() -> None:
        if _wait_for_games(out / "journal.jsonl", 3):
            os.kill(os.getpid(), signal.SIGTERM)

    # SIGTERM reaches the runner's handler (stop scheduling, journal the games in flight),
    # not the one ray.init installs (exit at once).
    watcher = threading.Thread(target=terminate, daemon=True)
    watcher.start()
    result = first.run()
    watcher.join(5)
    assert result.interrupted and result.signal_name == "SIGTERM"
    assert 3 <= result.games_done < GAMES
    again, _ = _run(config)
    assert again.complete and not again.errors, again.errors
    assert again.games_played == GAMES - result.games_done
    _same_as_reference(out, reference)


@pytest.mark.slow
def test_a_lost_worker_node_costs_no_game(
    cluster: _Cluster, folder: pathlib.Path, reference: pathlib.Path
) -> None:
    config = _ray_config(folder, "lost", cluster.address)
    out = folder / "out-lost"
    messages: list[str] = []
    tournament = Tournament(load_config(config), echo=messages.append, key_file=reference / "key")
    results: list[Any] = []
    # The tournament in a thread: Ray's nodes are started and stopped from the main thread.
    player = threading.Thread(target=lambda: results.append(tournament.run()), daemon=True)
    player.start()
    assert _wait_for_games(out / "journal.jsonl", 2), "no game was journaled"
    assert player.is_alive(), "the tournament ended before a node could be lost"
    cluster.cluster.remove_node(cluster.workers()[0], allow_graceful=False)
    # Room for the game worker that replaces the lost one (the other may finish the games first).
    cluster.add_worker()
    player.join(300)
    assert results, "the tournament did not finish"
    result = results[0]
    assert result.complete and result.games_played == GAMES and not result.errors, (
        result.errors,
        messages,
    )
    assert any("was lost during game" in m for m in messages), messages
    _same_as_reference(out, reference)  # journal_games also fails on a game journaled twice


def test_executor_ray_without_ray_says_how_to_install(
    folder: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "referee.tournament.ray_executor", None)
    config = _ray_config(folder, "no-ray", "auto")
    with pytest.raises(TournamentError, match=r'pip install "hearts-referee\[ray\]"'):
        Tournament(load_config(config), echo=lambda text: None).run()


def test_staged_bot_folders_leave_build_outputs_out(tmp_path: pathlib.Path) -> None:
    pytest.importorskip("ray", reason='Ray is not installed (pip install ".[ray]")')
    from referee.players.specs import BotSpec
    from referee.tournament.ray_executor import stage_bot_folders

    built, plain = tmp_path / "built", tmp_path / "plain"
    for bot in (built, plain):
        for name in ("src", "bin", "node_modules", "__pycache__"):
            (bot / name).mkdir(parents=True)
            (bot / name / "f").write_text(name)
    specs = {
        "b": BotSpec(
            name="b", command="bin/b {address}", cwd=str(built), folder=str(built), build="make"
        ),
        "p": BotSpec(name="p", command="bin/p {address}", cwd=str(plain), folder=str(plain)),
        "also-b": BotSpec(
            name="also-b",
            command="bin/b {address}",
            cwd=str(built),
            folder=str(built),
            build="make",
        ),
        "r": BotSpec(name="r", builtin="random"),
    }
    stage = tmp_path / "stage"
    staged = stage_bot_folders(specs, stage)
    assert sorted(p.name for p in (stage / "bots" / "b").iterdir()) == ["src"]
    assert sorted(p.name for p in (stage / "bots" / "p").iterdir()) == [
        "bin",
        "node_modules",
        "src",
    ]
    assert staged["b"].folder == staged["also-b"].folder == staged["b"].cwd == "bots/b"
    assert staged["r"] == specs["r"]
