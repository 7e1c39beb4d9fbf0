"""The checks every config file of the referee shares: mappings read key by key, values checked.

A :class:`Section` is one mapping of a YAML config (the top level,
``rules``, ``time_control``...), its unknown keys refused with a "did you
mean" (or a hint where the key belongs); :meth:`Section.get` reads a key
through a check (:func:`checker`, :func:`int_range`, :func:`choice`), and
every mistake is a :class:`ConfigError` naming the file, the key path and
what was expected. :func:`rules_section` and :func:`policy_section` read the
sections that mean the same in every config (the rules, the time control,
the fault policy). The tournament config (:mod:`referee.tournament.config`)
and ``referee play``'s (:mod:`referee.web.play_config`) are both read with them.

>>> import pathlib
>>> top = Section(pathlib.Path("t.yaml"), "", {"rules": {"num_players": 3}}, ("rules",))
>>> rules_section(top).num_players
3
>>> try:
...     Section(pathlib.Path("t.yaml"), "", {"ruls": {}}, ("rules",))
... except ConfigError as error:
...     print(error)
t.yaml: ruls: unknown key; did you mean 'rules'?
"""

from __future__ import annotations

import dataclasses
import difflib
import pathlib
import re
from collections.abc import Callable
from typing import Any, TypeVar

from referee.engine import MAX_HANDS, MAX_TARGET_SCORE, MoonScoring, Rules, RulesError, TieRule

__all__ = [
    "ConfigError",
    "Section",
    "bool_value",
    "checker",
    "choice",
    "int_range",
    "int_value",
    "name_value",
    "path_value",
    "policy_section",
    "rules_section",
    "show",
    "size_limit",
    "size_value",
    "str_value",
]

T = TypeVar("T")

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+\-]{0,63}$")
_SIZE = re.compile(r"^\s*(\d+)\s*([KMG]i?B?|B)?\s*$", re.IGNORECASE)

#: Hints for keys people put in the wrong place.
_MOVED = {
    ("schedule", "table_size"): "the table size is rules.num_players",
    ("schedule", "num_players"): "the table size is rules.num_players",
    ("", "num_players"): "the table size is rules.num_players",
    ("", "target_score"): "it goes under rules:",
    ("", "move_time_ms"): "it goes under time_control:",
    ("", "max_faults"): "it goes under fault_policy:",
}


class ConfigError(ValueError):
    """A config that cannot be used; the message names the file, key path and expectation."""


class Section:
    """One mapping of the config, read key by key with errors naming the key path.

    ``where`` is the mapping's key path (``""`` for the top level, ``"rules"``,
    ``"build.limits"``); ``data`` must be a mapping (None reads as empty), and
    every key of it one of ``known``, or the constructor raises the
    :class:`ConfigError` that says so.
    """

    def __init__(self, file: pathlib.Path, where: str, data: Any, known: tuple[str, ...]) -> None:
        self.file = file
        self.where = where
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise self.error(where or "(top level)", f"expected a mapping, got {show(data)}")
        self.data = data
        self._check_keys(known)

    def path(self, key: str) -> str:
        """The key path of ``key`` in this mapping (``rules.num_players``)."""
        return f"{self.where}.{key}" if self.where else key

    def error(self, key_path: str, message: str) -> ConfigError:
        """The error to raise for ``key_path``: the file, the key path, then ``message``."""
        return ConfigError(f"{self.file}: {key_path}: {message}")

    def _check_keys(self, known: tuple[str, ...]) -> None:
        for key in self.data:
            if key in known:
                continue
            moved = _MOVED.get((self.where, str(key)))
            if moved:
                raise self.error(self.path(str(key)), f"unknown key; {moved}")
            close = difflib.get_close_matches(str(key), known, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}?" if close else f"expected one of {', '.join(known)}"
            raise self.error(self.path(str(key)), f"unknown key; {hint}")

    def get(self, key: str, check: Callable[[str, Any], T], default: T) -> T:
        """The value of ``key`` checked by ``check(key_path, value)``, or ``default``."""
        if key not in self.data or self.data[key] is None:
            return default
        return check(self.path(key), self.data[key])

    def section(self, key: str, known: tuple[str, ...]) -> Section:
        """The mapping under ``key`` (empty when absent), its keys checked against ``known``."""
        return Section(self.file, self.path(key), self.data.get(key), known)


