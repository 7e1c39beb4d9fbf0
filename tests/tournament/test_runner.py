"""The tournament runner in-process: play, journal, resume, refuse, stand in, build."""

from __future__ import annotations

import io
import json
import pathlib

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.folder import Journal, TournamentError, TournamentState, read_journal
from referee.folder.seal import load_key
from referee.match.gamelog import read_log
from referee.schedule import make_schedule
from referee.tournament import Progress, Tournament
from referee.tournament.config import load_config
from tests.logs import log_of

from .conftest import (
    copy_heuristic,
    journal_games,
    processes_in,
    without_timing,
    write_config,
)

DEAD = "sh -c 'exit 3' {address}"


def run(path: pathlib.Path, **options: object):
    messages: list[str] = []
    result = Tournament(load_config(path), echo=messages.append, **options).run()
    return result, messages


def test_a_tournament_of_builtins(builtin_config: pathlib.Path) -> None:
    result, messages = run(builtin_config)
    out = builtin_config.parent / "out"
    assert result.complete and result.games_played == result.games_scheduled == 20
    assert result.out_dir == out
    state = TournamentState.load(out / "tournament.json")
    key = load_key(out / "key")
    schedule = make_schedule(
        state.participants, table_size=4, seed=state.seed, deal_sets=1, key=key
    )
    games = journal_games(out / "journal.jsonl")
    assert set(games) == {g.game_id for g in schedule.games}
    for game in schedule.games:
        assert games[game.game_id]["bots"] == list(game.bots)
        records = [r for _, r in read_log(log_of(out, game.game_id))]
        assert records[0]["meta"]["table"] == game.table
        assert records[-1]["type"] == "game_end"
    standings = json.loads((out / "standings.json").read_text())
    assert standings["complete"] and len(standings["bots"]) == 5
    assert (out / "standings.txt").read_text().startswith("quick: 20 of 20 games")
    assert (out / "config.yaml").read_text() == builtin_config.read_text()
    assert any("20 games = all 5 tables of 4" in m for m in messages)
    entries = list(read_journal(out / "journal.jsonl"))
    assert entries[0] == {
        "type": "journal",
        "format": "hearts-referee/journal",
        "version": 1,
        "sealed_end": True,
        "mac": entries[0]["mac"],
    }
    assert all(len(e["mac"]) == 64 for e in entries)
    # Closed: the end entry counts the games, and tournament.json records it (sealed).
    assert entries[-1]["type"] == "end" and entries[-1]["games"] == 20
    assert state.finished == {"games": 20, "line": len(entries), "end_mac": entries[-1]["mac"]}
    assert state.seal_problem(key) is None
    # bot_processes defaults to per_worker: every worker starts its own copy of each bot.
    started = [e for e in entries if e["type"] == "bot" and e["status"] == "started"]
    assert sorted((e["bot"], e["worker"]) for e in started) == sorted(
        (bot, worker) for bot in ("r1", "r2", "h1", "h2", "h3") for worker in (1, 2)
    )


def test_resume_plays_only_what_the_journal_lacks(builtin_config: pathlib.Path) -> None:
    first, _ = run(builtin_config)
    out = builtin_config.parent / "out"
    journal = out / "journal.jsonl"
    complete = journal_games(journal)
    lines = journal.read_text().splitlines(keepends=True)
    game_lines = [i for i, line in enumerate(lines) if '"type":"game"' in line]
    kept = lines[: game_lines[7]]
    # A crash mid-write leaves a torn last line; the log of a dropped game stays behind.
    journal.write_text("".join(kept) + lines[game_lines[7]][:40])
    # ... and tournament.json as it was while the games were played (not finished yet).
    state = TournamentState.load(out / "tournament.json")
    state.finished = None
    state.save(out / "tournament.json", key=load_key(out / "key"))
    again, _ = run(builtin_config)
    assert again.games_played == 20 - 7 and again.complete
    assert journal_games(journal) == complete
    assert [json.loads(line)["type"] for line in journal.read_text().splitlines()].count("run") == 2
    assert again.standings is not None and first.standings is not None
    assert without_timing(again.standings.to_dict()["bots"]) == without_timing(
        first.standings.to_dict()["bots"]
    )
    nothing, _ = run(builtin_config)
    assert nothing.games_played == 0 and nothing.complete


