"""``referee new-bot`` and ``referee proto``: a starter kit, or the protocol, written into a folder.

The kits are the sample bots of the repository, nothing else: ``new-bot go
DIR`` writes the files of ``sample_bots/go`` that are not build products (as
its ``.gitignore`` says), with the kit's name (``go-starter``) replaced by the
bot's. In a source checkout (an editable install) they are read from
``sample_bots/`` and ``proto/`` beside the package; a wheel carries them as
package data under ``referee/_kits/`` in the same layout, copied there at
build time by ``setup.py`` with :func:`package_kits`, the same filter. So the
kits and what ``new-bot`` writes cannot drift, and no file is kept twice in
the repository.

Standard library only: ``setup.py`` runs this module by path at build time.
"""

from __future__ import annotations

import fnmatch
import os
import pathlib
import re
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from typing import NamedTuple

__all__ = [
    "KIT_FOLDERS",
    "LANGUAGES",
    "PROTO",
    "ScaffoldError",
    "bot_name",
    "kit_files",
    "new_bot",
    "package_kits",
    "write_proto",
]

#: The protocol, relative to the repository root, to the packaged data and to every kit.
PROTO = pathlib.PurePosixPath("proto/hearts/v1/hearts.proto")
#: Each language's kit, relative to the repository root (and to the packaged data).
KIT_FOLDERS: dict[str, str] = {
    "python": "sample_bots/python/starter",
    "go": "sample_bots/go",
    "rust": "sample_bots/rust",
    "java": "sample_bots/java",
    "cpp": "sample_bots/cpp",
    "node": "sample_bots/node",
}
LANGUAGES = tuple(KIT_FOLDERS)
#: Where a wheel keeps the kits and the proto (the same layout as the repository).
PACKAGED = "_kits"

_NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
_NAME_MAX = 64
#: Names a language's tools refuse: Cargo keeps its own folders in target/debug
#: under these, so it will not name a binary so.
_RESERVED = {"rust": frozenset({"build", "deps", "examples", "incremental"})}


class ScaffoldError(ValueError):
    """A kit or a proto that cannot be written; the message names the language, folder or name."""


# Where the kits are -----------------------------------------------------------------------------


def _data_root() -> pathlib.Path:
    """The folder that holds ``proto/`` and ``sample_bots/``: the wheel's data or the checkout."""
    package = pathlib.Path(__file__).resolve().parent.parent  # the referee package
    for root in (package / PACKAGED, package.parent):
        if (root / PROTO).is_file() and (root / "sample_bots").is_dir():
            return root
    raise ScaffoldError(
        f"the starter kits are not installed with this referee (neither {package / PACKAGED} "
        f"nor a source checkout around {package}); reinstall it with `pip install` from the "
        "repository"
    )


def kit_folder(language: str, root: pathlib.Path | None = None) -> pathlib.Path:
    """The folder of a language's kit."""
    if language not in KIT_FOLDERS:
        raise ScaffoldError(f"unknown language {language!r}: choose one of {', '.join(LANGUAGES)}")
    return (root or _data_root()) / KIT_FOLDERS[language]


# Which files are the kit: all but what its .gitignore ignores ----------------------------------


class _Pattern(NamedTuple):
    glob: str
    anchored: bool
    directory_only: bool


def _ignore_patterns(folder: pathlib.Path) -> list[_Pattern]:
    """The patterns of ``folder/.gitignore``, with ``.git`` itself.

    The kits' ignore files use the plain forms of gitignore (``/bin/``,
    ``target/``, ``*.class``, ``src/generated/``); a negation (``!``) is
    refused rather than misread.
    """
    patterns = [_Pattern(".git", anchored=False, directory_only=False)]
    path = folder / ".gitignore"
    if not path.is_file():
        return patterns
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("!"):
            raise ScaffoldError(f"{path}:{number}: negated patterns are not supported: {line!r}")
        directory_only = line.endswith("/")
        line = line.rstrip("/")
        anchored = "/" in line  # a slash at the start or in the middle anchors it (gitignore)
        patterns.append(_Pattern(line.lstrip("/"), anchored, directory_only))
    return patterns


