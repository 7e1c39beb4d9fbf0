"""Freezing a launched bot between its calls, once it uses the CPU there.

A bot runs only while it is asked: between its calls it may not take the CPU
its opponents need for their own decisions. Freezing every bot after every
call does that, but costs each decision the freeze and the thaw, the wake-up
of every thread of the bot after the thaw, and passes asked one seat at a
time (+25% per decision, measured). Most bots are idle between their calls
anyway, and a bot that is idle cannot steal CPU it does not use.

So a :class:`Freezer` watches first and freezes only a bot that uses the CPU
between its calls: it reads the bot cgroup's CPU time (:class:`CpuClock`,
its file kept open and read with ``pread``: 5 us, measured on a loaded
machine) when the bot's answer arrives and again when its next call starts.
Each period between two calls earns the bot :data:`ALLOWANCE_NS` (a gRPC
server finishing its reply) plus :data:`IDLE_SHARE` of a core over the period
(its timers) of *credit*, kept up to :data:`CREDIT_NS`; what it used in the
period is taken off. Once its credit is below zero, the bot is frozen between
its calls from then on, for good (its later starts too: the launcher passes
``freezing=True``).

The credit, rather than an allowance per period and a grace for the whole run,
because an honest bot's CPU between its calls comes in rare bursts (measured,
sandboxed sample bots at load 20: Python's gRPC ``event_engine`` thread, 80%
of it; a Go bot's garbage collector; up to 2.7 ms in one period, and up to
10 ms in one period of an earlier quiet run, 30.6 ms in a CI run at load 12), while it averages 0.4% of a core:
a grace that never refills is used up by such bursts in a long enough run, so
every bot ended up frozen. The credit refills; the bound is the same, counted
over the periods watched (below):

- a bot that stays within the allowances takes at most :data:`ALLOWANCE_NS`
  and :data:`IDLE_SHARE` of a core from each period, on average;
- beyond them, at most :data:`CREDIT_NS` in all before it is frozen: a hog is
  caught at the start of the first call after its spinners used the credit
  (the first watched period in which it spun, if it spun on more than
  ``CREDIT_NS`` of CPU there).

Watching costs the referee two reads of the clock per call: 27 of the 30 us a
cold call of the freezer took (measured alone, each call 1 ms after the last, as
in a game: a cold ``pread`` of a cgroup file is 6-8 us here), 2% of a decision.
So not every period is watched: the first :data:`WATCH_FIRST`
of each start are, and after them each period is with the chance
:data:`WATCH_SHARE`, drawn when the bot's answer is in from a generator seeded
by ``os.urandom`` that the bot can neither see nor seed. Only watched periods
earn or spend credit. A bot cannot tell a watched period from another (the
referee reads a file outside its sandbox), so a hog that spins in some periods
is caught in the first watched one whose spinning takes it past its credit:
after ``1 / WATCH_SHARE`` such periods on average, and 16 or fewer with a
chance of 99% (``0.75 ** 16 = 1%``); a bot that spins from its start is caught
as before, at its first call.

Where the bot's CPU time cannot be read, it is frozen from the start, as before.
"""

from __future__ import annotations

import contextlib
import os
import random
import time
from collections.abc import Callable

from referee.sandbox.cgroups import UNIFIED, Cgroup

__all__ = [
    "ALLOWANCE_NS",
    "CREDIT_NS",
    "IDLE_SHARE",
    "WATCH_FIRST",
    "WATCH_SHARE",
    "CpuClock",
    "Freezer",
]

#: The credit each period between a bot's calls earns it: what an idle gRPC server
#: uses after its answer has been sent (finishing the reply; a median of 0.05-0.15 ms
#: per period for the Python and Go sample bots, measured) ...
ALLOWANCE_NS = 1_000_000
#: ... plus this share of a core over the period (an idle gRPC server's timers wake it:
#: 0.8 ms a second for Python's, measured), so that a long wait does not look busy.
IDLE_SHARE = 0.02
#: The most credit a bot keeps (and starts with): twice the largest burst seen in one
#: period of an honest bot (30.6 ms: the idle test bot, in a CI run of the whole suite at
#: a load of about 12; 10 ms before, in a quiet run of the sample bots). A bot whose CPU
#: between its calls takes it below zero is frozen between its calls from then on.
CREDIT_NS = 60_000_000
#: Every period of a start's first this many is watched (a bot that spins from its start is
#: caught at its first call, as when every period was) ...
WATCH_FIRST = 8
#: ... and each later period with this chance: a quarter of the clock reads, for a hog
#: caught after four of its spinning periods on average.
WATCH_SHARE = 0.25


def _private_draw() -> Callable[[], bool]:
    """Whether to watch the next period: a generator of its own, seeded from ``os.urandom``.

    Its own, not the ``random`` module's shared one (which any code in the referee's
    process may seed), and one per freezer, so that forked workers do not share it.
    """
    draw = random.Random(os.urandom(16)).random
    return lambda: draw() < WATCH_SHARE


