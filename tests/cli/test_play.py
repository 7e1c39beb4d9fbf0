"""``referee play`` on the command line: bad input gets one line naming what is wrong, and a
human who leaves the table gets the fallback after the clock (the real command, verified)."""

from __future__ import annotations

import json
import pathlib
import shutil
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from referee.audit.logs import verify_log
from referee.cli import cli
from tests.helpers import require_sandbox, wait_no_processes_in

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["play", *args])
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("args", "config", "expected"),
    [
        (
            ("random", "random", "random", "--seat", "moon"),
            None,
            "'moon' is not a seat at a table of 4",
        ),
        (("random", "random", "--seat", "south"), None, "1 to 3"),
        (("random", "random", "--seat", "1", "--seat", "1"), None, "the same seat was given twice"),
        (("random",) * 7, None, "3 to 7 seats (V6), not 8"),
        (
            ("random", "random", "random"),
            "rulez: {target_score: 1}\n",
            "rulez: unknown key; did you mean 'rules'?",
        ),
        (
            ("random", "random", "random"),
            "rules: {num_players: 5}\n",
            "rules.num_players is 5, but 3 bots and 1 human seats",
        ),
        (
            ("random", "random", "random"),
            "human: {move_time_ms: 0}\n",
            "human.move_time_ms: expected an integer 1 to",
        ),
        (
            ("random", "random", "random"),
            "rules: {moon_scoring: add}\n",
            "rules.moon_scoring: expected one of",
        ),
        (("random", "random", "random"), "rules: [1\n", "play.yaml"),
        (("nonsense bot", "random", "random"), None, "BOT"),
    ],
)
def test_bad_input_is_one_line(tmp_path, args, config, expected):
    extra: list[str] = []
    if config is not None:
        (tmp_path / "play.yaml").write_text(config)
        extra = ["--config", str(tmp_path / "play.yaml")]
    code, output = _run(*args, *extra, "--out", str(tmp_path / "out"), "--port", "0")
    assert code != 0
    assert expected in output, output
    assert "Traceback" not in output


def test_a_busy_port_is_said_first_and_makes_no_folder(tmp_path):
    """As ``referee serve`` (issue 29): one line with the fix, said before anything is made
    (before: create_server's "(while attempting to bind on address ...)" and an empty folder)."""
    import socket

    from referee.web.human import HumanPlayer
    from referee.web.play import PlayServer

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out = tmp_path / "out"
        code, output = _run("random", "random", "random", "--out", str(out), "--port", str(port))
        assert code == 1
        assert f"cannot serve on 127.0.0.1:{port}: Address already in use (" in output
        assert "--port 0 for a free one" in output and "while attempting" not in output
        assert not out.exists()
        server = PlayServer([HumanPlayer(2)], tmp_path / "game.jsonl", port=port)
        assert not server.start()  # the server's own check says the same
        assert server.error is not None and "while attempting" not in server.error
        assert server.error.startswith(f"cannot serve on 127.0.0.1:{port}: Address already in use")


def test_serves_on_loopback_unless_told(tmp_path):
    """Safety (issue 32): loopback unless --host says otherwise (the Host check: tests/web)."""
    from referee.cli.play import play

    host = next(p for p in play.params if p.name == "host")
    assert host.default == "127.0.0.1"


def test_never_writes_over_a_game(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "game.jsonl").write_text("{}\n")
    code, output = _run("random", "random", "random", "--out", str(out), "--port", "0")
    assert code == 2 and "already holds a game" in output


@pytest.mark.slow
def test_a_human_who_leaves_gets_the_fallback(tmp_path):
    """Nobody opens the page: after 1.5 s a decision is a timeout and the fallback plays; after
    max_faults (2) the seat forfeits; the game ends, the table stays open until Ctrl-C. One
    opponent is a launched bot folder (sandboxed): no process of it outlives the command."""
    require_sandbox()
    bot = tmp_path / "bot"
    shutil.copytree(ROOT / "sample_bots" / "python" / "random", bot)
    config = tmp_path / "play.yaml"
    config.write_text("rules: {target_score: 1}\nfault_policy: {max_faults: 2}\n")
    out = tmp_path / "game"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "referee.cli",
            "play",
            str(bot),
            "random",
            "heuristic",
            "--config",
            str(config),
            "--think-time",
            "1.5",
            "--port",
            "0",
            "--out",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        log = out / "game.jsonl"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if log.exists() and '"type":"game_end"' in log.read_text():
                break
            time.sleep(0.2)
        # Ctrl-C twice, as an impatient user or `timeout` (its child, then its group) sends
        # it: the second does not break off the cleanup ("Aborted!", exit 1, a bot left).
        process.send_signal(signal.SIGINT)
        time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0, process.stderr.read()
        errors = process.stderr.read()
        assert "Aborted" not in errors and "internal error" not in errors, errors
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    records = [json.loads(line) for line in log.read_text().splitlines()]
    mine = [r for r in records if r["type"] in ("pass", "play") and r["seat"] == 2]
    assert [r["fault"]["kind"] for r in mine if r.get("fault")] == ["timeout", "timeout"]
    assert any(r["type"] == "forfeit" and r["seat"] == 2 for r in records)
    assert mine and all(r["source"] == "fallback" for r in mine)
    assert records[0]["time_control"]["seats"]["2"]["move_time_ms"] == 1500
    assert verify_log(log).ok
    assert records[0]["seats"][0]["name"] == "random-py"
    assert wait_no_processes_in(bot) == []
