"""Property tests over many seeded random games in every variant (hypothesis).

Each game is played by a random driver that also tries refused actions. The
checks are written from docs/rules.md, independently of the engine's mask code:
legality (R3-R6, V1, V7) from the trick history and the card texts, trick
winners (R4) from the ranks, points (R7, V3), the moon (R8, V2), the dealing
(R1, V6), the end of the game (R9, V4, V5), and replay.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from referee.engine import (
    ActionError,
    CardSet,
    GameState,
    MoonChoice,
    MoonScoring,
    Pass,
    Phase,
    Play,
    Rules,
    TieRule,
    card_list,
    deal,
    replay,
)

from .helpers import points_of, snapshot

RANKS = "23456789TJQKA"
MAX_HANDS = 400  # a generous bound: targets are at most 60

rules_strategy = st.builds(
    Rules,
    num_players=st.integers(3, 7),
    target_score=st.integers(1, 60),
    queen_breaks_hearts=st.booleans(),
    moon_scoring=st.sampled_from(list(MoonScoring)),
    omnibus=st.booleans(),
    tie_rule=st.sampled_from(list(TieRule)),
    points_on_first_trick=st.booleans(),
    max_hands=st.one_of(st.none(), st.integers(1, 12)),
)


def suit(card: int) -> str:
    return str(CardSet.of([card]))[-1]


def rank(card: int) -> int:
    return RANKS.index(str(CardSet.of([card]))[0])


def expected_legal(state: GameState) -> set[int]:
    """The legal plays of the player to move, from the rules text."""
    rules = state.rules
    hand = set(card_list(state.hands[state.current]))
    first_trick = len(state.tricks) == 0
    if not state.trick_plays:
        if first_trick:
            # R3: the lowest club in the deck leads.
            lowest = min(c for c in card_list(rules.deck) if suit(c) == "C")
            return {lowest}
        played = [card for trick in state.tricks for _, card in trick.plays]
        broken = any(suit(c) == "H" for c in played) or (
            rules.queen_breaks_hearts and any(is_queen_of_spades(c) for c in played)
        )
        if broken:
            return hand
        return {c for c in hand if suit(c) != "H"} or hand  # R6
    led = suit(state.trick_plays[0][1])
    follow = {c for c in hand if suit(c) == led}
    if follow:
        return follow  # R4
    if first_trick and not rules.points_on_first_trick:
        clean = {c for c in hand if suit(c) != "H" and not is_queen_of_spades(c)}
        return clean or hand  # R5
    return hand


def check_dealt(state: GameState) -> None:
    """R1/V6: every card of the deck dealt exactly once, cards_per_player each."""
    rules = state.rules
    seen: list[int] = []
    for hand in state.dealt:
        assert len(card_list(hand)) == rules.cards_per_player
        seen += card_list(hand)
    assert sorted(seen) == card_list(rules.deck)
    for card in rules.removed_cards:
        assert card not in seen
    assert state.dealt == deal(rules, state.seed, state.hand_number)


def check_hand_result(state: GameState, previous_totals: list[int], chosen) -> None:
    rules = state.rules
    n = rules.num_players
    result = state.hand_results[-1]
    assert len(result.tricks) == rules.cards_per_player
    played = []
    won = [0] * n
    taken: list[set[int]] = [set() for _ in range(n)]
    for trick in result.tricks:
        seats = [seat for seat, _ in trick.plays]
        assert seats == [(trick.leader + i) % n for i in range(n)]
        trick_cards = [card for _, card in trick.plays]
        played += trick_cards
        led = suit(trick_cards[0])
        best = max((c for c in trick_cards if suit(c) == led), key=rank)
        assert trick.winner == seats[trick_cards.index(best)]  # R4
        assert trick.points == points_of(trick_cards, omnibus=rules.omnibus)  # R7, V3
        won[trick.winner] += trick.points
        taken[trick.winner].update(trick_cards)
    assert sorted(played) == card_list(rules.deck)  # every card played once
    assert list(result.points) == won
    assert sum(result.points) == (16 if rules.omnibus else 26)
    moon_cards = {c for c in card_list(rules.deck) if suit(c) == "H" or is_queen_of_spades(c)}
    if rules.omnibus:
        moon_cards |= {c for c in card_list(rules.deck) if str(CardSet.of([c])) == "JD"}
    shooters = [s for s in range(n) if moon_cards <= taken[s]]
    if shooters:
        (shooter,) = shooters
        event("moon")
        assert result.moon_shooter == shooter
        mode = rules.moon_scoring
        if mode is MoonScoring.SHOOTER_CHOOSES:
            mode = chosen
        assert result.moon_scoring is mode
        if mode is MoonScoring.ADD_TO_OTHERS:
            assert result.scores == tuple(0 if s == shooter else 26 for s in range(n))
            assert sum(result.scores) == 26 * (n - 1)
        else:
            assert result.scores == tuple(-26 if s == shooter else 0 for s in range(n))
            assert sum(result.scores) == -26
    else:
        assert result.moon_shooter is None and result.moon_scoring is None
        assert result.scores == result.points
    totals = [t + s for t, s in zip(previous_totals, result.scores, strict=True)]
    assert list(result.totals) == totals


def expected_end(rules: Rules, totals: tuple[int, ...], last: tuple[int, ...], hand: int):
    """R9/V5/V8: None if the game goes on after ``hand``, else (winners, placements)."""
    n = len(totals)
    capped = hand >= rules.max_hands  # V8: no next hand, whatever the totals and ties
    if max(totals) < rules.target_score and not capped:
        return None
    low = min(totals)
    tied = [s for s in range(n) if totals[s] == low]
    if rules.tie_rule is TieRule.PLAY_ON and len(tied) > 1 and not capped:
        return None
    if rules.tie_rule is TieRule.LAST_HAND:
        best_last = min(last[s] for s in tied)
        winners = tuple(s for s in tied if last[s] == best_last)
        keys = [(totals[s], last[s]) for s in range(n)]
    else:
        winners = tuple(tied)
        keys = [(totals[s], 0) for s in range(n)]
    placements = tuple(1 + sum(1 for k in keys if k < keys[s]) for s in range(n))
    return winners, placements


def try_refused(state: GameState, action) -> None:
    before = snapshot(state)
    try:
        state.apply(action)
    except ActionError:
        pass
    else:
        raise AssertionError(f"{action} was accepted")
    assert snapshot(state) == before, f"refused {action} changed the state"


def choose_play(state: GameState, legal: list[int], rng: random.Random, shooter: int | None):
    """Uniformly at random; or, to make moons (R8) common, a would-be shooter
    plays its highest card and the others their lowest card without points
    (and the shooter passes its lowest cards, the others their highest)."""
    if shooter is None:
        return rng.choice(legal)
    if state.current == shooter:
        return max(legal, key=rank)
    return min(legal, key=lambda c: (suit(c) == "H" or is_queen_of_spades(c), rank(c)))


def is_queen_of_spades(card: int) -> bool:
    return str(CardSet.of([card])) == "QS"


def play_random_game(rules: Rules, seed: int, rng: random.Random, moon_driver: bool = False):
    state = GameState.new(rules, seed)
    shooter = rng.randrange(rules.num_players) if moon_driver else None
    actions = []
    n = rules.num_players
    totals = [0] * n
    chosen = None
    check_dealt(state)
    hand_number = 1
    while not state.is_over:
        assert state.hand_number <= MAX_HANDS, "the game does not end"
        phase = state.phase
        if phase is Phase.PASSING:
            seat = rng.choice(state.to_act())
            hand = card_list(state.hands[seat])
            if rng.random() < 0.3:
                picked = rng.sample(range(52), rng.choice((2, 3, 3, 4)))
                valid = len(picked) == 3 and set(picked) <= set(hand)
                if rng.random() < 0.2:
                    picked = [picked[0], picked[0], picked[-1]]
                    valid = False
                if not valid:
                    try_refused(state, Pass(seat, tuple(picked)))
            passed = [s for s in range(n) if s not in state.to_act()]
            if passed and rng.random() < 0.2:
                again = rng.choice(passed)
                try_refused(state, Pass(again, tuple(card_list(state.hands[again])[:3])))
            if shooter is None:
                action = Pass(seat, tuple(rng.sample(hand, 3)))
            else:
                by_rank = sorted(hand, key=rank)
                action = Pass(seat, tuple(by_rank[:3] if seat == shooter else by_rank[-3:]))
        elif phase is Phase.PLAYING:
            seat = state.current
            assert state.to_act() == [seat]
            legal = state.legal_mask()
            assert legal, "no legal play"
            assert legal & ~state.hands[seat] == 0
            assert set(card_list(legal)) == expected_legal(state)
            assert all(state.is_legal(c) == bool(legal >> c & 1) for c in range(52))
            for other in range(n):
                if other != seat:
                    assert state.legal_mask(other) == 0
            if rng.random() < 0.3:
                # A card from the hand or not, legal or not, by this seat or another.
                card = rng.randrange(52)
                by = seat if rng.random() < 0.8 else rng.randrange(n)
                if by != seat or not legal >> card & 1:
                    try_refused(state, Play(by, card))
            action = Play(seat, choose_play(state, card_list(legal), rng, shooter))
        else:
            assert phase is Phase.MOON_CHOICE
            seat = state.current
            assert state.to_act() == [seat]
            if rng.random() < 0.5:
                try_refused(state, MoonChoice(seat, MoonScoring.SHOOTER_CHOOSES))
                try_refused(state, MoonChoice((seat + 1) % n, MoonScoring.ADD_TO_OTHERS))
                try_refused(state, Play(seat, 0))
            chosen = rng.choice([MoonScoring.ADD_TO_OTHERS, MoonScoring.SUBTRACT_FROM_SELF])
            action = MoonChoice(seat, chosen)
        results_before = len(state.hand_results)
        state.apply(action)
        actions.append(action)
        if len(state.hand_results) > results_before:
            check_hand_result(state, totals, chosen)
            result = state.hand_results[-1]
            totals = list(result.totals)
            end = expected_end(rules, result.totals, result.scores, result.hand_number)
            assert state.is_over == (end is not None)
            if end is None and max(result.totals) >= rules.target_score:
                event("play on after a tie")
            if end is not None:
                winners, placements = end
                if len(winners) > 1:
                    event("shared win")
                if max(result.totals) < rules.target_score:
                    event("ended at the hand cap (V8)")
                assert state.outcome.winners == winners
                assert state.outcome.placements == placements
                assert state.outcome.scores == result.totals
                assert state.outcome.hands_played == result.hand_number
            chosen = None
        if not state.is_over and state.hand_number != hand_number:
            hand_number = state.hand_number
            assert state.hand_number == len(state.hand_results) + 1
            check_dealt(state)
    return state, actions


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=rules_strategy,
    seed=st.integers(0, 2**32),
    driver=st.integers(0, 2**32),
    moon_driver=st.booleans(),
)
def test_random_games_follow_the_rules(rules, seed, driver, moon_driver):
    state, actions = play_random_game(rules, seed, random.Random(driver), moon_driver)
    assert state.is_over and state.outcome is not None
    for refused in (
        lambda: state.apply(Play(0, 0)),
        lambda: state.apply(Pass(0, (0, 1, 2))),
        lambda: state.apply(MoonChoice(0, MoonScoring.ADD_TO_OTHERS)),
    ):
        before = snapshot(state)
        try:
            refused()
        except ActionError as error:
            assert error.kind == "game_over"
        else:
            raise AssertionError("an action after the game was accepted")
        assert snapshot(state) == before
    # replay(rules, seed, actions) reproduces the final state exactly.
    assert snapshot(replay(rules, seed, actions)) == snapshot(state)


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(3, 7),
    seed=st.one_of(st.integers(0, 2**64), st.text(max_size=12)),
    hand_number=st.integers(1, 10_000),
)
def test_every_deal_deals_every_card_once(players, seed, hand_number):
    rules = Rules(num_players=players)
    hands = deal(rules, seed, hand_number)
    union = 0
    for hand in hands:
        assert hand.bit_count() == rules.cards_per_player
        assert union & hand == 0
        union |= hand
    assert union == rules.deck
    assert deal(rules, seed, hand_number) == hands


@settings(max_examples=200, deadline=None)
@given(mask=st.integers(0, 2**52 - 1))
def test_card_sets_round_trip_through_text(mask):
    text = str(CardSet(mask))
    assert CardSet.parse(text) == mask
    assert len(text.split()) == mask.bit_count()
    assert card_list(mask) == [c for c in range(52) if mask >> c & 1]
