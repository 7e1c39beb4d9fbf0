"""Control groups for bots and builds: made, limited, frozen, measured and removed (stdlib only).

The supervisor (:mod:`referee.sandbox.supervisor`) makes a bot's or a build's
cgroups with :class:`Cgroup` (cgroup v2, or v1 where only v1 is writable) and
the referee asks here whether cgroups can be used (:func:`cgroup_support`,
:func:`freezer_support`); :mod:`referee.sandbox.freezer` freezes and thaws a
bot through its :class:`Cgroup`. Like the supervisor, it imports the standard
library alone, and little of it: every bot's start imports it.
"""

from __future__ import annotations

# _signal, not signal: signal imports enum (and with it functools and collections),
# 3-5 ms of every bot's start for names the supervisor finds in signal_name().
import _signal
import os
import time

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

#: The folder, inside the referee's own cgroup, that holds the bots' cgroups.
CGROUP_PARENT = "hearts-referee"
_CFS_PERIOD_US = 100_000
#: What a freezer file is written to thaw a cgroup, by cgroup version.
THAW = {2: "0", 1: "THAWED"}


class suppress:
    """``contextlib.suppress``, for the supervisor: importing contextlib took a few ms of every start."""

    def __init__(self, *errors: type[BaseException]) -> None:
        self.errors = errors

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> bool:
        return kind is not None and issubclass(kind, self.errors)


def signal_name(number: int) -> str | None:
    """The name of signal ``number`` as ``signal.Signals(number).name`` gives it, or None.

    Of a signal's names (SIGCHLD and SIGCLD, SIGABRT and SIGIOT, SIGIO and SIGPOLL),
    ``signal.Signals`` keeps the first in alphabetical order, and so does this.
    """
    names = [
        name
        for name, value in vars(_signal).items()
        if name.startswith("SIG") and not name.startswith("SIG_") and value == number
    ]
    return min(names) if names else None


