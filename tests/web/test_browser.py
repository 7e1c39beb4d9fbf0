"""``referee serve`` in headless Chromium: a tournament played while its page is open, charts
that are drawn, the game filters, a replay opened from the game list, and a screenshot of each
page.

Chromium is driven over the DevTools protocol (tests/web/cdp.py); the tests
skip without it (Debian: ``apt-get install chromium``; ``.ci/run`` installs it).
The screenshots are kept in $SERVE_TEST_OUTPUT, else in pytest's temporary
folder (``serve-screenshots*``; the path is printed, ``pytest -s`` shows it).
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator

import httpx
import pytest

from referee.web.server import BackgroundServer
from tests.web.cdp import Browser, Page
from tests.web.synth import synthesize

pytestmark = pytest.mark.slow

READY = "document.getElementById('app').dataset.ready === '1'"


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    wanted = os.environ.get("SERVE_TEST_OUTPUT")
    folder = pathlib.Path(wanted) if wanted else tmp_path_factory.mktemp("serve-screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots of referee serve's pages: {folder}")
    return folder


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser() as chromium:
        yield chromium


def _gauntlet(root: pathlib.Path) -> None:
    """A small real gauntlet (built-ins), played to its decision."""
    config = root.parent / "gauntlet.yaml"
    config.write_text(
        textwrap.dedent(
            f"""
            name: gauntlet
            seed: 3
            format: gauntlet
            bots: {{new: heuristic, old: random, o1: random, o2: heuristic, o3: random}}
            rules: {{target_score: 30}}
            schedule: {{deal_sets: 8}}
            gauntlet: {{candidate: new, baseline: old, sprt: {{delta1: 1, min_sets: 4}}}}
            concurrency: 1
            bot_processes: shared
            output: {root / "gauntlet"}
            """
        )
    )
    subprocess.run(
        [sys.executable, "-m", "referee.cli", "tournament", str(config), "-q"],
        check=False,
        capture_output=True,
        timeout=300,
    )
    assert (root / "gauntlet" / "journal.jsonl").exists()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """The folder the server serves: a synthetic tournament and a gauntlet under it."""
    return tmp_path_factory.mktemp("served") / "runs"


@pytest.fixture(scope="module")
def served(runs: pathlib.Path) -> Iterator[str]:
    """A server (in this process, on a free port) over a synthetic tournament and a gauntlet."""
    root = runs
    synthesize(root / "league", games=96, seed=11, name="league", bots=tuple(
        f"bot-{c}" for c in "abcdefgh"
    ))  # fmt: skip
    _gauntlet(root)
    server = BackgroundServer(root, port=0)
    assert server.start(timeout=30)
    _wait_ready(server.url + "api/t/league", 60)
    try:
        yield server.url.rstrip("/")
    finally:
        server.stop()


def _wait_ready(url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            data = httpx.get(url, timeout=5).json()
            if data.get("standings") and not data.get("indexing"):
                return
        except (httpx.HTTPError, ValueError):
            pass
        time.sleep(0.2)
    raise AssertionError(f"{url} never became ready")


#: The query of a page opened without its event stream (serve.js's ``live``): the stream is
#: test_a_tournament_played_while_its_page_is_open's to test. Left open, the filters' page's
#: stream held the replay's navigation up for 56 s of the test's 59 in CI (measured here
#: at load ~20: the click's navigation took 55.9 s with the stream, under 1 s without it).
STILL = "live=0"


def _open(browser: Browser, url: str) -> Page:
    page = browser.open(url)
    page.wait_for(READY, timeout=60)
    return page


def _painted(page: Page, canvas: str) -> int:
    return int(page.evaluate(f"document.getElementById('{canvas}').dataset.painted || 0"))


def test_charts_are_drawn(
    browser: Browser, served: str, runs: pathlib.Path, shots: pathlib.Path
) -> None:
    page = _open(browser, served + "/?" + STILL)
    rows = page.evaluate(
        "[...document.querySelectorAll('#tournaments tbody tr')].map(r => r.dataset.id)"
    )
    assert sorted(rows) == ["gauntlet", "league"]
    page.screenshot(shots / "1-tournaments.png")

    page.goto(served + "/t/league?" + STILL)
    page.wait_for(READY, timeout=60)
    page.wait_for("document.getElementById('ci-chart').dataset.painted")
    assert _painted(page, "ci-chart") > 2000
    assert page.evaluate("document.getElementById('ci-chart').dataset.points") == str(2 * 8)
    assert page.evaluate("document.querySelectorAll('#standings tbody tr').length") == 8
    met = page.evaluate("document.querySelectorAll('#h2h td[data-share]').length")
    assert 8 * 4 < met <= 8 * 7  # the pairs that shared a table
    page.screenshot(shots / "2-standings.png")

    page.goto(served + "/t/league/bots/bot-c?" + STILL)
    page.wait_for(READY, timeout=60)
    for canvas in ("points-chart", "rating-chart"):
        page.wait_for(f"document.getElementById('{canvas}').dataset.painted")
        assert _painted(page, canvas) > 2000, canvas
    games = page.evaluate("document.querySelector('#summary td:nth-of-type(1)') && 1")
    assert games
    assert int(page.evaluate("document.getElementById('rating-chart').dataset.points")) > 10
    assert page.evaluate("document.querySelectorAll('#slowest tbody tr').length") > 0
    page.screenshot(shots / "3-bot.png")

    page.goto(served + "/t/gauntlet/gauntlet?" + STILL)
    page.wait_for(READY, timeout=60)
    page.wait_for("document.getElementById('llr-chart').dataset.painted")
    assert _painted(page, "llr-chart") > 2000
    assert int(page.evaluate("document.getElementById('llr-chart').dataset.points")) >= 4
    # The SPRT's decision as the gauntlet itself reported it (its random key decides which).
    report = json.loads((runs / "gauntlet" / "gauntlet.json").read_text())
    (result,) = report["results"]
    expected = {"H1": "H1", "H0": "H0", "none": "none yet"}[result["decision"]]
    row = page.evaluate(
        "[...document.querySelectorAll('#llr tbody tr')].map(r => r.textContent ? "
        "[r.cells[0].textContent, r.cells[r.cells.length - 1].textContent] : null)"
    )
    assert len(row) == 1 and row[0][0].split()[-1] == result["baseline"], (row, result)
    assert row[0][1] == expected, (row, result)
    page.screenshot(shots / "5-gauntlet.png")
    assert page.errors() == []


def test_a_chart_rendered_at_no_size_is_no_error(browser: Browser, served: str) -> None:
    """A responsive chart can render at no size while the page lays out (it did under load):
    the painted-pixels plugin then says nothing, where getImageData threw an uncaught error."""
    page = _open(browser, served + "/t/league?" + STILL)
    page.wait_for(READY, timeout=60)
    page.wait_for("document.getElementById('ci-chart').dataset.painted")
    painted = _painted(page, "ci-chart")
    # The zero-size render and what it left, read in one task: the chart is responsive, so a
    # resize observer may render it at its box's size again any time after (it did in CI).
    width, after = page.evaluate(
        "(() => { const chart = Chart.getChart('ci-chart'); chart.resize(0, 0);"
        " return [chart.canvas.width, Number(chart.canvas.dataset.painted || 0)]; })()"
    )
    assert width == 0
    assert page.errors() == []
    assert after == painted  # that render said nothing: the last real render's count stands


def test_the_filters_and_a_replay(browser: Browser, served: str, shots: pathlib.Path) -> None:
    page = _open(browser, served + "/t/league/games?" + STILL)
    assert page.evaluate("document.getElementById('app').dataset.total") == "96"

    def choose(name: str, value: str) -> int:
        page.evaluate(
            f"(() => {{ const s = document.querySelector('#filters select[name={name}]');"
            f" document.getElementById('app').dataset.ready = '0';"
            f" s.value = {value!r}; s.dispatchEvent(new Event('change')); }})()"
        )
        page.wait_for(READY)
        return int(page.evaluate("document.getElementById('app').dataset.total"))

    mine = choose("bot", "bot-d")
    assert 0 < mine < 96
    seats = page.evaluate(
        "[...document.querySelectorAll('#games tbody tr')].map(r => r.cells[2].textContent)"
    )
    assert len(seats) == mine and all("bot-d" in s for s in seats)
    wins = choose("result", "win")
    losses = choose("result", "loss")
    assert wins + losses == mine and wins > 0
    assert "result=loss" in page.evaluate("location.search")
    choose("result", "")
    faulty = choose("faults", "any")
    clean = choose("faults", "none")
    assert faulty + clean == mine
    choose("faults", "")
    moons = choose("moons", "any")
    assert moons + choose("moons", "none") == mine
    choose("moons", "")
    choose("bot", "")

    # A link with filters in the URL opens with them applied (the bot page links so).
    page.goto(served + f"/t/league/games?{STILL}&bot=bot-d&result=win")
    page.wait_for(READY)
    assert int(page.evaluate("document.getElementById('app').dataset.total")) == wins
    page.screenshot(shots / "4-games.png")

    first = page.evaluate("document.querySelector('#games a.replay').getAttribute('href')")
    page.evaluate("document.querySelector('#games a.replay').click()")
    page.wait_for(f"location.pathname === {first!r}")
    page.wait_for("document.readyState === 'complete' && !!document.getElementById('status')")
    title = page.evaluate("document.title")
    assert title.startswith("Hearts replay: ")
    page.wait_for("document.querySelectorAll('.card').length > 0", timeout=30)
    page.screenshot(shots / "6-replay.png")
    assert page.errors() == []


LIVE_CONFIG = """
name: live
seed: 5
bots: {r1: random, r2: random, h1: heuristic, h2: heuristic, h3: heuristic}
schedule: {deal_sets: 6}
concurrency: 1
bot_processes: shared
output: out/live
"""


def test_a_tournament_played_while_its_page_is_open(
    browser: Browser, tmp_path: pathlib.Path, shots: pathlib.Path
) -> None:
    """``referee tournament --serve``: the standings move as games finish, with no reload."""
    config = tmp_path / "live.yaml"
    config.write_text(LIVE_CONFIG)
    process = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "tournament", str(config), "-q", "--serve",
         "--port", "0"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        url = None
        for line in process.stderr:
            if line.startswith("serving "):
                url = line.split(" on ", 1)[1].strip()
                break
        assert url, "the tournament did not say where it serves"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            listed = httpx.get(url + "api/tournaments", timeout=5).json()["tournaments"]
            if listed:
                break
            time.sleep(0.1)
        assert [t["id"] for t in listed] == ["live"]

        page = browser.open(url + "t/live")
        page.evaluate(
            "window.marker = 'no reload'; window.seen = [];"
            "new MutationObserver(() => window.seen.push(document.getElementById('app').dataset.games))"
            ".observe(document.getElementById('app'), {attributes: true, attributeFilter: ['data-games']});"
        )
        page.wait_for("document.getElementById('app').dataset.games === '120'", timeout=400)
        seen = [int(n) for n in page.evaluate("window.seen") if n]
        assert page.evaluate("window.marker") == "no reload"
        assert len(set(seen)) >= 2, f"the standings never moved on the page: {seen}"
        assert seen == sorted(seen)
        games = page.evaluate(
            "[...document.querySelectorAll('#standings tbody tr')].map(r => +r.cells[2].textContent)"
        )
        assert sum(games) == 120 * 4
        page.wait_for("document.getElementById('state').textContent.startsWith('finished')")
        page.screenshot(shots / "7-live-standings-finished.png")
        assert page.errors() == []
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
