"""The rough edges a new user meets (issue 29), each as the user met it, from the command line."""

from __future__ import annotations

import json
import pathlib
import shutil
import socket
import subprocess
import sys

from click.testing import CliRunner

from referee.cli import cli
from tests.helpers import launched_pids  # noqa: F401 (an autouse fixture)

REPLAY_LOG = pathlib.Path(__file__).resolve().parents[1] / "replay" / "data" / "moon.jsonl"


def test_replay_into_head_ends_quietly():
    """``referee replay LOG | head``: no "Error: Broken pipe", exit 0."""
    run = subprocess.run(
        f"{sys.executable} -m referee.cli replay {REPLAY_LOG} | head -3",
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        executable="/bin/bash",
    )
    assert len(run.stdout.splitlines()) == 3
    assert "Broken pipe" not in run.stderr and "Error" not in run.stderr, run.stderr
    status = subprocess.run(
        f"set -o pipefail; {sys.executable} -m referee.cli replay {REPLAY_LOG} | head -1",
        shell=True,
        capture_output=True,
        timeout=120,
        check=False,
        executable="/bin/bash",
    )
    assert status.returncode == 0


def test_replay_of_a_standings_file_says_it_is_not_a_game_log(tmp_path: pathlib.Path):
    standings = tmp_path / "standings.json"
    data = {"format": "hearts-referee/standings", "version": 1, "bots": []}
    standings.write_text(json.dumps(data, indent=2))
    result = CliRunner().invoke(cli, ["replay", str(standings)])
    assert result.exit_code == 1
    assert "not JSON" not in result.output
    assert f"{standings}:1: valid JSON (hearts-referee/standings), but not a game log" in (
        result.output
    )


def _refusing_port() -> int:
    """A local port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_check_bot_of_an_address_nobody_listens_on_says_so_at_once(tmp_path: pathlib.Path):
    """Refused connections end the wait (before: the whole startup timeout, then "not serving")."""
    port = _refusing_port()
    result = CliRunner().invoke(
        cli,
        ["check-bot", f"127.0.0.1:{port}", "--startup-timeout-s", "600", "--out", str(tmp_path)],
    )
    assert result.exit_code == 1
    assert f"nothing is listening at 127.0.0.1:{port} (connection refused" in result.output
    assert "start the bot first" in result.output


def test_match_names_the_bot_that_did_not_start(tmp_path: pathlib.Path):
    crashing = tmp_path / "crasher.py"
    crashing.write_text("import sys\nsys.exit(3)\n")
    result = CliRunner().invoke(
        cli,
        [
            "match", "random", f"{sys.executable} {crashing} --address {{address}}", "random",
            "random", "--sandbox", "none", "--startup-timeout-s", "30", "--out", str(tmp_path / "o"),
        ],
    )  # fmt: skip
    assert result.exit_code == 1
    assert "a bot did not start: crasher: the bot process exited while starting" in result.output


def test_new_bot_writes_the_users_author_not_the_referees(tmp_path: pathlib.Path, monkeypatch):
    ts = tmp_path / "ts-bot"
    result = CliRunner().invoke(cli, ["new-bot", "typescript", str(ts), "--author", "Ada Lovelace"])
    assert result.exit_code == 0, result.output
    assert "author: Ada Lovelace\n" in (ts / "bot.yaml").read_text()
    assert "const BOT_AUTHOR = 'Ada Lovelace';" in (ts / "src" / "main.ts").read_text()
    # Without --author: git's user.name, and where git has none, a placeholder to edit.
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gitconfig").write_text("[user]\n\tname = Grace Hopper\n")
    py = tmp_path / "py-bot"
    assert CliRunner().invoke(cli, ["new-bot", "python", str(py)]).exit_code == 0
    assert "author: Grace Hopper\n" in (py / "bot.yaml").read_text()
    (tmp_path / "gitconfig").write_text("")
    anon = tmp_path / "anon-bot"
    result = CliRunner().invoke(cli, ["new-bot", "go", str(anon)])
    assert result.exit_code == 0, result.output
    assert "author: your name\n" in (anon / "bot.yaml").read_text()
    assert "Hearts referee authors" not in (anon / "main.go").read_text()
    assert "give --author" in result.output
    bad = CliRunner().invoke(cli, ["new-bot", "go", str(tmp_path / "bad"), "--author", 'x"y'])
    assert bad.exit_code == 1 and "the author 'x\"y' has '\"'" in bad.output


def test_standings_name_the_file_and_key_of_an_unknown_ranking(
    mini_tournament: pathlib.Path, tmp_path: pathlib.Path
):
    from tests.helpers import copy_folder

    folder = copy_folder(mini_tournament, tmp_path)
    state = json.loads((folder / "tournament.json").read_text())
    state["ranking"] = "speed"
    (folder / "tournament.json").write_text(json.dumps(state))
    result = CliRunner().invoke(cli, ["standings", str(folder)])
    assert result.exit_code == 1
    assert "internal error" not in result.output
    assert f"{folder / 'tournament.json'}: ranking: expected a ranking key" in result.output
    assert 'got "speed"' in result.output
    # A future version is named too.
    state["ranking"], state["version"] = "points", 99
    (folder / "tournament.json").write_text(json.dumps(state))
    result = CliRunner().invoke(cli, ["standings", str(folder)])
    assert result.exit_code == 1 and "state version 99" in result.output


def test_verify_refuses_a_header_whose_fault_policy_is_a_list(tmp_path: pathlib.Path):
    lines = REPLAY_LOG.read_text().splitlines()
    header = json.loads(lines[0])
    assert isinstance(header["fault_policy"], dict)
    header["fault_policy"] = [5]
    lines[0] = json.dumps(header)
    log = tmp_path / "list-policy.jsonl"
    log.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(cli, ["verify", str(log)])
    assert result.exit_code == 1
    assert "the header's 'fault_policy' should be an object, not list [5]" in result.output


def test_serve_on_a_busy_port_says_so_first(tmp_path: pathlib.Path):
    """Before: "serving on ..." then uvicorn's errno; tournament --serve printed a stray ": 3"."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = CliRunner().invoke(cli, ["serve", str(tmp_path), "--port", str(port)])
        assert result.exit_code == 1
        assert "serving" not in result.output
        assert f"cannot serve on 127.0.0.1:{port}: Address already in use" in result.output
        assert "--port 0 for a free one" in result.output
        config = tmp_path / "t.yaml"
        config.write_text("name: t\nbots: {a: random, b: random, c: random, d: random}\n")
        result = CliRunner().invoke(
            cli,
            [
                "tournament",
                str(config),
                "--out",
                str(tmp_path / "out"),
                "--serve",
                "--port",
                str(port),
                "--quiet",
            ],
        )
        assert result.exit_code == 1
        assert f"cannot serve on 127.0.0.1:{port}: Address already in use" in result.output
        assert ": 3" not in result.output
        assert not (tmp_path / "out" / "journal.jsonl").exists()  # nothing was played


