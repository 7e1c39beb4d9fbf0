"""Tournament configuration: load a YAML file, check every key, and say what is wrong.

A config is checked completely before any bot is built or started. Every
mistake raises :class:`ConfigError` with a message that names the file, the
key path and what was expected, for example::

    tournaments/x.yaml: rules.moon_scoring: expected one of add_to_others,
    subtract_from_self, shooter_chooses, got 'add'

Unknown keys get a "did you mean" suggestion. The keys are documented one by
one in docs/config.md. The checks every config shares (a mapping read key by
key, the rules, the time control) are :mod:`referee.tournament.config_checks`;
the sections of this one that other configs reuse are public here
(:func:`build_section`, :func:`executor_section`, :func:`limits_section`).

>>> import pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "t.yaml").write_text("bots: {a: random, b: random, c: heuristic, d: heuristic}")
>>> config = load_config(folder / "t.yaml")
>>> [bot.name for bot in config.bots], config.rules.num_players
(['a', 'b', 'c', 'd'], 4)
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import math
import os
import pathlib
from typing import Any, TypeVar

from referee.engine import Rules
from referee.players.policy import BuildLimits, FaultPolicy, Limits, TimeControl
from referee.players.specs import BotSpec, BotSpecError, parse_bot
from referee.sandbox import buildnet
from referee.sandbox.build_settings import CREDENTIAL_KINDS
from referee.sandbox.bwrap import SANDBOX_KINDS
from referee.stats.standings import RANKING_KEYS
from referee.tournament.config_checks import (
    ConfigError,
    Section,
    bool_value,
    checker,
    choice,
    int_range,
    int_value,
    name_value,
    path_value,
    policy_section,
    rules_section,
    show,
    size_limit,
    str_value,
)
from referee.tournament.gauntlet_config import GAUNTLET_DEAL_SETS, GauntletConfig, parse_gauntlet
from referee.yamlfile import YamlFileError, load_yaml

__all__ = [
    "LIMIT_KEYS",
    "RANKING_KEYS",
    "BuildConfig",
    "ConfigError",
    "ExecutorConfig",
    "ScheduleConfig",
    "TournamentConfig",
    "build_section",
    "canonical_rules",
    "executor_section",
    "limits_section",
    "load_config",
    "parse_config",
]

#: Resource limits a launched bot may be given (referee.players.policy.Limits, enforced by referee/sandbox/supervisor.py).
LIMIT_KEYS = tuple(f.name for f in dataclasses.fields(Limits))
BOT_PROCESSES = ("shared", "per_table", "per_worker")
#: How long a launched bot's process lives: one game, one table, or the whole run.
BOT_LIFETIMES = ("game", "table", "run")
#: Above this many tables, all combinations need an explicit ``schedule.max_tables``.
MAX_FULL_TABLES = 10_000
#: The most games of one tournament (a schedule is made, and kept, whole).
MAX_GAMES = 1_000_000
#: The longest build, in seconds (a day).
MAX_BUILD_SECONDS = 24 * 3600

_TOP_KEYS = (
    "name",
    "seed",
    "bots",
    "rules",
    "schedule",
    "time_control",
    "fault_policy",
    "limits",
    "bot_processes",
    "bot_lifetime",
    "sandbox",
    "concurrency",
    "build",
    "executor",
    "output",
    "ranking",
    "format",
    "gauntlet",
)
_BOT_KEYS = ("bot", "limits", "sandbox")
_SCHEDULE_KEYS = ("deal_sets", "duplicate", "all_permutations", "max_tables")
_BUILD_KEYS = ("parallel", "timeout_s", "registries", "limits", "credentials")
_EXECUTOR_KEYS = ("kind", "address", "workers")
#: Where games run: this machine, or a Ray cluster.
EXECUTOR_KINDS = ("local", "ray")

T = TypeVar("T")


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ScheduleConfig:
    """How tables and games are made (see referee/schedule/)."""

    #: Duplicate sets (fresh deal sequences) per table.
    deal_sets: int = 1
    #: Replay each deal sequence with the seats rotated.
    duplicate: bool = True
    #: With ``duplicate``, every permutation of the seats instead of the rotations.
    all_permutations: bool = False
    #: Play a balanced sample of at most this many tables; None plays every combination.
    max_tables: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ExecutorConfig:
    """Where games run: ``local`` (threads or worker processes here) or ``ray`` (a cluster)."""

    kind: str = "local"
    #: Ray: ``auto`` (a cluster started with ``ray start``), ``ray://HOST:10001``, or
    #: ``local`` (a cluster of one machine, started for the run).
    address: str = "auto"
    #: Ray: game workers in the cluster (each with its own bots); None: one per CPU.
    workers: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class BuildConfig:
    """How bot folders with a build step are built before play."""

    #: Builds run at the same time (on each machine); the default is one per core.
    parallel: int = dataclasses.field(default_factory=lambda: os.cpu_count() or 1)
    #: A build taking longer fails.
    timeout_s: float = 1800.0
    #: The hosts a build's network reaches (its proxy's allow-list, :mod:`referee.sandbox.buildnet`).
    registries: tuple[str, ...] = buildnet.DEFAULT_REGISTRIES
    #: Each build's memory, processes, CPU share, output and tmpfs (referee/sandbox/supervisor.py).
    limits: BuildLimits = dataclasses.field(default_factory=BuildLimits)
    #: The kinds of credentials a build may see (referee.sandbox.build_settings.CREDENTIAL_KINDS).
    credentials: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class TournamentConfig:
    """A checked tournament config; paths are resolved, defaults filled in."""

    #: The file it came from (as given), for messages.
    path: pathlib.Path
    name: str
    #: The configured seed; None when the runner picks one (and saves it).
    seed: int | None
    bots: tuple[BotSpec, ...]
    rules: Rules
    schedule: ScheduleConfig
    time_control: TimeControl
    fault_policy: FaultPolicy
    #: Resource limits of launched bots (a bot's own ``limits`` override them).
    limits: Limits
    bot_processes: str
    #: How long a launched bot's process lives (``game``, ``table`` or ``run``).
    bot_lifetime: str
    #: The default sandbox of launched bots and builds (``bwrap`` or ``none``);
    #: each launched bot's spec carries its own, resolved.
    sandbox: str
    concurrency: int
    build: BuildConfig
    #: Where games run (not in the digest: a tournament may be resumed elsewhere).
    executor: ExecutorConfig
    #: The output folder (resolved against the config file's folder).
    output: pathlib.Path
    ranking: str
    #: ``format: gauntlet``: the candidate, baselines, opponents and test (docs/sprt.md).
    gauntlet: GauntletConfig | None = None

    @property
    def table_size(self) -> int:
        return self.rules.num_players

    def bot(self, name: str) -> BotSpec:
        """The spec of the bot called ``name``."""
        for spec in self.bots:
            if spec.name == name:
                return spec
        raise KeyError(name)

    def canonical(self) -> dict[str, Any]:
        """What decides the games, as plain data: the basis of :meth:`digest`.

        Concurrency, output folder, ranking key and build settings are left
        out: they may change between runs of the same tournament.
        """
        canonical = {
            "name": self.name,
            "seed": self.seed,
            "bots": {spec.name: spec.to_dict() for spec in self.bots},
            "rules": canonical_rules(self.rules),
            "schedule": self.schedule.to_dict(),
            "time_control": self.time_control.to_dict(),
            "fault_policy": self.fault_policy.to_dict(),
            "limits": self.limits.to_dict(),
            "bot_processes": self.bot_processes,
            "bot_lifetime": self.bot_lifetime,
        }
        if self.gauntlet is not None:
            canonical["gauntlet"] = self.gauntlet.to_dict()
        return canonical

    @property
    def unsandboxed(self) -> list[str]:
        """Launched bots that run without a sandbox (``sandbox: none``)."""
        return [s.name for s in self.bots if s.command and s.sandbox == "none"]

    def digest(self) -> str:
        """A hash of :meth:`canonical`: equal for configs that play the same games."""
        text = json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def canonical_rules(rules: Rules) -> dict[str, Any]:
    """The rules as :meth:`TournamentConfig.canonical` holds them.

    V8's default cap (100 hands, or the target score if more) is left out, so that
    a config that does not set ``max_hands`` hashes as it did before V8 and a
    folder begun by an older referee still resumes.
    """
    data = _plain(rules.to_dict())
    if data.get("max_hands") == Rules(target_score=rules.target_score).max_hands:
        del data["max_hands"]
    return data


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if hasattr(value, "value"):
        return value.value
    return value


def load_config(path: str | os.PathLike[str], *, cpu_count: int | None = None) -> TournamentConfig:
    """Read and check the tournament config at ``path``."""
    path = pathlib.Path(path)
    try:
        data = load_yaml(path)  # not UTF-8, not YAML, a key twice, too deep: the line
    except YamlFileError as error:
        raise ConfigError(str(error)) from None
    return parse_config(data, path=path, cpu_count=cpu_count)


# Checking -------------------------------------------------------------------------------


def parse_config(
    data: Any,
    *,
    path: str | os.PathLike[str] = "config.yaml",
    cpu_count: int | None = None,
) -> TournamentConfig:
    """Check the config ``data`` (as loaded from YAML) read from ``path``."""
    file = pathlib.Path(path)
    base = file.resolve().parent
    top = Section(file, "", data, _TOP_KEYS)
    if "bots" not in top.data:
        raise top.error("bots", "missing; expected a mapping of bot names to bots")
    name = top.get("name", checker(top, name_value, "a name of letters, digits or _.+-"), file.stem)
    seed = top.get("seed", checker(top, int_value, "an integer"), None)
    rules = rules_section(top)
    limits = Limits(**limits_section(top, "limits", top.data.get("limits")))
    sandbox = top.get("sandbox", choice(top, SANDBOX_KINDS), "bwrap")
    bots = _bots(top, base, sandbox)
    schedule = _schedule(top, len(bots), rules.num_players)
    gauntlet = parse_gauntlet(top, [b.name for b in bots], rules.num_players)
    if gauntlet is not None:
        schedule = _gauntlet_schedule(top, schedule)
    time_control = policy_section(top, "time_control", TimeControl)
    fault_policy = policy_section(top, "fault_policy", FaultPolicy)
    bot_processes = top.get("bot_processes", choice(top, BOT_PROCESSES), "per_worker")
    # Fresh processes for each game of a duplicate set: a bot that remembered
    # one game of the set would know every hand of the next.
    default_lifetime = "game" if schedule.duplicate else "run"
    if bot_processes == "per_table":
        default_lifetime = "game" if schedule.duplicate else "table"
    bot_lifetime = top.get("bot_lifetime", choice(top, BOT_LIFETIMES), default_lifetime)
    default_concurrency = max(1, cpu_count or os.cpu_count() or 1)
    concurrency = top.get("concurrency", int_range(top, 1, 256), default_concurrency)
    build = build_section(top)
    executor = executor_section(top)
    output = top.get("output", checker(top, path_value, "a folder path"), None)
    out_path = (
        pathlib.Path(os.path.normpath(base / output)) if output else pathlib.Path("runs", name)
    )
    ranking = top.get("ranking", choice(top, RANKING_KEYS), "points")
    return TournamentConfig(
        path=file,
        name=name,
        seed=seed,
        bots=bots,
        rules=rules,
        schedule=schedule,
        time_control=time_control,
        fault_policy=fault_policy,
        limits=limits,
        bot_processes=bot_processes,
        bot_lifetime=bot_lifetime,
        sandbox=sandbox,
        concurrency=concurrency,
        build=build,
        executor=executor,
        output=out_path,
        ranking=ranking,
        gauntlet=gauntlet,
    )


def _gauntlet_schedule(top: Section, schedule: ScheduleConfig) -> ScheduleConfig:
    """A gauntlet's schedule: no table sample; by default up to 200 deal sets."""
    given = top.data.get("schedule") or {}
    if schedule.max_tables is not None:
        raise top.error(
            "schedule.max_tables", "not used by a gauntlet (it plays every opponent group)"
        )
    if given.get("deal_sets") is None:
        schedule = dataclasses.replace(schedule, deal_sets=GAUNTLET_DEAL_SETS)
    return schedule


