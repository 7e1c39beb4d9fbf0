"""Tournament config: every mistake gets a message naming the file, key path and expectation."""

from __future__ import annotations

import os
import pathlib

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.engine import MoonScoring, TieRule
from referee.players.policy import BuildLimits, Limits
from referee.tournament.config import ConfigError, load_config

from .conftest import SAMPLE_HEURISTIC, write_config

FOUR = "bots: {a: random, b: random, c: heuristic, d: heuristic}\n"

BAD_CONFIGS = [
    # (config text, message after "FILE: ")
    (
        FOUR + "rules: {moon_scoring: add}",
        "rules.moon_scoring: expected one of add_to_others, subtract_from_self, "
        "shooter_chooses, got 'add'",
    ),
    (
        FOUR + "rules: {moon_scorng: add_to_others}",
        "rules.moon_scorng: unknown key; did you mean 'moon_scoring'?",
    ),
    (FOUR + "schedul: {deal_sets: 2}", "schedul: unknown key; did you mean 'schedule'?"),
    (
        FOUR + "colour: blue",
        "colour: unknown key; expected one of name, seed, bots, rules, schedule, time_control, "
        "fault_policy, limits, bot_processes, bot_lifetime, sandbox, concurrency, build, executor, output, ranking, "
        "format, gauntlet",
    ),
    ("rules: {target_score: 50}", "bots: missing; expected a mapping of bot names to bots"),
    (
        "bots: [random, random, random, random]",
        "bots: expected a mapping of bot names to bots (name: random), got a list",
    ),
    (
        "bots: {a: random, b: random, c: random}",
        "bots: a table of 4 (rules.num_players) needs at least 4 bots, got 3",
    ),
    (FOUR + "rules: {num_players: 8}", "rules.num_players: expected an integer 3 to 7, got 8"),
    (
        FOUR + "rules: {target_score: '100'}",
        "rules.target_score: expected an integer 1 to 10000, got '100'",
    ),
    (FOUR + "rules: {omnibus: 'yes'}", "rules.omnibus: expected true or false, got 'yes'"),
    (
        FOUR + "rules: {tie_rule: sudden_death}",
        "rules.tie_rule: expected one of play_on, last_hand, share, got 'sudden_death'",
    ),
    (FOUR + "rules: 4", "rules: expected a mapping, got 4"),
    (
        FOUR + "time_control: {move_time_ms: 0}",
        "time_control.move_time_ms: move_time_ms must be positive",
    ),
    (
        FOUR + "time_control: {move_time: 100}",
        "time_control.move_time: unknown key; did you mean 'move_time_ms'?",
    ),
    (
        FOUR + "time_control: {time_bank_ms: 1.5}",
        "time_control.time_bank_ms: expected an integer 0 to 86400000, got 1.5",
    ),
    (
        FOUR + "fault_policy: {max_faults: -1}",
        "fault_policy.max_faults: expected an integer 0 to 1000000, got -1",
    ),
    (
        FOUR + "fault_policy: {max_message_bytes: 100}",
        "fault_policy.max_message_bytes: max_message_bytes must be at least 1024",
    ),
    (
        FOUR + "schedule: {duplicate: false, all_permutations: true}",
        "schedule.all_permutations: needs duplicate: true (it replaces the rotations)",
    ),
    (
        FOUR + "schedule: {table_size: 5}",
        "schedule.table_size: unknown key; the table size is rules.num_players",
    ),
    (
        FOUR + "schedule: {deal_sets: 0}",
        "schedule.deal_sets: expected an integer at least 1, got 0",
    ),
    (
        FOUR + "schedule: {max_tables: many}",
        "schedule.max_tables: expected an integer 1 to 10000, got 'many'",
    ),
    (FOUR + "target_score: 50", "target_score: unknown key; it goes under rules:"),
    (
        FOUR + "bot_processes: forked",
        "bot_processes: expected one of shared, per_table, per_worker, got 'forked'",
    ),
    (FOUR + "concurrency: 0", "concurrency: expected an integer 1 to 256, got 0"),
    (
        FOUR + "ranking: elo",
        "ranking: expected one of points, ordinal, wins, placement, got 'elo'",
    ),
    (FOUR + "seed: 1.5", "seed: expected an integer, got 1.5"),
    (FOUR + "output: 3", "output: expected a folder path, got 3"),
    (
        FOUR + "name: my tournament",
        "name: expected a name of letters, digits or _.+-, got 'my tournament'",
    ),
    (FOUR + "build: {parallel: 0}", "build.parallel: expected an integer 1 to 64, got 0"),
    (
        FOUR + "build: {limits: {memory: 2G}}",
        "build.limits.memory: unknown key; did you mean 'memory_bytes'?",
    ),
    (
        FOUR + "build: {limits: {processes: -1}}",
        "build.limits.processes: expected an integer, 0 for no limit (or a size like 2G), "
        "at most 4194304, got -1",
    ),
    (
        FOUR + "build: {credentials: [npm, crates]}",
        "build.credentials[1]: expected one of npm, pip, cargo, maven, go, git, netrc, "
        "got 'crates'",
    ),
    (
        FOUR + "build: {credentials: npm}",
        "build.credentials: expected a list of credential kinds "
        "(npm, pip, cargo, maven, go, git, netrc), got 'npm'",
    ),
    (
        FOUR + "build: {timeout_s: -5}",
        "build.timeout_s: expected a number of seconds above 0, at most 86400, got -5",
    ),
    (
        "bots: {a: random, b: random, c: random, d: nonsense}",
        "bots.d: 'nonsense' is not a bot: expected a built-in (random, heuristic), a running "
        "bot's host:port, a command containing {address} (or {port} without a "
        "sandbox), or a folder with a bot.yaml",
    ),
    (
        "bots: {a: random, b: random, c: random, d: 42}",
        "bots.d: expected a built-in name, host:port, a command with {address} or a folder, got 42",
    ),
    (
        "bots: {a: random, b: random, c: random, d: {limits: {cpu_seconds: 5}}}",
        "bots.d: missing key 'bot' (a built-in, host:port, command or folder)",
    ),
    (
        "bots: {a: random, b: random, c: random, d: {bot: random, limts: {}}}",
        "bots.d.limts: unknown key; did you mean 'limits'?",
    ),
    (
        "bots: {a: random, b: random, c: random, d: {bot: random, limits: {cpu_seconds: 5}}}",
        "bots.d.limits: limits apply only to launched bots (a command or a folder)",
    ),
    (
        "bots: {a: random, b: random, c: random,"
        " d: {bot: 'python x.py {port}', limits: {memory_bytes: lots}}}",
        "bots.d.limits.memory_bytes: expected an integer, 0 for no limit (or a size like 512M), "
        "at most 1099511627776, got 'lots'",
    ),
    (
        FOUR + "limits: {memory: 1G}",
        "limits.memory: unknown key; did you mean 'memory_bytes'?",
    ),
    (
        "bots: {a: random, b: random, c: random, 'my/bot': random}",
        "bots.my/bot: a bot name must be 1-64 letters, digits or _.+- (it names files), "
        "starting with a letter or digit",
    ),
    ("- a\n- b", "(top level): expected a mapping, got a list"),
]


