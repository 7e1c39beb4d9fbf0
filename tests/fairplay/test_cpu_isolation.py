"""Fair play III, hole 4: a bot that burns every core while the others think (issue 23).

The attack: ``cpu.py --mode hog`` starts a spinning process per core (plus
one) and keeps them spinning for the whole tournament. The honest bots
(``--mode work``) do a fixed amount of CPU work per decision (about 20 ms).

- Frozen (the default): the hog's cgroup is frozen whenever the referee is
  not waiting for its answer once it was seen to use CPU between its calls
  (at its first call), so its spinners only ever spin while it is asked
  itself. The test asserts the cause, not a speed: around every decision
  asked of an honest bot the hog's cgroup CPU time is read, and it used
  none (a decision time compared with a control's would flake on a loaded
  machine, and how long freezing takes is bench/referee.py's to measure).
- The proof that the measurement sees the attack: with ``limits.ponder:
  true`` (bots run all the time) the same hog's spinners take cores' worth
  of CPU while the honest bots think.
- The fallback: with ``bot_processes: shared`` and a concurrency above 1 the
  bots cannot be frozen; the journal has a warning that says so, and the
  hog's CPU is capped by its quota (one core).

``Times`` and ``within`` (the honest bots' decision times against a control's)
serve tests/fairplay/test_freeze_on_use.py.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import secrets
import signal
import statistics
import sys
import time
from typing import Any

import pytest

from referee.folder import read_journal
from referee.match.gamelog import read_log
from referee.pb.hearts.v1 import hearts_pb2 as pb
from referee.players import BotFault, LaunchedBot
from referee.players.launcher import CpuMode
from referee.players.policy import Limits
from referee.protocol import PROTOCOL_VERSION
from referee.sandbox import cgroups
from referee.sandbox.freezer import CREDIT_NS, IDLE_SHARE
from referee.tournament import Tournament
from referee.tournament.config import ConfigError, load_config
from tests.helpers import (  # noqa: F401 (launched_pids: an autouse fixture)
    launched_pids,
    require_cgroups,
    require_sandbox,
    wait_no_processes_in,
)

pytestmark = pytest.mark.slow

BOT = pathlib.Path(__file__).resolve().parent / "bots" / "cpu.py"
HONEST = ("w1", "w2", "w3")
#: How much slower the honest bots may be with the hog than with its neutral twin.
TOLERANCE = 0.15


@dataclasses.dataclass
class Times:
    """The honest bots' decision times (ms) of one or more runs, by decision."""

    ms: dict[tuple[str, str], list[float]] = dataclasses.field(default_factory=dict)

    def add(self, out: pathlib.Path) -> None:
        for path in sorted(out.glob("games/**/*.jsonl.gz")):
            names: list[str] = []
            for _, record in read_log(path):
                if record["type"] == "game":
                    names = [seat["bot"] for seat in record["seats"]]
                elif (
                    record["type"] in ("pass", "play")
                    and record.get("ms") is not None
                    and names[record["seat"]] in HONEST
                    and record.get("source") == "bot"
                ):
                    key = (path.name, record["decision"])
                    self.ms.setdefault(key, []).append(float(record["ms"]))

    def merge(self, other: Times) -> None:
        for key, values in other.ms.items():
            self.ms.setdefault(key, []).extend(values)

    def per_decision(self) -> list[float]:
        """Each decision's median over the runs (the same decision in every run)."""
        return [statistics.median(v) for v in self.ms.values()]

    @property
    def mean(self) -> float:
        return statistics.fmean(self.per_decision())

    @property
    def p95(self) -> float:
        return statistics.quantiles(self.per_decision(), n=20)[-1]

    def __str__(self) -> str:
        return f"mean {self.mean:.1f} ms, p95 {self.p95:.1f} ms over {len(self.ms)} decisions"


def write_run(
    folder: pathlib.Path, key: pathlib.Path, mode: str, extra: str = "", target_score: int = 20
) -> pathlib.Path:
    """A tournament of three honest bots and ``mode`` (hog or idle) in seat ``x``: one game."""
    folder.mkdir(parents=True)
    honest = f'"{{python}} {BOT} --address {{address}} --mode work"'
    lines = [
        "name: cpu",
        "seed: 23",
        "bots:",
        *(f"  {name}: {honest}" for name in HONEST),
        f'  x: "{{python}} {BOT} --address {{address}} --mode {mode}"',
        f"rules: {{target_score: {target_score}}}",
        "schedule: {deal_sets: 1, duplicate: false}",
        "time_control: {move_time_ms: 10000, notify_timeout_ms: 10000}",
        "concurrency: 1",
        "output: out",
        extra,
    ]
    path = folder / "t.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def play(path: pathlib.Path, key: pathlib.Path) -> pathlib.Path:
    messages: list[str] = []
    result = Tournament(load_config(path), key_file=key, echo=messages.append).run()
    assert result.complete, messages
    return path.parent / "out"


