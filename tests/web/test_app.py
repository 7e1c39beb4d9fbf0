"""``referee serve`` over HTTP: the pages and their JSON, not-found, path traversal, folders
still being written, unauthenticated and refused folders, escaping, read-only."""

from __future__ import annotations

import hashlib
import json
import pathlib
import re
import shutil

import pytest

from referee.folder import (
    Journal,
    JournalError,
    Layout,
    TournamentState,
    authenticated_journal,
    read_journal,
    seal,
)
from referee.stats.standings import compute_standings
from referee.web.index import rating_history
from referee.web.journal import JournalTail
from referee.web.server import is_loopback, warning_for
from tests.web.conftest import BOTS, settle
from tests.web.synth import synthesize

STATIC = pathlib.Path(__file__).resolve().parents[2] / "referee" / "web" / "static"


def test_the_list_the_standings_and_a_bot(runs: pathlib.Path, client_for) -> None:
    client, _ = client_for(runs)
    listing = client.get("/api/tournaments").json()
    by_id = {t["id"]: t for t in listing["tournaments"]}
    assert set(by_id) == {"small", "published"}
    assert by_id["small"]["status"] == "finished"
    assert (by_id["small"]["games_played"], by_id["small"]["games_scheduled"]) == (60, 60)
    assert by_id["small"]["authenticated"] is True
    assert by_id["published"]["authenticated"] is False

    for path in ("/", "/t/small", "/t/small/games", "/t/small/bots/alpha", "/t/small/gauntlet"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert response.headers["content-type"].startswith("text/html")
        assert "script-src 'self'" in response.headers["content-security-policy"]

    standings = client.get("/api/t/small").json()["standings"]
    assert standings["games_played"] == 60
    assert [b["rank"] for b in standings["bots"]] == [1, 2, 3, 4, 5]
    assert all(b["points_ci95"] for b in standings["bots"])

    bot = client.get("/api/t/small/bots/alpha").json()
    assert bot["row"]["bot"] == "alpha"
    hands = bot["row"]["hands"]
    assert sum(bot["points_histogram"]) + sum(bot["negative_points"].values()) == hands
    assert len(bot["ratings"]) == bot["row"]["games"]
    assert bot["slowest"] and bot["slowest"][0]["ms"] >= bot["slowest"][-1]["ms"]
    assert {h["opponent"] for h in bot["head_to_head"]} <= {b["bot"] for b in standings["bots"]}


def test_the_ordinal_chart_ends_at_the_standings_ordinal(runs: pathlib.Path, client_for) -> None:
    _, catalog = client_for(runs)
    folder = catalog.get("small")
    assert folder is not None
    entries = list(read_journal(folder.layout.journal))
    state = TournamentState.load(folder.layout.state)
    standings = compute_standings(entries, bots=state.participants or [])
    history = rating_history(list(folder.snapshot.games))
    for row in standings.bots:
        assert history[row.bot][-1][1] == pytest.approx(row.ordinal, abs=1e-3)


def test_not_found(runs: pathlib.Path, client_for) -> None:
    client, _ = client_for(runs)
    for path in (
        "/t/nothing",
        "/t/small/bots/nobody",
        "/t/small/games/t99-d1-r1",
        "/t/small/nothing",
        "/t/small/bots/alpha/more",
        "/nothing",
        "/static/nothing.js",
    ):
        response = client.get(path)
        assert response.status_code == 404, path
        assert "text/html" in response.headers["content-type"] or path.startswith("/static")
    for path in ("/api/t/nothing", "/api/t/small/bots/nobody", "/api/t/small/nothing"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert response.json()["error"]


TRAVERSALS = (
    "/t/../../etc/passwd",
    "/t/%2e%2e/%2e%2e/etc/passwd",
    "/t/small/../../../etc/passwd",
    "/t/small/games/..%2fkey",
    "/t/small/games/%2e%2e%2fkey",
    "/t/small/games/..%2f..%2f..%2fetc%2fpasswd",
    "/t/small/key",
    "/t/small/games/key",
    "/api/t/small/bots/..%2f..%2fkey",
    "/static/../../seal.py",
    "/static/%2e%2e/%2e%2e/seal.py",
    "/static/..%2f..%2fseal.py",
    "/static/vendor/../../app.py",
    "/small/key",
    "/key",
)


@pytest.mark.parametrize("path", TRAVERSALS)
def test_path_traversal_reaches_nothing(runs: pathlib.Path, client_for, path: str) -> None:
    client, _ = client_for(runs)
    key = (runs / "small" / seal.KEY_NAME).read_text().strip()
    response = client.get(path)
    assert response.status_code in (400, 404), (path, response.status_code)
    assert key not in response.text
    assert "root:" not in response.text and "def " not in response.text


def test_a_journal_pointing_outside_the_folder(tmp_path: pathlib.Path, client_for) -> None:
    """A hand-edited journal (no key: read as it is) whose log_path leaves the folder."""
    root = tmp_path / "runs"
    layout = synthesize(root / "edited", games=4, bots=BOTS[:4], key=False)
    secret = tmp_path / "secret.jsonl"
    secret.write_text('{"type":"game","secret":"do not serve"}\n')
    lines = layout.journal.read_text().splitlines()
    last = json.loads(lines[-1])
    last["log_path"] = "../../secret.jsonl"
    lines[-1] = json.dumps(last)
    layout.journal.write_text("\n".join(lines) + "\n")
    client, _ = client_for(root)
    games = client.get("/api/t/edited/games").json()["games"]
    edited = [g for g in games if g["game_id"] == last["game_id"]]
    assert edited and edited[0]["has_log"] is False
    response = client.get(f"/t/edited/games/{last['game_id']}")
    assert response.status_code == 404
    assert "do not serve" not in response.text


def test_a_folder_still_being_written(tmp_path: pathlib.Path, client_for) -> None:
    """A torn last journal line is a game being journaled: not counted until it is whole."""
    root = tmp_path / "runs"
    layout = synthesize(root / "live", games=8, bots=BOTS[:4])
    data = layout.journal.read_bytes()
    lines = data.splitlines(keepends=True)
    layout.journal.write_bytes(b"".join(lines[:-1]) + lines[-1][:40])  # torn mid-write
    (root / "starting").mkdir()  # the runner has written its state, not yet its journal
    shutil.copy(layout.state, root / "starting" / "tournament.json")
    (root / "broken").mkdir()  # a state file copied in by hand, caught half way
    (root / "broken" / "tournament.json").write_text('{"format": "hearts-re')
    client, catalog = client_for(root)

    live = client.get("/api/t/live").json()
    assert live["games_played"] == 7
    assert live["status"] == "playing"  # unfinished, written just now
    assert live["error"] is None
    starting = client.get("/api/t/starting").json()
    assert starting["status"] == "starting" and starting["games_played"] == 0
    assert client.get("/t/starting").status_code == 200
    broken = client.get("/api/t/broken").json()
    assert broken["status"] == "unreadable" and "tournament.json" in broken["error"]
    assert client.get("/t/broken").status_code == 200
    shutil.copy(layout.state, root / "broken" / "tournament.json")

    before = catalog.get("live").snapshot.version
    layout.journal.write_bytes(data)  # the line is finished
    settle(catalog)
    assert client.get("/api/t/broken").json()["status"] == "starting"
    live = client.get("/api/t/live").json()
    assert live["games_played"] == 8 and live["status"] == "finished"
    assert live["version"] > before
    assert live["standings"]["games_played"] == 8


def test_games_added_while_served_update_the_standings(tmp_path: pathlib.Path, client_for) -> None:
    root = tmp_path / "runs"
    layout = synthesize(root / "grow", games=8, bots=BOTS[:4])
    client, catalog = client_for(root)
    first = client.get("/api/t/grow").json()
    entries = [e for e in read_journal(layout.journal) if e["type"] == "game"]
    key = seal.folder_key(layout.root)
    assert key is not None
    journal = Journal(layout.journal, key)
    try:
        extra = dict(entries[0], game_id="t9-d1-r1", index=100)
        del extra["mac"]
        journal.append(extra)
    finally:
        journal.close()
    settle(catalog)
    second = client.get("/api/t/grow").json()
    assert second["games_played"] == first["games_played"] + 1
    assert second["standings"]["games_played"] == 9
    assert second["version"] > first["version"]


def test_a_published_folder_is_read_unauthenticated(runs: pathlib.Path, client_for) -> None:
    client, _ = client_for(runs)
    data = client.get("/api/t/published").json()
    assert data["authenticated"] is False and data["error"] is None
    assert data["standings"]["games_played"] == 12


def test_a_tampered_folder_is_refused(tmp_path: pathlib.Path, client_for) -> None:
    root = tmp_path / "runs"
    layout = synthesize(root / "tampered", games=8, bots=BOTS[:4])
    text = layout.journal.read_text()
    layout.journal.write_text(text.replace('"scores":[', '"scores":[1', 1))
    client, _ = client_for(root)
    data = client.get("/api/t/tampered").json()
    assert data["status"] == "refused"
    assert "journal.jsonl:" in data["error"] and "MAC" in data["error"]
    assert data["standings"] is None
    assert client.get("/api/t/tampered/games").json()["games"] == []
    with pytest.raises(JournalError):
        list(
            authenticated_journal(
                layout, TournamentState.load(layout.state), seal.folder_key(layout.root) or b""
            )
        )


def test_a_changed_log_is_refused_by_the_replay(tmp_path: pathlib.Path, client_for) -> None:
    root = tmp_path / "runs"
    layout = synthesize(root / "logs", games=4, bots=BOTS[:4])
    client, _ = client_for(root)
    ok = client.get("/t/logs/games/t1-d1-r1")
    assert ok.status_code == 200 and "Hearts replay" in ok.text
    assert "script-src 'unsafe-inline'" in ok.headers["content-security-policy"]
    log = layout.game_log("t1-d1-r2")
    log.write_bytes(log.read_bytes().replace(b'"ms":', b'"ms": ', 1))
    assert client.get("/t/logs/games/t1-d1-r2").status_code == 409


def test_the_journal_tail_agrees_with_the_folder(tmp_path: pathlib.Path) -> None:
    """Read in pieces as it grows, the journal gives what authenticated_journal gives."""
    layout = synthesize(tmp_path / "t", games=10, bots=BOTS[:4])
    state = TournamentState.load(layout.state)
    key = seal.folder_key(layout.root)
    assert key is not None
    whole = list(authenticated_journal(layout, state, key))
    data = layout.journal.read_bytes()
    layout.journal.write_bytes(b"")
    tail = JournalTail(layout, state, key)
    read: list[dict[str, object]] = []
    for cut in range(0, len(data) + 997, 997):  # pieces that cut lines anywhere
        with open(layout.journal, "r+b") as handle:
            handle.seek(0, 2)
            handle.write(data[handle.tell() : cut])
        read += tail.read()
    assert read == whole

    moved = data.splitlines(keepends=True)
    moved[3], moved[4] = moved[4], moved[3]
    layout.journal.write_bytes(b"".join(moved))
    with pytest.raises(JournalError, match=r"journal.jsonl:4"):
        JournalTail(layout, state, key).read()
    with pytest.raises(JournalError, match=r"journal.jsonl:4"):
        list(authenticated_journal(layout, state, key))


def test_every_bot_string_is_escaped(runs: pathlib.Path, client_for) -> None:
    client, _ = client_for(runs)
    shown = "<img src=x onerror=alert(1)>\\u202e\\n"  # as the pages show it, and link to it
    page = client.get("/t/small/bots/" + shown)
    assert page.status_code == 200
    assert client.get("/api/t/small/bots/" + shown).json()["row"]["games"] > 0
    assert "<img src=x" not in page.text
    assert "&lt;img src=x onerror=alert(1)&gt;" in page.text
    assert "\u202e" not in page.text  # shown as an escape, not applied
    data = client.get("/api/t/small").json()
    names = [b["bot"] for b in data["standings"]["bots"]]
    assert "<img src=x onerror=alert(1)>\\u202e\\n" in names
    assert not any("\u202e" in n or "\n" in n for n in names)
    games = client.get("/api/t/small/games").json()
    assert all("\u202e" not in b for g in games["games"] for b in g["bots"])
    assert shown in games["bots"] and not any("\u202e" in b for b in games["bots"])
    theirs = client.get("/api/t/small/games", params={"bot": shown}).json()  # as the page asks
    assert theirs["total"] and all(shown in g["bots"] for g in theirs["games"])
    script = (STATIC / "serve.js").read_text()
    assert "innerHTML" not in script and "insertAdjacentHTML" not in script


def test_read_only(runs: pathlib.Path, client_for) -> None:
    client, _ = client_for(runs)
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        for path in ("/", "/t/small", "/api/t/small", "/api/t/small/games"):
            assert client.request(method, path).status_code == 405, (method, path)


def test_only_loopback_host_names(runs: pathlib.Path, client_for) -> None:
    """Bound to loopback, a request for another host name (DNS rebinding) is refused."""
    client, _ = client_for(runs)
    assert client.get("/", headers={"host": "evil.example"}).status_code == 400
    assert client.get("/", headers={"host": "127.0.0.1:8000"}).status_code == 200
    assert client.get("/", headers={"host": "localhost:8000"}).status_code == 200
    assert client.get("/", headers={"host": "[::1]:8000"}).status_code == 200
    assert client.get("/", headers={"host": "127.0.0.1.evil.example"}).status_code == 400
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.4")
    assert warning_for("127.0.0.1") is None
    assert "not loopback" in (warning_for("0.0.0.0") or "")


def test_the_game_filters(runs: pathlib.Path, client_for) -> None:
    client, _ = client_for(runs)

    def games(**query: str) -> list[dict[str, object]]:
        data = client.get("/api/t/small/games", params={**query, "limit": "200"}).json()
        assert data["total"] == len(data["games"])
        return data["games"]

    everything = games()
    assert len(everything) == 60
    mine = games(bot="beta")
    assert mine and all("beta" in g["bots"] for g in mine)
    won = games(bot="beta", result="win")
    lost = games(bot="beta", result="loss")
    assert len(won) + len(lost) == len(mine)
    assert all(g["placements"][g["bots"].index("beta")] == 1 for g in won)
    assert all(g["placements"][g["bots"].index("beta")] != 1 for g in lost)
    faulty = games(faults="any")
    clean = games(faults="none")
    assert faulty and len(faulty) + len(clean) == 60
    assert all(sum(g["faults"]) for g in faulty) and not any(sum(g["faults"]) for g in clean)
    moons = games(moons="any")
    assert all(sum(g["moons"]) for g in moons)
    assert len(moons) + len(games(moons="none")) == 60
    page = client.get("/api/t/small/games", params={"limit": "10", "offset": "5"}).json()
    assert [g["index"] for g in page["games"]] == list(range(5, 15))
    assert client.get("/api/t/small/games", params={"faults": "maybe"}).status_code == 400
    assert client.get("/api/t/small/games", params={"offset": "x"}).status_code == 400


def test_a_gauntlet_from_its_llr_entries(tmp_path: pathlib.Path, client_for) -> None:
    """Journal entries with an ``llr`` (any type but game) are drawn as they are."""
    root = tmp_path / "runs"
    layout = synthesize(root / "g", games=4, bots=BOTS[:4])
    key = seal.folder_key(layout.root)
    assert key is not None
    journal = Journal(layout.journal, key)
    try:
        for n, llr in enumerate((0.4, 1.1, 3.1), start=1):
            journal.append(
                {"type": "sprt", "baseline": "old", "games": 8 * n, "llr": llr,
                 "lower": -2.94, "upper": 2.94, "decision": "H1" if llr > 2.94 else "none"}
            )  # fmt: skip
    finally:
        journal.close()
    client, _ = client_for(root)
    data = client.get("/api/t/g/gauntlet").json()
    assert data["is_gauntlet"] is True
    points = data["gauntlet"]["series"]["old"]
    assert [p["x"] for p in points] == [8, 16, 24]
    assert [p["llr"] for p in points] == [0.4, 1.1, 3.1]


def test_the_vendored_chart_library_is_the_pinned_one() -> None:
    note = (STATIC / "vendor" / "chartjs" / "VENDOR.md").read_text()
    library = STATIC / "vendor" / "chartjs" / "chart.umd.min.js"
    digest = hashlib.sha256(library.read_bytes()).hexdigest()
    assert digest in note
    assert library.read_text().startswith("/*!\n * Chart.js v4.6.1")
    assert (STATIC / "vendor" / "chartjs" / "LICENSE.md").exists()
    for template in (STATIC.parent / "templates").glob("*.html"):
        text = template.read_text()
        assert not re.search(r"(src|href)=\"(https?:)?//", text), template


def test_the_served_static_files(runs: pathlib.Path, client_for) -> None:
    client, _ = client_for(runs)
    for path in (
        "/static/serve.js",
        "/static/serve.css",
        "/static/vendor/chartjs/chart.umd.min.js",
    ):
        assert client.get(path).status_code == 200, path


def test_a_folder_replaced_is_read_again(tmp_path: pathlib.Path, client_for) -> None:
    """``--fresh`` moves the folder aside and starts again: the index follows the new one."""
    root = tmp_path / "runs"
    synthesize(root / "again", games=8, bots=BOTS[:4], seed=1)
    client, catalog = client_for(root)
    assert client.get("/api/t/again").json()["games_played"] == 8
    shutil.move(root / "again", tmp_path / "aside")
    synthesize(root / "again", games=4, bots=BOTS[:4], seed=2)
    settle(catalog)
    data = client.get("/api/t/again").json()
    assert data["games_played"] == 4 and data["error"] is None
    assert Layout(root / "again").journal.exists()


def test_the_event_streams(runs: pathlib.Path, client_for) -> None:
    """Each stream says ``update`` with the version at once (and on every change after)."""
    client, catalog = client_for(runs)
    for path, version in (
        ("/api/events", catalog.version),
        ("/api/t/small/events", catalog.get("small").snapshot.version),
    ):
        client.app.state.closing.clear()
        with client.stream("GET", path) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            text = ""
            for chunk in response.iter_text():
                text += chunk
                if "event: update" in text and text.endswith("\n\n"):
                    client.app.state.closing.set()  # what stopping the server does
                    break
        data = json.loads(text.split("event: update\ndata: ", 1)[1].split("\n", 1)[0])
        assert data["version"] == version