@pytest.mark.parametrize(("text", "message"), BAD_CONFIGS)
def test_bad_config_messages(tmp_path: pathlib.Path, text: str, message: str) -> None:
    path = write_config(tmp_path, text)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value) == f"{path}: {message}"


def test_a_key_given_twice_is_an_error(tmp_path: pathlib.Path) -> None:
    path = write_config(tmp_path, FOUR + "seed: 1\nseed: 2\n")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert (
        str(error.value) == f"{path}: not valid YAML: line 3, column 1: key 'seed' is given twice"
    )


def test_invalid_yaml_names_the_line(tmp_path: pathlib.Path) -> None:
    path = write_config(tmp_path, FOUR + "rules: {target_score: 50\n")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value).startswith(f"{path}: not valid YAML: line ")


def test_a_folder_without_manifest(tmp_path: pathlib.Path) -> None:
    (tmp_path / "empty").mkdir()
    path = write_config(tmp_path, "bots: {a: random, b: random, c: random, d: empty}")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value) == (
        f"{path}: bots.d: {tmp_path / 'empty'}: a bot folder needs a bot.yaml manifest"
    )


def test_too_many_combinations_need_max_tables(tmp_path: pathlib.Path) -> None:
    bots = ", ".join(f"b{i}: random" for i in range(30))
    path = write_config(tmp_path, f"bots: {{{bots}}}")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value) == (
        f"{path}: schedule.max_tables: 30 bots make 27405 tables of 4; "
        "set max_tables (at most 10000) for a balanced sample"
    )


