"""``referee analyze`` as a user runs it: a tournament folder's table, the files beside the logs,
reproducibility, the replays' marks, verify's indifference, and bad input (issue 31)."""

from __future__ import annotations

import gzip
import hashlib
import json
import pathlib
import re
import subprocess

from click.testing import CliRunner

from referee.analysis.record import analysis_path, read_analysis
from referee.cli import cli
from referee.folder import Layout
from tests.analysis.conftest import FAST, referee


def _logs(folder: pathlib.Path) -> list[pathlib.Path]:
    return [path for _, path in Layout(folder).game_logs()]


def _in_process(*args: str):
    """The command line run in this process (no interpreter to start): where only its output
    is tested, not its exit on a signal or a traceback."""
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result


def test_folder_table_ranks_random_far_above_heuristic(
    folder: pathlib.Path, analysed: subprocess.CompletedProcess[str]
) -> None:
    lines = analysed.stdout.splitlines()
    rows = {line.split()[0]: line.split() for line in lines[2:] if line.strip()}
    assert set(rows) == {"random", "heuristic"}
    assert lines[2].startswith("random")  # the most points lost per hand first
    random_loss, heuristic_loss = float(rows["random"][3]), float(rows["heuristic"][3])
    assert random_loss > 2 * heuristic_loss > 0
    assert "analyze: 4/4 games" in analysed.stderr
    assert "ms a decision" in analysed.stderr
    # The progress line and the closing line count the same decisions: the searched ones
    # (not the forced plays, the referee's fallbacks or the moon choices, which no search values).
    (progress,) = re.findall(r"analyze: 4/4 games, (\d+) decisions searched", analysed.stderr)
    (footer,) = re.findall(r"^(\d+) decisions searched, \d+ ms a decision", analysed.stderr, re.M)
    searched = sum(
        d.searched
        for log in _logs(folder)
        for a in read_analysis(analysis_path(log)).seats.values()
        for d in a.decisions
    )
    assert int(progress) == int(footer) == searched
    assert searched < sum(
        len(a.decisions)
        for log in _logs(folder)
        for a in read_analysis(analysis_path(log)).seats.values()
    )


def test_one_analysis_file_beside_each_log_and_the_logs_untouched(
    folder: pathlib.Path, analysed: subprocess.CompletedProcess[str]
) -> None:
    for log in _logs(folder):
        found = read_analysis(analysis_path(log))
        assert found is not None
        assert found.log_sha256 == hashlib.sha256(log.read_bytes()).hexdigest()
        assert {a.bot for a in found.seats.values()} == {"random", "heuristic"}
        kinds = {d.kind for a in found.seats.values() for d in a.decisions}
        assert kinds >= {"pass", "play"}


def test_verify_ignores_the_analysis_files(
    folder: pathlib.Path, analysed: subprocess.CompletedProcess[str]
) -> None:
    result = referee("verify", str(folder))
    assert result.returncode == 0, result.stdout + result.stderr
    assert ".analysis.json" not in result.stdout + result.stderr  # no note of an unknown file


def test_the_same_settings_give_the_same_analysis(
    folder: pathlib.Path, analysed: subprocess.CompletedProcess[str]
) -> None:
    log = _logs(folder)[0]
    before = read_analysis(analysis_path(log))
    again = referee("analyze", str(log), "--seat", "random", *FAST)
    assert again.returncode == 0, again.stderr
    assert "taken from earlier analysis files" in again.stderr  # nothing searched twice
    forced = referee(
        "analyze", str(log), "--seat", "random", "--seat", "heuristic", *FAST, "--force"
    )
    assert forced.returncode == 0, forced.stderr
    after = read_analysis(analysis_path(log))

    def figures(found):  # everything but the analysis's own time
        return {s: [{**d.to_json(), "ms": 0} for d in a.decisions] for s, a in found.seats.items()}

    assert figures(before) == figures(after)
    assert "lost over" in forced.stdout and "a hand" in forced.stdout


def test_another_seed_searches_other_worlds(folder: pathlib.Path, tmp_path: pathlib.Path) -> None:
    log = tmp_path / "game.jsonl.gz"
    log.write_bytes(_logs(folder)[1].read_bytes())
    referee("analyze", str(log), "--seat", "random", *FAST, "--seed", "1")
    one = read_analysis(analysis_path(log))
    referee("analyze", str(log), "--seat", "random", *FAST, "--seed", "2")
    two = read_analysis(analysis_path(log))
    assert one.seats.keys() == two.seats.keys()
    (a,), (b,) = one.seats.values(), two.seats.values()
    assert [d.options for d in a.decisions] != [d.options for d in b.decisions]
    assert b.settings["seed"] == 2
    # Another bot of the same game is added to the file; what it held stays as it was.
    referee("analyze", str(log), "--seat", "heuristic", *FAST, "--seed", "2")
    both = read_analysis(analysis_path(log))
    assert {x.bot for x in both.seats.values()} == {"random", "heuristic"}
    assert both.seats[b.seat] == b


def test_a_folder_with_bad_logs_names_each_and_analyses_the_others(
    folder: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    """A log cut in the middle of a line and one whose moves do not replay are reported by
    file and line (exit code 1); the good log beside them is analysed all the same."""
    logs = tmp_path / "logs"
    logs.mkdir()
    good, other = _logs(folder)[:2]
    (logs / "good.jsonl.gz").write_bytes(good.read_bytes())
    lines = gzip.decompress(other.read_bytes()).decode().splitlines()
    (logs / "cut.jsonl").write_text("\n".join([*lines[:30], '{"type": "play", "ha']) + "\n")
    play = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "play")
    record = json.loads(lines[play])
    record["card"] = next(c for c in ("2C", "3C") if c != record["card"])
    lines[play] = json.dumps(record)
    (logs / "moved.jsonl").write_text("\n".join(lines) + "\n")
    result = referee("analyze", str(logs), "--seat", "random", *FAST, "-j", "1")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{logs / 'cut.jsonl'}:31:" in result.stderr
    assert f"{logs / 'moved.jsonl'}:{play + 1}: the log does not replay" in result.stderr
    assert read_analysis(analysis_path(logs / "good.jsonl.gz")) is not None
    assert not analysis_path(logs / "cut.jsonl").exists()
    assert result.stdout.startswith("bot ") and "random" in result.stdout


