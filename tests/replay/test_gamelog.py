"""The record types of referee.match.gamelog: what match writes is what they read back."""

from __future__ import annotations

import gzip
import json
import pathlib
import re

import pytest

from referee.engine import Card, PassDirection
from referee.match.gamelog import (
    LOG_FORMAT,
    LOG_VERSION,
    RECORD_TYPES,
    DealRecord,
    Fault,
    LogError,
    PlayRecord,
    RecordError,
    parse_record,
    read_log,
)

DATA = pathlib.Path(__file__).parent / "data"
LOG_FORMAT_DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "log-format.md"
LOGS = sorted(DATA.glob("*.jsonl"))


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_every_record_reads_back_as_written(path: pathlib.Path) -> None:
    seen = set()
    for _, raw in read_log(path):
        record = parse_record(raw)
        assert raw["type"] == type(record).TYPE
        assert record.to_json() == raw
        # Byte for byte: the same keys in the same order.
        assert json.dumps(record.to_json()) == json.dumps(raw)
        seen.add(raw["type"])
    assert {"game", "deal", "play", "trick", "hand_end", "game_end"} <= seen


def test_the_logs_hold_every_record_type() -> None:
    seen = {raw["type"] for path in LOGS for _, raw in read_log(path)}
    assert seen | {"game_abort"} == set(RECORD_TYPES)
    abort = {"type": "game_abort", "hand": 3, "reason": "KeyboardInterrupt: "}
    assert parse_record(abort).to_json() == abort


def test_records_are_typed() -> None:
    deal = DealRecord.from_json(
        {"type": "deal", "hand": 2, "pass_direction": "right", "hands": [["QS", "2C"]]}
    )
    assert deal.pass_direction is PassDirection.RIGHT
    assert deal.hands == ((Card.parse("QS"), Card.parse("2C")),)
    play = PlayRecord(
        hand=1,
        trick=1,
        seat=0,
        decision="h1-t1-s0",
        legal=(Card.parse("2C"),),
        fault=Fault("timeout", "late"),
        source="fallback",
        card=Card.parse("2C"),
        ms=1.5,
        bank_ms=0,
    )
    assert play.to_json() == {
        "type": "play",
        "hand": 1,
        "trick": 1,
        "seat": 0,
        "decision": "h1-t1-s0",
        "legal": ["2C"],
        "fault": {"kind": "timeout", "message": "late"},
        "source": "fallback",
        "card": "2C",
        "ms": 1.5,
        "bank_ms": 0,
    }
    assert PlayRecord.from_json(play.to_json()) == play


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"type": "play", "hand": 1}, "play record has no 'trick'"),
        ({"type": "trick", "hand": True}, "'hand' should be a number"),
        (
            {"type": "deal", "hand": 1, "pass_direction": "up", "hands": []},
            "unknown pass_direction",
        ),
        ({"type": "banana"}, "unknown record type 'banana'"),
        (
            {"type": "fault", "seat": 0, "kind": 3, "during": "DealHand", "hand": 1},
            "'kind' should be a string",
        ),
    ],
)
def test_a_record_of_the_wrong_shape_is_refused(raw: dict[str, object], message: str) -> None:
    with pytest.raises(RecordError, match=message):
        parse_record(raw)


def test_the_doc_has_a_section_per_record_type() -> None:
    text = LOG_FORMAT_DOC.read_text(encoding="utf-8")
    sections = re.findall(r"^### `([a-z_]+)`", text, flags=re.MULTILINE)
    assert sections == list(RECORD_TYPES)


@pytest.mark.parametrize("name", ["x.jsonl", "x.jsonl.gz"])
def test_read_log_names_the_line_of_bytes_that_are_not_utf8(
    tmp_path: pathlib.Path, name: str
) -> None:
    """The one reader of logs (replay and verify use it): not UTF-8 is a LogError at its line."""
    header = json.dumps({"type": "game", "format": LOG_FORMAT, "version": LOG_VERSION})
    data = (header + "\n" + '{"type": "deal"}\n').encode() + b'{"type": "\xff"}\n'
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    with pytest.raises(LogError) as raised:
        list(read_log(path))
    assert (raised.value.line, str(raised.value)) == (
        3,
        f"{path}:3: not UTF-8 text (byte 0xff): not a game log?",
    )
