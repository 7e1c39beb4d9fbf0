"""Fair play I: a cheating bot for each attack of the issue, each played in a real tournament.

Every attack (tests/fairplay/attacks/attacker.py) is played twice:

- with ``sandbox: none``, where it must SUCCEED: this proves that the test
  can see the attack work (so a sandbox that lets it through fails the test);
- sandboxed (the default), where it must FAIL: the attacker says so on its
  stderr, the canary folder stays empty, the side effects are checked from
  outside, the honest bots have no faults, and the standings are those of a
  control run in which the attacker plays the same moves without attacking
  (same seed, same tournament key, deterministic bots).

The attacker's victims are a copy of the Python heuristic sample bot in the
test's folder (its ``bot.py`` carries a marker string, so reading its source
or its memory shows) and the built-ins. The referee runs with a secret in its
environment that no bot is given. Attacks that destroy or disturb only ever
target what the test made (see the attacker's docstring).
"""

from __future__ import annotations

import contextlib
import dataclasses
import glob
import hashlib
import json
import os
import pathlib
import re
import secrets
import shutil
import signal
import site
import subprocess
import sys
import sysconfig
import time
from typing import Any

import pytest

from referee.sandbox import procfs
from tests.helpers import require_sandbox

pytestmark = pytest.mark.slow

ROOT = pathlib.Path(__file__).resolve().parents[2]
ATTACKER = pathlib.Path(__file__).resolve().parent / "attacks" / "attacker.py"
HEURISTIC = ROOT / "sample_bots" / "python" / "heuristic" / "bot.py"
HONEST_NAME = "fairplay-honest"
MIB = 1 << 20
#: The honest bots: none of them may ever be charged with a fault.
HONEST = ("honest", "random", "heuristic")


# What this machine allows ---------------------------------------------------------------


def ptrace_works() -> bool:
    """True if this machine lets a process of ours attach to another (a container may not)."""
    import ctypes

    child = subprocess.Popen(["sleep", "30"])
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
        if libc.ptrace(0x4206, child.pid, None, None) != 0:  # PTRACE_SEIZE
            return False
        libc.ptrace(17, child.pid, None, None)  # PTRACE_DETACH
        return True
    finally:
        child.kill()
        child.wait()


def cgroups_contain_bots() -> bool:
    """True if every launched bot (even with ``sandbox: none``) gets cgroups of its own."""
    from referee.sandbox.cgroups import cgroup_support

    return cgroup_support() == ""


# One tournament ---------------------------------------------------------------------------


@dataclasses.dataclass
class Run:
    """A played tournament and what the test needs to judge it."""

    mode: str  # "none", "sandboxed" or "control"
    attack: str
    folder: pathlib.Path
    out: pathlib.Path
    canary: pathlib.Path
    fake_site: pathlib.Path
    honest_bot: pathlib.Path
    honest_hash: str
    token: str
    secret: str
    marker: str
    returncode: int = 0
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0

    def logs(self, pattern: str) -> str:
        return "".join(
            pathlib.Path(p).read_text(errors="replace")
            for p in sorted(glob.glob(str(self.out / pattern), recursive=True))
        )

    @property
    def attacker_output(self) -> str:
        """The attacker's stderr (every start of it) and its build log."""
        return self.logs("bots/**/attacker.stderr.log") + self.logs("builds/attacker.build.log")

    def verdicts(self) -> dict[str, list[str]]:
        """part -> the verdicts the attacker printed for it (SUCCEEDED, FAILED, TRIED)."""
        found: dict[str, list[str]] = {}
        for m in re.finditer(
            rf"^ATTACK {re.escape(self.attack)} (\S+): (SUCCEEDED|FAILED|TRIED)\b",
            self.attacker_output,
            re.M,
        ):
            found.setdefault(m.group(1), []).append(m.group(2))
        return found

    def succeeded(self) -> list[str]:
        return re.findall(r"^ATTACK \S+ \S+: SUCCEEDED: .*$", self.attacker_output, re.M)

    def standings(self) -> dict[str, Any]:
        return json.loads((self.out / "standings.json").read_text())

    def rows(self) -> dict[str, dict[str, Any]]:
        return {row["bot"]: row for row in self.standings()["bots"]}

    def comparable(self) -> list[dict[str, Any]]:
        """The standings rows without what differs between runs (timings, notes)."""
        drop = ("ms_per_decision", "notes", "reason")
        return [{k: v for k, v in r.items() if k not in drop} for r in self.standings()["bots"]]

    def describe(self) -> str:
        return (
            f"[{self.mode} run of {self.attack}: exit {self.returncode} in {self.seconds:.1f} s]\n"
            f"referee stderr (end):\n{self.stderr[-3000:]}\n"
            f"attacker output:\n{self.attacker_output[-6000:]}"
        )


