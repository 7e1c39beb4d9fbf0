"""Helpers of the engine tests: building positions from card strings, snapshots."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

from referee.engine import (
    ActionError,
    Card,
    CardSet,
    GameState,
    PassDirection,
    Phase,
    Rules,
    Trick,
    card_list,
    parse_cards,
)

_STATE_FIELDS = tuple(GameState.__slots__)


def snapshot(state: GameState) -> dict[str, Any]:
    """Every field of the state, for an exact before/after comparison.

    Lists are copied; their items (ints, tuples, frozen dataclasses) and the
    other fields (enums, ints, frozen dataclasses) are immutable, so equal
    snapshots mean equal states.
    """
    return {
        name: list(value) if isinstance(value, list) else value
        for name in _STATE_FIELDS
        for value in (getattr(state, name),)
    }


def assert_refused(
    state: GameState,
    action: Callable[[], object],
    error: type[ActionError],
    match: str,
    *,
    rule: str | None = None,
) -> ActionError:
    """The action raises ``error`` with a message matching ``match`` and changes nothing."""
    before = snapshot(state)
    with pytest.raises(error, match=match) as info:
        action()
    assert type(info.value) is error, f"expected exactly {error.__name__}, got {info.value!r}"
    if rule is not None:
        assert info.value.rule == rule
    after = snapshot(state)
    changed = [name for name in _STATE_FIELDS if before[name] != after[name]]
    assert not changed, f"refused action changed {changed}"
    return info.value


def cards(text: str) -> list[Card]:
    return parse_cards(text)


def cs(text: str) -> CardSet:
    return CardSet.parse(text)


def hold_hand(hands: Iterable[str], rules: Rules | None = None, **kwargs: Any) -> GameState:
    """A position at the first lead of a hand without passing (hold), from card strings."""
    return GameState.from_hands(
        list(hands), rules or Rules(), pass_direction=PassDirection.HOLD, **kwargs
    )


def play_trick(state: GameState, plays: str, *, leader: int | None = None) -> Trick:
    """Play the cards of one trick in order; check who leads if ``leader`` is given."""
    if leader is not None:
        assert state.to_act() == [leader]
    before = len(state.tricks) + sum(len(r.tricks) for r in state.hand_results)
    for card in cards(plays):
        state.play(card)
    after = len(state.tricks) + sum(len(r.tricks) for r in state.hand_results)
    assert after == before + 1, "the cards did not make exactly one trick"
    if state.tricks:
        return state.tricks[-1]
    return state.hand_results[-1].tricks[-1]


def lowest_legal(state: GameState) -> Card:
    return card_list(state.legal_mask())[0]


def play_out(state: GameState, forced: dict[int, str] | None = None) -> None:
    """Play the current hand to its end: each seat plays its ``forced`` cards in order
    when it is to play, and otherwise its lowest legal card (clubs first, low first)."""
    queues = {seat: cards(text) for seat, text in (forced or {}).items()}
    hand = state.hand_number
    done = len(state.hand_results)
    while len(state.hand_results) == done and state.hand_number == hand:
        if state.phase is not Phase.PLAYING:
            break
        seat = state.current
        queue = queues.get(seat)
        state.play(queue.pop(0) if queue else lowest_legal(state), seat=seat)
    leftover = {seat: q for seat, q in queues.items() if q}
    assert not leftover, f"forced cards not played: {leftover}"


def suit_of(card: Card) -> str:
    """The suit letter from the card's text (independent of the index arithmetic)."""
    return str(card)[-1]


def points_of(card_texts: Iterable[Card], *, omnibus: bool = False) -> int:
    """R7/V3 points of some cards, counted from their text."""
    total = 0
    for c in card_texts:
        text = str(c)
        if text.endswith("H"):
            total += 1
        elif text == "QS":
            total += 13
        elif text == "JD" and omnibus:
            total -= 10
    return total
