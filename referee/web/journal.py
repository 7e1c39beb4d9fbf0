"""Following a tournament's journal while it grows: the entries appended since last time.

:func:`referee.folder.core.authenticated_journal` reads a journal from
its first line; a server that shows a tournament while it plays would read
10,000 lines again for every game that finishes. :class:`JournalTail` is the
same reading done incrementally: it keeps the byte offset, the line number
and the MAC of the last line read, and on each :meth:`~JournalTail.read`
checks only the lines written since, with the same checks, in the same
order, through the same :mod:`referee.folder.seal` functions (each line's MAC,
chained; each game's log against its ``log_mac``; ``tournament.json``'s
facts against every ``run`` entry), and gathers what the journal says of its
end (:class:`~referee.folder.core.JournalEnd`), so that
:meth:`~JournalTail.end_problem` can tell a finished tournament cut short. A
torn last line (a game being journaled right now) is left for the next read.
A test holds it to ``authenticated_journal``'s verdicts.

Without a key, the lines are read as they are (a published folder): the
caller says so on the page.
"""

from __future__ import annotations

import os
import pathlib
from typing import Any

from referee.folder import seal
from referee.folder.core import (
    JournalEnd,
    JournalError,
    Layout,
    TournamentState,
    check_journal_line,
    end_problems,
)

__all__ = ["JournalReset", "JournalTail"]


class JournalReset(Exception):
    """The journal is not the one followed so far (shorter, or another file): read it again."""


class JournalTail:
    """The entries of ``journal.jsonl`` appended since the last :meth:`read`."""

    def __init__(self, layout: Layout, state: TournamentState, key: bytes | None) -> None:
        self.layout = layout
        self._facts = state.sealed_facts()
        self._key = key
        self._offset = 0
        self._number = 0
        self._previous = ""
        self._inode: int | None = None
        #: What the lines read so far say of the journal's end.
        self.end = JournalEnd()
        if key is not None and state.key_id is not None and state.key_id != seal.key_id(key):
            raise JournalError(
                f"{layout.state}: the tournament's key id is {state.key_id}, but this key's is "
                f"{seal.key_id(key)}: not this tournament's key"
            )

    @property
    def offset(self) -> int:
        """Bytes of the journal read so far."""
        return self._offset

    def read(self) -> list[dict[str, Any]]:
        """The complete lines written since the last read, checked; [] when none.

        Raises :class:`~referee.folder.core.JournalError` naming the
        line that fails, and :class:`JournalReset` when the file was replaced
        or cut shorter than what was read.
        """
        path = self.layout.journal
        try:
            handle = open(path, "rb")  # noqa: SIM115
        except FileNotFoundError:
            if self._offset:
                raise JournalReset(f"{path} is gone") from None
            return []
        with handle:
            info = os.fstat(handle.fileno())
            if self._inode is not None and info.st_ino != self._inode:
                raise JournalReset(f"{path} was replaced")
            if info.st_size < self._offset:
                raise JournalReset(f"{path} is shorter than before")
            self._inode = info.st_ino
            handle.seek(self._offset)
            data = handle.read()
        end = data.rfind(b"\n") + 1
        entries = []
        for line in data[:end].splitlines(keepends=True):
            self._number += 1
            self._offset += len(line)
            if not line.strip():
                continue
            entry = self._check(line)
            entries.append(entry)
        return entries

    def _where(self) -> str:
        return f"{self.layout.journal}:{self._number}"

    def _check(self, line: bytes) -> dict[str, Any]:
        # The same checks as read_journal's, line by line as the journal grows.
        self._previous, entry = check_journal_line(line, self._where(), self._key, self._previous)
        mac = self._previous if self._key is not None else seal.line_mac(line)
        self.end.add(self._number, entry, mac)
        if self._key is not None:
            if entry["type"] == "run":
                for name, value in self._facts.items():
                    if name in entry and entry[name] != value:
                        raise JournalError(
                            f"{self.layout.state}: its {name} disagrees with the run entry "
                            f"sealed in {self._where()}"
                        )
            elif entry["type"] == "game":
                self._check_log(entry)
        return entry

    def end_problem(self, state: TournamentState) -> str | None:
        """What ``authenticated_journal`` says at the journal's last line read, or None.

        A finished tournament's journal cut short at its end (the end that
        ``state`` records is not among the lines read), or, with the key, a
        ``state`` that the journal says is sealed but is not
        (:func:`~referee.folder.core.end_problems`).
        """
        for path, line, text in end_problems(self.end, state, self.layout, self._key):
            return f"{path}:{line}: {text}" if line else f"{path}: {text}"
        return None

    def _check_log(self, entry: dict[str, Any]) -> None:
        path = log_path(self.layout, entry)
        if path is None or not path.is_file():
            return  # a missing log is the caller's to show
        mac = entry.get("log_mac")
        assert self._key is not None
        if not isinstance(mac, str) or mac != seal.log_mac(self._key, path.read_bytes()):
            raise JournalError(
                f"{path}: the log does not match the MAC journaled for it ({self._where()}): "
                "it was changed after the game, or comes from another tournament"
            )


def log_path(layout: Layout, entry: dict[str, Any]) -> pathlib.Path | None:
    """Where a game entry's log is, inside the folder; None if its ``log_path`` points outside.

    The journal's ``log_path`` (relative to the folder) is the one source of
    a log's place, as for the folder's own readers; a hand-edited journal
    could point anywhere, so the path must stay under the folder.
    """
    relative = entry.get("log_path")
    if not relative and isinstance(entry.get("game_id"), str):
        relative = layout.relative(layout.game_log(entry["game_id"]))
    if not isinstance(relative, str):
        return None
    root = layout.root.resolve()
    path = (root / relative).resolve()
    return path if path.is_relative_to(root) and path != root else None
