"""Fair play: deals from a secret key, and results that cannot be forged without it.

Each tournament folder has a key (``out/key``, referee/folder/seal.py): the deals
derive from it, and every journal line and game log is sealed with it. These
tests forge results the way someone who can write the folder (but not read
the key) would, and check that ``referee verify`` and ``referee standings``
refuse each forgery, naming the file and line.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import shutil
import stat
from typing import Any

import pytest
from click.testing import CliRunner

from referee.audit.logs import verify_log
from referee.cli import cli
from referee.engine import Rules
from referee.folder import TournamentError, TournamentState, seal
from referee.match.runner import GameSpec, play_game
from referee.players.builtin import builtin_player
from referee.tournament import Tournament
from referee.tournament.config import load_config
from tests.helpers import copy_folder
from tests.logs import log_of, log_text, write_log_text

from .conftest import journal_games, write_config

CONFIG = """
    name: sealed
    seed: 11
    bots: {r1: random, h1: heuristic, r2: random, h2: heuristic}
    rules: {target_score: 26}
    bot_processes: shared
    concurrency: 1
    """


def run(path: pathlib.Path, out: pathlib.Path, **options: Any):
    return Tournament(load_config(path), out_dir=out, echo=lambda _: None, **options).run()


def cli_run(*args: str) -> Any:
    return CliRunner().invoke(cli, [str(a) for a in args])


def game_line(out: pathlib.Path, game_id: str) -> tuple[int, dict[str, Any]]:
    """The 1-based journal line of a game, and its entry."""
    lines = (out / "journal.jsonl").read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        entry = json.loads(line)
        if entry.get("game_id") == game_id:
            return number, entry
    raise AssertionError(f"{game_id} is not journaled")


def rewrite_line(out: pathlib.Path, number: int, entry: dict[str, Any]) -> None:
    """Replace a journal line as the referee would write it, keeping the MAC it had.

    (A forger without the key cannot compute a new MAC.)
    """
    path = out / "journal.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    body = {k: v for k, v in entry.items() if k != "mac"}
    text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    lines[number - 1] = (text[:-1] + f',"mac":"{entry["mac"]}"}}\n').encode()
    path.write_bytes(b"".join(lines))


def refused(out: pathlib.Path, where: str, why: str) -> None:
    """``referee verify`` and ``referee standings`` both refuse the folder, naming ``where``."""
    checked = cli_run("verify", "-q", out)
    assert checked.exit_code == 1, checked.output
    assert f"FAIL {where}: refused: {why}" in checked.output, checked.output
    shown = cli_run("standings", out)
    assert shown.exit_code == 1, shown.output
    assert f"Error: {where}: {why}" in shown.output, shown.output
    assert "Traceback" not in checked.output + shown.output


@pytest.fixture
def out(mini_tournament: pathlib.Path, tmp_path: pathlib.Path) -> pathlib.Path:
    """A copy of the session's finished tournament (one table of four, its four rotations)."""
    return copy_folder(mini_tournament, tmp_path)


# The key ----------------------------------------------------------------------------------


def test_the_key_is_made_once_private_and_stays_in_the_folder(tmp_path: pathlib.Path) -> None:
    path = write_config(tmp_path, CONFIG)
    out = tmp_path / "out"
    run(path, out)
    key_file = out / "key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = seal.load_key(key_file)
    assert len(key) == 32
    state = TournamentState.load(out / "tournament.json")
    assert state.key_id == seal.key_id(key)
    # The key is in no other file: not the state, the journal, a log or the standings.
    for file in out.rglob("*"):
        if file.is_file() and file != key_file:
            text = file.read_bytes()
            if file.name.endswith(".gz"):  # a finished game's log: its lines
                text = log_text(file).encode()
            assert key.hex().encode() not in text and key not in text, file
    # Every deal seed is the key's for the game's place in the schedule.
    entries = [json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines()]
    games = [e for e in entries if e["type"] == "game"]
    assert len(games) == 4
    for entry in games:
        want = seal.game_seed(key, 11, table=entry["table"], deal_set=entry["deal_set"])
        assert entry["seed"] == want and len(want) == 32
    # A resumed run keeps the key.
    before = key_file.read_bytes()
    again = run(path, out)
    assert again.games_played == 0 and again.complete
    assert key_file.read_bytes() == before
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600


