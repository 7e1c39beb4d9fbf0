"""The ladder's web service (referee.ladder.web): the upload API, the pages, a team's session."""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from tests.ladder.archives import entry, tar_gz
from tests.ladder.conftest import csrf_of, refresh, sign_in
from tests.ladder.webfixtures import Built, append_game

BOT = tar_gz([entry("bot.yaml", b"name: hoot\nrun: python bot.py {address}\n"), entry("bot.py")])


def _upload(client: TestClient, token: str, bot: str, data: bytes = BOT, **headers: str):  # type: ignore[no-untyped-def]
    return client.post(
        f"/api/submissions?bot={bot}",
        content=data,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/gzip", **headers},
    )


def test_an_upload_is_received_unpacked_and_followed(client: TestClient, ladder: Built) -> None:
    answer = _upload(client, ladder.tokens["owls"], "hoot")
    assert answer.status_code == 201, answer.text
    data = answer.json()
    assert (data["player"], data["state"], data["version"]) == ("hoot.v2", "received", 2)
    folder = ladder.root / "submissions" / str(data["id"])
    assert (folder / "bot.yaml").read_text().startswith("name: hoot")
    assert ladder.received == [1]  # the pipeline was woken
    status = client.get(
        f"/api/submissions/{data['id']}",
        headers={"Authorization": f"Bearer {ladder.tokens['owls']}"},
    )
    assert status.status_code == 200 and status.json()["state"] == "received"
    assert "build_log" in status.json()  # its own team sees the private fields
    # Another team's token sees no such submission (not even that it exists).
    other = client.get(
        f"/api/submissions/{data['id']}",
        headers={"Authorization": f"Bearer {ladder.tokens['larks']}"},
    )
    assert other.status_code == 404


def test_the_ladder_shows_ratings_intervals_and_versions(client: TestClient, ladder: Built) -> None:
    data = client.get("/api/ladder").json()
    players = {r["player"]: r for r in data["rows"]}
    assert set(players) == {"hoot.v1", "screech.v1", "trill.v1", "song.v1"}
    hoot = players["hoot.v1"]
    assert hoot["team"] == "owls" and hoot["games"] > 0 and hoot["sigma"] > 0
    assert hoot["rank"] is not None and hoot["rank_ci95"] is not None
    low, high = hoot["rating_ci95"]
    assert low < hoot["mu"] < high and high - low == pytest.approx(2 * 1.96 * hoot["sigma"])
    page = client.get("/ladder")
    assert page.status_code == 200
    assert page.headers["content-security-policy"].startswith("default-src 'none'")
    for player in players:
        assert f'data-player="{player}"' in page.text
    assert "/t/ladder/games" in page.text  # games and replays are the tournament's pages
    team = client.get("/ladder/teams/owls")
    assert team.status_code == 200 and "screech.v1" in team.text and "trill" not in team.text
    assert client.get("/ladder/teams/nobody").status_code == 404


def test_the_replays_are_the_tournament_pages(client: TestClient) -> None:
    games = client.get("/api/t/ladder/games").json()["games"]
    assert games
    replay = client.get(f"/t/ladder/games/{games[0]['game_id']}")
    assert replay.status_code == 200 and "<html" in replay.text.lower()


def test_the_ladder_events_follow_games_and_submissions(client: TestClient, ladder: Built) -> None:
    before = client.get("/api/ladder").json()
    append_game(ladder.root)
    refresh(client)
    after = client.get("/api/ladder").json()
    assert after["games_played"] == before["games_played"] + 1
    assert after["version"] != before["version"]
    _upload(client, ladder.tokens["larks"], "trill")
    assert client.get("/api/ladder").json()["version"] != after["version"]
    with client.stream("GET", "/api/ladder/events") as stream:
        lines = stream.iter_lines()
        assert next(lines).startswith("retry:")
        next(lines)
        assert next(lines) == "event: update"
        assert json.loads(next(lines).removeprefix("data: "))["version"]


