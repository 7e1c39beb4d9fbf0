"""Fixtures of the check-bot tests: run the command, and make sure no bot process is left."""

from __future__ import annotations

import json
import pathlib
import sys
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import CliRunner

from referee.cli import cli
from tests.helpers import launched_pids  # noqa: F401 (an autouse fixture)

ROOT = pathlib.Path(__file__).resolve().parents[2]
BROKEN = pathlib.Path(__file__).resolve().parent / "bots" / "broken.py"


def broken_bot(mode: str, *args: str) -> str:
    """The command line of the broken test bot with this defect."""
    return " ".join([sys.executable, str(BROKEN), "--address", "{address}", "--mode", mode, *args])


class Run:
    """One ``referee check-bot`` run: exit code, output, and the report's checks by id."""

    def __init__(self, exit_code: int, output: str, report: dict[str, Any] | None) -> None:
        self.exit_code = exit_code
        self.output = output
        self.report = report
        self.checks = {c["id"]: c for c in report["checks"]} if report else {}

    def status(self, check: str) -> str:
        return self.checks[check]["status"]

    def text(self, check: str) -> str:
        """A check's summary and details as one string, for matching messages."""
        c = self.checks[check]
        return "\n".join([c["summary"], *c["details"]])

    def statuses(self) -> dict[str, str]:
        return {k: c["status"] for k, c in self.checks.items()}


@pytest.fixture()
def check_bot(tmp_path: pathlib.Path) -> Callable[..., Run]:
    """Run ``referee check-bot BOT ARGS...`` in-process; JSON unless ``--format`` is given."""

    def run(bot: str, *args: str) -> Run:
        argv = ["check-bot", bot, "--out", str(tmp_path / "out"), *args]
        as_json = "--format" not in args
        if as_json:
            argv += ["--format", "json"]
        result = CliRunner().invoke(cli, argv, catch_exceptions=False)
        report = json.loads(result.stdout) if as_json and result.stdout.strip() else None
        return Run(result.exit_code, result.output, report)

    return run
