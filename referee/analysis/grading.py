"""How a decision is graded: its phase, and its class by expected loss and the search's error.

The classes follow the chess analysis boards' (lichess marks inaccuracies,
mistakes and blunders by centipawns lost), in points of the hand: a decision
whose expected loss is at least :data:`THRESHOLDS` of a class **and** more
than :data:`SIGNIFICANCE` standard errors of the search is in that class. So a
loss the search cannot tell from its own sampling noise is never called a
mistake, however large it looks (docs/analysis.md).
"""

from __future__ import annotations

import enum

__all__ = [
    "MOON_THREAT",
    "SIGNIFICANCE",
    "THRESHOLDS",
    "Grade",
    "Phase",
    "grade",
    "play_phase",
]


class Grade(enum.StrEnum):
    """A decision's class (the worst a decision can be is a blunder)."""

    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"

    @property
    def mark(self) -> str:
        """The chess annotation shown beside the decision in replays."""
        return _MARKS[self]

    def count(self, n: int) -> str:
        """``n`` decisions of this class, for people: ``1 mistake``, ``3 inaccuracies``."""
        return f"{n} {self.value if n == 1 else _PLURALS[self]}"


_MARKS = {Grade.INACCURACY: "?!", Grade.MISTAKE: "?", Grade.BLUNDER: "??"}
_PLURALS = {Grade.INACCURACY: "inaccuracies", Grade.MISTAKE: "mistakes", Grade.BLUNDER: "blunders"}

#: The least expected loss (points of the hand) of each class, worst first.
THRESHOLDS: tuple[tuple[Grade, float], ...] = (
    (Grade.BLUNDER, 4.0),
    (Grade.MISTAKE, 1.5),
    (Grade.INACCURACY, 0.5),
)

#: Point cards one other seat must have taken, and nobody else any, for a moon to be on.
MOON_THREAT = 4

#: A loss is graded only when it exceeds this many standard errors of the search.
SIGNIFICANCE = 2.0


class Phase(enum.StrEnum):
    """What kind of decision it was (the summary's losses are split by phase)."""

    PASSING = "passing"
    LEADING = "leading"
    FOLLOWING = "following"
    DISCARDING = "discarding"
    #: A play while a moon is on: another seat has taken every point card taken so
    #: far, at least :data:`MOON_THREAT` of them.
    MOON_DEFENCE = "moon defence"
    #: The shooter's choice of moon scoring (V2 shooter_chooses).
    MOON_CHOICE = "moon choice"


def grade(loss: float, error: float) -> Grade | None:
    """The class of a decision that lost ``loss`` points with standard error ``error``."""
    if loss <= SIGNIFICANCE * error:
        return None
    for name, least in THRESHOLDS:
        if loss >= least:
            return name
    return None


def play_phase(
    *, seat: int, trick_cards: list[int], hand: int, points_by_seat: list[int], suit_masks: tuple
) -> Phase:
    """The phase of a play: moon defence, else leading, following or discarding.

    ``points_by_seat`` counts the point cards (R7: hearts and Q♠) each seat has
    taken so far in the hand.
    """
    takers = [s for s, points in enumerate(points_by_seat) if points]
    if len(takers) == 1 and takers[0] != seat and points_by_seat[takers[0]] >= MOON_THREAT:
        return Phase.MOON_DEFENCE
    if not trick_cards:
        return Phase.LEADING
    if hand & suit_masks[trick_cards[0] // 13]:
        return Phase.FOLLOWING
    return Phase.DISCARDING
