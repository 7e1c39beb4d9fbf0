"""A stand-in for the person at a human seat: it reads the seat's table and answers.

It chooses as the built-in ``random`` bot would in that seat (the same seeded
choices, from the hand and legal cards the table shows), so that a test can
pick a seed where the seat shoots the moon (V2). The tests drive it through
the player itself, through the server's HTTP routes or through a browser.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from referee.engine import Card, CardSet, MoonScoring, Rules
from referee.players.base import Deadline
from referee.players.builtin import RandomPlayer

_DEADLINE = Deadline(1000, 0, 1.0)


def _view(table: dict[str, Any], legal: bool) -> Any:
    cards = [Card.parse(c["card"]) for c in table["hand"] if not legal or c.get("legal")]
    rules = Rules.from_dict({k: v for k, v in table["rules"].items() if k != "pass_count"})
    mask = CardSet.of(cards)
    return types.SimpleNamespace(hand=mask, legal_moves=mask, rules=rules)


def choose(table: dict[str, Any], game_id: str) -> Any:
    """What ``random`` would answer to the table's open decision (cards as strings)."""
    decision = table["decision"]
    bot = RandomPlayer()
    if decision["kind"] == "pass":
        cards = bot.pass_cards(game_id, _view(table, False), decision["id"], _DEADLINE)
        return [str(c) for c in cards]
    if decision["kind"] == "play":
        return str(bot.play_card(game_id, _view(table, True), decision["id"], _DEADLINE))
    return MoonScoring.ADD_TO_OTHERS.value


def illegal_card(table: dict[str, Any]) -> dict[str, Any] | None:
    """A card of the hand that the table marks illegal now, with its reason and rule."""
    return next((c for c in table["hand"] if c.get("legal") is False), None)


def play_out(
    table: Callable[[], dict[str, Any]],
    answer: Callable[[str, Any], Any],
    game_id: str,
    *,
    over: Callable[[], bool],
    moon: str = MoonScoring.ADD_TO_OTHERS.value,
    on_decision: Callable[[dict[str, Any]], None] | None = None,
) -> int:
    """Answer every decision until ``over()``; the number answered."""
    import time

    answered: set[str] = set()
    while not over():
        now = table()
        decision = now.get("decision")
        if decision is None or decision["id"] in answered:
            time.sleep(0.005)
            continue
        if on_decision is not None:
            on_decision(now)
        value = moon if decision["kind"] == "moon" else choose(now, game_id)
        answer(decision["id"], value)
        answered.add(decision["id"])
    return len(answered)
