"""The slowest decisions per bot (referee.web.slowest), read from game logs plain or gzipped."""

from __future__ import annotations

import gzip
import json
import pathlib

from referee.web.slowest import SlowestDecisions, timed_decisions


def write_log(path: pathlib.Path, lines: list[dict | str], *, compressed: bool = False) -> None:
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    data = text.encode()
    path.write_bytes(gzip.compress(data) if compressed else data)


HEADER = {"type": "game", "format": "hearts-referee/game-log", "version": 1, "game_id": "g"}


def plays(times: list[float]) -> list[dict]:
    return [
        {
            "type": "play",
            "seat": i % 4,
            "decision": f"h1.t{i // 4}.p{i % 4}",
            "card": "2C",
            "ms": ms,
        }
        for i, ms in enumerate(times)
    ]


def test_every_timed_decision_in_order_and_nothing_else(tmp_path: pathlib.Path) -> None:
    log = tmp_path / "g.jsonl"
    trick = {"type": "trick", "winner": 0, "points": 0}
    write_log(log, [HEADER, *plays([5, 1.5]), trick, *plays([7])])
    assert list(timed_decisions(log)) == [
        (0, "h1.t0.p0", 5.0),
        (1, "h1.t0.p1", 1.5),
        (0, "h1.t0.p0", 7.0),
    ]


def test_a_compressed_log_reads_the_same(tmp_path: pathlib.Path) -> None:
    plain, packed = tmp_path / "g.jsonl", tmp_path / "g.jsonl.gz"
    write_log(plain, [HEADER, *plays([3, 4, 5])])
    write_log(packed, [HEADER, *plays([3, 4, 5])], compressed=True)
    assert list(timed_decisions(packed)) == list(timed_decisions(plain))


def test_a_damaged_or_missing_log_ends_its_scan_quietly(tmp_path: pathlib.Path) -> None:
    log = tmp_path / "g.jsonl"
    write_log(log, [HEADER, *plays([3]), '{"type": "play", "ms": 9, "seat": 1, "deci', *plays([4])])
    assert [ms for _, _, ms in timed_decisions(log)] == [3.0]
    assert list(timed_decisions(tmp_path / "missing.jsonl")) == []
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(gzip.compress(json.dumps(HEADER).encode() * 50)[:40])
    assert list(timed_decisions(cut)) == []


def test_each_bot_keeps_its_slowest_slowest_first(tmp_path: pathlib.Path) -> None:
    slowest = SlowestDecisions(keep=3)
    for game, times in (("g1", [10, 1, 20, 2, 30, 3]), ("g2", [40, 4, 5, 6, 50, 0.5])):
        log = tmp_path / f"{game}.jsonl"
        write_log(log, [HEADER, *plays(times)])
        slowest.add_log(log, ["a", "b"], game)  # seats 2 and 3 are not at this table
    assert [(ms, game) for ms, game, _ in slowest.of("a")] == [
        (50.0, "g2"),
        (40.0, "g2"),
        (30.0, "g1"),
    ]
    assert [ms for ms, _, _ in slowest.of("b")] == [4.0, 3.0, 1.0]
    assert slowest.of("nobody") == []