def test_a_team_signs_in_sees_its_own_and_uploads(client: TestClient, ladder: Built) -> None:
    ladder.db.set_state(1, "rejected", reason="check-bot failed: <b>R5</b>")
    ladder.db.set_state(3, "rejected", reason="the larks' secret reason")
    csrf = sign_in(client, ladder.tokens["owls"])
    cookie = next(c for c in client.cookies.jar if c.name == "ladder_session")
    assert cookie.has_nonstandard_attr("HttpOnly")
    assert cookie.get_nonstandard_attr("SameSite") == "strict"
    me = client.get("/ladder/me")
    assert "check-bot failed: &lt;b&gt;R5&lt;/b&gt;" in me.text
    assert "secret reason" not in me.text
    answer = client.post(
        "/ladder/me/upload?bot=hoot",
        content=BOT,
        headers={"Content-Type": "application/gzip", "X-CSRF-Token": csrf},
    )
    assert answer.status_code == 201, answer.text
    assert answer.json()["player"] == "hoot.v2"
    assert "hoot.v2" in client.get("/ladder/me").text
    # Its build log, read from the folder, for its own team only.
    log = ladder.root / "builds" / "1" / "build.log"
    log.parent.mkdir(parents=True)
    log.write_text("compiling <script>alert(1)</script>\n")
    ladder.db.set_state(1, "rejected", build_log="builds/1/build.log")
    shown = client.get("/ladder/me/submissions/1/log")
    assert shown.status_code == 200 and shown.headers["content-type"].startswith("text/plain")
    assert "sandbox" in shown.headers["content-security-policy"]
    assert "compiling" in shown.text
    assert client.get("/ladder/me/submissions/3/log").status_code == 404  # the larks'
    # Signing out ends the session.
    out = client.post("/ladder/signout", data={"csrf": csrf}, follow_redirects=False)
    assert out.status_code == 303
    assert client.get("/ladder/me", follow_redirects=False).status_code == 303


def test_a_revoked_team_is_signed_out(client: TestClient, ladder: Built) -> None:
    sign_in(client, ladder.tokens["larks"])
    ladder.db.revoke_team("larks")
    assert client.get("/ladder/me", follow_redirects=False).headers["location"] == "/ladder/signin"


def test_a_wrong_token_does_not_sign_in(client: TestClient) -> None:
    form = client.get("/ladder/signin")
    answer = client.post(
        "/ladder/signin",
        data={"token": "hl_0123456789abcdef_" + "x" * 40, "csrf": csrf_of(form.text)},
    )
    assert answer.status_code == 401 and "wrong token" in answer.text
    assert "ladder_session" not in client.cookies


def test_the_public_pages_are_read_only(client: TestClient) -> None:
    for path in ("/ladder", "/ladder/teams/owls", "/t/ladder", "/api/ladder"):
        assert client.post(path).status_code == 405


def test_a_foreign_host_header_is_refused(client: TestClient) -> None:
    # DNS rebinding: a page of another site reaching the loopback server by a name of its own.
    assert client.get("/api/ladder", headers={"Host": "evil.example"}).status_code == 400
    assert client.get("/api/ladder", headers={"Host": "127.0.0.1"}).status_code == 200


def test_sessions_expire_and_csrf_tokens_are_bound_to_them() -> None:
    import doctest

    from referee.ladder import sessions

    assert doctest.testmod(sessions).failed == 0
    now = [1_000_000.0]
    keys = sessions.SessionKeys(b"k" * 32, now=lambda: now[0])
    cookie = keys.issue("owls")
    assert keys.team_of(cookie) == "owls"
    token = keys.csrf(cookie)
    assert keys.csrf_ok(cookie, token)
    assert not keys.csrf_ok(keys.issue("owls"), token)  # another session's form
    assert not keys.csrf_ok(None, token) and not keys.csrf_ok(cookie, None)
    assert sessions.SessionKeys(b"j" * 32).team_of(cookie) is None  # another server's key
    now[0] += sessions.SESSION_S + 1
    assert keys.team_of(cookie) is None
