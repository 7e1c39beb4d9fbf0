"""Tournament schedules: which bots meet, in which seats, on which deals.

A schedule is a list of tables (sets of ``k`` bots) and, for each table, its
games. With N bots every combination of k plays (a round robin over tables,
:mod:`~referee.schedule.round_robin`); when a ``max_tables``
smaller than that is given, a balanced sample is drawn instead
(:mod:`~referee.schedule.sampled`): every bot sits at the same
number of tables and every pair of bots meets about equally often. A
gauntlet's schedule (:mod:`~referee.schedule.gauntlet`) pairs a
candidate's games with its baselines', and a ladder's
(:mod:`~referee.schedule.ladder`) is the sets its journal names.
The four are siblings behind one interface, :class:`Scheduler` (:mod:`~referee.schedule.base`).

Duplicate deals: a table plays ``deal_sets`` deal sequences (each a game seed).
With ``duplicate`` on, each deal sequence is replayed with the seats rotated
k times, so every bot at the table plays every hand from every seat; those
games form one *duplicate set*, the unit of the standings' statistics. With
``all_permutations`` the set holds every seating (k! games) instead. Without
``duplicate``, each deal sequence is played once, the seating rotated from one
deal set to the next (:func:`seatings`).

The tables and seatings derive from the tournament seed through SHA-256; the
deal seeds derive from the tournament's secret key too
(:func:`referee.folder.seal.game_seed`), so that nobody can compute a deal in
advance from the seed. The same key, seed and settings give the same schedule
on any machine; :func:`schedule_of` rebuilds it from a folder's
``tournament.json`` (:mod:`~referee.schedule.build`):

>>> key = bytes(32)
>>> s = make_schedule(["a", "b", "c", "d", "e"], table_size=4, seed=1, key=key)
>>> len(s.tables), len(s.games), s.games[0].game_id
(5, 20, 't1-d1-r1')
>>> make_schedule(["a", "b", "c", "d", "e"], table_size=4, seed=1, key=key) == s
True
>>> saved = {"config": {"rules": {"num_players": 4}, "bots": {"a": {}, "b": {}, "c": {}, "d": {}},
...          "schedule": {"deal_sets": 1, "duplicate": True, "all_permutations": False,
...                       "max_tables": None}}, "seed": 1}
>>> schedule_of(saved, key) == make_schedule(["a", "b", "c", "d"], seed=1, key=key)
True
"""

from referee.schedule.base import (
    Schedule,
    ScheduledGame,
    Scheduler,
    derive_seed,
    rotations,
    seatings,
)
from referee.schedule.build import (
    make_schedule,
    schedule_of,
    scheduler_of,
    table_scheduler,
)
from referee.schedule.gauntlet import (
    Gauntlet,
    GauntletGame,
    GauntletPlayers,
    GauntletScheduler,
    make_gauntlet_schedule,
)
from referee.schedule.ladder import LadderScheduler, is_ladder
from referee.schedule.round_robin import RoundRobinScheduler
from referee.schedule.sampled import SampledScheduler, sample_tables

__all__ = [
    "Gauntlet",
    "GauntletGame",
    "GauntletPlayers",
    "GauntletScheduler",
    "LadderScheduler",
    "RoundRobinScheduler",
    "SampledScheduler",
    "Schedule",
    "ScheduledGame",
    "Scheduler",
    "derive_seed",
    "is_ladder",
    "make_gauntlet_schedule",
    "make_schedule",
    "rotations",
    "sample_tables",
    "schedule_of",
    "scheduler_of",
    "seatings",
    "table_scheduler",
]
