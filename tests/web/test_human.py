"""The human seat as a player: asked by the match runner like a bot, answered like a page would.

A thread stands in for the person (tests/web/human_robot.py); the games
are real (``play_game``) and their logs are verified.
"""

from __future__ import annotations

import json
import pathlib
import threading
from typing import Any

import pytest

from referee.audit.logs import verify_log
from referee.engine import MoonScoring, Rules
from referee.match.runner import GameSpec, play_game
from referee.players.builtin import HeuristicPlayer, RandomPlayer
from referee.players.policy import FaultPolicy, TimeControl
from referee.web.human import HumanPlayer, Refusal, follow_all
from tests.web.human_robot import choose, illegal_card, play_out

#: A seed where the seat at South, choosing as ``random`` does, takes every heart and Q♠
#: in hand 1 (R8) at a table of heuristic, random, (South), heuristic.
MOON_SEED = 95
BOTS = ("heuristic", "random", "human", "heuristic#2")


def _game(
    tmp_path: pathlib.Path,
    human: HumanPlayer,
    *,
    seed: int = 7,
    rules: Rules | None = None,
    clock: TimeControl | None = None,
    policy: FaultPolicy | None = None,
) -> tuple[GameSpec, threading.Thread, dict[str, Any]]:
    spec = GameSpec(
        game_id=f"play-{seed}",
        seed=seed,
        bots=BOTS,
        rules=rules or Rules(target_score=1),
        fault_policy=policy or FaultPolicy(),
        seat_time_controls={2: clock or TimeControl(move_time_ms=60_000)},
    )
    result: dict[str, Any] = {}
    players = [HeuristicPlayer(), RandomPlayer(), human, HeuristicPlayer()]

    def run() -> None:
        result["record"] = play_game(
            spec, players, tmp_path / "game.jsonl", on_event=follow_all([human])
        )

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return spec, thread, result


