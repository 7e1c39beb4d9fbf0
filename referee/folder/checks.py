"""Value checks for the folder's JSON files: each key with its test and what it must hold.

Shared by the journal's entries (:mod:`referee.folder.entries`) and
``tournament.json`` (:mod:`referee.folder.state`), so that both name a bad
key the same way: ``"scores: expected a list of integers, one per seat, got
[1, "x"]"``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

__all__ = [
    "KeySpec",
    "ints",
    "is_int",
    "is_mac",
    "is_number",
    "json_error",
    "keys_problem",
    "shown",
    "strs",
]

#: One key's rule: (required, check, what it must hold, in words).
KeySpec = tuple[bool, Callable[[Any], Any], str]


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**128


def is_number(value: Any) -> bool:
    return (is_int(value) or isinstance(value, float)) and math.isfinite(value)


def ints(value: Any) -> bool:
    return isinstance(value, list) and all(is_int(v) for v in value)


def strs(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def is_mac(value: Any) -> bool:
    return (
        isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
    )


def keys_problem(data: Mapping[str, Any], keys: Mapping[str, KeySpec]) -> str | None:
    """The first key of ``data`` that breaks its rule, as ``"key: expected ..."``; None if none."""
    for key, (required, check, expected) in keys.items():
        if key not in data:
            if required:
                return f"{key}: missing; expected {expected}"
            continue
        if not check(data[key]):
            return f"{key}: expected {expected}, got {shown(data[key])}"
    return None


def json_error(error: Exception) -> str:
    """What ``json.loads`` refused, in words (its message, or why it gave up)."""
    if isinstance(error, json.JSONDecodeError):
        return str(error)
    if isinstance(error, RecursionError):
        return "nested too deeply"
    return "a number too long"


def shown(value: Any) -> str:
    """A value as an error message shows it: JSON, cut to about 80 characters."""
    text = json.dumps(value) if _jsonable(value) else repr(value)
    return text if len(text) <= 80 else f"{text[:60]}... ({len(text)} characters)"


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (ValueError, TypeError):
        return False
    return True
