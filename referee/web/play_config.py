"""The config of ``referee play`` (``--config FILE``): the game's rules and clocks.

The same sections as a tournament config where they mean the same
(``rules``, ``time_control``, ``fault_policy``, ``seed``, ``sandbox``; see
docs/config.md), checked by the same code (:mod:`referee.tournament.config_checks`), plus ``human``: the human seats'
own clock (``move_time_ms``, ``time_bank_ms``), generous by default. The bots
are given on the command line. Errors name the file and the key path.

>>> import pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "p.yaml").write_text("rules: {num_players: 3, target_score: 30}")
>>> config = load_play_config(folder / "p.yaml")
>>> config.rules.num_players, config.human.move_time_ms
(3, 300000)
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
from typing import Any

from referee.engine import Rules
from referee.players.policy import FaultPolicy, TimeControl
from referee.sandbox.bwrap import SANDBOX_KINDS
from referee.tournament.config_checks import (
    ConfigError,
    Section,
    checker,
    choice,
    int_value,
    policy_section,
    rules_section,
)
from referee.yamlfile import YamlFileError, load_yaml

__all__ = ["DEFAULT_HUMAN_CLOCK", "PlayConfig", "load_play_config", "parse_play_config"]

#: A person's clock per decision: five minutes, no bank (a bot's default is one second).
DEFAULT_HUMAN_CLOCK = TimeControl(move_time_ms=300_000, time_bank_ms=0)
_TOP_KEYS = ("rules", "time_control", "fault_policy", "human", "seed", "sandbox")
_HUMAN_KEYS = ("move_time_ms", "time_bank_ms")


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class PlayConfig:
    """What ``referee play`` takes from its config (every field has a default)."""

    #: None when the file does not set rules.num_players (the table is the seats given).
    num_players: int | None = None
    rules: Rules = dataclasses.field(default_factory=Rules)
    #: The bots' clock.
    time_control: TimeControl = dataclasses.field(default_factory=TimeControl)
    #: The human seats' clock.
    human: TimeControl = DEFAULT_HUMAN_CLOCK
    fault_policy: FaultPolicy = dataclasses.field(default_factory=FaultPolicy)
    seed: int | None = None
    sandbox: str = "bwrap"


def load_play_config(path: str | os.PathLike[str]) -> PlayConfig:
    """Read and check the play config at ``path``."""
    path = pathlib.Path(path)
    try:
        data = load_yaml(path)
    except YamlFileError as error:
        raise ConfigError(str(error)) from None
    return parse_play_config(data, path=path)


def parse_play_config(data: Any, *, path: str | os.PathLike[str] = "play.yaml") -> PlayConfig:
    """Check the play config ``data`` (as loaded from YAML) read from ``path``."""
    file = pathlib.Path(path)
    top = Section(file, "", data, _TOP_KEYS)
    rules = rules_section(top)
    given = top.data.get("rules") or {}
    time_control = policy_section(top, "time_control", TimeControl)
    fault_policy = policy_section(top, "fault_policy", FaultPolicy)
    human = top.section("human", _HUMAN_KEYS)
    clock: dict[str, int] = {}
    for key in _HUMAN_KEYS:
        value = human.data.get(key)
        if value is None:
            continue
        top_value = TimeControl.maximum(key)
        low = 1 if key == "move_time_ms" else 0
        if int_value(value) is None or not low <= value <= top_value:
            raise human.error(
                human.path(key), f"expected an integer {low} to {top_value} (ms), got {value!r}"
            )
        clock[key] = value
    human_clock = dataclasses.replace(
        DEFAULT_HUMAN_CLOCK,
        grace_ms=time_control.grace_ms,
        notify_timeout_ms=time_control.notify_timeout_ms,
        **clock,
    )
    seed = top.get("seed", checker(top, int_value, "an integer"), None)
    sandbox = top.get("sandbox", choice(top, SANDBOX_KINDS), "bwrap")
    return PlayConfig(
        num_players=rules.num_players if "num_players" in given else None,
        rules=rules,
        time_control=time_control,
        human=human_clock,
        fault_policy=fault_policy,
        seed=seed,
        sandbox=sandbox,
    )