def _honest_folder(folder: pathlib.Path, marker: str, run_line: str) -> pathlib.Path:
    target = folder / "honest"
    target.mkdir()
    source = HEURISTIC.read_text()
    source = source.replace('name = "heuristic-py"', f'name = "{HONEST_NAME}"')
    assert f'name = "{HONEST_NAME}"' in source
    # A string kept in the module (so in the process's memory) and in the source.
    source = source.replace(
        "from referee.botkit import", f'MARKER = "{marker}"\n\nfrom referee.botkit import', 1
    )
    (target / "bot.py").write_text(source)
    (target / "bot.yaml").write_text(
        f'name: {HONEST_NAME}\nversion: 1.0.0\nlanguage: Python\nrun: "{run_line}"\n'
    )
    return target


def make_run(
    base: pathlib.Path,
    mode: str,
    attack: str,
    *,
    key_file: pathlib.Path | None,
    settings: dict[str, Any] | None = None,
    limits: dict[str, int] | None = None,
    time_control: dict[str, int] | None = None,
    build: bool = False,
    flat: bool = False,
    bot_processes: str = "shared",
) -> Run:
    """Lay out a tournament folder: the attacker, the honest copy, a canary, a config."""
    folder = base / mode
    folder.mkdir(parents=True)
    token = secrets.token_hex(8)
    marker = f"FAIRPLAY-MARKER-{secrets.token_hex(8)}"
    secret = f"FAIRPLAY-SECRET-{secrets.token_hex(8)}"
    canary = folder / "canary"
    canary.mkdir()
    fake_site = folder / "site-packages"
    fake_site.mkdir()
    sandboxed = mode != "none"
    where = "--address {address}" if sandboxed else "--port {port}"
    honest = _honest_folder(folder, marker, "{python} bot.py " + where)
    # Flat: the attacker is a command whose script lies in the tournament's folder, next to
    # the config, the key and the other bots' folders (a folder bot has one of its own).
    attacker = folder if flat else folder / "attacker"
    attacker.mkdir(exist_ok=True)
    shutil.copy(ATTACKER, attacker / "attacker.py")
    config = {
        "attack": attack,
        "canary": str(canary),
        "scope": str(folder),
        "contained": mode != "none",
        "token": token,
        "honest_name": HONEST_NAME,
        "bot_name": "attacker",
        "site_dirs": [str(fake_site)],
        **(settings or {}),
    }
    (attacker / "attack.json").write_text(json.dumps(config, indent=1))
    flag = " --no-attack" if mode == "control" else ""
    manifest = (
        "name: fairplay-attacker\nversion: 1.0.0\nlanguage: Python\n"
        f'run: "{{python}} attacker.py {where}{flag}"\n'
    )
    if build:
        manifest += 'build: "python3 attacker.py --build || /usr/bin/python3 attacker.py --build"\n'
    if not flat:
        (attacker / "bot.yaml").write_text(manifest)
    if key_file is not None:
        # Inside the run's folder, where the unsandboxed attacker may look for it.
        shutil.copy(key_file, folder / "key")
        os.chmod(folder / "key", 0o600)
    tc = {"move_time_ms": 30000, "notify_timeout_ms": 10000, **(time_control or {})}
    lines = [
        "name: fairplay",
        "seed: 2024",
        "bots:",
        f'  attacker: "{{python}} attacker.py {where}{flag}"' if flat else "  attacker: attacker",
        "  honest: honest",
        "  random: random",
        "  heuristic: heuristic",
        "rules: {target_score: 30}",
        # One game: every attack runs in the attacker's first game (t1-d1-r1) and is judged
        # there; the three rotations after it only started fresh processes (bot_lifetime
        # game) for the same verdicts, a third of the file's time.
        "schedule: {deal_sets: 1, duplicate: false}",
        f"time_control: {json.dumps(tc)}",
        "fault_policy: {max_restarts: 5}",
        f"bot_processes: {bot_processes}",
        "concurrency: 1",
    ]
    if limits:
        lines.append(f"limits: {json.dumps(limits)}")
    if mode == "none":
        lines.append("sandbox: none")
    (folder / "t.yaml").write_text("\n".join(lines) + "\n")
    return Run(
        mode=mode,
        attack=attack,
        folder=folder,
        # (Not inside a flat folder: see test_a_command_bot_beside_its_output_folder_starts.)
        out=base / f"{mode}-out" if flat else folder / "out",
        canary=canary,
        fake_site=fake_site,
        honest_bot=honest / "bot.py",
        honest_hash=hashlib.sha256((honest / "bot.py").read_bytes()).hexdigest(),
        token=token,
        secret=secret,
        marker=marker,
    )