def test_the_standings_table_has_a_legend_and_shows_zero_faults_as_zero(tmp_path: pathlib.Path):
    result = CliRunner().invoke(
        cli,
        [
            "match",
            "heuristic",
            "random",
            "random",
            "--games",
            "3",
            "--seed",
            "2",
            "--target",
            "26",
            "--out",
            str(tmp_path / "o"),
        ],
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("rank "))
    assert lines[header].split()[-3:] == ["faults", "forfeits", "status"]
    for row in lines[header + 2 : header + 5]:
        assert row.split()[-3:] == ["0", "0", "ok"], row  # no faults, no forfeits: both 0
    assert "mu, sigma: the OpenSkill (Plackett-Luce) rating and its uncertainty" in result.stdout
    assert "ordinal = mu - 3 sigma" in result.stdout


def test_the_end_of_a_tournament_suggests_the_next_steps(tmp_path: pathlib.Path):
    from tests.helpers import MINI_TOURNAMENT, write_config

    config = write_config(tmp_path, MINI_TOURNAMENT, "mini.yaml")
    out = tmp_path / "runs" / "mini"
    result = CliRunner().invoke(cli, ["tournament", str(config), "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "next:" in result.stderr
    assert f"referee serve {out.parent}  " in result.stderr
    assert f"referee replay {out}  " in result.stderr
    assert f"referee verify {out}  " in result.stderr
    # The suggested commands work as suggested.
    listed = CliRunner().invoke(cli, ["replay", str(out)])
    assert listed.exit_code == 0 and "t1-d1-r1" in listed.output


def test_a_bot_path_relative_to_the_working_directory_is_explained(
    tmp_path: pathlib.Path, monkeypatch
):
    root = pathlib.Path(__file__).resolve().parents[2]
    monkeypatch.chdir(root)
    config = tmp_path / "t.yaml"
    config.write_text(
        "name: rel\nbots:\n  mine: sample_bots/python/random\n  a: random\n  b: random\n"
        "  c: random\n"
    )
    result = CliRunner().invoke(cli, ["tournament", str(config), "--out", str(tmp_path / "o")])
    assert result.exit_code != 0
    assert f"no folder {tmp_path / 'sample_bots/python/random'}" in result.output
    assert f"bot paths are relative to the config's folder, {tmp_path}" in result.output
    assert f"{root / 'sample_bots/python/random'} exists: write '" in result.output


def test_a_headless_screenshot_of_a_served_page_finishes_with_live_0(
    mini_tournament: pathlib.Path, tmp_path: pathlib.Path
):
    """docs/serve.md's recipe: ``?live=0`` opens no event stream, so --screenshot ends."""
    from referee.web.server import BackgroundServer
    from tests.replay.browser import HEADLESS, chromium

    browser = chromium()  # skips without Chromium
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copytree(mini_tournament, runs / "mini")
    server = BackgroundServer(runs, port=0)
    assert server.start(timeout=30)
    shot = tmp_path / "standings.png"
    try:
        run = subprocess.run(
            [
                browser,
                *HEADLESS,
                "--window-size=1280,900",
                "--virtual-time-budget=5000",
                f"--screenshot={shot}",
                f"{server.url}t/mini?live=0",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        # The same page's DOM once loaded: its data arrived (not a page stopped before it).
        dom = subprocess.run(
            [
                browser,
                *HEADLESS,
                "--virtual-time-budget=5000",
                "--dump-dom",
                f"{server.url}t/mini?live=0",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        server.stop()
    assert run.returncode == 0, run.stderr[-2000:]
    assert shot.stat().st_size > 0
    assert 'data-ready="1"' in dom.stdout, dom.stdout[-2000:]
    assert "live=0" in (pathlib.Path(__file__).parents[2] / "docs" / "serve.md").read_text()


def test_head_to_head_rounds_as_the_web_view_does():
    """1 game ahead of 8 is 13% in the terminal too (it showed 12%: Python rounds halves to even)."""
    from referee.stats.render import render
    from referee.stats.standings import compute_standings

    def game(index: int, placements: list[int]) -> dict:
        return {
            "type": "game", "game_id": f"g{index}", "index": index, "table": 1,
            "deal_set": index + 1, "bots": ["a", "b", "c"], "scores": [10, 20, 30],
            "placements": placements, "winners": [placements.index(1)],
            "hand_scores": [[10, 20, 30]], "moons": [0, 0, 0], "faults": [{}, {}, {}],
            "forfeited": [False, False, False],
        }  # fmt: skip

    entries = [game(0, [1, 2, 3])] + [game(i, [2, 1, 3]) for i in range(1, 8)]
    table = render(compute_standings(entries, bots=["a", "b", "c"]), "table")
    row = next(line for line in table.splitlines() if line.startswith("a ") and "%" in line)
    assert "13% (8)" in row and "12%" not in row
    served = (pathlib.Path(__file__).parents[2] / "referee/web/static/serve.js").read_text()
    assert "Math.round(share * 100)" in served  # the web view's rule, which the table follows


def test_a_bot_that_never_starts_in_a_tournament_is_said_once_and_marked(tmp_path: pathlib.Path):
    """Before: the message 6 times, and "75% ahead" in head to head without a mark."""
    (tmp_path / "crash.py").write_text("import sys\nsys.exit(3)\n")
    config = tmp_path / "c.yaml"
    config.write_text(
        "name: crash\nseed: 1\nsandbox: none\nbots:\n"
        '  crasher: "{python} crash.py --address {address}"\n'
        "  r1: random\n  h1: heuristic\n  r2: random\n"
        "rules: {target_score: 26}\nschedule: {deal_sets: 1}\n"
    )
    result = CliRunner().invoke(
        cli, ["tournament", str(config), "--out", str(tmp_path / "out"), "--quiet"]
    )
    assert result.exit_code == 0, result.output
    said = [line for line in result.stderr.splitlines() if "did not start" in line]
    assert len(said) == 1, said
    assert said[0].startswith("bot crasher: did not start: the bot process exited")
    journal = (tmp_path / "out" / "journal.jsonl").read_text()
    assert journal.count('"status": "did_not_start"') + journal.count('"reason"') >= 2
    h2h = result.stdout[result.stdout.index("Head to head") :]
    assert "crasher*" in h2h
    assert "*: did not start; the referee's fallback moves played its seats" in h2h


def test_the_python_kits_readme_says_bot_py_needs_the_referees_environment():
    root = pathlib.Path(__file__).resolve().parents[2]
    readme = (root / "sample_bots" / "python" / "starter" / "README.md").read_text()
    run = readme[readme.index("**Run:**") :]
    run = run[: run.index("**Play it:**")]
    assert "`python bot.py" in run
    assert "the referee's environment" in run and "import\nreferee.botkit" in run
    assert "ModuleNotFoundError: No\nmodule named 'referee'" in run