def faults(out: pathlib.Path) -> dict[str, list[dict[str, int]]]:
    """Each game's faults by seat, where any were charged."""
    entries = read_journal(out / "journal.jsonl")
    return {e["game_id"]: e["faults"] for e in entries if e["type"] == "game" and any(e["faults"])}


def a_key(folder: pathlib.Path) -> pathlib.Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "key"
    path.write_text(secrets.token_hex(32) + "\n")
    path.chmod(0o600)
    return path


def times_of(folder: pathlib.Path, key: pathlib.Path, mode: str, extra: str = "") -> Times:
    out = play(write_run(folder, key, mode, extra), key)
    assert not faults(out), faults(out)
    times = Times()
    times.add(out)
    return times


def within(attack: Times, control: Times) -> bool:
    return attack.mean <= control.mean * (1 + TOLERANCE) and attack.p95 <= control.p95 * (
        1 + TOLERANCE
    )


#: The honest bots' decisions, during which the hog must get no CPU.
DECISIONS = ("PassCards", "PlayCard")


@dataclasses.dataclass
class HogShare:
    """What the hog's cgroup used while an honest bot was asked for a decision."""

    hog_cpu_s: float = 0.0
    honest_s: float = 0.0
    decisions: int = 0
    #: Honest decisions asked before the hog was caught (its CPU credit not yet spent).
    before_caught: int = 0

    @property
    def cores(self) -> float:
        """The hog's CPU per second of the honest bots' thinking: cores' worth taken."""
        return self.hog_cpu_s / self.honest_s

    def __str__(self) -> str:
        return (
            f"the hog used {self.hog_cpu_s * 1000:.1f} ms of CPU during {self.decisions} honest "
            f"decisions of {self.honest_s:.2f} s ({self.cores:.4f} cores; "
            f"{self.before_caught} more before it was caught)"
        )


@pytest.fixture
def hog_share(monkeypatch: pytest.MonkeyPatch) -> list[HogShare]:
    """Each honest decision of the tournaments played, measured against the hog's cgroup.

    ``LaunchedBot.call`` is wrapped: around every decision asked of an honest
    bot, the CPU time of the hog's cgroup (its spinners included) is read
    before and after. A decision asked before the hog was caught (while its CPU
    credit between calls lasted, which a heavily loaded machine stretches over
    a few calls), or while the call in which it was caught still runs (a pass,
    asked of every seat at once until then), is counted apart. Append a :class:`HogShare` to start a new tally.
    """
    shares: list[HogShare] = []
    hog: list[LaunchedBot] = []
    original = LaunchedBot.call

    def call(self: LaunchedBot, rpc: str, request: Any, timeout_s: float) -> Any:
        if self.name == "x":
            hog[:] = [self]
        if self.name not in HONEST or rpc not in DECISIONS:
            return original(self, rpc, request, timeout_s)
        assert hog, "an honest decision before the hog was ever called"
        if hog[0].cpu_mode == CpuMode.FREEZE and (
            not hog[0].runs_only_when_asked or hog[0]._asked  # caught in a call still running
        ):
            shares[-1].before_caught += 1
            return original(self, rpc, request, timeout_s)
        group = cgroup_of(hog[0])
        cpu, started = group.cpu_seconds(), time.monotonic()
        try:
            return original(self, rpc, request, timeout_s)
        finally:
            shares[-1].honest_s += time.monotonic() - started
            shares[-1].hog_cpu_s += group.cpu_seconds() - cpu
            shares[-1].decisions += 1

    monkeypatch.setattr(LaunchedBot, "call", call)
    return shares


