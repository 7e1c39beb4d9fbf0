"""The analysis against exact answers: scripted positions with a known best card, and end
positions of random games whose every consistent deal can be solved (issue 31).

The exact value of a card (referee.analyzer.exact) is the mean, over every
deal of the unseen cards consistent with what the seat knows, of its points
for the hand when it plays that card and the hand is finished with the playout
policy, computed by brute force with the engine. The analysis must find it
exactly when it can play every such deal, and within its reported standard
error when it samples them.
"""

from __future__ import annotations

import pytest

from referee.analysis.grading import Grade, grade
from referee.analyzer.evaluate import Settings, decision_rng, evaluate_play
from referee.analyzer.exact import consistent_deals, exact_values
from referee.analyzer.game import knowledge_of, variant_of
from referee.engine import Card, MoonScoring, Rules
from referee.search.deals import Deals
from referee.search.pimc import Worlds
from tests.analysis.positions import end_positions, scripted

#: Eleven tricks in which everyone follows suit but for two tricks of heart discards
#: (R4, R6: hearts are broken in trick 4); the seats' last two cards are the test's.
_ELEVEN = [
    "2C 3C 4C 5C",  # N leads (R3); W wins
    "6C 7C 8C 9C",  # W leads; S wins
    "TC JC QC KC",  # S leads; E wins
    "AC 2H 3H 4H",  # E leads; the others are void in clubs and discard hearts
    "2D 3D 4D 5D",  # E leads; N wins
    "6D 7D 8D 9D",  # N leads; W wins
    "TD JD QD KD",  # W leads; S wins
    "AD 5H 6H 7H",  # S leads; W, N, E discard hearts
    "2S 3S 4S 5S",  # S leads; E wins
    "6S 7S 8S 9S",  # E leads; N wins
    "8H 9H TH JH",  # N leads; W wins and leads the twelfth trick
]
NORTH = 0


def _settings(**fields: int) -> Settings:
    """Searches never stopped by the clock (a loaded machine would cut them short)."""
    return Settings(budget_ms=600_000, **fields)


def _analyse(state, settings: Settings | None = None):
    settings = settings or _settings()
    seat = state.current
    k = knowledge_of(state.view(seat), variant_of(state.rules))
    estimate = evaluate_play(k, settings, decision_rng(settings, 0, "test"))
    assert not estimate.cut
    return estimate


def test_dumping_the_queen_under_the_ace_is_best_and_keeping_it_a_mistake_of_three() -> None:
    """W leads A♠ to the twelfth trick; N holds Q♠ and 10♠ and must follow (R4).

    Q♠ under A♠ costs N nothing. Keeping Q♠ costs 15 points (Q♠ and two
    hearts) in exactly the deals where W's last card is J♠, led to the last
    trick under N's Q♠ (K♠ having had to fall in the twelfth): 1 deal in 5.
    So 10♠ loses 3 points: a mistake (R4, R7).
    """
    state = scripted([*_ELEVEN, "AS"], {0: "QS TS", 1: "QH KS", 2: "AH JS", 3: "KH"}, first=NORTH)
    assert state.current == NORTH
    estimate = _analyse(state)
    assert estimate.exact and estimate.worlds == 30 == len(consistent_deals(state, NORTH))
    assert estimate.best.cards == (Card.parse("QS"),)
    ten = estimate.of([Card.parse("TS")])
    assert ten.loss == pytest.approx(3.0) and ten.error == 0.0
    assert grade(ten.loss, ten.error) is Grade.MISTAKE
    assert exact_values(state, NORTH) == {Card.parse("QS"): 0.0, Card.parse("TS"): 3.0}


def test_winning_with_the_ace_and_leading_the_queen_is_a_blunder() -> None:
    """W leads K♠; N holds A♠ and Q♠. Q♠ under K♠ gives it to W; A♠ wins the trick,
    and then N must lead Q♠ to the last trick, where no higher spade is left: N takes
    13 points and more. A♠ is a blunder by over 13 points (R4, R7)."""
    state = scripted([*_ELEVEN, "KS"], {0: "AS QS", 1: "QH TS", 2: "AH JS", 3: "KH"}, first=NORTH)
    estimate = _analyse(state)
    exact = exact_values(state, NORTH)
    assert estimate.best.cards == (Card.parse("QS"),)
    ace = estimate.of([Card.parse("AS")])
    assert ace.loss == pytest.approx(exact[Card.parse("AS")] - exact[Card.parse("QS")])
    assert ace.loss >= 13
    assert grade(ace.loss, ace.error) is Grade.BLUNDER


def test_sampled_search_finds_the_best_card_and_the_loss_within_its_error() -> None:
    """The same position sampled (8 worlds of 30, not every one): the mean is still
    within a few standard errors of the exact values."""
    state = scripted([*_ELEVEN, "AS"], {0: "QS TS", 1: "QH KS", 2: "AH JS", 3: "KH"}, first=NORTH)
    estimate = _analyse(state, _settings(worlds=8))
    assert not estimate.exact and estimate.worlds == 8
    exact = exact_values(state, NORTH)
    for option in estimate.options:
        (card,) = option.cards
        assert abs(option.points - exact[card]) <= 3 * option.points_error + 1e-9


