"""What one seat may know at a decision: its own cards and everything public.

A :class:`SeatView` never holds another seat's unplayed cards. The cards a
seat receives in a pass appear only once every seat has passed (R2: passing is
simultaneous). Passed and received cards are sorted, so their order leaks
nothing about how they were chosen.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from referee.engine.cards import Card, CardSet
from referee.engine.rules import PassDirection, Rules

if TYPE_CHECKING:
    from referee.engine.state import GameState, Phase, Trick

__all__ = ["SeatView"]


@dataclasses.dataclass(frozen=True, slots=True)
class SeatView:
    """One seat's knowledge of the game at a moment."""

    seat: int
    rules: Rules
    phase: Phase
    #: 1 for the first hand.
    hand_number: int
    #: 1 for the first trick of the hand (the trick in progress or next).
    trick_number: int
    #: The seat's cards now.
    hand: CardSet
    #: The seat's cards as dealt, before passing.
    dealt: CardSet
    pass_direction: PassDirection
    #: The seat that receives this seat's pass (itself on a hold hand).
    pass_to: int
    #: The cards this seat passed, once it has passed (None before; empty on hold).
    passed: CardSet | None
    #: The cards it received, once every seat has passed (None before).
    received: CardSet | None
    #: Completed tricks of this hand.
    tricks: tuple[Trick, ...]
    #: The trick in progress (no plays when this seat is to lead).
    current_trick: Trick
    #: Points taken so far in this hand, by seat.
    points_taken: tuple[int, ...]
    #: Running totals, by seat, before this hand.
    scores: tuple[int, ...]
    hearts_broken: bool
    #: The cards this seat may play now; empty unless it is to play.
    legal_moves: CardSet

    @classmethod
    def of(cls, state: GameState, seat: int) -> SeatView:
        from referee.engine.state import Phase, Trick

        if not 0 <= seat < state.n:
            raise ValueError(f"no seat {seat} at a table of {state.n}")
        hold = state.pass_direction is PassDirection.HOLD
        passed = state.passed[seat]
        all_passed = state.phase is not Phase.PASSING
        return cls(
            seat=seat,
            rules=state.rules,
            phase=state.phase,
            hand_number=state.hand_number,
            trick_number=state.trick_number + 1,
            hand=CardSet(state.hands[seat]),
            dealt=CardSet(state.dealt[seat]),
            pass_direction=state.pass_direction,
            pass_to=state.pass_to(seat),
            passed=CardSet(0) if hold else (CardSet(passed) if passed is not None else None),
            received=CardSet(state.received[seat]) if all_passed else None,
            tricks=tuple(state.tricks),
            current_trick=Trick(
                state.trick_leader if state.phase is Phase.PLAYING else -1,
                tuple((s, Card(c)) for s, c in state.trick_plays),
            ),
            points_taken=tuple(state.points_taken),
            scores=tuple(state.scores),
            hearts_broken=state.hearts_broken,
            legal_moves=CardSet(state.legal_mask(seat)),
        )
