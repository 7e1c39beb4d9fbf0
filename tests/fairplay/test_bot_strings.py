"""Bot-provided strings never reach a terminal or a page raw (Fair play I, item 5).

A real bot process (``bots/evil_strings.py``) whose handshake fields and one
gRPC error's details hold line breaks, carriage returns, ANSI escapes, bidi
overrides, C1 controls and ``</script>`` plays a real tournament; then the
tournament's output, ``referee replay`` (text and HTML), ``referee
standings`` and ``referee check-bot`` must show those strings escaped, on one
line, and no honest bot may have been charged a fault. Old or hand-written
logs and journals holding raw strings are shown escaped too.
"""

from __future__ import annotations

import doctest
import json
import pathlib
import re
import sys
import textwrap
import unicodedata
from typing import Any

import pytest
from click.testing import CliRunner, Result

from referee import safetext
from referee.audit.render_html import render_html
from referee.audit.render_text import render_text
from referee.audit.replay import load_game
from referee.cli import cli
from referee.folder import Layout
from referee.match.gamelog import open_log
from referee.safetext import printable
from referee.stats.render import render
from referee.stats.standings import compute_standings
from tests.fairplay.bots.evil_strings import ATTACKS, SCRIPT
from tests.helpers import wait_no_processes_in

EVIL_BOT = pathlib.Path(__file__).parent / "bots" / "evil_strings.py"
#: How the evil bot is launched (the referee fills in the placeholders).
COMMAND = f"{{python}} {EVIL_BOT} --address {{address}}"
HONEST = ("r", "h1", "h2")
#: Colour codes the referee itself writes with --color (and nothing else).
_SGR = re.compile(r"\x1b\[[0-9;]*m")


def hidden_chars(text: str) -> list[str]:
    """The control, format and surrogate characters of ``text`` other than newlines."""
    return [
        f"U+{ord(c):04X}"
        for c in text
        if c != "\n" and unicodedata.category(c) in ("Cc", "Cf", "Cs")
    ]


def assert_shown_safely(text: str, where: str) -> None:
    """No raw control, escape or bidi character, and no line injected by a bot."""
    assert not hidden_chars(text), f"{where}: raw characters {hidden_chars(text)[:8]}"
    for line in text.splitlines():
        # The bot's fake line may be shown only as part of its escaped string.
        assert not line.lstrip().startswith("1  evil  0.000"), f"{where}: injected {line!r}"
        if "(fake line)" in line:
            assert "\\n  1  evil  0.000 pts/hand  (fake line)\\r" in line, f"{where}: {line!r}"


# printable -----------------------------------------------------------------------


def test_printable_doctests() -> None:
    failed, attempted = doctest.testmod(safetext)
    assert attempted > 0 and failed == 0


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("a\nb", "a\\nb"),
        ("a\r\nb\tc", "a\\r\\nb\\tc"),
        ("\x1b[2J\x1b]0;title\x07", "\\x1b[2J\\x1b]0;title\\x07"),
        ("\x00\x7f\x80\x9b\x9f", "\\x00\\x7f\\x80\\x9b\\x9f"),
        ("x\u202ay\u202bz\u202c\u202d\u202e", "x\\u202ay\\u202bz\\u202c\\u202d\\u202e"),
        ("\u2066\u2067\u2068\u2069", "\\u2066\\u2067\\u2068\\u2069"),
        ("\u200b\u200e\u200f\u061c\ufeff\u00ad", "\\u200b\\u200e\\u200f\\u061c\\ufeff\\xad"),
        ("tag\U000e0041", "tag\\U000e0041"),
        ("\ud800", "\\ud800"),
        ("Zoë ♥ 名前 🂡 C:\\bots", "Zoë ♥ 名前 🂡 C:\\bots"),
        ("", ""),
    ],
)
def test_printable_escapes_what_is_invisible_or_controls(raw: str, shown: str) -> None:
    assert printable(raw, 100) == shown
    assert printable(shown, 100) == shown  # idempotent


def test_printable_caps_the_length_with_an_ellipsis() -> None:
    assert printable("abcdef", 6) == "abcdef"
    assert printable("abcdefg", 6) == "abcde…"
    assert printable("\n" * 10, 7) == "\\n\\n\\n…"  # never half an escape
    assert printable("x", 1) == "x" and printable("xy", 1) == "…"
    for limit in range(1, 40):
        assert len(printable(ATTACKS + SCRIPT, limit)) <= limit
    with pytest.raises(ValueError):
        printable("x", 0)


