"""The sandbox itself (Fair play I): on by default, what it refuses, its limits, its stamp.

The attacks of a cheating entrant are in test_attacks.py; here are the
sandbox's settings and limits as a tournament organiser meets them:

- a sandboxed command with ``{port}`` is a config error that says what to do;
- a machine where bubblewrap cannot make a sandbox gets a clear error from
  ``referee tournament``, ``referee match`` and ``referee check-bot``;
- ``sandbox: none`` is stamped on the standings;
- with cgroups, memory a bot holds in /dev/shm, in its tmpfs or in an orphan
  counts towards its memory limit, a fork bomb stops at its process limit,
  and ``cpu_percent`` caps its CPU share. Without cgroups, limits fall back to
  polling with a warning in the journal.
"""

from __future__ import annotations

import concurrent.futures
import json
import pathlib
import sys
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.folder import TournamentError, read_journal
from referee.match.runner import GameSpec, play_game
from referee.players import LaunchedBot, builtin_player
from referee.players.policy import FaultPolicy, Limits, TimeControl
from referee.players.specs import parse_bot
from referee.players.supply import BotPool
from referee.sandbox import bwrap
from referee.sandbox.cgroups import Cgroup
from referee.tournament import Tournament
from referee.tournament.config import ConfigError, load_config
from tests.helpers import (  # noqa: F401 (launched_pids: an autouse fixture)
    launched_pids,
    require_cgroups,
    require_sandbox,
    wait_no_processes_in,
)
from tests.tournament.conftest import copy_heuristic, write_config

HOG = pathlib.Path(__file__).parent / "bots" / "hog.py"


@pytest.fixture
def sandboxed() -> None:
    """The test runs sandboxed bots: skipped (failed under HEARTS_CI=1) where bwrap cannot."""
    require_sandbox()


@pytest.fixture
def cgroups(sandboxed: None) -> None:
    """The test needs the supervisor's cgroups too."""
    require_cgroups()


# The configuration tests need neither: they run on any machine.
needs_sandbox = pytest.mark.usefixtures("sandboxed")
needs_cgroups = pytest.mark.usefixtures("cgroups")


def hog(mode: str, mb: int = 100, seconds: float = 1.0) -> str:
    return (
        f"{sys.executable} {HOG} --address {{address}} --mode {mode} --mb {mb} --seconds {seconds}"
    )


def test_port_under_the_sandbox_is_a_config_error(tmp_path: pathlib.Path) -> None:
    path = write_config(
        tmp_path,
        """
        bots: {a: random, b: random, c: heuristic, d: "{python} bot.py --port {port}"}
        """,
    )
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value) == (
        f"{path}: bots.d: the command uses {{port}}, but a sandboxed bot has no network: "
        "serve on {address} (a Unix socket: --address {address}), or set `sandbox: none` "
        "for a bot you trust"
    )
    # Trusted and unsandboxed, {port} is fine.
    path.write_text(
        "bots: {a: random, b: random, c: heuristic, "
        "d: {bot: '{python} bot.py --port {port}', sandbox: none}}\n"
    )
    assert load_config(path).bot("d").sandbox == "none"


