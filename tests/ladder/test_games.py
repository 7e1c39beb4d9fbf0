"""referee.ladder.games: the ladder's games in worker processes (the default executor), a new
version's first sets first, a new generation of workers when the active bots change."""

from __future__ import annotations

import pathlib
import time

import pytest

from referee.audit.folder import verify_folder
from referee.folder import read_journal
from referee.ladder.config import parse_ladder_config
from referee.ladder.service import Ladder
from tests.helpers import require_sandbox, wait_no_processes_in
from tests.ladder.bots import bot_folder

pytestmark = pytest.mark.slow


def _games(ladder: Ladder) -> list[dict]:
    return [e for e in read_journal(ladder.layout.journal) if e.get("type") == "game"]


def _wait(condition, what: str, timeout_s: float = 180) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.5)


def test_games_in_worker_processes_and_a_new_version_first(tmp_path: pathlib.Path) -> None:
    require_sandbox()
    config = parse_ladder_config(
        {
            "name": "games",
            "output": "out",
            "concurrency": 2,
            "rules": {"target_score": 20},
            "submissions": {"check_full_game": False},
            "matchmaking": {"first_sets": 1},
        },
        path=tmp_path / "LADDER.yaml",
    )
    assert config.bot_processes == "per_worker" and config.bot_lifetime == "game"
    ladder = Ladder(config, echo=lambda text: None)
    for team, kind in (("a", "random"), ("b", "heuristic"), ("c", "starter"), ("d", "random")):
        record, _ = ladder.db.add_team(team)
        submission = ladder.begin_submission(record, f"{kind}-{team}")
        bot_folder(ladder.submission_folder(submission.id), kind)
        ladder.upload_received(submission.id)
    ladder.start()
    try:
        _wait(lambda: len(_games(ladder)) >= 4, "the first set")
        record, _ = ladder.db.add_team("e")
        newcomer = ladder.begin_submission(record, "lowest")
        bot_folder(ladder.submission_folder(newcomer.id), "lowest")
        ladder.upload_received(newcomer.id)
        _wait(lambda: ladder.submission(newcomer.id).state == "active", "the new version")
        sets_before = max(e["table"] for e in _games(ladder))
        _wait(lambda: any(e["table"] > sets_before + 1 for e in _games(ladder)), "the next sets")
    finally:
        ladder.stop()
    assert wait_no_processes_in(ladder.layout.root / "submissions", wait_s=15) == []
    games = _games(ladder)
    later = sorted({e["table"] for e in games if e["table"] > sets_before})
    # The first set handed out once it was active seats the new version (or one in flight
    # when it became active, numbered just after the last journaled one).
    first_sets = [{b for e in games if e["table"] == t for b in e["bots"]} for t in later[:2]]
    assert any("lowest.v1" in bots for bots in first_sets), first_sets
    # A set's games are its rotations: every bot of the set in every seat.
    for table in {e["table"] for e in games}:
        seats = [e["bots"] for e in games if e["table"] == table]
        if len(seats) == 4:
            assert all(len({s[i] for s in seats}) == 4 for i in range(4))
    report = verify_folder(ladder.layout.root)
    assert report.ok, [str(p) for p in report.all_problems()]
