"""The analysed decisions a replay marks, looked up by where they happened.

The text, HTML and web replays read the analysis file beside a log
(:func:`~referee.analysis.record.analysis_for_log`) and ask :class:`Marks`
for the decision at each pass, play and moon choice. A replay shown as one
seat saw it marks only that seat's decisions: another seat's options would
show that seat's cards.
"""

from __future__ import annotations

import dataclasses

from referee.analysis.record import AnalysisFile, Decision, SeatAnalysis
from referee.analysis.summary import BotSummary

__all__ = ["Marks"]


@dataclasses.dataclass(frozen=True, slots=True)
class Marks:
    """The decisions of the analysed seats, by (seat, kind, hand, trick, position)."""

    seats: dict[int, SeatAnalysis]
    index: dict[tuple[int, str, int, int, int], Decision]

    @classmethod
    def of(cls, analysis: AnalysisFile | None, *, viewer: int | None = None) -> Marks:
        """The marks of ``analysis`` (none without one), only ``viewer``'s when given."""
        if analysis is None:
            return cls({}, {})
        seats = {s: a for s, a in analysis.seats.items() if viewer is None or s == viewer}
        index = {
            (s, d.kind, d.hand, d.trick, d.position): d
            for s, a in seats.items()
            for d in a.decisions
        }
        return cls(seats, index)

    def __bool__(self) -> bool:
        return bool(self.seats)

    def _find(
        self, seat: int, kind: str, hand: int, trick: int = 0, position: int = 0
    ) -> Decision | None:
        return self.index.get((seat, kind, hand, trick, position))

    def play(self, seat: int, hand: int, trick: int, position: int) -> Decision | None:
        return self._find(seat, "play", hand, trick, position)

    def pass_of(self, seat: int, hand: int) -> Decision | None:
        return self._find(seat, "pass", hand)

    def moon(self, seat: int, hand: int) -> Decision | None:
        return self._find(seat, "moon", hand)

    def summaries(self, game_id: str) -> list[tuple[int, BotSummary]]:
        """Each analysed seat's summary for this game."""
        out = []
        for seat in sorted(self.seats):
            summary = BotSummary(self.seats[seat].bot)
            summary.add(game_id, self.seats[seat])
            out.append((seat, summary))
        return out
