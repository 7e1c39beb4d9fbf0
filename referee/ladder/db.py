"""The ladder's database: teams and their tokens, bots, and submissions (SQLite, WAL mode).

One file, ``ladder.db``, in the ladder's output folder, beside the journal.
The journal holds the games (and so the ratings); the database holds who may
submit and what became of each submission. Every change is one transaction,
so a kill at any moment leaves the state before it or after it.

Schema versions: ``schema_version`` holds one row per migration applied;
:data:`MIGRATIONS` is the list of steps, each a list of SQL statements, and
opening a database applies the steps it lacks, in order, in one
transaction each. A database of a newer referee is refused.

Tokens: a team's token is ``hl_<id>_<secret>``, printed once when the team
is added; the database keeps the id (to find the team) and an scrypt hash of
the secret with a salt of its own, compared in constant time
(:func:`hmac.compare_digest`). Failed attempts are counted per client (an
address) and, past :data:`MAX_FAILURES` in :data:`FAILURE_WINDOW_S`, refused
before any hash is computed.

>>> import tempfile, pathlib
>>> db = LadderDB(pathlib.Path(tempfile.mkdtemp()) / "ladder.db")
>>> team, token = db.add_team("owls")
>>> db.authenticate(token, client="127.0.0.1").name
'owls'
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import hashlib
import hmac
import os
import pathlib
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from typing import Any

__all__ = [
    "FAILURE_WINDOW_S",
    "MAX_FAILURES",
    "MIGRATIONS",
    "NAME_PATTERN",
    "SCHEMA_VERSION",
    "STATES",
    "AuthError",
    "Bot",
    "LadderDB",
    "LadderDBError",
    "NameRefused",
    "RateLimited",
    "Submission",
    "Team",
    "check_name",
]

#: A submission's states, in the order it goes through them (or to ``rejected``).
#: ``uploading``: its folder is being unpacked (a kill then rejects it on restart).
STATES = ("uploading", "received", "building", "checking", "active", "retired", "rejected")
#: States a submission leaves by itself (the pipeline's work).
PENDING = ("received", "building", "checking")

#: Team and bot names: they name files and journal entries, and appear on pages.
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,23}$")
#: Failed token attempts a client may make in :data:`FAILURE_WINDOW_S` seconds.
MAX_FAILURES = 10
FAILURE_WINDOW_S = 60.0
#: scrypt's cost: about 20 ms a hash (tokens are long random secrets; this is depth).
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}

_MIGRATION_1 = [
    """CREATE TABLE teams (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        token_id TEXT NOT NULL UNIQUE,
        token_salt BLOB NOT NULL,
        token_hash BLOB NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
    )""",
    """CREATE TABLE bots (
        id INTEGER PRIMARY KEY,
        team_id INTEGER NOT NULL REFERENCES teams(id),
        name TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL
    )""",
    """CREATE TABLE submissions (
        id INTEGER PRIMARY KEY,
        bot_id INTEGER NOT NULL REFERENCES bots(id),
        version INTEGER NOT NULL,
        state TEXT NOT NULL,
        reason TEXT NOT NULL DEFAULT '',
        build_log TEXT NOT NULL DEFAULT '',
        check_report TEXT NOT NULL DEFAULT '',
        received_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (bot_id, version)
    )""",
    "CREATE INDEX submissions_state ON submissions(state)",
]
_MIGRATION_2 = [
    # When a version became active and retired (the pages show them), and how many times
    # its build was begun (a build that a kill cut short is begun again).
    "ALTER TABLE submissions ADD COLUMN activated_at TEXT",
    "ALTER TABLE submissions ADD COLUMN retired_at TEXT",
    "ALTER TABLE submissions ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0",
    """CREATE TABLE auth_failures (
        client TEXT NOT NULL,
        at REAL NOT NULL
    )""",
    "CREATE INDEX auth_failures_client ON auth_failures(client, at)",
]
#: The migration steps: step ``i`` takes a database from version ``i`` to ``i + 1``.
MIGRATIONS: tuple[list[str], ...] = (_MIGRATION_1, _MIGRATION_2)
SCHEMA_VERSION = len(MIGRATIONS)


class LadderDBError(Exception):
    """A database that cannot be used, or a change it refuses; the message says why."""


class AuthError(LadderDBError):
    """A token that is missing, wrong or revoked (the message does not say which it matched)."""


class RateLimited(LadderDBError):
    """Too many attempts; ``retry_after_s`` says when to try again."""

    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class NameRefused(LadderDBError):
    """A team or bot name that is malformed, taken, or another team's."""


