"""Attack: a submitted bot (and its build) reading the ladder's key, database or another team's code.

The snooping bot exits at once (so check-bot fails it: "rejected") when it
can read any of its targets, and serves normally when it cannot. Sandboxed,
it becomes active: the targets are out of its sight. The control, the same
bot with ``sandbox: none``, is rejected: the attack works when nothing stops
it, so the test can fail.
"""

from __future__ import annotations

import pathlib

import pytest

from referee.ladder.config import parse_ladder_config
from referee.ladder.db import Submission
from referee.ladder.service import Ladder
from tests.helpers import require_sandbox
from tests.ladder.bots import bot_folder

pytestmark = pytest.mark.slow

_SNOOP = """\
import pathlib, sys
for target in pathlib.Path("targets.txt").read_text().split():
    try:
        pathlib.Path(target).read_bytes()
    except OSError:
        continue
    sys.exit(3)  # read it: the attack worked
"""


def _ladder(tmp_path: pathlib.Path, sandbox: str) -> Ladder:
    config = parse_ladder_config(
        {
            "name": "isolation",
            "output": "out",
            "sandbox": sandbox,
            "submissions": {"check_full_game": False},
        },
        path=tmp_path / "LADDER.yaml",
    )
    return Ladder(config, echo=lambda text: None)


def _submit(ladder: Ladder, team: str, kind: str, *, snoop: bool = False) -> Submission:
    record, _ = ladder.db.add_team(team)
    submission = ladder.begin_submission(record, team)
    folder = bot_folder(ladder.submission_folder(submission.id), kind)
    if snoop:
        root = ladder.layout.root
        targets = [root / "key", root / "ladder.db", root / "submissions" / "1" / "bot.py"]
        (folder / "targets.txt").write_text("\n".join(str(t) for t in targets))
        bot = folder / "bot.py"
        bot.write_text(_SNOOP + bot.read_text())
        # The build snoops too: it writes what it read into its own folder, for the bot.
        with open(folder / "bot.yaml", "a") as manifest:
            manifest.write(f'build: "cat {root / "key"} > stolen.txt || true"\n')
    ladder.upload_received(submission.id)
    return ladder.pipeline.process(ladder.submission(submission.id))


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_a_bot_cannot_read_the_key_the_database_or_another_teams_code(
    tmp_path: pathlib.Path, sandbox: str
) -> None:
    if sandbox == "bwrap":
        require_sandbox()
    ladder = _ladder(tmp_path, sandbox)
    victim = _submit(ladder, "victims", "random")
    assert victim.state == "active", victim.reason
    snoop = _submit(ladder, "snoops", "random", snoop=True)
    stolen = ladder.submission_folder(snoop.id) / "stolen.txt"
    key = (ladder.layout.root / "key").read_bytes()
    if sandbox == "bwrap":
        assert snoop.state == "active", snoop.reason
        assert not stolen.exists() or stolen.read_bytes() != key
    else:  # the control: nothing stops it, and the test sees it
        assert snoop.state == "rejected"
        assert stolen.read_bytes() == key
