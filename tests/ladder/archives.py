"""Archives for the upload tests: good ones and crafted attacks, built in memory."""

from __future__ import annotations

import gzip
import io
import os
import pathlib
import tarfile

__all__ = ["entry", "link", "special", "tar_gz", "tree", "zero_file_bomb"]

Member = tuple[tarfile.TarInfo, bytes | None]


def entry(name: str, data: bytes = b"x", *, mode: int = 0o644) -> Member:
    """A regular file member."""
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), mode
    return info, data


def folder(name: str, *, mode: int = 0o755) -> Member:
    info = tarfile.TarInfo(name)
    info.type, info.mode = tarfile.DIRTYPE, mode
    return info, None


def link(name: str, target: str, *, hard: bool = False) -> Member:
    """A symbolic (or hard) link member."""
    info = tarfile.TarInfo(name)
    info.type = tarfile.LNKTYPE if hard else tarfile.SYMTYPE
    info.linkname = target
    return info, None


def special(name: str, kind: bytes) -> Member:
    """A device (``tarfile.CHRTYPE``, ``BLKTYPE``) or FIFO (``FIFOTYPE``) member."""
    info = tarfile.TarInfo(name)
    info.type = kind
    info.devmajor, info.devminor = 1, 3  # /dev/null's numbers
    return info, None


def tar_gz(members: list[Member], *, fmt: int = tarfile.PAX_FORMAT) -> bytes:
    """The ``.tar.gz`` of ``members``, in order."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=fmt) as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buf.getvalue()


def zero_file_bomb(size: int, name: str = "zeros.bin") -> bytes:
    """A ``.tar.gz`` of one file of ``size`` zero bytes (about 1000:1), streamed, never whole."""
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9) as gz:
        info = tarfile.TarInfo(name)
        info.size = size
        gz.write(info.tobuf(format=tarfile.USTAR_FORMAT))
        chunk = bytes(1 << 20)
        left = size
        while left:
            gz.write(chunk[: min(left, len(chunk))])
            left -= min(left, len(chunk))
        gz.write(bytes(-size % 512 + 1024))  # padding and the end of the archive
    return buf.getvalue()


def tree(root: pathlib.Path) -> dict[str, tuple[str, int]]:
    """Every path under ``root`` (links not followed) with its kind and size: a snapshot."""
    found: dict[str, tuple[str, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            path = pathlib.Path(dirpath, name)
            info = path.lstat()
            kind = "link" if path.is_symlink() else "dir" if path.is_dir() else "file"
            found[str(path.relative_to(root))] = (kind, info.st_size if kind == "file" else 0)
    return found
