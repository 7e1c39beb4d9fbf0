"""``referee match``: one game from the command line, with launched sample bots, as JSON and as a summary."""

from __future__ import annotations

import json
import pathlib
import signal

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.cli.match_common import interrupts_deferred
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
    # Zero faults and no forfeit read as the standings read them: 0, not "-" or blank.
    lines = result.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.lstrip().startswith("place"))
    rows = lines[header + 2 : header + 5]  # three players
    assert len(rows) == 3 and all(row.split()[-3:-1] == ["0", "no"] for row in rows), rows
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


def test_referee_match_games_duplicate_prints_standings_with_intervals(tmp_path: pathlib.Path):
    """``--games 8 --duplicate``: two deals, each played in the 4 rotations of the seats."""
    out = tmp_path / "dup"
    result = CliRunner().invoke(
        cli,
        [
            "match", "heuristic", "random", "random", "random",
            "--games", "8", "--duplicate", "--seed", "5", "--target", "40", "--out", str(out),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "match 5 (duplicate): 8 of 8 games; ranked by points" in result.stdout
    assert "pts/hand" in result.stdout and "95% CI" in result.stdout
    assert "rank 95%" in result.stdout and "Head to head" in result.stdout
    assert "game 8/8 d2-r4" in result.stderr  # one progress line a game
    logs = sorted((out / "games").glob("*.jsonl"))
    assert [p.stem for p in logs] == [f"d{d}-r{r}" for d in (1, 2) for r in (1, 2, 3, 4)]
    headers = {p.stem: load(p)[0] for p in logs}
    for d in (1, 2):
        games = [headers[f"d{d}-r{r}"] for r in (1, 2, 3, 4)]
        assert len({g["seed"] for g in games}) == 1  # one deal for the set
        seats = [[s["bot"] for s in g["seats"]] for g in games]
        # Every bot sits in every seat once: the set is the rotations of the seats.
        for seat in range(4):
            assert sorted(order[seat] for order in seats) == sorted(seats[0])
    assert headers["d1-r1"]["seed"] != headers["d2-r1"]["seed"]
    # The next steps it suggests work as suggested (verify on the folder is a tournament's).
    assert f"referee replay {out / 'games' / 'd1-r1.jsonl'}" in result.stdout
    assert f"referee verify {out / 'games'}/*.jsonl" in result.stdout
    verified = CliRunner().invoke(cli, ["verify", "--quiet", *map(str, logs)])
    assert verified.exit_code == 0, verified.output


def test_referee_match_games_json_and_fresh_deals(tmp_path: pathlib.Path):
    result = CliRunner().invoke(
        cli,
        [
            "match", "heuristic", "random", "random", "--games", "3", "--seed", "9",
            "--target", "30", "--out", str(tmp_path / "j"), "--json",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [g["game_id"] for g in data["games"]] == ["g1", "g2", "g3"]
    assert len({g["seed"] for g in data["games"]}) == 3  # a new deal each game
    assert all(g["bots"] == ["heuristic", "random", "random#2"] for g in data["games"])
    ranked = {row["bot"]: row for row in data["standings"]["bots"]}
    assert ranked["heuristic"]["games"] == 3
    assert ranked["heuristic"]["points_ci95"] is not None


def test_referee_match_duplicate_needs_whole_sets(tmp_path: pathlib.Path):
    result = CliRunner().invoke(
        cli,
        ["match", "random", "random", "random", "random", "--games", "6", "--duplicate"],
    )
    assert result.exit_code == 2
    assert "a duplicate set is 4 games" in result.output
    assert "give a multiple of 4" in result.output


def test_ctrl_c_waits_for_the_cleanup():
    """``interrupts_deferred`` (match's and play's cleanup): Ctrl-C inside is noted, not raised;
    after it, Ctrl-C interrupts again. tests/cli/test_play.py sends it twice to the command."""
    # Raised in this thread (``raise_signal``), so its handler has run when the call returns:
    # no wait for a signal sent to the process, which any of its threads may take.
    # Python's own handler set here: a process started in the background by a shell without
    # job control (`nohup pytest &` in a script) inherits SIGINT ignored, and keeps it so.
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with interrupts_deferred() as interrupted:
            signal.raise_signal(signal.SIGINT)
            assert interrupted.is_set()  # noted; no KeyboardInterrupt broke off the block
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, inherited)