def test_a_changed_config_is_refused_unless_fresh(builtin_config: pathlib.Path) -> None:
    run(builtin_config)
    changed = write_config(
        builtin_config.parent,
        builtin_config.read_text().replace("target_score: 40", "target_score: 30"),
    )
    with pytest.raises(TournamentError) as error:
        run(changed)
    out = builtin_config.parent / "out"
    assert str(error.value) == (
        f"{out} holds a tournament with a different configuration "
        "(changed: rules.target_score); run it with its own config, choose another output "
        "folder (--out), or use --fresh to move the old folder aside and start over"
    )
    result, messages = run(changed, fresh=True)
    assert result.complete and result.games_played == 20
    moved = [p for p in out.parent.iterdir() if p.name.startswith("out.old-")]
    assert len(moved) == 1 and (moved[0] / "journal.jsonl").exists()
    assert any("moved the old" in m for m in messages)


def test_a_foreign_folder_is_refused(builtin_config: pathlib.Path) -> None:
    out = builtin_config.parent / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(TournamentError, match="is not empty and holds no tournament"):
        run(builtin_config)


def test_a_bot_that_never_starts_is_ranked_last(tmp_path: pathlib.Path) -> None:
    path = write_config(
        tmp_path,
        f"""
        seed: 1
        bots: {{a: random, b: heuristic, c: random, dead: "{DEAD}"}}
        rules: {{target_score: 30}}
        time_control: {{startup_timeout_ms: 5000}}
        output: out
        """,
    )
    result, messages = run(path)
    assert result.complete and result.games_played == 4
    standings = result.standings
    assert standings is not None
    last = standings.bots[-1]
    assert (last.bot, last.status, last.rank) == ("dead", "did_not_start", 4)
    assert "did not start" in last.reason and "exit" in last.reason
    assert last.games == 4 and last.forfeits == 4 and last.faults["start_failed"] >= 4
    assert any(m.startswith("bot dead: did not start") for m in messages)


def test_per_table_bot_processes(tmp_path: pathlib.Path) -> None:
    path = write_config(
        tmp_path,
        f"""
        seed: 2
        bots: {{a: random, b: heuristic, c: random, d: heuristic, dead: "{DEAD}"}}
        rules: {{target_score: 30}}
        schedule: {{duplicate: false, deal_sets: 2}}
        time_control: {{startup_timeout_ms: 5000}}
        bot_processes: per_table
        output: out
        """,
    )
    result, _ = run(path)
    assert result.complete and result.games_played == 10
    entries = list(read_journal(tmp_path / "out" / "journal.jsonl"))
    failed = [e for e in entries if e["type"] == "bot" and e["status"] == "start_failed"]
    assert sorted(e["table"] for e in failed) == [2, 3, 4, 5]  # table 1 is a, b, c, d
    assert {e["bot"] for e in failed} == {"dead"}
    assert (tmp_path / "out" / "bots" / "t2" / "dead.stderr.log").is_file()
    assert result.standings is not None and result.standings.bots[-1].bot == "dead"


def test_builds_before_play_and_a_failed_build_is_left_out(tmp_path: pathlib.Path) -> None:
    good = copy_heuristic(tmp_path, "good")
    (good / "bot.yaml").write_text(
        "name: good\nbuild: echo compiled > built.txt\nrun: '{python} bot.py --address {address}'\n"
    )
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "bot.yaml").write_text(
        "name: bad\nbuild: \"echo compiling; echo 'error: no main' >&2; exit 2\"\n"
        "run: ./bot --address {address}\n"
    )
    path = write_config(
        tmp_path,
        """
        seed: 3
        bots: {good: good, bad: bad, a: random, b: heuristic, c: random}
        rules: {target_score: 30}
        output: out
        """,
    )
    result, messages = run(path)
    out = tmp_path / "out"
    assert (good / "built.txt").exists()
    assert "error: no main" in (out / "builds" / "bad.build.log").read_text()
    assert any("BUILD FAILED: bad" in m for m in messages)
    assert any("error: no main" in m for m in messages)
    assert result.complete and result.games_played == 4  # one table of the four others
    assert result.standings is not None
    last = result.standings.bots[-1]
    assert (last.bot, last.status, last.games) == ("bad", "build_failed", 0)
    assert last.reason == "build failed (builds/bad.build.log): exit code 2"
    state = TournamentState.load(out / "tournament.json")
    assert state.participants == ["good", "a", "b", "c"] and "bad" in state.excluded
    assert not processes_in(tmp_path)


def test_too_few_bots_after_failed_builds(tmp_path: pathlib.Path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "bot.yaml").write_text("name: bad\nbuild: exit 1\nrun: ./bot --address {address}\n")
    path = write_config(tmp_path, "bots: {bad: bad, a: random, b: random, c: random}\n")
    with pytest.raises(TournamentError, match=r"only 3 bots are left after failed builds \(bad\)"):
        run(path, out_dir=tmp_path / "out")


