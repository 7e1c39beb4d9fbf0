"""``LADDER.yaml``: a ladder's settings, every key checked before the service starts.

A ladder shares a tournament's sections (``rules``, ``time_control``,
``fault_policy``, ``limits``, ``sandbox``, ``bot_processes``,
``bot_lifetime``, ``concurrency``, ``build``, ``executor``), read by the same
checks as a tournament config (:mod:`referee.tournament.config`), and adds
two of its own: ``matchmaking`` and ``submissions``. There is no ``bots``
section: bots arrive as submissions. A mistake raises
:class:`~referee.tournament.config.ConfigError` naming the file and key path::

    ladders/class.yaml: submissions.max_upload_bytes: expected an integer ...

The keys are documented in docs/ladder.md.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pathlib
from typing import Any

from referee.engine import Rules
from referee.players.policy import FaultPolicy, Limits, TimeControl
from referee.tournament import config as tconfig
from referee.tournament import config_checks
from referee.tournament.config import BuildConfig, ConfigError, ExecutorConfig
from referee.yamlfile import YamlFileError, load_yaml

__all__ = [
    "LadderConfig",
    "MatchmakingConfig",
    "SubmissionLimits",
    "load_ladder_config",
    "parse_ladder_config",
]

_TOP_KEYS = (
    "name",
    "seed",
    "rules",
    "time_control",
    "fault_policy",
    "limits",
    "sandbox",
    "bot_processes",
    "bot_lifetime",
    "concurrency",
    "build",
    "executor",
    "output",
    "ranking",
    "matchmaking",
    "submissions",
)
_MATCHMAKING_KEYS = ("first_sets", "candidates", "seed_tables")
_SUBMISSION_KEYS = (
    "max_upload_bytes",
    "max_unpacked_bytes",
    "max_files",
    "max_ratio",
    "per_team_per_hour",
    "versions_kept_active",
    "check_move_time_ms",
    "check_full_game",
    "check_startup_timeout_s",
)
#: The most bytes of one upload (compressed) any ladder allows.
MAX_UPLOAD_CAP = 1024**3


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class MatchmakingConfig:
    """How the ladder picks its next table (:mod:`referee.ladder.matchmaking`)."""

    #: A new version's first duplicate sets, scheduled before any other table.
    first_sets: int = 2
    #: Random tables scored per pick (besides the table around the most uncertain bot).
    candidates: int = 48
    #: Tables of the last picks a new table is kept apart from (no table twice in a row).
    seed_tables: int = 8

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class SubmissionLimits:
    """What a team's upload may be, and how often (the web's unpacking enforces the sizes)."""

    #: The upload as sent (compressed).
    max_upload_bytes: int = 10 * 1024**2
    #: Every file of the unpacked folder together.
    max_unpacked_bytes: int = 50 * 1024**2
    max_files: int = 2000
    #: Unpacked size over compressed size (a decompression bomb is refused).
    max_ratio: int = 100
    #: Uploads a team may make in any hour.
    per_team_per_hour: int = 20
    #: A team's versions of one bot that play at once (the newest ones).
    versions_kept_active: int = 1
    #: check-bot's move time for a new submission.
    check_move_time_ms: int = 1000
    #: check-bot plays a full game with the bot too.
    check_full_game: bool = True
    check_startup_timeout_s: int = 30

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class LadderConfig:
    """A checked ``LADDER.yaml``; paths resolved, defaults filled in."""

    path: pathlib.Path
    name: str
    #: The configured seed; None when the ladder picks one (saved in tournament.json).
    seed: int | None
    rules: Rules
    time_control: TimeControl
    fault_policy: FaultPolicy
    limits: Limits
    sandbox: str
    bot_processes: str
    bot_lifetime: str
    concurrency: int
    build: BuildConfig
    executor: ExecutorConfig
    output: pathlib.Path
    ranking: str
    matchmaking: MatchmakingConfig
    submissions: SubmissionLimits

    @property
    def table_size(self) -> int:
        return self.rules.num_players

    def canonical(self) -> dict[str, Any]:
        """What decides the games, as ``tournament.json`` keeps it (``config``).

        ``bots`` is empty (bots arrive as submissions, and the journal names
        every game's); ``ladder`` marks the folder as a ladder's, whose
        schedule is the journal's (:mod:`referee.schedule.ladder`).
        """
        return {
            "name": self.name,
            "seed": self.seed,
            "bots": {},
            "rules": tconfig.canonical_rules(self.rules),
            "schedule": {
                "deal_sets": 1,
                "duplicate": True,
                "all_permutations": False,
                "max_tables": None,
            },
            "time_control": self.time_control.to_dict(),
            "fault_policy": self.fault_policy.to_dict(),
            "limits": self.limits.to_dict(),
            "bot_processes": self.bot_processes,
            "bot_lifetime": self.bot_lifetime,
            "ladder": {"format": "hearts-referee/ladder", "version": 1},
        }

    def digest(self) -> str:
        """A hash of :meth:`canonical`: a ladder folder is served only by its own config."""
        text = json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def load_ladder_config(
    path: str | os.PathLike[str], *, cpu_count: int | None = None
) -> LadderConfig:
    """Read and check the ladder config at ``path``."""
    path = pathlib.Path(path)
    try:
        data = load_yaml(path)
    except YamlFileError as error:
        raise ConfigError(str(error)) from None
    return parse_ladder_config(data, path=path, cpu_count=cpu_count)


def parse_ladder_config(
    data: Any, *, path: str | os.PathLike[str] = "LADDER.yaml", cpu_count: int | None = None
) -> LadderConfig:
    """Check the ladder config ``data`` (as loaded from YAML) read from ``path``."""
    file = pathlib.Path(path)
    base = file.resolve().parent
    if isinstance(data, dict) and "bots" in data:  # before the unknown-key check: say why
        raise ConfigError(f"{file}: bots: a ladder has no bots section: teams submit their bots")
    top = config_checks.Section(file, "", data, _TOP_KEYS)
    name = top.get(
        "name",
        config_checks.checker(top, config_checks.name_value, "a name of letters, digits or _.+-"),
        file.stem,
    )
    seed = top.get("seed", config_checks.checker(top, config_checks.int_value, "an integer"), None)
    rules = config_checks.rules_section(top)
    limits = Limits(**tconfig.limits_section(top, "limits", top.data.get("limits")))
    sandbox = top.get("sandbox", config_checks.choice(top, tconfig.SANDBOX_KINDS), "bwrap")
    time_control = config_checks.policy_section(top, "time_control", TimeControl)
    fault_policy = config_checks.policy_section(top, "fault_policy", FaultPolicy)
    bot_processes = top.get(
        "bot_processes", config_checks.choice(top, tconfig.BOT_PROCESSES), "per_worker"
    )
    if bot_processes == "per_table":
        raise top.error(
            "bot_processes",
            "per_table is not for a ladder (its tables are picked as it goes): "
            "use per_worker or shared",
        )
    # Fresh processes for each game, as a duplicate tournament's: a bot that remembered one
    # game of a set would know every hand of the next.
    bot_lifetime = top.get("bot_lifetime", config_checks.choice(top, tconfig.BOT_LIFETIMES), "game")
    default_concurrency = max(1, cpu_count or os.cpu_count() or 1)
    concurrency = top.get("concurrency", config_checks.int_range(top, 1, 256), default_concurrency)
    build = tconfig.build_section(top)
    executor = tconfig.executor_section(top)
    output = top.get(
        "output", config_checks.checker(top, config_checks.path_value, "a folder path"), None
    )
    out_path = (
        pathlib.Path(os.path.normpath(base / output)) if output else pathlib.Path("runs", name)
    )
    ranking = top.get("ranking", config_checks.choice(top, tconfig.RANKING_KEYS), "ordinal")
    return LadderConfig(
        path=file,
        name=name,
        seed=seed,
        rules=rules,
        time_control=time_control,
        fault_policy=fault_policy,
        limits=limits,
        sandbox=sandbox,
        bot_processes=bot_processes,
        bot_lifetime=bot_lifetime,
        concurrency=concurrency,
        build=build,
        executor=executor,
        output=out_path,
        ranking=ranking,
        matchmaking=_matchmaking(top),
        submissions=_submissions(top),
    )


def _matchmaking(top: Any) -> MatchmakingConfig:
    section = top.section("matchmaking", _MATCHMAKING_KEYS)
    return MatchmakingConfig(
        first_sets=section.get("first_sets", config_checks.int_range(section, 0, 100), 2),
        candidates=section.get("candidates", config_checks.int_range(section, 1, 1000), 48),
        seed_tables=section.get("seed_tables", config_checks.int_range(section, 0, 1000), 8),
    )


def _submissions(top: Any) -> SubmissionLimits:
    section = top.section("submissions", _SUBMISSION_KEYS)

    def size(key_path: str, value: Any) -> int:
        number = config_checks.size_value(value)
        if number is None or not 1 <= number <= MAX_UPLOAD_CAP * 16:
            raise section.error(
                key_path,
                f"expected a size above 0 (bytes, or like 10M), at most {MAX_UPLOAD_CAP * 16}, "
                f"got {config_checks.show(value)}",
            )
        return number

    defaults = SubmissionLimits()
    upload = section.get("max_upload_bytes", size, defaults.max_upload_bytes)
    if upload > MAX_UPLOAD_CAP:
        raise section.error(
            section.path("max_upload_bytes"), f"at most {MAX_UPLOAD_CAP} (1G), got {upload}"
        )
    unpacked = section.get("max_unpacked_bytes", size, defaults.max_unpacked_bytes)
    boolean = config_checks.checker(section, config_checks.bool_value, "true or false")
    return SubmissionLimits(
        max_upload_bytes=upload,
        max_unpacked_bytes=unpacked,
        max_files=section.get("max_files", config_checks.int_range(section, 1, 1_000_000), 2000),
        max_ratio=section.get("max_ratio", config_checks.int_range(section, 1, 10_000), 100),
        per_team_per_hour=section.get(
            "per_team_per_hour", config_checks.int_range(section, 1, 10_000), 20
        ),
        versions_kept_active=section.get(
            "versions_kept_active", config_checks.int_range(section, 1, 100), 1
        ),
        check_move_time_ms=section.get(
            "check_move_time_ms", config_checks.int_range(section, 10, 60_000), 1000
        ),
        check_full_game=section.get("check_full_game", boolean, True),
        check_startup_timeout_s=section.get(
            "check_startup_timeout_s", config_checks.int_range(section, 1, 600), 30
        ),
    )
