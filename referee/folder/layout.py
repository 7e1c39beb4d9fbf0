"""Every file and folder name of a tournament folder and of a match or check-bot folder.

The one place these names are spelled. A tournament's output folder
(:class:`Layout`)::

    config.yaml  tournament.json  journal.jsonl  key
    standings.json  standings.txt  head_to_head.csv  (gauntlet.json  gauntlet.txt)
    games/000/t1-d1-r1.jsonl.gz ...   builds/   bots/

A match's or a check-bot's folder (:class:`MatchLayout`)::

    game.jsonl (one game) or games/ (several)   builds/   bots/

The formats are documented in docs/config.md.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
from collections.abc import Iterator, Mapping
from typing import Any

from referee.folder.errors import TournamentError

__all__ = [
    "BOTS_NAME",
    "BUILDS_NAME",
    "CONFIG_NAME",
    "GAMES_NAME",
    "GAMES_PER_FOLDER",
    "GAME_LOG_NAME",
    "GAUNTLET_JSON_NAME",
    "GAUNTLET_TXT_NAME",
    "HEAD_TO_HEAD_NAME",
    "JOURNAL_NAME",
    "KEY_NAME",
    "LOG_SUFFIX",
    "PLAIN_LOG_SUFFIX",
    "STANDINGS_JSON_NAME",
    "STANDINGS_TXT_NAME",
    "STATE_NAME",
    "Layout",
    "MatchLayout",
    "log_game_id",
    "recorded_file",
]

#: The names at the top of a tournament folder.
CONFIG_NAME = "config.yaml"
STATE_NAME = "tournament.json"
JOURNAL_NAME = "journal.jsonl"
#: The folder's key (:mod:`referee.folder.seal`).
KEY_NAME = "key"
STANDINGS_JSON_NAME = "standings.json"
STANDINGS_TXT_NAME = "standings.txt"
HEAD_TO_HEAD_NAME = "head_to_head.csv"
#: A gauntlet's report (:mod:`referee.tournament.gauntlet`).
GAUNTLET_JSON_NAME = "gauntlet.json"
GAUNTLET_TXT_NAME = "gauntlet.txt"
#: The folders of a tournament folder (and of a match folder): game logs, bot builds,
#: each bot's own log folder.
GAMES_NAME = "games"
BUILDS_NAME = "builds"
BOTS_NAME = "bots"
#: The log of a one-game match (``referee match``, ``referee play``, ``check-bot --full-game``).
GAME_LOG_NAME = "game.jsonl"

#: Logs per folder of ``games/`` (:meth:`Layout.game_log`).
GAMES_PER_FOLDER = 100
#: A finished game's log: gzip-compressed JSON Lines.
LOG_SUFFIX = ".jsonl.gz"
#: A game's log while it is played, and every log of a folder of an older referee.
PLAIN_LOG_SUFFIX = ".jsonl"


def log_game_id(name: str) -> str | None:
    """The game id of a log's file name (``t1-d1-r1.jsonl.gz`` or ``.jsonl``), else None."""
    for suffix in (LOG_SUFFIX, PLAIN_LOG_SUFFIX):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return None


def _folder_problem(paths: tuple[pathlib.Path, ...], root: pathlib.Path) -> str | None:
    """Why the referee cannot write into ``root`` and its subfolders ``paths``, or None."""
    for path in paths:
        if (path.exists() or path.is_symlink()) and not path.is_dir():
            what = "the output folder" if path == root else f"its {path.name} folder"
            return (
                f"{path} is a file, not a folder ({what}); move it away or choose another "
                "output folder (--out)"
            )
        if path == root and not path.exists():
            for parent in path.parents:
                if parent.exists() and not parent.is_dir():
                    return f"{parent} is a file, so the output folder {path} cannot be made"
    return None


