"""Issue 6: every starter kit builds from a clean tree and plays a full game.

Each test scaffolds the kit with ``referee new-bot`` into a temporary folder
outside the repository, builds it there with the referee's sandboxed build
(``conftest.built_kit``), and plays a full game through the referee against
the Python sample bots, which are launched as processes too. Zero faults are allowed. A kit whose toolchain
is missing is skipped with a message saying what to install.
"""

from __future__ import annotations

import pathlib
import re
from collections.abc import Callable

import pytest

from referee.match.gamelog import read_log
from referee.match.runner import GameSpec, play_game
from referee.players.policy import FaultPolicy, TimeControl
from referee.players.specs import parse_bot
from referee.players.supply import BotPool
from tests.helpers import bot_processes_alive
from tests.kits.conftest import Build, built_or_skip

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.toolchain
@pytest.mark.timeout(1800)  # a cold build (Rust, Go) fetches and compiles everything
@pytest.mark.parametrize("kit", ["go", "rust", "java", "cpp", "node"])
def test_kit_builds_and_plays_a_full_game_without_faults(
    kit: str,
    built_kit: Callable[[str], Build],
    tmp_path: pathlib.Path,
) -> None:
    result = built_or_skip(kit, built_kit)
    spec = parse_bot(str(result.folder))

    others = [
        parse_bot(str(ROOT / "sample_bots/python" / name)) for name in ("heuristic", "random")
    ]
    specs = [spec, others[0], others[1]]
    time_control = TimeControl(move_time_ms=2000, startup_timeout_ms=60000)
    with BotPool(log_dir=tmp_path / "bots", time_control=time_control) as pool:
        players = pool.start_all(specs, stand_in=False)
        game = GameSpec(
            game_id=f"kit-{kit}",
            seed=2026,
            bots=(spec.name, others[0].name, others[1].name, f"{others[0].name}"),
            time_control=time_control,
            fault_policy=FaultPolicy(),
        )
        seats = [
            players[spec.name],
            players[others[0].name],
            players[others[1].name],
            players[others[0].name],
        ]
        record = play_game(game, seats, tmp_path / "game.jsonl")
        pids = [c.pid for c in pool._connections if getattr(c, "pid", None)]
    assert record.faults == ({}, {}, {}, {}), record.faults
    assert not any(record.forfeited)
    assert max(record.scores) >= 100
    assert record.decisions[0] > 0
    assert not bot_processes_alive(pids), "bot processes left behind"
    # Every kit explains its plays (its strategy's play note), logged for its seat only.
    plays = [r for _, r in read_log(tmp_path / "game.jsonl") if r["type"] == "play"]
    ours = [r for r in plays if r["seat"] == 0]
    assert ours and all(
        re.fullmatch(rf"{r['card']} of {len(r['legal'])} legal \(trick {r['trick']}\)", r["note"])
        for r in ours
    ), ours[:2]
    assert not any("note" in r for r in plays if r["seat"] != 0)
