"""The fault kinds: one registry, and docs/log-format.md's tables agree with it."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

from referee.engine import (
    LIMIT_KINDS,
    NOT_RECORDED,
    ActionError,
    CardNotHeldError,
    FaultKind,
    GameOverError,
    IllegalMoveError,
    InvalidPassError,
    NotYourTurnError,
    WrongPhaseError,
)

LOG_FORMAT_DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "log-format.md"
_ROW = re.compile(r"^\| `([a-z_]+)` \| (.*) \|$")


def _doc_tables() -> list[dict[str, str]]:
    """The kind tables of the doc's "Fault kinds" section, in order, as {kind: meaning}."""
    text = LOG_FORMAT_DOC.read_text(encoding="utf-8")
    section = text.split("## Fault kinds", 1)[1].split("\n## ", 1)[0]
    tables: list[dict[str, str]] = []
    for line in section.splitlines():
        if line.startswith("| ---"):  # a table starts
            tables.append({})
            continue
        match = _ROW.match(line)
        if match:
            tables[-1][match.group(1)] = match.group(2)
    return tables


def test_the_doc_tables_are_the_registry() -> None:
    recorded, not_recorded = _doc_tables()
    assert recorded == {k.value: k.meaning for k in FaultKind if k.recorded}
    assert not_recorded == {k.value: k.meaning for k in FaultKind if not k.recorded}
    assert list(recorded) == [k.value for k in FaultKind if k.recorded], "same order"


def test_every_kind_has_a_meaning_and_a_stable_value() -> None:
    for kind in FaultKind:
        assert kind.meaning and not kind.meaning.endswith(".")
        assert FaultKind(kind.value) is kind
        assert kind == kind.value and str(kind) == kind.value and f"{kind}" == kind.value
    assert not NOT_RECORDED - set(FaultKind) and len(NOT_RECORDED) < len(FaultKind)
    assert not LIMIT_KINDS & NOT_RECORDED


def test_the_engine_errors_kinds_are_in_the_registry() -> None:
    errors = [
        ActionError,
        IllegalMoveError,
        CardNotHeldError,
        InvalidPassError,
        NotYourTurnError,
        WrongPhaseError,
        GameOverError,
    ]
    for error in errors:
        assert isinstance(error.kind, FaultKind), error
    # The kinds a bot's refused card or pass is recorded under are logged kinds.
    assert IllegalMoveError.kind.recorded and CardNotHeldError.kind.recorded
    assert ActionError("x", kind=FaultKind.WRONG_PASS_SIZE).kind is FaultKind.WRONG_PASS_SIZE


def test_the_engine_imports_nothing_of_the_rest() -> None:
    """The registry lives in the engine so that the arrow points inward only."""
    code = (
        "import sys, referee.engine; "
        "print(' '.join(m for m in sys.modules if m.startswith('referee')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert "referee.engine.faults" in out
    assert [m for m in out if m != "referee" and not m.startswith("referee.engine")] == []
