"""Files written so that a crash leaves the old version or the new one, never half (stdlib only).

The one place that knows how: a temporary file, written and fsynced, renamed
over the target, and the rename made durable by syncing the folder. Used for
game logs, ``tournament.json``, the standings, the gauntlet report and the
key file's folder.
"""

from __future__ import annotations

import contextlib
import os
import pathlib

__all__ = ["sync_folder", "write_bytes"]


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` as the whole of ``path``, atomically and synced to disk."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    # A temporary file left by a crash, or a symbolic link planted in its place, is removed,
    # and the new one is made afresh: never written through a link to a file elsewhere.
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    with open(os.open(tmp, flags, 0o666), "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)
    sync_folder(path.parent)


def sync_folder(folder: str | os.PathLike[str]) -> None:
    """Make a rename in ``folder`` durable (where folders can be synced)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)
