"""Fair play III, hole 4: bots are frozen between their calls once they use the CPU there.

Freezing every bot after every call cost each decision a quarter of its time;
a bot idle between its calls cannot take CPU from its opponents, so the
referee watches each bot's cgroup CPU time between its calls and freezes only
a bot that used more than its credit (:mod:`referee.sandbox.freezer`): each
period between calls earns ``ALLOWANCE_NS`` plus ``IDLE_SHARE`` of a core, kept
up to ``CREDIT_NS``; after a start's first ``WATCH_FIRST`` periods only a random
``WATCH_SHARE`` of them is watched. The rule, exactly (a bot's periods played on
fake clocks, every one watched unless a test says otherwise):
within the allowances a bot is never frozen, however long the run; a few
microseconds over them in every period and it is frozen once they add up to
the credit; a burst up to the credit is forgiven once the credit has refilled,
one nanosecond more is not; a period not watched counts for nothing, and which
are watched is drawn privately, a quarter of them. The attacks:

- a late hog: innocent for its first decisions, it starts spinning on every
  core at its 10th. It is frozen between its calls within a few calls (the
  first watched period after it began), the journal's games are charged no
  faults, its cgroup uses no CPU while an honest bot is asked from then on,
  and its spinners got a fraction of a core over the game (a few periods
  unfrozen, then only its own calls);
- a bot that ponders between its calls, each period ended by the test once it
  used 0.5 ms more than its allowance (as close to the rule as it dares), is
  frozen within the periods its credit lasts;
- an idle bot is never frozen, however many calls and however long the waits.
"""

from __future__ import annotations

import os
import pathlib
import re
import sys
import time
from collections.abc import Callable, Iterator

import pytest

from referee.pb.hearts.v1 import hearts_pb2 as pb
from referee.players import LaunchedBot
from referee.players.launcher import CpuMode
from referee.players.policy import Limits
from referee.sandbox.freezer import (
    ALLOWANCE_NS,
    CREDIT_NS,
    IDLE_SHARE,
    WATCH_FIRST,
    WATCH_SHARE,
    CpuClock,
    Freezer,
)
from tests.fairplay.test_cpu_isolation import (  # noqa: F401 (hog_share: a fixture)
    BOT,
    HogShare,
    a_key,
    cgroup_of,
    faults,
    handshake,
    hog_share,
    is_frozen,
    play,
    require_freezer,
    write_run,
)
from tests.helpers import (  # noqa: F401 (launched_pids: an autouse fixture)
    launched_pids,
    wait_no_processes_in,
)

#: The hog's decision at which it starts spinning.
HOG_AFTER = 10
#: Games long enough (about 150 honest decisions) that the one period the hog runs
#: unfrozen, which does slow the few honest decisions in it, is diluted as in a tournament.
RULES = "rules: {target_score: 50}"


def test_the_cpu_clock_reads_both_cgroup_versions(tmp_path: pathlib.Path) -> None:
    v1, v2 = tmp_path / "cpuacct.usage", tmp_path / "cpu.stat"
    v1.write_text("123456789\n")
    v2.write_text("usage_usec 1234\nuser_usec 1000\nsystem_usec 234\n")
    one, two = CpuClock(str(v1), 1), CpuClock(str(v2), 1000)
    try:
        assert one.ns() == 123_456_789 and two.ns() == 1_234_000
        v2.write_text("usage_usec 5678\nuser_usec 5000\n")  # read again from the open file
        assert two.ns() == 5_678_000
        v1.write_text("garbage\n")
        assert one.ns() is None  # never a made-up figure
    finally:
        one.close()
        two.close()
    assert one.ns() is None


class FakeCpu(CpuClock):
    """A CPU clock the test sets."""

    def __init__(self) -> None:  # no file
        self.ns_now = 0

    def ns(self) -> int | None:
        return self.ns_now

    def close(self) -> None:
        pass


