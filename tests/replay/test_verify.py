"""``referee verify`` on single logs: clean games pass, every kind of damage is named.

The corrupted logs are made from the stored fixtures (tests/replay/data),
whose records are known line by line: each case edits one thing and checks
that the first discrepancy is reported at the right line and position.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import gzip
import json
import pathlib
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import CliRunner

from referee.audit.logs import verify_log
from referee.cli import cli
from referee.engine import MoonScoring, Rules, TieRule
from tests.replay.fixtures import FAULTS_LOG, MOON_LOG, play

Records = list[Any]  # dicts, or raw strings for lines that are not JSON


def load(path: pathlib.Path) -> Records:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write(path: pathlib.Path, records: Records, *, tail: str = "") -> pathlib.Path:
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("".join(line + "\n" for line in lines) + tail, encoding="utf-8")
    return path


def at(line: int, edit: Callable[[dict[str, Any]], None]) -> Callable[[Records], Records]:
    """An edit of the record on ``line`` (1-based)."""

    def change(records: Records) -> Records:
        edit(records[line - 1])
        return records

    return change


def drop(line: int) -> Callable[[Records], Records]:
    return lambda records: records[: line - 1] + records[line:]


@dataclasses.dataclass(frozen=True)
class Case:
    edit: Callable[[Records], Records]
    line: int
    message: str
    hand: int | None = None
    trick: int | None = None
    seat: int | None = None
    log: pathlib.Path = FAULTS_LOG


def _swap_deal(record: dict[str, Any]) -> None:
    hands = record["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]


# Line numbers refer to tests/replay/data/faults.jsonl (moon.jsonl where said):
#  2 deal h1 | 3-6 passes (4: seat 1's fallback) | 12, 17, 27: seat 1's fallback plays
#  22-25 plays of h1 t4 (seats 1, 2, 3, 0) | 26 trick h1 t4 | 72 hand_end h1
#  73 deal h2 | 74 forfeit of seat 1 | 75 its DealHand fault | 146 game_end
CASES = {
    "a card changed to another legal card": Case(
        at(23, lambda r: r.update(card="5S")), 26, "seat 2's card differs", 1, 4, 2
    ),
    "a card changed to an illegal card": Case(
        at(24, lambda r: r.update(card="5D")), 24, "illegal play 5♦: must follow suit", 1, 4, 3
    ),
    "a card changed to one not held": Case(
        at(24, lambda r: r.update(card="KH")), 24, "does not hold K♥", 1, 4, 3
    ),
    "a missing play line": Case(drop(23), 23, "seat 2 is to play", 1, 4, 3),
    "a missing trick line": Case(drop(26), 26, "expected the end of trick 4", 1, 5, 1),
    "a missing hand_end line": Case(drop(72), 72, "expected the scoring of hand 1", 2),
    "a missing deal line": Case(drop(73), 75, "expected the deal of hand 2", 2, None, 0),
    "a missing pass line": Case(drop(5), 6, "expected a pass (seats 2 have not passed)", 1, 1, 0),
    "a missing game_end line": Case(drop(146), 145, "game_end is missing (a truncated file?)", 2),
    "a bad hand total": Case(
        at(72, lambda r: r["totals"].__setitem__(2, 5)),
        72,
        "totals recorded as [3, 22, 5, 1]",
        1,
        None,
        2,
    ),
    "bad hand points": Case(
        at(145, lambda r: r["points"].__setitem__(3, 0)), 145, "the hand's points", 2, None, 3
    ),
    "a bad final score": Case(
        at(146, lambda r: r["scores"].__setitem__(0, 4)), 146, "the game's scores", 2, None, 0
    ),
    "bad placements": Case(
        at(146, lambda r: r.update(placements=[1, 4, 3, 2])), 146, "placements", 2, None, 0
    ),
    "an extra card in the legal set": Case(
        at(23, lambda r: r["legal"].append("AS")), 23, "has A♠ too many", 1, 4, 2
    ),
    "a card missing from the legal set": Case(
        at(22, lambda r: r["legal"].remove("5H")), 22, "lacks 5♥", 1, 4, 1
    ),
    "a changed trick winner": Case(
        at(26, lambda r: r.update(winner=3)), 26, "trick winner recorded as 3", 1, 4, 1
    ),
    "changed trick points": Case(
        at(21, lambda r: r.update(points=13)), 21, "trick points recorded as 13", 1, 3, 1
    ),
    "a changed deal": Case(at(2, _swap_deal), 2, "not the seed's", 1, None, 0),
    "a pass of a card not held": Case(
        at(3, lambda r: r.update(cards=["AH", "KH", "2S"])), 3, "illegal pass", 1, None, 0
    ),
    "a fallback card that is not the seeded one": Case(
        at(27, lambda r: r.update(card="7D")), 27, "the seeded fallback is 6♦", 1, 5, 1
    ),
    "a fallback pass that is not the seeded one": Case(
        at(4, lambda r: r.update(cards=["7C", "QC", "8S"])), 4, "seeded fallback", 1, None, 1
    ),
    "a fault on a move said to be the bot's": Case(
        at(22, lambda r: r.update(fault={"kind": "timeout", "message": "x"})),
        22,
        "a fault, but the bot's move was used",
        1,
        4,
        1,
    ),
    "a fallback without a fault": Case(
        at(27, lambda r: r.pop("fault")), 27, "a fallback move without a fault", 1, 5, 1
    ),
    "an illegal_card fault for a legal answer": Case(
        at(12, lambda r: r.update(answer="7C")), 12, "but 7♣ is a legal play", 1, 2, 1
    ),
    "a missing forfeit": Case(drop(74), 74, "fault 5 (max_faults 5) without a forfeit", 2, None, 1),
    "a forfeit too early": Case(
        lambda rs: [*rs[:26], rs[73], *rs[26:]], 27, "a forfeit at 5 faults", 2, None, 1
    ),
    "a bot move after the forfeit": Case(
        at(77, lambda r: r.update(source="bot")),
        77,
        "a move from a bot that had forfeited",
        2,
        None,
        1,
    ),
    "wrong fault counts at the end": Case(
        at(146, lambda r: r["faults"][1].update(timeout=2)), 146, "the game's faults", 2, None, 1
    ),
    "a wrong forfeited flag": Case(
        at(146, lambda r: r["forfeited"].__setitem__(1, False)), 146, "forfeited", 2, None, 1
    ),
    "a line that is not JSON": Case(lambda rs: [*rs[:49], "{oops", *rs[50:]], 50, "not JSON", 1),
    "a record without a type": Case(
        lambda rs: [*rs[:49], '{"hand": 1}', *rs[50:]], 50, "not a log record", 1
    ),
    "an unknown record type": Case(
        at(50, lambda r: r.update(type="banana")), 50, "found a banana record", 1, 9, 0
    ),
    "a malformed record": Case(
        at(50, lambda r: r.pop("card")), 50, "play record has no 'card'", 1, 9, 0
    ),
    "a card that is not a card": Case(
        at(50, lambda r: r.update(card="1Z")), 50, "'card' is not a card: '1Z'", 1, 9, 0
    ),
    "a record after game_end": Case(lambda rs: [*rs, rs[-1]], 147, "expected nothing more"),
    "an aborted game": Case(
        lambda rs: [*rs[:100], {"type": "game_abort", "hand": 2, "reason": "KeyboardInterrupt"}],
        101,
        "the game was aborted: KeyboardInterrupt",
        2,
    ),
    "a header that is not a game log": Case(
        at(1, lambda r: r.update(format="something-else")), 1, "not a game log"
    ),
    "a header with bad rules": Case(
        at(1, lambda r: r["rules"].update(num_players=9)), 1, "num_players must be 3 to 7"
    ),
    "a fallback moon choice other than the default": Case(
        at(72, lambda r: r.update(choice="subtract_from_self")),
        72,
        "the fallback moon choice is add_to_others",
        1,
        None,
        0,
        MOON_LOG,
    ),
    "a wrong moon shooter": Case(
        at(73, lambda r: r.update(moon_shooter=1)),
        73,
        "moon_shooter recorded as 1",
        1,
        None,
        None,
        MOON_LOG,
    ),
    "a wrong moon scoring": Case(
        at(73, lambda r: r.update(moon_scoring="subtract_from_self")),
        73,
        "moon_scoring",
        1,
        None,
        None,
        MOON_LOG,
    ),
    "a missing moon choice": Case(
        drop(72), 72, "expected the moon choice of seat 0", 1, None, None, MOON_LOG
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_corruption_is_found_where_it_is(name: str, tmp_path: pathlib.Path) -> None:
    case = CASES[name]
    bad = write(tmp_path / "bad.jsonl", case.edit(copy.deepcopy(load(case.log))))
    problem = verify_log(bad).problem
    assert problem is not None, f"{name}: not detected"
    assert (problem.line, problem.hand, problem.trick, problem.seat) == (
        case.line,
        case.hand,
        case.trick,
        case.seat,
    ), str(problem)
    assert case.message in problem.message, str(problem)
    assert problem.path == str(bad)


def test_the_stored_logs_verify() -> None:
    for log in (FAULTS_LOG, MOON_LOG):
        report = verify_log(log)
        assert report.ok, report.problem
    report = verify_log(FAULTS_LOG)
    assert (report.game_id, report.hands, report.records) == ("faults-7", 2, 146)
    assert report.summary["scores"] == [3, 32, 15, 2]
    assert report.summary["forfeited"] == [False, True, False, False]
    assert sum(report.summary["faults"][1].values()) == 5


def test_truncated_mid_line(tmp_path: pathlib.Path) -> None:
    lines = FAULTS_LOG.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:40]) + lines[40][:30], encoding="utf-8")
    problem = verify_log(cut).problem
    assert problem is not None
    assert (problem.line, problem.hand) == (41, 1)
    assert "not JSON" in problem.message and "truncated" in problem.message


def test_truncated_at_a_line_end(tmp_path: pathlib.Path) -> None:
    lines = FAULTS_LOG.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:40]), encoding="utf-8")
    problem = verify_log(cut).problem
    assert problem is not None
    assert (problem.line, problem.hand, problem.trick) == (40, 1, 7)
    assert "the log ends before the game does" in problem.message


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty file"),
        (b"\xff\xfe\x00garbage\n", "not UTF-8"),
        (b"hello\n", "not JSON"),
        (b'{"type": "deal"}\n', "not a game log"),
    ],
)
def test_not_a_log(tmp_path: pathlib.Path, content: bytes, message: str) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(content)
    problem = verify_log(path).problem
    assert problem is not None and message in problem.message


# Fresh games: no false alarms, whatever the rules ------------------------------------

RULE_SETS = {
    "standard": Rules(target_score=60),
    "three players": Rules(num_players=3, target_score=60),
    "five players, omnibus": Rules(num_players=5, target_score=60, omnibus=True),
    "six players, V1 and V7": Rules(
        num_players=6, target_score=60, queen_breaks_hearts=True, points_on_first_trick=True
    ),
    "seven players, moon subtracts": Rules(
        num_players=7, target_score=60, moon_scoring=MoonScoring.SUBTRACT_FROM_SELF
    ),
    "shooter chooses, ties share": Rules(
        target_score=40, moon_scoring=MoonScoring.SHOOTER_CHOOSES, tie_rule=TieRule.SHARE
    ),
    "last-hand tie rule": Rules(target_score=40, tie_rule=TieRule.LAST_HAND),
}


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_fresh_games_verify(name: str, tmp_path: pathlib.Path) -> None:
    rules = RULE_SETS[name]
    n = rules.num_players
    bots = [("random", "heuristic")[s % 2] + f"#{s}" for s in range(n)]
    plan = {"h1-t2-s1": "illegal", "h1-t6-s1": "not_held", "h2-pass-s1": "duplicate"}
    for seed in (1, 2):
        log = tmp_path / f"{seed}.jsonl"
        record = play(log, game_id=f"g{seed}", seed=seed, bots=bots, rules=rules, plans={1: plan})
        report = verify_log(log)
        assert report.ok, report.problem
        assert report.summary["scores"] == list(record.scores)
        assert report.summary["hand_scores"] == [list(h) for h in record.hand_scores]
        assert report.summary["faults"] == list(record.faults)


# The command ------------------------------------------------------------------------


def test_cli_ok_and_fail(tmp_path: pathlib.Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["verify", str(FAULTS_LOG), str(MOON_LOG)])
    assert result.exit_code == 0, result.output
    assert f"OK {FAULTS_LOG}: game faults-7, 2 hands, 146 records" in result.output
    bad = write(tmp_path / "bad.jsonl", CASES["a changed trick winner"].edit(load(FAULTS_LOG)))
    result = runner.invoke(cli, ["verify", str(FAULTS_LOG), str(bad)])
    assert result.exit_code == 1
    assert f"FAIL {bad}:26: hand 1, trick 4, seat 1: trick winner recorded as 3" in result.output
    assert "Traceback" not in result.output
    result = runner.invoke(cli, ["verify", "-q", str(FAULTS_LOG)])
    assert result.exit_code == 0 and result.output == ""


def test_cli_damaged_file_is_not_a_traceback(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "binary.jsonl"
    path.write_bytes(bytes(range(256)) * 4)
    result = CliRunner().invoke(cli, ["verify", str(path)])
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert f"FAIL {path}:1:" in result.output


# Damage of any shape: a report, never a traceback -------------------------------------

_ODD_VALUES = (None, -1, 0, 99, 2.5, "", "ZZ", "QS", [], [1, 2], ["QS", 7], {}, {"a": 1}, True)


def _mutations(records: Records, count: int) -> list[Records]:
    """``count`` copies of ``records``, each changed at random in one place."""
    import random

    rng = random.Random(2024)
    out = []
    for _ in range(count):
        copy_ = copy.deepcopy(records)
        index = rng.randrange(len(copy_))
        record = copy_[index]
        how = rng.random()
        if how < 0.1:
            del copy_[index]
        elif how < 0.2:
            other = rng.randrange(len(copy_))
            copy_[index], copy_[other] = copy_[other], copy_[index]
        else:
            key = rng.choice(sorted(record))
            if how < 0.3:
                del record[key]
            else:
                record[key] = rng.choice(_ODD_VALUES)
        out.append(copy_)
    return out


def test_random_damage_is_reported_not_raised(tmp_path: pathlib.Path) -> None:
    from referee.audit.render_html import game_data
    from referee.audit.render_text import render_text
    from referee.audit.replay import load_game

    path = tmp_path / "x.jsonl"
    found = 0
    for number, records in enumerate(_mutations(load(FAULTS_LOG), 200)):
        write(path, records)
        report = verify_log(path)  # must not raise
        found += report.problem is not None
        if number % 4:
            continue
        try:
            game = load_game(path, strict=False)
        except Exception as error:  # only a header it cannot read
            assert type(error).__name__ == "LogError", repr(error)
            continue
        render_text(game)
        render_text(game, seat=1)
        game_data(game, seat=2)
    # What goes unnoticed are changes of the time spent and of decision ids.
    assert found >= 185


def test_bytes_that_are_not_utf8_are_placed_in_a_compressed_log_too(tmp_path: pathlib.Path) -> None:
    """The damaged line is found through gamelog's reader, which decompresses a .gz log."""
    lines = FAULTS_LOG.read_bytes().splitlines(keepends=True)
    damaged = b"".join(lines[:5]) + b'{"type": "play", "x": "\xff"}\n' + b"".join(lines[5:])
    for name, data in (("x.jsonl", damaged), ("x.jsonl.gz", gzip.compress(damaged))):
        path = tmp_path / name
        path.write_bytes(data)
        problem = verify_log(path).problem
        assert problem is not None, name
        assert (problem.line, problem.message) == (6, "not UTF-8 text (byte 0xff): not a game log?")


def test_log_verification_imports_no_tournament_folder_or_bot() -> None:
    """audit.logs imports only the engine, gamelog and fallback: the runner can import it."""
    code = "import sys, referee.audit.logs; print(sorted(m for m in sys.modules if m.split('.')[0] == 'referee'))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(ast.literal_eval(done.stdout))
    # gamelog's own imports: the durable file writes and the display limits of bot text.
    allowed = {"referee", "referee.durable", "referee.safetext", "referee.audit"}
    allowed |= {"referee.audit.logs", "referee.match", "referee.match.fallback"}
    allowed |= {
        "referee.match.gamelog",
        "referee.match.gamelog.files",
        "referee.match.gamelog.records",
    }
    assert {m for m in loaded if not m.startswith("referee.engine")} <= allowed, loaded