def _records(tmp_path: pathlib.Path) -> list[dict[str, Any]]:
    lines = (tmp_path / "game.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_illegal_card_is_refused_with_its_rule_and_the_seat_plays_on(tmp_path):
    """R3-R6: the engine refuses the card with its rule id; the decision stays open."""
    human = HumanPlayer(2)
    spec, thread, result = _game(tmp_path, human)
    refusals: list[tuple[dict[str, Any], Refusal | None]] = []

    def try_illegal(table: dict[str, Any]) -> None:
        bad = illegal_card(table) if table["decision"]["kind"] == "play" else None
        if bad is not None:
            refusals.append((bad, human.answer(table["decision"]["id"], bad["card"])))
            assert human.table()["decision"]["id"] == table["decision"]["id"]  # still open

    play_out(
        human.table,
        human.answer,
        spec.game_id,
        over=lambda: not thread.is_alive(),
        on_decision=try_illegal,
    )
    thread.join()
    assert refusals, "no decision with an illegal card in the game"
    for bad, refusal in refusals:
        assert refusal is not None and not refusal.stale
        assert refusal.rule in {"R3", "R4", "R5", "R6"}
        assert (refusal.rule, refusal.message) == (bad["rule"], bad["reason"])  # shown before
    record = result["record"]
    assert record.faults[2] == {}  # refused clicks are not faults: the human tried again
    assert all(r.get("source") != "fallback" for r in _records(tmp_path))
    assert verify_log(tmp_path / "game.jsonl").ok


def test_pass_refusals_name_rule_r2(tmp_path):
    """R2: exactly the pass count, no card twice, only cards held; then a good pass."""
    human = HumanPlayer(2)
    spec, thread, _ = _game(tmp_path, human)
    seen: list[Any] = []

    def try_bad_passes(table: dict[str, Any]) -> None:
        if table["decision"]["kind"] != "pass":
            return
        decision = table["decision"]["id"]
        hand = [c["card"] for c in table["hand"]]
        others = [c for c in ("2C", "AS", "QS", "KH", "3D") if c not in hand]
        seen.append(human.answer(decision, hand[:2]))
        seen.append(human.answer(decision, [hand[0], hand[0], hand[1]]))
        seen.append(human.answer(decision, [hand[0], hand[1], others[0]]))
        seen.append(human.answer(decision, ["nonsense"]))

    play_out(
        human.table,
        human.answer,
        spec.game_id,
        over=lambda: not thread.is_alive(),
        on_decision=try_bad_passes,
    )
    thread.join()
    size, twice, not_held, nonsense = seen[:4]
    assert size is not None and size.rule == "R2" and "must pass 3 cards, not 2" in size.message
    assert twice is not None and twice.rule == "R2" and "duplicate" in twice.message
    assert not_held is not None and "does not hold" in not_held.message
    assert nonsense is not None and "not a card" in nonsense.message
    assert verify_log(tmp_path / "game.jsonl").ok


def test_answer_to_a_decision_not_open_is_stale(tmp_path):
    human = HumanPlayer(2)
    refusal = human.answer("h1-pass-s2", ["2C", "3C", "4C"])
    assert refusal is not None and refusal.stale


def test_moon_choice_is_asked_when_v2_shooter_chooses(tmp_path):
    """V2 shooter_chooses: the human who shot the moon (R8) picks subtract_from_self."""
    human = HumanPlayer(2)
    rules = Rules(target_score=1, moon_scoring=MoonScoring.SHOOTER_CHOOSES)
    spec, thread, result = _game(tmp_path, human, seed=MOON_SEED, rules=rules)
    bad: list[Refusal | None] = []

    def bad_moon(table: dict[str, Any]) -> None:
        if table["decision"]["kind"] == "moon":
            bad.append(human.answer(table["decision"]["id"], "both"))

    play_out(
        human.table,
        human.answer,
        spec.game_id,
        over=lambda: not thread.is_alive(),
        moon=MoonScoring.SUBTRACT_FROM_SELF.value,
        on_decision=bad_moon,
    )
    thread.join()
    assert bad and bad[0] is not None and bad[0].rule == "V2"
    choices = [r for r in _records(tmp_path) if r["type"] == "moon_choice"]
    assert choices and choices[0]["seat"] == 2 and choices[0]["source"] == "bot"
    assert choices[0]["choice"] == "subtract_from_self"
    assert result["record"].hand_scores[0] == (0, 0, -26, 0)
    assert human.table()["hands"][0]["moon_shooter"] == 2
    assert verify_log(tmp_path / "game.jsonl").ok


def test_a_human_who_leaves_gets_the_fallback_after_the_clock(tmp_path):
    """Nobody answers: each decision times out after the seat's clock (1.5 s), the fallback
    plays, and after max_faults the seat forfeits and the fallback plays it without asking."""
    human = HumanPlayer(2)
    clock = TimeControl(move_time_ms=1500)
    _, thread, result = _game(tmp_path, human, clock=clock, policy=FaultPolicy(max_faults=2))
    thread.join(timeout=60)
    assert not thread.is_alive()
    record = result["record"]
    assert record.faults[2] == {"timeout": 2} and record.forfeited[2]
    records = _records(tmp_path)
    mine = [r for r in records if r["type"] in ("pass", "play") and r["seat"] == 2]
    assert mine and all(r["source"] == "fallback" for r in mine)
    asked = [r for r in mine if r.get("fault")]
    assert len(asked) == 2 and all(r["ms"] >= 1500 for r in asked)  # the whole clock, waited
    header = records[0]
    assert header["time_control"]["seats"]["2"]["move_time_ms"] == 1500
    assert header["time_control"]["move_time_ms"] == 1000  # the bots' clock is their own
    notes = human.table()["notes"]
    assert any("clock ran out" in n for n in notes) and any("forfeited" in n for n in notes)
    assert verify_log(tmp_path / "game.jsonl").ok


@pytest.mark.parametrize("players", [3, 5])
def test_other_table_sizes(tmp_path, players):
    """V6: a human seat at a table of three or five, the labels ``Seat N``."""
    human = HumanPlayer(1)
    bots = [RandomPlayer() for _ in range(players - 1)]
    seats = [bots[0], human, *bots[1:]]
    spec = GameSpec(
        game_id="v6",
        seed=3,
        bots=tuple(f"b{i}" for i in range(players)),
        rules=Rules(num_players=players, target_score=1),
        seat_time_controls={1: TimeControl(move_time_ms=60_000)},
    )
    result: dict[str, Any] = {}
    thread = threading.Thread(
        target=lambda: result.update(
            r=play_game(spec, seats, tmp_path / "game.jsonl", on_event=follow_all([human]))
        ),
        daemon=True,
    )
    thread.start()
    play_out(human.table, human.answer, "v6", over=lambda: not thread.is_alive())
    thread.join()
    table = human.table()
    assert [s["label"] for s in table["seats"]] == [f"Seat {i + 1}" for i in range(players)]
    assert table["outcome"]["placements"] == list(result["r"].placements)
    assert verify_log(tmp_path / "game.jsonl").ok


def test_choose_matches_the_random_bot():
    """The robot's choice is the random bot's (so MOON_SEED stays meaningful)."""
    table = {
        "decision": {"id": "h1-pass-s2", "kind": "pass"},
        "rules": {**Rules().to_dict(), "pass_count": 3},
        "hand": [{"card": c} for c in ("2C", "5D", "9H", "QS", "AS")],
    }
    assert len(choose(table, "g")) == 3


def test_a_human_seat_that_does_not_follow_the_game_is_a_fault_not_a_hang(tmp_path):
    """Without on_event the seat cannot show or check a decision: a fault, and the fallback."""
    human = HumanPlayer(2)
    spec = GameSpec(
        game_id="unfollowed",
        seed=1,
        bots=BOTS,
        rules=Rules(target_score=1),
        fault_policy=FaultPolicy(max_faults=1),
    )
    players = [HeuristicPlayer(), RandomPlayer(), human, HeuristicPlayer()]
    record = play_game(spec, players, tmp_path / "game.jsonl")
    assert record.faults[2] == {"rpc_error": 1} and record.forfeited[2]
    assert verify_log(tmp_path / "game.jsonl").ok