def _schedule(top: Section, num_bots: int, table_size: int) -> ScheduleConfig:
    section = top.section("schedule", _SCHEDULE_KEYS)
    boolean = checker(section, bool_value, "true or false")
    schedule = ScheduleConfig(
        deal_sets=section.get("deal_sets", int_range(section, 1), 1),
        duplicate=section.get("duplicate", boolean, True),
        all_permutations=section.get("all_permutations", boolean, False),
        max_tables=section.get("max_tables", int_range(section, 1, MAX_FULL_TABLES), None),
    )
    if schedule.all_permutations and not schedule.duplicate:
        raise section.error(
            section.path("all_permutations"), "needs duplicate: true (it replaces the rotations)"
        )
    if num_bots < table_size:
        raise top.error(
            "bots",
            f"a table of {table_size} (rules.num_players) needs at least {table_size} bots, "
            f"got {num_bots}",
        )
    tables = math.comb(num_bots, table_size)
    if schedule.max_tables is None and tables > MAX_FULL_TABLES:
        raise section.error(
            section.path("max_tables"),
            f"{num_bots} bots make {tables} tables of {table_size}; "
            f"set max_tables (at most {MAX_FULL_TABLES}) for a balanced sample",
        )
    _check_size(section, schedule, min(tables, schedule.max_tables or tables), table_size)
    return schedule


