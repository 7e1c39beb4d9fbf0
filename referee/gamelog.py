"""Game logs: one JSON Lines file per game, written as the game goes.

The format is documented record by record in docs/log-format.md. Each line is
flushed when written, so a crash of the referee loses at most the decision in
flight; :meth:`GameLogWriter.close` also syncs the file to disk, which the
tournament journal relies on before it counts a game.
"""

from __future__ import annotations

import json
import os
import pathlib
from collections.abc import Iterator
from typing import Any, TextIO

__all__ = [
    "LOG_FORMAT",
    "LOG_VERSION",
    "GameLogWriter",
    "LogError",
    "read_log",
]

#: The ``format`` field of the first record of every game log.
LOG_FORMAT = "hearts-referee/game-log"
#: Bumped on any incompatible change of the records.
LOG_VERSION = 1

# One encoder for every record: json.dumps with options builds a new one per call.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


class LogError(ValueError):
    """A log that cannot be read; the message names the file and line."""

    def __init__(self, path: str | os.PathLike[str], line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = str(path)
        self.line = line


class GameLogWriter:
    """Appends records to a game log, one JSON object per line."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = pathlib.Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: TextIO | None = open(self.path, "w", encoding="utf-8")  # noqa: SIM115

    def write(self, record: dict[str, Any]) -> None:
        if self._file is None:
            raise ValueError(f"{self.path}: log already closed")
        self._file.write(_ENCODER.encode(record) + "\n")
        self._file.flush()

    def close(self) -> None:
        """Flush, sync to disk and close (idempotent)."""
        if self._file is None:
            return
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        self._file = None

    def __enter__(self) -> GameLogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_log(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, record)`` for each record of a game log.

    A line that is not a JSON object (a truncated last line, say) or a first
    record that is not a game header raises :class:`LogError` naming the line.
    """
    path = pathlib.Path(path)
    try:
        handle = open(path, encoding="utf-8")  # noqa: SIM115
    except OSError as error:
        raise LogError(path, 0, f"cannot open: {error.strerror}") from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                truncated = "" if line.endswith("\n") else " (the file ends mid-line: truncated?)"
                raise LogError(path, number, f"not JSON: {error.msg}{truncated}") from None
            if not isinstance(record, dict) or "type" not in record:
                raise LogError(path, number, "not a log record (an object with a 'type')")
            if number == 1:
                if record.get("type") != "game" or record.get("format") != LOG_FORMAT:
                    raise LogError(
                        path, 1, f"not a game log: the first record must be a {LOG_FORMAT} header"
                    )
                if record.get("version") != LOG_VERSION:
                    raise LogError(
                        path,
                        1,
                        f"log version {record.get('version')!r}; this referee reads {LOG_VERSION}",
                    )
            yield number, record
