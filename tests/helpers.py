"""Helpers shared by the referee's tests."""

from __future__ import annotations

import os
from collections.abc import Iterable


def process_group_members(pgid: int) -> list[int]:
    """The pids of live processes in a process group (from /proc)."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        state, group = fields[0], int(fields[2])
        if group == pgid and state != b"Z":
            members.append(int(entry))
    return members


def bot_processes_alive(pids: Iterable[int]) -> list[int]:
    """Processes still alive among the launched bots' groups (a bot's pid is its group id)."""
    alive: list[int] = []
    for pid in pids:
        alive.extend(process_group_members(pid))
    return alive
