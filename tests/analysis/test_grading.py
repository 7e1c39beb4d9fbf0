"""A decision's class and phase (issue 31): the thresholds, the search's noise never called a
mistake, and leading, following, discarding and moon defence told apart (R4, R7, R8)."""

from __future__ import annotations

import pytest

from referee.analysis.grading import MOON_THREAT, Grade, Phase, grade, play_phase
from referee.engine import SUIT_MASKS, Card


@pytest.mark.parametrize(
    ("loss", "error", "expected"),
    [
        (0.0, 0.0, None),
        (0.49, 0.0, None),
        (0.5, 0.0, Grade.INACCURACY),
        (1.49, 0.0, Grade.INACCURACY),
        (1.5, 0.0, Grade.MISTAKE),
        (3.99, 0.0, Grade.MISTAKE),
        (4.0, 0.0, Grade.BLUNDER),
        (26.0, 0.0, Grade.BLUNDER),
        # The same losses within two standard errors of the search: noise, no class.
        (5.0, 2.5, None),
        (1.6, 0.8, None),
        (0.6, 0.31, None),
        # Beyond two standard errors: the class of the loss.
        (5.0, 2.4, Grade.BLUNDER),
        (1.6, 0.79, Grade.MISTAKE),
        (0.6, 0.29, Grade.INACCURACY),
    ],
)
def test_the_class_is_the_loss_beyond_the_noise(
    loss: float, error: float, expected: Grade | None
) -> None:
    assert grade(loss, error) is expected


def test_the_marks_are_the_chess_ones() -> None:
    assert [g.mark for g in Grade] == ["?!", "?", "??"]


def _hand(text: str) -> int:
    return sum(1 << Card.parse(c) for c in text.split())


def _phase(trick: str, hand: str, points: list[int], seat: int = 0) -> Phase:
    return play_phase(
        seat=seat,
        trick_cards=[Card.parse(c) for c in trick.split()],
        hand=_hand(hand),
        points_by_seat=points,
        suit_masks=SUIT_MASKS,
    )


def test_the_phases_of_a_play() -> None:
    nothing = [0, 0, 0, 0]
    assert _phase("", "2C 5H", nothing) is Phase.LEADING
    assert _phase("9C", "2C 5H", nothing) is Phase.FOLLOWING  # holds the led suit (R4)
    assert _phase("9D", "2C 5H", nothing) is Phase.DISCARDING  # void in it
    # One other seat has every point card taken so far, MOON_THREAT or more: a moon is on.
    threat = [0, MOON_THREAT, 0, 0]
    assert _phase("", "2C 5H", threat) is Phase.MOON_DEFENCE
    assert _phase("9D", "2C 5H", threat) is Phase.MOON_DEFENCE
    # Not when the taker is the seat itself, when two seats share the points, or too few.
    assert _phase("", "2C 5H", threat, seat=1) is Phase.LEADING
    assert _phase("", "2C 5H", [1, MOON_THREAT, 0, 0]) is Phase.LEADING
    assert _phase("", "2C 5H", [0, MOON_THREAT - 1, 0, 0]) is Phase.LEADING


def test_counts_are_said_as_people_say_them() -> None:
    assert [Grade.INACCURACY.count(n) for n in (0, 1, 3)] == [
        "0 inaccuracies",
        "1 inaccuracy",
        "3 inaccuracies",
    ]
    assert Grade.MISTAKE.count(1) == "1 mistake" and Grade.BLUNDER.count(2) == "2 blunders"
