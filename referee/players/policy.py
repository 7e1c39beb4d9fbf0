"""The terms a bot plays under: its clock, the fault policy, its limits: fixed before play, recorded in every log.

:class:`TimeControl` and :class:`FaultPolicy` are applied by the match runner
(:mod:`referee.match.runner`) and the players (start-up and notification
timeouts, restarts, message sizes); :class:`Limits` and :class:`BuildLimits`
by the sandbox's supervisor (:mod:`referee.sandbox.supervisor`) to a launched
bot and to a build. Each is a frozen, validated value of non-negative
integers. They live with the players, below the match, because both the
players and the match runner read them.
"""

from __future__ import annotations

import dataclasses

__all__ = ["BuildLimits", "FaultPolicy", "Limits", "TimeControl"]

_HOUR_MS = 3600 * 1000
_TIB = 1024**4


class _Settings:
    """Settings that are non-negative integers (or, listed in ``_flags``, booleans), checked."""

    __slots__ = ()
    #: Shown after "a non-negative integer" in errors, e.g. " (ms)".
    _unit = ""
    #: The largest value of each field: far above any sensible setting, far below a hang.
    _maximum: dict[str, int] = {}  # noqa: RUF012 (a constant of the class, not a field)
    #: The fields that are true or false rather than integers.
    _flags: frozenset[str] = frozenset()

    @classmethod
    def maximum(cls, name: str) -> int:
        """The largest value the field ``name`` accepts."""
        return cls._maximum[name]

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if f.name in self._flags:
                if not isinstance(value, bool):
                    raise ValueError(f"{f.name} must be true or false, not {repr(value)[:30]}")
                continue
            top = self._maximum[f.name]
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= top:
                shown = repr(value) if len(repr(value)) < 40 else f"{repr(value)[:30]}..."
                raise ValueError(f"{f.name} must be an integer 0 to {top}{self._unit}, not {shown}")

    def to_dict(self) -> dict[str, int]:
        """The fields; a flag (a bool) only when true, so that older records keep their form."""
        out = dataclasses.asdict(self)  # type: ignore[call-overload]
        return {k: v for k, v in out.items() if k not in self._flags or v}


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class TimeControl(_Settings):
    """How long a bot may take, as measured by the referee.

    A decision may take ``move_time_ms`` for free; with a time bank, the
    overrun of an answer is charged to the seat's bank for the game
    (Kaggle-style), and an answer later than ``move_time_ms`` plus what is left
    of the bank plus ``grace_ms`` is a timeout.
    """

    #: Free time per decision.
    move_time_ms: int = 1000
    #: Per-game bank per seat; 0 for none.
    time_bank_ms: int = 0
    #: Allowance for transport jitter, never told to the bot.
    grace_ms: int = 100
    #: Deadline of the notification RPCs (StartGame, DealHand, EndHand, EndGame).
    notify_timeout_ms: int = 1000
    #: How long a launched bot may take to start serving (health SERVING).
    startup_timeout_ms: int = 30000

    _unit = " (ms)"
    _maximum = {  # noqa: RUF012
        "move_time_ms": _HOUR_MS,
        "time_bank_ms": 24 * _HOUR_MS,
        "grace_ms": 60_000,
        "notify_timeout_ms": _HOUR_MS,
        "startup_timeout_ms": _HOUR_MS,
    }

    def __post_init__(self) -> None:
        _Settings.__post_init__(self)  # not super(): slots=True makes a new class
        if self.move_time_ms == 0:
            raise ValueError("move_time_ms must be positive")


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class FaultPolicy(_Settings):
    """What the referee does about faults.

    Every fault gets a fallback move (a seeded choice among the legal moves),
    so the game goes on. After ``max_faults`` faults in one game the seat is
    played by the fallback for the rest of the game and has forfeited it.
    """

    #: Faults in one game after which the seat forfeits; 0 never forfeits.
    max_faults: int = 5
    #: Restarts allowed per launched bot process over a whole run.
    max_restarts: int = 3
    #: Largest message accepted from a bot, in bytes.
    max_message_bytes: int = 64 * 1024

    _maximum = {  # noqa: RUF012
        "max_faults": 1_000_000,
        "max_restarts": 1_000_000,
        "max_message_bytes": 64 * 1024**2,
    }

    def __post_init__(self) -> None:
        _Settings.__post_init__(self)  # not super(): slots=True makes a new class
        if self.max_message_bytes < 1024:
            raise ValueError("max_message_bytes must be at least 1024")


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Limits(_Settings):
    """Resource limits of a launched bot, enforced by referee/sandbox/supervisor.py; 0 is no limit.

    Memory, CPU time and processes count the bot and everything it spawns
    (in a cgroup of its own where the machine allows, which also counts its
    tmpfs, shared memory and orphans); a bot over a limit is stopped, recorded
    with a fault of that kind (``memory_limit``, ``cpu_limit``,
    ``process_limit``) and restarted within the restart budget. Output beyond
    ``output_bytes`` per stream file is dropped (the bot goes on).

    A bot runs only while the referee waits for one of its answers (its cgroup
    is frozen in between) unless ``ponder`` is true; where it cannot be frozen
    it gets a CPU quota (see :mod:`referee.players.launcher`).
    """

    #: Resident memory of the bot and its children together.
    memory_bytes: int = 2 * 1024**3
    #: CPU seconds over the life of one bot process (and its children).
    cpu_seconds: int = 3600
    #: Processes and threads of the bot and its children together.
    processes: int = 512
    #: Open files per process (RLIMIT_NOFILE).
    open_files: int = 1024
    #: Size of each captured output file (stdout, stderr).
    output_bytes: int = 10 * 1024**2
    #: Address space per process (RLIMIT_AS); off by default, as the JVM, V8
    #: and Go reserve far more address space than they use.
    address_space_bytes: int = 0
    #: Size of a sandboxed bot's private tmpfs (its HOME and TMPDIR), and of
    #: its /dev/shm; what it writes there also counts towards ``memory_bytes``.
    disk_bytes: int = 256 * 1024**2
    #: CPU share as a percentage of one core (cgroup CPU quota); 0 for no cap (but a bot
    #: that cannot be frozen gets one core).
    cpu_percent: int = 0
    #: Let bots run (think) while their opponents are asked, instead of freezing them.
    ponder: bool = False

    _maximum = {  # noqa: RUF012
        "memory_bytes": _TIB,
        "cpu_seconds": 366 * 24 * 3600,
        "processes": 4 * 1024**2,
        "open_files": 1024**2,
        "output_bytes": _TIB,
        "address_space_bytes": 128 * _TIB,
        "disk_bytes": _TIB,
        "cpu_percent": 100 * 1024,
    }
    _flags = frozenset({"ponder"})


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class BuildLimits(_Settings):
    """Resource limits of one sandboxed build (``build.limits``), enforced by referee/sandbox/supervisor.py.

    As a bot's (:class:`Limits`), they count the build and everything it
    spawns, in a cgroup of its own where the machine allows (which also gives
    each build an equal share of the CPU whatever its number of processes); a
    build over a limit is stopped and fails with the limit as its reason. The
    defaults are well above a bot's: compilers and package managers need
    more. 0 is no limit.
    """

    #: Resident memory of the build and its children together (and its tmpfs).
    memory_bytes: int = 4 * 1024**3
    #: Processes and threads of the build and its children together.
    processes: int = 1024
    #: CPU share as a percentage of one core (cgroup CPU quota); 0 for no cap beyond the
    #: equal share every build's cgroup gets.
    cpu_percent: int = 0
    #: Size of the build's output (its build log).
    output_bytes: int = 16 * 1024**2
    #: Size of the build's private /tmp and /dev/shm (tmpfs, counted in its memory).
    disk_bytes: int = 1024**3

    _maximum = {  # noqa: RUF012
        "memory_bytes": _TIB,
        "processes": 4 * 1024**2,
        "cpu_percent": 100 * 1024,
        "output_bytes": _TIB,
        "disk_bytes": _TIB,
    }
