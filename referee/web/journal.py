"""Following a tournament's journal while it grows: the entries appended since last time.

:func:`referee.folder.authenticate.authenticated_journal` reads a journal from
its first line; a server that shows a tournament while it plays would read
10,000 lines again for every game that finishes. :class:`JournalTail` is the
same reading done incrementally: it keeps the byte offset, the line number
and the MAC of the last line read, and on each :meth:`~JournalTail.read`
feeds only the lines written since to the one journal reader
(:class:`~referee.folder.journal.JournalReader`, strict), with the same checks
in the same order through the same functions (each line's MAC, chained; each
game's log against its ``log_mac``; ``tournament.json``'s facts against every
``run`` entry), and gathers what the journal says of its
end (:class:`~referee.folder.authenticate.JournalEnd`), so that
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

from referee.folder.authenticate import (
    JournalEnd,
    check_key_id,
    check_log_mac,
    check_sealed_facts,
    end_problems,
)
from referee.folder.journal import JournalReader
from referee.folder.layout import Layout
from referee.folder.state import TournamentState

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
        self._reader = JournalReader(layout.journal, key=key)
        self._inode: int | None = None
        #: What the lines read so far say of the journal's end.
        self.end = JournalEnd()
        if key is not None:
            check_key_id(layout, state, key)

    @property
    def offset(self) -> int:
        """Bytes of the journal read so far."""
        return self._offset

    def read(self) -> list[dict[str, Any]]:
        """The complete lines written since the last read, checked; [] when none.

        Raises :class:`~referee.folder.errors.JournalError` naming the
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
        for raw in data[:end].splitlines(keepends=True):
            # The same checks as authenticated_journal's, line by line as the journal grows.
            self._offset += len(raw)
            line = self._reader.line(raw)
            if line is None:
                continue
            entry = line.entry
            self.end.add(line.number, entry, line.mac)
            if self._key is not None:
                where = f"{self.layout.journal}:{line.number}"
                if entry["type"] == "run":
                    check_sealed_facts(self.layout, self._facts, entry, where)
                elif entry["type"] == "game":
                    check_log_mac(log_path(self.layout, entry), entry, self._key, where)
            entries.append(entry)
        return entries

    def end_problem(self, state: TournamentState) -> str | None:
        """What ``authenticated_journal`` says at the journal's last line read, or None.

        A finished tournament's journal cut short at its end (the end that
        ``state`` records is not among the lines read), or, with the key, a
        ``state`` that the journal says is sealed but is not
        (:func:`~referee.folder.authenticate.end_problems`).
        """
        for path, line, text in end_problems(self.end, state, self.layout, self._key):
            return f"{path}:{line}: {text}" if line else f"{path}: {text}"
        return None


def log_path(layout: Layout, entry: dict[str, Any]) -> pathlib.Path | None:
    """Where a game entry's log is, inside the folder (:meth:`Layout.log_inside`)."""
    return layout.log_inside(entry)
