"""The one journal reader, strict or lenient through its problem hook, and the one writer."""

from __future__ import annotations

import pathlib

import pytest

from referee.folder import (
    BotEntry,
    Collect,
    Journal,
    JournalError,
    ProblemKind,
    RunEntry,
    WarningEntry,
    read_journal,
    read_lines,
)
from referee.folder.entries import JournalHeader

KEY = bytes(range(32))


def _journal(path: pathlib.Path) -> None:
    journal = Journal(path, KEY, promise_end=True)
    journal.append(RunEntry(run=1, name="t", participants=("a", "b", "c"), games_scheduled=0))
    journal.append(BotEntry(run=1, bot="a", status="started"))
    journal.append(WarningEntry(run=1, message="careful"))
    journal.append_end(run=1, games_scheduled=0, finished_at="now")
    journal.close()


def test_written_entries_read_back_typed(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "journal.jsonl"
    _journal(path)
    lines = list(read_lines(path, key=KEY))
    assert [line.kind for line in lines] == ["journal", "run", "bot", "warning", "end"]
    assert [line.number for line in lines] == [1, 2, 3, 4, 5]
    assert lines[0].typed == JournalHeader(sealed_end=True)
    assert lines[3].typed == WarningEntry(run=1, message="careful")
    assert all(line.mac and line.entry["mac"] == line.mac for line in lines)
    assert list(read_journal(path)) == [line.entry for line in lines]


def _damaged(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "journal.jsonl"
    _journal(path)
    lines = path.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].replace(b'"started"', b'"STARTED"')  # its MAC no longer matches
    lines.insert(4, b"{oops\n")
    path.write_bytes(b"".join(lines) + b'{"type":"game"')  # and a torn last line
    return path


def test_the_strict_reader_raises_at_the_first_problem(tmp_path: pathlib.Path) -> None:
    path = _damaged(tmp_path)
    with pytest.raises(JournalError, match=rf"{path}:3: the MAC does not match"):
        list(read_lines(path, key=KEY))
    with pytest.raises(JournalError, match=rf"{path}:5: not JSON: Expecting"):
        list(read_lines(path))  # without the key, the changed line reads


def test_the_lenient_reader_collects_every_problem_and_goes_on(tmp_path: pathlib.Path) -> None:
    path = _damaged(tmp_path)
    problems = Collect()
    lines = list(read_lines(path, key=KEY, on_problem=problems))
    # The chain goes on from the changed line's own MAC, and past the inserted line (no
    # MAC of its own): only the lines changed or inserted fail.
    kinds = [p.kind for p in problems.problems]
    assert kinds == [ProblemKind.MAC, ProblemKind.MAC, ProblemKind.TORN]
    assert [p.line for p in problems.problems] == [3, 5, 7]
    assert [line.number for line in lines] == [1, 2, 4, 6]


def test_a_bad_entry_is_named_by_kind_and_key(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "journal.jsonl"
    journal = Journal(path, KEY)
    journal.append({"type": "bot", "run": 0, "bot": "a"})
    journal.append({"type": "future", "run": "x"})  # a type not known: left alone
    journal.close()
    with open(path, "ab") as handle:
        handle.write(b"[1, 2]\n")  # JSON, but no entry
    problems = Collect()
    lines = list(read_lines(path, on_problem=problems))
    assert [line.kind for line in lines] == ["journal", "future"]
    assert [str(p) for p in problems.problems] == [
        f"{path}:2: a bot entry: run: expected a run number (1, 2, ...), got 0",
        f"{path}:4: not a journal entry (an object with a type)",
    ]


def test_the_writer_refuses_a_mac_and_continues_a_journal(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "journal.jsonl"
    _journal(path)
    journal = Journal(path, KEY)
    with pytest.raises(ValueError, match="gets its mac from the journal"):
        journal.append({"type": "warning", "message": "m", "mac": "x"})
    journal.append(WarningEntry(run=2, message="again"))
    journal.close()
    assert [line.number for line in read_lines(path, key=KEY)] == [1, 2, 3, 4, 5, 6]
