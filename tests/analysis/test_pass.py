"""Passes judged by the analysis (R2): a constructed hand whose bad pass is plain, the pass made
always among the choices compared, and the same figures for the same seed (issue 31)."""

from __future__ import annotations

from referee.analysis.grading import Grade, grade
from referee.analyzer.evaluate import Settings, decision_rng, evaluate_pass, pass_options
from referee.analyzer.game import variant_of
from referee.engine import Card, Rules

#: Q♠ with only A♠ K♠ beside it and the three top hearts: the cards that take points.
HAND = "AS KS QS AH KH QH 9D 8D 7D 6C 5C 4C 3C"
SETTINGS = Settings(worlds=120, budget_ms=600_000)  # never stopped by the clock: reproducible


def _cards(text: str) -> list[int]:
    return [Card.parse(c) for c in text.split()]


def _judge(made: str, *, seed: str = "pass"):
    return evaluate_pass(
        hand=sum(1 << c for c in _cards(HAND)),
        made=_cards(made),
        variant=variant_of(Rules()),
        seat=0,
        pass_to=1,  # the first hand passes left (R2)
        settings=SETTINGS,
        rng=decision_rng(SETTINGS, 0, seed),
    )


def test_keeping_the_spade_danger_and_passing_low_clubs_is_a_blunder() -> None:
    """Passing 3♣ 4♣ 5♣ keeps Q♠ (13 points) with A♠ K♠, which win the spade tricks Q♠
    falls in, and the top hearts: several points worse than passing the spades, far beyond
    the search's error, a blunder. Passing the spades is the best of the choices compared."""
    estimate = _judge("3C 4C 5C")
    low = estimate.of(_cards("3C 4C 5C"))
    assert estimate.best.cards == tuple(sorted(_cards("QS KS AS")))
    assert low.loss >= 4 and low.loss > 3 * low.error > 0
    assert grade(low.loss, low.error) is Grade.BLUNDER
    assert not estimate.exact and estimate.worlds == SETTINGS.worlds and not estimate.cut


def test_the_pass_made_is_always_among_the_choices() -> None:
    """Whatever was passed, it is judged: the pass made, the hand evaluation's, and every 3 of
    the 5 cards that evaluation finds most dangerous (here the spades and two hearts)."""
    made = tuple(sorted(_cards("9D 8D 3C")))
    options = pass_options(sum(1 << c for c in _cards(HAND)), 3, variant_of(Rules()), made, 5)
    assert options[0] == made and len(options) == len(set(options))
    assert tuple(sorted(_cards("QS KS AS"))) in options
    assert len(options) == 1 + 10  # the evaluation's own pass is one of the 10 combinations
    assert _judge("9D 8D 3C").of(made).loss > 0


def test_the_same_seed_gives_the_same_figures_and_another_seed_others() -> None:
    assert _judge("3C 4C 5C") == _judge("3C 4C 5C")
    assert _judge("3C 4C 5C") != _judge("3C 4C 5C", seed="another decision")
