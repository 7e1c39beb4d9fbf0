"""The processes of this machine, read from /proc (Linux).

Used to find a run's child process groups, and by the tests and benchmarks to
check that no bot outlives the referee. (referee/sandbox/supervisor.py keeps its own
reader: it runs by file path with ``python -I`` and imports nothing of ours.)
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator

__all__ = ["Process", "processes"]

_TICKS = os.sysconf("SC_CLK_TCK")


@dataclasses.dataclass(frozen=True, slots=True)
class Process:
    pid: int
    ppid: int
    pgid: int
    #: The state letter of proc(5): R, S, D, Z (zombie), ...
    state: str
    #: User and system CPU time so far.
    cpu_seconds: float

    @property
    def alive(self) -> bool:
        """Running or sleeping, not a zombie waiting to be reaped."""
        return self.state != "Z"


def processes() -> Iterator[Process]:
    """Every process whose /proc/PID/stat could be read now."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue  # it ended meanwhile
        # The command name (field 2) may hold spaces and ')': the fields after
        # the last ')' are fixed: state 3, ppid 4, pgrp 5, utime 14, stime 15.
        fields = stat[stat.rfind(b")") + 2 :].split()
        yield Process(
            pid=int(entry),
            ppid=int(fields[1]),
            pgid=int(fields[2]),
            state=fields[0].decode(),
            cpu_seconds=(int(fields[11]) + int(fields[12])) / _TICKS,
        )
