"""``referee verify`` and ``referee replay`` on a tournament output folder.

A real (small) tournament of built-in bots is played once; each test works
on a copy of its folder, damaged in one way.
"""

from __future__ import annotations

import json
import pathlib
import shutil
from typing import Any

import pytest
from click.testing import CliRunner

from referee.audit.folder import verify_folder
from referee.cli import cli
from referee.folder import Layout, TournamentState, seal
from tests.helpers import copy_folder
from tests.logs import folder_logs, log_of, log_text, write_log_text
from tests.replay.fixtures import FAULTS_LOG, MOON_LOG


@pytest.fixture
def folder(mini_tournament: pathlib.Path, tmp_path: pathlib.Path) -> pathlib.Path:
    """A copy of the session's finished tournament (4 games: one table, its 4 rotations)."""
    return copy_folder(mini_tournament, tmp_path)


def journal(folder: pathlib.Path) -> list[dict[str, Any]]:
    path = folder / "journal.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def sealed_lines(folder: pathlib.Path, entries: list[dict[str, Any]]) -> bytes:
    """Journal lines sealed with the folder's key, as the referee writes them.

    So the tests of the checks behind the MACs play a forger who holds the key.
    """
    key = seal.folder_key(folder)
    assert key is not None
    lines, previous = [], ""
    for entry in entries:
        body = {k: v for k, v in entry.items() if k != "mac"}
        line = seal.seal_line(key, previous, json.dumps(body, separators=(",", ":")).encode())
        previous = seal.line_mac(line) or ""
        lines.append(line)
    return b"".join(lines)


def rewrite_journal(folder: pathlib.Path, entries: list[dict[str, Any]]) -> None:
    """Write the journal anew, sealed, and tournament.json's record of its end to match.

    (A forger who holds the key reseals tournament.json too; see docs/config.md,
    "The end of the journal".)
    """
    (folder / "journal.jsonl").write_bytes(sealed_lines(folder, entries))
    state = TournamentState.load(folder / "tournament.json")
    state.finished = None
    for number, line in enumerate((folder / "journal.jsonl").read_bytes().splitlines(), 1):
        entry = json.loads(line)
        if entry["type"] == "end":
            state.finished = {"games": entry["games"], "line": number, "end_mac": entry["mac"]}
    state.save(folder / "tournament.json", key=seal.folder_key(folder))


def game_lines(folder: pathlib.Path) -> list[int]:
    """The 1-based journal lines of the game entries."""
    return [i for i, e in enumerate(journal(folder), start=1) if e["type"] == "game"]


def test_a_finished_tournament_verifies(folder: pathlib.Path) -> None:
    report = verify_folder(folder)
    assert report.ok, [str(p) for p in report.all_problems]
    assert report.journal_entries == 4 and len(report.games) == 4
    assert report.standings_checked == str(folder / "standings.json")
    assert report.authenticated_with == str(folder / "key")
    result = CliRunner().invoke(cli, ["verify", str(folder)])
    assert result.exit_code == 0, result.output
    assert "4 games" in result.output and "standings agree" in result.output
    assert f"authentic (MACs and deal seeds checked with {folder / 'key'})" in result.output


def test_a_folder_without_its_key(folder: pathlib.Path) -> None:
    key = folder / "key"
    kept = folder.parent / "kept-key"
    key.rename(kept)
    result = CliRunner().invoke(cli, ["verify", str(folder)])
    assert result.exit_code == 1
    assert f"FAIL {key}: no key file, so the journal and the logs cannot be authenticated" in (
        result.output
    )
    # The rules and the files' agreement can still be checked, saying what that is worth.
    result = CliRunner().invoke(cli, ["verify", "--no-key", str(folder)])
    assert result.exit_code == 0, result.output
    assert "note: not authenticated (no key)" in result.output
    assert "NOT authenticated (--no-key)" in result.output
    # The key kept elsewhere authenticates it.
    result = CliRunner().invoke(cli, ["verify", "--key-file", str(kept), str(folder)])
    assert result.exit_code == 0, result.output
    assert "checked with the key given" in result.output
    shown = CliRunner().invoke(cli, ["standings", str(folder)])
    assert shown.exit_code == 0
    assert f"warning: {key} is missing, so these results cannot be authenticated" in shown.stderr


