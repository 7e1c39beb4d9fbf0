"""The schedule's interface and the pieces every kind of schedule shares.

A :class:`Scheduler` says which games a tournament plays, in what order, with
which bots in which seats, and on which deal seeds; :meth:`Scheduler.schedule`
lays that out as a :class:`Schedule` of :class:`ScheduledGame`. The kinds
(:mod:`~referee.schedule.round_robin`,
:mod:`~referee.schedule.sampled`,
:mod:`~referee.schedule.gauntlet`) differ in their tables and, for a
gauntlet, in the order and the subjects of the games; the seatings of a
duplicate set (:func:`seatings`), the base seating of a table and the deal
seeds are common to all and live here.

The tables and seatings derive from the tournament seed through SHA-256
(:func:`derive_seed`); the deal seeds from the tournament's secret key too
(:func:`referee.folder.seal.game_seed`), so that nobody can compute a deal in
advance from the seed. So a scheduler needs no key until it lays out the games.
"""

from __future__ import annotations

import abc
import dataclasses
import hashlib
import itertools
import random
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from referee.folder.seal import game_seed

if TYPE_CHECKING:
    from referee.engine import Rules
    from referee.match.runner import GameSpec
    from referee.players.policy import FaultPolicy, TimeControl

__all__ = [
    "Schedule",
    "ScheduledGame",
    "Scheduler",
    "base_seating",
    "check_tables",
    "derive_seed",
    "rotations",
    "seatings",
]


@dataclasses.dataclass(frozen=True, slots=True)
class ScheduledGame:
    """One game of the schedule."""

    #: Position in the schedule (0-based): the canonical order of games.
    index: int
    game_id: str
    #: Table number, deal set number and seating number (all 1-based).
    table: int
    deal_set: int
    seating: int
    #: The deal seed (the same for every game of a duplicate set): 32 hex digits.
    seed: str
    #: Bot names by seat.
    bots: tuple[str, ...]

    @property
    def set_key(self) -> tuple[int, int]:
        """The duplicate set the game belongs to."""
        return (self.table, self.deal_set)

    def meta(self) -> dict[str, Any]:
        """Schedule facts for logs and the journal."""
        return {
            "index": self.index,
            "table": self.table,
            "deal_set": self.deal_set,
            "seating": self.seating,
        }

    def spec(
        self,
        *,
        rules: Rules,
        time_control: TimeControl,
        fault_policy: FaultPolicy,
        tournament: str,
    ) -> GameSpec:
        """This game as the match runner plays it: its deal, seats and schedule facts,
        under a tournament's (or a ladder's) rules and clocks."""
        # Imported here: the audits read schedules and must not load the match runner
        # (and the players it imports) just for that.
        from referee.match.runner import GameSpec

        return GameSpec(
            game_id=self.game_id,
            seed=self.seed,
            bots=self.bots,
            rules=rules,
            time_control=time_control,
            fault_policy=fault_policy,
            meta={"tournament": tournament, **self.meta()},
        )


@dataclasses.dataclass(frozen=True, slots=True)
class Schedule:
    """Tables (bot names, in base seating order) and their games."""

    tables: tuple[tuple[str, ...], ...]
    games: tuple[ScheduledGame, ...]
    #: True when the tables are a balanced sample rather than every combination.
    sampled: bool

    def __len__(self) -> int:
        return len(self.games)

    def by_id(self) -> dict[str, ScheduledGame]:
        return {g.game_id: g for g in self.games}


def derive_seed(seed: int | str, *parts: object) -> int:
    """A 48-bit seed from the tournament seed and a path, for the tables and seatings.

    >>> derive_seed(1, "table", 3, "set", 2)
    218057773303430
    """
    text = "/".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:6], "big")


def seatings(
    table_size: int, *, duplicate: bool = True, all_permutations: bool = False
) -> list[tuple[int, ...]]:
    """The seat orders of one duplicate set at a table of ``table_size``.

    Each is a permutation of the base seating: game ``r`` of the set seats
    ``base[order[s]]`` in seat ``s``. With ``duplicate``, every rotation (each
    bot plays every seat, so every dealt hand, once); with ``all_permutations``
    every seating (k! games); without ``duplicate``, the base seating alone (a
    deal sequence is played once; :meth:`Scheduler.order` rotates it from one
    deal set to the next).

    >>> seatings(3)
    [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    >>> len(seatings(4, all_permutations=True)), seatings(4, duplicate=False)
    (24, [(0, 1, 2, 3)])
    """
    k = table_size
    if all_permutations:
        return list(itertools.permutations(range(k)))
    if duplicate:
        return [tuple((s + r) % k for s in range(k)) for r in range(k)]
    return [tuple(range(k))]


