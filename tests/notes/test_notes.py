"""Bot notes in replays: a note sent with a decision (hearts.v1 ``note``) is logged with it
and shown beside it, for the seat that wrote it, in ``referee replay`` (terminal and
``--html``); old logs without notes still read, and a note never changes a game's record.

The bot is :mod:`tests.notes.noting_bot` (on ``referee.botkit``), launched by
``referee match`` as a user would, against the built-in bots.
"""

from __future__ import annotations

import json
import pathlib
import sys

import pytest
from click.testing import CliRunner

from referee.audit.logs import verify_log
from referee.audit.replay import load_game
from referee.cli import cli
from referee.match.gamelog import LogError, PlayRecord, read_log
from referee.safetext import NOTE_CHARS
from tests.helpers import launched_pids  # noqa: F401 (an autouse fixture)

BOT = pathlib.Path(__file__).resolve().parent / "noting_bot.py"


def noting_command(*args: str) -> str:
    return " ".join([sys.executable, str(BOT), "--address", "{address}", *args])


def play(tmp_path: pathlib.Path, *extra: str) -> pathlib.Path:
    """One short game, the noting bot in seat 0 (N), built-in bots in the others."""
    out = tmp_path / "match"
    result = CliRunner().invoke(
        cli,
        [
            "match",
            noting_command(*extra),
            "random",
            "heuristic",
            "random",
            "--seed",
            "11",
            "--target",
            "30",
            "--sandbox",
            "none",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    return out / "game.jsonl"


@pytest.fixture(scope="module")
def noted_log(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return play(tmp_path_factory.mktemp("notes"))


def records(path: pathlib.Path) -> list[dict]:
    return [r for _, r in read_log(path)]


def test_every_decision_of_the_noting_seat_is_logged_with_its_note(noted_log: pathlib.Path):
    plays = [r for r in records(noted_log) if r["type"] == "play"]
    passes = [r for r in records(noted_log) if r["type"] == "pass"]
    mine = [r for r in plays if r["seat"] == 0]
    assert mine and all(r["note"].startswith(f"note {r['decision']}: ") for r in mine)
    assert all(r["note"].endswith(" lowest") for r in mine)
    assert all(r["source"] == "bot" for r in mine)  # a note does not get in the answer's way
    assert [r for r in passes if r["seat"] == 0 and "note" in r]
    # The built-in bots send none, and no record carries an empty note.
    assert not [r for r in plays + passes if r["seat"] != 0 and "note" in r]


def test_the_terminal_replay_shows_each_note_under_its_trick(noted_log: pathlib.Path):
    result = CliRunner().invoke(cli, ["replay", str(noted_log), "--hand", "1"])
    assert result.exit_code == 0, result.output
    game = load_game(noted_log)
    first = game.hands[0].tricks[0]
    note = next(p.note for p in first.plays if p.seat == 0)
    lines = result.output.splitlines()
    trick_line = next(i for i, line in enumerate(lines) if line.lstrip().startswith("1  "))
    expected = f"        ✎ N {game.seats[0].bot}: {note}"
    assert expected in lines[trick_line + 1 : trick_line + 6]
    assert "✎ N" in result.output and "high cards away" in result.output  # the pass's note


def test_a_seat_view_shows_only_that_seats_notes(noted_log: pathlib.Path):
    own = CliRunner().invoke(cli, ["replay", str(noted_log), "--seat", "0", "--hand", "1"])
    other = CliRunner().invoke(cli, ["replay", str(noted_log), "--seat", "1", "--hand", "1"])
    assert own.exit_code == 0 and other.exit_code == 0, own.output + other.output
    assert "✎" in own.output
    assert "✎" not in other.output  # a note may name its seat's cards


def test_the_html_replay_shows_the_notes(noted_log: pathlib.Path, tmp_path: pathlib.Path):
    page = tmp_path / "replay.html"
    result = CliRunner().invoke(cli, ["replay", str(noted_log), "--html", str(page)])
    assert result.exit_code == 0, result.output
    html = page.read_text()
    game = load_game(noted_log)
    note = next(p.note for p in game.hands[0].tricks[0].plays if p.seat == 0)
    assert note is not None and json.dumps(note)[1:-1] in html
    assert "✎" in html
    # A seat's view carries only its own notes (one may name the seat's cards).
    for seat, shown in ((0, True), (1, False)):
        view = tmp_path / f"seat{seat}.html"
        args = ["replay", str(noted_log), "--seat", str(seat), "--html", str(view)]
        assert CliRunner().invoke(cli, args).exit_code == 0
        assert (json.dumps(note)[1:-1] in view.read_text()) is shown
        assert ("high cards away" in view.read_text()) is shown  # the pass's note


def test_a_hostile_note_is_escaped_and_cut_everywhere(tmp_path: pathlib.Path):
    """The attack: a note of terminal escapes, a forged log line and a bidi override."""
    log = play(tmp_path, "--hostile")
    notes = [r["note"] for r in records(log) if r.get("note")]
    assert notes and all(len(n) == NOTE_CHARS for n in notes)
    assert all("\x1b" not in n and "\n" not in n and "\u202e" not in n for n in notes)
    assert notes[0].startswith("\\x1b[2J\\x1b[31mPWNED\\r\\n{")
    # The forged line stayed inside the note: the log's records are the game's.
    assert [r["type"] for r in records(log)].count("game_end") == 1
    shown = CliRunner().invoke(cli, ["replay", str(log)])
    assert shown.exit_code == 0, shown.output
    assert "\x1b" not in shown.output and "\u202e" not in shown.output
    assert "PWNED" in shown.output
    page = tmp_path / "hostile.html"
    assert CliRunner().invoke(cli, ["replay", str(log), "--html", str(page)]).exit_code == 0
    html = page.read_text()
    assert "\x1b" not in html and '{"type": "game_end"}' not in html
    assert verify_log(log).ok


def test_a_note_never_changes_the_record(noted_log: pathlib.Path, tmp_path: pathlib.Path):
    """verify replays the game from its moves: notes added, changed or removed change nothing."""
    lines = noted_log.read_text().splitlines()
    baseline = verify_log(noted_log)
    assert baseline.ok, baseline
    changed = []
    for line in lines:
        record = json.loads(line)
        if record["type"] == "play":
            if "note" in record:
                del record["note"]
            else:
                record["note"] = "I won this game (R9)"
        changed.append(json.dumps(record))
    other = tmp_path / "changed.jsonl"
    other.write_text("\n".join(changed) + "\n")
    report = verify_log(other)
    assert report.ok, report
    assert load_game(other).end == load_game(noted_log).end


def test_an_old_log_without_notes_reads_and_a_bad_note_is_named(tmp_path: pathlib.Path):
    record = {
        "type": "play", "hand": 1, "trick": 1, "seat": 0, "decision": "h1-t1-s0",
        "legal": ["2C"], "source": "bot", "card": "2C",
    }  # fmt: skip
    assert PlayRecord.from_json(record).note is None  # an old log's play: no note
    assert PlayRecord.from_json({**record, "note": "why"}).note == "why"
    assert "note" not in PlayRecord.from_json(record).to_json()
    path = tmp_path / "bad.jsonl"
    source = pathlib.Path(__file__).resolve().parents[1] / "replay" / "data"
    logs = sorted(source.glob("*.jsonl"))
    assert logs, "no sample logs in tests/replay/data"
    text = logs[0].read_text().splitlines()
    at = next(i for i, line in enumerate(text) if json.loads(line)["type"] == "play")
    bad = json.loads(text[at])
    bad["note"] = ["not", "a", "string"]
    text[at] = json.dumps(bad)
    path.write_text("\n".join(text) + "\n")
    with pytest.raises(LogError) as caught:
        load_game(path)
    assert str(caught.value).startswith(f"{path}:{at + 1}: "), caught.value  # file and line
    assert "'note' should be a string" in str(caught.value)


def test_the_python_starter_explains_its_plays(tmp_path: pathlib.Path):
    """The starter kit's ``play_note``, returned with ``noted``, reaches the log for its seat."""
    starter = pathlib.Path(__file__).resolve().parents[2] / "sample_bots" / "python" / "starter"
    out = tmp_path / "starter"
    result = CliRunner().invoke(
        cli,
        [
            "match", str(starter), "random", "random", "random",
            "--seed", "5", "--target", "26", "--sandbox", "none", "--out", str(out),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    plays = [r for r in records(out / "game.jsonl") if r["type"] == "play" and r["seat"] == 0]
    assert plays
    for r in plays:
        assert r["note"] == f"{r['card']} of {len(r['legal'])} legal (trick {r['trick']})"
