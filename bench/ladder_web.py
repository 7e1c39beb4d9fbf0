"""Benchmark parts of ``bench/ladder.py`` for the ladder's web side.

1. **The ladder page with 100,000 journaled games** (goal: within 300 ms):
   a synthesized ladder folder (tests/web/synth.py: a sealed journal of
   games between 20 bots, each bot a team's active version in the
   database), served by the ladder's real server (uvicorn in this process,
   on a free loopback port); once the standings are computed, the median
   and 95th percentile over ``rounds`` warm requests of ``/ladder`` and
   ``/api/ladder``, beside the reference in the same run: ``referee
   serve``'s standings page of the same folder, ``/t/ID``, in the same server.
2. **Upload to first game for a Python bot** (goal: within 10 s on an idle
   machine): a real ladder (:class:`referee.ladder.service.Ladder`, started,
   with its web service) whose three built-in-like Python bots are active;
   ``referee submit``'s client uploads the Python starter, and the time is
   taken until the journal holds a game with it, beside the reference in the
   same run: ``referee check-bot`` on the same folder (its build and check,
   the pipeline's floor).

Usage::

    python bench/ladder_web.py page [--games 100000] [--folder /tmp/ladder-big]
    python bench/ladder_web.py upload
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest.mock

import httpx

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from referee.cli.scaffold import kit_files
from referee.folder import Layout
from referee.ladder.config import load_ladder_config, parse_ladder_config
from referee.ladder.db import LadderDB
from referee.ladder.submit_client import LadderClient, pack
from referee.ladder.web import LadderServer, LadderSite
from tests.web.synth import synthesize

PAGE_TARGET_MS = 300.0
UPLOAD_TARGET_S = 10.0
REPO = pathlib.Path(__file__).resolve().parent.parent


def _ladder_folder(root: pathlib.Path, games: int) -> LadderSite:
    folder = root / "ladder-big"
    players = [f"bot{i:02d}.v1" for i in range(1, 21)]
    if not Layout(folder).journal.exists():
        started = time.perf_counter()
        with unittest.mock.patch("os.fsync"):  # the journal's fsync per line: not measured
            synthesize(folder, games=games, bots=players, name="ladder-big")
        print(f"synthesized {games} games in {time.perf_counter() - started:.1f} s: {folder}")
    else:
        print(f"reusing {folder}")
    db = LadderDB(folder / "ladder.db")
    if not db.teams():
        for i in range(0, 20, 2):
            team, _ = db.add_team(f"team{i // 2:02d}")
            for bot in players[i : i + 2]:
                sub = db.new_submission(team, bot.removesuffix(".v1"), per_hour=100)
                for state in ("received", "building", "checking"):
                    db.set_state(sub.id, state)
                db.activate(sub.id, keep=1)
    config = parse_ladder_config(
        {"name": "ladder-big", "output": str(folder)}, path=root / "LADDER.yaml"
    )
    return LadderSite(folder, db, config)


def _times(client: httpx.Client, url: str, rounds: int) -> tuple[float, float]:
    client.get(url).raise_for_status()  # warm
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        client.get(url).raise_for_status()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.95))]


def page_time(root: pathlib.Path, games: int, rounds: int) -> None:
    """The ladder page's time with ``games`` journaled games, beside referee serve's page."""
    site = _ladder_folder(root, games)
    server = LadderServer(site, port=0)
    assert server.start(), "the server did not start"
    try:
        with httpx.Client(base_url=server.url, timeout=120) as client:
            started = time.perf_counter()
            while True:
                data = client.get("/api/ladder").json()
                if data["games_played"] == games and data["standings_games"] == games:
                    break
                if time.perf_counter() - started > 1800:
                    raise SystemExit("the standings were not ready within 30 minutes")
                time.sleep(0.5)
            print(f"standings of {games} games ready after {time.perf_counter() - started:.1f} s")
            tid = client.get("/api/tournaments").json()["tournaments"][0]["id"]
            rows = [
                ("/ladder", "the ladder page"),
                ("/api/ladder", "its JSON"),
                (f"/t/{tid}", "reference: referee serve's standings page"),
                (f"/api/t/{tid}", "reference: its JSON"),
            ]
            print(f"{'request':<58} {'median ms':>10} {'p95 ms':>8}")
            for path, what in rows:
                median, p95 = _times(client, path, rounds)
                mark = "" if "reference" in what or p95 <= PAGE_TARGET_MS else "  (over goal)"
                print(f"{what + ' ' + path:<58} {median:>10.1f} {p95:>8.1f}{mark}")
            print(f"goal: the ladder page within {PAGE_TARGET_MS:.0f} ms")
    finally:
        server.stop()


def _ladder_config(root: pathlib.Path) -> pathlib.Path:
    path = root / "LADDER.yaml"
    path.write_text(
        textwrap.dedent(
            f"""
            name: bench-ladder
            output: {root / "ladder"}
            concurrency: 1
            submissions: {{check_full_game: false}}
            """
        )
    )
    return path


def upload_to_first_game(root: pathlib.Path) -> None:
    """From the upload of the Python starter to its first journaled game, beside check-bot."""
    from referee.ladder.service import Ladder

    starter = REPO / "sample_bots" / "python" / "starter"
    started = time.perf_counter()
    check = subprocess.run(
        [sys.executable, "-m", "referee.cli", "check-bot", str(starter)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    reference = time.perf_counter() - started
    print(
        f"reference: referee check-bot on the starter: {reference:.1f} s (exit {check.returncode})"
    )

    ladder = Ladder(load_ladder_config(_ladder_config(root)), echo=lambda text: None)
    _, token = ladder.db.add_team("bench")
    server = LadderServer(ladder, port=0)
    ladder.start()
    assert server.start(), "the server did not start"
    try:
        client = LadderClient(server.url, token)
        data = pack(starter, kit_files(starter)).data
        # Three opponents first (the same starter under other names), each to active.
        for name in ("house1", "house2", "house3"):
            number = client.submit(data, name)["id"]
            _wait_state(ladder, number, "active", 600)
        started = time.perf_counter()
        sub = client.submit(data, "starter")
        uploaded = time.perf_counter()
        player = sub["player"]
        _wait_state(ladder, sub["id"], "active", 600)
        active = time.perf_counter()
        journal = Layout(ladder.layout.root).journal
        while time.perf_counter() - started < 600:
            if any(
                e.get("type") == "game" and player in e.get("bots", [])
                for e in map(json.loads, journal.read_text().splitlines())
            ):
                break
            time.sleep(0.1)
        else:
            raise SystemExit(f"{player} played no game within 10 minutes")
        done = time.perf_counter()
        print(
            f"upload to first game for a Python bot: {done - started:.1f} s "
            f"(upload {uploaded - started:.2f} s, build and check to active "
            f"{active - uploaded:.1f} s, then to its first game's end {done - active:.1f} s); "
            f"goal: within {UPLOAD_TARGET_S:.0f} s on an idle machine"
        )
    finally:
        server.stop()
        ladder.stop()


def _wait_state(ladder, number: int, state: str, timeout: float) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sub = ladder.db.submission(number)
        if sub.state == state:
            return
        if sub.state == "rejected":
            raise SystemExit(f"{sub.player} was rejected: {sub.reason}")
        time.sleep(0.1)
    raise SystemExit(f"submission {number} not {state} within {timeout:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=["page", "upload", "both"])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--folder", type=pathlib.Path, help="keep (and reuse) the folder here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-ladder-") as tmp:
        root = args.folder or pathlib.Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        if args.part in ("page", "both"):
            page_time(root, args.games, args.rounds)
        if args.part in ("upload", "both"):
            upload_to_first_game(pathlib.Path(tempfile.mkdtemp(dir=tmp)))


if __name__ == "__main__":
    main()
