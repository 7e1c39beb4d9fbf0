"""The example bot of docs/botkit.md, as written there, passes check-bot."""

from __future__ import annotations

import pathlib
import re

from tests.checkbot.conftest import ROOT

DOC = ROOT / "docs" / "botkit.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(), flags=re.S)


def test_the_example_bot_passes_check_bot(check_bot, tmp_path: pathlib.Path):
    folder = tmp_path / "low-py"
    folder.mkdir()
    (folder / "bot.py").write_text(blocks("python")[0])
    (folder / "bot.yaml").write_text(blocks("yaml")[0])
    run = check_bot(str(folder), "--no-full-game")
    assert run.exit_code == 0, run.output
    assert run.report["handshake"]["name"] == "low-py"
    assert set(run.statuses().values()) <= {"PASS", "SKIP"}, run.output
    assert "chose" in run.text("moon")
