"""The ladder end to end, with real processes (issue 26's "Done when").

``referee ladder serve`` is started; four teams are added with
``referee ladder team add``; bots are submitted over HTTP with
``referee submit`` (random, heuristic, the Python starter and variants of
it); one that fails check-bot is rejected with a reason its team reads;
games are played; the heuristic bots rank above the random ones; a new
version replaces an old one; the ladder is killed with SIGKILL in the middle
of a build and of games and started again: no submission, game or rating is
lost or counted twice, the cut-short build is done again, and
``referee verify`` passes on the folder.
"""

from __future__ import annotations

import collections
import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from typing import Any

import pytest

from referee.folder import load_standings, read_journal
from referee.ladder.db import LadderDB
from tests.helpers import require_sandbox, wait_no_processes_in
from tests.ladder.bots import bot_folder

pytestmark = pytest.mark.slow

REFEREE = [sys.executable, "-m", "referee.cli"]

#: Short games, one bot process for the run (a fresh one per game costs seconds here).
LADDER_YAML = """\
name: e2e
output: out
concurrency: 2
bot_processes: shared
bot_lifetime: run
rules: {target_score: 30}
time_control: {move_time_ms: 1000}
build: {timeout_s: 60}
submissions: {check_full_game: false, per_team_per_hour: 10}
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Server:
    """``referee ladder serve`` in its own process (group), its stderr in a file."""

    def __init__(self, config: pathlib.Path, port: int, log: pathlib.Path) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self._log = open(log, "ab")  # noqa: SIM115 (closed in stop)
        self.process = subprocess.Popen(
            [*REFEREE, "ladder", "serve", str(config), "--port", str(port)],
            cwd=config.parent,
            stdout=self._log,
            stderr=self._log,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.process.poll() is None, log.read_text()
            try:
                with urllib.request.urlopen(f"{self.url}/api/ladder", timeout=2):
                    return
            except OSError:
                time.sleep(0.3)
        raise AssertionError(f"the ladder did not start: {log.read_text()}")

    def kill(self) -> None:
        """SIGKILL: no handler runs, nothing is flushed."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        self._log.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self._log.close()


