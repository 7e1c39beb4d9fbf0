"""The ladder builds and checks ``build.parallel`` submissions at once, oldest first.

The pipeline's step is replaced by one that holds its slot for a moment and
records how many run at the same time, so the test is about the service's
hand-out, not about builds (tests/ladder/test_pipeline.py builds for real).
"""

from __future__ import annotations

import pathlib
import threading
import time

import pytest

from referee.ladder.config import parse_ladder_config
from referee.ladder.db import Submission
from referee.ladder.service import Ladder

HOLD_S = 0.6


def _ladder(tmp_path: pathlib.Path, parallel: int) -> Ladder:
    config = parse_ladder_config(
        {"name": "parallel", "output": "out", "build": {"parallel": parallel}},
        path=tmp_path / "LADDER.yaml",
    )
    return Ladder(config, echo=lambda text: None)


@pytest.mark.parametrize("parallel", [1, 3])
def test_submissions_are_processed_build_parallel_at_a_time_oldest_first(
    tmp_path: pathlib.Path, parallel: int
) -> None:
    ladder = _ladder(tmp_path, parallel)
    lock = threading.Lock()
    running, most, order = 0, 0, []

    def process(submission: Submission) -> Submission:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
            order.append(submission.id)
        time.sleep(HOLD_S)
        with lock:
            running -= 1
        return ladder.db.set_state(submission.id, "rejected", reason="held for the test")

    ladder.pipeline.process = process  # type: ignore[method-assign]
    team, _ = ladder.db.add_team("owls")
    ids = []
    for n in range(5):
        submission = ladder.begin_submission(team, f"bot{n}")
        ladder.upload_received(submission.id)
        ids.append(submission.id)
    ladder.start()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if all(ladder.submission(i).state == "rejected" for i in ids):
                break
            time.sleep(0.05)
    finally:
        ladder.stop()
    assert [ladder.submission(i).state for i in ids] == ["rejected"] * 5
    assert most == parallel
    assert sorted(order) == ids and order[:parallel] == ids[:parallel]
