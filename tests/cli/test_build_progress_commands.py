"""Builds show progress (issue 29, item 3) in ``check-bot`` and ``tournament`` too.

``referee match`` is tested with a real 5 s build in tests/builds; here the
other two commands build a short quiet folder, with the progress line's
thresholds shortened (off a terminal the first line comes after
``QUIET_FIRST_S``), and their stderr must show the build's time and the last
line it wrote while it ran. The folder's bot is the random sample bot:
check-bot checks it (without its full game), the tournament plays one hand.
"""

from __future__ import annotations

import pathlib

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.players import build_progress

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def quiet_folder(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    monkeypatch.setattr(build_progress, "TICK_S", 0.1)
    monkeypatch.setattr(build_progress, "QUIET_FIRST_S", 2.0)  # the shell starts slowly under load
    folder = tmp_path / "quiet"
    folder.mkdir()
    (folder / "bot.py").write_text((ROOT / "sample_bots/python/random/bot.py").read_text())
    (folder / "bot.yaml").write_text(
        "name: quiet-bot\n"
        "build: echo fetching modules; echo compiling package heartsbot; sleep 3\n"
        'run: "{python} bot.py --address {address}"\n'
    )
    return folder


def _progress_lines(stderr: str, name: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith(f"building {name}: ")]


def test_check_bot_shows_the_builds_time_and_last_line(quiet_folder: pathlib.Path, tmp_path):
    result = CliRunner().invoke(
        cli,
        [
            "check-bot", str(quiet_folder), "--sandbox", "none", "--no-full-game",
            "--out", str(tmp_path / "o"),
        ],
    )  # fmt: skip
    assert "PASS  build" in result.stdout, result.output
    lines = _progress_lines(result.stderr, "quiet-bot")
    assert lines and lines[0].endswith(" s: compiling package heartsbot"), result.stderr


def test_tournament_shows_the_builds_time_and_last_line(quiet_folder: pathlib.Path, tmp_path):
    config = tmp_path / "t.yaml"
    config.write_text(
        f"name: quiet\nseed: 1\nsandbox: none\nbots:\n  q: {quiet_folder}\n  a: random\n"
        "  b: random\n  c: random\nrules: {target_score: 1}\n"
        "schedule: {deal_sets: 1, duplicate: false}\n"
    )
    result = CliRunner().invoke(
        cli, ["tournament", str(config), "--out", str(tmp_path / "out"), "--quiet"]
    )
    assert result.exit_code == 0, result.output
    lines = _progress_lines(result.stderr, "q")
    assert lines and lines[0].endswith(" s: compiling package heartsbot"), result.stderr