class Periods:
    """One bot's periods between calls, played on fake clocks through a real Freezer.

    ``watch``: whether a period after the first ``WATCH_FIRST`` is watched (default: all;
    None: the freezer's own draw).
    """

    def __init__(self, watch: Callable[[], bool] | None = lambda: True) -> None:
        self.now, self.cpu = 0, FakeCpu()
        self.freezer = Freezer(os.devnull, 2, self.cpu, wall=lambda: self.now, watch=watch)
        self.freezer.answered()  # watched from its handshake on
        self.played = 0

    def period(self, wall_ns: int, cpu_ns: int) -> bool:
        """One more period of ``wall_ns`` in which the bot used ``cpu_ns``: True if caught."""
        self.now += wall_ns
        self.cpu.ns_now += cpu_ns
        caught = self.freezer.asked()
        self.freezer.answered()
        self.played += 1
        assert not caught or caught == cpu_ns  # the CPU of the period that tipped it, reported
        return bool(caught)

    def close(self) -> None:
        self.freezer.close()


def allowance(wall_ns: int) -> int:
    return ALLOWANCE_NS + int(wall_ns * IDLE_SHARE)


def test_a_bot_within_its_allowances_is_never_frozen() -> None:
    bot = Periods()
    try:
        for n in range(30_000):  # short and long periods, each used to the nanosecond
            wall = (3_000_000, 40_000_000, 700_000_000)[n % 3]
            assert not bot.period(wall, allowance(wall)), n
    finally:
        bot.close()


def test_a_bot_just_over_its_allowances_is_frozen_once_its_credit_is_used() -> None:
    over = 100_000  # 0.1 ms too many in every period of 3 ms
    bot = Periods()
    try:
        while not bot.period(3_000_000, allowance(3_000_000) + over):
            assert bot.played <= CREDIT_NS // over
        assert bot.played == CREDIT_NS // over + 1 and bot.freezer.freezing
    finally:
        bot.close()


