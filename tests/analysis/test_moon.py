"""The moon choice (V2 shooter_chooses) judged exactly by the engine: decisive only when adding
26 to the others ends the game (R9)."""

from __future__ import annotations

import pytest

from referee.analysis.grading import Grade
from referee.analysis.grading import Phase as DecisionPhase
from referee.analysis.summary import BotSummary
from referee.analyzer.evaluate import Settings
from referee.analyzer.game import MOON_CHOICE_LOSS, analyse_game, judge_moon
from referee.audit.replay import load_game
from referee.engine import GameState, MoonScoring, Phase, Rules
from referee.match.runner import GameSpec, play_game
from referee.players import builtin_player

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


def test_a_game_with_a_moon_choice_is_analysed_through_it(tmp_path) -> None:
    """A logged game of built-in heuristics under V2 shooter_chooses in which seat 3 shoots
    the moon in hand 2 and adds 26 to the others: the analysis records the choice, judged by
    the engine (exact; not decisive so early, so no loss), not as a searched decision, and
    replays on through every later hand."""
    log = tmp_path / "moon.jsonl"
    rules = Rules(moon_scoring=MoonScoring.SHOOTER_CHOOSES)
    spec = GameSpec(game_id="moon", seed=2, bots=("a", "b", "c", "d"), rules=rules)
    play_game(spec, [builtin_player("heuristic") for _ in range(4)], log)
    game = load_game(log)
    (shot,) = [h for h in game.hands if h.moon_choice]
    assert (shot.number, shot.moon_choice.seat, shot.moon_choice.choice) == (2, 3, ADD.value)

    (analysis,) = analyse_game(game, [3], Settings(worlds=8, budget_ms=600_000)).values()
    (moon,) = [d for d in analysis.decisions if d.kind == "moon"]
    assert (moon.phase, moon.hand, moon.choice, moon.line) == (
        DecisionPhase.MOON_CHOICE,
        2,
        ADD.value,
        shot.moon_choice.line,
    )
    assert moon.exact and moon.loss == 0.0 and moon.grade is None and not moon.searched
    assert {d.hand for d in analysis.decisions} == {h.number for h in game.hands}
    assert analysis.hands == len(game.hands)
    summary = BotSummary("d")
    summary.add("moon", analysis)
    assert summary.searched == sum(d.searched for d in analysis.decisions) < len(analysis.decisions)
