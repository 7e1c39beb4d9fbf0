"""``referee serve RUNS_DIR``: the command serves, on loopback, until Ctrl-C; the address it shows."""

from __future__ import annotations

import pathlib
import re
import signal
import socket
import subprocess
import sys
import time

import httpx
import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.web.server import browser_url
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


def test_serving_on_every_interface_shows_an_address_a_browser_can_open(
    tmp_path: pathlib.Path,
) -> None:
    """``--host 0.0.0.0``: the line says this machine's name, not where the socket listens."""
    synthesize(tmp_path / "runs" / "one", games=1, bots=("a", "b", "c", "d"))
    with socket.socket() as probe:
        probe.bind(("0.0.0.0", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "referee.cli", "serve", str(tmp_path / "runs")]
    process = subprocess.Popen(
        [*command, "--host", "0.0.0.0", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        said = ""
        for line in process.stderr:  # up to uvicorn's own line: then Ctrl-C stops it cleanly
            said += line
            if "Uvicorn running" in line:
                break
        assert f"on http://{socket.gethostname()}:{port}/ (Ctrl-C stops)" in said, said
        ours = next(line for line in said.splitlines() if line.startswith("serving "))
        assert "0.0.0.0" not in ours, ours  # (uvicorn's own line says where it listens)
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0


@pytest.mark.parametrize(
    ("host", "port", "path", "expected"),
    [
        ("127.0.0.1", 8000, "/", "http://127.0.0.1:8000/"),
        ("localhost", 80, "/play/abc", "http://localhost:80/play/abc"),
        ("::1", 8000, "/", "http://[::1]:8000/"),
        ("[::1]", 8000, "", "http://[::1]:8000"),  # bracketed once
        ("192.168.1.7", 8000, "/", "http://192.168.1.7:8000/"),
        ("ladder.example.org", 443, "/", "http://ladder.example.org:443/"),
    ],
)
def test_browser_url(host: str, port: int, path: str, expected: str) -> None:
    assert browser_url(host, port, path) == expected


@pytest.mark.parametrize("wildcard", ["0.0.0.0", "::", "[::]", ""])
def test_browser_url_of_every_interface_is_this_machines_name(wildcard: str) -> None:
    name = socket.gethostname()
    shown = f"[{name}]" if ":" in name else name
    assert browser_url(wildcard, 8000) == f"http://{shown}:8000/"
