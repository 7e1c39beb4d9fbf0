"""referee.ladder.config: LADDER.yaml checked key by key, with the tournament's own checks."""

from __future__ import annotations

import pathlib

import pytest

from referee.ladder.config import load_ladder_config, parse_ladder_config
from referee.tournament.config import ConfigError


def _parse(data: object) -> object:
    return parse_ladder_config(data, path="ladders/class.yaml", cpu_count=2)


def test_defaults() -> None:
    config = _parse({"name": "class"})
    assert config.table_size == 4 and config.bot_lifetime == "game"
    assert config.submissions.versions_kept_active == 1
    assert config.matchmaking.first_sets == 2
    assert config.concurrency == 2
    assert config.canonical()["bots"] == {} and config.canonical()["ladder"]["version"] == 1


def test_shared_sections_are_the_tournament_checks() -> None:
    config = _parse(
        {
            "rules": {"num_players": 3, "target_score": 50},
            "time_control": {"move_time_ms": 300},
            "limits": {"memory_bytes": "256M"},
            "build": {"timeout_s": 60},
            "executor": {"kind": "ray", "workers": 4},
            "submissions": {"max_upload_bytes": "2M", "versions_kept_active": 2},
        }
    )
    assert config.rules.num_players == 3 and config.time_control.move_time_ms == 300
    assert config.limits.memory_bytes == 256 * 1024**2 and config.build.timeout_s == 60
    assert config.executor.kind == "ray" and config.executor.workers == 4
    assert config.submissions.max_upload_bytes == 2 * 1024**2


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"bots": {"a": "random"}}, "ladders/class.yaml: bots: a ladder has no bots section"),
        ({"submisions": {}}, "submisions: unknown key; did you mean 'submissions'?"),
        ({"rules": {"moon_scoring": "add"}}, "rules.moon_scoring: expected one of"),
        ({"submissions": {"max_files": 0}}, "submissions.max_files: expected an integer 1 to"),
        (
            {"submissions": {"max_upload_bytes": "2T"}},
            "submissions.max_upload_bytes: expected a size",
        ),
        ({"submissions": {"max_upload_bytes": "2G"}}, "submissions.max_upload_bytes: at most"),
        ({"submissions": {"check_full_game": "yes"}}, "submissions.check_full_game: expected true"),
        ({"matchmaking": {"candidates": -1}}, "matchmaking.candidates: expected an integer"),
        ({"matchmaking": {"bogus": 1}}, "matchmaking.bogus: unknown key"),
        ({"bot_processes": "per_table"}, "bot_processes: per_table is not for a ladder"),
        ({"executor": "slurm"}, "executor: expected one of local, ray"),
        ([1, 2], "(top level): expected a mapping"),
    ],
)
def test_mistakes_name_the_file_and_key(data: object, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        _parse(data)
    assert message in str(error.value)
    assert str(error.value).startswith("ladders/class.yaml: ")


def test_a_file_that_is_no_yaml_is_named(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "LADDER.yaml"
    path.write_text("name: [unclosed\n")
    with pytest.raises(ConfigError, match=r"LADDER\.yaml"):
        load_ladder_config(path)


def test_the_output_folder_is_relative_to_the_config(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "LADDER.yaml"
    path.write_text("name: class\noutput: out/class\n")
    assert load_ladder_config(path).output == tmp_path / "out" / "class"


def test_the_digest_follows_what_decides_the_games() -> None:
    base = _parse({"name": "class"})
    assert _parse({"name": "class", "concurrency": 1}).digest() == base.digest()
    assert _parse({"name": "class", "submissions": {"max_files": 9}}).digest() == base.digest()
    assert _parse({"name": "class", "rules": {"target_score": 50}}).digest() != base.digest()