@dataclasses.dataclass(frozen=True, slots=True)
class Team:
    id: int
    name: str
    created_at: str
    revoked_at: str | None

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None


@dataclasses.dataclass(frozen=True, slots=True)
class Bot:
    id: int
    team: str
    name: str
    created_at: str


@dataclasses.dataclass(frozen=True, slots=True)
class Submission:
    """One uploaded version of a bot and what became of it."""

    id: int
    team: str
    bot: str
    version: int
    state: str
    #: Why it was rejected (or retired), for its team.
    reason: str
    #: Paths relative to the ladder folder ('' until written); for its own team only.
    build_log: str
    check_report: str
    received_at: str
    updated_at: str
    activated_at: str | None
    retired_at: str | None
    attempts: int

    @property
    def player(self) -> str:
        """Its name in the journal and the standings: ``bot.vN``."""
        return player_name(self.bot, self.version)

    def to_dict(self, *, private: bool = False) -> dict[str, Any]:
        """As JSON; ``private`` (its own team) adds the reason's details and the file paths."""
        data = dataclasses.asdict(self)
        data["player"] = self.player
        if not private:
            for key in ("build_log", "check_report", "attempts"):
                data.pop(key)
        return data


def player_name(bot: str, version: int) -> str:
    """A version's name in the journal: ``bot.vN`` (a tournament bot name)."""
    return f"{bot}.v{version}"


def check_name(kind: str, name: Any) -> str:
    """``name`` if it is a good team or bot name, else :class:`NameRefused` saying why."""
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise NameRefused(
            f"{kind} name {name!r}: expected 1-24 letters, digits, _ or -, "
            "starting with a letter or digit"
        )
    return name


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def _hash(secret: str, salt: bytes) -> bytes:
    return hashlib.scrypt(secret.encode(), salt=salt, **_SCRYPT)  # type: ignore[arg-type]


_TOKEN = re.compile(r"^hl_([0-9a-f]{16})_([A-Za-z0-9_-]{32,64})$")
_DUMMY_SALT = b"\x00" * 16


