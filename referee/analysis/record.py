"""The analysis file beside a game log (format ``hearts-referee/analysis``, version 1).

``referee analyze`` writes, for the log ``games/000/t1-d1-r1.jsonl.gz``, the
file ``games/000/t1-d1-r1.analysis.json`` (:func:`analysis_path`): one JSON
object holding, per analysed seat, the settings of the search and every
decision of that seat with the expected points of its choices. The log is
never touched; the file names the log's SHA-256, so a reader knows whether it
still describes that log, and ``referee verify`` does not look at it (it reads
only logs, the journal and the state). docs/analysis.md documents the fields.

Analysing another bot of the same game adds its seats to the file; the file
is replaced atomically (:mod:`referee.durable`), so nothing already analysed
is lost to a crash.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import pathlib
from typing import Any

from referee import durable
from referee.analysis.grading import Grade, Phase
from referee.engine import Card

__all__ = [
    "ANALYSIS_FORMAT",
    "ANALYSIS_VERSION",
    "AnalysisError",
    "AnalysisFile",
    "Decision",
    "Option",
    "SeatAnalysis",
    "analysis_for_log",
    "analysis_path",
    "log_digest",
    "read_analysis",
    "write_analysis",
]

ANALYSIS_FORMAT = "hearts-referee/analysis"
ANALYSIS_VERSION = 1
#: The suffix that replaces a log's ``.jsonl`` / ``.jsonl.gz``.
ANALYSIS_SUFFIX = ".analysis.json"


class AnalysisError(Exception):
    """An analysis file that cannot be read; the message names the file and the key."""


def analysis_path(log: str | os.PathLike[str]) -> pathlib.Path:
    """Where the analysis of ``log`` lives: beside it, ``<game>.analysis.json``."""
    log = pathlib.Path(log)
    name = log.name
    for suffix in (".jsonl.gz", ".jsonl"):
        if name.endswith(suffix) and len(name) > len(suffix):
            return log.with_name(name[: -len(suffix)] + ANALYSIS_SUFFIX)
    return log.with_name(name + ANALYSIS_SUFFIX)


def log_digest(log: str | os.PathLike[str]) -> str:
    """The SHA-256 of the log's bytes as stored (compressed or not)."""
    digest = hashlib.sha256()
    with open(log, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def _cards(cards: tuple[int, ...] | list[int]) -> list[str]:
    return [str(Card(c)) for c in cards]


def _number(value: float | None) -> float | None:
    if value is None or math.isnan(value):
        return None
    return round(value, 3)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Option:
    """One choice of a decision as recorded: its cards and value."""

    cards: tuple[Card, ...]
    #: Expected points for the hand (None: not searched, a forced play).
    points: float | None
    loss: float
    error: float
    #: Standard error of ``points``.
    points_error: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "cards": _cards(self.cards),
            "points": _number(self.points),
            "points_error": _number(self.points_error),
            "loss": _number(self.loss),
            "error": _number(self.error),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Option:
        return cls(
            cards=tuple(Card.parse(c) for c in data["cards"]),
            points=None if data["points"] is None else float(data["points"]),
            loss=float(data["loss"]),
            error=float(data["error"]),
            points_error=float(data.get("points_error") or 0.0),
        )


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """One decision of the analysed seat, with the value of every choice."""

    #: ``pass``, ``play`` or ``moon``.
    kind: str
    phase: Phase
    hand: int
    #: The trick of a play (0 for a pass or the moon choice), and the play's place in it.
    trick: int = 0
    position: int = 0
    #: The decision id of the log, and the log line that records it.
    decision: str = ""
    line: int = 0
    #: What the seat did (cards; for the moon choice, empty: see ``choice``).
    chosen: tuple[Card, ...] = ()
    #: The moon choice made and the best one (V2), else empty.
    choice: str = ""
    best_choice: str = ""
    #: The choices, best first.
    options: tuple[Option, ...] = ()
    #: Expected loss of what was done, against the best choice, and its standard error.
    loss: float = 0.0
    error: float = 0.0
    grade: Grade | None = None
    #: Worlds searched; every consistent one (exact); stopped by the time budget (cut).
    worlds: int = 0
    exact: bool = False
    cut: bool = False
    #: Only one choice was legal (not searched).
    forced: bool = False
    #: The referee chose (a fault or a forfeit): not the bot's decision, not counted.
    fallback: bool = False
    #: The analysis's time for it.
    ms: float = 0.0

    @property
    def best(self) -> tuple[Card, ...]:
        return self.options[0].cards if self.options else ()

    @property
    def searched(self) -> bool:
        """Whether the search valued it: the bot's own pass or play with a choice (a forced
        play, a fallback and the moon choice, judged by the engine, are not searched)."""
        return not (self.fallback or self.forced or self.kind == "moon")

    def where(self) -> str:
        """Hand, trick and place, for people: ``hand 3, trick 5`` or ``hand 3, pass``."""
        if self.kind == "play":
            return f"hand {self.hand}, trick {self.trick}"
        return f"hand {self.hand}, {'pass' if self.kind == 'pass' else 'moon choice'}"

    def what(self) -> str:
        """What was done and what was best: ``Q♠ (best 3♠)``."""
        if self.kind == "moon":
            return f"{self.choice} (best {self.best_choice})"
        made = " ".join(c.symbol() for c in self.chosen)
        if self.loss <= 0 or not self.options:
            return made
        return f"{made} (best {' '.join(c.symbol() for c in self.best)})"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "phase": self.phase.value,
            "hand": self.hand,
            "trick": self.trick,
            "position": self.position,
            "decision": self.decision,
            "line": self.line,
            "chosen": _cards(self.chosen),
            "choice": self.choice,
            "best_choice": self.best_choice,
            "options": [o.to_json() for o in self.options],
            "loss": _number(self.loss),
            "error": _number(self.error),
            "grade": self.grade.value if self.grade else None,
            "worlds": self.worlds,
            "exact": self.exact,
            "cut": self.cut,
            "forced": self.forced,
            "fallback": self.fallback,
            "ms": round(self.ms, 1),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Decision:
        if data["kind"] not in ("pass", "play", "moon"):
            raise ValueError(f"unknown kind {data['kind']!r}")
        return cls(
            kind=data["kind"],
            phase=Phase(data["phase"]),
            hand=int(data["hand"]),
            trick=int(data["trick"]),
            position=int(data["position"]),
            decision=str(data["decision"]),
            line=int(data["line"]),
            chosen=tuple(Card.parse(c) for c in data["chosen"]),
            choice=str(data["choice"]),
            best_choice=str(data["best_choice"]),
            options=tuple(Option.from_json(o) for o in data["options"]),
            loss=float(data["loss"]),
            error=float(data["error"]),
            grade=None if data["grade"] is None else Grade(data["grade"]),
            worlds=int(data["worlds"]),
            exact=bool(data["exact"]),
            cut=bool(data["cut"]),
            forced=bool(data["forced"]),
            fallback=bool(data["fallback"]),
            ms=float(data["ms"]),
        )


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class SeatAnalysis:
    """One seat's decisions in one game."""

    seat: int
    bot: str
    settings: dict[str, int]
    #: Hands the seat played (decisions or not): the summary's per-hand divisor.
    hands: int
    decisions: tuple[Decision, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "bot": self.bot,
            "settings": dict(self.settings),
            "hands": self.hands,
            "decisions": [d.to_json() for d in self.decisions],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeatAnalysis:
        settings = data["settings"]
        if not isinstance(settings, dict):
            raise TypeError("settings is not an object")
        return cls(
            seat=int(data["seat"]),
            bot=str(data["bot"]),
            settings={str(k): int(v) for k, v in settings.items()},
            hands=int(data["hands"]),
            decisions=tuple(Decision.from_json(d) for d in data["decisions"]),
        )


@dataclasses.dataclass(slots=True, kw_only=True)
class AnalysisFile:
    """Every analysed seat of one game."""

    #: The log's file name (beside this file) and its SHA-256 when analysed.
    log: str
    log_sha256: str
    game_id: str
    referee_version: str
    seats: dict[int, SeatAnalysis] = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": ANALYSIS_FORMAT,
            "version": ANALYSIS_VERSION,
            "referee_version": self.referee_version,
            "log": self.log,
            "log_sha256": self.log_sha256,
            "game_id": self.game_id,
            "seats": [self.seats[s].to_json() for s in sorted(self.seats)],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AnalysisFile:
        seats = [SeatAnalysis.from_json(s) for s in data["seats"]]
        return cls(
            log=str(data["log"]),
            log_sha256=str(data["log_sha256"]),
            game_id=str(data["game_id"]),
            referee_version=str(data["referee_version"]),
            seats={s.seat: s for s in seats},
        )


def read_analysis(path: str | os.PathLike[str]) -> AnalysisFile | None:
    """The analysis file at ``path`` (None when there is none).

    Raises :class:`AnalysisError` naming the file and what is wrong with it.
    """
    path = pathlib.Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise AnalysisError(f"{path}: unreadable ({error})") from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise AnalysisError(f"{path}: not JSON: not an analysis file?") from None
    if not isinstance(data, dict) or data.get("format") != ANALYSIS_FORMAT:
        raise AnalysisError(f"{path}: not an analysis file (format is not {ANALYSIS_FORMAT!r})")
    if data.get("version") != ANALYSIS_VERSION:
        raise AnalysisError(
            f"{path}: analysis version {data.get('version')!r}; this referee reads "
            f"version {ANALYSIS_VERSION} (analyse again with --force)"
        )
    try:
        return AnalysisFile.from_json(data)
    except KeyError as error:
        raise AnalysisError(f"{path}: missing key {error}") from None
    except (TypeError, ValueError, AttributeError) as error:
        raise AnalysisError(f"{path}: a malformed analysis: {error}") from None


def write_analysis(path: str | os.PathLike[str], analysis: AnalysisFile) -> None:
    """Replace the analysis file atomically (a crash leaves the old file or the new)."""
    text = json.dumps(analysis.to_json(), ensure_ascii=False, separators=(",", ":"))
    durable.write_bytes(path, (text + "\n").encode("utf-8"))


def analysis_for_log(log: str | os.PathLike[str]) -> AnalysisFile | None:
    """The analysis beside ``log`` if it describes this log's bytes, else None (never raises
    for a missing, stale or damaged file: the viewers then show the game unmarked)."""
    try:
        found = read_analysis(analysis_path(log))
        if found is None or found.log_sha256 != log_digest(log):
            return None
    except (AnalysisError, OSError):
        return None
    return found
