"""The web's view of ``referee analyze``: a bot's points lost and worst decisions in a folder.

The bot page (``/t/ID/bots/BOT``) lists the bot's worst analysed decisions,
each a link to its position in the game's replay, from the analysis files
beside the folder's logs (:mod:`referee.analysis.record`). A file is read
again only when it or its log changes, and used only while it describes the
log's bytes (its SHA-256); the server never writes one.
"""

from __future__ import annotations

import pathlib
import threading
from collections.abc import Iterable
from typing import Any

from referee.analysis.record import AnalysisFile, Decision, analysis_for_log, analysis_path
from referee.analysis.summary import Worst, summarize
from referee.safetext import shown_name, shown_text

__all__ = ["BotAnalyses", "replay_position"]

#: Worst decisions the bot page lists.
SHOWN = 15


def replay_position(decision: Decision) -> str:
    """The replay's URL fragment showing ``decision``: its trick, the deal for a pass, the
    last trick for the moon choice (the replay clamps a trick past the last to the last)."""
    trick = {"play": decision.trick, "pass": 0}.get(decision.kind, 99)
    return f"#hand={decision.hand}&trick={trick}"


def _stamp(path: pathlib.Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


class BotAnalyses:
    """The analysis files of served folders, cached by the files' modification stamps."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._files: dict[pathlib.Path, tuple[tuple[Any, Any], AnalysisFile | None]] = {}

    def file(self, log: pathlib.Path) -> AnalysisFile | None:
        """The analysis of ``log`` if there is a current one."""
        stamps = (_stamp(log), _stamp(analysis_path(log)))
        if stamps[1] is None:
            return None
        with self._lock:
            cached = self._files.get(log)
        if cached is not None and cached[0] == stamps:
            return cached[1]
        found = analysis_for_log(log)
        with self._lock:
            self._files[log] = (stamps, found)
        return found

    def of_bot(self, root: pathlib.Path, games: Iterable[Any], bot: str) -> dict[str, Any] | None:
        """The bot's summary over the folder's analysed games, with its worst decisions.

        ``games`` are the index's game rows (``game_id``, ``bots``, ``log``).
        """
        base = root.resolve()
        entries = []
        for row in games:
            if row.log is None or bot not in row.bots:
                continue
            log = root / row.log
            if not log.resolve().is_relative_to(base):
                continue
            found = self.file(log)
            if found is None:
                continue
            entries += [(row.game_id, a) for a in found.seats.values() if a.bot == bot]
        if not entries:
            return None
        (summary,) = summarize(entries)
        return {
            "games": summary.games,
            "hands": summary.hands,
            "decisions": summary.decisions,
            "points_lost_per_hand": round(summary.per_hand, 3),
            "per_hand_by_phase": {
                p.value: round(summary.phase_per_hand(p), 3) for p in summary.loss
            },
            "grades": {g.value: n for g, n in summary.grades.items()},
            "ms_per_decision": round(summary.ms_per_decision, 1),
            "worst": [
                {
                    "game_id": shown_name(w.game_id),
                    "position": replay_position(w.decision),
                    "where": w.decision.where(),
                    "what": shown_text(w.decision.what()),
                    "phase": w.decision.phase.value,
                    "loss": round(w.decision.loss, 2),
                    "error": round(w.decision.error, 2),
                    "grade": w.decision.grade.value if w.decision.grade else None,
                    "mark": w.decision.grade.mark if w.decision.grade else "",
                }
                for w in _worst(entries)
            ],
        }


def _worst(entries: list[tuple[str, Any]]) -> list[Worst]:
    """The worst decisions over every entry (the summary keeps only its top few)."""
    found = [
        Worst(game_id, a.seat, d)
        for game_id, a in entries
        for d in a.decisions
        if not d.fallback and d.loss > 0
    ]
    found.sort(key=lambda w: (-w.decision.loss, w.game_id, w.decision.line))
    return found[:SHOWN]