def test_a_key_file_others_may_read_is_refused(folder: pathlib.Path) -> None:
    (folder / "key").chmod(0o644)
    result = CliRunner().invoke(cli, ["verify", str(folder)])
    assert result.exit_code == 1
    assert f"FAIL {folder / 'key'}: the key file has mode 0644" in result.output
    shown = CliRunner().invoke(cli, ["standings", str(folder)])
    assert shown.exit_code == 1 and "must be 0600" in shown.output
    assert "Traceback" not in result.output + shown.output


def test_a_missing_log(folder: pathlib.Path) -> None:
    entry_line = game_lines(folder)[1]
    game_id = journal(folder)[entry_line - 1]["game_id"]
    log_of(folder, game_id).unlink()
    problems = verify_folder(folder).all_problems
    assert len(problems) == 1
    assert problems[0].path == str(folder / "journal.jsonl")
    assert problems[0].line == entry_line
    assert f"game {game_id} has no log" in problems[0].message


@pytest.mark.parametrize(
    ("key", "change"),
    [
        ("scores", lambda e: e["scores"].__setitem__(0, e["scores"][0] + 1)),
        ("placements", lambda e: e["placements"].reverse()),
        ("winners", lambda e: e.update(winners=[0, 1])),
        ("hand_scores", lambda e: e["hand_scores"][0].__setitem__(1, 99)),
        ("moons", lambda e: e["moons"].__setitem__(2, e["moons"][2] + 1)),
        ("faults", lambda e: e["faults"][3].update(timeout=1)),
        ("forfeited", lambda e: e["forfeited"].__setitem__(0, True)),
        ("bots", lambda e: e["bots"].reverse()),
    ],
)
def test_a_journal_that_disagrees_with_its_log(folder: pathlib.Path, key: str, change: Any) -> None:
    entries = journal(folder)
    line = game_lines(folder)[2]
    change(entries[line - 1])
    rewrite_journal(folder, entries)
    problems = verify_folder(folder).problems
    assert problems, f"a changed {key} was not noticed"
    first = problems[0]
    assert (first.path, first.line) == (str(folder / "journal.jsonl"), line)
    assert f"the journal's {key}" in first.message


def test_standings_that_disagree_with_the_journal(folder: pathlib.Path) -> None:
    path = folder / "standings.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["bots"][0]["wins"] += 1
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    problems = verify_folder(folder).problems
    assert len(problems) == 1
    assert problems[0].path == str(path)
    assert "bots[0].wins is" in problems[0].message


def test_a_damaged_game_log_in_the_folder(folder: pathlib.Path) -> None:
    log = folder_logs(folder)[0]
    lines = log_text(log).splitlines(keepends=True)
    index = next(i for i, t in enumerate(lines) if i > 15 and json.loads(t)["type"] == "play")
    record = json.loads(lines[index])
    record["legal"].append("AS" if "AS" not in record["legal"] else "2D")
    lines[index] = json.dumps(record) + "\n"
    write_log_text(log, "".join(lines))
    result = CliRunner().invoke(cli, ["verify", str(folder)])
    assert result.exit_code == 1
    assert f"FAIL {log}: refused: the log does not match the MAC journaled for it" in (
        result.output
    )
    # Without the key, the replay says where the log breaks the rules.
    result = CliRunner().invoke(cli, ["verify", "--no-key", str(folder)])
    assert result.exit_code == 1
    where = f"hand 1, trick {record['trick']}, seat {record['seat']}"
    assert f"FAIL {log}:{index + 1}: {where}: the legal moves offered" in result.output


def test_duplicate_and_torn_journal_lines(folder: pathlib.Path) -> None:
    entries = journal(folder)
    line = game_lines(folder)[0]
    text = sealed_lines(folder, [*entries, entries[line - 1]])
    (folder / "journal.jsonl").write_bytes(text + b'{"type": "game", "gam')
    report = verify_folder(folder)
    assert [p.line for p in report.problems] == [len(entries) + 1]
    assert "is in the journal twice" in report.problems[0].message
    assert any("torn last line" in note for note in report.notes)


def test_a_log_without_journal_entry_is_a_note(folder: pathlib.Path) -> None:
    first = folder_logs(folder)[0]
    shutil.copy(first, first.with_name("x.jsonl.gz"))
    report = verify_folder(folder)
    assert report.ok
    assert any("not in the journal" in note and "x.jsonl" in note for note in report.notes)


