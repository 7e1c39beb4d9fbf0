"""Reconstruct a game from (rules, seed, actions): the basis of replays and audits."""

from __future__ import annotations

from collections.abc import Iterable

from referee.engine.errors import ActionError
from referee.engine.rules import Rules
from referee.engine.state import Action, GameState

__all__ = ["ReplayError", "replay"]


class ReplayError(ValueError):
    """An action of a recorded game that the engine refuses.

    ``index`` is the 0-based position of the action in the sequence, ``action``
    the action itself, and ``__cause__`` the engine's :class:`ActionError`.
    """

    def __init__(self, index: int, action: Action, error: ActionError) -> None:
        super().__init__(f"action {index} ({action}): {error}")
        self.index = index
        self.action = action
        self.error = error


def replay(rules: Rules, seed: int | str, actions: Iterable[Action]) -> GameState:
    """The state after playing ``actions`` from the start of the game ``(rules, seed)``.

    The same arguments give the same state on every machine: every hand is
    dealt by :func:`~referee.engine.state.deal` from the seed, and the actions
    (passes in any order, plays, moon choices) are applied in sequence. The
    first refused action raises :class:`ReplayError` naming its position.

    >>> from referee.engine import Pass, parse_cards
    >>> state = replay(Rules(), 7, [])
    >>> state.hand_number, state.phase.value
    (1, 'passing')
    """
    state = GameState.new(rules, seed)
    for index, action in enumerate(actions):
        try:
            state.apply(action)
        except ActionError as error:
            raise ReplayError(index, action, error) from error
    return state