class CpuClock:
    """The CPU time of one bot cgroup so far, through its accounting file kept open."""

    def __init__(self, path: str, unit_ns: int) -> None:
        self.path = path
        #: Nanoseconds per unit of the file (v1 ``cpuacct.usage``: 1; v2 ``usage_usec``: 1000).
        self.unit_ns = unit_ns
        self._fd: int | None = os.open(path, os.O_RDONLY | os.O_CLOEXEC)

    @classmethod
    def of(cls, group: Cgroup) -> CpuClock | None:
        """The clock of ``group``: v1's ``cpuacct.usage``, else v2's ``cpu.stat``; or None."""
        candidates = []
        if group.version == 1 and "cpuacct" in group.folders:
            candidates.append((os.path.join(group.folders["cpuacct"], "cpuacct.usage"), 1))
        v2 = group.folders.get(UNIFIED) or (group.folders.get("cpu") if group.version == 2 else "")
        if v2:
            candidates.append((os.path.join(v2, "cpu.stat"), 1000))
        for path, unit in candidates:
            with contextlib.suppress(OSError):
                clock = cls(path, unit)
                if clock.ns() is not None:
                    return clock
                clock.close()
        return None

    def ns(self) -> int | None:
        """CPU nanoseconds the cgroup's tasks used so far, or None once the cgroup is gone."""
        if self._fd is None:
            return None
        try:
            text = os.pread(self._fd, 128, 0)
        except OSError:
            return None
        if self.unit_ns == 1:
            first = text.strip()
        else:  # cpu.stat starts with "usage_usec N"
            key, _, rest = text.partition(b" ")
            first = rest.partition(b"\n")[0] if key == b"usage_usec" else b""
        return int(first) * self.unit_ns if first.isdigit() else None

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None


class Freezer:
    """Freezes and thaws one bot's cgroup between its calls, once it uses CPU there.

    The referee holds one per launched bot's start and calls :meth:`asked`
    when the first call in flight to the bot starts and :meth:`answered` when
    the last one ends (its answer or its deadline is in). Freezing is
    asynchronous (the kernel stops the tasks as they next run); thawing takes
    effect at once. The freezer file is kept open (cheap per call).

    ``watch`` says whether a period after the first :data:`WATCH_FIRST` is watched
    (default: :data:`WATCH_SHARE` of them, drawn privately; see the module).
    """

    #: What the freezer file is written, by cgroup version.
    FREEZE: dict[int, bytes] = {2: b"1", 1: b"FROZEN"}  # noqa: RUF012 (constants)
    THAW: dict[int, bytes] = {2: b"0", 1: b"THAWED"}  # noqa: RUF012

    def __init__(
        self,
        path: str,
        version: int,
        clock: CpuClock | None = None,
        *,
        freezing: bool = False,
        wall: Callable[[], int] = time.monotonic_ns,
        watch: Callable[[], bool] | None = None,
    ) -> None:
        self.path = path
        self.version = version
        self._fd: int | None = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
        self._clock = clock
        self._wall = wall  # nanoseconds of a monotonic clock (tests pass their own)
        #: Whether a period after the first WATCH_FIRST is watched (tests pass their own).
        self._watch = watch if watch is not None else _private_draw()
        #: True once the bot is frozen between its calls (from the start without a clock).
        self.freezing = freezing or clock is None
        #: The bot's calls so far (of this start), and its CPU credit (see the module).
        self.calls = 0
        self.credit_ns = CREDIT_NS
        #: The lowest its credit has been: how close it came to being frozen.
        self.lowest_ns = CREDIT_NS
        #: Its periods between calls so far, and how many of them were watched.
        self.periods = 0
        self.watched = 0
        self._idle_from: int | None = None
        self._idle_since = 0

    @classmethod
    def of(cls, name: str, *, freezing: bool = False) -> Freezer | None:
        """The freezer of the bot cgroup ``name`` made by a supervisor, or None if it has none.

        ``freezing``: frozen between calls from the start (a bot caught before).
        """
        group = Cgroup.named(name)
        if group is None:
            return None
        where = group.freezer()
        if where is None:
            return None
        clock = CpuClock.of(group)
        try:
            return cls(*where, clock, freezing=freezing)
        except OSError:
            if clock is not None:
                clock.close()
            return None

    def asked(self) -> int:
        """The bot is asked: thaw it, or measure its last period between calls.

        Returns the CPU nanoseconds it used in that period if they make it frozen
        between its calls from now on (the caller reports it), else 0.
        """
        self.calls += 1
        if self.freezing:
            self.thaw()
            return 0
        if self._idle_from is None:  # a period not watched
            return 0
        now = self._clock.ns() if self._clock is not None else None
        idle_from, self._idle_from = self._idle_from, None
        if now is None:
            return 0
        used = now - idle_from
        earned = ALLOWANCE_NS + int((self._wall() - self._idle_since) * IDLE_SHARE)
        self.credit_ns = min(CREDIT_NS, self.credit_ns + earned - used)
        self.lowest_ns = min(self.lowest_ns, self.credit_ns)
        if self.credit_ns >= 0:
            return 0
        self.freezing = True  # frozen when this call is answered
        return max(used, 1)

    def answered(self) -> None:
        """The bot's answer (or its deadline) is in: freeze it, or maybe watch its CPU."""
        if self.freezing:
            self.freeze()
        elif self._clock is not None:
            self.periods += 1
            if self.periods <= WATCH_FIRST or self._watch():
                self.watched += 1
                self._idle_from = self._clock.ns()
                self._idle_since = self._wall()

    def _set(self, value: bytes) -> bool:
        if self._fd is None:
            return False
        try:
            os.write(self._fd, value)
        except OSError:
            return False  # the cgroup is gone (the bot ended): nothing left to freeze
        return True

    def freeze(self) -> bool:
        return self._set(self.FREEZE[self.version])

    def thaw(self) -> bool:
        return self._set(self.THAW[self.version])

    def close(self) -> None:
        """Thaw for good and let go of the files (before the bot is stopped)."""
        self.thaw()
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None
        if self._clock is not None:
            self._clock.close()