def test_missing_file(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ConfigError, match=r"nope.yaml: cannot read: No such file"):
        load_config(tmp_path / "nope.yaml")


def test_defaults(tmp_path: pathlib.Path) -> None:
    config = load_config(write_config(tmp_path, FOUR), cpu_count=3)
    assert config.name == "t"
    assert config.seed is None
    assert config.rules.num_players == 4 and config.rules.target_score == 100
    assert config.rules.moon_scoring is MoonScoring.ADD_TO_OTHERS
    assert config.schedule.deal_sets == 1 and config.schedule.duplicate
    assert not config.schedule.all_permutations and config.schedule.max_tables is None
    assert config.time_control.move_time_ms == 1000
    assert config.fault_policy.max_faults == 5
    assert config.concurrency == 3
    assert config.bot_processes == "per_worker"
    assert config.ranking == "points"
    assert config.output == pathlib.Path("runs") / "t"
    # One build per core by default; no credentials; limits above a bot's.
    assert config.build.parallel == (os.cpu_count() or 1)
    assert config.build.credentials == () and config.build.limits == BuildLimits()
    assert config.build.limits.memory_bytes > config.limits.memory_bytes
    assert config.limits == Limits()


def test_every_key(tmp_path: pathlib.Path) -> None:
    path = write_config(
        tmp_path,
        f"""
        name: cup-2025
        seed: 99
        bots:
          a: random
          b: heuristic
          c: "{{python}} bot.py --address {{address}}"
          d: {{bot: {SAMPLE_HEURISTIC}, limits: {{memory_bytes: 512M, cpu_seconds: 60}}}}
          e: 127.0.0.1:50051
        rules:
          num_players: 5
          target_score: 50
          queen_breaks_hearts: true
          moon_scoring: shooter_chooses
          omnibus: true
          tie_rule: share
          points_on_first_trick: true
        schedule: {{deal_sets: 3, duplicate: true, all_permutations: true, max_tables: 1}}
        time_control: {{move_time_ms: 200, time_bank_ms: 1000, grace_ms: 50,
                        notify_timeout_ms: 500, startup_timeout_ms: 5000}}
        fault_policy: {{max_faults: 0, max_restarts: 1, max_message_bytes: 4096}}
        limits: {{open_files: 64, processes: 32, output_bytes: 1M, address_space_bytes: 0}}
        bot_processes: per_table
        concurrency: 4
        build: {{parallel: 3, timeout_s: 60, credentials: [npm, cargo, npm],
                 limits: {{memory_bytes: 3G, processes: 300}}}}
        output: results/cup
        ranking: ordinal
        """,
    )
    config = load_config(path)
    assert config.name == "cup-2025" and config.seed == 99
    assert [b.name for b in config.bots] == ["a", "b", "c", "d", "e"]
    assert config.bot("c").cwd == str(tmp_path)
    assert config.bot("d").cwd == str(SAMPLE_HEURISTIC)
    assert dict(config.bot("d").limits) == {"memory_bytes": 512 * 1024**2, "cpu_seconds": 60}
    assert not config.bot("c").limits
    assert config.limits == Limits(open_files=64, processes=32, output_bytes=1024**2)
    assert not config.bot("a").limits and config.bot("e").address == "127.0.0.1:50051"
    rules = config.rules
    assert (rules.num_players, rules.target_score) == (5, 50)
    assert rules.queen_breaks_hearts and rules.omnibus and rules.points_on_first_trick
    assert rules.moon_scoring is MoonScoring.SHOOTER_CHOOSES and rules.tie_rule is TieRule.SHARE
    assert config.schedule.deal_sets == 3 and config.schedule.all_permutations
    assert config.schedule.max_tables == 1
    assert config.time_control.time_bank_ms == 1000
    assert config.time_control.startup_timeout_ms == 5000
    assert config.fault_policy.max_message_bytes == 4096
    assert config.bot_processes == "per_table" and config.concurrency == 4
    assert config.build.parallel == 3 and config.build.timeout_s == 60.0
    assert config.build.limits == BuildLimits(memory_bytes=3 * 1024**3, processes=300)
    assert config.build.credentials == ("npm", "cargo")
    assert config.output == tmp_path / "results" / "cup"
    assert config.ranking == "ordinal"


