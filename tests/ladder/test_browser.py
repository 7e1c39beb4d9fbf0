"""The ladder's pages in headless Chromium: the ladder shows the bots and updates by itself when
a game ends; a team signs in with its token and uploads a version through the form.

Chromium is driven over the DevTools protocol (tests/web/cdp.py); the test
skips without it. The server is the ladder's web service in a thread over a
synthetic ladder folder, whose journal the test extends by one game as the
service loop would.
"""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

import pytest

from referee.ladder.web import LadderServer
from tests.ladder.archives import entry, tar_gz
from tests.ladder.webfixtures import Built, append_game, make_ladder
from tests.web.cdp import Browser

pytestmark = pytest.mark.slow

READY = "document.getElementById('app').dataset.ready === '1'"


@pytest.fixture
def served(tmp_path: pathlib.Path) -> Iterator[tuple[Built, LadderServer]]:
    built = make_ladder(tmp_path, games=12)
    server = LadderServer(built.site, port=0)
    assert server.start()
    try:
        yield built, server
    finally:
        server.stop()


def test_the_ladder_page_follows_games_and_a_team_uploads(
    served: tuple[Built, LadderServer], tmp_path: pathlib.Path
) -> None:
    built, server = served
    with Browser() as browser:
        page = browser.open(server.url + "/ladder")
        page.wait_for(READY, timeout=60)
        page.wait_for("document.querySelectorAll('#ladder tbody tr').length === 4", timeout=60)
        shown = page.evaluate(
            "[...document.querySelectorAll('#ladder tbody tr')].map(r => r.dataset.player).sort()"
        )
        assert shown == ["hoot.v1", "screech.v1", "song.v1", "trill.v1"]
        page.wait_for("document.getElementById('app').dataset.games === '12'", timeout=60)
        # A game ends: the page shows it without a reload.
        page.evaluate("window.notReloaded = true")
        append_game(built.root)
        page.wait_for("document.getElementById('app').dataset.games === '13'", timeout=60)
        assert page.evaluate("window.notReloaded") is True
        assert "13 games played" in page.evaluate(
            "document.getElementById('ladder-state').textContent"
        )

        # A team signs in with its token, then uploads a version with the form.
        page.goto(server.url + "/ladder/signin")
        page.evaluate(
            f"document.getElementById('token').value = {built.tokens['owls']!r};"
            "document.getElementById('signin').submit()"
        )
        page.wait_for("location.pathname === '/ladder/me' && document.readyState === 'complete'")
        page.wait_for(READY)
        archive = tmp_path / "hoot.tar.gz"
        archive.write_bytes(
            tar_gz([entry("bot.yaml", b"name: hoot\nrun: python bot.py {address}\n")])
        )
        root = page.send("DOM.getDocument")["root"]["nodeId"]
        node = page.send("DOM.querySelector", {"nodeId": root, "selector": "#upload-file"})
        page.send("DOM.setFileInputFiles", {"files": [str(archive)], "nodeId": node["nodeId"]})
        page.evaluate(
            "document.getElementById('upload-bot').value = 'hoot';"
            "document.querySelector('#upload button').click()"
        )
        page.wait_for("document.getElementById('upload-result').dataset.ok", timeout=30)
        result = page.evaluate("document.getElementById('upload-result').textContent")
        assert result.endswith("hoot.v2 received"), result
        page.wait_for(
            "[...document.querySelectorAll('#submissions tbody tr')]"
            ".some(r => r.textContent.includes('hoot.v2'))",
            timeout=30,
        )
        assert page.errors() == []
    sub = built.db.submissions(bot="hoot")[-1]
    assert (sub.player, sub.state) == ("hoot.v2", "received")
    assert (built.root / "submissions" / str(sub.id) / "bot.yaml").is_file()
