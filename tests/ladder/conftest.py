"""Fixtures of the ladder's web tests: a ladder folder and its app under Starlette's TestClient."""

from __future__ import annotations

import pathlib
import re
import time
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from referee.ladder.web import create_ladder_app
from tests.ladder.webfixtures import Built, make_ladder


def refresh(client: TestClient) -> None:
    """Let the folder's index read the journal (the watcher thread's work) to its end."""
    catalog = client.app.state.catalog  # type: ignore[attr-defined]
    deadline = time.monotonic() + 20
    catalog.refresh_all(scan_budget_s=5)
    while time.monotonic() < deadline:
        folder = catalog.folders()[0]
        snap = folder.snapshot
        if not snap.indexing and snap.standings_games == snap.games_played:
            return
        time.sleep(0.1)
        catalog.refresh_all(scan_budget_s=5)


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html) or re.search(
        r'data-csrf="([^"]+)"', html
    )
    assert found, "no CSRF token in the page"
    return found[1]


def sign_in(client: TestClient, token: str) -> str:
    """Sign ``client`` in with ``token``; the CSRF token of its session's forms."""
    form = client.get("/ladder/signin")
    answer = client.post(
        "/ladder/signin",
        data={"token": token, "csrf": csrf_of(form.text)},
        follow_redirects=False,
    )
    assert answer.status_code == 303, answer.text
    me = client.get("/ladder/me")
    assert me.status_code == 200
    return csrf_of(me.text)


@pytest.fixture
def ladder(tmp_path: pathlib.Path) -> Built:
    return make_ladder(tmp_path)


@pytest.fixture
def client(ladder: Built) -> Iterator[TestClient]:
    app = create_ladder_app(ladder.site, follow=False)
    with TestClient(app, base_url="http://127.0.0.1") as test_client:
        refresh(test_client)
        yield test_client