def test_replay_marks_the_graded_decisions(
    folder: pathlib.Path, analysed: subprocess.CompletedProcess[str]
) -> None:
    marked = 0
    for log in _logs(folder)[:2]:
        found = read_analysis(analysis_path(log))
        graded = [d for a in found.seats.values() for d in a.decisions if d.grade]
        text = _in_process("replay", str(log), "--no-color").stdout
        assert "Analysis (referee analyze): expected points lost" in text
        for d in graded:
            assert f"{d.grade.mark} {d.grade.value}: {d.what()} lost {d.loss:.2f}" in text
            marked += 1
        # Seen as a seat that was not analysed: no other seat's options are shown.
        unanalysed = next(s for s in range(4) if s not in found.seats)
        seat_view = _in_process("replay", str(log), "--no-color", "--seat", str(unanalysed)).stdout
        assert "points lost" not in seat_view and "blunder" not in seat_view
    assert marked > 0


def test_html_replay_carries_the_marks_and_a_seat_view_only_its_own(
    folder: pathlib.Path, analysed: subprocess.CompletedProcess[str], tmp_path: pathlib.Path
) -> None:
    """``referee replay --html`` puts the graded decisions in the page (the page marks each on
    its card or pass, as the served replay does: tests/analysis/test_web.py); a page made
    for one seat carries only that seat's analysis, or none for a seat nobody analysed."""

    def marked(log: pathlib.Path) -> dict[int, list[str]]:  # the page's keys of graded ones
        return {
            s: [f'"{d.kind}:{s}:{d.hand}:{d.trick}:{d.position}":' for d in a.decisions if d.grade]
            for s, a in read_analysis(analysis_path(log)).seats.items()
        }

    # A game in which both analysed seats have graded decisions.
    log = next(log for log in _logs(folder) if all(marked(log).values()))
    graded = marked(log)
    found = read_analysis(analysis_path(log))

    def page(*seat: str) -> str:  # the command in this process: no interpreter to start
        out = tmp_path / f"replay{'-'.join(seat)}.html"
        _in_process("replay", str(log), "--html", str(out), *seat)
        return out.read_text(encoding="utf-8")

    whole = page()
    assert '"analysis":{"seats":' in whole
    assert all(key in whole for keys in graded.values() for key in keys)
    one, other = sorted(found.seats)
    mine = page("--seat", str(one))
    assert all(key in mine for key in graded[one])
    assert not any(key in mine for key in graded[other])
    unanalysed = next(s for s in range(4) if s not in found.seats)
    assert '"analysis":null' in page("--seat", str(unanalysed))


def test_json_summary(folder: pathlib.Path, analysed: subprocess.CompletedProcess[str]) -> None:
    result = _in_process("analyze", str(folder), "--seat", "random", *FAST, "--json", "-j", "1")
    assert "taken from earlier analysis files" in result.stderr  # nothing searched again
    data = json.loads(result.stdout)
    assert data["format"] == "hearts-referee/analysis-summary" and data["version"] == 1
    (bot,) = data["bots"]
    assert bot["bot"] == "random" and bot["games"] == 4
    assert bot["points_lost_per_hand"] > 0 and bot["worst"]
    assert set(bot["per_hand_by_phase"]) == {
        "passing", "leading", "following", "discarding", "moon defence", "moon choice"
    }  # fmt: skip


def test_bad_input_is_one_line_naming_what_is_wrong(
    folder: pathlib.Path, tmp_path: pathlib.Path, analysed: subprocess.CompletedProcess[str]
) -> None:
    unknown = referee("analyze", str(folder), "--seat", "randon", *FAST)
    assert unknown.returncode == 2
    assert "no bot 'randon'" in unknown.stderr and "did you mean 'random'" in unknown.stderr
    assert "Traceback" not in unknown.stderr

    nothing = referee("analyze", str(folder))
    assert nothing.returncode == 2 and "--seat BOT" in nothing.stderr

    not_a_log = tmp_path / "notes.jsonl"
    not_a_log.write_text("hello\n")
    bad = referee("analyze", str(not_a_log), "--seat", "0")
    assert bad.returncode == 1 and str(not_a_log) in bad.stderr and "Traceback" not in bad.stderr

    log = tmp_path / "copy.jsonl.gz"
    log.write_bytes(_logs(folder)[0].read_bytes())
    analysis_path(log).write_text("{not json")
    damaged = referee("analyze", str(log), "--seat", "random", *FAST)
    assert damaged.returncode == 1
    assert str(analysis_path(log)) in damaged.stderr and "--force" in damaged.stderr
    assert analysis_path(log).read_text() == "{not json"  # nothing is written over unasked
    fixed = referee("analyze", str(log), "--seat", "random", *FAST, "--force")
    assert fixed.returncode == 0, fixed.stderr
    assert read_analysis(analysis_path(log)) is not None

    empty = tmp_path / "empty"
    empty.mkdir()
    none = referee("analyze", str(empty), "--seat", "random")
    assert none.returncode == 2 and "neither a game log" in none.stderr
