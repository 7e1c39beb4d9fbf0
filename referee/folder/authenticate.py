"""A journal authenticated with the folder's key, to its end.

:func:`authenticated_journal` reads a journal strictly (:mod:`referee.folder.journal`)
and checks, besides each line's MAC, every game's log against its
``log_mac`` and ``tournament.json``'s facts against those sealed in every
``run`` entry. Once the last line is read it checks the journal's end
(:class:`JournalEnd`, :func:`end_problems`): a finished tournament's journal
closes with a sealed ``end`` entry that ``tournament.json`` records, so that
a journal cut short at its end is caught, though its chain of MACs is whole.
"""

from __future__ import annotations

import pathlib
from collections.abc import Iterator, Mapping
from typing import Any

from referee.folder import seal
from referee.folder.errors import JournalError
from referee.folder.journal import read_lines
from referee.folder.layout import Layout
from referee.folder.state import TournamentState

__all__ = [
    "JournalEnd",
    "authenticated_journal",
    "check_journal_end",
    "check_key_id",
    "check_log_mac",
    "check_sealed_facts",
    "end_problems",
    "unauthenticated_journal",
]


class JournalEnd:
    """What a journal says of its own end, gathered line by line as it is read.

    A journal made by this referee promises, in its first line and every
    ``run`` line (``sealed_end``, sealed like every line), that it is closed
    with an ``end`` entry once the tournament is finished, and that
    ``tournament.json`` is sealed (``state_mac``) and records that end
    (``finished``). Removing lines from the end of the journal keeps the
    chain of MACs whole, so that alone cannot tell a cut journal from an
    unfinished one: the end that ``tournament.json`` records can
    (:func:`end_problems`).
    """

    def __init__(self) -> None:
        #: A line (authenticated, when read with the key) promised the sealed end.
        self.promised = False
        self.promised_at = 0
        #: Game entries, the number of the last line read, and the type of the last entry.
        self.games = 0
        self.last_line = 0
        self.last_type = ""
        #: The MAC of each ``end`` line: (line number, its ``games``).
        self.ends: dict[str, tuple[int, int]] = {}
        self.problems: list[tuple[int, str]] = []

    def add(self, number: int, entry: Mapping[str, Any], mac: str | None) -> None:
        """One line read (``mac``: its MAC, None when it has none)."""
        kind = entry.get("type")
        self.last_line, self.last_type = number, str(kind)
        if entry.get("sealed_end") is True and kind in ("journal", "run") and not self.promised:
            self.promised, self.promised_at = True, number
        if kind == "game":
            self.games += 1
        elif kind == "end":
            if entry.get("games") != self.games:
                self.problems.append(
                    (
                        number,
                        f"the end entry counts {entry.get('games')} games, but "
                        f"{self.games} come before it",
                    )
                )
            if mac is not None:
                self.ends[mac] = (number, self.games)


def end_problems(
    end: JournalEnd, state: TournamentState | None, layout: Layout, key: bytes | None
) -> list[tuple[pathlib.Path, int, str]]:
    """``(file, line, problem)`` for a journal cut short at its end, or a state not sealed.

    ``end`` has read the whole journal. Caught: the end entry that
    ``tournament.json`` records as the tournament's finish is not in the
    journal (its last lines, the end entry among them, were removed, or the
    journal was put back to an older copy); an end entry whose count of games
    is wrong; and, with the key, a ``tournament.json`` that the journal says
    is sealed but is missing, unsealed or changed (so that its ``finished``
    cannot be taken out). Not caught: a folder put back as a whole to the
    files it held earlier (its journal, and its ``tournament.json`` copied at
    that time), since those files were once the referee's own.
    """
    problems = [(layout.journal, line, text) for line, text in end.problems]
    if state is None:
        if end.promised:
            problems.append(
                (
                    layout.state,
                    0,
                    f"missing, though the journal ({layout.journal}:"
                    f"{end.promised_at}) says the referee keeps it: it was removed",
                )
            )
        return problems
    if key is not None and (end.promised or state.state_mac is not None):
        problem = state.seal_problem(key)
        if problem:
            where = (
                f" ({layout.journal}:{end.promised_at} says it is sealed)" if end.promised else ""
            )
            problems.append((layout.state, 0, f"{problem}{where}"))
            return problems  # its finished cannot be trusted either way
    finished = state.finished
    if finished is not None and finished["end_mac"] not in end.ends:
        recorded = (
            f"{layout.state.name} records that the tournament finished with "
            f"{finished['games']} games (its end entry at line {finished['line']})"
        )
        if end.last_line < finished["line"]:
            problem = (
                f"cut short: {recorded}, but the journal ends at line {end.last_line} with "
                f"{end.games} games: its last lines were removed"
            )
        else:
            problem = (
                f"{recorded}, but the journal holds no such line: it was rewritten, or comes "
                "from another tournament"
            )
        problems.append((layout.journal, 0, problem))
    return problems


