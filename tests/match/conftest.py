"""Fixtures of the match tests: launched-process bookkeeping and game-log checks."""

from __future__ import annotations

import pathlib
import sys
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from referee.engine import MoonChoice, MoonScoring, Pass, Play, Rules, card_list, deal, parse_cards
from referee.engine import replay as engine_replay
from referee.match.gamelog import read_log
from referee.match.runner import GameRecord, GameSpec, play_game
from referee.players import Player
from referee.players.policy import FaultPolicy, TimeControl
from referee.players.supply import BotPool
from tests.helpers import alive_in_groups, launched_pids  # noqa: F401 (an autouse fixture)

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLE_RANDOM = ROOT / "sample_bots" / "python" / "random"
SAMPLE_HEURISTIC = ROOT / "sample_bots" / "python" / "heuristic"
MISBEHAVING = pathlib.Path(__file__).resolve().parent / "bots" / "misbehaving.py"


def misbehaving_command(*args: str) -> str:
    """The command line that launches the misbehaving bot with these options."""
    return " ".join([sys.executable, str(MISBEHAVING), "--address", "{address}", *args])


def assert_no_process_left(pids: Sequence[int]) -> None:
    left = alive_in_groups(pids)
    assert not left, f"bot processes left behind: {left} (groups {list(pids)})"


def load(path: str | pathlib.Path) -> list[dict[str, Any]]:
    return [record for _, record in read_log(path)]


def check_log(record: GameRecord) -> list[dict[str, Any]]:
    """Check that the game's log is complete and agrees with its record and the engine.

    Returns the log records.
    """
    records = load(record.log_path)
    assert records[0]["type"] == "game"
    assert records[-1]["type"] == "game_end", records[-1]
    assert [r["type"] for r in records].count("game_end") == 1
    end = records[-1]
    assert end["scores"] == list(record.scores)
    assert end["placements"] == list(record.placements)
    assert end["forfeited"] == list(record.forfeited)
    assert end["faults"] == [dict(f) for f in record.faults]
    assert end["hands"] == len(record.hand_scores)
    # Faults in decision and notification records add up to the game_end counts.
    counted: list[dict[str, int]] = [{} for _ in record.bots]
    for r in records:
        if "fault" in r:
            kinds = counted[r["seat"]]
            kinds[r["fault"]["kind"]] = kinds.get(r["fault"]["kind"], 0) + 1
            assert r["source"] == "fallback", r
        elif r["type"] == "fault":
            kinds = counted[r["seat"]]
            kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    assert counted == end["faults"]
    # Every decision the referee took is one the engine accepts, and the engine's
    # result is the logged one.
    header = records[0]
    rules = Rules.from_dict(header["rules"])
    actions: list[Any] = []
    for r in records:
        if r["type"] == "pass":
            actions.append(Pass(r["seat"], tuple(parse_cards(" ".join(r["cards"])))))
        elif r["type"] == "play":
            assert r["card"] in r["legal"], r
            actions.append(Play(r["seat"], parse_cards(r["card"])[0]))
        elif r["type"] == "moon_choice":
            actions.append(MoonChoice(r["seat"], MoonScoring(r["choice"])))
    state = engine_replay(rules, header["seed"], actions)
    assert state.is_over
    assert state.outcome is not None
    assert list(state.outcome.scores) == end["scores"]
    assert list(state.outcome.placements) == end["placements"]
    for r in records:
        if r["type"] == "deal":
            dealt = [card_list(h) for h in deal(rules, header["seed"], r["hand"])]
            assert r["hands"] == [[str(c) for c in h] for h in dealt]
    return records


def decisions_of(records: list[dict[str, Any]], seat: int, *types: str) -> list[dict[str, Any]]:
    types = types or ("pass", "play", "moon_choice")
    return [r for r in records if r["type"] in types and r.get("seat") == seat]


def faulted(records: list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    return [r for r in decisions_of(records, seat) if "fault" in r]


def play(
    tmp_path: pathlib.Path,
    players: Sequence[Player],
    *,
    seed: int = 1,
    rules: Rules | None = None,
    time_control: TimeControl | None = None,
    fault_policy: FaultPolicy | None = None,
    bots: Sequence[str] | None = None,
    name: str = "game",
) -> tuple[GameRecord, list[dict[str, Any]]]:
    """Play one game and check its log; returns the record and the log records."""
    rules = rules or Rules(target_score=30)
    spec = GameSpec(
        game_id=f"test-{name}-{seed}",
        seed=seed,
        bots=tuple(bots or [f"seat{s}" for s in range(len(players))]),
        rules=rules,
        time_control=time_control or TimeControl(move_time_ms=1000),
        fault_policy=fault_policy or FaultPolicy(),
    )
    record = play_game(spec, players, tmp_path / f"{name}.jsonl")
    return record, check_log(record)


@pytest.fixture()
def make_pool(tmp_path: pathlib.Path) -> Iterator[Any]:
    """A factory of BotPools that are closed after the test (before the process check)."""
    pools: list[BotPool] = []

    def make(
        time_control: TimeControl | None = None,
        fault_policy: FaultPolicy | None = None,
        *,
        sandbox: str = "bwrap",
    ) -> BotPool:
        pool = BotPool(
            log_dir=tmp_path / "bots",
            time_control=time_control or TimeControl(),
            fault_policy=fault_policy or FaultPolicy(),
            sandbox=sandbox,
        )
        pools.append(pool)
        return pool

    yield make
    for pool in pools:
        pool.close()
