"""The fallback moves are the ones docs/log-format.md defines, and verify checks the same."""

from __future__ import annotations

import random

from referee.engine import CardSet, MoonScoring, card_list
from referee.match.fallback import (
    FALLBACK_MOON_CHOICE,
    fallback_pass,
    fallback_play,
    moon_decision,
    pass_decision,
    play_decision,
)

HAND = int(CardSet.parse("2C 7C 9D 4S QS 3H AH KD TC"))


def test_the_documented_definition() -> None:
    # docs/log-format.md: random.Random("fallback/{seed}/{decision}").
    rng = random.Random("fallback/7/h1-pass-s2")
    assert fallback_pass(7, "h1-pass-s2", HAND, 3) == sorted(rng.sample(card_list(HAND), 3))
    rng = random.Random("fallback/ab12/h2-t3-s0")
    assert fallback_play("ab12", "h2-t3-s0", HAND) == rng.choice(card_list(HAND))
    assert FALLBACK_MOON_CHOICE is MoonScoring.ADD_TO_OTHERS


def test_a_fallback_depends_on_the_seed_and_the_decision_only() -> None:
    plays = {fallback_play(s, d, HAND) for s in range(20) for d in ("h1-t1-s0", "h1-t2-s0")}
    assert len(plays) > 1
    assert fallback_play(5, "h1-t2-s0", HAND) == fallback_play(5, "h1-t2-s0", HAND)
    passed = fallback_pass(5, "h1-pass-s0", HAND, 3)
    assert passed == sorted(passed) and len(set(passed)) == 3 and not CardSet.of(passed) & ~HAND


def test_decision_ids() -> None:
    assert pass_decision(3, 1) == "h3-pass-s1"
    assert play_decision(3, 5, 1) == "h3-t5-s1"
    assert moon_decision(3, 1) == "h3-moon-s1"
