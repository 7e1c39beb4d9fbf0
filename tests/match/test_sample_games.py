"""Full games through the referee with the Python sample bots launched as real gRPC processes."""

from __future__ import annotations

import pathlib

from referee.engine import Rules
from referee.players import RemotePlayer, builtin_player
from referee.players.policy import FaultPolicy, TimeControl
from referee.players.specs import parse_bot
from tests.match.conftest import (
    SAMPLE_HEURISTIC,
    SAMPLE_RANDOM,
    assert_no_process_left,
    play,
)


def test_four_seats_of_launched_sample_bots(tmp_path: pathlib.Path, make_pool, launched_pids):
    pool = make_pool(TimeControl(move_time_ms=2000), FaultPolicy())
    specs = [parse_bot(str(SAMPLE_RANDOM)), parse_bot(str(SAMPLE_HEURISTIC))]
    players = pool.start_all(specs, stand_in=False)
    assert pool.failures == {}
    random_py, heuristic_py = players["random-py"], players["heuristic-py"]
    assert isinstance(random_py, RemotePlayer)
    assert random_py.info.name == "random-py"
    assert heuristic_py.info.version == "1.0.0"
    record, records = play(
        tmp_path,
        [random_py, heuristic_py, random_py, heuristic_py],
        bots=["random-py", "heuristic-py", "random-py#2", "heuristic-py#2"],
        rules=Rules(target_score=50),
        seed=11,
    )
    assert record.faults == ({}, {}, {}, {})
    assert record.forfeited == (False,) * 4
    assert all(r["source"] == "bot" for r in records if r["type"] in ("pass", "play"))
    assert all(d > 0 for d in record.decisions)
    header = records[0]
    assert [s["name"] for s in header["seats"]] == ["random-py", "heuristic-py"] * 2
    assert header["seats"][1]["author"] == "Hearts referee authors"
    assert pool.restarts() == {"random-py": 0, "heuristic-py": 0}
    # Both bot folders ran, and wrote their output where the pool keeps it.
    assert (tmp_path / "bots" / "heuristic-py.stderr.log").read_text().count("serving on") == 1
    assert len(launched_pids) == 2
    pool.close()
    assert_no_process_left(launched_pids)


def test_launched_sample_bots_with_variants(tmp_path: pathlib.Path, make_pool, launched_pids):
    """Five players (V6), Omnibus (V3) and shooter_chooses (V2) through the protocol."""
    pool = make_pool()
    spec = parse_bot(str(SAMPLE_HEURISTIC))
    heuristic_py = pool.start(spec)
    rules = Rules(
        num_players=5,
        target_score=40,
        omnibus=True,
        moon_scoring="shooter_chooses",
        queen_breaks_hearts=True,
        points_on_first_trick=True,
    )
    players = [heuristic_py, builtin_player("random"), heuristic_py, builtin_player("random")]
    players.append(heuristic_py)
    record, _ = play(tmp_path, players, rules=rules, seed=5)
    assert record.faults == ({},) * 5
