"""Bot folders: a ``bot.yaml`` manifest makes a folder a submission.

::

    name: go-starter            # unique in a tournament
    version: 0.1.0
    author: Ada Lovelace
    language: Go
    build: ./build.sh           # optional; run with sh -c in the folder (sandboxed)
    run: ./bin/bot --address {address}  # {address} (or {socket}, {port}; {python}) filled in

Documented in docs/bots.md.
"""

from __future__ import annotations

import dataclasses
import difflib
import pathlib
import shlex
from typing import Any

from referee.yamlfile import YamlFileError, load_yaml

__all__ = ["MANIFEST_NAME", "Manifest", "ManifestError", "load_manifest"]

MANIFEST_NAME = "bot.yaml"
_REQUIRED = ("name", "run")
_OPTIONAL = ("version", "author", "language", "build", "description")


class ManifestError(ValueError):
    """A manifest that cannot be used; the message names the file and key."""


@dataclasses.dataclass(frozen=True, slots=True)
class Manifest:
    folder: pathlib.Path
    name: str
    run: str
    version: str = ""
    author: str = ""
    language: str = ""
    build: str | None = None
    description: str = ""

    @property
    def path(self) -> pathlib.Path:
        return self.folder / MANIFEST_NAME


def load_manifest(folder: str | pathlib.Path) -> Manifest:
    """Read and check ``folder/bot.yaml``."""
    folder = pathlib.Path(folder).resolve()
    path = folder / MANIFEST_NAME
    if not path.is_file():
        raise ManifestError(f"{path}: no {MANIFEST_NAME} in this folder")
    try:
        data: Any = load_yaml(path)  # not UTF-8, not YAML, a key twice, too deep: the line
    except YamlFileError as error:
        raise ManifestError(str(error)) from None
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: expected a mapping of keys (name, run, ...)")
    known = _REQUIRED + _OPTIONAL
    for key in data:
        if key not in known:
            close = difflib.get_close_matches(str(key), known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; known keys: {', '.join(known)}"
            raise ManifestError(f"{path}: unknown key {key!r}{hint}")
    for key in _REQUIRED:
        if key not in data:
            raise ManifestError(f"{path}: missing key {key!r}")
    values: dict[str, Any] = {}
    for key in known:
        if key in data and data[key] is not None:
            if not isinstance(data[key], str | int | float):
                raise ManifestError(f"{path}: key {key!r} must be a string")
            values[key] = str(data[key])
    if not any(p in values["run"] for p in ("{address}", "{socket}", "{port}")):
        raise ManifestError(
            f"{path}: key 'run' must contain {{address}} (where the bot serves; "
            f"or {{port}} for a bot run without a sandbox): {values['run']!r}"
        )
    for key in ("run", "build"):
        if key in values and "\x00" in values[key]:
            raise ManifestError(f"{path}: key {key!r} holds a NUL character")
        if key in values:
            try:
                shlex.split(values[key])
            except ValueError as error:  # No closing quotation, say
                raise ManifestError(
                    f"{path}: key {key!r}: {str(error).lower()}: {values[key]!r}"
                ) from None
    if not values["name"].strip():
        raise ManifestError(f"{path}: key 'name' must not be empty")
    return Manifest(folder=folder, **values)
