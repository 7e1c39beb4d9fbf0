"""The end of the journal: a finished tournament cut short at its end is caught.

A journal whose last lines are removed is still a whole chain of MACs, so on
its own it looks like a tournament that has not finished. The runner closes
the journal of a finished tournament with a sealed ``end`` entry and records
it in ``tournament.json`` (sealed too, ``state_mac``); ``referee verify``,
``referee standings`` and a resumed run refuse a journal that lacks the end
``tournament.json`` records (docs/config.md, "The end of the journal"). These
tests cut folders the way someone who can write the folder, but not read the
key, would.
"""

from __future__ import annotations

import json
import pathlib
import shutil
from typing import Any

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.folder import TournamentError, TournamentState, seal
from referee.tournament import Tournament
from referee.tournament.config import load_config

from .conftest import write_config

CONFIG = """
    name: closed
    seed: 7
    bots: {r1: random, h1: heuristic, r2: random, h2: heuristic}
    rules: {target_score: 26}
    schedule: {deal_sets: 2}
    bot_processes: shared
    concurrency: 1
    """
GAMES = 8


def run(config: pathlib.Path, out: pathlib.Path) -> Any:
    return Tournament(load_config(config), out_dir=out, echo=lambda _: None).run()


def cli_run(*args: object) -> Any:
    return CliRunner().invoke(cli, [str(a) for a in args])


def journal_lines(out: pathlib.Path) -> list[bytes]:
    return (out / "journal.jsonl").read_bytes().splitlines(keepends=True)


def types(out: pathlib.Path) -> list[str]:
    return [json.loads(line)["type"] for line in journal_lines(out)]


def cut(out: pathlib.Path, lines: int) -> None:
    """Remove the journal's last ``lines`` lines, leaving every other file as it is."""
    kept = journal_lines(out)[:-lines]
    (out / "journal.jsonl").write_bytes(b"".join(kept))


def edit_state(out: pathlib.Path, change: Any) -> None:
    """Change tournament.json as a text editor would (without the key: the seal stays)."""
    path = out / "tournament.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))


def refused(out: pathlib.Path, where: pathlib.Path, why: str) -> None:
    """verify and standings both refuse the folder, naming the file; no traceback."""
    checked = cli_run("verify", "-q", out)
    assert checked.exit_code == 1, checked.output
    assert f"FAIL {where}: {why}" in checked.output, checked.output
    shown = cli_run("standings", out)
    assert shown.exit_code == 1, shown.output
    assert f"Error: {where}: {why}" in shown.output, shown.output
    assert "Traceback" not in checked.output + shown.output


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A finished tournament: one table of four, two deal sets, four rotations each."""
    root = tmp_path_factory.mktemp("closed")
    result = run(write_config(root, CONFIG), root / "out")
    assert result.complete and result.games_played == GAMES, result.errors
    return root / "out"


@pytest.fixture
def out(finished: pathlib.Path, tmp_path: pathlib.Path) -> pathlib.Path:
    shutil.copytree(finished, tmp_path / "out")
    shutil.copy(finished.parent / "t.yaml", tmp_path / "t.yaml")
    return tmp_path / "out"


def test_a_finished_journal_ends_with_its_sealed_end(out: pathlib.Path) -> None:
    entries = [json.loads(line) for line in journal_lines(out)]
    end = entries[-1]
    games = [e for e in entries if e["type"] == "game"]
    assert end["type"] == "end" and end["games"] == len(games) == GAMES
    assert end["games_scheduled"] == GAMES and end["run"] == 1
    assert end["last_game"] == games[-1]["game_id"] and end["last_game_mac"] == games[-1]["mac"]
    assert entries[0]["sealed_end"] is True and entries[1]["sealed_end"] is True
    state = TournamentState.load(out / "tournament.json")
    assert state.finished == {"games": GAMES, "line": len(entries), "end_mac": end["mac"]}
    key = seal.folder_key(out)
    assert key is not None and state.seal_problem(key) is None
    checked = cli_run("verify", out)
    assert checked.exit_code == 0, checked.output
    assert "not closed" not in checked.output and "unfinished" not in checked.output


@pytest.mark.parametrize(
    "lines",
    [1, 2, 4, GAMES + 1, GAMES + 2],
    ids=["the-end-entry", "the-last-game", "the-last-3-games", "every-game", "the-run-too"],
)
def test_a_finished_journal_cut_at_its_end_is_refused(out: pathlib.Path, lines: int) -> None:
    """Removing any suffix of the journal of a finished tournament is caught."""
    cut(out, lines)
    games_left = sum(t == "game" for t in types(out))
    last = len(journal_lines(out))
    refused(
        out,
        out / "journal.jsonl",
        f"cut short: tournament.json records that the tournament finished with {GAMES} games "
        f"(its end entry at line {last + lines}), but the journal ends at line {last} with "
        f"{games_left} games: its last lines were removed",
    )
    # Resuming it would play the removed games again: refused, and nothing is written.
    before = {p: p.read_bytes() for p in (out / "journal.jsonl", out / "tournament.json")}
    with pytest.raises(TournamentError, match=r"cut short: .* the tournament is not resumed"):
        run(out.parent / "t.yaml", out)
    assert {p: p.read_bytes() for p in before} == before


def test_every_suffix_of_a_finished_journal_is_caught(out: pathlib.Path) -> None:
    """Each of the journal's suffixes removed in turn (down to its first line): all refused."""
    from referee.audit.folder import verify_folder
    from referee.folder import load_standings

    whole = journal_lines(out)
    for keep in range(1, len(whole)):
        (out / "journal.jsonl").write_bytes(b"".join(whole[:keep]))
        problems = [str(p) for p in verify_folder(out).all_problems]
        assert any("cut short" in p for p in problems), (keep, problems)
        with pytest.raises(TournamentError, match="cut short"):
            load_standings(out)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda s: s.update(finished=None), "its seal (state_mac) does not match"),
        (lambda s: s.pop("finished"), "its seal (state_mac) does not match"),
        (lambda s: s.pop("state_mac"), "not sealed (no state_mac)"),
    ],
    ids=["finished-null", "finished-removed", "seal-removed"],
)
def test_a_cut_with_its_record_taken_out_of_tournament_json_is_refused(
    out: pathlib.Path, change: Any, why: str
) -> None:
    """Cut, and tournament.json edited to look unfinished: its seal gives it away."""
    cut(out, 3)
    edit_state(out, change)
    refused(out, out / "tournament.json", why)
    with pytest.raises(TournamentError, match=r"tournament.json: .*not resumed"):
        run(out.parent / "t.yaml", out)


