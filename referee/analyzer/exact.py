"""Exact values of end positions, independently of the search: the analysis's yardstick.

The quantity the analysis estimates for a legal card (docs/analysis.md) is
the **expected points for the hand over every deal consistent with what the
seat knows, each equally likely, of playing that card and finishing the hand
with the playout policy**. This module computes it by brute force and with
the engine alone, sharing no code with the search but the policy's choice of
card (:func:`~referee.search.sim.heuristic_card`):

- every assignment of the unseen cards to the other seats, with the counts
  they hold, is tried; it is consistent when the hand's plays so far replay
  legally through :class:`~referee.engine.GameState` from the hands it
  implies, and the cards the seat passed are in the receiver's hand;
- each consistent deal is played out by the engine, every seat choosing the
  policy's card among the engine's legal moves, and scored by the engine
  (moons included).

Only for end positions (a few cards left): the assignments grow as a
multinomial. tests/analysis/test_exact.py holds the analysis to it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from referee.engine import (
    QUEEN_OF_SPADES,
    ActionError,
    GameState,
    MoonScoring,
    PassDirection,
    Phase,
)
from referee.search.sim import heuristic_card

__all__ = ["consistent_deals", "exact_values"]


def _assignments(cards: list[int], counts: list[int]) -> Iterator[list[int]]:
    """Every way to give ``counts[i]`` of ``cards`` to each seat i (masks)."""
    if not counts:
        if not cards:
            yield []
        return
    for chosen in itertools.combinations(cards, counts[0]):
        mask = sum(1 << c for c in chosen)
        rest = [c for c in cards if not mask >> c & 1]
        for tail in _assignments(rest, counts[1:]):
            yield [mask, *tail]


def consistent_deals(state: GameState, seat: int) -> list[list[int]]:
    """Every deal of the others' current hands consistent with what ``seat`` knows.

    ``state`` is a position in the middle of a hand with ``seat`` to play; only
    the seat's own view is used (its hand, its pass, the plays so far).
    """
    view = state.view(seat)
    n = state.n
    plays = [(s, int(c)) for t in view.tricks for s, c in t.plays]
    plays += [(s, int(c)) for s, c in view.current_trick.plays]
    played_by = [0] * n
    for s, c in plays:
        played_by[s] |= 1 << c
    played = sum(played_by)
    unseen = [c for c in range(52) if (state.rules.deck & ~played & ~int(view.hand)) >> c & 1]
    others = [s for s in range(n) if s != seat]
    counts = [state.rules.cards_per_player - played_by[s].bit_count() for s in others]
    passed = int(view.passed or 0)
    hold = view.pass_direction is PassDirection.HOLD
    found = []
    for masks in _assignments(unseen, counts):
        hands = [0] * n
        hands[seat] = int(view.hand)
        for s, m in zip(others, masks, strict=True):
            hands[s] = m
        start = [hands[s] | played_by[s] for s in range(n)]
        if not hold and passed and (start[view.pass_to] & passed) != passed:
            continue
        if _replays(state, start, plays):
            found.append(hands)
    return found


def _replays(state: GameState, start: list[int], plays: list[tuple[int, int]]) -> bool:
    """Whether the hand's plays are legal from these hands (after the pass)."""
    trial = GameState.from_hands(
        start,
        state.rules,
        hand_number=state.hand_number,
        scores=state.scores,
        pass_direction=PassDirection.HOLD,
    )
    try:
        for s, c in plays:
            trial.play(c, seat=s)
    except ActionError:
        return False
    return True


def _play_out(state: GameState, seat: int) -> float:
    """Finish the hand with the policy, by the engine; ``seat``'s score for the hand."""
    number = state.hand_number
    while state.phase is Phase.PLAYING and state.hand_number == number:
        hand = state.hands[state.current]
        legal = state.legal_mask()
        trick = sum(1 << c for _, c in state.trick_plays)
        lead = state.trick_plays[0][1] // 13 if state.trick_plays else -1
        qs_out = any(h >> QUEEN_OF_SPADES & 1 for h in state.hands)
        card = heuristic_card(
            hand,
            legal,
            trick,
            lead,
            len(state.trick_plays),
            len(state.trick_plays) == state.n - 1,
            qs_out,
        )
        state.play(card)
    if state.phase is Phase.MOON_CHOICE:  # the shooter takes 26 off itself if it is us
        shooter = state.current
        choice = MoonScoring.SUBTRACT_FROM_SELF if shooter == seat else MoonScoring.ADD_TO_OTHERS
        state.choose_moon_scoring(shooter, choice)
    result = next(r for r in state.hand_results if r.hand_number == number)
    return float(result.scores[seat])


def exact_values(state: GameState, seat: int) -> dict[int, float]:
    """Each legal card's exact expected points for the hand (see the module's text)."""
    deals = consistent_deals(state, seat)
    if not deals:
        raise ValueError("no deal is consistent with the seat's view")
    values = {}
    for card in (c for c in range(52) if state.legal_mask(seat) >> c & 1):
        total = 0.0
        for hands in deals:
            world = state.copy()
            world.hands = list(hands)
            world.play(card, seat=seat)
            total += _play_out(world, seat)
        values[card] = total / len(deals)
    return values
