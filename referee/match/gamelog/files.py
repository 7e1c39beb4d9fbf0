"""Game log files: writing one as the game goes, compressing it, reading it back.

A log named ``.jsonl.gz`` (a tournament's) is written plain while the game
plays and gzip-compressed when :class:`GameLogWriter` closes it;
:func:`read_log` and :func:`open_log` read either form, streamed (by the
file's first bytes, not its name), so every reader takes both. A log that
cannot be read is a :class:`LogError` naming the file and the line. The
records themselves are :mod:`referee.match.gamelog.records`'.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import pathlib
import queue
import threading
import zlib
from collections.abc import Iterator
from typing import IO, Any, BinaryIO, TextIO

from referee import durable
from referee.match.gamelog.records import LOG_FORMAT, LOG_VERSION, LogRecord
from referee.safetext import shown_name

__all__ = [
    "COMPRESS_LEVEL",
    "GZIP_MAGIC",
    "GameLogWriter",
    "LogError",
    "is_compressed_name",
    "open_log",
    "read_log",
    "store_log",
]

#: The first bytes of a gzip stream: a log that starts with them is read decompressed.
GZIP_MAGIC = b"\x1f\x8b"
#: zlib's default: 85 KB logs become ~10 KB in ~3 ms; level 9 saves 5% more for 4x the time.
COMPRESS_LEVEL = 6

# One encoder for every record: json.dumps with options builds a new one per call.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


class LogError(ValueError):
    """A log that cannot be read; the message names the file and line."""

    def __init__(self, path: str | os.PathLike[str], line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = str(path)
        self.line = line


def is_compressed_name(path: str | os.PathLike[str]) -> bool:
    """Whether a log at ``path`` is kept gzip-compressed (its name ends in ``.gz``)."""
    return os.fspath(path).endswith(".gz")


def store_log(path: str | os.PathLike[str], data: bytes) -> None:
    """Write a finished log's bytes (plain or gzip) at ``path``, in the form its name says.

    Written whole (a temporary file renamed over ``path``) and synced to disk,
    so a crash leaves no half log under the final name; the gzip stream
    carries no time or file name, so a log always compresses to the same bytes.
    """
    path = pathlib.Path(path)
    gzipped = data[:2] == GZIP_MAGIC
    if is_compressed_name(path) and not gzipped:
        data = gzip.compress(data, compresslevel=COMPRESS_LEVEL, mtime=0)
    elif gzipped and not is_compressed_name(path):
        data = gzip.decompress(data)
    durable.write_bytes(path, data)


class GameLogWriter:
    """Appends records to a game log, one JSON object per line.

    A log whose name ends in ``.gz`` is written plain while the game goes
    (beside it, without the ``.gz``; every line flushed), then compressed into
    its name on :meth:`close` and the plain file removed. A crash mid-game
    leaves the plain file, readable up to the crash; a tournament does not
    count that game and plays it again. (Compressing line by line instead
    would cost a flush of the stream per line, which at ~60 bytes a line
    leaves little compressed.)

    With ``background=True`` a thread of the writer's own turns the records
    into lines and writes them, in the order given, while the caller goes on:
    the match runner's game thread then asks the next bot while the last
    decision's line is written, rather than after (1-9% of a decision's wall
    time with fast bots, for 2-8% more CPU: ``docs/performance.md``). A
    record given is then written within moments, not at once: :meth:`flush`
    waits for it. A write that failed in that thread is raised by the next
    :meth:`write`, :meth:`flush` or :meth:`close`, and nothing given after it
    is written. Records are frozen, and a JSON object given must not change
    afterwards.
    """

    def __init__(self, path: str | os.PathLike[str], *, background: bool = False) -> None:
        self.path = pathlib.Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        #: Where the lines go while the game is played.
        self.writing = self.path.with_suffix("") if is_compressed_name(self.path) else self.path
        self._file: TextIO | None = open(self.writing, "w", encoding="utf-8")  # noqa: SIM115
        self._queue: queue.SimpleQueue[LogRecord | dict[str, Any] | threading.Event | None]
        self._thread: threading.Thread | None = None
        self._failure: BaseException | None = None
        if background:
            self._queue = queue.SimpleQueue()
            self._thread = threading.Thread(
                target=self._write_queued, name=f"log {self.path.name}", daemon=True
            )
            self._thread.start()

    def write(self, record: LogRecord | dict[str, Any]) -> None:
        """Append one record (a record type, or its JSON object)."""
        if self._file is None:
            raise ValueError(f"{self.path}: log already closed")
        if self._thread is not None:
            self._raise_failure()
            self._queue.put(record)
            return
        self._write_line(record)

    def _write_line(self, record: LogRecord | dict[str, Any]) -> None:
        assert self._file is not None
        data = record if isinstance(record, dict) else record.to_json()
        self._file.write(_ENCODER.encode(data) + "\n")
        self._file.flush()

    def _write_queued(self) -> None:
        """The background thread: writes what :meth:`write` queued until it is given None."""
        while (item := self._queue.get()) is not None:
            if isinstance(item, threading.Event):
                item.set()  # everything before it is written (or failed)
            elif self._failure is None:
                try:
                    self._write_line(item)
                except BaseException as error:  # raised in the caller's thread
                    self._failure = error

    def _raise_failure(self) -> None:
        if self._failure is not None:
            raise self._failure

    def flush(self) -> None:
        """Return when every record given so far is written to the file (and flushed)."""
        if self._thread is not None and self._thread.is_alive():
            done = threading.Event()
            self._queue.put(done)
            done.wait()
        self._raise_failure()

    def close(self) -> None:
        """Flush, sync to disk and close (idempotent); compress a ``.gz`` log.

        A background write that failed is raised here, after the file is closed.
        """
        if self._file is None:
            return
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None
        if self._failure is not None:
            self._file.close()
            self._file = None
            raise self._failure
        if self.writing == self.path:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            self._file = None
            return
        self._file.close()
        self._file = None
        store_log(self.path, self.writing.read_bytes())
        self.writing.unlink()

    def __enter__(self) -> GameLogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_log(path: str | os.PathLike[str]) -> BinaryIO:
    """A game log's lines as bytes, streamed: gzip-compressed (by its first bytes) or plain.

    Reading a damaged compressed log raises :class:`OSError` (``BadGzipFile``),
    :class:`EOFError` (cut short) or :class:`zlib.error` mid-way.
    """
    handle = open(path, "rb")  # noqa: SIM115
    try:
        start = handle.peek(2)[:2]
    except OSError:
        handle.close()
        raise
    if start == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=handle, mode="rb")  # type: ignore[return-value]
    return handle


def read_log(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, record)`` for each record of a game log.

    A line that is not a JSON object (a truncated last line, say) or a first
    record that is not a game header raises :class:`LogError` naming the line.
    A gzip-compressed log (``.jsonl.gz``) is read the same way, as it is
    decompressed; a damaged stream is a :class:`LogError` at the line it
    reached, and so are bytes that are not UTF-8 (at their line).
    """
    path = pathlib.Path(path)
    try:
        binary = open_log(path)
    except OSError as error:
        raise LogError(path, 0, f"cannot open: {error.strerror}") from None
    number = 0
    try:
        with binary, io.TextIOWrapper(binary, encoding="utf-8") as handle:
            for number, record in _records(path, handle):
                yield number, record
    except (OSError, EOFError, zlib.error) as error:
        if not isinstance(binary, gzip.GzipFile):
            raise LogError(path, number + 1, f"cannot read: {error}") from None
        cut = " (cut short?)" if isinstance(error, EOFError) else ""
        raise LogError(path, number + 1, f"a damaged compressed log{cut}: {error}") from None
    except UnicodeDecodeError:
        where, problem = _first_damage(path) or (number + 1, "not UTF-8 text")
        raise LogError(path, where, f"{problem}: not a game log?") from None


