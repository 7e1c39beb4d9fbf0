"""Reading a YAML file a person wrote (a tournament config, a ``bot.yaml``): any mistake is a message.

:func:`load_yaml` gives the data, or raises :class:`YamlFileError` whose
message names the file and, where YAML knows it, the line and column: text
that is not UTF-8, YAML that does not parse, a key given twice in one
mapping, a key that is a list or a mapping, nesting deeper than
:data:`MAX_DEPTH`, an integer of more than :data:`MAX_DIGITS` digits, or a
file larger than :data:`MAX_BYTES`.
"""

from __future__ import annotations

import os
import pathlib
import re
from typing import Any

import yaml

__all__ = ["MAX_BYTES", "MAX_DEPTH", "MAX_DIGITS", "YamlFileError", "load_yaml"]

#: The largest file read (a config of thousands of bots is far smaller).
MAX_BYTES = 16 * 1024**2
#: The deepest nesting of lists and mappings.
MAX_DEPTH = 64
#: The most digits of an integer (Python refuses to convert more than 4300).
MAX_DIGITS = 100


class YamlFileError(ValueError):
    """A YAML file that cannot be read; the message names the file, line and column."""


class _Loader(yaml.SafeLoader):
    """A safe loader that refuses a key given twice, unhashable keys and deep nesting."""

    def compose_node(self, parent: Any, index: Any) -> Any:  # type: ignore[override]
        depth = getattr(self, "_depth", 0)
        if depth >= MAX_DEPTH:
            mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
            raise yaml.composer.ComposerError(
                None, None, f"nested more than {MAX_DEPTH} levels deep", mark
            )
        self._depth = depth + 1
        try:
            return super().compose_node(parent, index)  # type: ignore[no-untyped-call]
        finally:
            self._depth = depth

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:  # type: ignore[override]
        if len(re.sub(r"[^0-9a-fA-F]", "", str(node.value))) > MAX_DIGITS:
            raise yaml.constructor.ConstructorError(
                None, None, f"an integer of more than {MAX_DIGITS} digits", node.start_mark
            )
        return super().construct_yaml_int(node)  # type: ignore[no-untyped-call,no-any-return]


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)  # type: ignore[no-untyped-call]
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, "a key must be a name, not a list or a mapping", key_node.start_mark
            ) from None
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"key {key!r} is given twice", key_node.start_mark
            )
        seen.add(key)
    loader.flatten_mapping(node)  # type: ignore[no-untyped-call]
    mapping: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)  # type: ignore[no-untyped-call]
        try:
            mapping[key] = loader.construct_object(value_node, deep=True)  # type: ignore[no-untyped-call]
        except TypeError:  # an unhashable key merged in with <<
            raise yaml.constructor.ConstructorError(
                None, None, "a key must be a name, not a list or a mapping", key_node.start_mark
            ) from None
    return mapping


_Loader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    _construct_mapping,  # type: ignore[arg-type]
)
_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)  # type: ignore[arg-type]


def load_yaml(path: str | os.PathLike[str]) -> Any:
    """The data of the YAML file at ``path`` (see the module docs for what is refused)."""
    path = pathlib.Path(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as error:
        raise YamlFileError(f"{path}: cannot read: {error.strerror}") from None
    if len(data) > MAX_BYTES:
        raise YamlFileError(f"{path}: larger than {MAX_BYTES // 1024**2} MB: not a YAML file?")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise YamlFileError(
            f"{path}: line {line}: not UTF-8 text (byte {data[error.start]:#04x}); "
            "save the file as UTF-8"
        ) from None
    try:
        return yaml.load(text, Loader=_Loader)  # a SafeLoader subclass
    except yaml.YAMLError as error:
        raise YamlFileError(f"{path}: not valid YAML: {_yaml_message(error)}") from None
    except RecursionError:
        raise YamlFileError(f"{path}: nested too deeply") from None
    except ValueError as error:  # what a constructor refuses (a date out of range, say)
        raise YamlFileError(f"{path}: not valid YAML: {error}") from None


def _yaml_message(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    if mark is not None:
        return f"line {mark.line + 1}, column {mark.column + 1}: {problem}"
    return str(problem)