def check_key_id(layout: Layout, state: TournamentState, key: bytes) -> None:
    """Refuse a key that is not the tournament's (its id is not ``tournament.json``'s)."""
    if state.key_id is not None and state.key_id != seal.key_id(key):
        raise JournalError(
            f"{layout.state}: the tournament's key id is {state.key_id}, but this key's is "
            f"{seal.key_id(key)}: not this tournament's key"
        )


def check_sealed_facts(
    layout: Layout, facts: Mapping[str, Any], entry: Mapping[str, Any], where: str
) -> None:
    """Refuse a ``tournament.json`` whose ``facts`` disagree with a ``run`` entry's."""
    for name, value in facts.items():
        if name in entry and entry[name] != value:
            raise JournalError(
                f"{layout.state}: its {name} disagrees with the run entry sealed in {where}"
            )


def check_log_mac(
    path: pathlib.Path | None, entry: Mapping[str, Any], key: bytes, where: str
) -> None:
    """Refuse a game's log (at ``path``) that its entry's ``log_mac`` does not authenticate.

    A log that is missing (or None: outside the folder) is left to the caller to say.
    """
    if path is None or not path.is_file():
        return
    mac = entry.get("log_mac")
    if not isinstance(mac, str) or mac != seal.log_mac(key, path.read_bytes()):
        raise JournalError(
            f"{path}: the log does not match the MAC journaled for it ({where}): it was "
            "changed after the game, or comes from another tournament"
        )


def authenticated_journal(
    layout: Layout, state: TournamentState, key: bytes
) -> Iterator[dict[str, Any]]:
    """The journal's entries, streamed, each authenticated with the folder's ``key``.

    Checked: every line's MAC (chained, so lines removed, inserted or moved
    are caught too); every game entry's ``log_mac`` against its log's bytes
    (a missing log is left to the caller); ``tournament.json``'s facts
    against those sealed in every ``run`` entry; and, once the last line is
    read, the journal's end (:func:`end_problems`: not cut short, and
    ``tournament.json`` sealed). The first failure raises
    :class:`~referee.folder.errors.JournalError` naming the file and line.
    """
    check_key_id(layout, state, key)
    facts = state.sealed_facts()
    end = JournalEnd()
    for line in read_lines(layout.journal, key=key):
        entry = line.entry
        end.add(line.number, entry, line.mac)
        where = f"{layout.journal}:{line.number}"
        if entry["type"] == "run":
            check_sealed_facts(layout, facts, entry, where)
        elif entry["type"] == "game":
            check_log_mac(layout.log_of(entry), entry, key, where)
        yield entry
    _raise_first(end_problems(end, state, layout, key))


def unauthenticated_journal(layout: Layout, state: TournamentState) -> Iterator[dict[str, Any]]:
    """The journal's entries as they are (no key), and still refused when cut short at its end."""
    end = JournalEnd()
    for line in read_lines(layout.journal):
        end.add(line.number, line.entry, line.mac)
        yield line.entry
    _raise_first(end_problems(end, state, layout, None))


def check_journal_end(layout: Layout, state: TournamentState, key: bytes) -> None:
    """Read the whole journal with ``key`` and refuse one cut short (:func:`end_problems`).

    The runner calls it before it resumes a folder, so that a cut journal's
    missing games are not played again, and a changed ``tournament.json`` is
    not sealed anew. Raises :class:`~referee.folder.errors.JournalError` naming
    the file and line.
    """
    end = JournalEnd()
    for line in read_lines(layout.journal, key=key):
        end.add(line.number, line.entry, line.mac)
    problems = end_problems(end, state, layout, key)
    if problems:
        path, number, text = problems[0]
        where = f"{path}:{number}" if number else str(path)
        raise JournalError(
            f"{where}: {text}; the tournament is not resumed (its results are not the "
            "referee's as written): put the files back from a copy, or use --fresh to move the "
            "folder aside and start over"
        )


def _raise_first(problems: list[tuple[pathlib.Path, int, str]]) -> None:
    if problems:
        path, line, text = problems[0]
        raise JournalError(f"{path}:{line}: {text}" if line else f"{path}: {text}")