def _first_damage(path: pathlib.Path) -> tuple[int, str] | None:
    """The first line that is not UTF-8, or not JSON, and what is wrong with it.

    The decoder reads ahead of the lines, so the line it failed on is found here.
    """
    try:
        with open_log(path) as handle:
            data = handle.read()
    except (OSError, EOFError, zlib.error):
        return None
    for number, raw in enumerate(data.splitlines(), start=1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            return number, f"not UTF-8 text (byte {raw[error.start]:#04x})"
        if text.strip():
            try:
                json.loads(text)
            except (ValueError, RecursionError):
                return number, "not JSON"
    return None


def _records(path: pathlib.Path, handle: IO[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """The records of a log's lines, each checked to be a record (the first a header)."""
    for number, line in enumerate(handle, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            if number == 1 and (document := _json_document(path)) is not None:
                raise LogError(path, 1, _not_a_log(document)) from None
            truncated = "" if line.endswith("\n") else " (the file ends mid-line: truncated?)"
            raise LogError(path, number, f"not JSON: {error.msg}{truncated}") from None
        except ValueError:  # an integer of thousands of digits
            raise LogError(path, number, "not a log record: a number too long") from None
        except RecursionError:
            raise LogError(path, number, "not a log record: nested too deeply") from None
        if not isinstance(record, dict) or "type" not in record:
            if number == 1:
                raise LogError(path, 1, _not_a_log(record))
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


def _json_document(path: pathlib.Path) -> Any:
    """The file as one JSON document (standings.json, tournament.json), or None if it is not one."""
    try:
        with open_log(path) as handle:
            data = handle.read(64 * 1024 * 1024 + 1)
        if len(data) > 64 * 1024 * 1024:
            return None
        return json.loads(data)
    except (OSError, ValueError, RecursionError, EOFError, zlib.error):
        return None


def _not_a_log(document: Any) -> str:
    """Why valid JSON that does not start with a record is not a game log, naming what it is."""
    kind = document.get("format") if isinstance(document, dict) else None
    what = f" ({shown_name(kind)})" if isinstance(kind, str) else ""
    return (
        f"valid JSON{what}, but not a game log: a game log is JSON Lines, one record a line, "
        "the first a game header; give a game's .jsonl(.gz) file, or a tournament folder "
        "with --game"
    )