def _check_size(section: Section, schedule: ScheduleConfig, tables: int, size: int) -> None:
    """Refuse, up front, a schedule of more than :data:`MAX_GAMES` games (it would never end)."""
    if not schedule.duplicate:
        seatings = 1
    elif schedule.all_permutations:
        seatings = math.factorial(size)
    else:
        seatings = size
    games = tables * schedule.deal_sets * seatings
    if games > MAX_GAMES:
        raise section.error(
            section.path("deal_sets"),
            f"{tables} table(s) x {schedule.deal_sets} deal set(s) x {seatings} seating(s) "
            f"make {games:,} games; at most {MAX_GAMES:,} fit in one tournament",
        )


def build_section(top: Section) -> BuildConfig:
    """The ``build`` mapping of ``top``: parallel builds, timeout, registries, limits, credentials."""
    section = top.section("build", _BUILD_KEYS)

    def seconds(key_path: str, value: Any) -> float:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not 0 < value <= MAX_BUILD_SECONDS  # NaN fails this too
        ):
            raise section.error(
                key_path,
                f"expected a number of seconds above 0, at most {MAX_BUILD_SECONDS}, "
                f"got {show(value)}",
            )
        return float(value)

    return BuildConfig(
        parallel=section.get("parallel", int_range(section, 1, 64), os.cpu_count() or 1),
        timeout_s=section.get("timeout_s", seconds, 1800.0),
        registries=section.get(
            "registries",
            lambda key_path, value: _registries(section, key_path, value),
            buildnet.DEFAULT_REGISTRIES,
        ),
        limits=_build_limits(section),
        credentials=section.get(
            "credentials",
            lambda key_path, value: _credentials(section, key_path, value),
            (),
        ),
    )