def test_a_frozen_hog_gets_no_cpu_while_the_honest_bots_think(
    tmp_path: pathlib.Path, hog_share: list[HogShare]
) -> None:
    """Causality, not speed: while an honest bot thinks, the hog's cgroup uses no CPU.

    Its spinners never get the CPU the honest bots need, so they cannot slow
    them, whatever else loads the machine. The control, a pondering hog (never
    frozen), shows that the measurement sees the spinners: they take cores'
    worth then. How much time freezing itself costs a decision is
    bench/referee.py's to measure, beside a reference of the same run.
    """
    require_freezer()
    key = a_key(tmp_path)  # one key, one seed: the same deals and seats in both runs
    # The games in this process (ThreadExecutor: one process per bot of the table, which
    # concurrency 1 freezes as the default per_worker does), where LaunchedBot is wrapped.
    in_process = "bot_processes: per_table"
    runs = {"frozen": in_process, "pondering": f"{in_process}\nlimits: {{ponder: true}}"}
    said: dict[str, str] = {}
    for name, extra in runs.items():
        hog_share.append(HogShare())
        # A longer game than the others' (several hands): the decisions asked before the hog
        # is caught are about as many in any game, so the share they are of it falls.
        out = play(write_run(tmp_path / name, key, "hog", extra, target_score=60), key)
        assert not faults(out), faults(out)
        said[name] = "".join(p.read_text() for p in out.glob("bots/**/x.stderr.log"))
    frozen, pondering = hog_share
    print(f"frozen: {frozen}; pondering: {pondering}", file=sys.stderr)
    for name in runs:  # the attack ran: its spinners started
        assert f"hog: {(os.cpu_count() or 2) + 1} spinners" in said[name], said[name]
    assert "frozen between its calls from now on" in said["frozen"], said["frozen"]
    assert "frozen between" not in said["pondering"], said["pondering"]
    # The same games (one key, one seed); at least two hands' plays of each honest bot.
    assert frozen.decisions + frozen.before_caught == pondering.decisions >= 78
    # Caught at its first calls: nearly every honest decision was asked with it frozen. Its
    # credit (freezer.CREDIT_NS, 60 ms) lasts a few of its calls, longer on a loaded machine,
    # where its spinners get less of the CPU (measured in a one-hand game, 42 decisions: 9
    # asked before it was caught at a load of 9, with the suite beside it).
    assert frozen.before_caught <= pondering.decisions // 5, frozen.before_caught
    # Frozen: nothing while the honest bots think, but the moment a freeze takes to reach
    # every spinner (measured: 3 ms in 126 decisions, 0.0002 cores, at a load of 21).
    assert frozen.cores < 0.005, frozen
    # Pondering: its spinners share the cores with the honest bot thinking and whatever else
    # runs (measured: 0.18 cores at a load of 21; a core or more on an idle machine).
    assert pondering.cores > 0.05, pondering
    assert not wait_no_processes_in(tmp_path)


def test_shared_bot_processes_fall_back_to_a_quota_with_a_warning(
    tmp_path: pathlib.Path,
) -> None:
    require_sandbox()
    require_cgroups()
    key = a_key(tmp_path)
    path = write_run(
        tmp_path / "shared",
        key,
        "hog",
        "bot_processes: shared\nconcurrency: 2",
    )
    path.write_text(path.read_text().replace("concurrency: 1\n", ""))
    out = play(path, key)
    warnings = [e["message"] for e in read_journal(out / "journal.jsonl") if e["type"] == "warning"]
    assert any(
        "not frozen between their calls" in m and "bot_processes: shared" in m and "100%" in m
        for m in warnings
    ), warnings
    assert not faults(out), faults(out)
    # The hog ran under its quota: its spinners never got more than a core's worth (and a
    # margin for the quota's period), on any machine.
    said = [
        float(line.split()[-2])
        for log in out.glob("bots/**/x.stderr.log")
        for line in log.read_text().splitlines()
        if line.startswith("hog: spinners got ")
    ]
    assert said and max(said) <= 1.2, said
    assert not wait_no_processes_in(tmp_path)


# The freezer around one launched bot: start, calls, restart, stop ---------------------------


def require_freezer() -> None:
    require_sandbox()
    require_cgroups()
    if cgroups.freezer_support():
        pytest.skip(f"no cgroup freezer here: {cgroups.freezer_support()}")


def cgroup_of(bot: LaunchedBot) -> cgroups.Cgroup:
    found = cgroups.Cgroup.parents()
    assert found is not None
    version, parents = found
    return cgroups.Cgroup(version, {c: os.path.join(p, bot._cgroup) for c, p in parents.items()})


def is_frozen(group: cgroups.Cgroup, expected: bool = True, wait_s: float = 5.0) -> bool:
    """True if the cgroup is (or within ``wait_s`` becomes) frozen, or thawed if not
    ``expected``: freezing takes effect as each task next runs."""
    deadline = time.monotonic() + wait_s
    while frozen_now(group) != expected and time.monotonic() < deadline:
        time.sleep(0.05)
    return frozen_now(group) == expected


def frozen_now(group: cgroups.Cgroup) -> bool:
    found = group.freezer()
    assert found is not None, group.folders
    path, version = found
    if version == 2:
        events = pathlib.Path(path).with_name("cgroup.events").read_text()
        return "frozen 1" in events.split("\n")
    return pathlib.Path(path).read_text().strip() in ("FROZEN", "FREEZING")


