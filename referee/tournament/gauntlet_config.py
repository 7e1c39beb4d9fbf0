"""The ``gauntlet`` section of a tournament config (``format: gauntlet``), checked.

    format: gauntlet
    gauntlet:
      candidate: mybot-v2          # the version under test
      baseline: mybot-v1           # or a list: one paired test per baseline
      opponents: [h1, h2, r1]      # default: every other bot
      metric: points               # points (per hand) or placement
      test: sprt                   # or fixed: every deal set, a CI and LOS
      sprt: {delta0: 0, delta1: 0.5, alpha: 0.05, beta: 0.05, min_sets: 16, model: robust}

Errors name the file and key path, like every config error
(:class:`referee.tournament.config.ConfigError`). docs/sprt.md describes the test.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping, Sequence
from typing import Any

from referee.stats.sprt import MODELS, SprtSettings

__all__ = [
    "FORMATS",
    "GAUNTLET_DEAL_SETS",
    "METRICS",
    "TESTS",
    "GauntletConfig",
    "gauntlet_from_dict",
    "parse_gauntlet",
]

FORMATS = ("tournament", "gauntlet")
METRICS = ("points", "placement")
TESTS = ("sprt", "fixed")
#: A gauntlet's default ``schedule.deal_sets``: the most duplicate sets per opponent group.
GAUNTLET_DEAL_SETS = 200
_KEYS = ("candidate", "baseline", "opponents", "metric", "test", "sprt")
_SPRT_KEYS = ("delta0", "delta1", "alpha", "beta", "min_sets", "model")


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class GauntletConfig:
    """A candidate, its baselines, the opponents, and the test."""

    candidate: str
    baselines: tuple[str, ...]
    opponents: tuple[str, ...]
    #: ``points`` (paired difference in points per hand) or ``placement``.
    metric: str = "points"
    #: ``sprt`` (stop at a decision) or ``fixed`` (play every deal set).
    test: str = "sprt"
    sprt: SprtSettings = dataclasses.field(default_factory=SprtSettings)

    def to_dict(self) -> dict[str, Any]:
        return {
            "candidate": self.candidate,
            "baselines": list(self.baselines),
            "opponents": list(self.opponents),
            "metric": self.metric,
            "test": self.test,
            "sprt": self.sprt.to_dict(),
        }


def parse_gauntlet(top: Any, bots: Sequence[str], table_size: int) -> GauntletConfig | None:
    """The checked ``gauntlet`` section of ``top`` (a :class:`referee.tournament.config_checks.Section`), if any.

    ``format`` defaults to ``gauntlet`` when the section is there.
    """
    data = top.data
    fmt = data.get("format")
    if fmt is not None and fmt not in FORMATS:
        raise top.error("format", f"expected one of {', '.join(FORMATS)}, got {fmt!r}")
    if data.get("gauntlet") is None:
        if fmt == "gauntlet":
            raise top.error("gauntlet", "missing; format: gauntlet needs a gauntlet section")
        return None
    if fmt == "tournament":
        raise top.error("gauntlet", "a gauntlet section needs format: gauntlet")
    section = top.section("gauntlet", _KEYS)
    names = list(bots)

    def bot_name(key_path: str, value: Any) -> str:
        if not isinstance(value, str) or value not in names:
            close = difflib.get_close_matches(str(value), names, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise section.error(
                key_path, f"expected the name of a bot under bots, got {value!r}{hint}"
            )
        return value

    def bot_names(key: str) -> tuple[str, ...] | None:
        value = section.data.get(key)
        if value is None:
            return None
        path = section.path(key)
        items = value if isinstance(value, list) else [value]
        if not items:
            raise section.error(path, "expected at least one bot name")
        result = tuple(
            bot_name(f"{path}[{i}]" if isinstance(value, list) else path, v)
            for i, v in enumerate(items)
        )
        if len(set(result)) != len(result):
            raise section.error(path, "a bot is listed twice")
        return result

    if "candidate" not in section.data:
        raise section.error(section.path("candidate"), "missing; expected a bot name")
    candidate = bot_name(section.path("candidate"), section.data["candidate"])
    baselines = bot_names("baseline")
    if baselines is None:
        raise section.error(section.path("baseline"), "missing; expected a bot name or a list")
    if candidate in baselines:
        raise section.error(
            section.path("baseline"),
            f"{candidate!r} is the candidate; to test a bot against itself, list its folder "
            "twice under bots with two names",
        )
    subjects = {candidate, *baselines}
    opponents = bot_names("opponents")
    if opponents is None:
        opponents = tuple(n for n in names if n not in subjects)
    both = [n for n in opponents if n in subjects]
    if both:
        raise section.error(
            section.path("opponents"), f"{both[0]!r} is the candidate or a baseline"
        )
    if len(opponents) < table_size - 1:
        raise section.error(
            section.path("opponents"),
            f"a table of {table_size} (rules.num_players) needs at least {table_size - 1} "
            f"opponents, got {len(opponents)}",
        )
    unused = [n for n in names if n not in subjects and n not in opponents]
    if unused:
        raise top.error(f"bots.{unused[0]}", "not in the gauntlet (candidate, baseline, opponents)")

    def choice(key: str, choices: tuple[str, ...], default: str) -> str:
        def check(key_path: str, value: Any) -> str:
            if value not in choices:
                raise section.error(
                    key_path, f"expected one of {', '.join(choices)}, got {value!r}"
                )
            return str(value)

        return section.get(key, check, default)

    metric = choice("metric", METRICS, "points")
    test = choice("test", TESTS, "sprt")
    return GauntletConfig(
        candidate=candidate,
        baselines=baselines,
        opponents=opponents,
        metric=metric,
        test=test,
        sprt=_sprt(section),
    )


def _sprt(parent: Any) -> SprtSettings:
    section = parent.section("sprt", _SPRT_KEYS)
    values: dict[str, Any] = {}
    for key in _SPRT_KEYS:
        if section.data.get(key) is None:
            continue
        value = section.data[key]
        if key == "model":
            if value not in MODELS:
                close = difflib.get_close_matches(str(value), MODELS, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise section.error(
                    section.path(key), f"expected one of {', '.join(MODELS)}, got {value!r}{hint}"
                )
            values[key] = value
            continue
        if key == "min_sets":
            ok = isinstance(value, int) and not isinstance(value, bool) and 4 <= value <= 1_000_000
            expected = "an integer 4 to 1000000"
        elif key in ("alpha", "beta"):
            ok = isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < 0.5
            expected = "a probability above 0 and below 0.5"
        else:
            ok = (
                isinstance(value, int | float)
                and not isinstance(value, bool)
                and abs(value) <= 1000  # NaN fails this too
            )
            expected = "a number from -1000 to 1000 (in the metric's units per hand or per game)"
        if not ok:
            raise section.error(section.path(key), f"expected {expected}, got {value!r}")
        values[key] = value if key == "min_sets" else float(value)
    try:
        return SprtSettings(**values)
    except ValueError as error:
        raise section.error(section.path("delta1"), str(error)) from None


def gauntlet_from_dict(data: Mapping[str, Any]) -> GauntletConfig:
    """The gauntlet of a canonical config (``tournament.json``'s ``config.gauntlet``)."""
    return GauntletConfig(
        candidate=data["candidate"],
        baselines=tuple(data["baselines"]),
        opponents=tuple(data["opponents"]),
        metric=data.get("metric", "points"),
        test=data.get("test", "sprt"),
        sprt=SprtSettings.from_dict(data.get("sprt", {})),
    )