#: The keys of ``build.limits`` (referee.players.policy.BuildLimits).
BUILD_LIMIT_KEYS = tuple(f.name for f in dataclasses.fields(BuildLimits))


def _build_limits(build: Section) -> BuildLimits:
    """``build.limits``: sizes (``2G``) or integers, each at most its maximum; 0 is no limit."""
    section = Section(build.file, build.path("limits"), build.data.get("limits"), BUILD_LIMIT_KEYS)

    size = size_limit(section, BuildLimits.maximum, "2G")
    given = {k: section.get(k, size, -1) for k in BUILD_LIMIT_KEYS}
    return BuildLimits(**{k: v for k, v in given.items() if v >= 0})


def _credentials(section: Section, key_path: str, value: Any) -> tuple[str, ...]:
    """``build.credentials``: the kinds of credentials builds may see (none by default)."""
    if not isinstance(value, list):
        raise section.error(
            key_path,
            f"expected a list of credential kinds ({', '.join(CREDENTIAL_KINDS)}), "
            f"got {show(value)}",
        )
    out: list[str] = []
    for i, kind in enumerate(value):
        if kind not in CREDENTIAL_KINDS:
            close = difflib.get_close_matches(str(kind), CREDENTIAL_KINDS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise section.error(
                f"{key_path}[{i}]",
                f"expected one of {', '.join(CREDENTIAL_KINDS)}, got {show(kind)}{hint}",
            )
        if kind not in out:
            out.append(kind)
    return tuple(out)


def _registries(section: Section, key_path: str, value: Any) -> tuple[str, ...]:
    """``build.registries``: host names (``*.domain`` too); ``defaults`` stands for the defaults."""
    if not isinstance(value, list):
        raise section.error(key_path, f"expected a list of host names, got {show(value)}")
    out: list[str] = []
    for i, entry in enumerate(value):
        names = buildnet.DEFAULT_REGISTRIES if entry == "defaults" else (entry,)
        for name in names:
            problem = buildnet.host_problem(name)
            if problem:
                raise section.error(f"{key_path}[{i}]", problem)
            if name not in out:
                out.append(name)
    return tuple(out)


def executor_section(top: Section) -> ExecutorConfig:
    """``executor: local``, ``executor: ray``, or a mapping with ``kind`` and Ray's settings."""
    data = top.data.get("executor")
    if data is None or isinstance(data, str):
        kind = top.get("executor", choice(top, EXECUTOR_KINDS), "local")
        return ExecutorConfig(kind=kind)
    section = top.section("executor", _EXECUTOR_KEYS)
    kind = section.get("kind", choice(section, EXECUTOR_KINDS), "local")
    address = section.get(
        "address", checker(section, str_value, "auto, local or ray://HOST:PORT"), "auto"
    )
    if address not in ("auto", "local") and ":" not in address:
        raise section.error(
            section.path("address"),
            f"expected auto, local or ray://HOST:PORT, got {address!r}",
        )
    workers = section.get("workers", int_range(section, 1, 4096), None)
    if kind == "local" and ("address" in section.data or "workers" in section.data):
        raise section.error(section.path("kind"), "address and workers are settings of kind: ray")
    return ExecutorConfig(kind=kind, address=address, workers=workers)


def limits_section(parent: Section, key: str, data: Any) -> dict[str, int]:
    """A launched bot's resource limits, ``data`` at ``key`` of ``parent``, as given (for ``Limits``).

    Sizes (``512M``) or integers, each at most its maximum, 0 for no limit;
    ``ponder`` a flag. Only the keys given are in the result.
    """
    section = Section(parent.file, parent.path(key), data, LIMIT_KEYS)

    size = size_limit(section, Limits.maximum, "512M")
    values = {k: section.get(k, size, -1) for k in LIMIT_KEYS if k != "ponder"}
    if "ponder" in section.data:  # a flag (referee.players.policy.Limits.ponder)
        values["ponder"] = section.get(
            "ponder", checker(section, bool_value, "true or false"), False
        )
    return {k: v for k, v in values.items() if v >= 0}


def _bots(top: Section, base: pathlib.Path, sandbox: str) -> tuple[BotSpec, ...]:
    data = top.data["bots"]
    if not isinstance(data, dict) or not data:
        raise top.error(
            "bots", f"expected a mapping of bot names to bots (name: random), got {show(data)}"
        )
    seen: dict[str, Any] = {}
    for name in data:
        # YAML types keys: 1 and "1", true and "True" are distinct keys but one bot name.
        if str(name) in seen:
            raise top.error(
                f"bots.{name}",
                f"the bot name {str(name)!r} is given twice ({seen[str(name)]!r} and {name!r}); "
                "bot names must be unique",
            )
        seen[str(name)] = name
    return tuple(_bot(top, str(name), value, base, sandbox) for name, value in data.items())


def _bot(top: Section, name: str, value: Any, base: pathlib.Path, sandbox: str) -> BotSpec:
    key_path = f"bots.{name}"
    if name_value(name) is None:
        raise top.error(
            key_path,
            "a bot name must be 1-64 letters, digits or _.+- (it names files), "
            "starting with a letter or digit",
        )
    own_limits: dict[str, int] = {}
    own_sandbox: str | None = None
    if isinstance(value, dict):
        section = Section(top.file, key_path, value, _BOT_KEYS)
        if "bot" not in value:
            raise top.error(
                key_path, "missing key 'bot' (a built-in, host:port, command or folder)"
            )
        text = value["bot"]
        own_limits = limits_section(section, "limits", value.get("limits"))
        own_sandbox = section.get("sandbox", choice(section, SANDBOX_KINDS), None)
    else:
        text = value
    if not isinstance(text, str):
        raise top.error(
            key_path,
            "expected a built-in name, host:port, a command with {address} or a folder, "
            f"got {show(text)}",
        )
    try:
        spec = parse_bot(text, name=name, base=base)
    except BotSpecError as error:
        raise top.error(key_path, str(error)) from None
    if own_limits and spec.command is None:
        raise top.error(
            f"{key_path}.limits", "limits apply only to launched bots (a command or a folder)"
        )
    if own_limits:
        spec = dataclasses.replace(spec, limits=own_limits)
    if own_sandbox and spec.command is None:
        raise top.error(
            f"{key_path}.sandbox", "a sandbox applies only to launched bots (a command or a folder)"
        )
    if spec.command is not None:
        spec = dataclasses.replace(spec, sandbox=own_sandbox or sandbox)
        if spec.sandbox == "bwrap" and "{port}" in spec.command:
            what = (
                "the command" if spec.origin == "command" else f"the run command of {spec.origin}"
            )
            raise top.error(
                key_path,
                f"{what} uses {{port}}, but a sandboxed bot has no network: serve on "
                "{address} (a Unix socket: --address {address}), or set `sandbox: none` "
                "for a bot you trust",
            )
    return spec
