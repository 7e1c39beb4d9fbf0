"""Attacks on the ladder's upload surface over HTTP, each refused clearly, none writing
outside the submission's folder.

Each test snapshots the whole tree around the ladder folder before the
attack and compares after it: a refused upload may leave only its own
submission's record (rejected, with the reason its team reads), never a
file outside ``submissions/<id>/``. The unpacking's own attacks, one member
kind at a time, are in test_unpack.py; here they come through the API.
"""

from __future__ import annotations

import pathlib
import re
import tarfile

import pytest
from starlette.testclient import TestClient

from referee.ladder.db import MAX_FAILURES
from tests.helpers import altered
from tests.ladder.archives import entry, link, special, tar_gz, tree, zero_file_bomb
from tests.ladder.conftest import csrf_of, sign_in
from tests.ladder.webfixtures import Built

BOT = tar_gz([entry("bot.yaml", b"name: x\nrun: python bot.py {address}\n"), entry("bot.py")])


def _post(client: TestClient, token: str | None, bot: str = "hoot", data: bytes = BOT, **extra):  # type: ignore[no-untyped-def]
    headers = {"Content-Type": "application/gzip", **extra}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return client.post(f"/api/submissions?bot={bot}", content=data, headers=headers)


def _outside(ladder: Built) -> dict[str, tuple[str, int]]:
    """The tree around the ladder folder, less what a refused upload may change: the
    database's files and the submissions' own folders."""
    found = tree(ladder.root.parent)
    return {
        k: v
        for k, v in found.items()
        if not re.match(r"ladder/(ladder\.db.*|submissions(/\d+(/.*)?)?)$", k)
    }


@pytest.fixture
def before(ladder: Built, client: TestClient) -> dict[str, tuple[str, int]]:
    (ladder.root.parent / "outside").mkdir()
    (ladder.root.parent / "outside" / "victim.txt").write_text("untouched")
    return _outside(ladder)


def _nothing_written(ladder: Built, before: dict[str, tuple[str, int]]) -> None:
    assert _outside(ladder) == before
    submissions = ladder.root / "submissions"
    for sub in ladder.db.submissions():
        if sub.state == "rejected":
            assert not (submissions / str(sub.id)).exists()


def test_no_token(client: TestClient, ladder: Built, before: dict) -> None:
    answer = _post(client, None)
    assert answer.status_code == 401
    assert answer.json()["error"] == "no token: every upload needs a team's token"
    assert answer.headers["www-authenticate"] == "Bearer"
    _nothing_written(ladder, before)


def test_a_wrong_token_and_a_revoked_one(client: TestClient, ladder: Built, before: dict) -> None:
    wrong = altered(ladder.tokens["owls"], 4)
    answer = _post(client, wrong)
    assert answer.status_code == 401 and answer.json()["error"] == "wrong token"
    ladder.db.revoke_team("larks")
    answer = _post(client, ladder.tokens["larks"], "trill")
    assert answer.status_code == 401 and answer.json()["error"] == "this token was revoked"
    assert not any(s.version > 1 for s in ladder.db.submissions())
    _nothing_written(ladder, before)


def test_guessing_tokens_is_rate_limited(client: TestClient, ladder: Built, before: dict) -> None:
    for i in range(MAX_FAILURES):
        assert _post(client, f"guess-{i}").status_code == 401
    answer = _post(client, ladder.tokens["owls"])  # even the right one, from this client, now
    assert answer.status_code == 429 and "too many failed token attempts" in answer.json()["error"]
    assert int(answer.headers["retry-after"]) >= 1
    _nothing_written(ladder, before)


def test_another_teams_bot_name(client: TestClient, ladder: Built, before: dict) -> None:
    answer = _post(client, ladder.tokens["larks"], "hoot")
    assert answer.status_code == 403
    assert "belongs to another team" in answer.json()["error"]
    assert [s.player for s in ladder.db.submissions(bot="hoot")] == ["hoot.v1"]
    _nothing_written(ladder, before)


