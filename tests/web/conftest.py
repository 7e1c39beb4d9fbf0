"""Fixtures of the web tests: tournament folders made without playing (tests/web/synth.py)."""

from __future__ import annotations

import pathlib
import time

import pytest
from starlette.testclient import TestClient

from referee.web import Catalog, create_app
from referee.web.app import LOOPBACK_HOSTS
from tests.web.synth import synthesize

#: A bot name a bot author might choose to break a page: markup, a bidi override, a newline.
EVIL = "<img src=x onerror=alert(1)>\u202e\n"
BOTS = ("alpha", "beta", "gamma", "delta", EVIL)


def settle(catalog: Catalog) -> None:
    """Index everything there is to index now (what the watcher thread does in the server)."""
    for _ in range(1000):
        changed = catalog.refresh_all(scan_budget_s=5.0)
        if not changed and not any(f.pending for f in catalog.folders()):
            return
        time.sleep(0.02)
    raise AssertionError("the index never settled")


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A folder of tournament folders: ``small`` (authenticated), ``published`` (no key)."""
    root = tmp_path_factory.mktemp("runs")
    synthesize(root / "small", games=60, bots=BOTS, seed=5, name="small")
    synthesize(root / "published", games=12, bots=BOTS[:4], seed=6, name="published", key=False)
    return root


@pytest.fixture
def client_for() -> object:
    """``client_for(root)``: a TestClient of the app over ``root``, indexed, and its catalog."""
    clients: list[TestClient] = []

    def make(root: pathlib.Path) -> tuple[TestClient, Catalog]:
        catalog = Catalog(root)
        settle(catalog)
        app = create_app(
            root, catalog=catalog, follow=False, allowed_hosts=(*LOOPBACK_HOSTS, "testserver")
        )
        client = TestClient(app)
        clients.append(client)
        return client, catalog

    yield make
    for client in clients:
        client.close()