def _ignored(relative: pathlib.PurePosixPath, is_dir: bool, patterns: list[_Pattern]) -> bool:
    for pattern in patterns:
        if pattern.directory_only and not is_dir:
            continue
        if pattern.anchored:
            if fnmatch.fnmatchcase(str(relative), pattern.glob):
                return True
        elif fnmatch.fnmatchcase(relative.name, pattern.glob):
            return True
    return False


def kit_files(folder: pathlib.Path) -> list[pathlib.PurePosixPath]:
    """The files of a kit, relative to its folder, sorted: everything its .gitignore keeps.

    Build products (``target/``, ``node_modules/``, ``build/``, ...) and
    generated code that is not committed are what each kit's ``.gitignore``
    names; a test checks that the result is exactly the kit's files in git.
    """
    patterns = _ignore_patterns(folder)
    found: list[pathlib.PurePosixPath] = []

    def walk(directory: pathlib.Path) -> Iterator[pathlib.Path]:
        for entry in sorted(directory.iterdir()):
            relative = pathlib.PurePosixPath(entry.relative_to(folder).as_posix())
            is_dir = entry.is_dir() and not entry.is_symlink()
            if _ignored(relative, is_dir, patterns):
                continue
            if is_dir:
                yield from walk(entry)
            elif entry.is_file():
                yield entry

    for path in walk(folder):
        found.append(pathlib.PurePosixPath(path.relative_to(folder).as_posix()))
    return found


# Names ------------------------------------------------------------------------------------------


def kit_name(language: str) -> str:
    """The name a kit carries (``go-starter``), in its bot.yaml and wherever else it appears."""
    return f"{language}-starter"


def check_name(name: str) -> str:
    """``name`` if it can be a bot's name in every kit's files, else a :class:`ScaffoldError`.

    Lowercase letters, digits and single hyphens, starting with a letter: a
    valid Cargo crate, npm package and Maven artifact name, and a file name.
    """
    if len(name) > _NAME_MAX or not _NAME.match(name):
        raise ScaffoldError(
            f"the bot name {name!r} cannot be used: a bot name is lowercase letters, digits and "
            f"single hyphens, starting with a letter, at most {_NAME_MAX} characters "
            "(for example my-bot)"
        )
    return name


def bot_name(folder: str | os.PathLike[str]) -> str:
    """The default name of a bot written into ``folder``: its name, lowercased, as a valid name."""
    base = pathlib.Path(os.path.abspath(folder)).name
    name = re.sub(r"[^a-z0-9]+", "-", base.lower()).strip("-")[:_NAME_MAX].strip("-")
    if not _NAME.match(name):
        raise ScaffoldError(
            f"no bot name can be made from the folder name {base!r}; give one with --name "
            "(lowercase letters, digits and hyphens, starting with a letter)"
        )
    return name


# Writing ----------------------------------------------------------------------------------------


def _check_destination(dest: pathlib.Path) -> None:
    if dest.exists() or dest.is_symlink():
        if not dest.is_dir():
            raise ScaffoldError(f"{dest} exists and is not a folder: choose a new folder")
        if any(dest.iterdir()):
            raise ScaffoldError(
                f"{dest} exists and is not empty: choose a new or empty folder "
                "(new-bot never writes over files)"
            )


#: The author the kits name (in bot.yaml and the handshake), replaced by the user's.
KIT_AUTHOR = "Hearts referee authors"
#: What stands in for the author when none is given and git knows of none.
AUTHOR_PLACEHOLDER = "your name"
#: The most characters of an author.
AUTHOR_CHARS = 64
#: Characters an author may not have: it goes into string literals of six languages
#: (single- and double-quoted) and a plain YAML scalar.
_AUTHOR_REFUSED = frozenset("\"'\\`#:{}[]$%&*|<>")


def author_problem(author: str) -> str | None:
    """Why ``author`` cannot go into a kit's files, or None.

    >>> author_problem("Ada Lovelace") is None
    True
    >>> print(author_problem("Ada: the first"))
    the author 'Ada: the first' has ':', which the kits' source files cannot hold: use letters, digits, spaces and . , - _ @ ( ) +
    """
    if not author.strip():
        return "the author is empty"
    if len(author) > AUTHOR_CHARS:
        return f"the author has {len(author)} characters; at most {AUTHOR_CHARS}"
    for char in author:
        if char in _AUTHOR_REFUSED or not char.isprintable():
            return (
                f"the author {author!r} has {char!r}, which the kits' source files cannot "
                "hold: use letters, digits, spaces and . , - _ @ ( ) +"
            )
    return None


