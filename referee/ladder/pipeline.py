"""The submission pipeline: received -> building -> checking -> active, or rejected.

A submission's folder, unpacked by the web (:mod:`referee.ladder.unpack`)
into ``submissions/<id>/`` of the ladder folder, is read as a bot folder (its
``bot.yaml``), built in the build sandbox exactly as a tournament builds
(:func:`referee.players.builds.build_bot`, under ``build``'s limits and time
out: a build that never ends is stopped and costs that submission only),
then checked by check-bot (:func:`referee.checkbot.run.check_bot`) under the
ladder's limits and sandbox. One that passes becomes active, retiring its
bot's versions beyond ``submissions.versions_kept_active``; one that fails
is rejected with its reason. The build log and the check report (text and
JSON) stay in ``builds/<id>/`` for its team to read.

Each step is recorded in the database before it starts, so after a kill a
submission caught building or checking is begun again
(:meth:`referee.ladder.db.LadderDB.recover`).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import pathlib
from collections.abc import Callable, Sequence

from referee.checkbot.run import check_bot
from referee.folder.layout import BUILDS_NAME
from referee.ladder.config import LadderConfig
from referee.ladder.db import LadderDB, Submission
from referee.players.builds import build_bot
from referee.players.specs import BotSpec, BotSpecError, parse_bot
from referee.safetext import shown_text

__all__ = [
    "CHECK_REPORT",
    "CHECK_TEXT",
    "SUBMISSIONS_NAME",
    "Pipeline",
    "submission_folder",
    "submission_spec",
]

log = logging.getLogger(__name__)

#: The check report's file names in a submission's ``builds/<id>/`` folder.
CHECK_REPORT = "check.json"
CHECK_TEXT = "check.txt"
#: The folder of the ladder's folder that holds each submission's files, ``<id>/``.
SUBMISSIONS_NAME = "submissions"


def submission_folder(root: pathlib.Path, submission_id: int) -> pathlib.Path:
    """Where submission ``submission_id``'s files are unpacked in the ladder folder ``root``."""
    return root / SUBMISSIONS_NAME / str(submission_id)


def submission_spec(config: LadderConfig, folder: pathlib.Path, player: str) -> BotSpec:
    """The bot of a submission's folder, named ``player`` (``bot.vN``), in the ladder's sandbox.

    Raises :class:`~referee.players.specs.BotSpecError` for a folder that is
    not a bot folder (no ``bot.yaml``, a bad one, a built-in's name).
    """
    try:
        spec = parse_bot(str(folder), name=player)
    except BotSpecError as error:  # said to the team: the server's paths left out
        raise BotSpecError(str(error).replace(str(folder), "the upload")) from None
    if spec.command is None:
        raise BotSpecError(f"{folder.name}: not a bot folder (a bot.yaml with a run command)")
    return dataclasses.replace(spec, sandbox=config.sandbox)


class Pipeline:
    """Builds and checks a submission (:meth:`process`).

    The ladder's service calls it from ``build.parallel`` worker threads at once
    (the database keeps a connection per thread; the game loop locks its own state).
    """

    def __init__(
        self,
        config: LadderConfig,
        db: LadderDB,
        *,
        root: pathlib.Path,
        hidden: Sequence[pathlib.Path],
        on_active: Callable[[Submission, list[Submission]], None],
    ) -> None:
        self.config = config
        self.db = db
        self.root = root
        #: What no build or bot may see (the ladder folder; its own folder is shown to it).
        self.hidden = list(hidden)
        #: Told of each submission that became active and the versions it retired.
        self.on_active = on_active

    def folder(self, submission_id: int) -> pathlib.Path:
        return submission_folder(self.root, submission_id)

    def work_dir(self, submission_id: int) -> pathlib.Path:
        return self.root / BUILDS_NAME / str(submission_id)

    def process(self, submission: Submission) -> Submission:
        """Take one ``received`` submission to ``active`` or ``rejected``; never raises for
        the bot's faults (a referee error rejects it too, saying so)."""
        try:
            return self._process(submission)
        except Exception as error:  # a bug here must cost this submission only
            log.exception("submission %s", submission.id)
            return self.db.set_state(
                submission.id,
                "rejected",
                reason=f"the ladder failed to process it ({type(error).__name__}: {error}); "
                "tell the organisers",
            )

    def _process(self, submission: Submission) -> Submission:
        sub_id = submission.id
        work = self.work_dir(sub_id)
        work.mkdir(parents=True, exist_ok=True)
        self.db.set_state(sub_id, "building", expect=("received",))
        try:
            spec = submission_spec(self.config, self.folder(sub_id), submission.player)
        except BotSpecError as error:
            return self._reject(sub_id, shown_text(str(error)))
        build = self.config.build
        built = build_bot(
            spec,
            work,
            timeout_s=build.timeout_s,
            sandbox=self.config.sandbox,
            limits=build.limits,
            credentials=build.credentials,
            hidden=self.hidden,
            registries=build.registries,
        )
        build_log = self._relative(pathlib.Path(built.log_path))
        if not built.ok:
            last = built.reason or (built.tail.strip().splitlines()[-1:] or ["failed"])[0]
            return self._reject(
                sub_id, f"the build failed: {shown_text(last)[:300]}", build_log=build_log
            )
        self.db.set_state(sub_id, "checking", build_log=build_log, expect=("building",))
        limits = self.config.submissions
        report = check_bot(
            spec,
            out_dir=work / "check",
            move_time_ms=limits.check_move_time_ms,
            startup_timeout_s=float(limits.check_startup_timeout_s),
            build=False,
            full_game=limits.check_full_game,
            limits=self.config.limits,
            sandbox=self.config.sandbox,
        )
        (work / CHECK_REPORT).write_text(json.dumps(report.to_dict(), indent=2) + "\n")
        (work / CHECK_TEXT).write_text(report.text() + "\n")
        check_path = self._relative(work / CHECK_TEXT)
        if not report.ok:
            failed = [c for c in report.checks if c.status.value == "FAIL"]
            words = "; ".join(f"{c.id}: {shown_text(c.summary)[:160]}" for c in failed[:3])
            return self.db.set_state(
                sub_id, "rejected", reason=f"check-bot failed: {words}", check_report=check_path
            )
        self.db.set_state(sub_id, "checking", check_report=check_path, expect=("checking",))
        active, retired = self.db.activate(
            sub_id, keep=self.config.submissions.versions_kept_active
        )
        self.on_active(active, retired)
        return active

    def _reject(self, sub_id: int, reason: str, *, build_log: str | None = None) -> Submission:
        return self.db.set_state(sub_id, "rejected", reason=reason, build_log=build_log)

    def _relative(self, path: pathlib.Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)