def _positions(cards_left: int, count: int, rules: Rules | None = None):
    found = []
    seed = 0
    while len(found) < count:
        seed += 1
        for state in end_positions(seed, cards_left=cards_left, rules=rules):
            found.append(state)
            break
    return found


@pytest.mark.parametrize("cards_left", [2, 3])
def test_every_consistent_deal_agrees_with_brute_force(cards_left: int) -> None:
    """Deals counts and enumerates exactly the deals the engine finds consistent."""
    for state in _positions(cards_left, 6):
        seat = state.current
        k = knowledge_of(state.view(seat), variant_of(state.rules))
        deals = Deals(Worlds(k, decision_rng(Settings(), 0, "x")))
        brute = sorted(map(tuple, consistent_deals(state, seat)))
        assert deals.count() == len(brute)
        assert sorted(map(tuple, deals.enumerate())) == brute
        assert tuple(state.hands) in brute  # the real deal is one of them


@pytest.mark.parametrize(
    "rules",
    [Rules(), Rules(moon_scoring=MoonScoring.SHOOTER_CHOOSES, queen_breaks_hearts=True)],
    ids=["standard", "V1+V2"],
)
def test_end_positions_exact_when_enumerable(rules: Rules) -> None:
    """With every consistent deal played, the analysis's values are the exact ones."""
    for state in _positions(3, 5, rules):
        estimate = _analyse(state, _settings(worlds=2000))  # 3 cards each: at most 1680 deals
        assert estimate.exact
        exact = exact_values(state, state.current)
        for option in estimate.options:
            (card,) = option.cards
            assert option.points == pytest.approx(exact[card])
            assert option.error == 0.0


def test_end_positions_sampled_match_exact_within_the_reported_error() -> None:
    """Sampling fewer worlds than there are consistent deals (3 cards left), the expected
    points and the losses are within 3 of their reported standard errors of the exact
    values, and the errors are the real ones, neither hidden nor inflated: the mean squared
    deviation in standard errors is about 1 (a chi-square over the options; errors twice
    too small would make it about 4, twice too large about 0.25).

    A loss is the paired difference to the card the search found best, so it is held to
    the exact difference to that same card, with its own (paired) error: the error that
    grading compares it with."""
    points_z: list[float] = []
    loss_z: list[float] = []
    for state in _positions(3, 12):
        seat = state.current
        estimate = _analyse(state, _settings(worlds=40))
        if estimate.exact:
            continue  # 40 deals or fewer: played every one
        exact = exact_values(state, seat)
        (found_best,) = estimate.best.cards
        for option in estimate.options:
            (card,) = option.cards
            miss = option.points - exact[card]
            assert abs(miss) <= 3 * option.points_error + 1e-9
            if option.points_error:
                points_z.append(miss / option.points_error)
            loss_miss = option.loss - (exact[card] - exact[found_best])
            assert abs(loss_miss) <= 3 * option.error + 1e-9
            if option.error:
                loss_z.append(loss_miss / option.error)
    assert len(points_z) >= 20 and len(loss_z) >= 15
    for z in (points_z, loss_z):
        assert 0.5 <= sum(v * v for v in z) / len(z) <= 2.0


def test_the_analysis_sees_only_the_seats_information() -> None:
    """Two deals that North cannot tell apart (East's and South's last cards swapped) get the
    same analysis, card for card."""
    ends = {0: "QS TS", 1: "QH KS", 2: "AH JS", 3: "KH"}
    swapped = {0: "QS TS", 1: "AH JS", 2: "QH KS", 3: "KH"}
    one = _analyse(scripted([*_ELEVEN, "AS"], ends, first=NORTH), _settings(worlds=8))
    other = _analyse(scripted([*_ELEVEN, "AS"], swapped, first=NORTH), _settings(worlds=8))
    assert one == other


def test_deals_are_sampled_uniformly() -> None:
    """Every one of the 30 consistent deals comes up about equally often (6000 draws: about
    200 each; a deal drawn fewer than 130 or more than 270 times is far outside chance)."""
    state = scripted([*_ELEVEN, "AS"], {0: "QS TS", 1: "QH KS", 2: "AH JS", 3: "KH"}, first=NORTH)
    k = knowledge_of(state.view(NORTH), variant_of(state.rules))
    rng = decision_rng(Settings(), 0, "uniform")
    deals = Deals(Worlds(k, rng))
    counts: dict[tuple[int, ...], int] = {}
    for _ in range(6000):
        key = tuple(deals.sample(rng))
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == 30
    assert all(130 <= c <= 270 for c in counts.values())
