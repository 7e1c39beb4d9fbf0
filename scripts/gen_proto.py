#!/usr/bin/env python3
"""Regenerate the Python stubs of the bot protocol from proto/hearts/v1.

The stubs are committed under referee/pb/ and never edited by hand; the test
tests/test_proto_stubs.py checks that running this script changes nothing.

The proto directory is mapped to the virtual path ``referee/pb`` (protoc's
``-IVIRTUAL=DISK``), so the generated modules import each other as
``referee.pb.hearts.v1...`` instead of a top-level ``hearts`` package.
"""

from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTO_FILES = ["proto/hearts/v1/hearts.proto"]


def generate(out_dir: pathlib.Path) -> None:
    """Write hearts_pb2.py, hearts_pb2.pyi and hearts_pb2_grpc.py under out_dir."""
    from grpc_tools import protoc  # a dev dependency: only needed to regenerate

    args = [
        "protoc",
        f"-Ireferee/pb={ROOT / 'proto'}",
        f"--python_out={out_dir}",
        f"--pyi_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        *(str(ROOT / p) for p in PROTO_FILES),
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed; see the messages above")
    for package in ("referee/pb/hearts", "referee/pb/hearts/v1"):
        init = out_dir / package / "__init__.py"
        if not init.exists():
            init.write_text("")


if __name__ == "__main__":
    generate(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT)
