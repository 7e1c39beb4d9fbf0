"""``referee match``: one game from the command line, with launched sample bots, as JSON and as a summary."""

from __future__ import annotations

import json
import pathlib

from click.testing import CliRunner

from referee.cli import cli
from tests.match.conftest import (
    SAMPLE_HEURISTIC,
    SAMPLE_RANDOM,
    assert_no_process_left,
    load,
    misbehaving_command,
)


def test_referee_match_command(tmp_path: pathlib.Path, launched_pids):
    out = tmp_path / "out"
    result = CliRunner().invoke(
        cli,
        [
            "match",
            str(SAMPLE_HEURISTIC),
            "random",
            str(SAMPLE_RANDOM),
            "heuristic",
            "--seed",
            "7",
            "--target",
            "40",
            "--out",
            str(out),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout[result.stdout.index("{") :])
    assert data["bots"] == ["heuristic-py", "random", "random-py", "heuristic"]
    assert data["faults"] == [{}, {}, {}, {}]
    records = load(out / "game.jsonl")
    assert records[-1]["type"] == "game_end"
    assert records[-1]["scores"] == data["scores"]
    assert len(launched_pids) == 2
    assert_no_process_left(launched_pids)


def test_referee_match_summary(tmp_path: pathlib.Path, launched_pids):
    result = CliRunner().invoke(
        cli,
        [
            "match",
            str(SAMPLE_RANDOM),
            "random",
            "random",
            "--seed",
            "3",
            "--target",
            "30",
            "--out",
            str(tmp_path / "o"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "random-py" in result.stdout
    assert "ms/decision" in result.stdout
    assert_no_process_left(launched_pids)


def test_referee_match_with_a_bot_that_never_starts(tmp_path: pathlib.Path, launched_pids):
    result = CliRunner().invoke(
        cli,
        [
            "match",
            misbehaving_command("--no-listen"),
            "random",
            "random",
            "random",
            "--startup-timeout-s",
            "1",
            "--out",
            str(tmp_path / "o"),
        ],
    )
    assert result.exit_code == 1
    assert "a bot did not start" in result.output
    assert "not serving" in result.output
    assert len(launched_pids) == 1
    assert_no_process_left(launched_pids)
