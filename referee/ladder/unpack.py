"""A submitted bot's archive (a ``.tar.gz``) unpacked into its submission's folder, safely.

The archive comes from a team over the network: untrusted. Unpacked
naively it could write anywhere the referee can (``../../x``, ``/etc/x``, a
symbolic link followed by the next member), plant a device file or a
setuid program, or exhaust the disk and memory (a decompression bomb: a
small archive of gigabytes of zeros, or tar headers claiming huge sizes).
:func:`unpack` accepts only what a bot folder is: regular files and
folders, under relative paths, within :class:`UnpackLimits`, and refuses
everything else with an :class:`UploadRefused` whose message the submitter
sees, naming the member. The limits are checked while the archive is read,
before what breaks them is written; every path is created through
:mod:`referee.sandbox.safepath`, never following a link, so nothing is
written outside the submission's folder even if a check were missed. A
refused archive leaves no folder behind.

Only gzip-compressed tar is accepted (what ``referee submit`` sends); a zip
or plain tar is refused by name.
"""

from __future__ import annotations

import dataclasses
import gzip
import os
import pathlib
import stat
import tarfile
import unicodedata
import zlib
from typing import BinaryIO

from referee.safetext import shown_name
from referee.sandbox import safepath

__all__ = [
    "ARCHIVE_TYPE",
    "UnpackLimits",
    "UnpackResult",
    "UploadRefused",
    "unpack",
]

#: The media type of an upload (``Content-Type``): a gzip-compressed tar.
ARCHIVE_TYPE = "application/gzip"

_MIB = 1024 * 1024
_CHUNK = 64 * 1024
#: Most folders an entry may lie under (a bot folder is shallow; a deep one is an attack on the walk).
_MAX_DEPTH = 32
#: Most bytes of one path.
_MAX_PATH_BYTES = 1024
#: Decompressed bytes allowed beyond the files' own for tar's headers and padding, per entry.
_HEADER_SLACK = 2048


class UploadRefused(ValueError):
    """An upload that is not accepted; its message is for the submitter."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class UnpackLimits:
    """What one submission may be: checked while its archive is read.

    ``ratio`` is the most unpacked bytes per compressed byte; archives that
    unpack to at most ``ratio_free_bytes`` are never refused for their ratio
    (small text files compress well).
    """

    compressed_bytes: int = 20 * _MIB
    unpacked_bytes: int = 200 * _MIB
    files: int = 5000
    ratio: float = 200.0
    ratio_free_bytes: int = 4 * _MIB

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"{field.name} must be a positive number, not {value!r}")

    def unpacked_budget(self, compressed: int) -> int:
        """The most bytes an archive of ``compressed`` bytes may unpack to."""
        by_ratio = max(int(self.ratio * compressed), self.ratio_free_bytes)
        return min(self.unpacked_bytes, by_ratio)

    def describe(self) -> str:
        """The limits in words (for refusals and docs)."""
        return (
            f"at most {_size(self.compressed_bytes)} compressed, {_size(self.unpacked_bytes)} "
            f"unpacked, {self.files} files and folders, and {self.ratio:g} times its "
            f"compressed size once past {_size(self.ratio_free_bytes)}"
        )


@dataclasses.dataclass(frozen=True)
class UnpackResult:
    """What was unpacked: regular files, folders and their bytes."""

    files: int
    folders: int
    bytes: int


def _size(n: int) -> str:
    if n >= _MIB:
        return f"{n / _MIB:.1f} MiB".replace(".0 ", " ")
    if n >= 1024:
        return f"{n / 1024:.1f} KiB".replace(".0 ", " ")
    return f"{n} bytes"


class _Capped:
    """A reader that refuses to yield more than ``cap`` bytes in all (counted as read)."""

    def __init__(self, inner: BinaryIO, cap: int, what: str) -> None:
        self._inner, self._cap, self._what = inner, cap, what
        self.count = 0

    def read(self, size: int = -1) -> bytes:
        want = self._cap + 1 - self.count
        if size >= 0:
            want = min(want, size)
        data = self._inner.read(max(want, 0))
        self.count += len(data)
        if self.count > self._cap:
            raise UploadRefused(self._what)
        return data

    def readable(self) -> bool:
        return True


def _member_name(member: tarfile.TarInfo) -> list[str]:
    """The member's path components, or a refusal saying why not."""
    raw = member.name
    shown = shown_name(raw)
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in raw) or "\\" in raw:
        raise UploadRefused(
            f"{shown}: a name with control characters, backslashes or bytes that are not UTF-8"
        )
    if len(raw.encode("utf-8", "surrogateescape")) > _MAX_PATH_BYTES:
        raise UploadRefused(f"{shown}: a path longer than {_MAX_PATH_BYTES} bytes")
    if raw.startswith("/"):
        raise UploadRefused(f"{shown}: an absolute path; paths in the archive must be relative")
    names = [p for p in raw.split("/") if p not in ("", ".")]
    if ".." in names:
        raise UploadRefused(f"{shown}: a path with '..'; paths must stay inside the bot's folder")
    if len(names) > _MAX_DEPTH:
        raise UploadRefused(f"{shown}: more than {_MAX_DEPTH} folders deep")
    if any(len(n.encode("utf-8", "surrogateescape")) > 255 for n in names):
        raise UploadRefused(f"{shown}: a name longer than 255 bytes")
    return names


