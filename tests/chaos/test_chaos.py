"""Issue 7: the chaos tournament loses nothing, even when the referee is SIGKILLed.

tournaments/chaos.yaml plays the Python sample bots against bots that
misbehave at random decisions (chaos_bot.py: sleeping past the deadline,
burning the time bank, illegal cards, cards not held, bad passes, unknown
enums, oversized messages, gRPC errors, crashes, dying for good, hanging at
start-up, eating memory, spawning processes, printing megabytes). The test
copies the config, the chaos bot and the sample bots into a temporary tree,
runs the tournament, kills the referee with SIGKILL once some games are
journaled, checks that no bot process survived the referee, resumes, and
then checks that:

- the tournament finished: every scheduled game is journaled once, and
  ``referee verify`` accepts every log, the journal and the standings;
- the standings add up (games per bot, faults per bot and kind);
- every fault is recorded with its kind: each misbehaving bot shows the kinds
  it was built to cause, and the well-behaved bots have none;
- no process of any bot is alive afterwards (children included);
- nothing was written outside the output folder.
"""

from __future__ import annotations

import collections
import json
import pathlib
import shutil
import signal
import subprocess
import sys
import time

import pytest

from tests.helpers import wait_no_processes_in

ROOT = pathlib.Path(__file__).resolve().parents[2]
GAMES = 36
WELL_BEHAVED = ("random-py", "heuristic-py", "heuristic")
LIAR_KINDS = {
    "illegal_card",
    "card_not_held",
    "wrong_pass_size",
    "duplicate_cards",
    "malformed",
    "oversized",
}

pytestmark = pytest.mark.slow


def _tree(tmp: pathlib.Path) -> pathlib.Path:
    """The config and every bot it names, laid out as in the repository."""
    (tmp / "tournaments").mkdir(parents=True)
    shutil.copy(ROOT / "tournaments" / "chaos.yaml", tmp / "tournaments" / "chaos.yaml")
    (tmp / "tests" / "chaos").mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "chaos" / "chaos_bot.py", tmp / "tests" / "chaos" / "chaos_bot.py")
    ignore = shutil.ignore_patterns("__pycache__")
    for bot in ("random", "heuristic"):
        shutil.copytree(
            ROOT / "sample_bots/python" / bot, tmp / "sample_bots/python" / bot, ignore=ignore
        )
    return tmp / "tournaments" / "chaos.yaml"


def _snapshot(root: pathlib.Path, skip: pathlib.Path) -> dict[str, tuple[int, int]]:
    files = {}
    for path in root.rglob("*"):
        if path.is_file() and skip not in path.parents:
            stat = path.stat()
            files[str(path.relative_to(root))] = (stat.st_size, stat.st_mtime_ns)
    return files


def _journal_games(path: pathlib.Path) -> list[dict]:
    games = []
    if not path.exists():
        return games
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # a torn last line of a killed run
        if record.get("type") == "game":
            games.append(record)
    return games


def _referee(*args: str) -> list[str]:
    return [sys.executable, "-m", "referee.cli", *args]


def test_chaos_tournament_survives_sigkill_and_loses_nothing(tmp_path: pathlib.Path) -> None:
    config = _tree(tmp_path)
    out = tmp_path / "out"
    before = _snapshot(tmp_path, out)
    command = _referee("tournament", str(config), "--out", str(out), "--quiet")

    # First run: killed with SIGKILL once a third of the games are journaled.
    first = subprocess.Popen(
        command, cwd=config.parent, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 240
    while len(_journal_games(out / "journal.jsonl")) < GAMES // 3:
        assert first.poll() is None, f"the tournament ended early:\n{first.stderr.read()}"
        assert time.monotonic() < deadline, "no progress in 240 s"
        time.sleep(0.2)
    first.send_signal(signal.SIGKILL)
    first.wait(30)
    killed_at = len(_journal_games(out / "journal.jsonl"))
    assert killed_at < GAMES, "the kill came too late to test a resume"
    left = wait_no_processes_in(tmp_path, wait_s=8.0)
    assert not left, f"bot processes outlived the SIGKILLed referee: {left}"

    # Second run: resumes and finishes.
    second = subprocess.run(command, cwd=config.parent, capture_output=True, text=True, timeout=600)
    assert second.returncode == 0, second.stderr[-3000:]
    left = wait_no_processes_in(tmp_path, wait_s=8.0)
    assert not left, f"bot processes left after the tournament: {left}"

    # Every scheduled game journaled exactly once, all logs verified.
    games = _journal_games(out / "journal.jsonl")
    ids = [g["game_id"] for g in games]
    assert len(ids) == GAMES and len(set(ids)) == GAMES, collections.Counter(ids).most_common(3)
    verify = subprocess.run(
        _referee("verify", str(out)), cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert verify.returncode == 0, verify.stdout[-3000:] + verify.stderr[-3000:]

    # The standings add up: games and faults per bot agree with the journal.
    faults: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    seats: collections.Counter[str] = collections.Counter()
    forfeits: collections.Counter[str] = collections.Counter()
    for game in games:
        for seat, bot in enumerate(game["bots"]):
            seats[bot] += 1
            faults[bot].update(game["faults"][seat])
            forfeits[bot] += bool(game["forfeited"][seat])
    standings = json.loads((out / "standings.json").read_text())
    rows = {row["bot"]: row for row in standings["bots"]}
    assert sum(row["games"] for row in rows.values()) == 4 * GAMES
    for bot, row in rows.items():
        assert row["games"] == seats[bot] == 16, (bot, row["games"], seats[bot])
        assert row["faults"] == dict(faults[bot]), (bot, row["faults"], faults[bot])
        assert row["forfeits"] == forfeits[bot]

    # Every fault has its kind; the well-behaved bots were not touched.
    for bot in WELL_BEHAVED:
        assert not faults[bot], f"{bot} got faults: {dict(faults[bot])}"
    assert faults["chaos-slow"]["timeout"] > 0
    assert len(LIAR_KINDS & set(faults["chaos-liar"])) >= 3, faults["chaos-liar"]
    assert faults["chaos-errors"]["rpc_error"] > 0
    assert faults["chaos-dies"]["crash"] > 0 and forfeits["chaos-dies"] > 0
    assert (
        faults["chaos-hang"]["start_failed"] > 0 and rows["chaos-hang"]["status"] == "did_not_start"
    )
    assert rows["chaos-hang"]["rank"] == len(rows), "a bot that never started is ranked last"
    assert {"memory_limit", "process_limit"} & set(faults["chaos-hog"]), faults["chaos-hog"]
    # Its output is capped per log file (1M in chaos.yaml), over all its restarts: a start
    # used to get a fresh megabyte, and a worker's log reached 8 MiB. Beyond the megabyte,
    # only the referee's line at each start and the sandbox's notes.
    hog_output = {
        p.relative_to(out): p.stat().st_size for p in (out / "bots").rglob("chaos-hog.*.log")
    }
    assert hog_output, "chaos-hog left no output log"
    assert max(hog_output.values()) < 1024**2 + 64 * 1024, f"over the 1M cap: {hog_output}"

    # Nothing outside the output folder was written.
    assert _snapshot(tmp_path, out) == before
