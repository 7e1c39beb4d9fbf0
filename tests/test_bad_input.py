"""Bad input never gives a traceback, never hangs and never loses recorded data.

Each class of bad input a careless or hostile user can give (configs, bot
manifests, game logs, journals, ``tournament.json``, folders and the options
of every command) is run through the real command line. The promise: a short
message that names the file and the key, line, seat or card at fault; no
traceback; no hang; no recorded file changed.

The hypothesis-driven fuzz over the same inputs is in ``test_bad_input_fuzz.py``.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
from typing import Any

import pytest

from referee.folder import log_game_id
from tests.bad_input import (
    MINI,
    MOON_LOG,
    Outcome,
    bad,
    invoke,
    reseal,
    snapshot,
    write_config,
)
from tests.helpers import copy_folder
from tests.logs import folder_logs


@pytest.fixture
def folder(mini_tournament: pathlib.Path, tmp_path: pathlib.Path) -> pathlib.Path:
    return copy_folder(mini_tournament, tmp_path)


@pytest.fixture
def log(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "game.jsonl"
    shutil.copyfile(MOON_LOG, path)
    return path


def tournament(config: pathlib.Path, out: pathlib.Path, *extra: str) -> Outcome:
    return invoke(["tournament", str(config), "--out", str(out), "--quiet", *extra])


# Encodings ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        "name: café\nbots: {a: random}\n".encode("latin-1"),
        MINI.encode("utf-16"),
        b"\x00\xff\xfe\x80binary\x00" * 20,
    ],
    ids=["latin-1", "utf-16", "binary"],
)
def test_a_config_not_utf8(tmp_path: pathlib.Path, data: bytes) -> None:
    path = tmp_path / "t.yaml"
    path.write_bytes(data)
    bad(tournament(path, tmp_path / "out"), str(path), "UTF-8")
    bad(invoke(["gauntlet", str(path)]), str(path), "UTF-8")


def test_a_manifest_not_utf8(tmp_path: pathlib.Path) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.yaml").write_bytes("name: café\nrun: x {address}\n".encode("latin-1"))
    bad(invoke(["match", str(bot), "random", "random", "random"]), "bot.yaml", "UTF-8")
    config = write_config(tmp_path, f"bots: {{a: {bot}, b: random, c: random, d: random}}\n")
    bad(tournament(config, tmp_path / "out"), "bot.yaml", "UTF-8")


@pytest.mark.parametrize("data", [b"\xe9t\xe9\n", "x".encode("utf-16"), b"\x00\xff" * 50])
def test_a_log_not_utf8(log: pathlib.Path, data: bytes) -> None:
    log.write_bytes(log.read_bytes()[:400] + data)
    with snapshot(log.parent):
        bad(invoke(["replay", str(log)]), str(log), "UTF-8")
        bad(invoke(["verify", str(log)]), str(log), "UTF-8")


def test_a_journal_not_utf8(folder: pathlib.Path) -> None:
    journal = folder / "journal.jsonl"
    journal.write_bytes(journal.read_bytes() + b'{"type":"caf\xe9"}\n')
    with snapshot(folder):
        for args in (["standings", str(folder)], ["replay", str(folder)], ["verify", str(folder)]):
            bad(invoke(args), "journal.jsonl", ":")


def test_a_state_not_utf8(folder: pathlib.Path) -> None:
    (folder / "tournament.json").write_bytes(b"\xff\xfe{}")
    with snapshot(folder):
        for args in (["standings", str(folder)], ["verify", str(folder)]):
            bad(invoke(args), "tournament.json")


# Pathological structure ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "bots: " + "[" * 5000 + "]" * 5000 + "\n",
        "bots: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n",
        "bots: {a: random}\n" + "x: " + "- " * 2000 + "1\n",
    ],
    ids=["lists", "mappings", "block"],
)
def test_deeply_nested_config(tmp_path: pathlib.Path, text: str) -> None:
    path = write_config(tmp_path, text)
    bad(tournament(path, tmp_path / "out"), str(path), "nested")


@pytest.mark.parametrize(
    "text,where",
    [
        ("bots: {a: random}\n? [a, b]\n: 1\n", "line 2"),
        ("bots: {[a]: random}\n", "line 1"),
        ("bots:\n  ? {x: 1}\n  : random\n", "line 2"),
    ],
)
def test_a_key_that_is_a_list_or_mapping(tmp_path: pathlib.Path, text: str, where: str) -> None:
    path = write_config(tmp_path, text)
    bad(tournament(path, tmp_path / "out"), str(path), where, "key")


def test_a_manifest_with_a_list_key_or_deep_nesting(tmp_path: pathlib.Path) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    for text in ("? [a]\n: 1\nname: x\nrun: y {address}\n", "name: " + "[" * 5000 + "]" * 5000):
        (bot / "bot.yaml").write_text(text, encoding="utf-8")
        bad(invoke(["match", str(bot), "random", "random", "random"]), "bot.yaml")


def test_an_integer_of_5000_digits(tmp_path: pathlib.Path, log: pathlib.Path) -> None:
    huge = "7" * 5000
    path = write_config(tmp_path, f"seed: {huge}\nbots: {{a: random, b: random, c: random}}\n")
    bad(tournament(path, tmp_path / "out"), str(path), "line 1", "digits")
    path = write_config(
        tmp_path,
        f"bots: {{a: random, b: random, c: random, d: random}}\nrules: {{target_score: {huge}}}\n",
    )
    bad(tournament(path, tmp_path / "out"), str(path), "line 2", "digits")
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[3] = lines[3].replace('"hand":1', f'"hand":{huge}', 1)
    log.write_text("".join(lines), encoding="utf-8")
    shown = invoke(["replay", str(log)])  # the game up to there, with a warning
    assert f"warning: {log}:4" in shown.output, shown
    bad(invoke(["verify", str(log)]), f"{log}:4")
    bad(invoke(["match", "random", "random", "random", "--seed", huge]), "--seed")


@pytest.mark.parametrize(
    "section,key",
    [
        ("time_control", "notify_timeout_ms"),
        ("time_control", "move_time_ms"),
        ("time_control", "startup_timeout_ms"),
        ("limits", "cpu_seconds"),
        ("limits", "open_files"),
        ("limits", "memory_bytes"),
        ("fault_policy", "max_message_bytes"),
        ("build", "timeout_s"),
    ],
)
@pytest.mark.parametrize("value", ["1000000000000000000000000000000", "1.0e+30", ".inf", ".nan"])
def test_a_limit_out_of_range(tmp_path: pathlib.Path, section: str, key: str, value: str) -> None:
    path = write_config(
        tmp_path,
        f"bots: {{a: random, b: random, c: random, d: random}}\n{section}: {{{key}: {value}}}\n",
    )
    bad(tournament(path, tmp_path / "out"), str(path), f"{section}.{key}")


@pytest.mark.parametrize("key", ["delta0", "delta1", "min_sets"])
@pytest.mark.parametrize("value", [".nan", ".inf", "1.0e+30", "1000000000000"])
def test_a_gauntlet_setting_out_of_range(tmp_path: pathlib.Path, key: str, value: str) -> None:
    path = write_config(
        tmp_path,
        "bots: {new: heuristic, old: random, o1: heuristic, o2: heuristic, o3: random}\n"
        f"format: gauntlet\ngauntlet: {{candidate: new, baseline: old, sprt: {{{key}: {value}}}}}\n",
    )
    bad(invoke(["gauntlet", str(path)]), str(path), f"gauntlet.sprt.{key}")


@pytest.mark.parametrize(
    "option", ["--move-time-ms", "--time-bank-ms", "--max-faults", "--startup-timeout-s"]
)
def test_an_option_out_of_range(option: str) -> None:
    for value in ("1" + "0" * 30, "1e30", "inf", "nan"):
        bad(invoke(["match", "random", "random", "random", option, value]), option)


# Names and commands ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bots",
    [
        "{1: random, '1': random, c: random}",
        "{true: random, 'True': random, c: random}",
        "{1.0: random, '1.0': random, c: random}",
    ],
)
def test_bot_names_that_collide_after_yaml_typing(tmp_path: pathlib.Path, bots: str) -> None:
    path = write_config(tmp_path, f"bots: {bots}\n")
    bad(tournament(path, tmp_path / "out"), str(path), "bots.", "twice")


def test_an_unbalanced_quote(tmp_path: pathlib.Path) -> None:
    command = "python x.py --address {address} 'oops"
    path = write_config(tmp_path, f'bots: {{a: "{command}", b: random, c: random}}\n')
    bad(tournament(path, tmp_path / "out"), str(path), "bots.a", "quotation")
    bad(invoke(["match", command, "random", "random", "--sandbox", "none"]), "quotation")
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.yaml").write_text('name: x\nrun: "./bot --address {address} \'x"\n', "utf-8")
    bad(invoke(["match", str(bot), "random", "random", "--sandbox", "none"]), "bot.yaml", "run")
    (bot / "bot.yaml").write_text('name: x\nbuild: "make \'x"\nrun: ./b {address}\n', "utf-8")
    bad(invoke(["match", str(bot), "random", "random", "--sandbox", "none"]), "bot.yaml")


@pytest.mark.parametrize(
    "text,where",
    [
        ('output: "x\\0y"\n', "output"),
        ('bots: {a: "x\\0y {address}", b: random, c: random, d: random}\n', "bots.a"),
    ],
)
def test_a_nul_character(tmp_path: pathlib.Path, text: str, where: str) -> None:
    if not text.startswith("bots"):
        text = "bots: {a: random, b: random, c: random, d: random}\n" + text
    path = write_config(tmp_path, text)
    bad(invoke(["tournament", str(path), "--quiet"]), str(path), where)
    bot = tmp_path / "bot"
    bot.mkdir(exist_ok=True)
    (bot / "bot.yaml").write_text('name: x\nrun: "./b\\0 {address}"\n', "utf-8")
    bad(invoke(["match", str(bot), "random", "random", "--sandbox", "none"]), "bot.yaml", "NUL")


@pytest.mark.parametrize("seat", ["²", "٣", "99999999999999999999999", "-1", " ", "N\x00"])
def test_a_bad_seat(log: pathlib.Path, seat: str) -> None:
    bad(invoke(["replay", str(log), "--seat", seat]), "--seat")


# The file system ----------------------------------------------------------------------------


def _out_cases(tmp_path: pathlib.Path) -> list[pathlib.Path]:
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder\n")
    return [a_file, a_file / "under", pathlib.Path("/dev/full"), pathlib.Path("/proc/self/x")]


def test_an_output_folder_that_cannot_be(tmp_path: pathlib.Path) -> None:
    config = write_config(tmp_path, MINI)
    for out in _out_cases(tmp_path):
        with snapshot(tmp_path):
            bad(tournament(config, out), str(out))
            bad(invoke(["match", "random", "random", "random", "--out", str(out)]), str(out))


def test_games_is_a_file(tmp_path: pathlib.Path, folder: pathlib.Path) -> None:
    config = write_config(tmp_path, MINI)
    shutil.rmtree(folder / "games")
    (folder / "games").write_text("x")
    # A resumed run with every game to play again, but no games folder to write them into.
    entries = [json.loads(line) for line in (folder / "journal.jsonl").open(encoding="utf-8")]
    reseal(folder, [e for e in entries if e["type"] != "game"])
    with snapshot(folder):
        bad(tournament(config, folder), "games")


def test_html_under_a_file(tmp_path: pathlib.Path, log: pathlib.Path) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    for out in (a_file / "r.html", tmp_path, pathlib.Path("/dev/full/x.html")):
        bad(invoke(["replay", str(log), "--html", str(out)]), str(out))


# Damaged tournament folders -----------------------------------------------------------------


@pytest.mark.parametrize(
    "change,field",
    [
        ({"seed": None}, "seed"),
        ({"seed": "x"}, "seed"),
        ({"participants": "r1"}, "participants"),
        ({"participants": [1, 2]}, "participants"),
        ({"excluded": []}, "excluded"),
        ({"config": []}, "config"),
        ({"config": {"bots": []}}, "config"),
        ({"name": 5}, "name"),
        ({"games_scheduled": "4"}, "games_scheduled"),
        ({"key_id": 7}, "key_id"),
        ({"config_hash": None}, "config_hash"),
    ],
)
def test_a_damaged_state(
    tmp_path: pathlib.Path, folder: pathlib.Path, change: dict[str, Any], field: str
) -> None:
    path = folder / "tournament.json"
    state = json.loads(path.read_text(encoding="utf-8"))
    for key, value in change.items():
        if value is None:
            del state[key]
        else:
            state[key] = value
    path.write_text(json.dumps(state), encoding="utf-8")
    config = write_config(tmp_path, MINI)
    with snapshot(folder):
        for args in (["standings", str(folder)], ["verify", str(folder)]):
            bad(invoke(args), "tournament.json", field)
        bad(tournament(config, folder), "tournament.json", field)


def _damage_journal(folder: pathlib.Path, kind: str) -> None:
    entries = [json.loads(line) for line in (folder / "journal.jsonl").open(encoding="utf-8")]
    game = next(e for e in entries if e["type"] == "game")
    run = next(e for e in entries if e["type"] == "run")
    if kind == "string run":
        run["run"] = "one"
    elif kind == "no hand_scores":
        del game["hand_scores"]
    elif kind == "nan":
        game["scores"][0] = float("nan")
    elif kind == "string bots":
        game["bots"] = "r1"
    elif kind == "short scores":
        game["scores"] = game["scores"][:2]
    elif kind == "seat out of range":
        game["winners"] = [99]
    elif kind == "faults list":
        game["faults"] = [1, 2, 3, 4]
    elif kind == "game_id int":
        game["game_id"] = 5
    elif kind == "index string":
        game["index"] = "0"
    reseal(folder, entries)


@pytest.mark.parametrize(
    "kind,field",
    [
        ("string run", "run"),
        ("no hand_scores", "hand_scores"),
        ("nan", "scores"),
        ("string bots", "bots"),
        ("short scores", "scores"),
        ("seat out of range", "winners"),
        ("faults list", "faults"),
        ("game_id int", "game_id"),
        ("index string", "index"),
    ],
)
def test_a_damaged_journal(
    tmp_path: pathlib.Path, folder: pathlib.Path, kind: str, field: str
) -> None:
    _damage_journal(folder, kind)
    config = write_config(tmp_path, MINI)
    with snapshot(folder):
        for args in (["standings", str(folder)], ["replay", str(folder)], ["verify", str(folder)]):
            bad(invoke(args), "journal.jsonl:", field)
        bad(tournament(config, folder), "journal.jsonl:", field)


# Hangs ---------------------------------------------------------------------------------------


def _cli(
    tmp_path: pathlib.Path, *args: str, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [sys.executable, "-m", "referee.cli", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(pathlib.Path(__file__).parents[1])},
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"referee {' '.join(args)} still running after {timeout} s")


@pytest.mark.parametrize(
    "text,needles",
    [
        ("rules: {target_score: 1000000000}\n", ("rules.target_score",)),
        ("schedule: {deal_sets: 1000000000000}\n", ("schedule.deal_sets", "games")),
        ("schedule: {deal_sets: 1e12}\n", ("schedule.deal_sets",)),
    ],
)
def test_no_hang_on_a_huge_config(
    tmp_path: pathlib.Path, text: str, needles: tuple[str, ...]
) -> None:
    path = write_config(tmp_path, "bots: {a: random, b: random, c: random, d: random}\n" + text)
    done = _cli(tmp_path, "tournament", str(path), "--out", str(tmp_path / "out"), "-q", timeout=30)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    for needle in needles:
        assert needle in done.stderr


def test_no_hang_on_a_huge_target(tmp_path: pathlib.Path) -> None:
    done = _cli(
        tmp_path,
        "match",
        "random",
        "random",
        "random",
        "random",
        "--target",
        "1000000000",
        timeout=30,
    )
    assert done.returncode == 2 and "--target" in done.stderr, done.stderr


# Data loss -----------------------------------------------------------------------------------


def test_html_over_the_log_it_replays(log: pathlib.Path) -> None:
    with snapshot(log.parent):
        bad(invoke(["replay", str(log), "--html", str(log)]), str(log), "--html")
        bad(invoke(["replay", str(log), "--html", str(log), "--force"]), str(log))


def test_html_over_a_recorded_file(folder: pathlib.Path) -> None:
    log = folder_logs(folder)[0]
    game = log_game_id(log.name)
    recorded = [
        folder / "journal.jsonl",
        folder / "tournament.json",
        folder / "key",
        folder / "standings.json",
        folder / "standings.txt",
        folder / "head_to_head.csv",
        log,
        folder / "config.yaml",
    ]
    with snapshot(folder):
        for target in recorded:
            for force in ([], ["--force"]):
                result = invoke(
                    ["replay", str(folder), "--game", game, "--html", str(target), *force]
                )
                bad(result, str(target))


def test_html_over_a_file_not_ours_needs_force(log: pathlib.Path, tmp_path: pathlib.Path) -> None:
    other = tmp_path / "notes.html"
    other.write_text("<p>my notes</p>\n")
    with snapshot(tmp_path):
        bad(invoke(["replay", str(log), "--html", str(other)]), str(other), "--force")
    ok = invoke(["replay", str(log), "--html", str(other), "--force"])
    assert ok.exit_code == 0, ok.output
    again = invoke(["replay", str(log), "--html", str(other)])  # ours now: replaced freely
    assert again.exit_code == 0, again.output


def test_match_into_an_old_match_folder(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "m"
    first = invoke(
        ["match", "random", "random", "random", "--seed", "3", "--out", str(out), "--target", "20"]
    )
    assert first.exit_code == 0, first.output
    with snapshot(out):
        bad(invoke(["match", "random", "random", "random", "--out", str(out)]), "game.jsonl")


def test_match_or_check_bot_into_a_tournament_folder(folder: pathlib.Path) -> None:
    with snapshot(folder):
        bad(invoke(["match", "random", "random", "random", "--out", folder]), "tournament")
        bad(invoke(["check-bot", "localhost:1", "--out", folder]), "tournament")


def test_fresh_then_a_failed_start_keeps_the_old_folder(
    tmp_path: pathlib.Path, folder: pathlib.Path
) -> None:
    before = {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    bad_config = write_config(tmp_path, MINI.replace("r2: random", "r2: ./no-such-folder"))
    bad(tournament(bad_config, folder, "--fresh"), "bots.r2")
    assert folder.is_dir()
    olds = list(tmp_path.glob("out.old-*"))
    kept = olds[0] if olds else folder
    after = {p.relative_to(kept): p.read_bytes() for p in kept.rglob("*") if p.is_file()}
    assert after == before


def test_fresh_then_a_failed_build_keeps_the_old_folder(
    tmp_path: pathlib.Path, folder: pathlib.Path
) -> None:
    before = {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.yaml").write_text("name: b\nbuild: exit 3\nrun: ./b {address}\n", "utf-8")
    config = write_config(tmp_path, MINI.replace("r2: random", f"r2: {bot}") + "sandbox: none\n")
    result = tournament(config, folder, "--fresh")
    assert result.exit_code == 1, result
    olds = list(tmp_path.glob("out.old-*"))
    assert len(olds) == 1 and str(olds[0]) in result.output, result
    after = {p.relative_to(olds[0]): p.read_bytes() for p in olds[0].rglob("*") if p.is_file()}
    assert after == before


# Damaged logs shown silently ----------------------------------------------------------------


def _lines(log: pathlib.Path) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines(keepends=True)


@pytest.mark.parametrize("cut", [1, 10, 40, -1])
def test_a_cut_log_is_shown_with_a_warning(log: pathlib.Path, cut: int) -> None:
    lines = _lines(log)
    log.write_text("".join(lines[:cut]), encoding="utf-8")
    result = invoke(["replay", str(log)])
    # Cut after its header alone, or after some hands: the warning says which, at the last line.
    what = (
        "holds only its game header"
        if cut == 1
        else "has no game_end record: the game is unfinished, or the log was cut"
    )
    last = len(lines[:cut])
    expected = f"warning: {log}:{last}: the log {what}; showing the game up to there"
    assert expected in result.output, result.output


def test_a_duplicated_play_is_shown_with_a_warning(log: pathlib.Path) -> None:
    lines = _lines(log)
    play = next(i for i, line in enumerate(lines) if '"type":"play"' in line)
    lines.insert(play + 1, lines[play])
    log.write_text("".join(lines), encoding="utf-8")
    result = invoke(["replay", str(log)])
    assert "warning" in result.output and f"{log}:{play + 2}" in result.output, result.output


def test_a_huge_line_is_not_echoed(log: pathlib.Path) -> None:
    lines = _lines(log)
    lines[5] = '{"type":"play","x":"' + "A" * 5_000_000 + '"\n'
    log.write_text("".join(lines), encoding="utf-8")
    for args in (["replay", str(log)], ["verify", str(log)]):
        result = invoke(args)
        assert len(result.output) < 20_000, result.output[:300]
    log.write_text("A" * 5_000_000 + "\n", encoding="utf-8")
    for args in (["replay", str(log)], ["verify", str(log)]):
        bad(invoke(args), str(log))


# The boundary --------------------------------------------------------------------------------


def test_the_last_resort_is_a_message_not_a_traceback(
    log: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("seats")

    monkeypatch.setattr("referee.cli.replay.load_game", broken)
    result = bad(invoke(["replay", str(log)]), "internal error (KeyError", "please report")
    assert "REFEREE_DEBUG=1" in result.output
    monkeypatch.setenv("REFEREE_DEBUG", "1")
    with pytest.raises(AssertionError, match="a traceback"):
        invoke(["replay", str(log)])


def test_an_os_error_names_the_path(log: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device", "/tmp/somewhere/games")

    monkeypatch.setattr("referee.cli.replay.load_game", full)
    bad(invoke(["replay", str(log)]), "/tmp/somewhere/games: No space left on device")


def test_a_huge_message_is_cut(log: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.match.gamelog import LogError

    def huge(*args: object, **kwargs: object) -> None:
        raise LogError(log, 7, "x" * 50_000_000)

    monkeypatch.setattr("referee.cli.replay.load_game", huge)
    result = bad(invoke(["replay", str(log)]), f"{log}:7", "characters left out")
    assert len(result.output) < 3000