def test_a_burst_is_forgiven_once_the_credit_refilled_but_never_more() -> None:
    wall = 3_000_000
    burst = CREDIT_NS + allowance(wall)  # the whole credit in one period (a GC, say)
    bot = Periods()
    try:
        assert not bot.period(wall, burst)
        assert bot.freezer.credit_ns == 0
        while bot.freezer.credit_ns < CREDIT_NS:  # idle periods earn it back, up to its cap
            assert not bot.period(wall, 0)
        assert bot.played == 1 + -(-CREDIT_NS // allowance(wall))
        for _ in range(1000):  # however long it waits, it keeps no more than the cap
            assert not bot.period(wall, 0)
        assert not bot.period(wall, burst)
        while bot.freezer.credit_ns < CREDIT_NS:
            assert not bot.period(wall, 0)
        assert bot.period(wall, burst + 1)  # one nanosecond more than it may keep
    finally:
        bot.close()


def test_a_hog_on_every_core_is_frozen_after_its_first_period() -> None:
    bot = Periods()
    try:
        for _ in range(10):
            assert not bot.period(3_000_000, 50_000)  # innocent at first
        assert bot.period(CREDIT_NS, 2 * CREDIT_NS)  # then two cores for a whole credit's time
    finally:
        bot.close()


def test_a_period_not_watched_counts_for_nothing() -> None:
    draws: Iterator[bool] = iter([False, False, True])
    bot = Periods(watch=lambda: next(draws))
    try:
        for _ in range(WATCH_FIRST):  # a start's first periods are all watched, never drawn
            assert not bot.period(3_000_000, 0)
        assert bot.freezer.watched == WATCH_FIRST
        # Two periods not watched: spinning in them is not seen (nor does idling earn) ...
        assert not bot.period(CREDIT_NS, 2 * CREDIT_NS)
        assert not bot.period(CREDIT_NS, 2 * CREDIT_NS)
        assert bot.freezer.credit_ns == CREDIT_NS and not bot.freezer.freezing
        # ... the third is watched: the same spinning there is caught.
        assert bot.period(CREDIT_NS, 2 * CREDIT_NS) and bot.freezer.freezing
        assert (bot.freezer.periods, bot.freezer.watched) == (WATCH_FIRST + 3, WATCH_FIRST + 1)
    finally:
        bot.close()


def test_a_quarter_of_the_later_periods_is_watched_drawn_apart_for_each_bot() -> None:
    later = 20_000
    seen = []
    for _ in range(2):
        bot = Periods(watch=None)  # the freezer's own draw
        try:
            for _ in range(WATCH_FIRST + later):
                bot.period(3_000_000, 0)
            seen.append(bot.freezer.watched - WATCH_FIRST)
        finally:
            bot.close()
    # Binomial(20,000, 1/4): a standard deviation of 61 periods; 6 of them either side.
    assert all(abs(n - later * WATCH_SHARE) < 370 for n in seen), seen
    # Each freezer draws its own: a pondering bot cannot learn one bot's draws from another's.
    first, second = (_draws(Freezer(os.devnull, 2, FakeCpu())) for _ in range(2))
    assert first != second  # they agree with a chance of 0.625 ** 64 = 1e-13


def _draws(freezer: Freezer, n: int = 64) -> list[bool]:
    try:
        return [freezer._watch() for _ in range(n)]
    finally:
        freezer.close()


def test_a_hog_spinning_past_the_first_periods_is_caught_within_a_few_of_them() -> None:
    """Spinning in every period from the first not always watched: caught in 16 or fewer
    with a chance of 99% (``0.75 ** 16``); over 2,000 such bots, after four on average."""
    spun = []
    for _ in range(2000):
        bot = Periods(watch=None)
        try:
            for _ in range(WATCH_FIRST):
                assert not bot.period(3_000_000, 50_000)
            n = 1
            while not bot.period(CREDIT_NS, 2 * CREDIT_NS):
                n += 1
            spun.append(n)
        finally:
            bot.close()
    mean = sum(spun) / len(spun)  # geometric: mean 4, standard deviation 3.5 / sqrt(2000)
    assert 3.5 < mean < 4.5, mean
    assert sum(n > 16 for n in spun) < 2000 * 0.02, sorted(spun)[-40:]


#: How much more than its allowance the boundary attacker takes in each period.
OVER_NS = CREDIT_NS // 40


@pytest.mark.slow
def test_a_bot_just_over_its_allowance_between_calls_is_frozen(tmp_path: pathlib.Path) -> None:
    require_freezer()
    trickle = pathlib.Path(__file__).resolve().parent / "bots" / "trickle.py"
    bot = LaunchedBot(
        "trickle",
        [sys.executable, str(trickle), "--address", "{address}"],
        log_dir=tmp_path / "bots",
        limits=Limits().to_dict(),
        max_restarts=0,
    )
    # Its credit lasts CREDIT_NS / OVER_NS = 40 watched periods at most: the first WATCH_FIRST,
    # then a quarter of the rest. 400 more hold 100 watched on average, and fewer than 40 with
    # a chance below 1e-10 (binomial: a standard deviation of 8.7).
    most = WATCH_FIRST + 400
    assert (most - WATCH_FIRST) * WATCH_SHARE >= 2.5 * (CREDIT_NS // OVER_NS)
    try:
        bot.start()
        group = cgroup_of(bot)
        for _ in range(most):
            bot.call("StartGame", pb.StartGameRequest(game_id="g"), 10.0)
            if bot.frozen_because:
                break
            # The period ends once the pondering bot used just over its allowance for it (the
            # freezer's period holds this one), however slowly the load lets it compute.
            since, cpu = time.monotonic_ns(), group.cpu_seconds()
            while time.monotonic_ns() - since < 5_000_000_000:
                wall = time.monotonic_ns() - since
                if (group.cpu_seconds() - cpu) * 1e9 > allowance(wall) + OVER_NS:
                    break
                time.sleep(0.0005)
        assert bot.runs_only_when_asked, f"not frozen after {most} periods"
        assert is_frozen(group)  # between its calls, from now on
        log = bot.stderr_path.read_text()
        assert "--- referee: it used" in log and "frozen between its calls from now on" in log
    finally:
        bot.close()


@pytest.mark.slow
def test_an_idle_bot_is_never_frozen(tmp_path: pathlib.Path) -> None:
    require_freezer()
    bot = LaunchedBot(
        "idle",
        [sys.executable, str(BOT), "--address", "{address}", "--mode", "idle"],
        log_dir=tmp_path / "bots",
        limits=Limits().to_dict(),
        max_restarts=0,
    )
    try:
        bot.start()
        assert bot.cpu_mode == CpuMode.FREEZE
        group = cgroup_of(bot)
        for wait_s in (0.0, 0.001, 0.01, 0.2, 1.0) * 4:  # quick calls and long waits
            handshake(bot)
            time.sleep(wait_s)
        assert not bot.frozen_because and not bot.runs_only_when_asked
        assert is_frozen(group, False, wait_s=0)
        assert "frozen between its calls" not in bot.stderr_path.read_text()
        # Frozen between its calls on demand (what bench/freezing.py measures), thawed for them.
        bot.freeze_between_calls("asked to")
        assert bot.runs_only_when_asked and bot.frozen_because == "asked to"
        assert is_frozen(group)
        handshake(bot)
        assert is_frozen(group)
    finally:
        bot.close()


@pytest.mark.slow
def test_a_hog_that_starts_late_is_frozen_within_a_few_calls(
    tmp_path: pathlib.Path,
    hog_share: list[HogShare],  # noqa: F811 (the fixture imported above)
) -> None:
    """Caught once it spins, and from then on its spinners get nothing while others think.

    Asserted by its cause, as test_cpu_isolation's frozen hog is (a speed within 15% of a
    control's failed at a load of 40 on a 20 ms decision): around every honest decision
    asked once the hog is caught, its cgroup's CPU is read.
    """
    require_freezer()
    key = a_key(tmp_path)
    hog_share.append(HogShare())
    # The games in this process, where LaunchedBot.call is wrapped (see hog_share).
    run = long_run(tmp_path / "late", key, f"hog --hog-after {HOG_AFTER}")
    run.write_text(run.read_text() + "bot_processes: per_table\n")
    out = play(run, key)
    assert not faults(out), faults(out)
    said = [
        line
        for log in out.glob("bots/**/x.stderr.log")
        for line in log.read_text().splitlines()
        if line.startswith(("hog: ", "--- referee: it used"))
    ]
    share = hog_share[-1]
    print(f"late hog: {share}", file=sys.stderr)
    # Innocent at first (not frozen from the start), it was caught after it began to spin ...
    caught = [line for line in said if "frozen between its calls from now on" in line]
    assert len(caught) == 1, said
    calls = re.search(r"between its calls (\d+) and (\d+)", caught[0])
    assert calls and int(calls[1]) >= HOG_AFTER, caught[0]
    assert f"hog: {(os.cpu_count() or 2) + 1} spinners" in said, said  # the attack ran
    # ... and from then on its spinners got nothing while the honest bots thought (but the
    # moment a freeze takes to reach every spinner), and a share of a core over the game: the
    # periods until a watched one (four on average, 16 or fewer with a chance of 99%: 0.13 to
    # 0.48 of a core over ten runs, measured, the most in the shortest game), then only its
    # own calls. Its 3 spinners unfrozen get both cores (a pondering hog's do).
    assert share.decisions > 50 and share.cores < 0.005, share
    cores = [float(line.split()[-2]) for line in said if line.startswith("hog: spinners got ")]
    assert cores and max(cores) < 1.0, said
    assert not wait_no_processes_in(tmp_path)


def long_run(folder: pathlib.Path, key: pathlib.Path, mode: str) -> pathlib.Path:
    path = write_run(folder, key, mode)
    path.write_text(path.read_text().replace("rules: {target_score: 20}", RULES))
    return path
