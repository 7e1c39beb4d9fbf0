"""The strong bot's simulator agrees with referee.engine (seeded random games, every variant).

referee.search.sim (imported as strong_sim) is a second statement of the rules inside one hand, written for
speed; these tests play random games with the engine and check, at every
position, its legal moves, trick winners and hand scores, and that its
playouts from random positions are legal games the engine scores the same.
The world sampler's inferences must hold of the real hidden hands.
"""

from __future__ import annotations

import random

import pytest

from referee.engine import GameState, MoonChoice, MoonScoring, Pass, Phase, Play, Rules, card_list
from referee.search import pimc as strong_search
from referee.search import sim as strong_sim

VARIANTS = [
    Rules(),
    Rules(queen_breaks_hearts=True),
    Rules(points_on_first_trick=True),
    Rules(omnibus=True),
    Rules(moon_scoring=MoonScoring.SUBTRACT_FROM_SELF),
    Rules(moon_scoring=MoonScoring.SHOOTER_CHOOSES, omnibus=True),
    Rules(num_players=3),
    Rules(num_players=5, queen_breaks_hearts=True, points_on_first_trick=True),
    Rules(num_players=6, omnibus=True),
    Rules(num_players=7, moon_scoring=MoonScoring.SUBTRACT_FROM_SELF),
]


def sim_variant(rules: Rules) -> strong_sim.Variant:
    return strong_sim.Variant(
        rules.num_players,
        queen_breaks_hearts=rules.queen_breaks_hearts,
        moon_scoring=rules.moon_scoring.value,
        omnibus=rules.omnibus,
        points_on_first_trick=rules.points_on_first_trick,
    )