def show(value: Any) -> str:
    """A config value as an error shows it: its kind for a mapping or a list, else short."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:60]}... ({len(text)} characters)"


def checker(
    section: Section, convert: Callable[[Any], T | None], expected: str
) -> Callable[[str, Any], T]:
    """A check that converts a value or reports ``expected``."""

    def check(key_path: str, value: Any) -> T:
        result = convert(value)
        if result is None:
            raise section.error(key_path, f"expected {expected}, got {show(value)}")
        return result

    return check


def int_value(value: Any) -> int | None:
    """An integer (not a bool, which YAML's ``true`` would be), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def bool_value(value: Any) -> bool | None:
    """``true`` or ``false``, else None."""
    return value if isinstance(value, bool) else None


def path_value(value: Any) -> str | None:
    """A non-blank path without a NUL character (which no file name can hold), else None."""
    return value if isinstance(value, str) and value.strip() and "\x00" not in value else None


def int_range(section: Section, low: int, high: int | None = None) -> Callable[[str, Any], int]:
    """A check for an integer from ``low`` to ``high`` (None: no upper bound)."""

    def check(key_path: str, value: Any) -> int:
        if int_value(value) is None or value < low or (high is not None and value > high):
            span = f"{low} to {high}" if high is not None else f"at least {low}"
            raise section.error(key_path, f"expected an integer {span}, got {show(value)}")
        return int(value)

    return check


def choice(section: Section, choices: tuple[str, ...]) -> Callable[[str, Any], str]:
    """A check for one of ``choices``."""

    def check(key_path: str, value: Any) -> str:
        if value not in choices:
            raise section.error(
                key_path, f"expected one of {', '.join(choices)}, got {show(value)}"
            )
        return str(value)

    return check


def rules_section(top: Section) -> Rules:
    """The ``rules`` mapping of ``top`` as :class:`~referee.engine.Rules` (the defaults if absent).

    Every variant is checked by kind and range here; what only the rules can
    check together (:class:`~referee.engine.RulesError`) names ``rules``.
    """
    fields = tuple(f.name for f in dataclasses.fields(Rules))
    section = top.section("rules", fields)
    checks: dict[str, Callable[[str, Any], Any]] = {
        "num_players": int_range(section, 3, 7),
        "target_score": int_range(section, 1, MAX_TARGET_SCORE),
        "max_hands": int_range(section, 1, MAX_HANDS),
        "moon_scoring": choice(section, tuple(m.value for m in MoonScoring)),
        "tie_rule": choice(section, tuple(t.value for t in TieRule)),
    }
    values: dict[str, Any] = {}
    for key in fields:
        check = checks.get(key, checker(section, bool_value, "true or false"))
        if key in section.data and section.data[key] is not None:
            values[key] = check(section.path(key), section.data[key])
    try:
        return Rules(**values)
    except RulesError as error:
        raise section.error("rules", str(error)) from None


def policy_section(top: Section, key: str, kind: type[T]) -> T:
    """The mapping ``key`` of ``top`` as ``kind`` (``TimeControl``, ``FaultPolicy``), checked.

    Each field is an integer from 0 to ``kind.maximum(field)``; an error of
    ``kind``'s own checks names the field it starts with.
    """
    fields = tuple(f.name for f in dataclasses.fields(kind))  # type: ignore[arg-type]
    section = top.section(key, fields)
    values = {f: section.get(f, int_range(section, 0, kind.maximum(f)), None) for f in fields}  # type: ignore[attr-defined]
    try:
        return kind(**{k: v for k, v in values.items() if v is not None})
    except ValueError as error:
        field = next((f for f in fields if str(error).startswith(f)), "")
        raise section.error(section.path(field) if field else key, str(error)) from None


def str_value(value: Any) -> str | None:
    """A non-blank string, else None."""
    return value if isinstance(value, str) and value.strip() else None


def name_value(value: Any) -> str | None:
    """A name of 1-64 letters, digits or ``_.+-``, starting with a letter or digit (it names files)."""
    return value if isinstance(value, str) and _NAME.match(value) else None


def size_value(value: Any) -> int | None:
    """An int, or a size string such as ``512M`` / ``2GiB`` (powers of 1024)."""
    if int_value(value) is not None:
        return int(value)
    if not isinstance(value, str):
        return None
    match = _SIZE.match(value)
    if not match or len(match.group(1)) > 30:
        return None
    unit = (match.group(2) or "B").upper()[0]
    return int(match.group(1)) * {"B": 1, "K": 1024, "M": 1024**2, "G": 1024**3}[unit]


def size_limit(
    section: Section, maximum: Callable[[str], int], example: str
) -> Callable[[str, Any], int]:
    """A check for a resource limit: an integer or a size such as ``example`` (``512M``),
    0 for no limit, at most ``maximum(key)`` (the limits' class's ``maximum``)."""

    def check(key_path: str, value: Any) -> int:
        number = size_value(value)
        top = maximum(key_path.rsplit(".", 1)[-1])
        if number is None or not 0 <= number <= top:
            raise section.error(
                key_path,
                f"expected an integer, 0 for no limit (or a size like {example}), at most {top}, "
                f"got {show(value)}",
            )
        return number

    return check