def rotations(k: int) -> list[tuple[int, ...]]:
    """The seat orders of one duplicate set at a table of ``k``: each rotation of the seats.

    >>> rotations(3)
    [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    """
    return seatings(k)


def base_seating(group: Sequence[str], seed: int | str, table: int) -> tuple[str, ...]:
    """A table's seat order before rotation: shuffled, so no bot always follows another."""
    seats = list(group)
    random.Random(derive_seed(seed, "seating", table)).shuffle(seats)
    return tuple(seats)


def check_tables(
    bots: Sequence[str], table_size: int, *, duplicate: bool, all_permutations: bool
) -> None:
    """Refuse (:class:`ValueError`) settings that give no schedule of tables between ``bots``."""
    if len(set(bots)) != len(bots):
        raise ValueError("bot names must be unique")
    if not 3 <= table_size <= 7:
        raise ValueError(f"table_size must be 3 to 7, not {table_size}")
    if len(bots) < table_size:
        raise ValueError(f"{len(bots)} bots cannot fill a table of {table_size}")
    if all_permutations and not duplicate:
        raise ValueError("all_permutations needs duplicate")


class Scheduler(abc.ABC):
    """Which games a tournament plays, in what order, with what seatings and deal seeds.

    A kind of schedule gives its :attr:`tables`; the games are, by default,
    table by table, deal set by deal set, then seating by seating (a gauntlet
    orders them otherwise, and plays each with several subjects). The settings
    are the tournament config's ``rules.num_players`` and ``schedule`` section,
    and the tournament seed; the key is needed only for the deal seeds, so a
    scheduler describes a published folder's schedule (its tables, its sets and
    seatings) without it.
    """

    #: True when the tables are a balanced sample rather than every combination.
    sampled: ClassVar[bool] = False

    def __init__(
        self,
        *,
        table_size: int = 4,
        deal_sets: int = 1,
        duplicate: bool = True,
        all_permutations: bool = False,
        seed: int | str = 0,
    ) -> None:
        self.table_size = table_size
        self.deal_sets = deal_sets
        self.duplicate = duplicate
        self.all_permutations = all_permutations
        self.seed = seed

    @property
    @abc.abstractmethod
    def tables(self) -> tuple[tuple[str, ...], ...]:
        """The tables: bot names (in base seating order, except a gauntlet's: see there)."""

    def seatings(self) -> list[tuple[int, ...]]:
        """The seat orders of one duplicate set (:func:`seatings`)."""
        return seatings(
            self.table_size, duplicate=self.duplicate, all_permutations=self.all_permutations
        )

    @property
    def letter(self) -> str:
        """The seating's letter in game ids: ``p`` for permutations, else ``r`` (rotation)."""
        return "p" if self.all_permutations else "r"

    def order(self, seating: tuple[int, ...], deal_set: int) -> tuple[int, ...]:
        """The seat order a game of ``deal_set`` plays ``seating`` with.

        Without ``duplicate`` there is one game per deal set: its seats rotate
        from set to set, to balance them.
        """
        if self.duplicate:
            return seating
        k = self.table_size
        return tuple((s + deal_set - 1) % k for s in range(k))

    @property
    def sets(self) -> int:
        """The duplicate sets: a table and a deal set each, one deal seed."""
        return len(self.tables) * self.deal_sets

    @property
    def subjects(self) -> int:
        """The games played of each seating of a set (a gauntlet's candidate and baselines)."""
        return 1

    def __len__(self) -> int:
        """The games scheduled (without laying them out)."""
        return self.sets * len(self.seatings()) * self.subjects

    def deal_seed(self, key: bytes, table: int, deal_set: int) -> str:
        """The deal seed of a duplicate set, from the tournament's key (:mod:`referee.folder.seal`)."""
        return game_seed(key, self.seed, table=table, deal_set=deal_set)

    def games(self, key: bytes) -> Iterator[ScheduledGame]:
        """The games in their canonical order (their ``index``), with the key's deal seeds."""
        orders = self.seatings()
        index = 0
        for t, base in enumerate(self.tables, start=1):
            for d in range(1, self.deal_sets + 1):
                deal_seed = self.deal_seed(key, t, d)
                for r, seating in enumerate(orders, start=1):
                    yield ScheduledGame(
                        index=index,
                        game_id=f"t{t}-d{d}-{self.letter}{r}",
                        table=t,
                        deal_set=d,
                        seating=r,
                        seed=deal_seed,
                        bots=tuple(base[i] for i in self.order(seating, d)),
                    )
                    index += 1

    def schedule(self, key: bytes) -> Schedule:
        """The schedule laid out: its tables and every game, with the key's deal seeds."""
        return Schedule(tables=self.tables, games=tuple(self.games(key)), sampled=self.sampled)
