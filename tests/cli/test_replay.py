"""``referee replay`` on a log: options, colours, stepping, damaged logs, HTML output."""

from __future__ import annotations

import json
import pathlib

from click.testing import CliRunner

from referee.audit.render_text import render_text
from referee.audit.replay import load_game
from referee.cli import cli
from tests.replay.fixtures import FAULTS_LOG, GOLDEN


def invoke(*args: str, stdin: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["replay", *args], input=stdin)
    return result.exit_code, result.output


def test_plain_when_piped_and_the_golden_text() -> None:
    code, out = invoke(str(FAULTS_LOG))
    assert code == 0
    assert "\x1b[" not in out
    assert out == (GOLDEN / "faults.txt").read_text(encoding="utf-8")


def test_color_on_request() -> None:
    code, out = invoke(str(FAULTS_LOG), "--color")
    assert code == 0
    assert "\x1b[31m" in out
    code, out = invoke(str(FAULTS_LOG), "--no-color")
    assert "\x1b[" not in out


def test_hand_and_seat_options() -> None:
    game = load_game(FAULTS_LOG)
    for seat in ("2", "S", "s", "random"):
        code, out = invoke(str(FAULTS_LOG), "--hand", "2", "--seat", seat)
        assert code == 0, out
        assert out == render_text(game, seat=2, hand=2) + "\n"
    code, out = invoke(str(FAULTS_LOG), "--seat", "Q")
    assert code == 2 and "no seat 'Q'" in out and "heuristic#2" in out
    code, out = invoke(str(FAULTS_LOG), "--hand", "3")
    assert code == 2 and "the log has hands 1 to 2" in out


def test_step_waits_between_tricks_and_q_quits() -> None:
    code, out = invoke(str(FAULTS_LOG), "--step", stdin="  q")
    assert code == 0
    tricks = [line for line in out.splitlines() if line[:5].strip().isdigit()]
    assert [t.split()[0] for t in tricks] == ["1", "2", "3"]
    assert "Hand 2:" not in out


def test_a_truncated_log_is_shown_up_to_the_damage(tmp_path: pathlib.Path) -> None:
    lines = FAULTS_LOG.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:60]) + lines[60][:20], encoding="utf-8")
    result = CliRunner().invoke(cli, ["replay", str(cut)])
    assert result.exit_code == 0
    assert f"warning: {cut}:61: not JSON" in result.output
    assert "Trick" in result.output and "Traceback" not in result.output


def test_a_log_with_a_bad_header_is_an_error(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps({"type": "deal", "hand": 1}) + "\n", encoding="utf-8")
    code, out = invoke(str(path))
    assert code == 1
    assert f"Error: {path}:1: not a game log" in out


def test_game_option_needs_a_folder() -> None:
    code, out = invoke(str(FAULTS_LOG), "--game", "x")
    assert code == 2 and "tournament folder" in out


def test_html_output(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "sub" / "replay.html"
    result = CliRunner().invoke(cli, ["replay", str(FAULTS_LOG), "--html", str(out)])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert '"game_id":"faults-7"' in page
    assert f"wrote {out}" in result.output
