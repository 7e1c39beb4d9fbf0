"""Helpers shared by the referee's tests."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import textwrap
import time
from collections.abc import Iterable, Iterator, Sequence

import pytest

from referee.players import LaunchedBot
from referee.sandbox import procfs


def process_group_members(pgid: int) -> list[int]:
    """The pids of live processes in a process group."""
    return [p.pid for p in procfs.processes() if p.pgid == pgid and p.alive]


def bot_processes_alive(pids: Iterable[int]) -> list[int]:
    """Processes still alive among the launched bots' groups (a bot's pid is its group id)."""
    alive: list[int] = []
    for pid in pids:
        alive.extend(process_group_members(pid))
    return alive


def alive_in_groups(pgids: Sequence[int], wait_s: float = 3.0) -> list[int]:
    """Processes still alive in these groups after waiting up to ``wait_s`` for them to end."""
    deadline = time.monotonic() + wait_s
    while True:
        left = bot_processes_alive(pgids)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def processes_in(folder: pathlib.Path) -> list[int]:
    """Live processes (not zombies) whose working directory is inside ``folder``."""
    found = []
    for process in procfs.processes():
        if process.pid == os.getpid() or not process.alive:
            continue
        try:
            cwd = os.readlink(f"/proc/{process.pid}/cwd")
        except OSError:
            continue
        if cwd == str(folder) or cwd.startswith(f"{folder}/"):
            found.append(process.pid)
    return found


def wait_no_processes_in(folder: pathlib.Path, wait_s: float = 6.0) -> list[int]:
    """Processes left in ``folder`` after waiting up to ``wait_s`` for them to end."""
    deadline = time.monotonic() + wait_s
    while True:
        left = processes_in(folder)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


@pytest.fixture(autouse=True)
def launched_pids(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Every bot process LaunchedBot starts in a test; none may be alive afterwards.

    Import it into a conftest to apply it to a folder's tests. A launched
    bot's sandbox leads a process group of its own (its pid is the group id),
    which holds the bot and anything the bot spawned.
    """
    pids: list[int] = []
    original = LaunchedBot._start_locked

    def recording(self: LaunchedBot) -> None:
        try:
            original(self)
        finally:
            if self._proc is not None and self._proc.pid not in pids:
                pids.append(self._proc.pid)

    monkeypatch.setattr(LaunchedBot, "_start_locked", recording)
    yield pids
    left = alive_in_groups(pids)
    assert not left, f"bot processes left behind: {left} (groups {pids})"


def tools_dir() -> pathlib.Path:
    """Where the tests keep the Go tools they install (buf, grpcurl, the protoc plugins)."""
    cache = os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache"
    return pathlib.Path(cache) / "hearts-referee" / "tools"


def go_install(go: str, package: str, version: str, folder: pathlib.Path) -> None:
    """``go install PACKAGE@VERSION`` into ``folder``; fails the test with Go's words."""
    folder.mkdir(parents=True, exist_ok=True)
    install = subprocess.run(
        [go, "install", f"{package}@{version}"],
        env={**os.environ, "GOBIN": str(folder)},
        cwd=folder,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=1500,
        check=False,
    )
    assert install.returncode == 0, f"go install of {package}@{version} failed:\n{install.stderr}"


# What the machine may lack --------------------------------------------------------------------

#: The environment variable ``.ci/run`` sets: under it every skip fails (tests/conftest.py).
CI_FLAG = "HEARTS_CI"


def in_ci() -> bool:
    """True under ``HEARTS_CI=1``, where a missing tool is a failure, not a skip."""
    return os.environ.get(CI_FLAG, "").strip() not in ("", "0")


def missing_tools(*tools: str) -> list[str]:
    """The programs among ``tools`` that are not on the PATH."""
    return [tool for tool in tools if shutil.which(tool) is None]


def require_tools(*tools: str, purpose: str, install: str) -> None:
    """Skip the test, naming what is missing and how to get it, unless every tool is here.

    Under ``HEARTS_CI=1`` the skip is a failure with the same message (tests/conftest.py).
    """
    missing = missing_tools(*tools)
    if missing:
        pytest.skip(f"{purpose} skipped: {', '.join(missing)} not found; install {install}")


def require_sandbox() -> None:
    """Skip unless bubblewrap can make a bot's sandbox here (a failure under ``HEARTS_CI=1``).

    Only :class:`referee.sandbox.bwrap.SandboxUnavailable` means "not on this machine";
    any other error of the probe is a bug and propagates, failing the test.
    """
    from referee.sandbox import bwrap

    try:
        bwrap.check_sandbox()
    except bwrap.SandboxUnavailable as error:
        pytest.skip(f"bubblewrap cannot make a sandbox here: {error}")


def require_cgroups() -> None:
    """Skip unless the supervisor gets cgroups here (a failure under ``HEARTS_CI=1``)."""
    from referee.sandbox.cgroups import cgroup_support

    problem = cgroup_support()
    if problem:
        pytest.skip(f"no cgroups here: {problem}")


# Configs and the tournament folder several modules share ---------------------------------------


def altered(secret: str, count: int = 1) -> str:
    """``secret`` with its last ``count`` characters changed: never ``secret`` itself.

    Setting them to a fixed text is not enough: a random token may already end
    with it (one in 64 for a letter, which a suite run once hit).
    """
    ending = "x" * count if not secret.endswith("x" * count) else "y" * count
    return secret[:-count] + ending


def write_config(folder: pathlib.Path, text: str, name: str = "t.yaml") -> pathlib.Path:
    """Write a config file into ``folder``: ``text`` dedented, leading blank lines dropped.

    The one writer of the tests' configs: a config written flush left is
    written as it is, one indented in the test's source is dedented.
    """
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


#: A small real tournament: built-ins, one table of four, its four rotations (4 games).
MINI_TOURNAMENT = """\
name: mini
seed: 5
bots:
  r1: random
  h1: heuristic
  r2: random
  h2: heuristic
rules:
  target_score: 26
schedule:
  deal_sets: 1
"""


def play_mini_tournament(root: pathlib.Path) -> pathlib.Path:
    """Play :data:`MINI_TOURNAMENT` with ``referee tournament`` into ``root/out``; that folder.

    The session's copy is the ``mini_tournament`` fixture (tests/conftest.py);
    a test that changes a folder works on :func:`copy_folder` of it.
    """
    from click.testing import CliRunner

    from referee.cli import cli

    config = write_config(root, MINI_TOURNAMENT, "mini.yaml")
    out = root / "out"
    result = CliRunner().invoke(cli, ["tournament", str(config), "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    return out


def copy_folder(folder: pathlib.Path, tmp_path: pathlib.Path, name: str = "out") -> pathlib.Path:
    """A copy of a played folder in ``tmp_path``, for a test to change."""
    copy = tmp_path / name
    shutil.copytree(folder, copy)
    return copy