def test_digest_ignores_what_does_not_change_games(tmp_path: pathlib.Path) -> None:
    one = load_config(write_config(tmp_path, FOUR + "concurrency: 1\nranking: wins\n", "a.yaml"))
    two = load_config(write_config(tmp_path, FOUR + "concurrency: 2\noutput: x\n", "a.yaml"))
    three = load_config(write_config(tmp_path, FOUR + "rules: {target_score: 50}\n", "a.yaml"))
    assert one.digest() == two.digest() != three.digest()


def test_v8_max_hands_in_the_config(tmp_path: pathlib.Path) -> None:
    """rules.max_hands (V8): 1 to 10000; its default hashes as a config without it did."""
    unset = load_config(write_config(tmp_path, FOUR, "a.yaml"))
    default = load_config(write_config(tmp_path, FOUR + "rules: {max_hands: 100}\n", "a.yaml"))
    capped = load_config(write_config(tmp_path, FOUR + "rules: {max_hands: 40}\n", "a.yaml"))
    assert unset.rules.max_hands == default.rules.max_hands == 100 and capped.rules.max_hands == 40
    assert "max_hands" not in unset.canonical()["rules"]
    assert unset.digest() == default.digest() != capped.digest()
    path = write_config(tmp_path, FOUR + "rules: {max_hands: 0}\n", "d.yaml")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value).startswith(f"{path}: rules.max_hands: expected an integer")


def test_cli_reports_a_bad_config_without_traceback_or_output(tmp_path: pathlib.Path) -> None:
    path = write_config(tmp_path, FOUR + "rules: {moon_scoring: add}\noutput: out\n")
    result = CliRunner().invoke(cli, ["tournament", str(path)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert f"Error: {path}: rules.moon_scoring: expected one of" in result.output
    assert not (tmp_path / "out").exists()


def test_the_example_configs_are_valid() -> None:
    root = pathlib.Path(__file__).resolve().parents[2] / "tournaments"
    example = load_config(root / "example.yaml")
    assert [b.name for b in example.bots] == [
        "random-py",
        "heuristic-py",
        "heuristic-cmd",
        "random",
        "heuristic",
        "strong",
    ]
    assert example.bot("random-py").cwd == str(root.parent / "sample_bots" / "python" / "random")
    variants = load_config(root / "variants.yaml")
    assert variants.rules.num_players == 5 and variants.schedule.max_tables == 20
    assert variants.output == root.parent / "runs" / "variants"
