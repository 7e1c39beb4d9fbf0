"""Builds show progress: the elapsed time and the last line of the build's output.

A bot folder whose build is slow and says little at a time (as a cold Go build
is) is built by ``referee match`` as a user would; stderr shows the build's
time and its latest line while it runs, not only once it is over.
"""

from __future__ import annotations

import io
import pathlib
import sys

from click.testing import CliRunner

from referee.cli import cli
from referee.players.build_progress import BuildProgress, last_line
from referee.players.builds import build_bot
from referee.players.specs import parse_bot
from tests.helpers import launched_pids  # noqa: F401 (an autouse fixture)

ROOT = pathlib.Path(__file__).resolve().parents[2]
RANDOM_BOT = ROOT / "sample_bots" / "python" / "random" / "bot.py"


def slow_folder(tmp_path: pathlib.Path) -> pathlib.Path:
    """A bot folder whose build says one thing, waits, says another and waits (5 s in all)."""
    folder = tmp_path / "slow-bot"
    folder.mkdir()
    (folder / "bot.py").write_text(RANDOM_BOT.read_text())
    (folder / "bot.yaml").write_text(
        "name: slow-bot\n"
        "build: echo fetching modules; sleep 2; echo compiling package heartsbot; sleep 3\n"
        f"run: {sys.executable} bot.py --address {{address}}\n"
    )
    return folder


def test_referee_match_shows_a_quiet_builds_time_and_last_line(tmp_path: pathlib.Path):
    result = CliRunner().invoke(
        cli,
        [
            "match", str(slow_folder(tmp_path)), "random", "random", "random",
            "--sandbox", "none", "--seed", "1", "--target", "26", "--out", str(tmp_path / "out"),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    progress = [
        line for line in result.stderr.splitlines() if line.startswith("building slow-bot: ")
    ]
    # Off a terminal: a line once the build has run 3 s (it runs 5), with what it said last.
    assert progress, result.stderr
    assert progress[0].startswith("building slow-bot: 3 s: ") or progress[0].startswith(
        "building slow-bot: 4 s: "
    ), progress
    assert progress[0].endswith("compiling package heartsbot"), progress


def test_on_a_terminal_the_line_is_rewritten_each_second(tmp_path: pathlib.Path):
    screen = io.StringIO()
    shown = BuildProgress(screen, interactive=True)
    result = build_bot(
        parse_bot(str(slow_folder(tmp_path))),
        tmp_path / "logs",
        sandbox="none",
        on_progress=shown.update,
    )
    shown.done("slow-bot")
    assert result.ok, result.tail
    frames = [f.strip() for f in screen.getvalue().split("\r") if f.strip()]
    assert len(frames) >= 3  # about one a second for 5 s
    assert any(f.endswith("s: fetching modules") for f in frames), frames
    assert frames[-1].endswith("s: compiling package heartsbot"), frames
    assert screen.getvalue().endswith("\r")  # the line is wiped when the build ends


def test_last_line_is_printable_and_takes_the_latest_progress_bar_state(tmp_path: pathlib.Path):
    log = tmp_path / "build.log"
    log.write_bytes(b"$ make\n\x1b[31mred\x1b[0m\ndownloading 10%\rdownloading 90%\r")
    assert last_line(log) == "downloading 90%"
    log.write_bytes(b"step\n\x1b[2J\xff cleared\n\n")
    assert last_line(log) == "\\x1b[2J\ufffd cleared"
    assert last_line(tmp_path / "missing.log") == ""
