"""``referee analyze -j 2`` killed in the middle: no worker outlives it, no analysis file is
left half written, and running it again finishes the job."""

from __future__ import annotations

import pathlib
import shutil
import signal
import subprocess
import sys
import time

import pytest

from referee.analysis.record import analysis_path, read_analysis
from referee.folder import Layout
from referee.sandbox.procfs import processes
from tests.analysis.conftest import FAST, referee


def _descendants(root: int) -> set[int]:
    table = {p.pid: p for p in processes() if p.alive}
    found: set[int] = set()
    grew = True
    while grew:
        grew = False
        for p in table.values():
            if p.pid not in found and (p.ppid == root or p.ppid in found):
                found.add(p.pid)
                grew = True
    return found


@pytest.mark.slow
def test_sigkill_leaves_no_worker_and_a_second_run_finishes(
    folder: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    copy = tmp_path / "out"
    shutil.copytree(folder, copy)
    for stale in copy.glob("games/*/*.analysis.json"):
        stale.unlink()
    args = [str(copy), "--all", "--worlds", "400", "--budget-ms", "60000", "-j", "2"]
    run = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "analyze", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    workers: set[int] = set()
    while time.monotonic() < deadline and len(workers) < 2:
        workers = _descendants(run.pid)
        time.sleep(0.2)
    assert len(workers) >= 2, "the workers never started"
    time.sleep(2.0)  # searching by now
    run.send_signal(signal.SIGKILL)
    run.wait()
    deadline = time.monotonic() + 20
    alive = {p.pid for p in processes() if p.alive} & workers
    while alive and time.monotonic() < deadline:
        time.sleep(0.2)
        alive = {p.pid for p in processes() if p.alive} & workers
    assert not alive, f"workers outlived the referee: {sorted(alive)}"
    logs = [path for _, path in Layout(copy).game_logs()]
    for log in logs:  # every file there is whole (written atomically)
        read_analysis(analysis_path(log))
    again = referee("analyze", str(copy), "--all", *FAST, "-j", "2")  # quicker searches
    assert again.returncode == 0, again.stderr
    assert all(read_analysis(analysis_path(log)) is not None for log in logs)