@dataclasses.dataclass(frozen=True, slots=True)
class Layout:
    """Where things go in a tournament's output folder."""

    root: pathlib.Path

    @property
    def config(self) -> pathlib.Path:
        return self.root / CONFIG_NAME

    @property
    def state(self) -> pathlib.Path:
        return self.root / STATE_NAME

    @property
    def journal(self) -> pathlib.Path:
        return self.root / JOURNAL_NAME

    @property
    def key(self) -> pathlib.Path:
        return self.root / KEY_NAME

    @property
    def games(self) -> pathlib.Path:
        return self.root / GAMES_NAME

    @property
    def bots(self) -> pathlib.Path:
        return self.root / BOTS_NAME

    @property
    def builds(self) -> pathlib.Path:
        return self.root / BUILDS_NAME

    @property
    def standings_json(self) -> pathlib.Path:
        return self.root / STANDINGS_JSON_NAME

    @property
    def standings_txt(self) -> pathlib.Path:
        return self.root / STANDINGS_TXT_NAME

    @property
    def head_to_head_csv(self) -> pathlib.Path:
        return self.root / HEAD_TO_HEAD_NAME

    @property
    def gauntlet_json(self) -> pathlib.Path:
        return self.root / GAUNTLET_JSON_NAME

    @property
    def gauntlet_txt(self) -> pathlib.Path:
        return self.root / GAUNTLET_TXT_NAME

    def is_tournament(self) -> bool:
        """Whether the folder holds a tournament (its state or its journal)."""
        return self.state.exists() or self.journal.exists()

    def held_tournament(self) -> bool:
        """Whether the folder holds or held a tournament: its state, journal, key or config.

        A tournament folder that lost its journal is still one (``verify`` fails it),
        never a folder of loose game logs.
        """
        return self.is_tournament() or self.key.exists() or self.config.exists()

    def check(self) -> None:
        """Refuse a folder the referee cannot write into: the root or a subfolder not a folder.

        Checked before anything is written, so that a resumed run fails up front
        rather than after appending to the journal.
        """
        problem = _folder_problem((self.root, self.games, self.bots, self.builds), self.root)
        if problem:
            raise TournamentError(problem)

    def game_log(self, game_id: str, index: int | None = None) -> pathlib.Path:
        """Where a game's log goes: ``games/<hundred>/<game_id>.jsonl.gz``.

        ``<hundred>`` is the game's place in the schedule (``index``) divided
        by :data:`GAMES_PER_FOLDER`, in three digits: games 0-99 in
        ``games/000/``, 100-199 in ``games/001/``, ..., so no folder holds
        more than a hundred logs. The log is compressed once the game is over
        (:class:`~referee.match.gamelog.GameLogWriter`). Without ``index``:
        ``games/<game_id>.jsonl``, the flat, plain layout of older referees,
        which is still read.
        """
        if index is None:
            return self.games / f"{game_id}{PLAIN_LOG_SUFFIX}"
        return self.games / f"{index // GAMES_PER_FOLDER:03d}" / f"{game_id}{LOG_SUFFIX}"

    def log_of(self, entry: Mapping[str, Any]) -> pathlib.Path:
        """The log of a journal entry: its ``log_path``, or the flat layout's place.

        As the journal says it (whose lines are sealed): a reader that serves
        files to others must still check that the path stays in the folder
        (:meth:`log_inside`).
        """
        relative = entry.get("log_path")
        if not isinstance(relative, str) or not relative:
            return self.game_log(str(entry.get("game_id")))
        return self.root / relative

    def log_inside(self, entry: Mapping[str, Any]) -> pathlib.Path | None:
        """Where a game entry's log is, inside the folder; None if its ``log_path`` points outside.

        The journal's ``log_path`` (relative to the folder) is the one source of
        a log's place; a hand-edited journal could point anywhere, so the path
        must stay under the folder.
        """
        relative = entry.get("log_path")
        if not relative and isinstance(entry.get("game_id"), str):
            relative = self.relative(self.game_log(entry["game_id"]))
        if not isinstance(relative, str):
            return None
        root = self.root.resolve()
        path = (root / relative).resolve()
        return path if path.is_relative_to(root) and path != root else None

    def game_logs(self) -> Iterator[tuple[str, pathlib.Path]]:
        """``(game_id, path)`` of every log file in ``games/``, in either layout.

        A game in flight (or cut short by a crash) has a plain ``.jsonl`` in
        its hundred's folder until it is over and compressed.
        """
        if not self.games.is_dir():
            return
        for path in sorted(self.games.glob("*")):
            if path.is_dir():
                for inner in sorted(path.iterdir()):
                    game_id = log_game_id(inner.name)
                    if game_id and inner.is_file():
                        yield game_id, inner
            else:
                game_id = log_game_id(path.name)
                if game_id and path.is_file():
                    yield game_id, path

    def relative(self, path: pathlib.Path) -> str:
        return path.relative_to(self.root).as_posix()


