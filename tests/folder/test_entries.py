"""The journal's typed entries: written as the referee always wrote them, read back, and
refused with the key named."""

from __future__ import annotations

import json

import pytest

from referee.folder import entries
from referee.folder.entries import (
    BotEntry,
    EndEntry,
    EntryError,
    GameEntry,
    JournalHeader,
    RunEntry,
    WarningEntry,
    parse_entry,
)

GAME = {
    "type": "game",
    "game_id": "t1-d1-r1",
    "seed": "0f" * 16,
    "bots": ["a", "b", "c"],
    "scores": [10, 30, 86],
    "placements": [1, 2, 3],
    "winners": [0],
    "hand_scores": [[10, 30, 86]],
    "moons": [0, 0, 0],
    "faults": [{}, {"timeout": 1}, {}],
    "forfeited": [False, False, False],
    "decisions": [13, 13, 13],
    "think_ms": [1.5, 2.0, 0.25],
    "log_path": "games/000/t1-d1-r1.jsonl.gz",
    "duration_s": 0.5,
    "meta": {"tournament": "x", "index": 0},
    "index": 0,
    "table": 1,
    "deal_set": 1,
    "seating": 1,
    "log_mac": "ab" * 32,
    "run": 1,
}

# Lines as earlier referees wrote them (less the mac): the typed entries write them the same.
WRITTEN = [
    {"type": "journal", "format": "hearts-referee/journal", "version": 1, "sealed_end": True},
    {"type": "journal", "format": "hearts-referee/journal", "version": 1},
    {
        "type": "run",
        "run": 2,
        "started_at": "2026-01-01T00:00:00+00:00",
        "referee_version": "0.1",
        "concurrency": 4,
        "games_left": 0,
        "name": "example",
        "seed": 7,
        "config_hash": "ff",
        "participants": ["a", "b", "c"],
        "excluded": {"d": "build failed"},
        "games_scheduled": 6,
        "sealed_end": True,
    },
    {"type": "bot", "run": 1, "bot": "a", "status": "started", "table": 2},
    {"type": "bot", "run": 1, "bot": "a", "status": "start_failed", "reason": "no", "worker": 3},
    {"type": "bot", "run": 1, "bot": "a", "status": "started", "info": {"name": "A"}, "worker": 0},
    {"type": "warning", "run": 1, "message": "bot limits are measured by polling"},
    GAME,
    {
        "type": "end",
        "run": 1,
        "games": 0,
        "games_scheduled": None,
        "last_game": None,
        "last_game_mac": None,
        "finished_at": "2026-01-01T00:00:00+00:00",
    },
]


@pytest.mark.parametrize("data", WRITTEN, ids=lambda d: d["type"])
def test_an_entry_is_written_back_as_read(data: dict) -> None:
    entry = parse_entry(data)
    assert entry is not None and data["type"] == entry.TYPE
    # Byte for byte: the keys in the same order, so old folders' lines are new folders' lines.
    assert json.dumps(entry.to_json()) == json.dumps(data)
    assert type(entry).from_json(entry.to_json()) == entry


def test_every_kind_is_typed() -> None:
    kinds = {JournalHeader, RunEntry, BotEntry, WarningEntry, GameEntry, EndEntry}
    assert set(entries.ENTRY_TYPES.values()) == kinds
    assert {k.TYPE for k in kinds} == {"journal", "run", "bot", "warning", "game", "end"}


def test_a_type_not_known_is_left_alone() -> None:
    assert parse_entry({"type": "future", "anything": [1]}) is None
    assert entries.entry_problem({"type": "future"}) is None


def test_keys_not_known_are_ignored() -> None:
    entry = WarningEntry.from_json({"type": "warning", "message": "m", "later": 1})
    assert entry == WarningEntry(message="m")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"scores": [1, "x", 3]}, "scores: expected a list of integers, one per seat"),
        ({"scores": [1, 2]}, "scores: 2 values for 3 seats"),
        ({"winners": [5]}, "winners: expected seats 0 to 2, got [5]"),
        ({"placements": [1, 2, 4]}, "placements: expected 1 to 3"),
        ({"hand_scores": [[1, 2]]}, "hand_scores: hand 1 has 2 values for 3 seats"),
        ({"index": -1}, "index: expected a position in the schedule"),
        ({"bots": ["a", "b"]}, "bots: expected a list of 3 to 7 bot names"),
    ],
)
def test_a_bad_game_entry_names_its_key(change: dict, message: str) -> None:
    with pytest.raises(EntryError, match=message.replace("[", r"\[").replace("]", r"\]")):
        GameEntry.from_json({**GAME, **change})
    assert entries.entry_problem({**GAME, **change}).startswith(message)


def test_a_missing_key_is_named() -> None:
    data = {k: v for k, v in GAME.items() if k != "moons"}
    with pytest.raises(EntryError, match="moons: missing; expected a list of integers"):
        GameEntry.from_json(data)
    with pytest.raises(EntryError, match="message: missing"):
        WarningEntry.from_json({"type": "warning", "run": 1})
    with pytest.raises(EntryError, match="games: missing"):
        EndEntry.from_json({"type": "end", "run": 1})


def test_from_json_refuses_another_kind() -> None:
    with pytest.raises(EntryError, match="type: expected 'run', got \"bot\""):
        RunEntry.from_json({"type": "bot", "bot": "a"})


def test_a_game_entry_of_a_record() -> None:
    from referee.match.runner import GameRecord

    record = GameRecord.from_dict({k: v for k, v in GAME.items() if k != "type"})
    place = {"index": 0, "table": 1, "deal_set": 1, "seating": 1}
    entry = GameEntry.of(
        record, place=place, log_path=GAME["log_path"], log_mac=GAME["log_mac"], run=1
    )
    assert json.dumps(entry.to_json()) == json.dumps(GAME)