def play(run: Run, timeout_s: float = 240) -> Run:
    """Run the tournament as a subprocess (an attack may kill it) with a secret in its environment."""
    args = [sys.executable, "-m", "referee.cli", "tournament", str(run.folder / "t.yaml")]
    args += ["--out", str(run.out), "-q", "--format", "json"]
    if (run.folder / "key").exists():
        args += ["--key-file", str(run.folder / "key")]
    env = {**os.environ, "FAIRPLAY_SECRET": run.secret}
    started = time.monotonic()
    try:
        proc = subprocess.run(
            args,
            cwd=run.folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
        run.returncode, run.stdout, run.stderr = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as error:
        run.returncode = -999
        run.stderr = f"timed out after {timeout_s} s: {error.stderr!r}"
    run.seconds = time.monotonic() - started
    return run


# Leftovers ----------------------------------------------------------------------------------


def leftover_processes(run: Run) -> list[tuple[int, str]]:
    """Live processes the run left behind: the attacker's token in the command line, or the
    working directory in the run's folder."""
    found = []
    for process in procfs.processes():
        if process.pid == os.getpid() or not process.alive:
            continue
        try:
            args = pathlib.Path(f"/proc/{process.pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        try:
            where = os.readlink(f"/proc/{process.pid}/cwd")
        except OSError:
            where = ""
        if (
            run.token.encode() in args
            or where == str(run.folder)
            or where.startswith(f"{run.folder}/")
        ):
            found.append((process.pid, args.decode(errors="replace")[:200]))
    return found


def wait_leftovers(run: Run, wait_s: float = 5.0) -> list[tuple[int, str]]:
    deadline = time.monotonic() + wait_s
    while True:
        left = leftover_processes(run)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


def kill_leftovers(run: Run) -> None:
    """Kill what the run left (only processes it started: they carry its token or folder)."""
    for _ in range(3):
        for pid, _ in leftover_processes(run):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.2)


def real_site_dirs() -> list[str]:
    dirs = [*site.getsitepackages(), site.getusersitepackages(), sysconfig.get_paths()["purelib"]]
    dirs += [p for p in sys.path if p.endswith("site-packages")]
    return list(dict.fromkeys(dirs))


def machine_traces(run: Run) -> list[str]:
    """Files an attack left outside the test's folder (removed here: they are harmless, but
    they must not stay)."""
    found = []
    import referee

    candidates = [os.path.join(d, f"zz-fairplay-{run.token}.pth") for d in real_site_dirs()]
    candidates.append(os.path.join(os.path.dirname(referee.__file__), f"fairplay_{run.token}.py"))
    candidates.append(f"/dev/shm/fairplay-{run.token}")
    candidates += glob.glob(f"/dev/shm/**/*{run.token}*", recursive=True)
    candidates += glob.glob(f"/tmp/*{run.token}*") + glob.glob(f"/var/tmp/*{run.token}*")
    for path in dict.fromkeys(candidates):
        if os.path.lexists(path):
            found.append(path)
            with contextlib.suppress(OSError):
                os.unlink(path)
    return found


def big_files(folder: pathlib.Path, over: int) -> list[tuple[str, int]]:
    out = []
    for dirpath, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                size = os.path.getsize(os.path.join(dirpath, name))
                if size > over:
                    out.append((os.path.join(dirpath, name), size))
    return out


# The attacks ----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Attack:
    name: str
    #: Parts the attacker reports on; all must report FAILED (or TRIED) in the sandbox.
    parts: tuple[str, ...]
    #: Parts that must report SUCCEEDED without a sandbox (the proof that the test can fail).
    succeeds: tuple[str, ...] = ()
    settings: dict[str, Any] = dataclasses.field(default_factory=dict)
    limits: dict[str, int] = dataclasses.field(default_factory=dict)
    time_control: dict[str, int] = dataclasses.field(default_factory=dict)
    build: bool = False
    #: The attacker a command whose script lies in the tournament's folder.
    flat: bool = False
    #: Where the games run (and the bots with them): the referee's threads or its workers.
    bot_processes: str = "shared"
    #: Fault kinds the sandboxed attacker is stopped with when its limit works (then it need
    #: not report, and the standings differ from the control run by the referee's fallbacks).
    stopped: tuple[str, ...] = ()
    #: False for an attack that only exists with a sandbox (nothing to try without one).
    none_run: bool = True


DISK_LIMIT = 8 * MIB
MEMORY_LIMIT = 192 * MIB
PROCESS_LIMIT = 48

ATTACKS = {
    a.name: a
    for a in [
        # 1. Hidden cards.
        Attack("read-logs", ("game-log",), ("game-log",)),
        Attack("read-seed", ("seed",), ("seed",)),
        # 1 and 2 for a command bot: the folder it sees is its script's.
        Attack("command-folder", ("seed", "sources"), ("seed", "sources"), flat=True),
        # 2. Other processes.
        Attack(
            "read-processes",
            ("environ", "memory", "ptrace", "sources", "logs"),
            ("environ", "memory", "ptrace", "sources", "logs"),
        ),
        # 3. Attacking opponents and the referee.
        Attack(
            "signal-opponents",
            ("sigstop", "sigkill"),
            ("sigstop", "sigkill"),
            settings={"block_s": 1},
            time_control={"move_time_ms": 1500},
        ),
        Attack("kill-referee", ("sigkill",)),
        # 4. An opponent's seat.
        Attack("takeover", ("socket", "seat"), ("seat",), settings={"block_s": 2}),
        # Our socket a link to an opponent's: the opponent plays our seat.
        Attack("borrow", ("link",), stopped=("start_failed",), none_run=False),
        # 5. The network.
        Attack(
            "flood",
            ("flood",),
            # (The victim's timeouts are what shows the flood: an answer to the flood itself
            # may come only after the game.)
            ("reach",),
            settings={"block_s": 1, "flood_s": 12},
            time_control={"move_time_ms": 1500},
        ),
        # 6. Code and results.
        Attack("tamper-code", ("pth", "botpy"), ("pth", "botpy")),
        Attack("tamper-results", ("write",), ("write",)),
        # 7. Limits.
        Attack(
            "disk",
            ("fill",),
            ("fill",),
            settings={"disk_cap": 24 * MIB, "disk_limit": DISK_LIMIT},
        ),
        # The one folder a sandboxed bot may write on the host: its socket's.
        Attack(
            "socket-dir",
            ("socket-dir",),
            settings={"memory_limit": MEMORY_LIMIT},
            limits={"memory_bytes": MEMORY_LIMIT},
            stopped=("memory_limit",),
            none_run=False,
        ),
        # (In worker processes, the default: they too must clean up the bots' socket folders.)
        Attack("shm", ("shm",), settings={"shm_bytes": 4 * MIB}, bot_processes="per_worker"),
        Attack("daemon", ("daemon",)),
        Attack(
            "orphans",
            ("memory",),
            ("memory",),
            settings={"memory_limit": MEMORY_LIMIT, "process_limit": PROCESS_LIMIT},
            limits={"memory_bytes": MEMORY_LIMIT, "processes": PROCESS_LIMIT},
            stopped=("memory_limit",),
        ),
        Attack(
            "orphan-processes",
            ("processes",),
            ("processes",),
            settings={
                "memory_limit": MEMORY_LIMIT,
                "process_limit": PROCESS_LIMIT,
                "orphans": "processes",
            },
            limits={"memory_bytes": MEMORY_LIMIT, "processes": PROCESS_LIMIT},
            stopped=("process_limit",),
        ),
        # 8. The build step.
        Attack(
            "build",
            ("environ", "folders", "output", "pth", "write", "daemon"),
            ("environ", "folders", "output", "pth"),
            build=True,
        ),
    ]
}


def run_attack(base: pathlib.Path, mode: str, attack: Attack, key_file: pathlib.Path | None) -> Run:
    limits = dict(attack.limits)
    settings = dict(attack.settings)
    time_control = dict(attack.time_control)
    if mode == "none":
        # No layer of defence at all: the bots also run between their calls (unfrozen),
        # or an opponent frozen while not asked would stop the socket and flood attacks.
        limits["ponder"] = True
    else:
        limits["disk_bytes"] = DISK_LIMIT
        # A short move time is there to show victims timing out without a sandbox; sandboxed,
        # the attacker's first move waits for its verdicts, and must not time out itself.
        settings.pop("block_s", None)
        time_control = {}
    run = make_run(
        base,
        mode,
        attack.name,
        key_file=key_file,
        settings=settings,
        limits=limits,
        time_control=time_control,
        build=attack.build,
        flat=attack.flat,
        bot_processes=attack.bot_processes,
    )
    return play(run)


@pytest.fixture(scope="module")
def key_file(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path | None:
    """One tournament key for every run (the deals come from it)."""
    path = tmp_path_factory.mktemp("key") / "key"
    path.write_text(secrets.token_hex(32) + "\n")
    path.chmod(0o600)
    return path


@pytest.fixture(scope="module")
def control(tmp_path_factory: pytest.TempPathFactory, key_file: pathlib.Path | None) -> Run:
    """The attacker playing the same moves without attacking, sandboxed like the attack runs."""
    require_sandbox()
    base = tmp_path_factory.mktemp("control")
    # Same limits as the attack runs (they do not change the moves, but keep it exact).
    run = play(make_run(base, "control", "none", key_file=key_file))
    assert run.returncode == 0, run.describe()
    assert not run.succeeded(), run.describe()
    for bot, row in run.rows().items():
        assert row["faults"] == {} and row["forfeits"] == 0, (bot, row, run.describe())
    return run


# Without a sandbox: every attack works ----------------------------------------------------


def check_succeeded(run: Run, attack: Attack) -> None:
    """The attack worked: its reports, the canary, and what it did, seen from outside."""
    verdicts = run.verdicts()
    text = run.describe()
    for part in attack.succeeds:
        assert "SUCCEEDED" in verdicts.get(part, []), f"{part} did not succeed\n{text}"
    if attack.succeeds:
        assert any(run.canary.iterdir()), f"empty canary\n{text}"
    rows = run.rows() if (run.out / "standings.json").exists() else {}
    name = attack.name
    if name == "read-processes":
        output = run.attacker_output
        assert run.secret in output, "the referee's secret was not read"
        assert run.marker in output, "the opponent's marker was not read"
    if name == "signal-opponents":
        # The victim is charged for what the attacker did to it: stopped (timeouts), killed
        # (crash), or killed as it started (start_failed); which, depends on the timing.
        faults = rows["honest"]["faults"]
        assert faults.get("crash"), (faults, text)
        assert set(faults) <= {"timeout", "crash", "start_failed", "unavailable"}, (faults, text)
    if name == "kill-referee":
        assert run.returncode == -signal.SIGKILL, text
        assert not (run.out / "standings.json").exists()
    if name == "takeover":
        assert rows["honest"]["faults"].get("crash"), text
    if name == "flood":
        assert rows["honest"]["faults"].get("timeout"), (rows["honest"], text)
    if name == "tamper-code":
        assert any(run.fake_site.glob("*.pth"))
        assert hashlib.sha256(run.honest_bot.read_bytes()).hexdigest() != run.honest_hash
    if name == "tamper-results":
        # The referee may write over a line appended to a file it is writing; the state
        # file it reads at the end keeps it (and the run then fails).
        assert run.token in run.logs("*.json*") + run.logs("games/*.jsonl"), text
    if name == "disk":
        assert big_files(run.folder, DISK_LIMIT), text
    if name in ("orphans", "orphan-processes") and cgroups_contain_bots():
        # Even without bwrap, the bot's cgroup counts its orphans: it is stopped at its limit.
        assert set(rows["attacker"]["faults"]) <= {"memory_limit", "process_limit"}, text
        assert rows["attacker"]["faults"], text
    elif name in ("orphans", "orphan-processes"):
        assert "SUCCEEDED" in str(run.verdicts()), text
    if name in ("shm",):
        assert f"/dev/shm/fairplay-{run.token}" in machine_traces(run), text
    if name in ("daemon", "build"):
        # It ran: it escaped the bot's process group and session, and wrote the canary.
        assert list(run.canary.glob("daemon-alive-*.txt")), text
        left = wait_leftovers(run, 1.0)
        survived = any(f"fairplay-daemon-{run.token}" in args for _, args in left)
        # Without cgroups nothing stops it at the end; with them, the supervisor kills the
        # bot's cgroup when the bot ends, sandbox or not.
        assert survived == (not cgroups_contain_bots()), (left, text)
    if name == "build":
        output = run.attacker_output
        assert run.secret in output and run.marker in output, text
        assert (run.canary / "build-wrote-outside.txt").exists(), text


# (Not the attacks that exist only in a sandbox: ``none_run=False``.)
@pytest.mark.parametrize("name", [name for name, attack in ATTACKS.items() if attack.none_run])
def test_without_a_sandbox_the_attack_succeeds(
    tmp_path: pathlib.Path, name: str, key_file: pathlib.Path | None
) -> None:
    attack = ATTACKS[name]
    if name in ("orphans", "orphan-processes") and cgroups_contain_bots():
        attack = dataclasses.replace(attack, succeeds=())
    if name == "read-processes" and not ptrace_works():
        # Not this machine's to prove (a container without ptrace); the rest still must work.
        attack = dataclasses.replace(
            attack, succeeds=tuple(p for p in attack.succeeds if p != "ptrace")
        )
    run = run_attack(tmp_path, "none", attack, key_file)
    try:
        if name != "kill-referee":
            assert run.returncode == 0 or name in ("tamper-results",), run.describe()
        check_succeeded(run, attack)
    finally:
        kill_leftovers(run)
        machine_traces(run)


# Sandboxed: every attack fails --------------------------------------------------------------


#: Attacks that still work in the sandbox: each fails its test (strict xfail, so that the fix
#: turns it into a failure until the mark goes). None now: command-folder was one until the
#: config, a --key-file and the other bots' folders were hidden from every bot.
KNOWN_HOLES: dict[str, str] = {}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN_HOLES[n]))
        if n in KNOWN_HOLES
        else n
        for n in ATTACKS
    ],
)
def test_sandboxed_the_attack_fails(
    tmp_path: pathlib.Path, name: str, key_file: pathlib.Path | None, control: Run
) -> None:
    attack = ATTACKS[name]
    run = run_attack(tmp_path, "sandboxed", attack, key_file)
    try:
        text = run.describe()
        left = wait_leftovers(run)
        traces = machine_traces(run)
        assert run.returncode == 0, text
        # Every seat of the attacker was played by the attacker (its handshake's author), not
        # by a bot it pointed the referee at.
        authors = {
            log.name: seat["author"]
            for log in sorted(run.out.glob("games/*.jsonl"))
            for seat in json.loads(log.read_text().splitlines()[0])["seats"]
            if seat["bot"] == "attacker"
        }
        # ('' where it did not start: the referee played that seat's fallbacks.)
        assert set(authors.values()) <= {"fairplay-attacker", ""}, (
            f"the attacker's seat was played by another bot: {authors}\n{text}"
        )
        # The attack ran, every part of it, and nothing of it worked.
        verdicts = run.verdicts()
        rows = run.rows()
        stopped = set(rows["attacker"]["faults"])
        if attack.stopped and stopped:
            # Stopped at its limit: that is the attack failing (the kernel refused the memory
            # or the processes, and the supervisor stopped the bot).
            assert stopped <= set(attack.stopped), (rows["attacker"], text)
        else:
            for part in attack.parts:
                assert verdicts.get(part), f"{part}: no verdict (the attack did not run?)\n{text}"
        assert not run.succeeded(), text
        assert not list(run.canary.iterdir()), (list(run.canary.iterdir()), text)
        # What it would have done, seen from outside.
        assert not left, (left, text)
        assert not traces, (traces, text)
        assert hashlib.sha256(run.honest_bot.read_bytes()).hexdigest() == run.honest_hash
        assert not list(run.fake_site.iterdir())
        assert run.token not in (run.out / "journal.jsonl").read_text()
        assert run.token not in run.logs("games/*.jsonl")
        assert not big_files(run.folder, DISK_LIMIT // 2), text
        if attack.build:
            assert run.secret not in run.attacker_output and run.marker not in run.attacker_output

        if name == "read-processes":
            assert run.secret not in run.attacker_output and run.marker not in run.attacker_output
        # Nobody was charged with anything, and the results are those of the control run.
        for bot in HONEST:
            assert rows[bot]["faults"] == {} and rows[bot]["forfeits"] == 0, (bot, rows[bot], text)
        if not (attack.stopped and stopped):
            assert rows["attacker"]["faults"] == {}, (rows["attacker"], text)
            assert run.comparable() == control.comparable(), text
            assert run.standings()["head_to_head"] == control.standings()["head_to_head"]
        verify = subprocess.run(
            [sys.executable, "-m", "referee.cli", "verify", str(run.out)],
            capture_output=True,
            text=True,
            cwd=run.folder,
            check=False,
        )
        assert verify.returncode == 0, verify.stdout + verify.stderr
    finally:
        kill_leftovers(run)


def test_a_command_bot_beside_its_output_folder_starts(
    tmp_path: pathlib.Path, key_file: pathlib.Path | None, control: Run
) -> None:
    """The usual layout of a quick tournament: the config, a bot script and the output folder
    in one folder. The bot must start (with its output folder hidden) and play."""
    run = make_run(tmp_path, "sandboxed", "none", key_file=key_file, flat=True)
    run.out = run.folder / "out"
    play(run)
    text = run.describe()
    assert run.returncode == 0, text
    rows = run.rows()
    assert rows["attacker"]["status"] == "ok" and rows["attacker"]["faults"] == {}, text


def test_every_item_of_the_issue_has_an_attack() -> None:
    """Items 1-8 of "Fair play I", each with at least one attack above."""
    items = {
        1: {"read-logs", "read-seed", "command-folder"},
        2: {"read-processes", "command-folder"},
        3: {"signal-opponents", "kill-referee"},
        4: {"takeover", "borrow"},
        5: {"flood"},
        6: {"tamper-code", "tamper-results"},
        7: {"disk", "socket-dir", "shm", "daemon", "orphans", "orphan-processes"},
        8: {"build"},
    }
    assert set().union(*items.values()) == set(ATTACKS)
