"""referee.ladder.pipeline: a submission is built, checked, and becomes active or is rejected.

Real builds and check-bot runs, in the sandbox: the submissions are the
Python kit's bots and broken ones.
"""

from __future__ import annotations

import pathlib
import shutil

import pytest

from referee.ladder.config import parse_ladder_config
from referee.ladder.db import Submission
from referee.ladder.service import Ladder, NotYours
from tests.helpers import require_sandbox
from tests.ladder.bots import bot_folder

pytestmark = pytest.mark.slow


@pytest.fixture
def ladder(tmp_path: pathlib.Path) -> Ladder:
    require_sandbox()
    config = parse_ladder_config(
        {
            "name": "pipeline",
            "output": "out",
            "build": {"timeout_s": 3},
            "submissions": {"check_full_game": False, "versions_kept_active": 1},
        },
        path=tmp_path / "LADDER.yaml",
    )
    return Ladder(config, echo=lambda text: None)


def _submit(ladder: Ladder, team: str, bot: str, kind: str) -> Submission:
    try:
        record = ladder.db.team(team)
    except Exception:
        record, _ = ladder.db.add_team(team)
    submission = ladder.begin_submission(record, bot)
    bot_folder(ladder.submission_folder(submission.id), kind)
    ladder.upload_received(submission.id)
    return ladder.pipeline.process(ladder.submission(submission.id))


def test_a_good_bot_becomes_active_and_its_new_version_retires_it(ladder: Ladder) -> None:
    first = _submit(ladder, "owls", "hoot", "random")
    assert (first.state, first.player) == ("active", "hoot.v1"), first.reason
    report = ladder.check_report(first.id, ladder.db.team("owls"))
    assert "PASS" in report
    second = _submit(ladder, "owls", "hoot", "starter")
    assert second.state == "active", second.reason
    old = ladder.submission(first.id)
    assert (old.state, old.reason) == ("retired", "replaced by version 2")


def test_a_bot_that_fails_check_bot_is_rejected_with_the_reason(ladder: Ladder) -> None:
    rejected = _submit(ladder, "larks", "bad", "illegal")
    assert rejected.state == "rejected"
    assert rejected.reason.startswith("check-bot failed: ")
    # Its team reads the whole report; another team may not.
    report = ladder.check_report(rejected.id, ladder.db.team("larks"))
    assert "FAIL" in report
    ladder.db.add_team("owls")
    with pytest.raises(NotYours):
        ladder.check_report(rejected.id, ladder.db.team("owls"))


def test_a_bot_that_does_not_start_is_rejected(ladder: Ladder) -> None:
    rejected = _submit(ladder, "larks", "crash", "crash")
    assert rejected.state == "rejected"
    assert "start" in rejected.reason


def test_a_folder_without_a_manifest_is_rejected_without_the_servers_paths(
    ladder: Ladder,
) -> None:
    rejected = _submit(ladder, "larks", "empty", "no-manifest")
    assert rejected.state == "rejected"
    assert "bot.yaml" in rejected.reason
    assert str(ladder.layout.root) not in rejected.reason


def test_a_build_that_never_ends_costs_that_submission_only(ladder: Ladder) -> None:
    rejected = _submit(ladder, "larks", "slow", "endless-build")
    assert rejected.state == "rejected"
    assert rejected.reason.startswith("the build failed")
    log = ladder.build_log(rejected.id, ladder.db.team("larks"))
    assert "sleep 600" in log
    # The next submission is built and checked as usual.
    assert _submit(ladder, "larks", "fine", "random").state == "active"


def test_a_submission_whose_folder_went_missing_is_rejected(ladder: Ladder) -> None:
    record, _ = ladder.db.add_team("owls")
    submission = ladder.begin_submission(record, "gone")
    bot_folder(ladder.submission_folder(submission.id), "random")
    ladder.upload_received(submission.id)
    shutil.rmtree(ladder.submission_folder(submission.id))
    done = ladder.pipeline.process(ladder.submission(submission.id))
    assert done.state == "rejected"
