"""state.deal and GameState.new: dealing (R1, V6) and determinism."""

from __future__ import annotations

import hashlib
import struct

import pytest

from referee.engine import GameState, Phase, Rules, card_list, deal, format_cards

# A fixed deal of a fixed seed: any change of the deal algorithm changes it, and
# changes every recorded game's replay, so it must be deliberate.
PINNED_SEED_2024_HAND_1 = [
    "4C QC 3D 7D 8D TD JD 8H 2S 4S 6S TS AS",
    "2C 3C 6C 7C AC 4D 5D 9D KD 3H JH 9S JS",
    "5C 9C JC KC 2D 6H 9H TH QH 3S 8S QS KS",
    "8C TC 6D QD AD 2H 4H 5H 7H KH AH 5S 7S",
]
PINNED_5P_SEED_2024_HAND_1 = [
    "KC 5D 9D TD QD KD 4S 6S 8S QS",
    "3C 4C 5C 7C 6D 7D JD 5H TH KH",
    "6C 8C AC 3D 2H 8H AH 5S JS KS",
    "9C TC QC 4D AD JH QH 9S TS AS",
    "JC 8D 3H 4H 6H 7H 9H 2S 3S 7S",
]


def test_pinned_deal():
    assert [format_cards(h) for h in deal(Rules(), 2024, 1)] == PINNED_SEED_2024_HAND_1
    assert [format_cards(h) for h in deal(Rules(num_players=5), 2024, 1)] == (
        PINNED_5P_SEED_2024_HAND_1
    )


def _documented_deal(players: int, seed: object, hand_number: int) -> list[str]:
    """The algorithm of deal's docstring, written out independently."""
    rules = Rules(num_players=players)
    deck = [c for c in range(52) if rules.deck >> c & 1]
    raw = hashlib.shake_256(f"hearts/deal/{seed}/{hand_number}".encode()).digest(8 * len(deck))
    keyed = [(struct.unpack(">Q", raw[8 * i : 8 * i + 8])[0], i) for i in range(len(deck))]
    order = [i for _, i in sorted(keyed)]
    k = len(deck) // players
    return [
        format_cards(sum(1 << deck[i] for i in order[s * k : (s + 1) * k])) for s in range(players)
    ]


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
@pytest.mark.parametrize(("seed", "hand_number"), [(0, 1), (7, 2), ("tournament-a", 5), (99, 12)])
def test_deal_follows_its_documented_algorithm(players, seed, hand_number):
    dealt = [format_cards(h) for h in deal(Rules(num_players=players), seed, hand_number)]
    assert dealt == _documented_deal(players, seed, hand_number)


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
@pytest.mark.parametrize("seed", [0, 1, 12345, "x"])
def test_r1_v6_every_card_dealt_exactly_once(players, seed):
    rules = Rules(num_players=players)
    for hand_number in (1, 2, 3):
        hands = deal(rules, seed, hand_number)
        assert len(hands) == players
        seen: list[int] = []
        for h in hands:
            assert len(card_list(h)) == rules.cards_per_player
            seen += card_list(h)
        assert sorted(seen) == card_list(rules.deck)
        assert len(set(seen)) == len(seen)
        for removed in rules.removed_cards:
            assert removed not in seen


def test_deal_is_deterministic_and_depends_on_seed_and_hand():
    rules = Rules()
    assert deal(rules, 5, 1) == deal(rules, 5, 1)
    assert deal(rules, 5, 1) != deal(rules, 6, 1)
    assert deal(rules, 5, 1) != deal(rules, 5, 2)
    assert deal(rules, "a", 1) != deal(rules, "b", 1)


def test_new_game_deals_hand_one_from_the_seed():
    state = GameState.new(Rules(), seed=2024)
    assert [format_cards(h) for h in state.hands] == PINNED_SEED_2024_HAND_1
    assert state.dealt == state.hands
    assert state.hand_number == 1
    assert state.phase is Phase.PASSING
    assert state.to_act() == [0, 1, 2, 3]  # R2: everyone passes at once
    assert state.scores == [0, 0, 0, 0]
    assert state.outcome is None and not state.is_over


def test_default_rules_and_seed():
    state = GameState.new()
    assert state.rules == Rules()
    assert state.hands == deal(Rules(), 0, 1)


def test_later_hands_are_dealt_from_the_seed_whatever_happened_before():
    """Duplicate games: hand 2's deal depends only on (seed, 2), not on the play of hand 1."""
    from .helpers import play_out

    results = []
    for pass_choice in (0, -1):  # two different ways of playing hand 1
        state = GameState.new(Rules(), seed=31)
        for seat in range(4):
            hand = card_list(state.hands[seat])
            state.pass_cards(seat, hand[:3] if pass_choice == 0 else hand[-3:])
        play_out(state)
        assert state.hand_number == 2
        results.append(list(state.dealt))
    assert results[0] == results[1] == deal(Rules(), 31, 2)


def test_same_seed_same_actions_same_game():
    from .helpers import play_out, snapshot

    def game():
        state = GameState.new(Rules(target_score=30), seed=77)
        while not state.is_over:
            if state.phase is Phase.PASSING:
                for seat in state.to_act():
                    state.pass_cards(seat, card_list(state.hands[seat])[-3:])
            else:
                play_out(state)
        return state

    a, b = game(), game()
    assert snapshot(a) == snapshot(b)
    assert a.outcome is not None and a.outcome == b.outcome