def test_an_oversized_upload(client: TestClient, ladder: Built, before: dict) -> None:
    cap = ladder.site.config.submissions.max_upload_bytes
    answer = _post(client, ladder.tokens["owls"], data=b"\x1f\x8b" + bytes(cap))
    assert answer.status_code == 413 and "over the limit" in answer.json()["error"]

    def body():  # type: ignore[no-untyped-def]  # no Content-Length: counted as it arrives
        yield b"\x1f\x8b"
        for _ in range(cap // 65536 + 2):
            yield bytes(65536)

    answer = _post(client, ladder.tokens["owls"], data=body())  # type: ignore[arg-type]
    assert answer.status_code == 413 and "over the limit" in answer.json()["error"]
    rejected = ladder.db.submissions(bot="hoot", states=("rejected",))
    assert rejected and "over the limit" in rejected[-1].reason  # the team reads why
    _nothing_written(ladder, before)


def test_a_decompression_bomb(client: TestClient, ladder: Built, before: dict) -> None:
    bomb = zero_file_bomb(512 << 20)  # 512 MiB of zeros in about half a MiB
    answer = _post(client, ladder.tokens["owls"], data=bomb)
    assert answer.status_code == 422
    assert "decompression bomb" in answer.json()["error"]
    _nothing_written(ladder, before)


@pytest.mark.parametrize(
    ("member", "said"),
    [
        (entry("../../outside/victim.txt", b"pwned"), "'..'"),
        (entry("/tmp/ladder-attack.txt", b"pwned"), "absolute path"),
        (link("escape", "../../outside"), "a symbolic link"),
        (link("hard", "../../outside/victim.txt", hard=True), "a hard link"),
        (special("null", tarfile.CHRTYPE), "a device file"),
        (special("pipe", tarfile.FIFOTYPE), "a FIFO"),
        (entry("su", b"#!/bin/sh\n", mode=0o4755), "setuid"),
    ],
)
def test_members_out_of_the_folder(
    client: TestClient, ladder: Built, before: dict, member: tuple, said: str
) -> None:
    data = tar_gz([entry("bot.yaml"), member, entry(f"{member[0].name}/x", b"pwned")])
    answer = _post(client, ladder.tokens["owls"], data=data)
    assert answer.status_code == 422 and said in answer.json()["error"]
    assert (ladder.root.parent / "outside" / "victim.txt").read_text() == "untouched"
    assert not pathlib.Path("/tmp/ladder-attack.txt").exists()
    _nothing_written(ladder, before)


def test_a_flood_of_uploads(tmp_path: pathlib.Path) -> None:
    from referee.ladder.web import create_ladder_app
    from tests.ladder.webfixtures import make_ladder

    ladder = make_ladder(tmp_path, games=4, submissions={"per_team_per_hour": 3})
    with TestClient(create_ladder_app(ladder.site, follow=False), base_url="http://127.0.0.1") as c:
        # make_ladder's own 2 uploads of the owls count: one more is allowed this hour.
        assert _post(c, ladder.tokens["owls"]).status_code == 201
        for _ in range(5):
            answer = _post(c, ladder.tokens["owls"])
            assert answer.status_code == 429
            assert "uploads in the last hour" in answer.json()["error"]
            assert answer.headers["retry-after"]
        assert _post(c, ladder.tokens["larks"], "trill").status_code == 201  # others go on
    assert len(ladder.db.submissions(team="owls")) == 3


def test_a_missing_or_forged_csrf_token(client: TestClient, ladder: Built, before: dict) -> None:
    csrf = sign_in(client, ladder.tokens["owls"])
    headers = {"Content-Type": "application/gzip"}
    for token in (None, "", altered(csrf, 2), csrf_of(client.get("/ladder/signin").text)):
        sent = {**headers, **({"X-CSRF-Token": token} if token is not None else {})}
        answer = client.post("/ladder/me/upload?bot=hoot", content=BOT, headers=sent)
        assert answer.status_code == 403, token
        assert "CSRF token is missing or wrong" in answer.json()["error"]
    # A right token from another site's page (the browser says where the form was).
    answer = client.post(
        "/ladder/me/upload?bot=hoot",
        content=BOT,
        headers={**headers, "X-CSRF-Token": csrf, "Origin": "https://evil.example"},
    )
    assert answer.status_code == 403
    # Sign-out and sign-in forms too.
    assert client.post("/ladder/signout", data={"csrf": "forged"}).status_code == 403
    fresh = TestClient(client.app, base_url="http://127.0.0.1")
    answer = fresh.post("/ladder/signin", data={"token": ladder.tokens["owls"], "csrf": "x"})
    assert answer.status_code == 403 and "ladder_session" not in fresh.cookies
    assert [s.version for s in ladder.db.submissions(bot="hoot")] == [1]
    _nothing_written(ladder, before)


def test_a_session_cookie_cannot_be_forged(client: TestClient, ladder: Built) -> None:
    sign_in(client, ladder.tokens["owls"])
    real = client.cookies["ladder_session"]
    body, _ = real.rsplit(".", 1)
    forged = body.replace("owls", "larks") + "." + real.rsplit(".", 1)[1]
    other = TestClient(client.app, base_url="http://127.0.0.1", cookies={"ladder_session": forged})
    assert other.get("/ladder/me", follow_redirects=False).status_code == 303


def test_markup_in_names_is_escaped_everywhere(client: TestClient, ladder: Built) -> None:
    markup = "<img src=x onerror=alert(1)>"
    # A malformed name is refused at the upload ...
    answer = _post(client, ladder.tokens["owls"], bot=markup)
    assert answer.status_code == 400 and "expected 1-24 letters" in answer.json()["error"]
    # ... and one that got into the database all the same (by hand) is escaped on every page.
    conn = ladder.db._connection()
    conn.execute("UPDATE teams SET name = ? WHERE name = 'larks'", (markup,))
    conn.execute("UPDATE bots SET name = ? WHERE name = 'trill'", (markup + "\u202e",))
    conn.execute("UPDATE submissions SET reason = ? WHERE id = 1", (markup,))
    for path in ("/ladder", f"/ladder/teams/{markup}"):
        text = client.get(path).text
        assert "<img" not in text and "&lt;img src=x onerror=alert(1)&gt;" in text, path
    # The JSON the page's script fills the table from (with textContent): data, never sniffed
    # as markup, its strings printable (the bidi override shown as an escape).
    data = client.get("/api/ladder")
    assert data.headers["content-type"] == "application/json"
    assert data.headers["x-content-type-options"] == "nosniff"
    assert "\u202e" not in data.text and "\\u202e" in data.text
    sign_in(client, ladder.tokens["owls"])
    assert "<img" not in client.get("/ladder/me").text


def test_one_upload_at_a_time_per_team(ladder: Built) -> None:
    from referee.ladder.web import _Refusal, _Uploads

    uploads = _Uploads(ladder.site)
    with uploads.one_at_a_time("owls"):
        with pytest.raises(_Refusal) as refusal, uploads.one_at_a_time("owls"):
            pass
        assert refusal.value.status == 429 and "upload in progress" in refusal.value.message
        with uploads.one_at_a_time("larks"):  # another team's goes on
            pass
    with uploads.one_at_a_time("owls"):  # and once done, the team's next
        pass


def test_non_ascii_csrf_tokens_and_cookies_are_refused_not_a_crash(
    client: TestClient, ladder: Built, before: dict
) -> None:
    """hmac.compare_digest raises on non-ASCII str: every such value must be a plain 403/303."""
    sign_in(client, ladder.tokens["owls"])
    assert client.post("/ladder/signout", data={"csrf": "é" * 43}).status_code == 403
    answer = client.post(
        "/ladder/me/upload?bot=hoot",
        content=BOT,
        headers={"Content-Type": "application/gzip", "X-CSRF-Token": "é".encode("latin-1")},
    )
    assert answer.status_code == 403
    fresh = TestClient(client.app, base_url="http://127.0.0.1")
    answer = fresh.post("/ladder/signin", data={"token": ladder.tokens["owls"], "csrf": "ß"})
    assert answer.status_code == 403 and "ladder_session" not in fresh.cookies
    cookie = "owls:1:x.\u00e9".encode("latin-1")
    answer = fresh.get("/ladder/me", headers={"Cookie": b"ladder_session=" + cookie})
    assert answer.status_code in (200, 303) and "hoot" not in answer.text
    _nothing_written(ladder, before)