def _run(*args: str, cwd: pathlib.Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*REFEREE, *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    if check:
        assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done


def _submit(url: str, folder: pathlib.Path, token: str, name: str, *, wait: bool = True) -> Any:
    args = ["submit", url, str(folder), "--token", token, "--name", name, "--timeout", "240"]
    if not wait:
        args.append("--no-wait")
    return subprocess.Popen(
        [*REFEREE, *args],
        cwd=folder.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _games(root: pathlib.Path) -> list[dict[str, Any]]:
    return [e for e in read_journal(root / "journal.jsonl") if e.get("type") == "game"]


def _wait_games(root: pathlib.Path, count: int, server: _Server, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while len(_games(root)) < count:
        assert server.process.poll() is None, "the ladder stopped"
        assert time.monotonic() < deadline, f"only {len(_games(root))} of {count} games"
        time.sleep(1)


def _wait_each(
    root: pathlib.Path, bots: list[str], count: int, server: _Server, timeout_s: float
) -> None:
    """Until each of ``bots`` has ``count`` journaled games."""
    deadline = time.monotonic() + timeout_s
    while True:
        played = collections.Counter(b for e in _games(root) for b in e["bots"])
        if all(played[b] >= count for b in bots):
            return
        assert server.process.poll() is None, "the ladder stopped"
        assert time.monotonic() < deadline, f"games so far: {dict(played)}"
        time.sleep(1)


def _states(root: pathlib.Path) -> dict[str, str]:
    db = LadderDB(root / "ladder.db")
    try:
        return {s.player: s.state for s in db.submissions()}
    finally:
        db.close()


def test_the_ladder_end_to_end(tmp_path: pathlib.Path) -> None:
    require_sandbox()
    config = tmp_path / "LADDER.yaml"
    config.write_text(LADDER_YAML)
    root = tmp_path / "out"
    bots = tmp_path / "bots"
    bots.mkdir()
    folders = {
        kind: bot_folder(bots / kind, kind)
        for kind in ("random", "heuristic", "starter", "lowest", "illegal")
    }
    server = _Server(config, _free_port(), tmp_path / "serve-1.log")
    try:
        tokens = {
            team: _run("ladder", "team", "add", str(config), team, cwd=tmp_path).stdout.strip()
            for team in ("owls", "larks", "crows", "wrens")
        }
        assert all(t.startswith("hl_") for t in tokens.values())
        listed = _run("ladder", "team", "list", str(config), cwd=tmp_path).stdout
        assert all(team in listed for team in tokens) and "hl_" not in listed

        uploads = {
            "rnd": ("owls", "random"),
            "heur": ("owls", "heuristic"),
            "start": ("larks", "starter"),
            "low": ("crows", "lowest"),
            "rnd2": ("wrens", "random"),
            "heur2": ("wrens", "heuristic"),
            "bad": ("crows", "illegal"),
        }
        # The teams upload at the same time, each team one upload at a time (the ladder
        # takes one upload of a team at a time).
        results: dict[str, tuple[int, str, str]] = {}
        for wave in (("rnd", "start", "low", "rnd2"), ("heur", "heur2", "bad")):
            running = {
                name: _submit(server.url, folders[uploads[name][1]], tokens[uploads[name][0]], name)
                for name in wave
            }
            results.update({name: (p.wait(300), *p.communicate()) for name, p in running.items()})
        for name, (code, out, err) in results.items():
            if name == "bad":
                # Rejected, with the reason its team sees (referee submit prints it).
                assert code == 1, (out, err)
                assert "rejected" in out + err and "check-bot failed" in out + err
            else:
                assert code == 0, (name, out, err)
                assert "active" in out + err, (name, out, err)

        # Games are played; the heuristic bots rank above the random ones. The pair's mean,
        # over 20 short games each: one heuristic bot's rating after 12 games fell below a
        # random one's in 1 suite run of 8 (the tables and their order depend on timing).
        six = ("rnd", "heur", "start", "low", "rnd2", "heur2")
        _wait_each(root, [f"{name}.v1" for name in six], 20, server, timeout_s=300)
        standings = load_standings(root)
        mu = {row.bot: row.mu for row in standings.bots}
        assert mu["heur.v1"] + mu["heur2.v1"] > mu["rnd.v1"] + mu["rnd2.v1"], mu
        per_hand = {row.bot: row.points_per_hand for row in standings.bots}
        assert max(per_hand["heur.v1"], per_hand["heur2.v1"]) < min(
            per_hand["rnd.v1"], per_hand["rnd2.v1"]
        ), per_hand
        assert "bad.v1" not in mu

        # While it runs, the folder is read as any tournament folder's.
        live = _run("verify", str(root), cwd=tmp_path, check=False)
        assert live.returncode == 0, live.stdout + live.stderr
        first = _games(root)[0]
        replayed = _run("replay", str(root), "--game", first["game_id"], cwd=tmp_path).stdout
        assert all(bot in replayed for bot in first["bots"]), replayed[:500]

        # A new version replaces the old one.
        code, out, err = (
            (p := _submit(server.url, folders["lowest"], tokens["larks"], "start")).wait(300),
            *p.communicate(),
        )
        assert code == 0, (out, err)
        states = _states(root)
        assert states["start.v2"] == "active" and states["start.v1"] == "retired"

        # A submission in flight and games in flight when the ladder is killed.
        late = _submit(server.url, folders["starter"], tokens["owls"], "late", wait=False)
        assert late.wait(60) == 0, late.communicate()
        time.sleep(1.0)
        before = _games(root)
        server.kill()
        assert wait_no_processes_in(root / "submissions", wait_s=15) == []
    finally:
        server.stop()

    kept = {e["game_id"] for e in _games(root)}
    assert kept >= {e["game_id"] for e in before}  # nothing journaled before the kill is lost
    assert _states(root)["late.v1"] in ("uploading", "received", "building", "checking", "active")

    server = _Server(config, _free_port(), tmp_path / "serve-2.log")
    try:
        _wait_games(root, len(kept) + 8, server, timeout_s=180)
        deadline = time.monotonic() + 120
        while _states(root)["late.v1"] != "active":
            assert time.monotonic() < deadline, _states(root)
            time.sleep(1)
    finally:
        server.stop()
    assert wait_no_processes_in(root / "submissions", wait_s=15) == []

    games = _games(root)
    ids = collections.Counter(e["game_id"] for e in games)
    assert max(ids.values()) == 1, [g for g, n in ids.items() if n > 1]  # none counted twice
    assert kept <= set(ids)
    # Nothing lost: the submissions are all there, in their final states.
    states = _states(root)
    assert states["bad.v1"] == "rejected" and states["start.v1"] == "retired"
    assert {"rnd.v1", "heur.v1", "rnd2.v1", "heur2.v1", "low.v1", "start.v2", "late.v1"} <= {
        p for p, s in states.items() if s == "active"
    }
    # The retired version plays no new table after its retirement.
    runs = [e for e in read_journal(root / "journal.jsonl") if e.get("type") == "run"]
    assert [r["run"] for r in runs] == [1, 2]
    second_run = [e for e in games if e.get("run") == 2]
    assert second_run and all("start.v1" not in e["bots"] for e in second_run)

    # The folder is an ordinary tournament folder: standings and verify read it.
    shown = _run("standings", str(root), "--format", "json", cwd=tmp_path).stdout
    assert json.loads(shown)["games_played"] == len(games)
    verified = _run("verify", str(root), cwd=tmp_path, check=False)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "OK" in verified.stdout + verified.stderr
    assert os.path.exists(root / "key")
