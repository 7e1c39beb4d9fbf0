"""Bot notes in the web replay (``referee serve``), in headless Chromium, with a screenshot.

A real tournament with the noting bot (tests/notes/noting_bot.py) in it is
served; the replay of one of its games, opened at a trick, lists the noting
seat's note under *This step* and marks its card. The screenshot is saved as
/tmp/notes-web-replay.png (and in pytest's temporary folder). Skips without
Chromium (tests/web/cdp.py says what to install).
"""

from __future__ import annotations

import pathlib
import shutil
import sys

import httpx
import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.web.server import BackgroundServer
from tests.helpers import launched_pids, write_config  # noqa: F401 (an autouse fixture)
from tests.notes.noting_bot import __file__ as NOTING_BOT
from tests.web.cdp import Browser

pytestmark = pytest.mark.slow

SCREENSHOT = pathlib.Path("/tmp/notes-web-replay.png")


def test_the_web_replay_shows_the_seats_notes(tmp_path: pathlib.Path) -> None:
    config = write_config(
        tmp_path,
        f"""
        name: notes
        seed: 2
        sandbox: none
        bots:
          noter: "{sys.executable} {NOTING_BOT} --address {{address}}"
          r1: random
          h1: heuristic
          r2: random
        rules: {{target_score: 26}}
        schedule: {{deal_sets: 1, duplicate: false}}
        """,
    )
    runs = tmp_path / "runs"
    played = CliRunner().invoke(
        cli, ["tournament", str(config), "--out", str(runs / "notes"), "--quiet"]
    )
    assert played.exit_code == 0, played.output
    server = BackgroundServer(runs, port=0)
    assert server.start(timeout=30)
    try:
        base = server.url.rstrip("/")
        games = httpx.get(f"{base}/api/t/notes/games", timeout=30).json()
        rows = games["games"] if isinstance(games, dict) else games
        game_id = rows[0]["game_id"]
        noter = rows[0]["bots"].index("noter")  # the seats rotate: find the noting bot's
        with Browser() as browser:
            page = browser.open("about:blank")
            page.goto(f"{base}/t/notes/games/{game_id}#hand=1&trick=1")
            page.wait_for("document.querySelectorAll('#trick .card').length > 0", timeout=30)
            notes = page.wait_for(
                "[...document.querySelectorAll('#events li.note')].map(li => li.textContent)"
            )
            assert len(notes) == 1, notes
            # The note of the seat that wrote it, labelled with that seat, and only its own.
            label = "NESW"[noter]
            assert notes[0].startswith(f"✎ {label} noter ("), notes
            assert f": note h1-t1-s{noter}: " in notes[0], notes
            marked = page.evaluate(
                "[...document.querySelectorAll('#trick .card .note-mark')]"
                ".map(m => m.closest('.card').dataset.seat)"
            )
            seat = page.evaluate("document.querySelector('#events li.note').textContent")
            assert marked == [str(noter)]  # the mark is on the noting seat's card
            assert page.errors() == []
            # The screenshot once the trick's cards have landed (they fly in one by one).
            page.wait_for(
                "document.querySelectorAll('#trick .card').length === 4 && "
                "document.getAnimations().every(a => a.playState === 'finished')"
            )
            shot = page.screenshot(tmp_path / "notes-web-replay.png")
            shutil.copy(shot, SCREENSHOT)
            print(f"\nthe web replay with a note: {SCREENSHOT} ({seat})")
    finally:
        server.stop()
