"""referee.engine.replay: (rules, seed, actions) reconstructs a game exactly."""

from __future__ import annotations

import random

import pytest

from referee.engine import (
    Action,
    CardNotHeldError,
    GameState,
    IllegalMoveError,
    MoonChoice,
    MoonScoring,
    Pass,
    Phase,
    Play,
    ReplayError,
    Rules,
    card_list,
    replay,
)

from .helpers import snapshot


def random_game(rules: Rules, seed: int, rng: random.Random) -> tuple[GameState, list[Action]]:
    state = GameState.new(rules, seed)
    actions: list[Action] = []
    while not state.is_over:
        if state.phase is Phase.PASSING:
            seat = rng.choice(state.to_act())
            action: Action = Pass(seat, tuple(rng.sample(card_list(state.hands[seat]), 3)))
        elif state.phase is Phase.PLAYING:
            action = Play(state.current, rng.choice(card_list(state.legal_mask())))
        else:
            action = MoonChoice(state.current, rng.choice(list(MoonScoring)[:2]))
        state.apply(action)
        actions.append(action)
    return state, actions


@pytest.mark.parametrize(
    "rules",
    [
        Rules(target_score=60),
        Rules(num_players=5, target_score=40, omnibus=True),
        Rules(num_players=3, target_score=40, moon_scoring=MoonScoring.SHOOTER_CHOOSES),
    ],
)
def test_replay_reconstructs_a_whole_game(rules):
    state, actions = random_game(rules, 12, random.Random(3))
    again = replay(rules, 12, actions)
    assert snapshot(again) == snapshot(state)
    assert again.outcome == state.outcome
    assert again.hand_results == state.hand_results


def test_replay_of_a_prefix_is_the_state_at_that_point():
    rules = Rules(target_score=30)
    rng = random.Random(8)
    state = GameState.new(rules, 4)
    actions: list[Action] = []
    for seat in range(4):
        action = Pass(seat, tuple(card_list(state.hands[seat])[:3]))
        state.apply(action)
        actions.append(action)
    for _ in range(10):
        action = Play(state.current, rng.choice(card_list(state.legal_mask())))
        state.apply(action)
        actions.append(action)
    assert snapshot(replay(rules, 4, actions)) == snapshot(state)


def test_replay_of_nothing_is_a_new_game():
    assert snapshot(replay(Rules(), 7, [])) == snapshot(GameState.new(Rules(), 7))


def test_replay_passes_in_any_order():
    rules = Rules()
    state = GameState.new(rules, 2)
    passes = [Pass(s, tuple(card_list(state.hands[s])[-3:])) for s in range(4)]
    a = replay(rules, 2, passes)
    b = replay(rules, 2, [passes[2], passes[0], passes[3], passes[1]])
    assert snapshot(a) == snapshot(b)
    assert a.phase is Phase.PLAYING


def test_replay_reports_the_index_of_a_bad_action():
    rules = Rules()
    state = GameState.new(rules, 6)
    actions: list[Action] = [Pass(s, tuple(card_list(state.hands[s])[:3])) for s in range(4)]
    for action in actions:
        state.apply(action)
    lead = state.current
    actions.append(Play(lead, card_list(state.legal_mask())[0]))  # the 2♣ lead: fine
    state.apply(actions[-1])
    follower = state.current
    hand = state.hands[follower]
    illegal = [c for c in card_list(hand) if not state.is_legal(c)]
    assert illegal, "the follower must hold a card of another suit than clubs"
    bad = Play(follower, illegal[0])
    with pytest.raises(ReplayError) as info:
        replay(rules, 6, [*actions, bad, Play(follower, card_list(hand)[0])])
    error = info.value
    assert error.index == 5
    assert error.action == bad
    assert isinstance(error.error, IllegalMoveError)
    assert error.__cause__ is error.error
    assert str(error).startswith(f"action 5 ({bad}): ")
    assert isinstance(error, ValueError)


def test_replay_reports_a_card_not_held_at_its_index():
    rules = Rules()
    state = GameState.new(rules, 6)
    not_held = next(c for c in range(52) if not state.hands[0] >> c & 1)
    bad = Pass(0, (not_held, *card_list(state.hands[0])[:2]))
    with pytest.raises(ReplayError) as info:
        replay(rules, 6, [Pass(1, tuple(card_list(state.hands[1])[:3])), bad])
    assert info.value.index == 1
    assert isinstance(info.value.error, CardNotHeldError)


def test_actions_print_as_text():
    from .helpers import cards

    assert str(Play(2, cards("QS")[0])) == "play 2 QS"
    assert str(Pass(0, tuple(cards("AS QS KH")))) == "pass 0 AS QS KH"
    assert str(MoonChoice(1, MoonScoring.SUBTRACT_FROM_SELF)) == "moon 1 subtract_from_self"


def test_same_seed_and_actions_give_the_same_game_on_a_fresh_state():
    rules = Rules(target_score=50)
    a, actions = random_game(rules, 21, random.Random(1))
    b = GameState.new(rules, 21)
    for action in actions:
        b.apply(action)
    assert snapshot(a) == snapshot(b)
    # A different seed deals differently, so the same actions do not fit.
    with pytest.raises(ReplayError):
        replay(rules, 22, actions)
