"""The ladder service: one folder, a database of teams and submissions, and games played for days.

:class:`Ladder` is the one object the command line (``referee ladder``) and
the web (:mod:`referee.ladder.web`) use. Its public methods are the web's
interface:

- :meth:`Ladder.authenticate` (a token to a :class:`~referee.ladder.db.Team`,
  failed attempts rate-limited per client);
- :meth:`Ladder.begin_submission`, then the web unpacks the upload into
  :meth:`Ladder.submission_folder` (:mod:`referee.ladder.unpack`, with
  :meth:`Ladder.unpack_limits`) and calls :meth:`Ladder.upload_received` or
  :meth:`Ladder.upload_refused`;
- :meth:`Ladder.submission`, :meth:`Ladder.submissions`, :meth:`Ladder.teams`,
  :meth:`Ladder.bots`: the public facts; :meth:`Ladder.build_log` and
  :meth:`Ladder.check_report`, a submission's files for its own team only.

:meth:`Ladder.start` runs the service in two threads of this process: the
submission pipeline (:mod:`referee.ladder.pipeline`, which builds and checks
``build.parallel`` submissions at a time, each in a worker thread) and the
games (:class:`~referee.ladder.games.GameLoop`). The folder is an ordinary
tournament folder (journal, game logs, key, ``tournament.json``) whose saved
config is marked as a ladder's (:mod:`referee.schedule.ladder`), so
``referee standings``, ``verify``, ``replay`` and ``serve`` read it while it
runs. A kill at any moment loses nothing: the journal is appended and
fsynced game by game (the ratings are the journal's), and the database
change of each submission step is one transaction.
"""

from __future__ import annotations

import concurrent.futures
import datetime
import logging
import pathlib
import sys
import threading
from collections.abc import Callable
from typing import Any

from referee import __version__
from referee.folder import (
    Journal,
    Layout,
    RunEntry,
    TournamentError,
    TournamentState,
    check_journal_end,
    seal,
    start_state,
)
from referee.ladder.config import LadderConfig
from referee.ladder.db import (
    PENDING,
    LadderDB,
    LadderDBError,
    Submission,
    Team,
)
from referee.ladder.pipeline import SUBMISSIONS_NAME, Pipeline, submission_folder, submission_spec
from referee.ladder.unpack import UnpackLimits
from referee.players.specs import BotSpec, BotSpecError

__all__ = ["DB_NAME", "Ladder", "LadderError", "NotYours", "UploadDesk"]

log = logging.getLogger(__name__)

#: The database's file name in the ladder folder.
DB_NAME = "ladder.db"

Echo = Callable[[str], None]


class LadderError(Exception):
    """A ladder that cannot start or a request it refuses; the message says why."""


class NotYours(LadderError):
    """A team asked for another team's submission files."""


class UploadDesk:
    """The web's side of uploads: a token to a team, a new submission, its folder, its
    upload received or refused. :class:`Ladder` is one; so is
    :class:`~referee.ladder.web.LadderSite`, the web without the service's threads
    (its tests), so that both take uploads by the same code."""

    config: LadderConfig
    db: LadderDB
    layout: Layout

    def _received(self) -> None:
        """Called once an upload is received (the pipeline may take it)."""

    def authenticate(self, token: str | None, client: str) -> Team:
        """The team of ``token``; :class:`~referee.ladder.db.AuthError` for no, a wrong or a
        revoked token, :class:`~referee.ladder.db.RateLimited` after too many failures from
        ``client`` (an address)."""
        return self.db.authenticate(token, client=client)

    def unpack_limits(self) -> UnpackLimits:
        """The limits an upload is unpacked under (``submissions`` of LADDER.yaml)."""
        s = self.config.submissions
        return UnpackLimits(
            compressed_bytes=s.max_upload_bytes,
            unpacked_bytes=s.max_unpacked_bytes,
            files=s.max_files,
            ratio=float(s.max_ratio),
        )

    def begin_submission(self, team: Team, bot: str) -> Submission:
        """A new version of ``team``'s bot ``bot``, state ``uploading``; its folder
        (:meth:`submission_folder`) does not exist yet (the unpacking makes it).

        Refused with :class:`~referee.ladder.db.NameRefused` (a bad name, another team's
        bot), :class:`~referee.ladder.db.AuthError` (a revoked team) or
        :class:`~referee.ladder.db.RateLimited` (``submissions.per_team_per_hour``).
        """
        submission = self.db.new_submission(
            team, bot, per_hour=self.config.submissions.per_team_per_hour
        )
        (self.layout.root / SUBMISSIONS_NAME).mkdir(exist_ok=True)
        return submission

    def submission_folder(self, submission_id: int) -> pathlib.Path:
        """Where a submission's files are unpacked: ``submissions/<id>/`` of the folder."""
        return submission_folder(self.layout.root, submission_id)

    def upload_received(self, submission_id: int) -> Submission:
        """The upload is unpacked: the pipeline takes it (received, then building ...)."""
        submission = self.db.set_state(submission_id, "received", expect=("uploading",))
        self._received()
        return submission

    def upload_refused(self, submission_id: int, reason: str) -> Submission:
        """The upload could not be unpacked: rejected with ``reason`` (the submitter's)."""
        return self.db.set_state(submission_id, "rejected", reason=reason, expect=("uploading",))