def read_bytes(path: str) -> bytes | None:
    """The file's bytes, or None if it cannot be read (a cgroup file of a removed group)."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def write_text(path: str, value: str) -> None:
    """Write ``value`` to a cgroup file (errors are the caller's)."""
    with open(path, "w") as f:
        f.write(value)


# Control groups -------------------------------------------------------------------------------


def _mounts() -> list[tuple[str, str, set[str]]]:
    """(mount point, fs type, options) of the cgroup file systems."""
    out = []
    for line in (read_bytes("/proc/self/mounts") or b"").decode(errors="replace").splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[2] in ("cgroup", "cgroup2"):
            out.append((fields[1], fields[2], set(fields[3].split(","))))
    return out


def _own_cgroups() -> dict[str, str]:
    """Our cgroup path per v1 controller, and under ``""`` the v2 one."""
    out: dict[str, str] = {}
    for line in (read_bytes("/proc/self/cgroup") or b"").decode(errors="replace").splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for controller in parts[1].split(",") if parts[1] else [""]:
            out[controller] = parts[2]
    return out


#: The key of a v1 cgroup's companion folder in the v2 hierarchy (a hybrid machine), which
#: freezes and kills the bot.
UNIFIED = "unified"


def _unified_parent(mounts: list[tuple[str, str, set[str]]], own: dict[str, str]) -> str | None:
    """The folder for bots' cgroups in the v2 hierarchy of a hybrid machine, or None."""
    for point, kind, _ in mounts:
        if kind == "cgroup2" and "" in own:
            base = os.path.join(point, own[""].lstrip("/"))
            if os.path.exists(os.path.join(base, "cgroup.procs")):
                return os.path.join(base, CGROUP_PARENT)
    return None


class Cgroup:
    """The control groups of one bot: v2 (one folder) or v1 (one per controller).

    A v1 bot's cgroups may have a companion in the v2 hierarchy (``UNIFIED``)
    that does the freezing and killing.
    """

    def __init__(self, version: int, folders: dict[str, str]) -> None:
        self.version = version
        #: controller -> folder (v2: every controller -> the one folder).
        self.folders = folders

    @classmethod
    def parents(cls) -> tuple[int, dict[str, str]] | None:
        """(version, controller -> the writable folder that holds bots' cgroups), or None."""
        mounts, own = _mounts(), _own_cgroups()
        for point, kind, _ in mounts:  # v2, when it has the controllers we need
            if kind != "cgroup2" or "" not in own:
                continue
            base = os.path.join(point, own[""].lstrip("/"))
            parent = os.path.join(base, CGROUP_PARENT)
            try:
                available = set(
                    (read_bytes(os.path.join(base, "cgroup.controllers")) or b"").split()
                )
                if not {b"memory", b"pids"} <= available:
                    continue
                os.makedirs(parent, exist_ok=True)
                wanted = [c for c in (b"memory", b"pids", b"cpu") if c in available]
                enabled = set(
                    (read_bytes(os.path.join(parent, "cgroup.subtree_control")) or b"").split()
                )
                if not set(wanted) <= enabled:
                    write_text(
                        os.path.join(parent, "cgroup.subtree_control"),
                        " ".join("+" + c.decode() for c in wanted),
                    )
                return 2, dict.fromkeys(("memory", "pids", "cpu", "cpuacct", "freezer"), parent)
            except OSError:
                continue
        folders: dict[str, str] = {}
        for controller in ("memory", "pids", "cpuacct", "cpu", "freezer"):
            for point, kind, options in mounts:
                if kind == "cgroup" and controller in options and controller in own:
                    folders[controller] = os.path.join(
                        point, own[controller].lstrip("/"), CGROUP_PARENT
                    )
                    break
        if "memory" not in folders or "pids" not in folders:
            return None
        # The freezer is optional (without it, bots get a CPU quota instead). On a hybrid
        # machine, a cgroup of the v2 hierarchy serves better than v1's freezer: a frozen
        # process there can still be killed (in v1 it cannot die until thawed, so a bot
        # frozen when its supervisor is killed would stay), and freezing is cheaper.
        v1_freezer = folders.pop("freezer", None)
        for freezer, key in ((_unified_parent(mounts, own), UNIFIED), (v1_freezer, "freezer")):
            if freezer is None:
                continue
            with suppress(OSError):
                os.makedirs(freezer, exist_ok=True)
                if os.access(freezer, os.W_OK):
                    folders[key] = freezer
                    break
        try:
            for folder in set(folders.values()):
                os.makedirs(folder, exist_ok=True)
                if not os.access(folder, os.W_OK):
                    return None
        except OSError:
            return None
        return 1, folders

    @classmethod
    def named(cls, name: str) -> Cgroup | None:
        """The cgroup(s) ``name`` that a supervisor made, or None where cgroups can't be used."""
        found = cls.parents()
        if found is None:
            return None
        version, parents = found
        return cls(version, {c: os.path.join(p, name) for c, p in parents.items()})

    @classmethod
    def create(cls, name: str, limits: dict[str, int]) -> Cgroup | None:
        """Make the cgroup(s) ``name`` with ``limits``; None where cgroups can't be used."""
        found = cls.parents()
        if found is None:
            return None
        version, parents = found
        _sweep(version, parents)
        folders = {c: os.path.join(p, name) for c, p in parents.items()}
        try:
            for folder in set(folders.values()):
                os.makedirs(folder, exist_ok=True)
            group = cls(version, folders)
            group._limit(limits)
        except OSError:
            for folder in set(folders.values()):
                with suppress(OSError):
                    os.rmdir(folder)
            return None
        return group

    def _file(self, controller: str, name: str) -> str:
        return os.path.join(self.folders[controller], name)

    def _limit(self, limits: dict[str, int]) -> None:
        memory = limits.get("memory_bytes") or 0
        processes = limits.get("processes") or 0
        percent = limits.get("cpu_percent") or 0
        if self.version == 2:
            if memory:
                write_text(self._file("memory", "memory.max"), str(memory))
                with suppress(OSError):
                    write_text(self._file("memory", "memory.swap.max"), "0")
            if processes:
                write_text(self._file("pids", "pids.max"), str(processes))
            self.cap_cpu(percent)
            return
        if memory:
            write_text(self._file("memory", "memory.limit_in_bytes"), str(memory))
            with suppress(OSError):  # only with swap accounting
                write_text(self._file("memory", "memory.memsw.limit_in_bytes"), str(memory))
        if processes:
            write_text(self._file("pids", "pids.max"), str(processes))
        self.cap_cpu(percent)

    def cap_cpu(self, percent: int) -> bool:
        """Hold the cgroup to ``percent`` of a core (a CFS quota); False where it can't be.

        0 sets nothing. Launched bots get theirs from the launcher once they serve (see
        :meth:`referee.players.launcher.LaunchedBot.start`); builds, from their creation.
        """
        if not percent or "cpu" not in self.folders:
            return False
        quota = percent * _CFS_PERIOD_US // 100
        try:
            if self.version == 2:
                write_text(self._file("cpu", "cpu.max"), f"{quota} {_CFS_PERIOD_US}")
            else:
                write_text(self._file("cpu", "cpu.cfs_period_us"), str(_CFS_PERIOD_US))
                write_text(self._file("cpu", "cpu.cfs_quota_us"), str(quota))
        except OSError:
            return False
        return True

    def attach(self, pid: int) -> None:
        """Move ``pid`` (the bot, before it runs) into the cgroup(s)."""
        for folder in set(self.folders.values()):
            write_text(os.path.join(folder, "cgroup.procs"), str(pid))

    def _counter(self, controller: str, name: str, key: str) -> int:
        text = (read_bytes(self._file(controller, name)) or b"").decode(errors="replace")
        for line in text.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == key:
                return int(parts[1])
        return 0

    def oom_kills(self) -> int:
        """Processes the kernel killed at the memory limit."""
        if self.version == 2:
            return self._counter("memory", "memory.events", "oom_kill")
        return self._counter("memory", "memory.oom_control", "oom_kill")

    def fork_refusals(self) -> int:
        """Forks refused at the process limit."""
        return self._counter("pids", "pids.events", "max")

    def cpu_seconds(self) -> float:
        if self.version == 2:
            return self._counter("cpu", "cpu.stat", "usage_usec") / 1e6
        if "cpuacct" not in self.folders:
            return 0.0
        usage = read_bytes(self._file("cpuacct", "cpuacct.usage"))
        return int(usage or 0) / 1e9

    def memory_bytes(self) -> int:
        name = "memory.current" if self.version == 2 else "memory.usage_in_bytes"
        return int(read_bytes(self._file("memory", name)) or 0)

    def pids(self) -> list[int]:
        text = read_bytes(self._file("pids", "cgroup.procs")) or b""
        return [int(p) for p in text.split()]

    def freezer(self) -> tuple[str, int] | None:
        """(the file that freezes and thaws the bot, its cgroup version), or None."""
        if UNIFIED in self.folders:
            path, version = self._file(UNIFIED, "cgroup.freeze"), 2
        elif "freezer" in self.folders:
            version = self.version
            path = self._file("freezer", "cgroup.freeze" if version == 2 else "freezer.state")
        else:
            return None
        return (path, version) if os.path.exists(path) else None

    def thaw(self) -> None:
        """Let the bot run again (a v1 frozen task cannot even die until thawed)."""
        found = self.freezer()
        if found is not None:
            with suppress(OSError):
                write_text(found[0], THAW[found[1]])

    def kill_all(self) -> None:
        """SIGKILL every process in the cgroup until none is left."""
        self.thaw()
        v2 = self.folders.get(UNIFIED) or (self.folders["pids"] if self.version == 2 else "")
        if v2 and os.path.exists(os.path.join(v2, "cgroup.kill")):
            with suppress(OSError):
                write_text(os.path.join(v2, "cgroup.kill"), "1")
        kill_until_gone(self.pids, tries=50, pause_s=0.01)

    def remove(self) -> None:
        for folder in set(self.folders.values()):
            for _ in range(50):
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    reap()
                    time.sleep(0.02)


def _sweep(version: int, parents: dict[str, str]) -> None:
    """Remove the empty cgroups of referees that died (``r<pid>-<n>``, pid gone); thaw the rest.

    A bot dies with its supervisor; but one frozen in cgroup v1 when its supervisor was
    killed cannot die until it is thawed (its SIGKILL stays pending), which this does.
    Thawing, not killing: a pid that is not in our /proc may be a live referee's in
    another pid namespace.
    """
    dead: set[str] = set()
    for parent in set(parents.values()):
        try:
            names = os.listdir(parent)
        except OSError:
            continue
        for name in names:
            pid = name[1:].partition("-")[0]
            if name.startswith("r") and pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
                dead.add(name)
    for name in dead:
        group = Cgroup(version, {c: os.path.join(p, name) for c, p in parents.items()})
        group.thaw()
        for folder in set(group.folders.values()):
            with suppress(OSError):
                os.rmdir(folder)  # only if empty


def freezer_support() -> str:
    """'' if bots' cgroups here have a freezer, else why not (for the journal's warning)."""
    missing = cgroup_support()
    found = None if missing else Cgroup.parents()
    if found is None:
        return missing or "no cgroups"
    if "freezer" not in found[1] and UNIFIED not in found[1]:
        return "the cgroup v1 freezer controller is not mounted"
    return ""


def cgroup_support() -> str:
    """'' if bots can be given cgroups here, else why not (for the journal's warning)."""
    found = Cgroup.parents()
    if found is not None:
        return ""
    own = _own_cgroups()
    if not own:
        return "this system has no control groups"
    return (
        "no writable cgroup with the memory and pids controllers "
        "(cgroup v2 with them delegated to this user, or v1 as root)"
    )


def reap(bot: int = 0) -> int | None:
    """Reap every child that has ended; return ``bot``'s wait status if it was one of them.

    As a subreaper the supervisor adopts the bot's orphans and must reap them, but
    ``waitpid(-1)`` reaps the bot too when it ends at that moment: its status would
    be lost (a crash with code 3 reported as code 0) unless handed back.
    """
    found = None
    with suppress(ChildProcessError):
        while True:
            done, status = os.waitpid(-1, os.WNOHANG)
            if not done:
                break
            if done == bot:
                found = status
    return found


def kill_until_gone(members: Callable[[], Iterable[int]], *, tries: int, pause_s: float) -> None:
    """SIGKILL every pid ``members()`` lists, reaping and looking again, until it lists none."""
    for _ in range(tries):
        pids = set(members())
        if not pids:
            return
        for pid in pids:
            with suppress(ProcessLookupError):
                os.kill(pid, _signal.SIGKILL)
        reap()
        time.sleep(pause_s)
