"""The checks every config shares (referee/tournament/config_checks.py): errors name file and key."""

from __future__ import annotations

import doctest
import pathlib

import pytest

from referee.players.policy import Limits, TimeControl
from referee.tournament import config_checks
from referee.tournament.config_checks import (
    ConfigError,
    Section,
    choice,
    int_range,
    policy_section,
    rules_section,
    size_limit,
)

FILE = pathlib.Path("c.yaml")


def test_doctests() -> None:
    result = doctest.testmod(config_checks)
    assert result.attempted > 0 and result.failed == 0


def test_a_key_in_the_wrong_place_gets_a_hint() -> None:
    with pytest.raises(
        ConfigError, match=r"^c.yaml: target_score: unknown key; it goes under rules:"
    ):
        Section(FILE, "", {"target_score": 50}, ("rules",))


def test_a_section_that_is_no_mapping() -> None:
    top = Section(FILE, "", {"rules": [1]}, ("rules",))
    with pytest.raises(ConfigError, match=r"^c.yaml: rules: expected a mapping, got a list$"):
        top.section("rules", ("num_players",))


def test_checks_name_the_key_path() -> None:
    top = Section(FILE, "", {"a": {"n": 9, "k": "x"}}, ("a",))
    inner = top.section("a", ("n", "k"))
    with pytest.raises(ConfigError, match=r"^c.yaml: a.n: expected an integer 1 to 5, got 9$"):
        inner.get("n", int_range(inner, 1, 5), None)
    with pytest.raises(ConfigError, match=r"^c.yaml: a.k: expected one of y, z, got 'x'$"):
        inner.get("k", choice(inner, ("y", "z")), None)
    assert inner.get("absent", int_range(inner, 1, 5), 3) == 3


def test_rules_and_policies() -> None:
    top = Section(FILE, "", {"rules": {"num_players": 8}}, ("rules",))
    with pytest.raises(ConfigError, match=r"rules.num_players: expected an integer 3 to 7, got 8"):
        rules_section(top)
    top = Section(FILE, "", {"time_control": {"move_time_ms": 250}}, ("time_control",))
    assert policy_section(top, "time_control", TimeControl).move_time_ms == 250
    top = Section(FILE, "", {"time_control": {"move_time_ms": -1}}, ("time_control",))
    with pytest.raises(ConfigError, match=r"time_control.move_time_ms: expected an integer 0 to"):
        policy_section(top, "time_control", TimeControl)


def test_size_limits() -> None:
    section = Section(FILE, "limits", {"memory_bytes": "1G"}, ("memory_bytes",))
    check = size_limit(section, Limits.maximum, "512M")
    assert check("limits.memory_bytes", "1G") == 1024**3
    assert check("limits.memory_bytes", 0) == 0
    with pytest.raises(ConfigError, match=r"limits.memory_bytes: expected an integer, 0 for no"):
        check("limits.memory_bytes", "lots")
