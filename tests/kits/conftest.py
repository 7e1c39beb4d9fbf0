"""Fixtures of the starter-kit tests: each kit copied alone and built once per session."""

from __future__ import annotations

import dataclasses
import pathlib
import shutil
import subprocess
from collections.abc import Callable

import pytest
import yaml

from tests.helpers import launched_pids  # noqa: F401 (an autouse fixture)

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: Build outputs and caches never copied into the clean tree. (The Go kit's
#: ``gen/`` is not one: it is committed, and its build only compiles it.)
IGNORED = shutil.ignore_patterns(
    "target", "build", "node_modules", "dist", "bin", "generated", "__pycache__", ".gradle"
)


def copy_kit(kit: str, dest: pathlib.Path) -> pathlib.Path:
    """The kit's folder alone (without build outputs) at ``dest/<kit>``: nothing around it.

    That is all a sandboxed build sees, so a kit that reaches outside its
    folder (``../../proto``) fails to build here.
    """
    folder = dest / kit
    shutil.copytree(ROOT / "sample_bots" / kit, folder, ignore=IGNORED)
    return folder


@dataclasses.dataclass(frozen=True)
class Build:
    """A kit built in a folder of its own."""

    folder: pathlib.Path
    ok: bool
    log_path: pathlib.Path

    @property
    def tail(self) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-25:])


def build_kit(folder: pathlib.Path, log_path: pathlib.Path, timeout_s: float = 1800) -> Build:
    """Run the ``build:`` command of the kit's bot.yaml in its folder, as a user would."""
    command = yaml.safe_load((folder / "bot.yaml").read_text())["build"]
    with open(log_path, "wb") as log:
        log.write(f"$ {command}\n(in {folder})\n".encode())
        log.flush()
        try:
            run = subprocess.run(
                ["sh", "-c", command],
                cwd=folder,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                timeout=timeout_s,
                start_new_session=True,
                check=False,
            )
            ok = run.returncode == 0
        except subprocess.TimeoutExpired:
            log.write(f"\nbuild timed out after {timeout_s:.0f} s\n".encode())
            ok = False
    return Build(folder, ok, log_path)


@pytest.fixture(scope="session")
def built_kit(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Build]:
    """``built_kit(kit)``: a copy of the kit alone, outside the repository, built.

    Built once per session and shared by the tests of this folder; the
    result says whether the build worked and where its log is.
    """
    built: dict[str, Build] = {}

    def build(kit: str) -> Build:
        if kit not in built:
            base = tmp_path_factory.mktemp(f"kit-{kit}")
            folder = copy_kit(kit, base / "tree")
            built[kit] = build_kit(folder, base / "build.log")
        return built[kit]

    return build
