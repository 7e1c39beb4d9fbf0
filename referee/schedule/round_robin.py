"""The round robin over tables: every combination of ``k`` of the bots plays.

>>> s = RoundRobinScheduler(["a", "b", "c", "d", "e"], table_size=4, seed=1)
>>> len(s.tables), len(s), s.schedule(bytes(32)).games[0].game_id
(5, 20, 't1-d1-r1')
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from referee.schedule.base import Scheduler, base_seating, check_tables

__all__ = ["RoundRobinScheduler"]


class RoundRobinScheduler(Scheduler):
    """Every combination of ``table_size`` of ``bots``, each a table in a shuffled seating."""

    def __init__(self, bots: Sequence[str], **settings: Any) -> None:
        super().__init__(**settings)
        check_tables(
            bots,
            self.table_size,
            duplicate=self.duplicate,
            all_permutations=self.all_permutations,
        )
        self.bots = tuple(bots)
        groups = itertools.combinations(self.bots, self.table_size)
        self._tables = tuple(
            base_seating(group, self.seed, t) for t, group in enumerate(groups, start=1)
        )

    @property
    def tables(self) -> tuple[tuple[str, ...], ...]:
        return self._tables