def _member_kind(member: tarfile.TarInfo) -> None:
    """Refuse every member that is not a plain file or folder, or that carries setuid/setgid."""
    shown = shown_name(member.name)
    if member.issym():
        raise UploadRefused(
            f"{shown}: a symbolic link (to {shown_name(member.linkname)}); "
            "links are not accepted, send the file itself"
        )
    if member.islnk():
        raise UploadRefused(
            f"{shown}: a hard link (to {shown_name(member.linkname)}); "
            "links are not accepted, send the file itself"
        )
    if member.ischr() or member.isblk():
        raise UploadRefused(f"{shown}: a device file; only files and folders are accepted")
    if member.isfifo():
        raise UploadRefused(f"{shown}: a FIFO (named pipe); only files and folders are accepted")
    if member.issparse() or not (member.isfile() or member.isdir()):
        raise UploadRefused(f"{shown}: a special tar entry; only files and folders are accepted")
    if member.mode & (stat.S_ISUID | stat.S_ISGID):
        raise UploadRefused(f"{shown}: has the setuid or setgid bit; it is not accepted")


def unpack(
    archive: BinaryIO, dest: pathlib.Path, limits: UnpackLimits, *, compressed_size: int
) -> UnpackResult:
    """Unpack the ``.tar.gz`` read from ``archive`` into the new folder ``dest``.

    ``compressed_size`` is the archive's size in bytes (the upload's body,
    already capped at ``limits.compressed_bytes`` as it was received). ``dest``
    must not exist; its parent must. On any refusal ``dest`` is removed and
    :class:`UploadRefused` raised with the reason; a file is written with the
    user's permissions (executable if any execute bit was set), never with
    the archive's owner or special bits.
    """
    if compressed_size > limits.compressed_bytes:
        raise UploadRefused(
            f"the archive is {_size(compressed_size)}, over the limit of "
            f"{_size(limits.compressed_bytes)} compressed"
        )
    head = archive.read(2)
    if head != b"\x1f\x8b":
        kind = "a zip file" if head == b"PK" else "not gzip-compressed"
        raise UploadRefused(f"the upload is {kind}; send a .tar.gz (referee submit makes one)")
    os.mkdir(dest, 0o700)
    try:
        return _unpack(_Prefixed(head, archive), dest, limits, compressed_size)
    except BaseException:
        safepath.remove(dest, ignore_errors=True)
        raise


class _Prefixed:
    """``inner`` with ``head`` (already read from it) put back in front."""

    def __init__(self, head: bytes, inner: BinaryIO) -> None:
        self._head, self._inner = head, inner

    def read(self, size: int = -1) -> bytes:
        if self._head:
            if size < 0:
                data, self._head = self._head + self._inner.read(), b""
                return data
            data, self._head = self._head[:size], self._head[size:]
            if len(data) < size:
                data += self._inner.read(size - len(data))
            return data
        return self._inner.read(size)

    def readable(self) -> bool:
        return True


def _unpack(
    archive: _Prefixed, dest: pathlib.Path, limits: UnpackLimits, compressed_size: int
) -> UnpackResult:
    budget = limits.unpacked_budget(compressed_size)
    # Everything tarfile reads (headers, long names, pax records included) is counted, so
    # a header claiming gigabytes is refused before tarfile gathers it in memory.
    stream_cap = budget + _HEADER_SLACK * (limits.files + 16)
    too_big = (
        f"the archive unpacks to more than {_size(budget)} (the limit for an archive of "
        f"{_size(compressed_size)}: {limits.describe()}); is it a decompression bomb?"
    )
    raw = _Capped(archive, limits.compressed_bytes, "the archive is over the compressed limit")
    inflated = _Capped(gzip.GzipFile(fileobj=raw, mode="rb"), stream_cap, too_big)  # type: ignore[arg-type]
    files = folders = total = 0
    seen: set[str] = set()
    try:
        with tarfile.open(fileobj=inflated, mode="r|") as tar:  # type: ignore[call-overload]
            for member in tar:
                names = _member_name(member)
                _member_kind(member)
                if not names:  # the archive's own root folder ("./")
                    continue
                path = "/".join(names)
                if path in seen:
                    raise UploadRefused(f"{shown_name(path)}: appears twice in the archive")
                seen.add(path)
                if files + folders >= limits.files:
                    raise UploadRefused(
                        f"more than {limits.files} files and folders in the archive"
                    )
                if member.isdir():
                    safepath.ensure_folder(dest, path, replace=False)
                    folders += 1
                    continue
                if total + member.size > budget:
                    raise UploadRefused(f"{shown_name(path)}: {too_big}")
                source = tar.extractfile(member)
                assert source is not None  # a regular file
                _write(dest, names, source, executable=bool(member.mode & 0o111))
                total += member.size
                files += 1
    except UploadRefused:
        raise
    except safepath.UnsafePathError as error:
        raise UploadRefused(f"the archive's paths clash: {shown_name(error)}") from None
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as error:
        raise UploadRefused(f"the archive is damaged or not a tar.gz ({error})") from None
    except OSError as error:
        if isinstance(error.__context__, UploadRefused):
            raise error.__context__ from None
        raise UploadRefused(
            f"the archive could not be unpacked: {error.strerror or error}"
        ) from None
    if files == 0:
        raise UploadRefused("the archive holds no files")
    return UnpackResult(files=files, folders=folders, bytes=total)


def _write(dest: pathlib.Path, names: list[str], source: BinaryIO, *, executable: bool) -> None:
    """Write one file at ``dest/names`` through descriptors that never follow a link."""
    parent_path = "/".join(names[:-1]) or None
    with safepath.open_folder(dest, parent_path, create=True) as parent:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(names[-1], flags, 0o700 if executable else 0o600, dir_fd=parent)
        except FileExistsError:
            raise UploadRefused(
                f"{shown_name('/'.join(names))}: a folder and a file of the same name"
            ) from None
        with os.fdopen(fd, "wb") as out:
            while chunk := source.read(_CHUNK):
                out.write(chunk)
