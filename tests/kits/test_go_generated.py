"""The Go kit's committed protocol code is exactly what its proto generates.

``sample_bots/go/gen/`` is committed so that the kit builds with Go alone (no
protoc, nothing installed as root). ``sample_bots/go/regen.sh`` rewrites it
from the kit's ``proto/`` with pinned tools (buf, protoc-gen-go,
protoc-gen-go-grpc, all from the Go module proxy). The toolchain test here
regenerates into a temporary folder and asserts that every file is
byte-identical to the committed one, so the committed code cannot drift from
the proto (``tests/kits/test_vendored_protos.py`` keeps the kit's proto equal
to ``proto/hearts/v1/hearts.proto``). When it fails: run
``python scripts/sync_kit_protos.py`` (or ``sample_bots/go/regen.sh``) and
commit ``sample_bots/go/gen``.

The tools are installed once into ``~/.cache/hearts-referee/tools/go-kit``
(``$XDG_CACHE_HOME`` honoured). Without Go the test skips with a message.
"""

from __future__ import annotations

import os
import pathlib
import subprocess

import pytest
import yaml

from tests.helpers import require_tools, tools_dir

ROOT = pathlib.Path(__file__).resolve().parents[2]
KIT = ROOT / "sample_bots" / "go"
GEN = KIT / "gen"


def _files(folder: pathlib.Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_the_generated_code_is_committed_and_the_build_only_compiles() -> None:
    """gen/ holds the messages and the service; build.sh neither generates nor needs protoc."""
    assert set(_files(GEN)) == {"hearts/v1/hearts.pb.go", "hearts/v1/hearts_grpc.pb.go"}
    ignored = (KIT / ".gitignore").read_text().splitlines()
    assert not any(line.strip().rstrip("/").lstrip("/") == "gen" for line in ignored)
    build = (KIT / "build.sh").read_text()
    commands = [line for line in build.splitlines() if line.strip() and not line.startswith("#")]
    assert "go build -o bin/bot ." in commands
    assert not any("protoc" in line or "regen" in line for line in commands), commands
    assert yaml.safe_load((KIT / "bot.yaml").read_text())["build"] == "./build.sh"


@pytest.mark.toolchain
@pytest.mark.timeout(1800)  # a cold `go install` of buf fetches and compiles it
def test_the_committed_go_code_is_what_the_proto_generates(tmp_path: pathlib.Path) -> None:
    require_tools(
        "go",
        purpose="Go generated-code check",
        install="Go 1.26+ (regen.sh installs buf and the protoc plugins with it; "
        "protoc is not needed)",
    )
    tools = tools_dir() / "go-kit"
    tools.mkdir(parents=True, exist_ok=True)
    run = subprocess.run(
        ["sh", str(KIT / "regen.sh"), str(tmp_path)],
        env={**os.environ, "GO_KIT_TOOLS": str(tools)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=1700,
        check=False,
    )
    assert run.returncode == 0, f"sample_bots/go/regen.sh failed:\n{run.stdout}{run.stderr}"
    fresh, committed = _files(tmp_path / "gen"), _files(GEN)
    assert fresh, "regen.sh generated nothing"
    differ = sorted(
        name for name in set(fresh) | set(committed) if fresh.get(name) != committed.get(name)
    )
    assert not differ, (
        f"sample_bots/go/gen is stale ({', '.join(differ)} differ from what "
        "sample_bots/go/proto generates): run `python scripts/sync_kit_protos.py` "
        "(or sample_bots/go/regen.sh) and commit sample_bots/go/gen"
    )
