"""The strong bot plays real games: every variant, 3 to 7 players, short move times.

The bot folder is launched as in a tournament (sandboxed, over gRPC, by
``referee.players.supply.BotPool``) and plays short games against built-in bots through
the match runner. It must play every decision itself: no fault of any kind.
Timing is asserted only as the referee judges it (a timeout is a fault), with
a generous grace so that a loaded machine does not fail the test; the bot's
own budget is about half the move time (docs/strategy.md). One game goes
through the `referee match` command line with its default grace.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
from collections.abc import Iterator

import pytest

from referee.engine import MoonScoring, Rules, TieRule
from referee.match.gamelog import read_log
from referee.match.runner import GameSpec, play_game
from referee.players import Player, builtin_player
from referee.players.policy import FaultPolicy, TimeControl
from referee.players.specs import parse_bot
from referee.players.supply import BotPool
from tests.strong.conftest import STRONG

#: A generous grace: only a bot that ignores its clock times out.
TIME = TimeControl(move_time_ms=50, grace_ms=1000)

VARIANTS = [
    Rules(target_score=20),
    Rules(num_players=3, omnibus=True, target_score=20),
    Rules(num_players=5, queen_breaks_hearts=True, points_on_first_trick=True, target_score=20),
    Rules(
        num_players=6,
        moon_scoring=MoonScoring.SHOOTER_CHOOSES,
        omnibus=True,
        tie_rule=TieRule.SHARE,
        target_score=20,
    ),
    Rules(
        num_players=7,
        moon_scoring=MoonScoring.SUBTRACT_FROM_SELF,
        queen_breaks_hearts=True,
        target_score=20,
    ),
    Rules(
        moon_scoring=MoonScoring.SHOOTER_CHOOSES,
        points_on_first_trick=True,
        tie_rule=TieRule.LAST_HAND,
        target_score=20,
    ),
]


@pytest.fixture(scope="module")
def strong(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Player]:
    log_dir = tmp_path_factory.mktemp("strong-bots")
    with BotPool(log_dir=log_dir, time_control=TIME) as pool:
        yield pool.start(parse_bot(str(STRONG), name="strong"))


def strong_decisions(log: pathlib.Path, seat: int) -> list[dict]:
    return [
        r
        for _, r in read_log(log)
        if r.get("type") in ("play", "pass", "moon_choice") and r.get("seat") == seat
    ]


def play(
    strong: Player,
    rules: Rules,
    seat: int,
    path: pathlib.Path,
    seed: int,
    time_control: TimeControl = TIME,
) -> list[dict]:
    """One game with the strong bot in ``seat``: no fault, every decision its own; those."""
    n = rules.num_players
    others = [builtin_player("heuristic" if s % 2 else "random") for s in range(n)]
    players = [strong if s == seat else others[s] for s in range(n)]
    spec = GameSpec(
        game_id=f"strong-{n}-{seed}",
        seed=seed,
        bots=tuple("strong" if s == seat else f"builtin-{s}" for s in range(n)),
        rules=rules,
        time_control=time_control,
        fault_policy=FaultPolicy(max_faults=0),
    )
    record = play_game(spec, players, path)
    assert record.faults[seat] == {}, record.faults
    assert not record.forfeited[seat]
    decisions = strong_decisions(path, seat)
    assert decisions and all(d["source"] == "bot" for d in decisions)
    assert record.decisions[seat] == len(decisions)
    # The referee's limit is the move time + the bank left + a generous grace.
    limit = time_control.move_time_ms + time_control.time_bank_ms + time_control.grace_ms
    assert all(d["ms"] < limit for d in decisions)
    return decisions


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.num_players}p")
def test_plays_every_variant_without_faults(
    strong: Player, rules: Rules, tmp_path: pathlib.Path
) -> None:
    play(strong, rules, seat=rules.num_players - 1, path=tmp_path / "game.jsonl", seed=17)


def test_spends_a_time_bank_without_timing_out(strong: Player, tmp_path: pathlib.Path) -> None:
    """With a bank the bot thinks longer than the move time, and never runs out."""
    # A bank large enough that its share stays above the move time even where the bot
    # shrinks its budget for the machine's load (as it does on a busy CI machine).
    bank = TimeControl(move_time_ms=50, time_bank_ms=6000, grace_ms=1000)
    decisions = play(
        strong, Rules(target_score=20), 0, tmp_path / "game.jsonl", seed=23, time_control=bank
    )
    # It used the bank: some answers took longer than the move time, paid from the bank...
    over = [d for d in decisions if d["ms"] > bank.move_time_ms]
    assert over, [d["ms"] for d in decisions]
    banks = [d["bank_ms"] for d in decisions if "bank_ms" in d]  # what was left after each
    assert banks and min(banks) < bank.time_bank_ms, banks
    # ... and never ran it dry (a dry bank and one more overrun would be a timeout).
    assert min(banks) > 0, banks


def test_referee_match_command(tmp_path: pathlib.Path) -> None:
    """`referee match` with the bot folder, at 200 ms a move (the benchmark's).

    With a bank of a second: the bot thinks about 0.1 s of its 0.2 s, so the bank
    is there for a stall of a loaded machine (over a second of margin before a
    timeout, not 0.2 s); the bot's budget grows by only a fortieth of it a move.
    """
    out = tmp_path / "match"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "referee.cli",
            "match",
            str(STRONG),
            "heuristic",
            "heuristic",
            "random",
            "--seed",
            "5",
            "--target",
            "15",
            "--move-time-ms",
            "200",
            "--time-bank-ms",
            "1000",
            "--moon",
            "shooter_chooses",
            "--out",
            str(out),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout[done.stdout.index("{") :])
    assert record["faults"][0] == {}, record["faults"]
    decisions = strong_decisions(out / "game.jsonl", 0)
    assert decisions and all(d["source"] == "bot" for d in decisions)