# A real tournament with the evil bot ----------------------------------------------


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Play evil + random + 2 heuristic (one table, 4 rotations) and return what it printed."""
    folder = tmp_path_factory.mktemp("fairplay")
    config = folder / "evil.yaml"
    config.write_text(
        textwrap.dedent(
            f"""\
            name: fairplay
            seed: 11
            bots:
              evil: {json.dumps(COMMAND)}
              r: random
              h1: heuristic
              h2: heuristic
            rules: {{target_score: 30}}
            schedule: {{deal_sets: 1}}
            bot_processes: shared
            concurrency: 1
            output: out
            """
        ),
        encoding="utf-8",
    )
    result = invoke("tournament", str(config))
    assert result.exit_code == 0, result.output
    out = folder / "out"
    assert not wait_no_processes_in(folder)
    return {"out": out, "stdout": result.stdout, "stderr": result.stderr}


def journal(out: pathlib.Path) -> list[dict[str, Any]]:
    lines = (out / "journal.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def logs(out: pathlib.Path) -> list[pathlib.Path]:
    found = [path for _, path in Layout(out).game_logs()]
    assert len(found) == 4
    return found


def log_records(path: pathlib.Path) -> list[dict[str, Any]]:
    """The records of a game log as written (compressed or not)."""
    with open_log(path) as handle:
        return [json.loads(line) for line in handle if line.strip()]


def test_the_tournament_shows_the_bot_strings_escaped(tournament: dict[str, Any]) -> None:
    out = tournament["out"]
    assert_shown_safely(tournament["stdout"], "tournament stdout")
    assert_shown_safely(tournament["stderr"], "tournament stderr")
    assert_shown_safely((out / "standings.txt").read_text(encoding="utf-8"), "standings.txt")
    games = [e for e in journal(out) if e["type"] == "game"]
    assert len(games) == 4
    evil_faults: dict[str, int] = {}
    for game in games:
        for bot, faults in zip(game["bots"], game["faults"], strict=True):
            if bot == "evil":
                for kind, count in faults.items():
                    evil_faults[kind] = evil_faults.get(kind, 0) + count
            else:
                assert bot in HONEST and faults == {}, f"{bot} was charged {faults}"
    # One error answer per bot process (a process may serve one game or all four).
    assert set(evil_faults) == {"rpc_error"} and 1 <= evil_faults["rpc_error"] <= 4


def test_the_logs_hold_the_strings_made_printable(tournament: dict[str, Any]) -> None:
    fault_messages = []
    for path in logs(tournament["out"]):
        records = log_records(path)
        seat = next(s for s in records[0]["seats"] if s["bot"] == "evil")
        assert seat["version"] == printable(SCRIPT + ATTACKS, 64)
        assert seat["author"] == printable("mallory" + ATTACKS + SCRIPT, 128)
        assert seat["language"] == printable("Py\nthon\r\x1b[2J\u202e" + SCRIPT, 32)
        fault_messages += [r["fault"]["message"] for r in records if "fault" in r]
    assert 1 <= len(fault_messages) <= 4 and len(set(fault_messages)) == 1
    message = fault_messages[0]
    assert message.startswith("PlayCard: UNKNOWN: ") and len(message) <= 340
    assert printable(message, 1000) == message and "\\x1b[2J" in message


def test_replay_text_shows_the_strings_escaped(tournament: dict[str, Any]) -> None:
    out = tournament["out"]
    listing = invoke("replay", str(out))
    assert listing.exit_code == 0
    assert_shown_safely(listing.output, "replay listing")
    shown_fault = False
    for path in logs(out):
        for extra in ([], ["--seat", "evil"], ["--seat", "N"]):
            result = invoke("replay", str(path), *extra)
            assert result.exit_code == 0, result.output
            assert_shown_safely(result.output, f"replay {path.name} {extra}")
            shown_fault |= "\\x1b]0;title\\x07" in result.output
        colored = invoke("replay", str(path), "--color")
        assert "\x1b[31m" in colored.output  # the referee's own colours stay
        assert_shown_safely(_SGR.sub("", colored.output), f"replay --color {path.name}")
        assert "\\x1b[2J" in _SGR.sub("", colored.output)  # the bot's are escaped
    assert shown_fault


def test_replay_html_holds_no_markup_from_the_bot(
    tournament: dict[str, Any], tmp_path: pathlib.Path
) -> None:
    for path in logs(tournament["out"]):
        page_path = tmp_path / f"{path.name.split('.')[0]}.html"
        result = invoke("replay", str(path), "--html", str(page_path))
        assert result.exit_code == 0, result.output
        page = page_path.read_text(encoding="utf-8")
        assert page.count("<script") == 2 and page.count("</script>") == 2
        assert "alert(1)" not in page.replace("\\u003c/script\\u003e\\u003cscript\\u003ealert", "")
        data_text = page.split('<script id="game-data" type="application/json">')[1]
        data = json.loads(data_text.split("</script>")[0])
        evil = next(s for s in data["seats"] if s["bot"] == "evil")
        assert SCRIPT in evil["about"]  # as text, escaped in the JSON
        assert not hidden_chars(json.dumps(data, ensure_ascii=False))


def test_standings_show_the_strings_escaped(tournament: dict[str, Any]) -> None:
    out = tournament["out"]
    for fmt in ("table", "markdown", "csv"):
        result = invoke("standings", str(out), "--format", fmt)
        assert result.exit_code == 0, result.output
        assert_shown_safely(result.output, f"standings --format {fmt}")
    result = invoke("standings", str(out), "--format", "json")
    assert not hidden_chars(result.stdout) and "\x1b" not in result.stdout
    assert json.loads(result.stdout)["games_played"] == 4


def test_check_bot_reports_the_strings_escaped(tmp_path: pathlib.Path) -> None:
    command = COMMAND.replace("{python}", sys.executable)
    result = invoke(
        "check-bot", command, "--out", str(tmp_path / "check"), "--move-time-ms", "2000"
    )
    assert result.exit_code == 1, result.output  # the error answer is a failure
    assert_shown_safely(result.stdout, "check-bot report")
    assert_shown_safely(result.stderr, "check-bot progress")
    first = result.stdout.splitlines()[0]
    assert first.startswith("check-bot evil\\n  1  evil  0.000 pts/hand  (fake line)\\r")
    assert "Exception calling application: details\\n  1  evil" in result.stdout
    assert not wait_no_processes_in(tmp_path)


# Old or hand-written files holding raw strings ------------------------------------


def test_a_hand_written_log_with_raw_strings_is_shown_escaped(
    tournament: dict[str, Any], tmp_path: pathlib.Path
) -> None:
    records = log_records(logs(tournament["out"])[0])
    evil = ATTACKS + SCRIPT
    for seat in records[0]["seats"]:
        seat.update(name="n" + evil, version="v" + evil, author="a" + evil, language="l" + evil)
    for record in records:
        if "fault" in record:
            record["fault"]["message"] = "m" + evil
            record["fault"]["kind"] = "k" + evil
    records.insert(-1, {"type": "game_abort", "reason": "r" + evil})  # an odd record: damage
    path = tmp_path / "raw.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    game = load_game(path, strict=False)
    assert_shown_safely(render_text(game), "render_text")
    assert_shown_safely(render_text(game, seat=1), "render_text as seat 1")
    result = invoke("replay", str(path))
    assert_shown_safely(result.output, "replay of a raw log")
    page = render_html(game)
    assert page.count("</script>") == 2 and "<script>alert" not in page
    data = json.loads(page.split('type="application/json">')[1].split("</script>")[0])
    assert not hidden_chars(json.dumps(data, ensure_ascii=False))


def test_a_hand_written_journal_with_raw_strings_is_shown_escaped() -> None:
    evil = ATTACKS + SCRIPT
    names = ["a" + evil, "b|c", "c", "d"]
    entries = [
        {"type": "bot", "bot": "d", "status": "start_failed", "reason": "stderr ends: " + evil},
        {
            "type": "game",
            "game_id": "g" + evil,
            "bots": [*names[:3], "e"],
            "scores": [10, 30, 86, 5],
            "placements": [2, 3, 4, 1],
            "winners": [3],
            "hand_scores": [[10, 30, 86, 5]],
            "moons": [0, 0, 0, 0],
            "faults": [{"k" + evil: 1}, {}, {}, {}],
            "forfeited": [False, False, False, False],
        },
    ]
    table = compute_standings(entries, bots=names, name="t" + evil)
    for fmt in ("table", "markdown"):
        text = render(table, fmt)
        assert_shown_safely(text, f"standings {fmt}")
        assert "[1] d: stderr ends: \\n  1  evil" in text
    assert "b\\|c" in render(table, "markdown")  # no extra column
    data = json.loads(render(table, "json"))
    assert data["bots"][-1]["reason"] == "stderr ends: " + evil  # the data stays exact
    assert not hidden_chars(render(table, "json"))
