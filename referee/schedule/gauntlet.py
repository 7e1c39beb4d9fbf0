"""A gauntlet's paired schedule: a candidate and its baselines on the same deals and seats.

The schedule seats one *subject* with each group of ``k - 1`` opponents. A
duplicate set (an opponent group and a deal set: ``table`` and ``deal_set``,
one deal seed) is played with the subject in every seat (the seatings), and
every game of it is played once with the candidate as the subject and once
with each baseline: same deal seed, same seat, same opponents in the same
seats. Each game's ``meta`` says so (``pair``: the games that differ only by
the subject; ``role``: ``candidate`` or ``baseline``; ``subject``: the bot),
so the gauntlet's statistics are a pure function of the journal
(:mod:`referee.tournament.gauntlet_tracker`). The schedule needs only the
gauntlet's bots (:class:`Gauntlet`), not its test, so it sits below the
tournaments, with the audits that rebuild it.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol

from referee.schedule.base import (
    Schedule,
    ScheduledGame,
    Scheduler,
    base_seating,
)

__all__ = [
    "Gauntlet",
    "GauntletGame",
    "GauntletPlayers",
    "GauntletScheduler",
    "make_gauntlet_schedule",
]

#: The subject's place in a table's base seating, before a candidate or baseline takes it.
_SUBJECT = "\0subject"


@dataclasses.dataclass(frozen=True, slots=True)
class GauntletGame(ScheduledGame):
    """A scheduled game of a gauntlet: which pair it belongs to and whose turn it is."""

    #: The games that share the deal seed, the seats and the opponents: ``t1-d2-r3``.
    pair: str
    #: ``candidate`` or ``baseline``.
    role: str
    #: The candidate or the baseline playing this game.
    subject: str

    def meta(self) -> dict[str, Any]:
        meta = ScheduledGame.meta(self)
        meta.update(pair=self.pair, role=self.role, subject=self.subject)
        return meta


class Gauntlet(Protocol):
    """Who a gauntlet's schedule seats: a gauntlet config
    (:class:`referee.tournament.gauntlet_config.GauntletConfig`) is one."""

    @property
    def candidate(self) -> str: ...
    @property
    def baselines(self) -> Sequence[str]: ...
    @property
    def opponents(self) -> Sequence[str]: ...


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class GauntletPlayers:
    """The bots of a gauntlet, as its schedule needs them (its test is the tracker's business)."""

    candidate: str
    baselines: tuple[str, ...]
    opponents: tuple[str, ...]

    @classmethod
    def from_config(cls, gauntlet: Mapping[str, Any]) -> GauntletPlayers:
        """From a canonical config's ``gauntlet`` (``tournament.json``'s ``config.gauntlet``)."""
        return cls(
            candidate=gauntlet["candidate"],
            baselines=tuple(gauntlet["baselines"]),
            opponents=tuple(gauntlet["opponents"]),
        )


class GauntletScheduler(Scheduler):
    """The paired schedule of ``gauntlet`` (see the module docs).

    Its :attr:`tables` name the candidate and each opponent group (not in
    seating order: the subject's seat is shuffled with the opponents'). Games
    come deal set by deal set, then opponent group, seating and subject (the
    candidate first), so duplicate sets complete in order.
    """

    def __init__(self, gauntlet: Gauntlet, **settings: Any) -> None:
        super().__init__(**settings)
        k = self.table_size
        if len(gauntlet.opponents) < k - 1:
            raise ValueError(f"a table of {k} needs {k - 1} opponents")
        self.gauntlet = gauntlet
        self._groups = list(itertools.combinations(gauntlet.opponents, k - 1))
        self._bases = [
            base_seating([_SUBJECT, *group], self.seed, t)
            for t, group in enumerate(self._groups, start=1)
        ]

    @property
    def tables(self) -> tuple[tuple[str, ...], ...]:
        return tuple((self.gauntlet.candidate, *group) for group in self._groups)

    @property
    def subjects(self) -> int:
        return 1 + len(self.gauntlet.baselines)

    def games(self, key: bytes) -> Iterator[ScheduledGame]:
        gauntlet = self.gauntlet
        subjects = [("candidate", gauntlet.candidate, "c")] + [
            ("baseline", name, f"b{j}") for j, name in enumerate(gauntlet.baselines, start=1)
        ]
        orders = self.seatings()
        index = 0
        for d in range(1, self.deal_sets + 1):
            for t, base in enumerate(self._bases, start=1):
                deal_seed = self.deal_seed(key, t, d)
                for r, seating in enumerate(orders, start=1):
                    order = self.order(seating, d)
                    pair = f"t{t}-d{d}-{self.letter}{r}"
                    for role, name, tag in subjects:
                        yield GauntletGame(
                            index=index,
                            game_id=f"{pair}-{tag}",
                            table=t,
                            deal_set=d,
                            seating=r,
                            seed=deal_seed,
                            bots=tuple(name if base[i] == _SUBJECT else base[i] for i in order),
                            pair=pair,
                            role=role,
                            subject=name,
                        )
                        index += 1


def make_gauntlet_schedule(
    gauntlet: Gauntlet,
    *,
    table_size: int = 4,
    deal_sets: int = 1,
    duplicate: bool = True,
    all_permutations: bool = False,
    seed: int | str = 0,
    key: bytes,
) -> Schedule:
    """The paired schedule of a gauntlet, laid out with the key's deal seeds.

    >>> g = GauntletPlayers(candidate="new", baselines=("old",), opponents=("a", "b", "c"))
    >>> s = make_gauntlet_schedule(g, deal_sets=2, key=bytes(32))
    >>> len(s), [x.game_id for x in s.games[:3]]
    (16, ['t1-d1-r1-c', 't1-d1-r1-b1', 't1-d1-r2-c'])
    >>> a, b = s.games[:2]
    >>> a.seed == b.seed and [x if x != "new" else "old" for x in a.bots] == list(b.bots)
    True
    """
    return GauntletScheduler(
        gauntlet,
        table_size=table_size,
        deal_sets=deal_sets,
        duplicate=duplicate,
        all_permutations=all_permutations,
        seed=seed,
    ).schedule(key)
