"""The analysis in ``referee serve``: the bot page's worst decisions, each a link to its place in
the replay, and the replay's marks; in Chromium, a click from one to the other (issue 31)."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import time

import httpx
import pytest

from referee.analysis.record import analysis_path, read_analysis
from referee.web.server import BackgroundServer
from tests.web.cdp import Browser, BrowserError

READY = "document.getElementById('app').dataset.ready === '1'"


def _tid(client) -> str:
    (tournament,) = client.get("/api/tournaments").json()["tournaments"]
    return tournament["id"]


def test_bot_page_lists_the_worst_decisions_with_links(
    folder: pathlib.Path, analysed: subprocess.CompletedProcess[str], client_for
) -> None:
    client, _ = client_for(folder.parent)
    tid = _tid(client)
    data = client.get(f"/api/t/{tid}/bots/random").json()
    analysis = data["analysis"]
    assert analysis["games"] == 4 and analysis["points_lost_per_hand"] > 0
    worst = analysis["worst"]
    assert worst and [w["loss"] for w in worst] == sorted((w["loss"] for w in worst), reverse=True)
    for w in worst:
        assert re.fullmatch(r"#hand=\d+&trick=\d+", w["position"])
    # A bot nobody analysed has none; the page says how to make one.
    assert client.get(f"/api/t/{tid}/bots/random-2").json()["analysis"] is None
    page = client.get(f"/t/{tid}/bots/random-2").text
    assert "referee analyze FOLDER --seat random-2" in page


def test_replay_page_carries_the_marks(
    folder: pathlib.Path, analysed: subprocess.CompletedProcess[str], client_for
) -> None:
    client, _ = client_for(folder.parent)
    tid = _tid(client)
    worst = client.get(f"/api/t/{tid}/bots/random").json()["analysis"]["worst"][0]
    page = client.get(f"/t/{tid}/games/{worst['game_id']}").text
    assert '"analysis":{"seats":' in page and worst["what"] in page


def _served_id(base: str) -> str:
    """The served tournament's id, once the server has indexed it."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            found = httpx.get(base + "/api/tournaments", timeout=5).json()["tournaments"]
            if found:
                tid = found[0]["id"]
                data = httpx.get(f"{base}/api/t/{tid}", timeout=5).json()
                if data.get("standings") and not data.get("indexing"):
                    return tid
        except (httpx.HTTPError, ValueError, KeyError):
            pass
        time.sleep(0.2)
    raise AssertionError("the server never indexed the folder")


def _wait_through_navigation(page, expression: str, timeout: float = 60.0) -> None:
    """Wait for ``expression`` in a page that is navigating (its old document may be gone
    between two looks: Chromium then answers with an error, and we look again)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if page.evaluate(expression):
                return
        except BrowserError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for: {expression}")


@pytest.mark.slow
def test_in_chromium_a_worst_decision_opens_the_replay_at_its_mark(
    folder: pathlib.Path,
    analysed: subprocess.CompletedProcess[str],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    wanted = os.environ.get("SERVE_TEST_OUTPUT")
    shots = pathlib.Path(wanted) if wanted else tmp_path_factory.mktemp("analysis-screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    server = BackgroundServer(folder.parent, port=0)
    assert server.start(timeout=30)
    try:
        with Browser() as browser:
            base = server.url.rstrip("/")
            tid = _served_id(base)
            page = browser.open(f"{base}/t/{tid}/bots/random")
            page.wait_for(READY, timeout=60)
            page.wait_for("document.querySelectorAll('#worst tbody tr').length > 0")
            summary = page.evaluate("document.getElementById('analysis-summary').textContent")
            assert "points lost a hand" in summary
            page.screenshot(shots / "analysis-bot.png")
            href = page.evaluate("document.querySelector('#worst tbody a').getAttribute('href')")
            assert re.search(r"/games/[^#]+#hand=\d+&trick=\d+$", href)
            page.evaluate("document.querySelector('#worst tbody a').click()")
            _wait_through_navigation(
                page,
                "location.pathname.includes('/games/') && document.readyState === 'complete' && "
                "!document.getElementById('analysis').classList.contains('hidden')",
            )
            # The decision's position is shown, with its mark: on its card or pass and in the step's events.
            hand, trick = re.search(r"#hand=(\d+)&trick=(\d+)$", href).groups()
            assert page.evaluate("document.getElementById('table').dataset.hand") == hand
            assert page.evaluate("document.getElementById('table').dataset.trick") == trick
            marks = page.evaluate(
                "[...document.querySelectorAll('#table .amark')].map(m => m.textContent)"
            )
            events = page.evaluate(
                "[...document.querySelectorAll('#events li.analysis')].map(e => e.textContent)"
            )
            assert marks and set(marks) <= {"?!", "?", "??"}
            assert any("lost" in e for e in events)
            page.evaluate("new Promise((done) => setTimeout(done, 1500))")  # the cards land
            page.screenshot(shots / "analysis-replay.png")
            assert page.errors() == []
    finally:
        server.stop()
    print(f"\nscreenshots of the analysis in referee serve: {shots}")
    assert (shots / "analysis-replay.png").stat().st_size > 10_000
    assert read_analysis(analysis_path(next(folder.glob("games/*/*.jsonl.gz")))) is not None
