"""Issue 6: tournaments/polyglot.yaml completes with every kit in the standings and no faults.

The tournament builds every kit in place (as a user's run would) before
play. Skipped, with what to install, when any kit's toolchain is missing.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from tests.kits.test_starter_kits import ROOT, _requirements

KITS = ("go", "rust", "java", "cpp", "node")


@pytest.mark.toolchain
@pytest.mark.slow
@pytest.mark.timeout(1800)  # on a fresh machine it builds every kit from cold caches
def test_polyglot_tournament_has_every_bot_ranked_without_faults(tmp_path: pathlib.Path) -> None:
    missing = [reason for kit in KITS if (reason := _requirements(kit))]
    if missing:
        pytest.skip("; ".join(missing))
    out = tmp_path / "polyglot"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "referee.cli",
            "tournament",
            "tournaments/polyglot.yaml",
            "--out",
            str(out),
            "--quiet",
            "--format",
            "json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    standings = json.loads((out / "standings.json").read_text())
    rows = {row["bot"]: row for row in standings["bots"]}
    expected = {f"{kit}-starter" for kit in KITS} | {"random-py", "heuristic-py"}
    assert set(rows) == expected
    assert standings["complete"]
    for bot, row in rows.items():
        assert row["status"] == "ok", (bot, row["status"], row["reason"])
        assert row["games"] > 0
        assert row["faults"] == {}, (bot, row["faults"])
        assert row["forfeits"] == 0
    verify = subprocess.run(
        [sys.executable, "-m", "referee.cli", "verify", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert verify.returncode == 0, verify.stdout[-3000:]
