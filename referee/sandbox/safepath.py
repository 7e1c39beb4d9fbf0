"""Paths under a folder that an untrusted party writes, made and removed without following links.

A build writes its persistent home and its bot folder; a bot writes its
socket's folder. The referee, outside every sandbox and as the user, also
creates and removes paths there. Had it followed a symbolic link planted in
such a folder (``.gitconfig -> ../opponent/bot.py``), it would write or delete
wherever the link points. So every such path goes through this module (stdlib
only): each component below ``root`` is opened with ``O_NOFOLLOW`` relative
to its parent's file descriptor, and created, replaced or removed through
that descriptor, so that a link is never followed whatever the untrusted
party planted, and a component swapped for a link between two steps makes the
step fail rather than go elsewhere.

``root`` itself is trusted: the referee made it, and its parent is out of the
untrusted party's reach (it is refused if it is a link all the same).

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> (root / "tmp").symlink_to("/etc")
>>> ensure_folder(root, "tmp")
['tmp: a symbolic link, replaced by a folder']
>>> (root / "tmp").is_symlink(), (root / "tmp").is_dir()
(False, True)
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import stat
from collections.abc import Iterator

__all__ = [
    "UnsafePathError",
    "component",
    "ensure_file",
    "ensure_folder",
    "open_folder",
    "parts",
    "remove",
]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class UnsafePathError(OSError):
    """A path under an untrusted folder that the referee will not use (a link, a bad name)."""


def parts(relative: str | os.PathLike[str]) -> list[str]:
    """The components of ``relative``; refused if it is absolute or climbs (``..``)."""
    text = os.fspath(relative)
    if "\x00" in text or text.startswith("/"):
        raise UnsafePathError(f"{text!r}: not a relative path")
    names = [p for p in text.split("/") if p not in ("", ".")]
    if not names or ".." in names:
        raise UnsafePathError(f"{text!r}: not a path inside the folder")
    return names


def component(name: str) -> str:
    """``name`` (free text: a bot.yaml's name) as one safe path component, the same for the same name.

    Letters, digits and ``_.+-`` are kept (at most 64, no leading dot); a name
    that needed changing gets a short hash of itself, so that two names never
    share a file.

    >>> component("go-starter"), component("../../etc/passwd")
    ('go-starter', '_.._etc_passwd-3754d6cb')
    """
    safe = re.sub(r"[^A-Za-z0-9_.+\-]", "_", name)[:64].lstrip(".") or "_"
    if safe != name:
        safe += "-" + hashlib.sha256(name.encode()).hexdigest()[:8]
    return safe


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISREG(mode):
        return "a file"
    return "a special file"


def _lstat(name: str, parent: int) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _remove_entry(name: str, parent: int, mode: int, *, ignore_errors: bool = False) -> None:
    """Remove ``name`` in the folder ``parent``: a folder with all it holds, else the entry."""
    if stat.S_ISDIR(mode):
        # rmtree with dir_fd works through descriptors and never follows a link (Linux).
        shutil.rmtree(name, dir_fd=parent, ignore_errors=ignore_errors)
    else:
        os.unlink(name, dir_fd=parent)


def _open_root(root: str | os.PathLike[str]) -> int:
    try:
        return os.open(root, _DIR_FLAGS)
    except OSError as error:
        if os.path.islink(root):
            raise UnsafePathError(f"{os.fspath(root)}: a symbolic link, not a folder") from None
        raise error


def _step(
    parent: int, name: str, shown: str, *, create: bool, replace: bool, notes: list[str]
) -> int:
    """Open the folder ``name`` of ``parent`` (made, or what stands there replaced, if asked)."""
    info = _lstat(name, parent)
    if info is not None and not stat.S_ISDIR(info.st_mode):
        if not replace:
            raise UnsafePathError(f"{shown}: {_kind(info.st_mode)}, not a folder")
        _remove_entry(name, parent, info.st_mode)
        notes.append(f"{shown}: {_kind(info.st_mode)}, replaced by a folder")
        info = None
    if info is None:
        if not create:
            raise FileNotFoundError(2, "no such folder", shown)
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o700, dir_fd=parent)
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except OSError as error:  # swapped for a link (ELOOP) or a file since we looked
        raise UnsafePathError(f"{shown}: changed while the referee made it ({error})") from None


@contextlib.contextmanager
def open_folder(
    root: str | os.PathLike[str],
    relative: str | os.PathLike[str] | None = None,
    *,
    create: bool = False,
    replace: bool = False,
    notes: list[str] | None = None,
) -> Iterator[int]:
    """A descriptor of the folder ``root/relative``, reached without following any link.

    ``create`` makes missing folders; ``replace`` also removes whatever else
    stands in the way (a link, a file) and makes a folder there, saying so in
    ``notes``; otherwise a link or a file on the way is an
    :class:`UnsafePathError`. The descriptor is closed on leaving.
    """
    notes = [] if notes is None else notes
    fd = _open_root(root)
    try:
        done: list[str] = []
        for name in parts(relative) if relative is not None else []:
            done.append(name)
            child = _step(fd, name, "/".join(done), create=create, replace=replace, notes=notes)
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def ensure_folder(
    root: str | os.PathLike[str], relative: str | os.PathLike[str], *, replace: bool = True
) -> list[str]:
    """Make the folder ``root/relative`` and its parents; return what had to be replaced.

    With ``replace`` (the default) a link or file standing where a folder
    belongs is removed (never followed) and a folder made in its place;
    without, it is an :class:`UnsafePathError`.
    """
    notes: list[str] = []
    with open_folder(root, relative, create=True, replace=replace, notes=notes):
        pass
    return notes


def ensure_file(
    root: str | os.PathLike[str], relative: str | os.PathLike[str], *, replace: bool = True
) -> list[str]:
    """Make ``root/relative`` a regular file (empty if new); return what had to be replaced.

    An existing regular file is kept as it is. Anything else there (a link, a
    folder) is removed first with ``replace``, else an :class:`UnsafePathError`.
    """
    names = parts(relative)
    notes: list[str] = []
    parent_path = "/".join(names[:-1]) or None
    with open_folder(root, parent_path, create=True, replace=replace, notes=notes) as parent:
        name, shown = names[-1], "/".join(names)
        info = _lstat(name, parent)
        if info is not None and stat.S_ISREG(info.st_mode):
            return notes
        if info is not None:
            if not replace:
                raise UnsafePathError(f"{shown}: {_kind(info.st_mode)}, not a file")
            _remove_entry(name, parent, info.st_mode)
            notes.append(f"{shown}: {_kind(info.st_mode)}, replaced by a file")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            os.close(os.open(name, flags, 0o600, dir_fd=parent))
        except FileExistsError:  # made since we looked: a link or a file; never followed
            raise UnsafePathError(f"{shown}: changed while the referee made it") from None
    return notes


def remove(
    root: str | os.PathLike[str],
    relative: str | os.PathLike[str] | None = None,
    *,
    ignore_errors: bool = False,
) -> bool:
    """Remove ``root/relative`` (a file, a link, or a folder with all it holds) without following links.

    With no ``relative``, ``root`` itself (refused if it is a link). False if
    there was nothing to remove; a link on the way to it is an
    :class:`UnsafePathError`. With ``ignore_errors``, what cannot be removed
    inside a folder (an unreadable subfolder) is left and the rest removed.
    """
    if relative is None:
        path = os.path.abspath(os.fspath(root))
        parent_path, name = os.path.split(path)
        if not name:
            raise UnsafePathError(f"{path}: not a folder the referee may remove")
        with open_folder(parent_path) as parent:
            info = _lstat(name, parent)
            if info is None:
                return False
            if stat.S_ISLNK(info.st_mode):
                raise UnsafePathError(f"{path}: a symbolic link, not a folder")
            _remove_entry(name, parent, info.st_mode, ignore_errors=ignore_errors)
            return True
    names = parts(relative)
    try:
        with open_folder(root, "/".join(names[:-1]) or None) as parent:
            info = _lstat(names[-1], parent)
            if info is None:
                return False
            _remove_entry(names[-1], parent, info.st_mode, ignore_errors=ignore_errors)
            return True
    except FileNotFoundError:
        return False
