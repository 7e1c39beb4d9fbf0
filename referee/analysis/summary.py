"""What the analysed decisions add up to: points lost per hand by phase, worst decisions, per bot.

Pure functions of :class:`~referee.analysis.record.SeatAnalysis` values, for
``referee analyze`` (a game's report, a folder's table) and the web's bot
page. *Points lost* is the sum of the expected losses of the bot's own
decisions (the referee's fallback moves are not the bot's); *per hand*
divides by the hands the bot's seats played.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Iterable

from tabulate import tabulate

from referee.analysis.grading import Grade, Phase
from referee.analysis.record import Decision, SeatAnalysis
from referee.safetext import shown_name

__all__ = ["BotSummary", "Worst", "game_report", "summarize", "summary_table"]

#: Worst decisions kept per bot.
WORST = 10


@dataclasses.dataclass(frozen=True, slots=True)
class Worst:
    """One of a bot's worst decisions, with where to find it."""

    game_id: str
    seat: int
    decision: Decision


@dataclasses.dataclass(slots=True)
class BotSummary:
    """One bot's analysed decisions, added up."""

    bot: str
    games: int = 0
    hands: int = 0
    #: The bot's own decisions (searched or forced), and those the referee made for it.
    decisions: int = 0
    fallbacks: int = 0
    #: Searches the time budget stopped before their worlds.
    cut: int = 0
    loss: dict[Phase, float] = dataclasses.field(default_factory=lambda: dict.fromkeys(Phase, 0.0))
    grades: collections.Counter[Grade] = dataclasses.field(default_factory=collections.Counter)
    #: The analysis's own time over the searched decisions.
    ms: float = 0.0
    searched: int = 0
    worst: list[Worst] = dataclasses.field(default_factory=list)

    @property
    def lost(self) -> float:
        return sum(self.loss.values())

    @property
    def per_hand(self) -> float:
        return self.lost / self.hands if self.hands else 0.0

    def phase_per_hand(self, phase: Phase) -> float:
        return self.loss[phase] / self.hands if self.hands else 0.0

    @property
    def ms_per_decision(self) -> float:
        return self.ms / self.searched if self.searched else 0.0

    def add(self, game_id: str, analysis: SeatAnalysis) -> None:
        """Add one seat's analysis of one game."""
        self.games += 1
        self.hands += analysis.hands
        for d in analysis.decisions:
            if d.fallback:
                self.fallbacks += 1
                continue
            self.decisions += 1
            self.loss[d.phase] += max(0.0, d.loss)
            self.cut += d.cut
            if d.grade is not None:
                self.grades[d.grade] += 1
            if d.searched:
                self.searched += 1
                self.ms += d.ms
            if d.loss > 0:
                self.worst.append(Worst(game_id, analysis.seat, d))
        self.worst.sort(key=lambda w: (-w.decision.loss, w.game_id, w.decision.line))
        del self.worst[WORST:]


def summarize(entries: Iterable[tuple[str, SeatAnalysis]]) -> list[BotSummary]:
    """Per bot, from ``(game_id, seat analysis)`` pairs; the most points lost per hand first."""
    bots: dict[str, BotSummary] = {}
    for game_id, analysis in entries:
        bots.setdefault(analysis.bot, BotSummary(analysis.bot)).add(game_id, analysis)
    return sorted(bots.values(), key=lambda b: (-b.per_hand, b.bot))


_COLUMNS = (
    (Phase.PASSING, "pass"),
    (Phase.LEADING, "lead"),
    (Phase.FOLLOWING, "follow"),
    (Phase.DISCARDING, "discard"),
    (Phase.MOON_DEFENCE, "moon def."),
    (Phase.MOON_CHOICE, "moon ch."),
)


def summary_table(summaries: list[BotSummary]) -> str:
    """The per-bot table: points lost per hand, by phase, the classes and the search's time."""
    rows = []
    for b in summaries:
        rows.append(
            [
                shown_name(b.bot),
                b.games,
                b.hands,
                f"{b.per_hand:.2f}",
                *(f"{b.phase_per_hand(phase):.2f}" for phase, _ in _COLUMNS),
                b.grades[Grade.INACCURACY],
                b.grades[Grade.MISTAKE],
                b.grades[Grade.BLUNDER],
                f"{b.ms_per_decision:.0f}",
            ]
        )
    headers = [
        "bot",
        "games",
        "hands",
        "lost/hand",
        *(label for _, label in _COLUMNS),
        "?!",
        "?",
        "??",
        "ms/dec",
    ]
    return tabulate(rows, headers=headers, disable_numparse=True, colalign=("left",))


def game_report(game_id: str, analysis: SeatAnalysis, *, worst: int = 5) -> str:
    """One seat's game: points lost per hand by phase and its worst decisions."""
    b = BotSummary(analysis.bot)
    b.add(game_id, analysis)
    lines = [
        f"{shown_name(analysis.bot)} (seat {analysis.seat}) in {shown_name(game_id)}: "
        f"{b.lost:.1f} points lost over {b.hands} hands, {b.per_hand:.2f} a hand; "
        + ", ".join(g.count(b.grades[g]) for g in Grade),
        "  per hand: "
        + ", ".join(f"{label} {b.phase_per_hand(phase):.2f}" for phase, label in _COLUMNS),
    ]
    for w in b.worst[:worst]:
        d = w.decision
        mark = f" {d.grade.mark} {d.grade.value}" if d.grade else ""
        lines.append(
            f"  {d.where()} (line {d.line}): {d.what()}, lost {d.loss:.2f} ± {d.error:.2f}{mark}"
        )
    if b.cut:
        lines.append(f"  {b.cut} searches stopped at the time budget (not reproducible exactly)")
    return "\n".join(lines)