def default_author() -> str:
    """git's ``user.name`` where it is set and fits (:func:`author_problem`), else a placeholder."""
    try:
        run = subprocess.run(
            ["git", "config", "user.name"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return AUTHOR_PLACEHOLDER
    name = run.stdout.strip()
    if run.returncode != 0 or author_problem(name) is not None:
        return AUTHOR_PLACEHOLDER
    return name


def _copy(
    source: pathlib.Path, target: pathlib.Path, replacements: Sequence[tuple[str, str]]
) -> None:
    data = source.read_bytes()
    wanted = [(old, new) for old, new in replacements if old and new and old != new]
    if wanted:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            pass  # not text: copied as it is
        else:
            for old, new in wanted:
                text = text.replace(old, new)
            data = text.encode("utf-8")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    executable = os.stat(source).st_mode & 0o100
    target.chmod(0o755 if executable else 0o644)


def new_bot(
    language: str,
    dest: str | os.PathLike[str],
    *,
    name: str | None = None,
    author: str | None = None,
) -> tuple[str, list[pathlib.PurePosixPath]]:
    """Write the ``language`` kit into ``dest`` (new or empty) as the bot ``name`` by ``author``.

    ``name`` defaults to the folder's name (:func:`bot_name`); it replaces the
    kit's own name (``go-starter``) in every text file, and ``author``
    (default :data:`AUTHOR_PLACEHOLDER`) the kit's author. Returns the name
    and the files written, relative to ``dest``.
    """
    author = AUTHOR_PLACEHOLDER if author is None else author
    if (problem := author_problem(author)) is not None:
        raise ScaffoldError(problem)
    dest = pathlib.Path(dest)
    folder = kit_folder(language)
    name = check_name(name) if name is not None else bot_name(dest)
    if name in _RESERVED.get(language, ()):
        raise ScaffoldError(
            f"the bot name {name!r} cannot be used for a {language} bot: its build tools "
            "keep a folder of their own under that name; choose another with --name"
        )
    _check_destination(dest)
    files = kit_files(folder)
    dest.mkdir(parents=True, exist_ok=True)
    for relative in files:
        _copy(
            folder / relative, dest / relative, [(kit_name(language), name), (KIT_AUTHOR, author)]
        )
    return name, files


def write_proto(dest: str | os.PathLike[str]) -> pathlib.Path:
    """Write the protocol to ``dest/hearts/v1/hearts.proto`` (the path its imports expect).

    An existing file is replaced only when it is identical (nothing to do);
    otherwise it is refused.
    """
    dest = pathlib.Path(dest)
    source = _data_root() / PROTO
    target = dest / PROTO.relative_to("proto")
    data = source.read_bytes()
    if target.exists() or target.is_symlink():
        if target.is_file() and target.read_bytes() == data:
            return target
        raise ScaffoldError(
            f"{target} exists and differs from this referee's protocol: remove it first "
            "(referee proto never writes over a file)"
        )
    if dest.exists() and not dest.is_dir():
        raise ScaffoldError(f"{dest} exists and is not a folder")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return target


# Packaging --------------------------------------------------------------------------------------


def package_kits(repository: pathlib.Path, target: pathlib.Path) -> list[pathlib.Path]:
    """Copy the proto and every kit's files from ``repository`` into ``target`` (a wheel's data).

    Used by ``setup.py``; the layout is the repository's, so that
    :func:`_data_root` reads either the same way. Returns the files written.
    """
    written = []
    shutil.rmtree(target, ignore_errors=True)
    pairs = [(repository / PROTO, target / PROTO)]
    for relative in KIT_FOLDERS.values():
        folder = repository / relative
        pairs += [(folder / f, target / relative / f) for f in kit_files(folder)]
    for source, dest in pairs:
        _copy(source, dest, [])
        written.append(dest)
    return written
