"""A build stopped at a limit says which, even when it ends itself before the next poll.

A refused fork raises in the build (Python's ``BlockingIOError``), and a
build that gives up at once exits with its own error code well before the
supervisor's next measurement (every 0.2 s). The reason must still be the
limit it reached, not "exit code 1".
"""

from __future__ import annotations

import pathlib

import pytest

from referee.players.builds import build_bot
from referee.players.policy import BuildLimits
from referee.players.specs import BotSpec
from tests.helpers import require_cgroups, require_sandbox

# Forks children that wait, until a fork is refused; then exits with code 1 at once.
FORK_UNTIL_REFUSED = """
import os, sys, time
children = 0
try:
    while True:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        children += 1
except OSError as error:
    print("REFUSED after", children, error, flush=True)
    sys.exit(1)
"""


def test_a_build_that_exits_on_its_refused_fork_fails_at_the_process_limit(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_sandbox()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # its build home
    require_cgroups()
    folder = tmp_path / "forker"
    folder.mkdir()
    (folder / "fork.py").write_text(FORK_UNTIL_REFUSED)
    spec = BotSpec(
        name="forker",
        command="python3 bot.py --socket {address}",
        cwd=str(folder),
        folder=str(folder),
        build="python3 fork.py",
    )
    result = build_bot(spec, tmp_path / "logs", limits=BuildLimits(processes=32), timeout_s=60)
    log = pathlib.Path(result.log_path).read_text()
    assert not result.ok, log
    assert "REFUSED after" in log  # the build itself saw the refusal and exited
    assert result.reason.startswith("process limit (build.limits.processes"), (result.reason, log)
