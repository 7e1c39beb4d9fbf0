"""The moon choice (V2 shooter_chooses) judged exactly by the engine: decisive only when adding
26 to the others ends the game (R9)."""

from __future__ import annotations

import pytest

from referee.analysis.grading import Grade
from referee.analyzer.game import MOON_CHOICE_LOSS, judge_moon
from referee.engine import GameState, MoonScoring, Phase, Rules

ADD, SUBTRACT = MoonScoring.ADD_TO_OTHERS, MoonScoring.SUBTRACT_FROM_SELF


def _shot(totals: list[int]) -> GameState:
    """Seat 0 has just taken every point of a hand (R8) with these totals before it: the
    engine waits for its choice (V2 shooter_chooses)."""
    rules = Rules(moon_scoring=MoonScoring.SHOOTER_CHOOSES)
    state = GameState.new(rules, seed=1)
    state.scores = list(totals)
    state.points_taken = [26, 0, 0, 0]
    state.phase = Phase.MOON_CHOICE
    state.current = state.moon_shooter = 0
    return state


@pytest.mark.parametrize(
    ("totals", "made", "best", "grade"),
    [
        ([60, 80, 70, 75], ADD, "add_to_others", None),  # adding ends it and seat 0 wins
        ([60, 80, 70, 75], SUBTRACT, "add_to_others", Grade.BLUNDER),  # a sure win given up
        ([90, 50, 85, 75], SUBTRACT, "subtract_from_self", None),  # adding would end it lost
        ([90, 50, 85, 75], ADD, "subtract_from_self", Grade.BLUNDER),
        ([0, 0, 0, 0], SUBTRACT, "subtract_from_self", None),  # adding ends nothing: either
        ([0, 0, 0, 0], ADD, "add_to_others", None),
    ],
)
def test_the_moon_choice(
    totals: list[int], made: MoonScoring, best: str, grade: Grade | None
) -> None:
    state = _shot(totals)
    found, loss, graded = judge_moon(state, 0, made)
    assert (found, graded) == (best, grade)
    assert loss == (MOON_CHOICE_LOSS if grade else 0.0)
    assert state.phase is Phase.MOON_CHOICE and state.scores == totals  # judged on a copy