def test_a_sampled_schedule(tmp_path: pathlib.Path) -> None:
    bots = ", ".join(f"b{i}: {'random' if i % 2 else 'heuristic'}" for i in range(8))
    path = write_config(
        tmp_path,
        f"bots: {{{bots}}}\nrules: {{target_score: 20}}\n"
        "schedule: {max_tables: 6, duplicate: false}\noutput: out\n",
    )
    result, messages = run(path)
    assert result.complete and result.games_played == 6
    assert any("a balanced sample of 6 tables" in m for m in messages)
    assert not any("max_tables" in m for m in messages)  # 6 is a multiple of 8 / gcd(8, 4)
    rounded = write_config(
        tmp_path,
        f"bots: {{{bots}}}\nrules: {{target_score: 20}}\n"
        "schedule: {max_tables: 7, duplicate: false}\noutput: out7\n",
        name="seven.yaml",
    )
    result, messages = run(rounded)
    assert result.games_played == 6
    assert any(
        "note: max_tables 7 gives 6 tables: a balanced sample of 8 bots at tables of 4 has a "
        "multiple of 2 tables" in m
        for m in messages
    ), messages
    assert result.standings is not None
    assert {row.games for row in result.standings.bots} == {3}


def test_journal_cuts_a_torn_line(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "journal.jsonl"
    key = bytes(range(32))
    journal = Journal(path, key)
    journal.append({"type": "run", "run": 1})
    journal.close()
    with open(path, "ab") as handle:
        handle.write(b'{"type":"game","gam')
    assert [e["type"] for e in read_journal(path)] == ["journal", "run"]
    journal = Journal(path, key)
    journal.append({"type": "run", "run": 2})
    journal.close()
    # The chain of MACs goes on across the cut.
    assert [e.get("run") for e in read_journal(path, key=key)] == [None, 1, 2]


def test_progress_lines() -> None:
    stream = io.StringIO()
    progress = Progress(stream=stream, tty=False, interval_s=0)
    progress.start(2)
    entry = {
        "bots": ["a", "b", "c"],
        "hand_scores": [[1, 2, 23]],
        "faults": [{}, {"timeout": 1}, {}],
    }
    progress.add(entry)
    progress.refresh()
    progress.add(entry)
    progress.finish()
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("games 1/2 (50%) | ")
    assert "faults 1 | pts/hand: a 1.00, b 2.00, c 23.00" in lines[0]
    assert lines[-1].startswith("games 2/2 (100%)") and "ETA 0s" in lines[-1]
    tty = io.StringIO()
    progress = Progress(stream=tty, tty=True)
    progress.start(1)
    progress.refresh(force=True)
    progress.finish()
    assert tty.getvalue().startswith("\rgames 0/1") and tty.getvalue().endswith("\n")


def test_the_summary_gives_the_progress_lines_rate(builtin_config: pathlib.Path) -> None:
    """The rate is over the time of play, not the builds and start-up, in both."""
    result = CliRunner().invoke(cli, ["tournament", str(builtin_config), "--format", "csv"])
    assert result.exit_code == 0, result.output
    last = [line for line in result.stderr.splitlines() if line.startswith("games ")][-1]
    # The summary, then the next steps (referee serve, replay, verify).
    summary = next(line for line in result.stderr.splitlines() if " games played" in line)
    assert last.startswith("games 20/20 (100%)") and summary.startswith("20 games played in ")
    rate = last.split(" | ")[1]
    assert rate.endswith("/min") and f"({rate})" in summary, (last, summary)
    assert "s in all, with builds and bot start-up" in summary


def test_cli_tournament_and_standings(builtin_config: pathlib.Path) -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["tournament", str(builtin_config), "-q", "--format", "markdown"])
    assert result.exit_code == 0, result.output
    assert "## quick: 20 of 20 games; ranked by points" in result.output
    out = builtin_config.parent / "out"
    shown = runner.invoke(cli, ["standings", str(out), "--format", "json"])
    assert shown.exit_code == 0
    data = json.loads(shown.stdout)
    assert data["format"] == "hearts-referee/standings" and data["games_played"] == 20
    by_ordinal = runner.invoke(
        cli, ["standings", str(out), "--ranking", "ordinal", "--format", "csv"]
    )
    assert by_ordinal.stdout.splitlines()[0].startswith("rank,bot,status,games")
    gone = log_of(out, "t1-d1-r1")
    gone.unlink()
    warned = runner.invoke(cli, ["standings", str(out)])
    assert warned.exit_code == 0
    assert f"warning: 1 game log(s) missing: {gone.relative_to(out)}" in warned.stderr
    nowhere = runner.invoke(cli, ["standings", str(builtin_config.parent)])
    assert nowhere.exit_code == 1 and "not a tournament output folder" in nowhere.output