def test_a_cut_with_tournament_json_removed_is_refused(out: pathlib.Path) -> None:
    cut(out, 3)
    (out / "tournament.json").unlink()
    checked = cli_run("verify", "-q", out)
    assert checked.exit_code == 1, checked.output
    assert f"FAIL {out / 'tournament.json'}: missing, though the journal" in checked.output
    shown = cli_run("standings", out)
    assert shown.exit_code == 1 and "not a tournament output folder" in shown.output


def test_a_cut_is_caught_without_the_key_too(out: pathlib.Path) -> None:
    """A published folder (no key) cut at its end: verify --no-key still says it was cut."""
    (out / "key").unlink()
    cut(out, 2)
    checked = cli_run("verify", "--no-key", "-q", out)
    assert checked.exit_code == 1, checked.output
    assert "journal.jsonl: cut short: tournament.json records" in checked.output
    shown = cli_run("standings", out)
    assert shown.exit_code == 1 and "journal.jsonl: cut short: tournament.json" in shown.output


def test_resuming_a_finished_tournament_closes_it_again(out: pathlib.Path) -> None:
    again = run(out.parent / "t.yaml", out)
    assert again.complete and again.games_played == 0
    assert types(out)[-2:] == ["run", "end"]
    entries = [json.loads(line) for line in journal_lines(out)]
    assert entries[-1]["games"] == GAMES and entries[-1]["run"] == 2
    state = TournamentState.load(out / "tournament.json")
    assert state.finished is not None and state.finished["end_mac"] == entries[-1]["mac"]
    assert cli_run("verify", out).exit_code == 0
    # The second run's lines cut off: the first end is still there, but not the one recorded.
    cut(out, 2)
    assert "cut short" in cli_run("verify", "-q", out).output


def test_a_config_with_more_games_is_refused_as_before(out: pathlib.Path) -> None:
    """More deal sets change the config's hash: refused, and the folder stays as it was."""
    more = write_config(out.parent, CONFIG.replace("deal_sets: 2", "deal_sets: 3"), "more.yaml")
    with pytest.raises(TournamentError, match=r"changed: schedule.deal_sets"):
        run(more, out)
    assert cli_run("verify", out).exit_code == 0


