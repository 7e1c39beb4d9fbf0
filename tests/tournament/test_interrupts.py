"""Real tournaments with real bot processes: SIGKILL and resume, Ctrl-C."""

from __future__ import annotations

import json
import os
import pathlib
import random
import signal
import subprocess
import sys
import time

import pytest

from tests.logs import log_of, log_text

from .conftest import (
    copy_heuristic,
    journal_games,
    processes_in,
    wait_no_processes_in,
    without_timing,
    write_config,
)

pytestmark = pytest.mark.slow


#: 5 tables x 2 deal sets x 4 rotations: enough for three kills at random points between
#: journaled games and a resume (3 deal sets made 60: half as many games again, for nothing more).
GAMES = 40


def config(folder: pathlib.Path) -> pathlib.Path:
    """Five deterministic bots, two of them launched processes: 40 short games."""
    copy_heuristic(folder, "hbot")
    return write_config(
        folder,
        """
        name: resume
        seed: 12
        bots:
          h-folder: hbot
          h-command: "{python} hbot/bot.py --address {address}"
          r1: random
          h1: heuristic
          r2: random
        rules: {target_score: 30}
        schedule: {deal_sets: 2}
        time_control: {move_time_ms: 10000, notify_timeout_ms: 10000}
        concurrency: 2
        """,
    )


def start(
    path: pathlib.Path, out: pathlib.Path, key_file: pathlib.Path | None = None
) -> subprocess.Popen[str]:
    key = ["--key-file", str(key_file)] if key_file else []
    return subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "tournament", str(path), "--out", str(out), *key],
        cwd=path.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def games_in(journal: pathlib.Path) -> int:
    try:
        return journal.read_bytes().count(b'"type":"game"')
    except OSError:
        return 0


def test_sigkill_at_random_points_then_resume_gives_the_same_journal(
    tmp_path: pathlib.Path,
) -> None:
    path = config(tmp_path)
    reference = tmp_path / "reference"
    proc = start(path, reference)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    expected = journal_games(reference / "journal.jsonl")
    assert len(expected) == GAMES

    out = tmp_path / "killed"
    journal = out / "journal.jsonl"
    seed = os.getpid()
    print(f"the kills' seed: {seed}")  # shown with a failure: random.Random(seed) replays them
    rng = random.Random(seed)
    kills = starts = 0
    for _ in range(3):
        # Kill at a random point: after a random number of further games, plus a random delay
        # (with no further games, that is during the start-up).
        target = games_in(journal) + rng.randrange(0, 10)
        # The reference's key, so that the games are dealt the same (and it is kept on resume).
        proc = start(path, out, reference / "key")
        starts += 1
        while games_in(journal) < target and proc.poll() is None:
            time.sleep(0.02)
        time.sleep(rng.uniform(0, 0.5))
        if proc.poll() is not None:
            break
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        kills += 1
        # The sandbox takes the bots down with the referee.
        assert not wait_no_processes_in(tmp_path)
    proc = start(path, out, reference / "key")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert kills >= 1
    assert (out / "key").read_bytes() == (reference / "key").read_bytes()
    assert journal_games(out / "journal.jsonl") == expected
    runs = [
        json.loads(line)
        for line in (out / "journal.jsonl").read_text().splitlines()
        if '"type":"run"' in line
    ]
    # A run killed before it opened the journal leaves no trace there.
    assert 1 <= len(runs) <= starts + 1
    standings = json.loads((out / "standings.json").read_text())
    wanted = json.loads((reference / "standings.json").read_text())
    assert without_timing(standings["bots"]) == without_timing(wanted["bots"])
    assert standings["head_to_head"] == wanted["head_to_head"]
    for game_id in expected:
        assert log_text(log_of(out, game_id)).count('"type":"game_end"') == 1


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_stops_cleanly_and_says_how_to_resume(
    tmp_path: pathlib.Path, sig: signal.Signals
) -> None:
    path = config(tmp_path)
    out = tmp_path / "out"
    proc = start(path, out)
    deadline = time.monotonic() + 60
    while games_in(out / "journal.jsonl") < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_in(tmp_path), "the bots should be running"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert f"{sig.name}: stopped after" in err
    assert "To resume, run the same command again:" in err
    assert f"referee tournament {path} --out {out}" in err
    assert "Traceback" not in err
    assert not wait_no_processes_in(tmp_path, wait_s=1.0)
    done = journal_games(out / "journal.jsonl")
    assert 2 <= len(done) < GAMES
    if sig == signal.SIGTERM:
        return
    proc = start(path, out)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert len(journal_games(out / "journal.jsonl")) == GAMES
