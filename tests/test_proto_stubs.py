"""The committed protocol stubs (referee/pb) are what scripts/gen_proto.py makes of the .proto."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = "referee/pb/hearts/v1"
GENERATED = ["hearts_pb2.py", "hearts_pb2.pyi", "hearts_pb2_grpc.py"]


@pytest.fixture(scope="module")
def fresh_stubs(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """The stubs regenerated into a temporary folder by scripts/gen_proto.py."""
    pytest.importorskip("grpc_tools")
    spec = importlib.util.spec_from_file_location("gen_proto", ROOT / "scripts" / "gen_proto.py")
    assert spec and spec.loader
    gen_proto = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen_proto)
    out = tmp_path_factory.mktemp("stubs")
    gen_proto.generate(out)
    return out / PACKAGE


@pytest.mark.parametrize("name", GENERATED)
def test_stubs_are_up_to_date(fresh_stubs: pathlib.Path, name: str) -> None:
    fresh = (fresh_stubs / name).read_bytes()
    committed = (ROOT / PACKAGE / name).read_bytes()
    assert fresh == committed, (
        f"{PACKAGE}/{name} differs from what the .proto generates: "
        "run `python scripts/gen_proto.py` and commit the result"
    )


def test_no_stray_generated_files(fresh_stubs: pathlib.Path) -> None:
    made = {p.name for p in fresh_stubs.iterdir() if p.suffix in (".py", ".pyi")}
    committed = {p.name for p in (ROOT / PACKAGE).iterdir() if p.suffix in (".py", ".pyi")}
    assert made - {"__init__.py"} == set(GENERATED)
    assert committed == made | {"__init__.py"}
