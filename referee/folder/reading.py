"""A tournament folder read back: its journal opened with its state, its standings, its games.

What ``referee standings``, ``referee replay`` and the analysis read of a
folder, each through the one journal reader (:mod:`referee.folder.journal`)
and, for results, authenticated with the folder's key
(:mod:`referee.folder.authenticate`).
"""

from __future__ import annotations

import difflib
import os
import pathlib
from collections.abc import Iterator
from typing import Any

from referee.folder import seal
from referee.folder.authenticate import authenticated_journal, unauthenticated_journal
from referee.folder.errors import TournamentError
from referee.folder.journal import read_journal
from referee.folder.layout import Layout
from referee.folder.state import TournamentState
from referee.stats.standings import Standings, compute_standings

__all__ = ["game_entries", "game_log_path", "load_standings", "open_journal"]


def open_journal(
    root: str | os.PathLike[str], *, key: bytes | None = None, authenticate: bool = True
) -> tuple[Layout, TournamentState, Iterator[dict[str, Any]]]:
    """A folder's layout, state and journal entries, authenticated as :func:`load_standings` says."""
    layout = Layout(pathlib.Path(root))
    if not layout.state.exists():
        raise TournamentError(f"{root}: not a tournament output folder (no {layout.state.name})")
    state = TournamentState.load(layout.state)
    entries: Iterator[dict[str, Any]] = unauthenticated_journal(layout, state)
    if authenticate:
        if key is None:
            try:
                key = seal.folder_key(layout.root)
            except seal.SealError as error:
                raise TournamentError(str(error)) from None
        if key is None:
            raise TournamentError(
                f"{layout.key}: no key file, so the results cannot be "
                "authenticated (a folder published without its key)"
            )
        entries = authenticated_journal(layout, state, key)
    return layout, state, entries


def load_standings(
    root: str | os.PathLike[str],
    *,
    ranking: str | None = None,
    key: bytes | None = None,
    authenticate: bool = True,
) -> Standings:
    """Standings recomputed from an output folder's state and journal.

    The journal is authenticated first
    (:func:`~referee.folder.authenticate.authenticated_journal`) with ``key``,
    by default the folder's key file; any failure raises
    :class:`~referee.folder.errors.JournalError` naming the file and line. A
    folder without its key (one published, say) cannot be authenticated: that
    raises :class:`~referee.folder.errors.TournamentError` unless
    ``authenticate`` is false, which trusts the journal as it is.
    """
    _, state, entries = open_journal(root, key=key, authenticate=authenticate)
    return compute_standings(
        entries,
        bots=state.participants or list(state.config.get("bots", {})),
        excluded=state.excluded,
        ranking=ranking or state.ranking,
        name=state.name,
        games_scheduled=state.games_scheduled,
        unsandboxed=[
            name
            for name, bot in state.config.get("bots", {}).items()
            if isinstance(bot, dict) and bot.get("sandbox") == "none"
        ],
    )


def game_entries(root: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The game entries of a folder's journal, for showing (not authenticated: see verify).

    Raises :class:`~referee.folder.errors.TournamentError` when ``root`` holds
    no journal, and :class:`~referee.folder.errors.JournalError` (naming the
    line) for a line that is not an entry.
    """
    layout = Layout(pathlib.Path(root))
    if not layout.journal.is_file():
        raise TournamentError(
            f"{layout.root} is neither a game log nor a tournament folder "
            f"(no {layout.journal.name})"
        )
    return [
        e
        for e in read_journal(layout.journal)
        if e.get("type") == "game" and isinstance(e.get("game_id"), str)
    ]


def game_log_path(root: str | os.PathLike[str], game_id: str) -> pathlib.Path:
    """The log of game ``game_id`` in a tournament folder; the error says which games exist."""
    layout = Layout(pathlib.Path(root))
    path = layout.game_log(game_id)
    if path.is_file():
        return path
    entries = game_entries(layout.root)
    for entry in entries:
        if entry["game_id"] == game_id and isinstance(entry.get("log_path"), str):
            candidate = (layout.root / entry["log_path"]).resolve()
            if layout.root.resolve() in candidate.parents and candidate.is_file():
                return candidate
    logs = dict(layout.game_logs())  # a game not journaled (yet): in flight, or cut short
    if game_id in logs:
        return logs[game_id]
    known = {e["game_id"] for e in entries} | logs.keys()
    close = difflib.get_close_matches(game_id, sorted(known), n=3)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    raise TournamentError(f"no game {game_id!r} in {layout.root}{hint}")