def test_an_unfinished_tournament_is_a_note(folder: pathlib.Path) -> None:
    entries = journal(folder)
    last = game_lines(folder)[-1]
    # The last game lost, and with it the end that closed the journal.
    unfinished = [e for e in entries[: last - 1] + entries[last:] if e["type"] != "end"]
    rewrite_journal(folder, unfinished)
    (folder / "standings.json").unlink()
    report = verify_folder(folder)
    assert report.ok, [str(p) for p in report.all_problems]
    notes = " | ".join(report.notes)
    assert "unfinished: 3 of 4 scheduled games" in notes
    assert "1 game log(s) not in the journal" in notes
    assert "no standings.json" in notes


def test_a_folder_without_game_logs(tmp_path: pathlib.Path) -> None:
    result = CliRunner().invoke(cli, ["verify", str(tmp_path)])
    assert result.exit_code == 1
    assert f"FAIL {tmp_path}: no game logs here: not a tournament folder" in result.output


def test_a_match_folder_has_each_of_its_logs_checked(tmp_path: pathlib.Path) -> None:
    """``referee match --out DIR`` (game.jsonl) and ``--games`` (games/*.jsonl): no journal."""
    one, several = tmp_path / "one", tmp_path / "several"
    (several / "games").mkdir(parents=True)
    one.mkdir()
    shutil.copy(FAULTS_LOG, one / "game.jsonl")
    shutil.copy(FAULTS_LOG, several / "games" / "g1.jsonl")
    shutil.copy(MOON_LOG, several / "games" / "g2.jsonl")
    result = CliRunner().invoke(cli, ["verify", str(one), str(several), str(several / "games")])
    assert result.exit_code == 0, result.output
    assert "its 1 game log checked one by one" in result.output
    assert result.output.count("its 2 game logs checked one by one") == 2
    assert f"OK {one / 'game.jsonl'}: game faults-7, 2 hands" in result.output
    assert f"OK {several / 'games' / 'g2.jsonl'}: game " in result.output
    assert "not in the journal" not in result.output
    # A damaged log among them still fails the folder.
    (several / "games" / "g2.jsonl").write_text(FAULTS_LOG.read_text()[:-200])
    result = CliRunner().invoke(cli, ["verify", str(several)])
    assert result.exit_code == 1 and "FAIL " in result.output, result.output


def test_a_tournament_folder_that_lost_its_journal_still_fails(folder: pathlib.Path) -> None:
    """Never waved through as loose logs: its key and config say it was a tournament."""
    (folder / "journal.jsonl").unlink()
    (folder / "tournament.json").unlink()
    result = CliRunner().invoke(cli, ["verify", str(folder)])
    assert result.exit_code == 1
    assert "no journal" in result.output and "checked one by one" not in result.output


# Replaying from a folder ----------------------------------------------------------------


def test_replay_lists_the_games(folder: pathlib.Path) -> None:
    result = CliRunner().invoke(cli, ["replay", str(folder)])
    assert result.exit_code == 0, result.output
    for entry in journal(folder):
        if entry["type"] == "game":
            assert entry["game_id"] in result.output
            winner = entry["bots"][entry["winners"][0]]
            row = next(line for line in result.output.splitlines() if entry["game_id"] in line)
            assert winner in row
    assert "--game ID" in result.output


def test_replay_a_game_of_the_folder(folder: pathlib.Path) -> None:
    game_id = journal(folder)[game_lines(folder)[0] - 1]["game_id"]
    result = CliRunner().invoke(cli, ["replay", str(folder), "--game", game_id, "--hand", "1"])
    assert result.exit_code == 0, result.output
    assert f"Game {game_id}" in result.output and "Hand 1:" in result.output
    result = CliRunner().invoke(cli, ["replay", str(folder), "--game", game_id[:-1] + "9"])
    assert result.exit_code == 2
    assert "did you mean" in result.output


def _report_lines(report: Any) -> list[str]:
    return [
        *(f"{g.game_id} {g.path} {g.records} {g.hands} {g.problem}" for g in report.games),
        *map(str, report.problems),
        *report.notes,
    ]