def test_an_unfinished_tournament_is_not_closed_and_resumes(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that leaves a game out (a referee error) is unfinished: no end; a resume closes it."""
    from referee.tournament import executors

    real = executors.play_game

    def failing(spec: Any, players: Any, log_path: Any) -> Any:
        if spec.game_id == "t1-d2-r2":
            raise RuntimeError("a referee error")
        return real(spec, players, log_path)

    monkeypatch.setattr(executors, "play_game", failing)
    config = write_config(tmp_path, CONFIG)
    out = tmp_path / "out"
    first = run(config, out)
    assert not first.complete and first.games_done == GAMES - 1
    assert "end" not in types(out)
    assert TournamentState.load(out / "tournament.json").finished is None
    checked = cli_run("verify", out)
    assert checked.exit_code == 0, checked.output
    assert f"unfinished: {GAMES - 1} of {GAMES} scheduled games" in checked.output
    shown = cli_run("standings", out)
    assert shown.exit_code == 0 and "unfinished" in shown.stderr
    monkeypatch.setattr(executors, "play_game", real)
    again = run(config, out)
    assert again.complete and again.games_played == 1
    assert types(out)[-1] == "end"
    assert cli_run("verify", out).exit_code == 0


def test_every_game_journaled_but_not_closed_is_a_note(out: pathlib.Path) -> None:
    """Killed between the last game and the end entry: a note, and a resume closes it."""
    cut(out, 1)
    state = TournamentState.load(out / "tournament.json")
    state.finished = None  # as the referee left it: the end is recorded after it is journaled
    key = seal.folder_key(out)
    state.save(out / "tournament.json", key=key)
    checked = cli_run("verify", out)
    assert checked.exit_code == 0, checked.output
    assert f"not closed: every one of the {GAMES} scheduled games is in the journal" in (
        checked.output
    )
    again = run(out.parent / "t.yaml", out)
    assert again.complete and again.games_played == 0 and types(out)[-1] == "end"
    assert "not closed" not in cli_run("verify", out).output


def test_a_folder_of_an_older_referee_without_an_end_still_verifies(out: pathlib.Path) -> None:
    """Written as the referee before the end entry wrote it: no end, no promise, no seal."""
    key = seal.folder_key(out)
    assert key is not None
    previous, lines = "", []
    for line in journal_lines(out):
        entry = json.loads(line)
        if entry["type"] == "end":
            continue
        entry.pop("sealed_end", None)
        del entry["mac"]
        sealed = seal.seal_line(key, previous, json.dumps(entry, separators=(",", ":")).encode())
        previous = seal.line_mac(sealed) or ""
        lines.append(sealed)
    (out / "journal.jsonl").write_bytes(b"".join(lines))
    edit_state(out, lambda s: [s.pop(k) for k in ("finished", "state_mac")] and s.update(version=2))
    checked = cli_run("verify", out)
    assert checked.exit_code == 0, checked.output
    assert cli_run("standings", out).exit_code == 0
    again = run(out.parent / "t.yaml", out)  # resumed by this referee: closed from now on
    assert again.complete and types(out)[-1] == "end"
    assert cli_run("verify", out).exit_code == 0


#: A key whose deals let the gauntlet below decide well before its last set.
FIXED_KEY = "5eed" * 16


def test_a_decided_gauntlet_is_closed_and_a_cut_is_refused(tmp_path: pathlib.Path) -> None:
    """A gauntlet finishes when its test decides, before its last scheduled game: closed then.

    The same games every run: a fixed key (the deals come from the seed and the key, and a
    new key's deals decided after 37, 77 or none of the 40 sets: LLR 1.411 at the end, once),
    and one game at a time (the test is run on the sets in the order their games end).
    """
    config = write_config(
        tmp_path,
        """
        seed: 11
        bots: {cand: heuristic, base: random, o1: heuristic, o2: heuristic, o3: random}
        rules: {target_score: 40}
        schedule: {deal_sets: 40, duplicate: false}
        bot_processes: shared
        concurrency: 1
        gauntlet: {candidate: cand, baseline: base, sprt: {delta0: 0, delta1: 1.5}}
        """,
    )
    out = tmp_path / "out"
    key = tmp_path / "fixed.key"
    seal.create_key(key, bytes.fromhex(FIXED_KEY))
    first = cli_run("gauntlet", config, "--out", out, "--key-file", key, "-q")
    assert first.exit_code == 0, first.output
    entries = [json.loads(line) for line in journal_lines(out)]
    games = sum(e["type"] == "game" for e in entries)
    assert entries[-1]["type"] == "end" and entries[-1]["games"] == games
    assert games < entries[-1]["games_scheduled"] == 80
    cut(out, 3)
    why = f"cut short: tournament.json records that the tournament finished with {games} games"
    checked = cli_run("verify", "-q", out)
    assert checked.exit_code == 1 and f"journal.jsonl: {why}" in checked.output, checked.output
    shown = cli_run("gauntlet", out)
    assert shown.exit_code != 0 and why in shown.output, shown.output
    again = cli_run("gauntlet", config, "--out", out, "-q")
    assert again.exit_code != 0 and "the tournament is not resumed" in again.output


def test_the_web_view_refuses_a_cut_folder_too(out: pathlib.Path) -> None:
    """referee serve reads the journal as it grows (JournalTail): a cut is refused there too."""
    from starlette.testclient import TestClient

    from referee.web import Catalog, create_app
    from referee.web.app import LOOPBACK_HOSTS
    from tests.web.conftest import settle

    def shown() -> dict[str, Any]:
        catalog = Catalog(out.parent)
        settle(catalog)
        hosts = (*LOOPBACK_HOSTS, "testserver")
        app = create_app(out.parent, catalog=catalog, follow=False, allowed_hosts=hosts)
        with TestClient(app) as client:
            return client.get(f"/api/t/{out.name}").json()

    whole = shown()
    assert whole["error"] is None and whole["standings"]["games_played"] == GAMES
    cut(out, 3)
    data = shown()
    assert data["status"] == "refused" and data["standings"] is None
    assert "journal.jsonl: cut short: tournament.json records" in data["error"]
