"""The strong reference bot: determinized search (PIMC) over the cards it has not seen.

For each play it deals the unseen cards to the other seats many times,
consistently with what it knows (voids shown, the cards it passed, the cards
played), plays every candidate card out in each of those worlds with a fast
playout policy, and plays the card with the lowest mean score. It passes by
hand evaluation and answers the moon question (V2 shooter_chooses) by the
standings. docs/strategy.md explains the algorithm and its measured strength.
The search itself is the referee's (:mod:`referee.search`, standard library
only), which the sandbox shows the bot read-only; ``referee analyze`` judges
decisions with the same core.

Clock: it thinks for a share of the move time plus a slice of its time bank,
measured on the wall clock from the moment the request arrives, less a
safety margin, and checks the clock after every playout, so on a loaded
machine it answers early rather than late. It keeps no state: every request
carries what it may know.

Run:  python bot.py --port 50051
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable, Iterable
from typing import TypeVar

from referee.botkit import Bot, pb, serve
from referee.search.pimc import (
    DEFAULT,
    Knowledge,
    Settings,
    choose_moon,
    choose_pass,
    choose_play,
    decisions_left,
    search_pass,
    simple_pass,
    time_budget,
)
from referee.search.sim import ADD_TO_OTHERS, SHOOTER_CHOOSES, SUBTRACT_FROM_SELF, Variant

_MOON_NAMES = {
    pb.MOON_SCORING_ADD_TO_OTHERS: ADD_TO_OTHERS,
    pb.MOON_SCORING_SUBTRACT_FROM_SELF: SUBTRACT_FROM_SELF,
    pb.MOON_SCORING_SHOOTER_CHOOSES: SHOOTER_CHOOSES,
}
_MOON_ANSWERS = {
    ADD_TO_OTHERS: pb.MOON_SCORING_ADD_TO_OTHERS,
    SUBTRACT_FROM_SELF: pb.MOON_SCORING_SUBTRACT_FROM_SELF,
}
_PB_CARDS = [pb.Card(suit=c // 13 + 1, rank=c % 13 + 2) for c in range(52)]
_VARIANTS: dict[tuple, Variant] = {}
T = TypeVar("T")


def card(message: pb.Card) -> int:
    """The engine's card int of a message (``suit * 13 + rank - 2``)."""
    return (message.suit - 1) * 13 + message.rank - 2


def mask(messages: Iterable[pb.Card]) -> int:
    m = 0
    for message in messages:
        m |= 1 << card(message)
    return m


def variant(rules: pb.Rules) -> Variant:
    """The simulator's rules for a request's rules (cached: they rarely change)."""
    key = (
        rules.num_players or 4,
        rules.queen_breaks_hearts,
        rules.moon_scoring,
        rules.omnibus,
        rules.points_on_first_trick,
    )
    found = _VARIANTS.get(key)
    if found is None:
        found = _VARIANTS[key] = Variant(
            key[0],
            queen_breaks_hearts=rules.queen_breaks_hearts,
            moon_scoring=_MOON_NAMES.get(rules.moon_scoring, ADD_TO_OTHERS),
            omnibus=rules.omnibus,
            points_on_first_trick=rules.points_on_first_trick,
        )
    return found


def knowledge(request: pb.PlayCardRequest) -> Knowledge:
    """What a PlayCardRequest tells the seat, as the search's ints and masks."""
    v = variant(request.rules)
    return Knowledge(
        variant=v,
        seat=request.seat,
        hand=mask(request.hand),
        tricks=[(t.leader, [card(p.card) for p in t.plays]) for t in request.tricks],
        leader=request.current_trick.leader,
        current=[card(p.card) for p in request.current_trick.plays],
        hearts_broken=request.hearts_broken,
        legal=mask(request.legal_moves),
        passed=mask(request.passed),
        pass_to=request.pass_to if request.pass_direction != pb.PASS_DIRECTION_HOLD else -1,
        received=mask(request.received),
        scores=tuple(request.scores),
        target_score=request.rules.target_score or 100,
    )


def machine_load() -> float:
    """Runnable processes per CPU over the last minute (1: busy; above 1: overloaded)."""
    try:
        return os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:
        return 1.0


class StrongBot(Bot):
    name = "strong-py"
    version = "1.0.0"
    author = "Hearts referee authors"

    def __init__(self, settings: Settings = DEFAULT) -> None:
        self.settings = settings
        self._search_lock = threading.Lock()
        self._count_lock = threading.Lock()
        self._waiting = 0
        self._lateness = 0.0

    def pass_cards(self, request: pb.PassCardsRequest) -> list[pb.Card]:
        start = time.monotonic()
        v = variant(request.rules)
        hand, count = mask(request.hand), request.count or 3
        if self.settings.passing == "simple":
            return [_PB_CARDS[c] for c in simple_pass(hand, count)]
        if self.settings.passing != "search":
            return [_PB_CARDS[c] for c in choose_pass(hand, count, v)]
        deadline = start + self._budget(request.clock, v.tricks * 8)

        def search(stop: float) -> list[int]:
            return search_pass(hand, count, v, request.seat, request.pass_to, stop, random.Random())

        return [_PB_CARDS[c] for c in self._searching(deadline, search)]

    def play_card(self, request: pb.PlayCardRequest) -> pb.Card:
        start = time.monotonic()
        k = knowledge(request)
        v = k.variant
        left = decisions_left(v.tricks - len(k.tricks), k.scores, k.target_score, per_hand=v.tricks)
        deadline = start + self._budget(request.clock, left)

        def search(stop: float) -> int:
            return choose_play(k, stop, random.Random(), self.settings)

        return _PB_CARDS[self._searching(deadline, search)]

    def _budget(self, clock: pb.Clock, decisions_left: int) -> float:
        return time_budget(
            clock.move_time_ms,
            clock.time_bank_ms,
            decisions_left,
            self.settings,
            load=machine_load(),
            lateness=self._lateness,
        )

    def _searching(self, deadline: float, search: Callable[[float], T]) -> T:
        """``search(stop)``, one search at a time, stopping in time for ``deadline``.

        Searches in several threads would share one core through the GIL and all
        run late. So they take turns: a request that waits shares the time it has
        left fairly with those still waiting behind it, and one that has waited
        past its deadline searches with no time (the searches then answer at once
        with their fallback: the playout policy's card, the evaluated pass).
        """
        with self._count_lock:
            self._waiting += 1
        got = self._search_lock.acquire(timeout=max(0.0, deadline - time.monotonic()))
        with self._count_lock:
            self._waiting -= 1
            behind = self._waiting
        if not got:
            return search(0.0)
        try:
            now = time.monotonic()
            stop = now + max(0.0, deadline - now) / (1 + behind)
            answer = search(stop)
            # How far past its stop the search ran (a slow playout, a descheduled process):
            # remembered, decaying, and kept back from the next budgets.
            self._lateness = max(time.monotonic() - stop, 0.0, self._lateness * 0.9)
        finally:
            self._search_lock.release()
        return answer

    def choose_moon_scoring(self, request: pb.ChooseMoonScoringRequest) -> int:
        return _MOON_ANSWERS[choose_moon(request.seat, tuple(request.scores))]


if __name__ == "__main__":
    serve(StrongBot())