def hog_bot(tmp_path: pathlib.Path, **limits: Any) -> LaunchedBot:
    return LaunchedBot(
        "hog",
        [sys.executable, str(BOT), "--address", "{address}", "--mode", "hog"],
        log_dir=tmp_path / "bots",
        limits={**Limits(**limits).to_dict()},
        max_restarts=1,
    )


def cpu_over(group: cgroups.Cgroup, seconds: float) -> float:
    """CPU seconds the cgroup used during the next ``seconds`` of wall time."""
    before = group.cpu_seconds()
    time.sleep(seconds)
    return group.cpu_seconds() - before


def uses_cpu(group: cgroups.Cgroup, cpu_s: float = 0.2, within_s: float = 30.0) -> bool:
    """True once the cgroup has used ``cpu_s`` of CPU, waiting up to ``within_s``.

    A running spinner gets it in a tenth of a second on a quiet machine and in
    seconds at a load of 40 (a fixed wait would decide by the load instead).
    """
    before, deadline = group.cpu_seconds(), time.monotonic() + within_s
    while group.cpu_seconds() - before < cpu_s:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def handshake(bot: LaunchedBot) -> None:
    bot.call("Handshake", pb.HandshakeRequest(protocol_version=PROTOCOL_VERSION), 10.0)


def test_a_launched_bot_is_frozen_between_calls_and_thawed_for_them(
    tmp_path: pathlib.Path,
) -> None:
    require_freezer()
    bot = hog_bot(tmp_path)
    try:
        bot.start()
        assert bot.cpu_mode == CpuMode.FREEZE
        group = cgroup_of(bot)
        # Watched, not frozen, until it is seen to use CPU between its calls ...
        assert not bot.runs_only_when_asked and not bot.frozen_because
        # Its spinners take every core meanwhile, until they used twice its credit beyond the
        # allowances (2% of a core over the wait): at once on a quiet machine, seconds at a
        # load of 50.
        start, since = group.cpu_seconds(), time.monotonic()
        while time.monotonic() - since < 20:
            beyond = group.cpu_seconds() - start - IDLE_SHARE * (time.monotonic() - since)
            if beyond > 2 * CREDIT_NS / 1e9:
                break
            time.sleep(0.05)
        handshake(bot)
        # ... which its first call showed: frozen between its calls from then on, and said so.
        assert bot.runs_only_when_asked
        assert "between its calls 0 and 1 of start 1" in bot.frozen_because, bot.frozen_because
        said = bot.stderr_path.read_text()
        assert f"--- referee: {bot.frozen_because}; frozen between its calls from now on" in said
        assert is_frozen(group)
        # Its spinners get nothing while it is frozen (however loaded the machine, they got
        # 0.07 cores or more at a load of 37 when thawed) ...
        assert cpu_over(group, 2.0) < 0.01
        # ... it answers all the same (thawed for the call), and is frozen again after it.
        handshake(bot)
        with bot.thawed():
            assert is_frozen(group, False)
            assert uses_cpu(group)  # the spinners run while it is asked
        assert is_frozen(group)
        # A bot that dies is restarted into a new cgroup, frozen from the start: once caught,
        # it gets no second unfrozen period by crashing.
        os.kill(group.pids()[0], signal.SIGKILL)
        with pytest.raises(BotFault, match="restarted"):
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                handshake(bot)
                time.sleep(0.1)
        new = cgroup_of(bot)
        assert new.folders != group.folders and is_frozen(new) and bot.runs_only_when_asked
        handshake(bot)
    finally:
        bot.close()  # thawed first: a frozen bot could not handle SIGTERM
    assert not any(os.path.exists(f) for f in new.folders.values())


def test_a_pondering_bot_is_never_frozen(tmp_path: pathlib.Path) -> None:
    require_freezer()
    bot = hog_bot(tmp_path, ponder=True)
    try:
        bot.start()
        assert bot.cpu_mode == CpuMode.PONDER
        group = cgroup_of(bot)
        assert is_frozen(group, False, wait_s=0)
        assert uses_cpu(group)
    finally:
        bot.close()


def test_limits_ponder_is_a_flag_named_in_errors(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "t.yaml"
    bots = "bots: {a: random, b: random, c: heuristic, d: heuristic}\n"
    path.write_text(bots + "limits: {ponder: 3}\n")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value) == f"{path}: limits.ponder: expected true or false, got 3"
    path.write_text(bots + "limits: {ponder: true}\n")
    assert load_config(path).limits.ponder is True
    # Left out of the record when false, so that older folders' config hashes still match.
    assert "ponder" not in Limits().to_dict() and Limits(ponder=True).to_dict()["ponder"]