@needs_sandbox
def test_sandbox_none_is_stamped_on_the_standings(tmp_path: pathlib.Path) -> None:
    copy_heuristic(tmp_path, "hbot")
    path = write_config(
        tmp_path,
        """
        seed: 3
        bots:
          trusted: {bot: "{python} hbot/bot.py --port {port}", sandbox: none}
          boxed: hbot
          r: random
          h: heuristic
        rules: {target_score: 20}
        output: out
        """,
    )
    messages: list[str] = []
    result = Tournament(load_config(path), echo=messages.append).run()
    assert result.complete and result.standings is not None
    assert result.standings.unsandboxed == ("trusted",)
    text = (tmp_path / "out" / "standings.txt").read_text()
    assert "Not sandboxed (sandbox: none, trusted): trusted" in text
    assert json.loads((tmp_path / "out" / "standings.json").read_text())["unsandboxed"] == [
        "trusted"
    ]
    assert "not sandboxed (sandbox: none): trusted" in messages
    assert not wait_no_processes_in(tmp_path)


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine where bubblewrap fails (it is /bin/false here): the real probe runs."""
    monkeypatch.setattr(bwrap, "bwrap_binary", lambda: "/bin/false")
    monkeypatch.setattr(bwrap, "_probe_result", None)


def test_no_sandbox_on_this_machine_is_a_clear_error(
    tmp_path: pathlib.Path, no_bwrap: None
) -> None:
    copy_heuristic(tmp_path, "hbot")
    path = write_config(
        tmp_path,
        "bots: {a: random, b: random, c: heuristic, d: hbot}\noutput: out\n",
    )
    with pytest.raises(TournamentError) as error:
        Tournament(load_config(path)).run()
    message = str(error.value)
    assert message.startswith(f"{path}: the bot sandbox (bubblewrap) cannot start")
    assert "unprivileged user namespaces" in message and "sandbox: none" in message
    assert not (tmp_path / "out").exists()  # refused before anything was written
    runner = CliRunner()
    for args in (
        ["match", str(tmp_path / "hbot"), "random", "random", "random"],
        ["check-bot", str(tmp_path / "hbot")],
    ):
        outcome = runner.invoke(cli, args)
        assert outcome.exit_code == 1, outcome.output
        assert "Error: the bot sandbox (bubblewrap) cannot start" in outcome.output
        assert "Traceback" not in outcome.output
    # The way out for trusted bots.
    outcome = runner.invoke(
        cli,
        [
            "match",
            str(tmp_path / "hbot"),
            "random",
            "random",
            "random",
            "--sandbox",
            "none",
            "--out",
            str(tmp_path / "m"),
        ],
    )
    assert outcome.exit_code == 0, outcome.output


def play_one(
    tmp_path: pathlib.Path,
    command: str,
    limits: Limits,
    move_time_ms: int = 5000,
    *,
    at_the_end: Callable[[LaunchedBot], None] | None = None,
) -> tuple[dict, str]:
    """One game of the hog bot (seat 0) against built-ins; its faults and its stderr.

    ``at_the_end`` is given the hog's launched bot after the game, before it stops.
    """
    tmp_path.mkdir(exist_ok=True)
    pool = BotPool(
        log_dir=tmp_path / "bots",
        time_control=TimeControl(move_time_ms=move_time_ms),
        fault_policy=FaultPolicy(max_restarts=1, max_faults=3),
        limits=limits,
    )
    try:
        player = pool.start(parse_bot(command, name="hog"))
        others = [builtin_player("random") for _ in range(3)]
        spec = GameSpec(
            game_id="g",
            seed=1,
            bots=("hog", "r1", "r2", "r3"),
            time_control=TimeControl(move_time_ms=move_time_ms),
            fault_policy=FaultPolicy(max_restarts=1, max_faults=3),
        )
        record = play_game(spec, [player, *others], tmp_path / "g.jsonl")
        if at_the_end is not None:
            at_the_end(player.connection)  # type: ignore[attr-defined]
    finally:
        pool.close()
    stderr = (tmp_path / "bots" / "hog.stderr.log").read_text(errors="replace")
    return record.faults[0], stderr


@needs_cgroups
@pytest.mark.parametrize("mode", ["shm", "tmp", "orphan"])
def test_memory_in_tmpfs_shm_and_orphans_counts(tmp_path: pathlib.Path, mode: str) -> None:
    # 200 MiB held against a 96 MiB limit; the tmpfs itself is large enough to hold it.
    limits = Limits(memory_bytes=96 << 20, disk_bytes=512 << 20)
    faults, stderr = play_one(tmp_path, hog(mode, 200), limits)
    assert faults.get("memory_limit", 0) >= 1, (faults, stderr[-2000:])
    assert "memory limit" in stderr
    assert not wait_no_processes_in(tmp_path)


@needs_cgroups
def test_the_same_memory_under_the_limit_is_fine(tmp_path: pathlib.Path) -> None:
    limits = Limits(memory_bytes=256 << 20, disk_bytes=512 << 20)
    faults, stderr = play_one(tmp_path, hog("shm", 60), limits)
    assert faults == {}, stderr[-2000:]
    assert "hog shm: wrote 60 MiB" in stderr


@needs_sandbox
def test_the_tmpfs_is_capped_by_disk_bytes(tmp_path: pathlib.Path) -> None:
    limits = Limits(memory_bytes=512 << 20, disk_bytes=16 << 20)
    faults, stderr = play_one(tmp_path, hog("tmp", 64), limits)
    assert faults == {}, stderr[-2000:]  # the bot sees ENOSPC and plays on
    assert "hog tmp: wrote 16 MiB, then No space left on device" in stderr


@needs_cgroups
def test_a_fork_bomb_stops_at_the_process_limit(tmp_path: pathlib.Path) -> None:
    faults, stderr = play_one(tmp_path, hog("forkbomb"), Limits(processes=48))
    assert faults.get("process_limit", 0) >= 1, (faults, stderr[-2000:])
    assert not wait_no_processes_in(tmp_path)


@needs_cgroups
def test_cpu_percent_caps_the_cpu_share(tmp_path: pathlib.Path) -> None:
    """A hog spinning 5 s of wall time under ``cpu_percent: 5`` is held to its quota.

    Asserted by the cause as well as the effect, so that a loaded machine can
    neither fail it nor hide a quota that was not set (a busy machine alone
    would also keep a free spinner under the bound): the kernel throttled the
    capped hog's cgroup at its quota, and never the free one's, which has none.
    The two games run at once (the capped hog takes a twentieth of a core). The quota
    holds from the hog's handshake on: started under it, the hog took 141 s to serve
    here (a Firecracker guest) and failed its 30 s startup timeout in CI.
    """

    def cpu(limits: Limits, where: pathlib.Path) -> tuple[float, int, str]:
        """The CPU seconds the hog's spin got, its cgroup's throttled periods, its quota."""
        seen: dict[str, Any] = {}

        def cgroup(bot: LaunchedBot) -> None:
            found = Cgroup.parents()
            assert found is not None and "cpu" in found[1], found
            folder = pathlib.Path(found[1]["cpu"]) / bot._cgroup
            stat = dict(line.split() for line in (folder / "cpu.stat").read_text().splitlines())
            seen["throttled"] = int(stat["nr_throttled"])
            quota = folder / ("cpu.max" if found[0] == 2 else "cpu.cfs_quota_us")
            seen["quota"] = quota.read_text().strip()

        _, stderr = play_one(
            where, hog("spin", seconds=5.0), limits, move_time_ms=30000, at_the_end=cgroup
        )
        line = next(x for x in stderr.splitlines() if x.startswith("hog spin: cpu "))
        return float(line.split()[-1]), seen["throttled"], seen["quota"]

    with concurrent.futures.ThreadPoolExecutor(2) as games:
        capped_game = games.submit(cpu, Limits(cpu_percent=5), tmp_path / "capped")
        free_game = games.submit(cpu, Limits(), tmp_path / "free")
        (capped, capped_throttled, quota), (free, free_throttled, no_quota) = (
            capped_game.result(),
            free_game.result(),
        )
    # The quota (5 ms of every 100 ms) is set, and the kernel held the spinner to it: of the
    # 50 periods of its spin it was stopped in most (a loaded machine gives it less than 5%
    # only at a load of 40).
    assert quota in ("5000", "5000 100000"), quota
    assert capped_throttled >= 10, capped_throttled
    # The effect: about 0.25 s of CPU in 5 s; a second's margin.
    assert capped < 1.25, capped
    # Without cpu_percent: no quota, never throttled (however little the machine gave it).
    assert no_quota in ("-1", "max 100000"), no_quota
    assert free_throttled == 0, (free_throttled, free)
    print(f"capped: {capped} s, throttled {capped_throttled}; free: {free} s", file=sys.stderr)


@needs_sandbox
def test_without_cgroups_limits_are_polled_with_a_warning(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("referee.sandbox.cgroups.cgroup_support", lambda: "no cgroups (test)")
    copy_heuristic(tmp_path, "hbot")
    path = write_config(
        tmp_path,
        """
        seed: 4
        bots: {a: random, b: random, c: heuristic, d: hbot}
        rules: {target_score: 20}
        bot_processes: shared
        output: out
        """,
    )
    messages: list[str] = []
    result = Tournament(load_config(path), echo=messages.append).run()
    assert result.complete
    warnings = [
        e for e in read_journal(tmp_path / "out" / "journal.jsonl") if e["type"] == "warning"
    ]
    polled = [w for w in warnings if "measured by polling" in w["message"]]
    assert len(polled) == 1, warnings
    # Nor can the bots be frozen between their calls (they serve several games at once, and
    # there are no cgroups): a second warning says so (test_cpu_isolation.py).
    assert len(warnings) == 2 and "not frozen between their calls" in warnings[1]["message"]
    assert any(m.startswith("warning: bot limits are measured by polling") for m in messages)
    # Polling still finds memory held by an orphan: in the sandbox's pid namespace it stays
    # a descendant of the supervisor.
    faults, stderr = play_one(tmp_path / "g", hog("orphan", 200), Limits(memory_bytes=96 << 20))
    assert faults.get("memory_limit", 0) >= 1, (faults, stderr[-2000:])
    assert "no cgroup" not in stderr  # not asked for one
    assert not wait_no_processes_in(tmp_path)
