#!/usr/bin/env python3
"""Copy the bot protocol into every starter kit that builds from its own folder.

A kit is built (and later run) in a sandbox that sees only its own folder, so
each kit carries a byte-identical copy of ``proto/hearts/v1/hearts.proto`` at
``sample_bots/<kit>/proto/hearts/v1/hearts.proto``. The repository's copy is
the one to edit; run this script afterwards and commit the copies. The test
``tests/kits/test_vendored_protos.py`` fails while a copy differs.

The Go kit also commits the code generated from its copy
(``sample_bots/go/gen``, so that it builds with Go alone): when the Go kit's
copy changes, or with ``--regen``, this script runs ``sample_bots/go/regen.sh``
(needs Go; it installs the pinned buf and protoc plugins from the Go module
proxy). Without Go it says so and exits 1: run regen.sh where Go is, and
commit ``sample_bots/go/gen``. ``tests/kits/test_go_generated.py`` fails
while the committed code differs from what the proto generates.

    python scripts/sync_kit_protos.py           # refresh the copies (and the Go code)
    python scripts/sync_kit_protos.py --regen   # also regenerate the Go code anyway
    python scripts/sync_kit_protos.py --check   # exit 1 if a copy is stale
"""

from __future__ import annotations

import argparse
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.cli.scaffold import KIT_FOLDERS  # noqa: E402 (the checkout's, by the path above)

#: The protocol, relative to the repository root and to each kit's folder.
PROTO = pathlib.Path("proto/hearts/v1/hearts.proto")
#: Regenerates the Go kit's committed code (its ``gen/``) from its copy.
GO_REGEN = pathlib.Path("sample_bots/go/regen.sh")
#: The kits that carry a copy: every kit of `referee new-bot`, by folder under sample_bots/.
KITS = tuple(folder.removeprefix("sample_bots/") for folder in KIT_FOLDERS.values())


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


def regenerate_go(root: pathlib.Path = ROOT) -> bool:
    """Run the Go kit's regen.sh, which rewrites its ``gen/``; False without Go or on failure."""
    if shutil.which("go") is None:
        print(
            f"Go not found: cannot regenerate sample_bots/go/gen; run {GO_REGEN} "
            "where Go is installed, and commit sample_bots/go/gen",
            file=sys.stderr,
        )
        return False
    print(f"running {GO_REGEN}")
    run = subprocess.run(["sh", str(root / GO_REGEN)], stdin=subprocess.DEVNULL, check=False)
    if run.returncode != 0:
        print(f"{GO_REGEN} failed (exit {run.returncode})", file=sys.stderr)
        return False
    print("regenerated: sample_bots/go/gen (commit it)")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale copies")
    parser.add_argument("--regen", action="store_true", help="also regenerate the Go kit's code")
    args = parser.parse_args(argv)
    if args.check and args.regen:
        parser.error("--check and --regen exclude each other")
    paths = stale() if args.check else sync()
    verb = "stale" if args.check else "updated"
    for path in paths:
        print(f"{verb}: {path.relative_to(ROOT)}")
    if args.check:
        return 1 if paths else 0
    go_copy = ROOT / "sample_bots" / "go" / PROTO
    if (args.regen or go_copy in paths) and not regenerate_go():
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
