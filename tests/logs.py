"""Game logs of a tournament folder for tests: found through the folder's layout, read and
rewritten whatever their form (gzip-compressed once a game is over, plain in older folders)."""

from __future__ import annotations

import pathlib

from referee.folder import Layout, game_log_path
from referee.match.gamelog import open_log, store_log

__all__ = ["folder_logs", "log_of", "log_text", "write_log_text"]


def folder_logs(folder: pathlib.Path) -> list[pathlib.Path]:
    """Every game log of ``folder``, sorted by game id."""
    return [path for _, path in sorted(Layout(folder).game_logs())]


def log_of(folder: pathlib.Path, game_id: str) -> pathlib.Path:
    """The log of ``game_id`` in ``folder`` (its journal's ``log_path``)."""
    return game_log_path(folder, game_id)


def log_text(path: pathlib.Path) -> str:
    """A log's lines, decompressed."""
    with open_log(path) as handle:
        return handle.read().decode("utf-8")


def write_log_text(path: pathlib.Path, text: str) -> None:
    """Replace a log's lines, compressed again when its name says so."""
    store_log(path, text.encode("utf-8"))
