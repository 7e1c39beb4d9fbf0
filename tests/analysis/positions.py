"""Positions for the analysis's tests: end positions of seeded random games, and scripted ones."""

from __future__ import annotations

import random
from collections.abc import Iterator

from referee.engine import Card, GameState, Pass, PassDirection, Phase, Rules, card_list


def end_positions(
    seed: int, *, cards_left: int, rules: Rules | None = None, passes: bool = True
) -> Iterator[GameState]:
    """Play decisions with ``cards_left`` cards in the hand of the seat to play, of random hands.

    Passes and plays are random, biased towards hearts and Q♠ so that points
    and broken hearts are common; only decisions with a choice are yielded.
    """
    rng = random.Random(seed)
    state = GameState.new(rules or Rules(), seed=seed)
    while not state.is_over:
        if state.phase is Phase.PASSING:
            for seat in state.to_act():
                cards = card_list(state.hands[seat])
                state.apply(Pass(seat, tuple(rng.sample(cards, 3)) if passes else tuple(cards[:3])))
            continue
        if state.phase is not Phase.PLAYING:
            from referee.engine import MoonChoice, MoonScoring

            state.apply(MoonChoice(state.current, MoonScoring.ADD_TO_OTHERS))
            continue
        legal = card_list(state.legal_mask())
        held = state.hands[state.current].bit_count()
        if held == cards_left and len(legal) > 1:
            yield state.copy()
        points = [c for c in legal if c // 13 == 2 or c == 49]
        pick = rng.choice(points) if points and rng.random() < 0.5 else rng.choice(legal)
        state.play(pick)


def scripted(
    tricks: list[str], ends: dict[int, str], *, first: int = 0, rules: Rules | None = None
) -> GameState:
    """A hand played from a script: ``tricks`` are the cards in play order, the first led by
    seat ``first`` (with 2♣, R3), each next by the last one's winner; ``ends`` are each
    seat's cards left. A hold hand (no pass). The deal is what the script implies, and the
    engine checks every play (R3-R6).
    """
    rules = rules or Rules()
    n = rules.num_players
    parsed = [[Card.parse(c) for c in t.split()] for t in tricks]
    hands = [0] * n
    seat = first
    for cards in parsed:
        for i, c in enumerate(cards):
            hands[(seat + i) % n] |= 1 << c
        suit = cards[0] // 13
        best = max(range(len(cards)), key=lambda i: cards[i] if cards[i] // 13 == suit else -1)
        if len(cards) == n:
            seat = (seat + best) % n
    for s, text in ends.items():
        for c in text.split():
            hands[s] |= 1 << Card.parse(c)
    state = GameState.from_hands(hands, rules, pass_direction=PassDirection.HOLD)
    for cards in parsed:
        for c in cards:
            state.play(c)
    return state
