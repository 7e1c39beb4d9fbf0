"""A real tournament folder of built-in bots, played once and analysed, for the analysis tests."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import textwrap

import pytest

from referee.folder import seal
from tests.web.conftest import client_for  # noqa: F401  (the web tests' TestClient)

#: Small, fixed searches: fast, and never stopped by the clock (so reproducible).
FAST = ["--worlds", "24", "--budget-ms", "60000"]
#: The key of the small tournament's deals: random lost 22.44 points a hand there against
#: heuristic's 5.54 (with ``FAST``; two other keys: 17.92 against 3.70, 17.98 against 5.12).
SMALL_KEY = "5eed" * 16


def referee(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """The ``referee`` command line, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.fixture(scope="session")
def folder(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A tournament of random and heuristic bots (4 games), played by ``referee tournament``."""
    root = tmp_path_factory.mktemp("analysis")
    config = root / "small.yaml"
    config.write_text(
        textwrap.dedent(
            f"""
            name: small
            seed: 31
            bots: {{random: random, heuristic: heuristic, random-2: random, heuristic-2: heuristic}}
            rules: {{target_score: 20}}
            schedule: {{deal_sets: 1}}
            concurrency: 1
            bot_processes: shared
            output: {root / "out"}
            """
        )
    )
    # The same deals every run: four games are too few for the ranking below to hold on
    # any deals (a new key's once gave random 17.93 and heuristic 11.91 points lost a hand).
    key = root / "small.key"
    seal.create_key(key, bytes.fromhex(SMALL_KEY))
    result = referee("tournament", str(config), "-q", "--key-file", str(key), timeout=300)
    assert result.returncode == 0, result.stderr
    return root / "out"


@pytest.fixture(scope="session")
def analysed(folder: pathlib.Path) -> subprocess.CompletedProcess[str]:
    """``referee analyze`` over the folder, for two of its bots, two logs at a time."""
    result = referee(
        "analyze", str(folder), "--seat", "random", "--seat", "heuristic", *FAST, "-j", "2"
    )
    assert result.returncode == 0, result.stderr
    return result
