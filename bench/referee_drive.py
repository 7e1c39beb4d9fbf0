#!/usr/bin/env python3
"""One tournament run for bench/referee.py's Go kit part, with whichever referee is importable.

    PYTHONPATH=TREE python bench/referee_drive.py CONFIG OUT KEY CONCURRENCY TREE

Runs the tournament of CONFIG as ``referee tournament`` does (the same
runner, executors and bot processes; a silent progress sink instead of the
progress line) and prints one JSON line: the games played, their decisions
and faults, the seconds of play (the runner's own clock, from the last bot
start to the last game: the rate ``referee tournament`` prints) and the CPU
seconds used meanwhile, read from /proc: by the referee's processes (this
one and its game workers) and by all its process tree (with the supervisors'
fork servers, the supervisors and what they reaped, those of games that ended
included); and, from the cgroup that holds the bots' cgroups, by the bots
(with their sandboxes), whose time the tree does not see (:func:`_bots_cpu`).

It imports nothing at module level but the standard library and takes its
own folder off ``sys.path`` (where ``bench/referee.py`` would pass for the
package), so the referee it runs is the one that PYTHONPATH gives: it
refuses to run unless ``referee.__file__`` is under TREE, and prints it.
bench/referee.py runs it for this checkout's tree and for a ``git worktree``
of the baseline commit, alternately.
"""

from __future__ import annotations

import json
import os
import pathlib
import sys

if sys.path and pathlib.Path(sys.path[0]).resolve() == pathlib.Path(__file__).resolve().parent:
    del sys.path[0]  # bench/referee.py is not the referee package

_TICKS = os.sysconf("SC_CLK_TCK")


def _tree_cpu() -> tuple[float, float]:
    """CPU seconds so far: (this process and its children, the game workers; the whole tree).

    The whole tree counts each live process's own time and the time of its
    children that ended and were reaped (the bots' supervisors, sandboxes and
    bots of finished games: with ``bot_lifetime: game`` they live one game).
    The difference of two readings is exact for every process alive at the
    first or born since, as long as what ends is reaped within the tree.

    Its own /proc reader, not :func:`referee.sandbox.procfs.processes`: this
    driver runs the baseline commit's referee too, whose ``Process`` may differ,
    and it needs the reaped children's time (cutime, cstime), which that one
    does not read.
    """
    children: dict[int, list[int]] = {}
    own: dict[int, float] = {}
    reaped: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue  # it ended meanwhile
        # The fields after the command's last ')': ppid 4, utime 14, stime 15, cutime 16, cstime 17.
        fields = stat[stat.rfind(b")") + 2 :].split()
        pid = int(entry)
        children.setdefault(int(fields[1]), []).append(pid)
        own[pid] = (int(fields[11]) + int(fields[12])) / _TICKS
        reaped[pid] = (int(fields[13]) + int(fields[14])) / _TICKS
    me = os.getpid()
    referee = own.get(me, 0.0) + sum(own.get(c, 0.0) for c in children.get(me, []))
    total, todo = 0.0, [me]
    while todo:
        pid = todo.pop()
        total += own.get(pid, 0.0) + reaped.get(pid, 0.0)
        todo.extend(children.get(pid, []))
    return referee, total


#: The folder that holds the bots' cgroups, in every commit's referee (its cgroups module).
_BOTS_CGROUP = "hearts-referee"


def _bots_cpu() -> float:
    """CPU seconds used so far by the processes of every bot cgroup, sandboxes and all.

    Read from the cgroup that holds them (v2 ``cpu.stat``, v1 ``cpuacct.usage``), whose
    clock keeps the time of its children that were removed: a bot's cgroup goes with
    its start. A sandboxed bot's own CPU is not in the process tree's time: it is
    killed with its cgroup, and nothing reaps it into its supervisor's children's time
    (a Python sample bot: 280 ms used by its handshake, 20-40 ms seen in the tree).
    The cgroup also holds the bot's bubblewrap, whose time the tree may count as well:
    a few milliseconds a start. It counts every referee's bots on this machine (run
    the benchmark alone). 0 where there are no such cgroups.
    """
    own: dict[str, str] = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                own[controller] = path.lstrip("/")
    with open("/proc/self/mounts") as f:
        mounts = [line.split() for line in f]
    for fields in mounts:
        point, kind, options = fields[1], fields[2], fields[3].split(",")
        try:
            if kind == "cgroup2" and "" in own:
                with open(os.path.join(point, own[""], _BOTS_CGROUP, "cpu.stat")) as f:
                    usage = dict(line.split() for line in f)
                return int(usage["usage_usec"]) / 1e6
            if kind == "cgroup" and "cpuacct" in options and "cpuacct" in own:
                with open(os.path.join(point, own["cpuacct"], _BOTS_CGROUP, "cpuacct.usage")) as f:
                    return int(f.read()) / 1e9
        except (OSError, KeyError, ValueError):
            continue
    return 0.0


def main() -> None:
    config_path, out, key, concurrency, tree = sys.argv[1:]
    import referee

    # As the command line does, before grpcio starts (a baseline may know nothing of it).
    choose_grpc_client = getattr(referee, "choose_grpc_client", None)
    if choose_grpc_client is not None:
        choose_grpc_client()
    from referee.tournament import Progress, Tournament
    from referee.tournament.config import load_config

    where = pathlib.Path(referee.__file__).resolve()
    if not where.is_relative_to(pathlib.Path(tree).resolve()):
        raise SystemExit(f"the referee imported is {where}, not the one in {tree}")

    class Clock(Progress):
        """Silent; reads the CPU at the last start() (after the bots started) and at finish()."""

        def __init__(self) -> None:
            super().__init__(enabled=False)
            self.cpu = (0.0, 0.0)
            self.bots_cpu = 0.0
            self.decisions = self.faults = 0

        def start(self, total: int) -> None:
            super().start(total)
            self.cpu = _tree_cpu()
            self.bots_cpu = _bots_cpu()

        def add(self, entry: dict, *, this_run: bool = True) -> None:
            super().add(entry, this_run=this_run)
            if this_run:
                self.decisions += sum(entry["decisions"])
                self.faults += sum(sum(kinds.values()) for kinds in entry["faults"])

        def finish(self) -> None:
            super().finish()
            referee, total = _tree_cpu()
            self.cpu = (referee - self.cpu[0], total - self.cpu[1])
            self.bots_cpu = _bots_cpu() - self.bots_cpu

    clock = Clock()
    result = Tournament(
        load_config(config_path),
        out_dir=pathlib.Path(out),
        fresh=True,
        concurrency=int(concurrency),
        progress=clock,
        echo=lambda _: None,
        key_file=key,
    ).run()
    if result.errors or not result.games_played or result.games_done != result.games_scheduled:
        raise SystemExit(f"the tournament did not complete: {result}")
    figures = {
        "referee_file": str(where),
        "games": result.games_played,
        "decisions": clock.decisions,
        "faults": clock.faults,
        "play_s": result.play_s,
        "elapsed_s": result.elapsed_s,
        "referee_cpu_s": clock.cpu[0],
        "tree_cpu_s": clock.cpu[1],
        "bots_cpu_s": clock.bots_cpu,
        "all_cpu_s": clock.cpu[1] + clock.bots_cpu,
    }
    print(json.dumps(figures), flush=True)


if __name__ == "__main__":
    main()