@dataclasses.dataclass(frozen=True, slots=True)
class MatchLayout:
    """Where things go in the folder of a match (``referee match``, ``referee play``) or a
    bot check (``referee check-bot``)."""

    root: pathlib.Path

    @property
    def game_log(self) -> pathlib.Path:
        """The log of a one-game match, or of check-bot's full game."""
        return self.root / GAME_LOG_NAME

    @property
    def games(self) -> pathlib.Path:
        """The logs of a match of several games."""
        return self.root / GAMES_NAME

    @property
    def builds(self) -> pathlib.Path:
        return self.root / BUILDS_NAME

    @property
    def bots(self) -> pathlib.Path:
        """Each bot's own log folder."""
        return self.root / BOTS_NAME

    def holds_tournament(self) -> bool:
        """Whether the folder is a tournament's (a match never writes into one)."""
        return Layout(self.root).is_tournament()

    def game_logs(self) -> list[pathlib.Path]:
        """The game logs in the folder: ``game.jsonl``, then ``games/*.jsonl`` by name."""
        found = [self.game_log] if self.game_log.is_file() else []
        if self.games.is_dir():
            found += sorted(p for p in self.games.glob("*.jsonl") if p.is_file())
        return found


#: The files the referee records at the top of a tournament folder (and ``game.jsonl``, a match's).
_RECORDED_NAMES = (
    JOURNAL_NAME,
    STATE_NAME,
    KEY_NAME,
    CONFIG_NAME,
    STANDINGS_JSON_NAME,
    STANDINGS_TXT_NAME,
    HEAD_TO_HEAD_NAME,
    GAME_LOG_NAME,
    GAUNTLET_JSON_NAME,
    GAUNTLET_TXT_NAME,
)
#: The first bytes of the JSON Lines files the referee writes.
_RECORDED_STARTS = (b'{"type":"game","format":"hearts-referee/', b'{"type":"journal"')


def recorded_file(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` is, when it is a file the referee recorded (None when it is not).

    A file the referee recorded is never written over by another command (a
    replay page written onto the log it shows, say): a game log or journal
    wherever it is, and the files of a tournament or match folder (its
    ``journal.jsonl``, ``tournament.json``, ``key``, ``games/``, ``builds/``,
    ``bots/``, standings).
    """
    path = pathlib.Path(path)
    try:
        with open(path, "rb") as handle:
            start = handle.read(64)
    except OSError:
        start = b""
    if start.startswith(_RECORDED_STARTS):
        return "a game log or journal"
    folders = [path.parent, *path.parent.parents][:3]
    for depth, folder in enumerate(folders):
        layout = Layout(folder)
        if not (
            layout.state.is_file()
            or layout.journal.is_file()
            or layout.key.is_file()
            or MatchLayout(folder).game_log.is_file()
        ):
            continue
        inside = path.relative_to(folder).parts
        if depth == 0 and path.name in _RECORDED_NAMES:
            return f"the {path.name} of {folder}"
        if inside[0] in (GAMES_NAME, BUILDS_NAME, BOTS_NAME):
            return f"a file of {folder / inside[0]}"
    return None