def test_same_seed_and_key_deal_the_same_another_key_does_not(tmp_path: pathlib.Path) -> None:
    path = write_config(tmp_path, CONFIG)
    first, second, other = tmp_path / "first", tmp_path / "second", tmp_path / "other"
    run(path, first)
    # --key-file replays the tournament elsewhere: the same deals, so (deterministic bots) the
    # same results, and the key copied in, private.
    result = cli_run("tournament", path, "--out", second, "--key-file", first / "key", "-q")
    assert result.exit_code == 0, result.output
    assert journal_games(second / "journal.jsonl") == journal_games(first / "journal.jsonl")
    assert (second / "key").read_bytes() == (first / "key").read_bytes()
    assert stat.S_IMODE((second / "key").stat().st_mode) == 0o600
    assert cli_run("verify", "-q", second).exit_code == 0
    # The same seed without the key: other deals, every one.
    run(path, other)
    mine = journal_games(first / "journal.jsonl")
    theirs = journal_games(other / "journal.jsonl")
    assert not {g["seed"] for g in mine.values()} & {g["seed"] for g in theirs.values()}
    for game_id in mine:
        deal = [json.loads(line) for line in log_text(log_of(first, game_id)).splitlines()[:2]]
        other_deal = [
            json.loads(line) for line in log_text(log_of(other, game_id)).splitlines()[:2]
        ]
        assert deal[1]["hands"] != other_deal[1]["hands"]


def test_the_default_seed_has_128_bits(tmp_path: pathlib.Path) -> None:
    path = write_config(tmp_path, CONFIG.replace("seed: 11", ""))
    run(path, tmp_path / "out")
    seed = TournamentState.load(tmp_path / "out" / "tournament.json").seed
    assert isinstance(seed, int) and 64 < seed.bit_length() <= 128


def test_key_files_that_are_refused(tmp_path: pathlib.Path) -> None:
    path = write_config(tmp_path, CONFIG)
    out = tmp_path / "out"
    run(path, out)
    other = tmp_path / "other.key"
    seal.create_key(other)
    with pytest.raises(TournamentError, match=r"already has a different key .* than --key-file"):
        run(path, out, key_file=other)
    loose = tmp_path / "loose.key"
    shutil.copy(out / "key", loose)
    loose.chmod(0o644)
    with pytest.raises(TournamentError) as error:
        run(path, tmp_path / "new", key_file=loose)
    assert str(error.value) == (
        f"--key-file: {loose}: the key file has mode 0644, so others may read it; it must be "
        f"0600 (chmod 600 {loose}), and if others did read it, start a fresh tournament"
    )
    short = tmp_path / "short.key"
    short.write_text("abc\n")
    short.chmod(0o600)
    with pytest.raises(TournamentError, match="not a tournament key: expected 64 lowercase hex"):
        run(path, tmp_path / "new", key_file=short)
    result = cli_run("tournament", path, "--out", tmp_path / "new", "--key-file", short)
    assert result.exit_code == 1 and "not a tournament key" in result.output
    assert "Traceback" not in result.output


def test_a_lost_key_stops_a_resume_until_it_is_given_back(tmp_path: pathlib.Path) -> None:
    path = write_config(tmp_path, CONFIG)
    out = tmp_path / "out"
    run(path, out)
    kept = tmp_path / "kept.key"
    (out / "key").rename(kept)
    with pytest.raises(TournamentError, match="the tournament's key is missing"):
        run(path, out)
    other = tmp_path / "other.key"
    seal.create_key(other)
    with pytest.raises(TournamentError, match="not this tournament's key"):
        run(path, out, key_file=other)
    assert not (out / "key").exists()
    result = run(path, out, key_file=kept)
    assert result.complete and result.games_played == 0
    assert (out / "key").read_bytes() == kept.read_bytes()
    assert stat.S_IMODE((out / "key").stat().st_mode) == 0o600