class LadderDB:
    """The ladder's database at ``path`` (made and migrated when opened); thread-safe.

    Each thread has its own connection; every method is one transaction.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = pathlib.Path(path)
        self._local = threading.local()
        self._migrate()

    # Connections and migrations ---------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
                conn.row_factory = sqlite3.Row
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=FULL")  # a change acknowledged survives a crash
                conn.execute("PRAGMA foreign_keys=ON")
            except sqlite3.Error as error:
                raise LadderDBError(f"{self.path}: cannot open the database: {error}") from None
            self._local.conn = conn
        return conn

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        conn = self._connection()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.DatabaseError as error:
            raise LadderDBError(f"{self.path}: {error}") from None
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def version(self) -> int:
        """The schema version of the file (0: empty)."""
        conn = self._connection()
        try:
            exists = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_version'"
            ).fetchone()
        except sqlite3.DatabaseError as error:
            raise LadderDBError(f"{self.path}: not a ladder database: {error}") from None
        if not exists:
            return 0
        row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
        return int(row[0] or 0)

    def _migrate(self) -> None:
        self._connection().execute(
            "CREATE TABLE IF NOT EXISTS schema_version "
            "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
        )
        current = self.version()
        if current > SCHEMA_VERSION:
            raise LadderDBError(
                f"{self.path}: schema version {current}, made by a newer referee; this one "
                f"knows up to {SCHEMA_VERSION}"
            )
        for version in range(current, SCHEMA_VERSION):
            with self._transaction() as conn:
                # Again inside the lock: another process may have migrated meanwhile.
                row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
                if int(row[0] or 0) > version:
                    continue
                for statement in MIGRATIONS[version]:
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                    (version + 1, _now()),
                )

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    # Teams and tokens --------------------------------------------------------------------------

    def add_team(self, name: str) -> tuple[Team, str]:
        """A new team and its token (shown once: only its hash is kept)."""
        check_name("team", name)
        token_id = secrets.token_hex(8)
        secret = secrets.token_urlsafe(32)
        salt = secrets.token_bytes(16)
        with self._transaction() as conn:
            if conn.execute("SELECT 1 FROM teams WHERE name = ?", (name,)).fetchone():
                raise NameRefused(f"team name {name!r}: there is a team of that name already")
            conn.execute(
                "INSERT INTO teams (name, token_id, token_salt, token_hash, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (name, token_id, salt, _hash(secret, salt), _now()),
            )
        return self.team(name), f"hl_{token_id}_{secret}"

    def team(self, name: str) -> Team:
        row = self._connection().execute("SELECT * FROM teams WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise NameRefused(f"no team {name!r}")
        return _team(row)

    def teams(self) -> list[Team]:
        rows = self._connection().execute("SELECT * FROM teams ORDER BY id").fetchall()
        return [_team(r) for r in rows]

    def revoke_team(self, name: str) -> Team:
        """Revoke a team's token: it can no longer submit; its bots keep playing."""
        with self._transaction() as conn:
            changed = conn.execute(
                "UPDATE teams SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL",
                (_now(), name),
            ).rowcount
            if (
                not changed
                and not conn.execute("SELECT 1 FROM teams WHERE name = ?", (name,)).fetchone()
            ):
                raise NameRefused(f"no team {name!r}")
        return self.team(name)

    def authenticate(self, token: str | None, *, client: str) -> Team:
        """The team whose token this is, or :class:`AuthError` (:class:`RateLimited` when
        ``client`` has failed too often lately)."""
        now = time.time()
        conn = self._connection()
        since = now - FAILURE_WINDOW_S
        failures = conn.execute(
            "SELECT COUNT(*), MIN(at) FROM auth_failures WHERE client = ? AND at > ?",
            (client, since),
        ).fetchone()
        if failures[0] >= MAX_FAILURES:
            wait = max(1.0, failures[1] + FAILURE_WINDOW_S - now)
            raise RateLimited(
                f"too many failed token attempts from {client}; try again in {wait:.0f} s", wait
            )
        match = _TOKEN.match(token or "")
        row = None
        if match:
            row = conn.execute("SELECT * FROM teams WHERE token_id = ?", (match[1],)).fetchone()
        # The hash is computed whether or not the id is known: the time says nothing of it.
        salt = row["token_salt"] if row is not None else _DUMMY_SALT
        digest = _hash(match[2] if match else "", salt)
        good = row is not None and hmac.compare_digest(digest, row["token_hash"])
        if not good or row["revoked_at"] is not None:
            with self._transaction() as tx:
                tx.execute("DELETE FROM auth_failures WHERE at <= ?", (since,))
                tx.execute("INSERT INTO auth_failures (client, at) VALUES (?, ?)", (client, now))
            if not token:
                raise AuthError("no token: every upload needs a team's token")
            if good:
                raise AuthError("this token was revoked")
            raise AuthError("wrong token")
        return _team(row)

    # Bots and submissions ----------------------------------------------------------------------

    def bots(self, team: str | None = None) -> list[Bot]:
        query = "SELECT bots.*, teams.name AS team FROM bots JOIN teams ON teams.id = team_id"
        args: tuple[Any, ...] = ()
        if team is not None:
            query += " WHERE teams.name = ?"
            args = (team,)
        rows = self._connection().execute(query + " ORDER BY bots.id", args).fetchall()
        return [Bot(r["id"], r["team"], r["name"], r["created_at"]) for r in rows]

    def new_submission(self, team: Team, bot: str, *, per_hour: int) -> Submission:
        """A new version of ``bot`` for ``team``, in state ``uploading``.

        Refused: a malformed name, a bot of another team (:class:`NameRefused`),
        a revoked team (:class:`AuthError`), and more than ``per_hour`` uploads
        of the team in the last hour (:class:`RateLimited`).
        """
        check_name("bot", bot)
        hour_ago = (datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=1)).isoformat(
            timespec="seconds"
        )
        with self._transaction() as conn:
            team_row = conn.execute("SELECT * FROM teams WHERE id = ?", (team.id,)).fetchone()
            if team_row is None or team_row["revoked_at"] is not None:
                raise AuthError("this token was revoked")
            recent = conn.execute(
                "SELECT COUNT(*), MIN(received_at) FROM submissions "
                "JOIN bots ON bots.id = bot_id WHERE team_id = ? AND received_at > ?",
                (team.id, hour_ago),
            ).fetchone()
            if recent[0] >= per_hour:
                raise RateLimited(
                    f"team {team.name!r} has made {recent[0]} uploads in the last hour, the "
                    f"most allowed (submissions.per_team_per_hour: {per_hour}); try again later",
                    60.0,
                )
            row = conn.execute("SELECT * FROM bots WHERE name = ?", (bot,)).fetchone()
            if row is None:
                bot_id = conn.execute(
                    "INSERT INTO bots (team_id, name, created_at) VALUES (?, ?, ?)",
                    (team.id, bot, _now()),
                ).lastrowid
            elif row["team_id"] != team.id:
                raise NameRefused(f"bot name {bot!r} belongs to another team; choose another name")
            else:
                bot_id = row["id"]
            version = conn.execute(
                "SELECT COALESCE(MAX(version), 0) + 1 FROM submissions WHERE bot_id = ?",
                (bot_id,),
            ).fetchone()[0]
            now = _now()
            sub_id = conn.execute(
                "INSERT INTO submissions (bot_id, version, state, received_at, updated_at) "
                "VALUES (?, ?, 'uploading', ?, ?)",
                (bot_id, version, now, now),
            ).lastrowid
        assert sub_id is not None
        return self.submission(sub_id)

    def submission(self, submission_id: int) -> Submission:
        row = (
            self._connection()
            .execute(_SUBMISSIONS + " WHERE submissions.id = ?", (submission_id,))
            .fetchone()
        )
        if row is None:
            raise LadderDBError(f"no submission {submission_id}")
        return _submission(row)

    def submissions(
        self, *, team: str | None = None, bot: str | None = None, states: tuple[str, ...] = ()
    ) -> list[Submission]:
        """Submissions, oldest first, of a team, a bot, and in ``states`` (each when given)."""
        query, args = _SUBMISSIONS + " WHERE 1", []
        if team is not None:
            query += " AND teams.name = ?"
            args.append(team)
        if bot is not None:
            query += " AND bots.name = ?"
            args.append(bot)
        if states:
            query += f" AND state IN ({','.join('?' * len(states))})"
            args.extend(states)
        rows = self._connection().execute(query + " ORDER BY submissions.id", args).fetchall()
        return [_submission(r) for r in rows]

    def set_state(
        self,
        submission_id: int,
        state: str,
        *,
        reason: str | None = None,
        build_log: str | None = None,
        check_report: str | None = None,
        expect: tuple[str, ...] = (),
    ) -> Submission:
        """Move a submission to ``state`` (only from one of ``expect``, when given)."""
        if state not in STATES:
            raise ValueError(f"unknown state {state!r}")
        with self._transaction() as conn:
            row = conn.execute(
                "SELECT state FROM submissions WHERE id = ?", (submission_id,)
            ).fetchone()
            if row is None:
                raise LadderDBError(f"no submission {submission_id}")
            if expect and row["state"] not in expect:
                raise LadderDBError(
                    f"submission {submission_id} is {row['state']}, not {' or '.join(expect)}"
                )
            now = _now()
            sets = ["state = ?", "updated_at = ?"]
            args: list[Any] = [state, now]
            for column, value in (
                ("reason", reason),
                ("build_log", build_log),
                ("check_report", check_report),
            ):
                if value is not None:
                    sets.append(f"{column} = ?")
                    args.append(value)
            if state == "building":
                sets.append("attempts = attempts + 1")
            if state == "active":
                sets.append("activated_at = ?")
                args.append(now)
            if state == "retired":
                sets.append("retired_at = ?")
                args.append(now)
            conn.execute(
                f"UPDATE submissions SET {', '.join(sets)} WHERE id = ?", (*args, submission_id)
            )
        return self.submission(submission_id)

    def activate(self, submission_id: int, *, keep: int) -> tuple[Submission, list[Submission]]:
        """Make a checked submission active and retire its bot's versions beyond the newest
        ``keep``, in one transaction. Returns it and the versions retired."""
        with self._transaction() as conn:
            row = conn.execute(
                "SELECT bot_id, state, version FROM submissions WHERE id = ?", (submission_id,)
            ).fetchone()
            if row is None:
                raise LadderDBError(f"no submission {submission_id}")
            if row["state"] != "checking":
                raise LadderDBError(f"submission {submission_id} is {row['state']}, not checking")
            now = _now()
            conn.execute(
                "UPDATE submissions SET state = 'active', activated_at = ?, updated_at = ? "
                "WHERE id = ?",
                (now, now, submission_id),
            )
            active = conn.execute(
                "SELECT id FROM submissions WHERE bot_id = ? AND state = 'active' "
                "ORDER BY version DESC",
                (row["bot_id"],),
            ).fetchall()
            retired = [r["id"] for r in active[keep:]]
            for old in retired:
                conn.execute(
                    "UPDATE submissions SET state = 'retired', retired_at = ?, updated_at = ?, "
                    "reason = ? WHERE id = ?",
                    (now, now, f"replaced by version {row['version']}", old),
                )
        return self.submission(submission_id), [self.submission(i) for i in retired]

    def recover(self) -> list[Submission]:
        """After a restart: a build or check cut short is begun again (back to ``received``),
        an upload cut short is rejected. Returns the submissions waiting for the pipeline."""
        with self._transaction() as conn:
            now = _now()
            conn.execute(
                "UPDATE submissions SET state = 'received', updated_at = ? "
                "WHERE state IN ('building', 'checking')",
                (now,),
            )
            conn.execute(
                "UPDATE submissions SET state = 'rejected', updated_at = ?, "
                "reason = 'the upload was cut short (the ladder stopped during it); "
                "submit again' WHERE state = 'uploading'",
                (now,),
            )
        return self.submissions(states=("received",))


_SUBMISSIONS = (
    "SELECT submissions.*, bots.name AS bot, teams.name AS team FROM submissions "
    "JOIN bots ON bots.id = bot_id JOIN teams ON teams.id = bots.team_id"
)


def _team(row: sqlite3.Row) -> Team:
    return Team(row["id"], row["name"], row["created_at"], row["revoked_at"])


def _submission(row: sqlite3.Row) -> Submission:
    return Submission(
        id=row["id"],
        team=row["team"],
        bot=row["bot"],
        version=row["version"],
        state=row["state"],
        reason=row["reason"],
        build_log=row["build_log"],
        check_report=row["check_report"],
        received_at=row["received_at"],
        updated_at=row["updated_at"],
        activated_at=row["activated_at"],
        retired_at=row["retired_at"],
        attempts=row["attempts"],
    )
