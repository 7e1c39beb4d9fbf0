"""Fixtures of the starter-kit tests: each kit scaffolded outside the repository, built once.

``built_kit(language)`` runs ``referee new-bot LANGUAGE DIR`` into a temporary
folder (outside this checkout) and builds it with the referee's own sandboxed
build (:func:`referee.players.builds.build_bot`), which sees that folder and the
toolchains and nothing of this checkout: as an author outside the repository
would, and as a tournament does. Every kit test plays or checks that build.
"""

from __future__ import annotations

import dataclasses
import pathlib
from collections.abc import Callable

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.cli.scaffold import kit_name
from referee.players.builds import build_bot
from referee.players.specs import parse_bot
from tests.helpers import launched_pids  # noqa: F401 (an autouse fixture)

ROOT = pathlib.Path(__file__).resolve().parents[2]


def scaffold_kit(language: str, dest: pathlib.Path) -> pathlib.Path:
    """``referee new-bot LANGUAGE dest/<language>-starter``: the kit under its own name."""
    folder = dest / kit_name(language)
    result = CliRunner().invoke(cli, ["new-bot", language, str(folder)])
    assert result.exit_code == 0, result.output
    return folder


@dataclasses.dataclass(frozen=True)
class Build:
    """A kit built in a folder of its own."""

    folder: pathlib.Path
    ok: bool
    log_path: pathlib.Path
    #: How long the build took.
    seconds: float = 0.0

    @property
    def tail(self) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-25:])


@pytest.fixture(scope="session")
def built_kit(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Build]:
    """``built_kit(language)``: the kit scaffolded outside the repository and built, sandboxed.

    Built once per session and shared by every kit test (and the polyglot
    tournament); the result says whether the build worked, how long it took
    and where its log is.
    """
    built: dict[str, Build] = {}

    def build(language: str) -> Build:
        if language not in built:
            base = tmp_path_factory.mktemp(f"kit-{language}")
            folder = scaffold_kit(language, base)
            assert ROOT not in folder.resolve().parents
            result = build_bot(parse_bot(str(folder)), base / "logs", timeout_s=1800)
            built[language] = Build(
                folder, result.ok, pathlib.Path(result.log_path), result.seconds
            )
        return built[language]

    return build
