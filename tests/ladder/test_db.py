"""referee.ladder.db: the schema and its migrations, teams and tokens, bots and submissions."""

from __future__ import annotations

import pathlib
import sqlite3
import time

import pytest

from referee.ladder import db as dbmodule
from referee.ladder.db import (
    MAX_FAILURES,
    MIGRATIONS,
    SCHEMA_VERSION,
    AuthError,
    LadderDB,
    LadderDBError,
    NameRefused,
    RateLimited,
)
from tests.helpers import altered


@pytest.fixture
def db(tmp_path: pathlib.Path) -> LadderDB:
    return LadderDB(tmp_path / "ladder.db")


def _old_database(path: pathlib.Path, version: int) -> None:
    """A database as a referee of schema ``version`` left it, with a team and a submission."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT)")
    for step in range(version):
        for statement in MIGRATIONS[step]:
            conn.execute(statement)
        conn.execute("INSERT INTO schema_version VALUES (?, 'then')", (step + 1,))
    salt = b"s" * 16
    conn.execute(
        "INSERT INTO teams (name, token_id, token_salt, token_hash, created_at) "
        "VALUES ('owls', '0123456789abcdef', ?, ?, 'then')",
        (salt, dbmodule._hash("x" * 43, salt)),
    )
    conn.execute("INSERT INTO bots (team_id, name, created_at) VALUES (1, 'hoot', 'then')")
    conn.execute(
        "INSERT INTO submissions (bot_id, version, state, received_at, updated_at) "
        "VALUES (1, 1, 'building', 'then', 'then')"
    )
    conn.close()


def test_a_new_database_is_at_the_schema_version_in_wal_mode(tmp_path: pathlib.Path) -> None:
    db = LadderDB(tmp_path / "ladder.db")
    assert db.version() == SCHEMA_VERSION == len(MIGRATIONS)
    mode = sqlite3.connect(tmp_path / "ladder.db").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_an_old_database_is_migrated_and_keeps_its_rows(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "ladder.db"
    _old_database(path, 1)
    db = LadderDB(path)
    assert db.version() == SCHEMA_VERSION
    (submission,) = db.submissions()
    assert (submission.team, submission.bot, submission.state) == ("owls", "hoot", "building")
    assert submission.attempts == 0 and submission.activated_at is None  # the new columns
    # Its token still works after the migration.
    assert db.authenticate("hl_0123456789abcdef_" + "x" * 43, client="c").name == "owls"
    # Migrating is done once: opening again changes nothing.
    assert LadderDB(path).version() == SCHEMA_VERSION
    rows = sqlite3.connect(path).execute("SELECT version FROM schema_version").fetchall()
    assert [r[0] for r in rows] == list(range(1, SCHEMA_VERSION + 1))


def test_a_newer_database_is_refused(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "ladder.db"
    LadderDB(path)
    sqlite3.connect(path, isolation_level=None).execute(
        "INSERT INTO schema_version VALUES (?, 'later')", (SCHEMA_VERSION + 1,)
    )
    with pytest.raises(LadderDBError, match=r"schema version \d+, made by a newer referee"):
        LadderDB(path)


def test_a_file_that_is_no_database_is_named(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "ladder.db"
    path.write_bytes(b"not sqlite at all" * 100)
    with pytest.raises(LadderDBError, match=r"ladder\.db"):
        LadderDB(path)


def test_only_the_token_hash_is_kept(db: LadderDB, tmp_path: pathlib.Path) -> None:
    _, token = db.add_team("owls")
    secret = token.split("_", 2)[2]
    data = (tmp_path / "ladder.db").read_bytes() + (tmp_path / "ladder.db-wal").read_bytes()
    assert secret.encode() not in data
    row = sqlite3.connect(tmp_path / "ladder.db").execute("SELECT * FROM teams").fetchone()
    assert secret not in repr(row)


def test_tokens_authenticate_their_team_only(db: LadderDB) -> None:
    owls, owl_token = db.add_team("owls")
    larks, lark_token = db.add_team("larks")
    assert db.authenticate(owl_token, client="a") == owls
    assert db.authenticate(lark_token, client="a") == larks
    prefix, token_id, secret = owl_token.split("_", 2)
    wrong = [
        None,
        "",
        "hello",
        f"{prefix}_{token_id}_{altered(secret)}",
        f"{prefix}_{lark_token.split('_')[1]}_{secret}",  # a real id with another's secret
        owl_token + "x",
    ]
    for token in wrong:
        with pytest.raises(AuthError):
            db.authenticate(token, client=f"c{token!r}")


def test_a_revoked_token_is_refused(db: LadderDB) -> None:
    _, token = db.add_team("owls")
    db.revoke_team("owls")
    with pytest.raises(AuthError, match="revoked"):
        db.authenticate(token, client="a")
    assert db.team("owls").revoked


def test_failed_attempts_are_rate_limited_per_client(db: LadderDB) -> None:
    _, token = db.add_team("owls")
    for _ in range(MAX_FAILURES):
        with pytest.raises(AuthError):
            db.authenticate("hl_0000000000000000_" + "a" * 43, client="attacker")
    # Now even the right token is refused from that client, before any hash is computed ...
    with pytest.raises(RateLimited, match="too many failed token attempts") as limited:
        db.authenticate(token, client="attacker")
    assert limited.value.retry_after_s > 0
    # ... but not from another.
    assert db.authenticate(token, client="someone else").name == "owls"


def test_the_rate_limit_window_passes(db: LadderDB, monkeypatch: pytest.MonkeyPatch) -> None:
    _, token = db.add_team("owls")
    for _ in range(MAX_FAILURES):
        with pytest.raises(AuthError):
            db.authenticate("nope", client="c")
    later = time.time() + dbmodule.FAILURE_WINDOW_S + 1
    monkeypatch.setattr(dbmodule.time, "time", lambda: later)
    assert db.authenticate(token, client="c").name == "owls"


def test_names_are_checked(db: LadderDB) -> None:
    for bad in ("", "-x", "a b", "<b>", "x" * 25, "a/b", "a.b", "ü"):
        with pytest.raises(NameRefused, match="expected 1-24 letters"):
            db.add_team(bad)
    db.add_team("owls")
    with pytest.raises(NameRefused, match="already"):
        db.add_team("owls")


def test_a_bot_name_belongs_to_the_team_that_first_submitted_it(db: LadderDB) -> None:
    owls, _ = db.add_team("owls")
    larks, _ = db.add_team("larks")
    first = db.new_submission(owls, "hoot", per_hour=10)
    again = db.new_submission(owls, "hoot", per_hour=10)
    assert (first.version, again.version, first.player) == (1, 2, "hoot.v1")
    with pytest.raises(NameRefused, match="belongs to another team"):
        db.new_submission(larks, "hoot", per_hour=10)
    assert [s.team for s in db.submissions(bot="hoot")] == ["owls", "owls"]


def test_uploads_are_rate_limited_per_team(db: LadderDB) -> None:
    owls, _ = db.add_team("owls")
    larks, _ = db.add_team("larks")
    for _ in range(3):
        db.new_submission(owls, "hoot", per_hour=3)
    with pytest.raises(RateLimited, match="3 uploads in the last hour"):
        db.new_submission(owls, "other", per_hour=3)
    db.new_submission(larks, "trill", per_hour=3)


def test_a_revoked_team_cannot_submit(db: LadderDB) -> None:
    owls, _ = db.add_team("owls")
    db.revoke_team("owls")
    with pytest.raises(AuthError, match="revoked"):
        db.new_submission(owls, "hoot", per_hour=3)


def _checked(db: LadderDB, submission_id: int) -> None:
    for state in ("received", "building", "checking"):
        db.set_state(submission_id, state)


def test_a_new_version_retires_the_oldest_beyond_those_kept(db: LadderDB) -> None:
    owls, _ = db.add_team("owls")
    ids = [db.new_submission(owls, "hoot", per_hour=10).id for _ in range(3)]
    retired_each = []
    for sub_id in ids:
        _checked(db, sub_id)
        _, retired = db.activate(sub_id, keep=2)
        retired_each.append([s.version for s in retired])
    assert retired_each == [[], [], [1]]
    states = {s.version: (s.state, s.reason) for s in db.submissions(bot="hoot")}
    assert states[1] == ("retired", "replaced by version 3")
    assert states[2][0] == states[3][0] == "active"


def test_only_a_checked_submission_becomes_active(db: LadderDB) -> None:
    owls, _ = db.add_team("owls")
    sub = db.new_submission(owls, "hoot", per_hour=10)
    with pytest.raises(LadderDBError, match="not checking"):
        db.activate(sub.id, keep=1)
    with pytest.raises(LadderDBError, match="is uploading, not received"):
        db.set_state(sub.id, "building", expect=("received",))


def test_recovery_after_a_kill(db: LadderDB) -> None:
    """A build or a check cut short is begun again; an upload cut short is rejected."""
    owls, _ = db.add_team("owls")
    building = db.new_submission(owls, "a", per_hour=10)
    db.set_state(building.id, "received")
    db.set_state(building.id, "building")
    checking = db.new_submission(owls, "b", per_hour=10)
    _checked(db, checking.id)
    uploading = db.new_submission(owls, "c", per_hour=10)
    active = db.new_submission(owls, "d", per_hour=10)
    _checked(db, active.id)
    db.activate(active.id, keep=1)
    waiting = db.recover()
    assert [s.id for s in waiting] == [building.id, checking.id]
    assert db.submission(uploading.id).state == "rejected"
    assert "cut short" in db.submission(uploading.id).reason
    assert db.submission(active.id).state == "active"
    assert db.submission(building.id).attempts == 1


def test_public_and_private_views_of_a_submission(db: LadderDB) -> None:
    owls, _ = db.add_team("owls")
    sub = db.new_submission(owls, "hoot", per_hour=10)
    sub = db.set_state(sub.id, "rejected", reason="check-bot failed", build_log="builds/1/x.log")
    public = sub.to_dict()
    assert "build_log" not in public and "check_report" not in public
    assert sub.to_dict(private=True)["build_log"] == "builds/1/x.log"
