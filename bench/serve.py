"""Benchmark: ``referee serve`` over a tournament folder of 10,000 games.

The folder is synthesized, not played (tests/web/synth.py: a sealed journal
of 10,000 game entries between 20 bots, and a small real log per game), then
served by the real server (uvicorn, in this process, on a free loopback
port). Measured:

1. **Indexing**: from the server's start until the standings are ready
   (the journal read and authenticated, standings and rating histories
   computed), and until the background scan of the logs for slow decisions
   is done; the process's peak memory after it.
2. **Requests**: the time to answer each page and its JSON, over HTTP, warm
   (median and 95th percentile of ``--rounds`` requests). Target: the
   standings and bot pages (HTML and JSON) within 300 ms.
3. **In Chromium** (if installed): from navigating to a page until it has
   fetched its data and drawn its tables and charts.

Usage::

    python bench/serve.py                      # 10,000 games in a temporary folder
    python bench/serve.py --folder /tmp/big    # keep (and reuse) the folder
"""

from __future__ import annotations

import argparse
import pathlib
import resource
import statistics
import sys
import tempfile
import time
import unittest.mock

import httpx

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from referee.folder import Layout
from referee.web.server import BackgroundServer
from tests.web.synth import synthesize

TARGET_MS = 300.0


def make_folder(root: pathlib.Path, games: int) -> pathlib.Path:
    folder = root / "big"
    if Layout(folder).journal.exists():
        print(f"reusing {folder}")
        return folder
    started = time.perf_counter()
    with unittest.mock.patch("os.fsync"):  # the journal's fsync per line: not what is measured
        synthesize(folder, games=games, name="big")
    print(f"synthesized {games} games in {time.perf_counter() - started:.1f} s: {folder}")
    return folder


def wait(url: str, done: str, timeout: float = 900) -> float:
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        try:
            data = httpx.get(url, timeout=30).json()
            if eval(done, {}, {"d": data}):  # a bench script: the condition is ours
                return time.perf_counter() - started
        except (httpx.HTTPError, ValueError):
            pass
        time.sleep(0.2)
    raise SystemExit(f"{url}: not ready after {timeout} s")


def timed(client: httpx.Client, url: str, rounds: int) -> tuple[float, float, int]:
    times = []
    size = 0
    for _ in range(rounds):
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        response.raise_for_status()
        size = len(response.content)
    times.sort()
    return statistics.median(times), times[max(0, int(len(times) * 0.95) - 1)], size


def in_browser(base: str, bot: str) -> None:
    try:
        from tests.web.cdp import Browser
    except ImportError:
        return
    import pytest

    try:
        browser = Browser()
    except (pytest.skip.Exception, OSError) as error:
        print(f"\nno browser figures: {error}")
        return
    ready = "document.getElementById('app').dataset.ready === '1'"
    print("\nin Chromium: navigation until the page has drawn its data (ms)")
    with browser:
        page = browser.open("about:blank")
        page.goto(base + "/t/big")  # once first: Chromium's own start-up and caches
        page.wait_for(ready, timeout=120)
        for path in ("/t/big", f"/t/big/bots/{bot}", "/t/big/games", f"/t/big/games?bot={bot}"):
            times = []
            for _ in range(5):
                started = time.perf_counter()
                page.goto(base + path)
                page.wait_for(ready, timeout=120)
                times.append((time.perf_counter() - started) * 1000)
            print(f"  {path:32} {statistics.median(times):8.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--folder", type=pathlib.Path, default=None, help="keep the folder here")
    parser.add_argument("--no-browser", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-serve-") as tmp:
        root = args.folder or pathlib.Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        make_folder(root, args.games)
        server = BackgroundServer(root, port=0)
        started = time.perf_counter()
        if not server.start(timeout=60):
            raise SystemExit("the server did not start")
        base = server.url.rstrip("/")
        try:
            ready = wait(base + "/api/t/big", "d.get('standings') and not d['indexing']")
            print(f"indexing: standings ready {ready:.1f} s after the start", end="")
            scanned = wait(base + "/api/t/big", "d['scan']['scanned'] >= d['scan']['games']")
            print(
                f"; the logs scanned for slow decisions after {time.perf_counter() - started:.1f} s"
            )
            del scanned
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"peak memory of the process (server and bench): {peak:.0f} MiB")
            with httpx.Client(timeout=60) as client:
                standings = client.get(base + "/api/t/big").json()["standings"]
                bot = standings["bots"][len(standings["bots"]) // 2]["bot"]
                print(
                    f"\n{args.rounds} requests each, warm (ms)            median     p95     bytes"
                )
                worst = 0.0
                for label, path, target in (
                    ("the list (page)", "/", False),
                    ("the list (JSON)", "/api/tournaments", False),
                    ("standings (page)", "/t/big", True),
                    ("standings (JSON)", "/api/t/big", True),
                    ("bot (page)", f"/t/big/bots/{bot}", True),
                    ("bot (JSON)", f"/api/t/big/bots/{bot}", True),
                    ("games (JSON, first 200)", "/api/t/big/games", False),
                    ("games (JSON, a bot's wins)", f"/api/t/big/games?bot={bot}&result=win", False),
                    ("games (JSON, page 40)", "/api/t/big/games?offset=8000", False),
                    ("a replay", "/t/big/games/t1-d1-r1", False),
                ):
                    median, p95, size = timed(client, base + path, args.rounds)
                    if target:
                        worst = max(worst, p95)
                    print(f"  {label:36} {median:8.1f} {p95:8.1f} {size:9d}")
                verdict = "met" if worst <= TARGET_MS else "MISSED"
                print(
                    f"\nstandings and bot pages: worst p95 {worst:.1f} ms; "
                    f"target {TARGET_MS:.0f} ms {verdict}"
                )
            if not args.no_browser:
                in_browser(base, bot)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
