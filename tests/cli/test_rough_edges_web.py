"""The web's rough edges (issue 29), in headless Chromium on ``referee serve``.

The replay page links back to the games and standings; a bot without faults
has no empty "faults by kind" chart above "no faults"; decisions read "hand 1,
trick 3, seat 2", not ``h1-t3-s2``; a gauntlet's front-page line names its
candidate, not the top opponent; the gauntlet chart's axis says what it counts.
Skips without Chromium (tests/web/cdp.py says what to install).
"""

from __future__ import annotations

import pathlib
import re
import shutil
import textwrap

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.web.server import BackgroundServer
from tests.web.cdp import Browser

pytestmark = pytest.mark.slow

READY = "document.getElementById('app').dataset.ready === '1'"


def _gauntlet(root: pathlib.Path) -> None:
    config = root.parent / "g.yaml"
    config.write_text(
        textwrap.dedent(
            """
            name: gauntlet
            seed: 3
            format: gauntlet
            bots: {new: heuristic, old: random, o1: heuristic, o2: heuristic, o3: random}
            rules: {target_score: 30}
            schedule: {deal_sets: 6}
            gauntlet: {candidate: new, baseline: old, sprt: {delta1: 1, min_sets: 4}}
            concurrency: 1
            bot_processes: shared
            """
        )
    )
    result = CliRunner().invoke(
        cli, ["tournament", str(config), "--out", str(root / "gauntlet"), "--quiet"]
    )
    assert (root / "gauntlet" / "journal.jsonl").exists(), result.output


def test_the_web_rough_edges(mini_tournament: pathlib.Path, tmp_path: pathlib.Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copytree(mini_tournament, runs / "mini")
    _gauntlet(runs)
    server = BackgroundServer(runs, port=0)
    assert server.start(timeout=30)
    base = server.url.rstrip("/")
    try:
        with Browser() as browser:
            page = browser.open(base + "/")
            page.wait_for(READY)
            page.wait_for("document.body.textContent.includes('candidate new (rank ')")
            assert page.evaluate("document.body.textContent.includes('candidate new (rank ')")

            page.goto(base + "/t/mini/games/t1-d1-r1")
            page.wait_for("document.querySelectorAll('#nav-links a').length === 2")
            links = page.evaluate(
                "[...document.querySelectorAll('#nav-links a')].map(a => a.getAttribute('href'))"
            )
            assert links == ["/t/mini/games", "/t/mini"]

            page.goto(base + "/t/mini/bots/h1")
            page.wait_for(READY)
            page.wait_for("document.querySelectorAll('#slowest tbody tr').length > 0")
            assert page.evaluate("document.querySelector('#faults').textContent") == "no faults"
            assert page.evaluate("document.getElementById('faults-chart').parentElement.hidden")
            labels = page.evaluate(
                "[...document.querySelectorAll('#slowest tbody tr td:last-child')]"
                ".map(td => td.textContent)"
            )
            assert labels and all(
                re.fullmatch(r"hand \d+, (trick \d+|the pass|the moon choice), seat \d", label)
                for label in labels
            ), labels
            assert page.errors() == []

            script = page.evaluate("fetch('/static/serve.js').then(r => r.text())")
            assert "games played so far" in script
            assert "games (or duplicate sets) so far" not in script
    finally:
        server.stop()
