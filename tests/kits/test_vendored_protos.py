"""Every starter kit carries a byte-identical copy of the protocol.

A kit builds from its own folder alone (the build sandbox sees nothing
else), so it vendors ``proto/hearts/v1/hearts.proto``;
``scripts/sync_kit_protos.py`` refreshes the copies.
"""

from __future__ import annotations

import importlib.util
import pathlib
import re
from types import ModuleType

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _sync_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "sync_kit_protos", ROOT / "scripts" / "sync_kit_protos.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SYNC = _sync_script()


@pytest.mark.parametrize("kit", SYNC.KITS)
def test_kit_proto_is_a_copy_of_the_protocol(kit: str) -> None:
    copy = ROOT / "sample_bots" / kit / SYNC.PROTO
    assert copy.is_file(), f"{copy.relative_to(ROOT)} is missing: run scripts/sync_kit_protos.py"
    assert copy.read_bytes() == (ROOT / SYNC.PROTO).read_bytes(), (
        f"{copy.relative_to(ROOT)} differs from {SYNC.PROTO}: "
        "run `python scripts/sync_kit_protos.py` and commit the copies"
    )


def test_every_launched_kit_carries_a_copy() -> None:
    """A kit that is not Python must be in the script's list."""
    kits = {p.parent.name for p in (ROOT / "sample_bots").glob("*/bot.yaml")}
    assert kits - {"python"} <= set(SYNC.KITS)


@pytest.mark.parametrize("kit", SYNC.KITS)
def test_kit_build_files_do_not_reach_outside_the_kit(kit: str) -> None:
    """Nothing a kit builds or runs from names the repository's proto folder."""
    folder = ROOT / "sample_bots" / kit
    outside = re.compile(r"\.\./\.\./proto|'\.\.', '\.\.', '\.\.', 'proto'")
    offenders = []
    for path in folder.rglob("*"):
        parts = set(path.relative_to(folder).parts)
        if not path.is_file() or parts & {
            "node_modules",
            "target",
            "build",
            "bin",
            "dist",
            "gen",
            "generated",
        }:
            continue
        if path.suffix in {".md", ".proto"}:
            continue
        if outside.search(path.read_text(errors="replace")):
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, f"these files still read ../../proto: {offenders}"


def test_sync_rewrites_a_stale_copy(tmp_path: pathlib.Path) -> None:
    (tmp_path / SYNC.PROTO).parent.mkdir(parents=True)
    (tmp_path / SYNC.PROTO).write_bytes(b"syntax = 'proto3';\n")
    for kit in SYNC.KITS[1:]:
        (tmp_path / "sample_bots" / kit / SYNC.PROTO).parent.mkdir(parents=True)
        (tmp_path / "sample_bots" / kit / SYNC.PROTO).write_bytes(b"syntax = 'proto3';\n")
    assert SYNC.stale(tmp_path) == [tmp_path / "sample_bots" / SYNC.KITS[0] / SYNC.PROTO]
    assert SYNC.sync(tmp_path) == [tmp_path / "sample_bots" / SYNC.KITS[0] / SYNC.PROTO]
    assert SYNC.stale(tmp_path) == []