def random_hand_states(rules: Rules, seed: int, hands: int):
    """Yield (state) at every play decision of ``hands`` random hands (passes random too).

    Plays are random with a bias towards hearts and Q♠, so that moons and
    broken hearts happen often enough.
    """
    rng = random.Random(seed)
    state = GameState.new(rules, seed=seed)
    done = 0
    while not state.is_over and done < hands:
        if state.phase is Phase.PASSING:
            for seat in state.to_act():
                state.apply(Pass(seat, tuple(rng.sample(card_list(state.hands[seat]), 3))))
        elif state.phase is Phase.PLAYING:
            yield state
            legal = card_list(state.legal_mask())
            points = [c for c in legal if c // 13 == 2 or c == 49]
            card = rng.choice(points if points and rng.random() < 0.5 else legal)
            number = state.hand_number
            state.apply(Play(state.current, card))
            if state.hand_number != number or state.is_over:
                done += 1
        else:
            choice = rng.choice([MoonScoring.ADD_TO_OTHERS, MoonScoring.SUBTRACT_FROM_SELF])
            state.apply(MoonChoice(state.current, choice))


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: _id(r))
def test_legal_moves_winners_and_scores_agree(rules: Rules) -> None:
    v = sim_variant(rules)
    positions = 0
    for seed in range(8):
        results_seen = 0
        for state in random_hand_states(rules, seed * 7919 + rules.num_players, hands=4):
            positions += 1
            trick = 0
            for _, c in state.trick_plays:
                trick |= 1 << c
            hand = state.hands[state.current]
            got = strong_sim.legal_mask(
                v, hand, trick, state.lead_suit, state.trick_number, state.hearts_broken
            )
            assert got == state.legal_mask(), (state, got)
            for t in state.tricks[len(state.tricks) - 1 :]:
                cards = [c for _, c in t.plays]
                assert strong_search.trick_winner(t.leader, cards, v.n) == t.winner
                assert strong_sim.trick_points(v, sum(1 << c for c in cards)) == t.points
            for result in state.hand_results[results_seen:]:
                taken = [0] * v.n
                for t in result.tricks:
                    taken[t.winner] |= sum(1 << c for _, c in t.plays)
                choice = result.moon_scoring.value if result.moon_scoring else None
                assert strong_sim.hand_scores(v, taken, choice) == list(result.scores)
                assert [strong_sim.trick_points(v, m) for m in taken] == list(result.points)
            results_seen = len(state.hand_results)
    assert positions > 500


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: _id(r))
def test_playouts_are_legal_games_scored_alike(rules: Rules) -> None:
    """From random positions, a playout's plays are legal in the engine, which scores
    the hand as the simulator does (random and heuristic playout policies)."""
    v = sim_variant(rules)
    rng = random.Random(rules.num_players)
    checked = 0
    for seed in range(6):
        for state in random_hand_states(rules, 1000 + seed, hands=2):
            if rng.random() > 0.3:
                continue
            taken = [0] * v.n
            for t in state.tricks:
                taken[t.winner] |= sum(1 << c for _, c in t.plays)
            trace: list[int] = []
            epsilon = rng.choice([0.0, 0.3, 1.0])
            engine = state.copy()
            hand_number = engine.hand_number
            hands = list(state.hands)
            current = [c for _, c in state.trick_plays]
            broken = state.hearts_broken
            if rng.random() < 0.5:  # as the search does: play one card, then play out
                card = rng.choice(card_list(engine.legal_mask()))
                hands[engine.current] &= ~(1 << card)
                current.append(card)
                broken = broken or (v.qs_breaks and card == 49) or card // 13 == 2
                engine.play(card)
            got = strong_sim.playout(
                v,
                hands,
                taken,
                state.trick_leader,
                current,
                state.trick_number,
                broken,
                random.Random(seed),
                epsilon,
                trace,
            )
            for card in trace:
                assert engine.is_legal(card), (engine, card, trace)
                engine.play(card)
            assert engine.hand_number != hand_number or engine.phase is not Phase.PLAYING
            if engine.phase is Phase.MOON_CHOICE:
                engine.apply(MoonChoice(engine.current, MoonScoring.SUBTRACT_FROM_SELF))
                choice = "subtract_from_self"
            else:
                choice = None
            result = engine.hand_results[-1]
            assert strong_sim.hand_scores(v, got, choice) == list(result.scores)
            checked += 1
    assert checked > 80


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: _id(r))
def test_sampled_worlds_are_consistent(rules: Rules) -> None:
    """The sampler's inferences (voids, R5, R6, passed cards) hold of the real hands, and
    every sampled world deals exactly the unseen cards in the right numbers."""
    v = sim_variant(rules)
    rng = random.Random(5)
    for seed in range(4):
        for state in random_hand_states(rules, 2000 + seed, hands=2):
            if rng.random() > 0.2:
                continue
            seat = state.current
            view = state.view(seat)
            k = strong_search.Knowledge(
                variant=v,
                seat=seat,
                hand=int(view.hand),
                tricks=[(t.leader, [c for _, c in t.plays]) for t in view.tricks],
                leader=view.current_trick.leader,
                current=[c for _, c in view.current_trick.plays],
                hearts_broken=view.hearts_broken,
                legal=int(view.legal_moves),
                passed=int(view.passed or 0),
                pass_to=view.pass_to if view.pass_to != seat else -1,
            )
            worlds = strong_search.Worlds(k, rng)
            for other in worlds.others:
                real = state.hands[other]
                assert real & ~worlds.allowed[other] == 0, (state, other)
                assert worlds.fixed[other] & ~real == 0
            unseen = v.deck & ~worlds.played & ~k.hand
            for _ in range(5):
                hands = worlds.sample()
                assert hands[seat] == k.hand
                assert sum(hands) - k.hand == unseen
                for s in range(v.n):
                    assert hands[s].bit_count() == state.hands[s].bit_count()
                    assert hands[s] & ~(worlds.allowed[s] if s != seat else k.hand) == 0


def test_candidates_merge_equivalent_cards() -> None:
    # 4♣ 5♣ held, 6♣ played, 7♣ held: all one; 9♣ held but 8♣ unseen: separate.
    club = {r: r - 2 for r in range(2, 15)}
    legal = sum(1 << club[r] for r in (4, 5, 7, 9))
    played = 1 << club[6]
    assert strong_search.candidates(legal, played) == [club[4], club[9]]
    # Q♠ is never merged with its neighbours.
    spades = [37, 38, 39, 40, 41]  # J♠ Q♠ K♠ is 48 49 50
    assert strong_search.candidates((1 << 48) | (1 << 49) | (1 << 50), 0) == [48, 49, 50]
    assert spades


def _id(rules: Rules) -> str:
    parts = [f"{rules.num_players}p"]
    if rules.queen_breaks_hearts:
        parts.append("V1")
    if rules.moon_scoring is not MoonScoring.ADD_TO_OTHERS:
        parts.append(rules.moon_scoring.value)
    if rules.omnibus:
        parts.append("omnibus")
    if rules.points_on_first_trick:
        parts.append("V7")
    return "-".join(parts)