def test_verify_on_several_processes_gives_the_same_report(folder: pathlib.Path) -> None:
    seen: list[str] = []
    assert _report_lines(verify_folder(folder, workers=3, on_game=lambda g: seen.append(g.game_id)))
    assert seen == [g.game_id for g in verify_folder(folder).games]  # journal order
    # Damaged: a log changed, a journal line disagreeing with its log, a log missing.
    entries = journal(folder)
    lines = game_lines(folder)
    entries[lines[2] - 1]["scores"][0] += 1
    rewrite_journal(folder, entries)
    log_of(folder, entries[lines[3] - 1]["game_id"]).unlink()
    log = log_of(folder, entries[lines[0] - 1]["game_id"])
    records = [json.loads(line) for line in log_text(log).splitlines()]
    play = next(r for r in records[15:] if r["type"] == "play")
    play["legal"].append("AS" if "AS" not in play["legal"] else "2D")
    write_log_text(log, "".join(json.dumps(r) + "\n" for r in records))
    for authenticate in (True, False):
        one = verify_folder(folder, authenticate=authenticate)
        many = verify_folder(folder, authenticate=authenticate, workers=2)
        assert len(one.all_problems) == 3
        assert _report_lines(many) == _report_lines(one)


def test_the_logs_are_compressed_a_hundred_games_a_folder(folder: pathlib.Path) -> None:
    entries = [e for e in journal(folder) if e["type"] == "game"]
    for entry in entries:
        assert entry["log_path"] == f"games/000/{entry['game_id']}.jsonl.gz"
        data = (folder / entry["log_path"]).read_bytes()
        assert data[:2] == b"\x1f\x8b"  # gzip, MACed as stored
        assert entry["log_mac"] == seal.log_mac(seal.folder_key(folder) or b"", data)
    assert [p.name for p in (folder / "games").iterdir()] == ["000"]
    assert Layout(folder).game_log("t9-d9-r9", 1234) == folder / "games/012/t9-d9-r9.jsonl.gz"
    # replay reads them as they are
    shown = CliRunner().invoke(cli, ["replay", str(folder), "--game", entries[0]["game_id"]])
    assert shown.exit_code == 0 and "Hand 1" in shown.output


def test_a_folder_of_plain_logs_in_one_folder_still_verifies(folder: pathlib.Path) -> None:
    """The layout of older referees: games/<id>.jsonl, uncompressed, no log_path in entries."""
    key = seal.folder_key(folder)
    assert key is not None
    entries = journal(folder)
    for entry in entries:
        if entry["type"] == "game":
            old = folder / entry.pop("log_path")
            plain = folder / "games" / f"{entry['game_id']}.jsonl"
            plain.write_text(log_text(old), encoding="utf-8")
            old.unlink()
            entry["log_mac"] = seal.log_mac(key, plain.read_bytes())
    (folder / "games" / "000").rmdir()
    rewrite_journal(folder, entries)
    for workers in (1, 2):
        report = verify_folder(folder, workers=workers)
        assert report.ok, [str(p) for p in report.all_problems]
        assert len(report.games) == 4 and not report.notes
    shown = CliRunner().invoke(cli, ["standings", str(folder)])
    assert shown.exit_code == 0 and "missing" not in shown.stderr


def test_verify_shows_progress_on_stderr(folder: pathlib.Path) -> None:
    result = CliRunner().invoke(cli, ["verify", "--jobs", "2", str(folder)])
    assert result.exit_code == 0, result.output
    assert "games 4/4 (100%)" in result.stderr and "problems" not in result.stderr
    assert "games 4/4" not in result.stdout
    quiet = CliRunner().invoke(cli, ["verify", "-q", str(folder)])
    assert quiet.exit_code == 0 and quiet.output == ""


def test_older_standings_versions_still_verify(folder: pathlib.Path) -> None:
    """A folder written before the rank intervals changed (standings version 1) still passes:
    its rank intervals come from an older method and are left out, with a note; every other
    figure is still rechecked."""
    path = folder / "standings.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["version"] = 1
    data["bots"][0]["rank_ci95"] = [1, 1]
    data["bots"][0]["rank_tied_with"] = []
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    report = verify_folder(folder)
    assert report.problems == []
    assert any("standings version 1" in note and "rank_ci95" in note for note in report.notes)
    data["bots"][0]["wins"] += 1
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    problems = verify_folder(folder).problems
    assert len(problems) == 1 and "bots[0].wins is" in problems[0].message


def test_rank_intervals_of_the_current_version_are_rechecked(folder: pathlib.Path) -> None:
    path = folder / "standings.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["bots"][0]["rank_ci95"] = [9, 9]
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    problems = verify_folder(folder).problems
    assert len(problems) == 1 and "rank_ci95" in problems[0].message
