"""No process outlives the referee: 10 SIGKILLs at random moments of a loaded run.

``referee tournament`` (launched bots in worker processes, one bot folder with
a build step) is killed 10 times, twice in each phase at a random moment of it: its
start-up, a build (the build's sandbox running), its worker processes starting
(and starting their bots), mid-game, or right after a game was journaled,
while busy loops keep the cores loaded. After each kill, within 5 s, nothing of
it may be left: none of the processes that descended from it (seen just before
the kill: workers, the multiprocessing resource tracker, supervisors, bwrap,
bots, builds), and nothing whose working directory or command line is in the
test's folder. The journal so far must be authentic and hold only games equal
to a reference run's; the last run, left alone, must finish with the
reference's games and standings.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import pathlib
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import pytest

from referee.folder import Layout, read_journal, seal
from referee.sandbox import procfs

from .conftest import copy_heuristic, journal_games, without_timing, write_config

pytestmark = pytest.mark.slow

#: Two kills a phase, each at a random moment of it (the seed is printed, so a failure's output
#: shows it). Four a phase (20 in all) cost 100 s of CI's time for the same paths, and
#: test_interrupts.py kills runs at random points between journaled games besides.
KILLS = 10
#: The phases a kill comes in; each gets KILLS / len(PHASES) kills, in a random order.
PHASES = ("start-up", "build", "workers", "mid-game", "journal")
#: How long the referee's processes may take to end after its SIGKILL.
SURVIVOR_WAIT_S = 5.0
#: How long a phase may take to come.
PHASE_TIMEOUT_S = 90.0
GAMES = 20


def storm_config(folder: pathlib.Path) -> pathlib.Path:
    """Five bots, three launched (one from a folder with a build step): 20 short games."""
    copy_heuristic(folder, "hbot")
    built = copy_heuristic(folder, "hbuild")
    (built / "bot.yaml").write_text(
        "name: hbuild\n"
        'build: "sleep 1 && echo ok > built.txt"\n'
        'run: "{python} bot.py --address {address}"\n'
    )
    return write_config(
        folder,
        """
        name: storm
        seed: 5
        bots:
          h-folder: hbot
          h-build: hbuild
          h-command: "{python} hbot/bot.py --address {address}"
          r1: random
          h1: heuristic
        rules: {target_score: 30}
        time_control: {move_time_ms: 10000, notify_timeout_ms: 10000}
        concurrency: 2
        """,
    )


def start(
    config: pathlib.Path, out: pathlib.Path, key_file: pathlib.Path | None, name: str
) -> subprocess.Popen[bytes]:
    """``referee tournament`` in the config's folder, its output in files (never a full pipe)."""
    key = ["--key-file", str(key_file)] if key_file else []
    command = [sys.executable, "-m", "referee.cli", "tournament", str(config), "--out", str(out)]
    folder = config.parent
    with open(folder / f"{name}.out", "wb") as stdout, open(folder / f"{name}.err", "wb") as stderr:
        return subprocess.Popen([*command, *key], cwd=folder, stdout=stdout, stderr=stderr)


@contextlib.contextmanager
def cpu_load(busy_loops: int = 2) -> Iterator[set[int]]:
    """Busy loops running meanwhile (their pids)."""
    busy = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], cwd="/")
        for _ in range(busy_loops)
    ]
    try:
        yield {p.pid for p in busy}
    finally:
        for proc in busy:
            proc.kill()
            proc.wait()


# Processes ---------------------------------------------------------------------------------------

Identity = tuple[int, int]  # (pid, start time in clock ticks): a pid may be reused