def test_fresh_with_the_folders_own_key_deals_again_the_same(tmp_path: pathlib.Path) -> None:
    path = write_config(tmp_path, CONFIG)
    out = tmp_path / "out"
    run(path, out)
    before = journal_games(out / "journal.jsonl")
    key = (out / "key").read_bytes()
    result = cli_run("tournament", path, "--out", out, "--fresh", "--key-file", out / "key", "-q")
    assert result.exit_code == 0, result.output
    assert (out / "key").read_bytes() == key
    assert journal_games(out / "journal.jsonl") == before


def test_a_folder_of_an_older_referee_is_not_resumed(tmp_path: pathlib.Path) -> None:
    path = write_config(tmp_path, CONFIG)
    out = tmp_path / "out"
    run(path, out)
    state = json.loads((out / "tournament.json").read_text())
    state["version"] = 1
    del state["key_id"]
    (out / "tournament.json").write_text(json.dumps(state))
    (out / "key").unlink()
    with pytest.raises(TournamentError, match="a tournament of an older referee, made without"):
        run(path, out)
    assert cli_run("verify", "--no-key", out).exit_code == 0


# Forgeries --------------------------------------------------------------------------------


def test_the_untouched_folder_is_authentic(out: pathlib.Path) -> None:
    result = cli_run("verify", out)
    assert result.exit_code == 0, result.output
    assert "authentic (MACs and deal seeds checked with" in result.output
    shown = cli_run("standings", out)
    assert shown.exit_code == 0 and not shown.stderr


def test_a_forged_but_rule_valid_game_is_refused(out: pathlib.Path) -> None:
    """A lost game played again on the same deal with better cards, log and journal consistent."""
    number, entry = game_line(out, "t1-d1-r1")
    loser = max(range(4), key=lambda s: entry["placements"][s])
    log = out / entry["log_path"]
    header = json.loads(log_text(log).splitlines()[0])
    forged = None
    for strong in ("heuristic", "random"):
        players = [builtin_player("heuristic" if s == loser else strong) for s in range(4)]
        spec = GameSpec(
            game_id=entry["game_id"],
            seed=entry["seed"],
            bots=tuple(entry["bots"]),
            rules=Rules.from_dict(header["rules"]),
            meta=header["meta"],
        )
        record = play_game(spec, players, log)
        if record.placements[loser] < entry["placements"][loser]:
            forged = record
            break
    assert forged is not None, "could not find a better result for the loser"
    assert verify_log(log).ok  # the forged log follows the rules: only the MACs can tell
    entry.update(
        {
            k: v
            for k, v in forged.to_dict().items()
            if k in ("scores", "placements", "winners", "hand_scores", "moons", "faults")
        }
    )
    rewrite_line(out, number, entry)
    journal = out / "journal.jsonl"
    refused(out, f"{journal}:{number}", "the MAC does not match")