class Ladder(UploadDesk):
    """The ladder of a config: its folder, database and (once started) its service."""

    def __init__(self, config: LadderConfig, *, echo: Echo | None = None) -> None:
        self.config = config
        self.layout = Layout(config.output)
        self.echo: Echo = echo or (lambda text: print(text, file=sys.stderr, flush=True))
        self.stopping = threading.Event()
        self._key = b""
        self._state: TournamentState | None = None
        self._journal: Journal | None = None
        self._wake = threading.Event()
        self._threads: list[threading.Thread] = []
        self._games: Any = None  # GameLoop, once started
        self.run_number = 1
        self._open_folder()
        try:
            self.db = LadderDB(self.layout.root / DB_NAME)
        except LadderDBError as error:
            raise LadderError(str(error)) from None
        self.pipeline = Pipeline(
            config,
            self.db,
            root=self.layout.root,
            hidden=self.hidden(),
            on_active=self._activated,
        )

    # The folder ---------------------------------------------------------------------------------

    def _open_folder(self) -> None:
        """Open the ladder's folder, or make it: its key and ``tournament.json``."""
        root, config = self.layout.root, self.config
        try:
            self.layout.check()
        except TournamentError as error:
            raise LadderError(str(error)) from None
        digest = config.digest()
        if self.layout.state.exists():
            try:
                state = TournamentState.load(self.layout.state)
                key = seal.folder_key(root)
            except (TournamentError, seal.SealError) as error:
                raise LadderError(str(error)) from None
            if state.config.get("ladder") is None:
                raise LadderError(
                    f"{root} holds a tournament, not a ladder; choose another output folder"
                )
            if state.config_hash != digest:
                raise LadderError(
                    f"{root} holds a ladder with other settings (rules, time control, limits "
                    "or lifetimes changed): serve it with its own config, or choose another "
                    "output folder"
                )
            if key is None or seal.key_id(key) != state.key_id:
                raise LadderError(
                    f"{root / seal.KEY_NAME}: the ladder's key is missing or not its own; the "
                    "deals and the journal's MACs depend on it: put it back"
                )
            try:
                check_journal_end(self.layout, state, key)
            except TournamentError as error:
                raise LadderError(str(error)) from None
            self._key, self._state = key, state
            return
        if root.exists() and any(
            p.name not in (DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm")
            and not seal.is_key_file(p.name)
            for p in root.iterdir()
        ):
            raise LadderError(
                f"{root} is not empty and holds no ladder ({self.layout.state.name}); choose "
                "another output folder"
            )
        root.mkdir(parents=True, exist_ok=True)
        try:
            self._key = seal.folder_key(root) or seal.create_key(root / seal.KEY_NAME)
        except (seal.SealError, OSError) as error:
            raise LadderError(f"{root / seal.KEY_NAME}: cannot make the key: {error}") from None
        state = start_state(self.layout, config, config_hash=digest, key=self._key)
        self._state = state

    @property
    def seed(self) -> int:
        assert self._state is not None
        return self._state.seed

    def hidden(self) -> list[pathlib.Path]:
        """What no build or bot may see: the ladder folder (each bot's own folder in it is
        shown to it all the same) and the config."""
        return [self.layout.root, self.config.path]

    # The web's interface (beyond UploadDesk's) -------------------------------------------------

    def _received(self) -> None:
        self._wake.set()  # the pipeline takes the upload now, not at its next poll

    def submission(self, submission_id: int) -> Submission:
        """One submission (:class:`~referee.ladder.db.LadderDBError` when there is none)."""
        return self.db.submission(submission_id)

    def submissions(self, *, team: str | None = None, bot: str | None = None) -> list[Submission]:
        return self.db.submissions(team=team, bot=bot)

    def teams(self) -> list[Team]:
        return self.db.teams()

    def bots(self, team: str | None = None) -> list[Any]:
        return self.db.bots(team)

    def build_log(self, submission_id: int, team: Team) -> str:
        """A submission's build log, for its own team only (:class:`NotYours`)."""
        return self._private_file(submission_id, team, "build_log")

    def check_report(self, submission_id: int, team: Team) -> str:
        """A submission's check-bot report (text), for its own team only (:class:`NotYours`)."""
        return self._private_file(submission_id, team, "check_report")

    def _private_file(self, submission_id: int, team: Team, which: str) -> str:
        submission = self.db.submission(submission_id)
        if submission.team != team.name:
            raise NotYours(f"submission {submission_id} is not team {team.name!r}'s")
        relative = getattr(submission, which)
        if not relative:
            return ""
        path = (self.layout.root / relative).resolve()
        if self.layout.root.resolve() not in path.parents:
            return ""
        try:
            return path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def status(self) -> dict[str, Any]:
        """What the service is doing: active bots, games in flight, submissions waiting."""
        games = self._games
        return {
            "name": self.config.name,
            "running": bool(self._threads) and not self.stopping.is_set(),
            "active": games.active() if games is not None else [],
            "games_in_flight": games.in_flight() if games is not None else 0,
            "games_played": games.played if games is not None else 0,
            "waiting": len(self.db.submissions(states=PENDING)),
        }

    # The service ---------------------------------------------------------------------------------

    def spec(self, submission: Submission) -> BotSpec:
        """The bot of an active (or retired) submission, named ``bot.vN``."""
        return submission_spec(
            self.config, self.submission_folder(submission.id), submission.player
        )

    def start(self) -> None:
        """Start the pipeline and the games, each in a thread of its own (:meth:`stop`)."""
        from referee.ladder.games import GameLoop

        if self._threads:
            return
        self._journal = Journal(self.layout.journal, self._key, promise_end=True)
        self._games = GameLoop(self, self._journal, self._key)
        self.run_number = self._games.run_number
        assert self._state is not None
        state = self._state
        self._journal.append(
            RunEntry(
                run=self.run_number,
                started_at=_now(),
                referee_version=__version__,
                concurrency=self.config.concurrency,
                games_left=None,  # a ladder plays on: no schedule ahead
                name=state.name,
                seed=state.seed,
                config_hash=state.config_hash,
                participants=None,
                excluded=dict(state.excluded),
                games_scheduled=None,
                sealed_end=True,
            )
        )
        waiting = self.db.recover()
        if waiting:
            self.echo(f"{len(waiting)} submission(s) to build and check")
        for submission in self.db.submissions(states=("active",)):
            self._add_active(submission)
        self._threads = [
            threading.Thread(target=self._pipeline_loop, name="ladder-pipeline", daemon=True),
            threading.Thread(target=self._games.run, name="ladder-games", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        """Stop: the games in flight get a moment to finish (those that do are journaled)."""
        self.stopping.set()
        self._wake.set()
        for thread in self._threads:
            thread.join(timeout=30)
        if self._games is not None:
            self._games.close()
        if self._journal is not None:
            self._journal.close()
        self.db.close()

    def _pipeline_loop(self) -> None:
        """Take received submissions, ``build.parallel`` at a time, until the ladder stops.

        Each is processed in a worker thread of its own (its build and its
        check-bot run); this thread only hands them out, oldest first, and
        wakes when an upload arrives or a worker is done.
        """
        slots = max(1, self.config.build.parallel)
        in_flight: dict[int, concurrent.futures.Future[None]] = {}
        with concurrent.futures.ThreadPoolExecutor(
            slots, thread_name_prefix="ladder-submission"
        ) as workers:
            while not self.stopping.is_set():
                try:
                    for sub_id in [i for i, done in in_flight.items() if done.done()]:
                        del in_flight[sub_id]
                    waiting = [
                        submission
                        for submission in self.db.submissions(states=("received",))
                        if submission.id not in in_flight
                    ]
                    for submission in waiting[: slots - len(in_flight)]:
                        in_flight[submission.id] = workers.submit(self._process_one, submission)
                    self._wake.wait(1.0)
                    self._wake.clear()
                except Exception as error:  # the database, say: the pipeline goes on after a pause
                    log.exception("the submission pipeline")
                    self.echo(f"the submission pipeline failed ({error}); going on in 5 s")
                    self.stopping.wait(5.0)

    def _process_one(self, submission: Submission) -> None:
        """Build and check one submission (in a pipeline worker), then wake the pipeline."""
        try:
            self.echo(f"building and checking {submission.player} (team {submission.team})")
            done = self.pipeline.process(submission)
            reason = f" ({done.reason})" if done.reason else ""
            self.echo(f"{done.player}: {done.state}{reason}")
        except Exception as error:  # the database, say: this submission is taken again later
            log.exception("submission %s", submission.id)
            self.echo(f"the submission pipeline failed on {submission.player} ({error})")
            self.stopping.wait(5.0)  # a pause, as for a failing database, not a tight loop
        finally:
            self._wake.set()  # a slot is free

    def _activated(self, submission: Submission, retired: list[Submission]) -> None:
        self._add_active(submission)
        if self._games is not None:
            for old in retired:
                self._games.retire(old.player)

    def _add_active(self, submission: Submission) -> None:
        try:
            spec = self.spec(submission)
        except BotSpecError as error:  # its folder was changed or removed since it was checked
            log.error("active submission %s cannot be read: %s", submission.id, error)
            self.db.set_state(
                submission.id, "rejected", reason=f"its folder cannot be read any more: {error}"
            )
            return
        if self._games is not None:
            self._games.activate(submission.player, spec)


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
