"""``referee serve RUNS_DIR``: the command serves, on loopback, until Ctrl-C."""

from __future__ import annotations

import pathlib
import re
import signal
import subprocess
import sys
import time

import httpx
from click.testing import CliRunner

from referee.cli import cli
from tests.web.synth import synthesize


def test_referee_serve_serves_until_interrupted(tmp_path: pathlib.Path) -> None:
    synthesize(tmp_path / "runs" / "one", games=4, bots=("a", "b", "c", "d"))
    process = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "serve", str(tmp_path / "runs"), "--port", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        url = None
        deadline = time.monotonic() + 60
        for line in process.stderr:
            found = re.search(r"Uvicorn running on (http://127\.0\.0\.1:\d+)", line)
            if found:
                url = found.group(1)
                break
            assert time.monotonic() < deadline
        assert url, "the server did not say where it listens"
        for _ in range(300):
            data = httpx.get(url + "/api/tournaments", timeout=5).json()
            if data["tournaments"] and data["tournaments"][0]["games_played"] == 4:
                break
            time.sleep(0.1)
        assert [t["id"] for t in data["tournaments"]] == ["one"]
        assert data["tournaments"][0]["status"] == "finished"
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0


def test_referee_serve_needs_a_folder(tmp_path: pathlib.Path) -> None:
    result = CliRunner().invoke(cli, ["serve", str(tmp_path / "nothing")])
    assert result.exit_code == 2
    assert "does not exist" in result.output
