"""The one way a schedule is made: from a config's settings, or from a saved ``tournament.json``.

:func:`schedule_of` rebuilds a tournament's schedule from what its folder
saved (``tournament.json``: the canonical config, the seed, the participants)
and its key; the runner, ``referee verify``, the gauntlet's report and the web
view all use it (or :func:`scheduler_of`, without the key, for the schedule's
shape), so that they cannot disagree on a game's place, seats or deal.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from referee.schedule.base import Schedule, Scheduler
from referee.schedule.gauntlet import GauntletPlayers, GauntletScheduler
from referee.schedule.ladder import LadderScheduler, is_ladder
from referee.schedule.round_robin import RoundRobinScheduler
from referee.schedule.sampled import SampledScheduler

__all__ = ["make_schedule", "schedule_of", "scheduler_of", "table_scheduler"]


def table_scheduler(
    bots: Sequence[str],
    *,
    table_size: int = 4,
    deal_sets: int = 1,
    duplicate: bool = True,
    all_permutations: bool = False,
    max_tables: int | None = None,
    seed: int | str = 0,
) -> Scheduler:
    """The round robin over tables of ``bots``, or a balanced sample of ``max_tables`` of them.

    A sample when ``max_tables`` is given and smaller than the number of
    combinations; otherwise every combination plays.
    """
    settings: dict[str, Any] = {
        "table_size": table_size,
        "deal_sets": deal_sets,
        "duplicate": duplicate,
        "all_permutations": all_permutations,
        "seed": seed,
    }
    if max_tables is not None and max_tables < math.comb(len(bots), table_size):
        return SampledScheduler(bots, max_tables=max_tables, **settings)
    return RoundRobinScheduler(bots, **settings)


def make_schedule(
    bots: Sequence[str],
    *,
    table_size: int = 4,
    deal_sets: int = 1,
    duplicate: bool = True,
    all_permutations: bool = False,
    max_tables: int | None = None,
    seed: int | str = 0,
    key: bytes,
) -> Schedule:
    """The schedule of a tournament between ``bots`` (:func:`table_scheduler`), laid out.

    ``key`` is the tournament's secret key (:mod:`referee.folder.seal`): the deal
    seeds derive from it, the tables and seatings from ``seed`` alone.

    >>> key = bytes(32)
    >>> s = make_schedule(["a", "b", "c", "d", "e"], table_size=4, seed=1, key=key)
    >>> len(s.tables), len(s.games), s.games[0].game_id
    (5, 20, 't1-d1-r1')
    >>> make_schedule(["a", "b", "c", "d", "e"], table_size=4, seed=1, key=key) == s
    True
    """
    return table_scheduler(
        bots,
        table_size=table_size,
        deal_sets=deal_sets,
        duplicate=duplicate,
        all_permutations=all_permutations,
        max_tables=max_tables,
        seed=seed,
    ).schedule(key)


def scheduler_of(saved: Mapping[str, Any], *, games: Iterable[Mapping[str, Any]] = ()) -> Scheduler:
    """The scheduler of the tournament whose ``tournament.json`` holds ``saved``.

    ``saved`` is that file's object (or :meth:`referee.folder.state.TournamentState.to_dict`):
    its ``config`` (the canonical config: ``rules.num_players``, the ``schedule``
    section, the ``bots`` and a gauntlet's ``gauntlet``), its ``seed``, and its
    ``participants`` (the bots left after failed builds; the config's bots when
    there are none yet). A gauntlet's schedule is its paired one; a ladder's
    (:mod:`~referee.schedule.ladder`) is the sets its journal's game
    entries, ``games``, name. A config that
    cannot be read raises :class:`KeyError`, :class:`TypeError` or
    :class:`ValueError`, for the caller to name the file.
    """
    config = saved["config"]
    settings = config["schedule"]
    common: dict[str, Any] = {
        "table_size": config["rules"]["num_players"],
        "deal_sets": settings["deal_sets"],
        "duplicate": settings["duplicate"],
        "all_permutations": settings["all_permutations"],
        "seed": saved["seed"],
    }
    if is_ladder(config):  # decided as the ladder went: its journal says
        return LadderScheduler.from_journal(
            games, table_size=common["table_size"], seed=saved["seed"]
        )
    if config.get("gauntlet"):  # format: gauntlet
        return GauntletScheduler(GauntletPlayers.from_config(config["gauntlet"]), **common)
    bots = saved.get("participants") or list(config["bots"])
    return table_scheduler(bots, max_tables=settings["max_tables"], **common)


def schedule_of(
    saved: Mapping[str, Any], key: bytes, *, games: Iterable[Mapping[str, Any]] = ()
) -> Schedule:
    """The schedule of the tournament whose ``tournament.json`` holds ``saved``, with its key.

    The same games, seats and deal seeds as the run that made the folder
    (:func:`scheduler_of` says what ``saved`` must hold; ``games``, a ladder's journal's
    game entries, are its schedule).
    """
    return scheduler_of(saved, games=games).schedule(key)
