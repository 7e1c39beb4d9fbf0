"""Helpers of the bad-input tests: run the real command line, check what it says and changes."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import pathlib
import traceback
from collections.abc import Iterator, Sequence
from typing import Any

from click.testing import CliRunner

from referee.cli import cli
from referee.folder import seal
from tests.helpers import MINI_TOURNAMENT, write_config  # noqa: F401 (write_config: re-exported)

MOON_LOG = pathlib.Path(__file__).resolve().parent / "replay" / "data" / "moon.jsonl"
#: The longest message a bad input may produce (a 50 MB line must not come back whole).
MAX_OUTPUT = 20_000

#: The small tournament of built-ins the bad-input tests start from.
MINI = MINI_TOURNAMENT


@dataclasses.dataclass
class Outcome:
    args: list[str]
    exit_code: int
    output: str

    def __str__(self) -> str:
        return f"referee {' '.join(self.args)[:300]} -> {self.exit_code}:\n{self.output[:2000]}"


def invoke(args: Sequence[str], *, input: str | None = "") -> Outcome:
    """Run ``referee ARGS`` in-process; a traceback (an exception out of the CLI) fails the test."""
    args = [str(a) for a in args]
    result = CliRunner().invoke(cli, args, input=input, catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        trace = "".join(traceback.format_exception(result.exception))
        raise AssertionError(f"referee {' '.join(args)[:300]}: a traceback:\n{trace[-3000:]}")
    outcome = Outcome(args, result.exit_code, result.output)
    assert "Traceback" not in result.output, outcome
    assert len(result.output) < MAX_OUTPUT, outcome
    return outcome


def bad(outcome: Outcome, *needles: str) -> Outcome:
    """A refused input: a non-zero exit and a message holding every needle."""
    assert outcome.exit_code not in (0, None), outcome
    assert any(w in outcome.output for w in ("Error", "error", "FAIL")), outcome
    for needle in needles:
        assert needle in outcome.output, f"{needle!r} not in the message of {outcome}"
    return outcome


def digest(root: pathlib.Path) -> dict[str, str]:
    """Every file under ``root`` (a file itself) with a hash of its bytes and its mode."""
    root = pathlib.Path(root)
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    return {
        str(p): hashlib.sha256(p.read_bytes()).hexdigest() + oct(p.stat().st_mode) for p in files
    }


@contextlib.contextmanager
def snapshot(root: pathlib.Path) -> Iterator[None]:
    """Fail when a file that existed under ``root`` was changed or removed."""
    before = digest(root)
    yield
    after = digest(root)
    changed = [p for p, h in before.items() if after.get(p) != h]
    assert not changed, f"recorded files changed or lost: {changed}"


def reseal(folder: pathlib.Path, entries: list[dict[str, Any]]) -> None:
    """Write ``entries`` as the folder's journal, sealed with its key (a forger holding it)."""
    key = seal.folder_key(folder)
    assert key is not None
    lines, previous = [], ""
    for entry in entries:
        body = {k: v for k, v in entry.items() if k != "mac"}
        line = seal.seal_line(key, previous, json.dumps(body, separators=(",", ":")).encode())
        previous = seal.line_mac(line) or ""
        lines.append(line)
    (folder / "journal.jsonl").write_bytes(b"".join(lines))
