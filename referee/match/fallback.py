"""Fallback moves: what the referee plays for a seat whose answer it cannot use.

A fault never stops a game: the seat gets a fallback, a choice seeded by the
string ``fallback/{seed}/{decision}`` (Python's :class:`random.Random` with
that string; docs/log-format.md), so that ``referee verify`` can recompute it
from the log. The match runner (:mod:`referee.match.runner`) plays these moves and
the audit (:mod:`referee.audit.logs`) checks them, both with these functions. The
decision ids, sent to the bot and written in the log, are made here too.
"""

from __future__ import annotations

import random

from referee.engine import Card, MoonScoring, card_list

__all__ = [
    "FALLBACK_MOON_CHOICE",
    "fallback_pass",
    "fallback_play",
    "fallback_rng",
    "moon_decision",
    "pass_decision",
    "play_decision",
]

#: The moon choice of a shooter that does not give one (V2's default).
FALLBACK_MOON_CHOICE = MoonScoring.ADD_TO_OTHERS


def fallback_rng(seed: int | str, decision: str) -> random.Random:
    """The generator of one decision's fallback."""
    return random.Random(f"fallback/{seed}/{decision}")


def fallback_pass(seed: int | str, decision: str, hand: int, count: int) -> list[Card]:
    """``count`` random cards of ``hand`` (a mask), sorted."""
    return sorted(fallback_rng(seed, decision).sample(card_list(hand), count))


def fallback_play(seed: int | str, decision: str, legal: int) -> Card:
    """A uniformly random card of ``legal`` (a mask: the legal moves offered)."""
    return fallback_rng(seed, decision).choice(card_list(legal))


def pass_decision(hand: int, seat: int) -> str:
    """The decision id of ``seat``'s pass in ``hand``: ``h3-pass-s1``."""
    return f"h{hand}-pass-s{seat}"


def play_decision(hand: int, trick: int, seat: int) -> str:
    """The decision id of ``seat``'s play to ``trick`` (1-based) of ``hand``: ``h3-t5-s1``."""
    return f"h{hand}-t{trick}-s{seat}"


def moon_decision(hand: int, seat: int) -> str:
    """The decision id of the shooter's moon choice in ``hand``: ``h3-moon-s1``."""
    return f"h{hand}-moon-s{seat}"
