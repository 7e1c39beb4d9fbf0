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
import shutil
import subprocess
from collections.abc import Callable

import pytest
from click.testing import CliRunner

from referee.cli import cli
from referee.cli.scaffold import kit_name
from referee.players.builds import build_bot
from referee.players.specs import parse_bot
from tests.helpers import launched_pids, missing_tools  # noqa: F401 (an autouse fixture)

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


def _pkg_config(module: str) -> bool:
    if shutil.which("pkg-config") is None:
        return False
    return subprocess.run(["pkg-config", "--exists", module], check=False).returncode == 0


def kit_unavailable(kit: str) -> str | None:
    """Why the kit cannot be built here (the skip message), or None."""
    if kit == "python":
        return None  # it runs on the referee's own Python
    if kit == "go":
        missing = missing_tools("go")  # the protocol code is committed: no protoc
        hint = "Go 1.26+"
    elif kit == "rust":
        missing = missing_tools("cargo")
        hint = "Rust (rustup or Debian's cargo)"
    elif kit == "java":
        missing = missing_tools("java", "mvn")
        hint = "a JDK 17+ and Maven"
    elif kit == "cpp":
        missing = missing_tools("cmake", "g++", "protoc", "grpc_cpp_plugin")
        if not missing and not _pkg_config("grpc++"):
            missing = ["grpc++ (pkg-config)"]
        hint = "cmake, g++ and Debian's libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc pkg-config"
    elif kit == "node":
        missing = missing_tools("node", "npm")
        hint = "Node.js 20+ with npm"
    else:
        raise ValueError(kit)
    if missing:
        return f"{kit} starter kit skipped: {', '.join(missing)} not found; install {hint}"
    return None


def built_or_skip(kit: str, built_kit: Callable[[str], Build]) -> Build:
    """The kit built (a failed build fails the test); a skip where its toolchain is missing."""
    reason = kit_unavailable(kit)
    if reason:
        pytest.skip(reason)
    build = built_kit(kit)
    assert build.ok, f"the build of {kit} failed (log {build.log_path}):\n{build.tail}"
    return build
