#!/usr/bin/env python3
"""Copy the bot protocol into every starter kit that builds from its own folder.

A kit is built (and later run) in a sandbox that sees only its own folder, so
each kit carries a byte-identical copy of ``proto/hearts/v1/hearts.proto`` at
``sample_bots/<kit>/proto/hearts/v1/hearts.proto``. The repository's copy is
the one to edit; run this script afterwards and commit the copies. The test
``tests/kits/test_vendored_protos.py`` fails while a copy differs.

    python scripts/sync_kit_protos.py           # refresh the copies
    python scripts/sync_kit_protos.py --check   # exit 1 if a copy is stale
"""

from __future__ import annotations

import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
#: The protocol, relative to the repository root and to each kit's folder.
PROTO = pathlib.Path("proto/hearts/v1/hearts.proto")
#: The kits that carry a copy (the Python kit uses the referee's own stubs).
KITS = ("go", "rust", "java", "cpp", "node")


def copies(root: pathlib.Path = ROOT) -> list[pathlib.Path]:
    """Where the copies live."""
    return [root / "sample_bots" / kit / PROTO for kit in KITS]


def stale(root: pathlib.Path = ROOT) -> list[pathlib.Path]:
    """The copies that are missing or differ from the repository's proto."""
    source = (root / PROTO).read_bytes()
    return [c for c in copies(root) if not c.is_file() or c.read_bytes() != source]


def sync(root: pathlib.Path = ROOT) -> list[pathlib.Path]:
    """Rewrite the stale copies; returns them."""
    source = (root / PROTO).read_bytes()
    changed = stale(root)
    for copy in changed:
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(source)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale copies")
    args = parser.parse_args(argv)
    paths = stale() if args.check else sync()
    verb = "stale" if args.check else "updated"
    for path in paths:
        print(f"{verb}: {path.relative_to(ROOT)}")
    return 1 if args.check and paths else 0


if __name__ == "__main__":
    sys.exit(main())
