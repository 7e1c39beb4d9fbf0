"""The legal-move cascade: legal_mask, play and check_play agree with legal_case everywhere.

legal_case is the cascade's one statement; GameState.legal_mask is its fast
copy. The cascade only asks which of a few groups of cards a hand holds (the
led suit, clean cards, Q♠, hearts, other cards), so the hands made of every
subset of one or two cards from each group, with every led suit, trick (first
or later), hearts broken or not and first-trick rule, are all the cases there
are: the test goes through all of them.
"""

from __future__ import annotations

import itertools

import pytest

from referee.engine import (
    Card,
    CardNotHeldError,
    GameState,
    IllegalMoveError,
    LegalCase,
    Phase,
    Rules,
    card_list,
    legal_case,
)

# Two clubs (one the first lead), a diamond, a spade, Q♠ and two hearts.
CARDS = [Card.parse(c) for c in ("2C", "7C", "9D", "4S", "QS", "3H", "AH")]
FIRST_LEAD = 1 << Card.parse("2C")


def _hands() -> list[int]:
    hands = []
    for size in range(1, len(CARDS) + 1):
        for combo in itertools.combinations(CARDS, size):
            hands.append(sum(1 << c for c in combo))
    return hands


def _position(hand: int, lead: int, first: bool, broken: bool, clean: bool) -> GameState:
    """A state with seat 1 to play ``hand``; seat 0 led a card of suit ``lead`` (or nobody)."""
    state = GameState.new(Rules(points_on_first_trick=not clean), seed=1)
    state.phase = Phase.PLAYING
    state.current = 1
    state.hands[1] = hand
    state.trick_number = 0 if first else 5
    state.hearts_broken = broken
    if lead >= 0:
        led = next(c for c in range(lead * 13 + 12, lead * 13 - 1, -1) if not hand >> c & 1)
        state.trick_plays = [(0, led)]
        state.trick_mask = 1 << led
        state.lead_suit = lead
        state.trick_leader = 0
    else:
        state.trick_plays = []
        state.trick_mask = 0
        state.lead_suit = 3  # stale from an earlier trick: must not matter when leading
    return state


def _cases() -> list[tuple[int, int, bool, bool, bool]]:
    cases = []
    for hand, lead, first, broken, clean in itertools.product(
        _hands(), (-1, 0, 1, 2, 3), (True, False), (True, False), (True, False)
    ):
        if first and lead < 0 and not hand & FIRST_LEAD:
            continue  # the first lead is the holder of the lowest club's
        cases.append((hand, lead, first, broken, clean))
    return cases


CASES = _cases()


def test_legal_mask_and_legal_case_agree_everywhere() -> None:
    seen = set()
    for hand, lead, first, broken, clean in CASES:
        case, mask = legal_case(
            hand,
            lead,
            first_trick=first,
            hearts_broken=broken,
            clean_first_trick=clean,
            first_lead=FIRST_LEAD,
        )
        state = _position(hand, lead, first, broken, clean)
        where = (card_list(hand), lead, first, broken, clean)
        assert state.legal_mask() == mask, where
        assert state.legal_mask(1) == mask and state.legal_mask(2) == 0, where
        assert state.legal_case() == (case, mask) == state.legal_case(1), where
        assert state.legal_case(0) is None
        assert mask and not mask & ~hand, where
        seen.add(case)
    assert seen == set(LegalCase), "every case is reached"


@pytest.mark.parametrize("clean", [True, False])
def test_play_and_check_play_follow_the_case(clean: bool) -> None:
    for hand, lead, first, broken, rule_clean in CASES:
        if rule_clean != clean:
            continue
        state = _position(hand, lead, first, broken, clean)
        case, mask = state.legal_case()  # type: ignore[misc]
        for card in [*CARDS, Card.parse("KD")]:  # every card of a case, and one never held
            trial = state.copy()
            if mask >> card & 1:
                state.check_play(1, card)
                trial.play(card)
                assert not trial.hands[1] >> card & 1
                continue
            error_type = IllegalMoveError if hand >> card & 1 else CardNotHeldError
            with pytest.raises(error_type) as refused:
                trial.play(card)
            assert trial.hands[1] == hand and trial.trick_plays == state.trick_plays
            with pytest.raises(error_type):
                state.check_play(1, card)
            if error_type is IllegalMoveError:
                assert refused.value.rule == case.rule is not None, (case, Card(card))


def test_every_case_has_a_meaning() -> None:
    for case in LegalCase:
        assert case.meaning and LegalCase(case.value) is case
        assert case.rule in (None, "R3", "R4", "R5", "R6")
