"""docs/config.md held to the code: the journal's table to the typed entries, and the
config keys it documents to the keys the config reads."""

from __future__ import annotations

import dataclasses
import pathlib
import re

import pytest

from referee.engine import Rules
from referee.folder.entries import ENTRY_TYPES, GameEntry
from referee.players.policy import FaultPolicy, TimeControl
from referee.tournament import config

DOC = pathlib.Path(__file__).parents[2] / "docs" / "config.md"


def _sections() -> dict[str, str]:
    """The text under each ``##`` or ``###`` heading of docs/config.md, by heading."""
    parts = re.split(r"^#{2,3} (.+)$", DOC.read_text("utf-8"), flags=re.M)
    return {title.strip(): text for title, text in zip(parts[1::2], parts[2::2], strict=True)}


def _tables(text: str) -> list[list[list[str]]]:
    """The Markdown tables of ``text``: rows of cells, the header and rule left out."""
    tables, rows = [], []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            rows.append(cells)
        elif rows:
            tables.append(rows[2:])
            rows = []
    return tables


def _unparenthesized(text: str) -> str:
    """``text`` less what is in parentheses (examples and values, not keys)."""
    while True:
        shorter = re.sub(r"\([^()]*\)", "", text)
        if shorter == text:
            return text
        text = shorter


def _names(cell: str) -> set[str]:
    """The names in backquotes of a cell, outside parentheses."""
    return set(re.findall(r"`([^`]+)`", _unparenthesized(cell)))


def _first_column(section: str, table: int = 0) -> set[str]:
    return {name for row in _tables(_sections()[section])[table] for name in _names(row[0])}


def test_the_journal_table_names_every_kind_and_its_keys() -> None:
    kinds, game_keys = _tables(_sections()["The journal: `journal.jsonl`"])[:2]
    documented = {next(iter(_names(row[0]))): _names(row[2]) for row in kinds}
    assert documented.keys() == ENTRY_TYPES.keys()
    documented["game"] = {name for row in game_keys for name in _names(row[0])}
    for kind, entry in ENTRY_TYPES.items():
        assert documented[kind] == set(entry.KEYS), f"the {kind} entry's keys in docs/config.md"


@pytest.mark.parametrize("entry", ENTRY_TYPES.values(), ids=lambda e: e.TYPE)
def test_each_kind_checks_every_key_it_has(entry: type) -> None:
    fields = {f.name for f in dataclasses.fields(entry)}
    assert set(entry.KEYS) == fields


def test_a_game_entry_holds_the_whole_game_record() -> None:
    from referee.match.runner import GameRecord

    record = {f.name for f in dataclasses.fields(GameRecord)}
    assert record <= {f.name for f in dataclasses.fields(GameEntry)}


def _fields(kind: type) -> set[str]:
    return {f.name for f in dataclasses.fields(kind)}


@pytest.mark.parametrize(
    ("section", "table", "keys"),
    [
        ("Top level", 0, set(config._TOP_KEYS)),
        ("`rules`", 0, _fields(Rules)),
        ("`schedule`", 0, set(config._SCHEDULE_KEYS)),
        ("`time_control`", 0, _fields(TimeControl)),
        ("`fault_policy`", 0, _fields(FaultPolicy)),
        ("`limits`", 0, set(config.LIMIT_KEYS)),
        ("`build`", 0, set(config._BUILD_KEYS)),
        ("`build`", 1, set(config.BUILD_LIMIT_KEYS)),
        ("`executor`", 0, set(config._EXECUTOR_KEYS)),
    ],
)
def test_the_documented_config_keys_are_the_configs(section: str, table: int, keys: set) -> None:
    assert _first_column(section, table) == keys


def test_the_documented_bot_keys_are_the_configs() -> None:
    text = _sections()["`bots`"]
    line = next(p for p in text.split("\n\n") if p.startswith("Per-bot keys:"))
    assert _names(line) == set(config._BOT_KEYS)