def _stat_fields(pid: int) -> list[bytes] | None:
    """The fields of /proc/PID/stat after the command name (state first), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    return stat[stat.rfind(b")") + 2 :].split()


def _identity(pid: int) -> Identity | None:
    fields = _stat_fields(pid)
    return (pid, int(fields[19])) if fields else None  # field 22 of proc(5): starttime


def _alive(identity: Identity) -> bool:
    fields = _stat_fields(identity[0])
    return fields is not None and fields[0] != b"Z" and int(fields[19]) == identity[1]


def _cmdline(pid: int) -> bytes:
    try:
        return pathlib.Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def descendants(root: int) -> set[Identity]:
    """The live descendants of ``root`` now, from the parent links in /proc."""
    children: dict[int, list[int]] = collections.defaultdict(list)
    for process in procfs.processes():
        if process.alive:
            children[process.ppid].append(process.pid)
    found: set[Identity] = set()
    todo = list(children[root])
    while todo:
        pid = todo.pop()
        identity = _identity(pid)
        if identity is not None:
            found.add(identity)
        todo.extend(children[pid])
    return found


def _in_folder(folder: pathlib.Path, spared: set[int]) -> set[Identity]:
    """Live processes whose working directory or command line is in ``folder``."""
    found: set[Identity] = set()
    for process in procfs.processes():
        if process.pid in spared or not process.alive:
            continue
        try:
            cwd = os.readlink(f"/proc/{process.pid}/cwd")
        except OSError:
            continue
        inside = cwd == str(folder) or cwd.startswith(f"{folder}/")
        if inside or str(folder).encode() in _cmdline(process.pid):
            identity = _identity(process.pid)
            if identity is not None:
                found.add(identity)
    return found


def _describe(pid: int) -> str:
    fields = _stat_fields(pid) or [b"?", b"?"]
    try:
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        cwd = "?"
    cmdline = _cmdline(pid).replace(b"\0", b" ").decode(errors="replace")[:300]
    return f"{pid} (ppid {fields[1].decode()}, cwd {cwd}): {cmdline}"


def survivors(before: set[Identity], folder: pathlib.Path, spared: set[int]) -> list[Identity]:
    """What is left of a killed referee after up to SURVIVOR_WAIT_S."""
    deadline = time.monotonic() + SURVIVOR_WAIT_S
    while True:
        left = {i for i in before if _alive(i)} | _in_folder(folder, spared)
        if not left or time.monotonic() > deadline:
            return sorted(left)
        time.sleep(0.05)


def kill(identities: list[Identity]) -> None:
    """SIGKILL these processes (survivors: a failed test leaves nothing running)."""
    for identity in identities:
        if _alive(identity):
            with contextlib.suppress(OSError):
                os.kill(identity[0], signal.SIGKILL)


# The moment of a kill ----------------------------------------------------------------------------


def games_in(journal: pathlib.Path) -> int:
    try:
        return journal.read_bytes().count(b'"type":"game"')
    except OSError:
        return 0


def logs_in(out: pathlib.Path) -> int:
    try:
        return sum(1 for _ in Layout(out).game_logs())
    except OSError:
        return 0


def has_descendant(root: int, word: bytes) -> bool:
    """Whether a descendant of ``root`` has ``word`` in its command line."""
    return any(word in _cmdline(pid) for pid, _ in descendants(root))


def wait_for(proc: subprocess.Popen[bytes], what: str, ready: Callable[[], bool]) -> None:
    deadline = time.monotonic() + PHASE_TIMEOUT_S
    while not ready():
        assert proc.poll() is None, f"the referee ended (code {proc.returncode}) before {what}"
        assert time.monotonic() < deadline, f"no {what} within {PHASE_TIMEOUT_S:.0f} s"
        time.sleep(0.01)


def reach(
    phase: str, proc: subprocess.Popen[bytes], out: pathlib.Path, rng: random.Random
) -> float:
    """Wait for a random moment of ``phase`` of the run ``proc``; returns the delay chosen."""
    journal = out / "journal.jsonl"
    games, logs = games_in(journal), logs_in(out)
    if phase == "start-up":  # the interpreter, the imports, opening the folder
        delay = rng.uniform(0.0, 1.5)
    elif phase == "build":  # the build's supervisor and sandbox run its `sleep 1`
        wait_for(proc, "build", lambda: has_descendant(proc.pid, b"sleep"))
        delay = rng.uniform(0.0, 0.9)
    elif phase == "workers":  # the worker processes start, then start their bots
        wait_for(proc, "worker process", lambda: has_descendant(proc.pid, b"spawn_main"))
        delay = rng.uniform(0.0, 1.5)
    elif phase == "mid-game":  # games of this run are being played
        wait_for(proc, "game", lambda: logs_in(out) > logs)
        delay = rng.uniform(0.0, 0.4)
    else:  # "journal": a game was just journaled; the next lines may be on their way
        wait_for(proc, "journaled game", lambda: games_in(journal) > games)
        delay = 0.0
    time.sleep(delay)
    return delay


def test_sigkill_storm_leaves_no_process_and_resumes_to_the_same_journal(
    tmp_path: pathlib.Path,
) -> None:
    config = storm_config(tmp_path)
    reference = tmp_path / "reference"
    proc = start(config, reference, None, "reference")
    assert proc.wait(300) == 0, (tmp_path / "reference.err").read_text()
    expected = journal_games(reference / "journal.jsonl")
    assert len(expected) == GAMES
    faults = [(g, f) for g, game in expected.items() for f in game["faults"] if f]
    assert not faults, f"the reference run's bots misbehaved: {faults[:3]}"
    # The reference's key for every run, so that the games are dealt the same.
    key_file = reference / seal.KEY_NAME
    key = seal.load_key(key_file)

    out = tmp_path / "killed"
    seed = random.randrange(1 << 32)
    print(f"the kills' seed: {seed}")  # shown with a failure: random.Random(seed) replays them
    rng = random.Random(seed)
    phases = [PHASES[i % len(PHASES)] for i in range(KILLS)]
    rng.shuffle(phases)
    with cpu_load() as busy:
        spared = {os.getpid(), *busy}
        for number, phase in enumerate(phases, start=1):
            proc = start(config, out, key_file, f"run{number}")
            try:
                delay = reach(phase, proc, out, rng)
                before = descendants(proc.pid)
                assert proc.poll() is None, f"kill {number} ({phase}): the referee ended first"
            finally:
                proc.kill()
                proc.wait(10)
            left = survivors(before, tmp_path, spared)
            described = [_describe(pid) for pid, _ in left]
            kill(left)
            assert not left, (
                f"kill {number} ({phase}, +{delay:.2f} s; seed {seed}): still alive "
                f"{SURVIVOR_WAIT_S:.0f} s after the referee's SIGKILL:\n  " + "\n  ".join(described)
            )
            # What was journaled is authentic (MACs chained) and the reference's.
            for entry in read_journal(out / "journal.jsonl", key=key):
                if entry["type"] == "game":
                    wanted = expected[entry["game_id"]]
                    assert {k: entry[k] for k in wanted} == wanted, (number, entry["game_id"])
        assert games_in(out / "journal.jsonl") < GAMES, "the kills came too late to resume"

    proc = start(config, out, key_file, "resume")
    assert proc.wait(300) == 0, (tmp_path / "resume.err").read_text()
    assert journal_games(out / "journal.jsonl") == expected
    standings = json.loads((out / "standings.json").read_text())
    wanted_standings = json.loads((reference / "standings.json").read_text())
    assert without_timing(standings["bots"]) == without_timing(wanted_standings["bots"])
    assert standings["head_to_head"] == wanted_standings["head_to_head"]
    left = survivors(set(), tmp_path, spared)
    kill(left)
    assert not left, "left after the last run: " + ", ".join(_describe(p) for p, _ in left)
