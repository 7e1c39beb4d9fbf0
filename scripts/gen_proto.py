#!/usr/bin/env python3
"""Regenerate the Python stubs of the bot protocol from proto/hearts/v1.

The stubs are committed under referee/pb/ and never edited by hand; the test
tests/test_proto_stubs.py checks that running this script changes nothing.

protoc runs with ``-Iproto``, so the file is registered in the descriptor
pool as ``hearts/v1/hearts.proto``: the name every other language uses, that
reflection clients (grpcurl) ask for, and that a bot's own stubs generated
from the same file register (the two then share one pool entry instead of
clashing with ``duplicate symbol 'hearts.v1.Suit'``). protoc would name the
Python modules after that path (``hearts.v1.hearts_pb2``); the stubs live in
the package ``referee.pb.hearts.v1``, so the module names in the generated
code are rewritten to it, and nothing else.
"""

from __future__ import annotations

import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
#: The protocol, relative to proto/ (its name in the descriptor pool).
PROTO_FILES = ["hearts/v1/hearts.proto"]
#: Where the stubs go, relative to the output folder, as a package.
PACKAGE = "referee/pb/hearts/v1"
GENERATED = ("hearts_pb2.py", "hearts_pb2.pyi", "hearts_pb2_grpc.py")
#: protoc's module names for the proto path, and what they become.
REWRITES = [
    ("from hearts.v1 import hearts_pb2 as", "from referee.pb.hearts.v1 import hearts_pb2 as"),
    ("'hearts.v1.hearts_pb2'", "'referee.pb.hearts.v1.hearts_pb2'"),
]


def generate(out_dir: pathlib.Path) -> None:
    """Write hearts_pb2.py, hearts_pb2.pyi and hearts_pb2_grpc.py under out_dir/referee/pb/hearts/v1."""
    from grpc_tools import protoc  # a dev dependency: only needed to regenerate

    with tempfile.TemporaryDirectory() as tmp:
        args = [
            "protoc",
            f"-I{ROOT / 'proto'}",
            f"--python_out={tmp}",
            f"--pyi_out={tmp}",
            f"--grpc_python_out={tmp}",
            *(str(ROOT / "proto" / p) for p in PROTO_FILES),
        ]
        if protoc.main(args) != 0:
            raise SystemExit("protoc failed; see the messages above")
        target = out_dir / PACKAGE
        target.mkdir(parents=True, exist_ok=True)
        for name in GENERATED:
            text = (pathlib.Path(tmp) / "hearts" / "v1" / name).read_text()
            for old, new in REWRITES:
                text = text.replace(old, new)
            (target / name).write_text(text)
    for package in ("referee/pb/hearts", "referee/pb/hearts/v1"):
        init = out_dir / package / "__init__.py"
        if not init.exists():
            init.write_text("")


if __name__ == "__main__":
    generate(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT)