def test_a_forged_log_alone_is_refused(out: pathlib.Path) -> None:
    number, entry = game_line(out, "t1-d1-r2")
    log = out / entry["log_path"]
    records = [json.loads(line) for line in log_text(log).splitlines()]
    records[0]["started_at"] = "2000-01-01T00:00:00+00:00"  # a harmless change is still a change
    write_log_text(log, "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    assert verify_log(log).ok
    refused(
        out,
        str(log),
        f"the log does not match the MAC journaled for it ({out / 'journal.jsonl'}:{number})",
    )


def test_a_journal_entry_whose_result_was_swapped_is_refused(out: pathlib.Path) -> None:
    number, entry = game_line(out, "t1-d1-r3")
    winner = entry["winners"][0]
    last = max(range(4), key=lambda s: entry["placements"][s])
    for key in ("scores", "placements", "forfeited", "faults", "moons"):
        entry[key][winner], entry[key][last] = entry[key][last], entry[key][winner]
    for hand in entry["hand_scores"]:
        hand[winner], hand[last] = hand[last], hand[winner]
    entry["winners"] = [last]
    rewrite_line(out, number, entry)
    refused(out, f"{out / 'journal.jsonl'}:{number}", "the MAC does not match")


def test_a_log_and_journal_line_from_another_tournament_are_refused(
    out: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    """The same config played into another folder (another key): its game moved in."""
    path = write_config(tmp_path, CONFIG)
    other = tmp_path / "other"
    run(path, other)
    game_id = "t1-d1-r4"
    number, _ = game_line(out, game_id)
    log = log_of(out, game_id)
    shutil.copy(log_of(other, game_id), log)
    journal = out / "journal.jsonl"
    refused(out, str(log), f"the log does not match the MAC journaled for it ({journal}:{number})")
    # Its journal line too (it is sealed, but with the other key).
    other_number, _ = game_line(other, game_id)
    lines = journal.read_bytes().splitlines(keepends=True)
    lines[number - 1] = (
        (other / "journal.jsonl").read_bytes().splitlines(keepends=True)[other_number - 1]
    )
    journal.write_bytes(b"".join(lines))
    refused(out, f"{journal}:{number}", "the MAC does not match")


def test_a_removed_journal_line_is_refused(out: pathlib.Path) -> None:
    """Dropping a lost game (to have it played again) breaks the chain at the next line."""
    number, _ = game_line(out, "t1-d1-r2")
    journal = out / "journal.jsonl"
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(b"".join(lines[: number - 1] + lines[number:]))
    refused(out, f"{journal}:{number}", "the MAC does not match")
    assert "lines before it were removed" in cli_run("verify", out).output


def test_a_forged_tournament_state_is_refused(out: pathlib.Path) -> None:
    """Marking a bot as left out (ranked last) in tournament.json is caught."""
    path = out / "tournament.json"
    state = json.loads(path.read_text())
    state["excluded"] = {"h1": "build failed"}
    path.write_text(json.dumps(state))
    shown = cli_run("standings", out)
    assert shown.exit_code == 1
    assert f"Error: {path}: its excluded disagrees with the run entry sealed in" in shown.output
    checked = cli_run("verify", out)
    assert checked.exit_code == 1
    assert f"FAIL {path}: its excluded" in checked.output


# Before the journal -----------------------------------------------------------------------


@pytest.mark.parametrize("damage", ["log", "record"])
def test_a_game_whose_log_fails_the_check_is_not_journaled(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    """A log corrupted after the game (or a record that disagrees with it) is a referee error."""
    from referee.tournament import executors

    real = executors.play_game

    def corrupting(spec: GameSpec, players: Any, log_path: os.PathLike[str]) -> Any:
        record = real(spec, players, log_path)
        if spec.game_id != "t1-d1-r2":
            return record
        if damage == "record":
            return dataclasses.replace(record, scores=(record.scores[0] + 1, *record.scores[1:]))
        path = pathlib.Path(log_path)
        records = [json.loads(line) for line in log_text(path).splitlines()]
        trick = next(r for r in records if r["type"] == "trick")
        trick["winner"] = (trick["winner"] + 1) % 4
        write_log_text(path, "".join(json.dumps(r) + "\n" for r in records))
        return record

    monkeypatch.setattr(executors, "play_game", corrupting)
    path = write_config(tmp_path, CONFIG)
    out = tmp_path / "out"
    result = run(path, out)
    assert not result.complete and result.games_done == 3
    assert len(result.errors) == 1
    assert result.errors[0].startswith("t1-d1-r2: the log fails the check before journaling: ")
    reason = "trick winner" if damage == "log" else "the journal's scores"
    assert reason in result.errors[0]
    assert "t1-d1-r2" not in journal_games(out / "journal.jsonl")
    # The next run plays it again.
    monkeypatch.setattr(executors, "play_game", real)
    again = run(path, out)
    assert again.complete and again.games_played == 1
    assert cli_run("verify", "-q", out).exit_code == 0
