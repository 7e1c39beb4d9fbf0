"""Fixtures of the starter-kit tests: each kit copied alone and built once per session."""

from __future__ import annotations

import pathlib
import shutil
from collections.abc import Callable

import pytest

from referee.bots import BuildResult, build_bot, parse_bot
from tests.helpers import launched_pids  # noqa: F401 (an autouse fixture)

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: Build outputs and caches never copied into the clean tree.
IGNORED = shutil.ignore_patterns(
    "target", "build", "node_modules", "dist", "bin", "gen", "generated", "__pycache__", ".gradle"
)


def copy_kit(kit: str, dest: pathlib.Path) -> pathlib.Path:
    """The kit's folder alone (without build outputs) at ``dest/<kit>``: nothing around it.

    That is all a sandboxed build sees, so a kit that reaches outside its
    folder (``../../proto``) fails to build here.
    """
    folder = dest / kit
    shutil.copytree(ROOT / "sample_bots" / kit, folder, ignore=IGNORED)
    return folder


@pytest.fixture(scope="session")
def built_kit(
    tmp_path_factory: pytest.TempPathFactory,
) -> Callable[[str], tuple[pathlib.Path, BuildResult]]:
    """``built_kit(kit)``: a copy of the kit outside the repository, built by its bot.yaml.

    Built once per session and shared by the tests of this folder; the
    build's result says whether it worked.
    """
    built: dict[str, tuple[pathlib.Path, BuildResult]] = {}

    def build(kit: str) -> tuple[pathlib.Path, BuildResult]:
        if kit not in built:
            base = tmp_path_factory.mktemp(f"kit-{kit}")
            folder = copy_kit(kit, base / "tree")
            built[kit] = (folder, build_bot(parse_bot(str(folder)), base / "logs"))
        return built[kit]

    return build
