"""A hypothesis-driven fuzz of the command line's inputs: no traceback, no hang, no file changed.

Configs, bot manifests, game logs, journals, ``tournament.json`` and the
options of the commands, each mutated at random from a good one. Whatever
the input, the command ends with a message or a result (never a traceback),
within the test's timeout, says at most a screenful, and leaves every file it
was given as it was. The classes of bad input, one test each with the
expected message, are in ``test_bad_input.py``.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import pathlib
import shutil
from collections.abc import Iterator
from typing import Any
from unittest import mock

import click
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.bad_input import MINI, MOON_LOG, invoke, reseal, snapshot

pytestmark = pytest.mark.slow

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)
_COUNTER = itertools.count()

# Values a careless or hostile user may put anywhere.
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([0, -1, 10**30, 2**63, 10**400]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(
        ["random", "heuristic", "1e30", "²", "٣", "'", '"x', "{address}", "a:1", "x\x00y {address}"]
    ),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def _deep(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def _mutate_data(data: Any, draw: st.DrawFn) -> Any:
    """``data`` (JSON-like) with one value somewhere replaced, or a key added or removed."""
    if not isinstance(data, dict | list) or not data or draw(st.integers(0, 3)) == 0:
        return draw(st.one_of(_VALUES, st.sampled_from([_deep(200), _deep(3000)])))
    if isinstance(data, list):
        index = draw(st.integers(0, len(data) - 1))
        copy = list(data)
        copy[index] = _mutate_data(data[index], draw)
        return copy
    key = draw(st.sampled_from(sorted(data, key=str)))
    copy = dict(data)
    how = draw(st.integers(0, 5))
    if how == 0:
        del copy[key]
    elif how == 1:
        copy[draw(st.text(max_size=10))] = draw(_VALUES)
    else:
        copy[key] = _mutate_data(data[key], draw)
    return copy


def _mutate_bytes(data: bytes, draw: st.DrawFn) -> bytes:
    """``data`` damaged at the byte or line level."""
    lines = data.splitlines(keepends=True) or [b""]
    how = draw(st.integers(0, 7))
    i = draw(st.integers(0, len(lines) - 1))
    if how == 0:  # cut anywhere
        return data[: draw(st.integers(0, len(data)))]
    if how == 1:  # a line dropped
        return b"".join(lines[:i] + lines[i + 1 :])
    if how == 2:  # a line given twice
        return b"".join(lines[: i + 1] + lines[i:])
    if how == 3:  # two lines swapped
        j = draw(st.integers(0, len(lines) - 1))
        lines[i], lines[j] = lines[j], lines[i]
        return b"".join(lines)
    if how == 4:  # bytes changed
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        return data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at + 1 :]
    if how == 5:  # another encoding
        return data.decode("utf-8", "replace").encode(
            draw(st.sampled_from(["utf-16", "latin-1"])), "replace"
        )
    if how == 6:  # a huge line
        return b"".join(
            [*lines[:i], b'{"type":"play","x":"' + b"A" * 200_000 + b'"}\n', *lines[i:]]
        )
    return b"".join([*lines[:i], draw(st.binary(max_size=64)), *lines[i:]])


@st.composite
def damaged_log(draw: st.DrawFn) -> bytes:
    data = MOON_LOG.read_bytes()
    if draw(st.booleans()):
        return _mutate_bytes(data, draw)
    lines = data.decode("utf-8").splitlines()
    i = draw(st.integers(0, len(lines) - 1))
    record = json.loads(lines[i])
    try:
        lines[i] = json.dumps(_mutate_data(record, draw), allow_nan=True)
    except (RecursionError, ValueError):  # too deep to write: written by hand
        lines[i] = '{"type":"play","x":' + "[" * 3000 + "]" * 3000 + "}"
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


def _unique(tmp: pathlib.Path, name: str) -> pathlib.Path:
    path = tmp / f"{name}-{next(_COUNTER)}"
    path.mkdir()
    return path


@settings(FUZZ, max_examples=600)
@given(data=damaged_log(), seat=st.one_of(st.none(), st.text(max_size=4)))
def test_fuzz_game_logs(tmp_path: pathlib.Path, data: bytes, seat: str | None) -> None:
    where = _unique(tmp_path, "log")
    log = where / "game.jsonl"
    log.write_bytes(data)
    with snapshot(where):
        invoke(["replay", log])
        invoke(["verify", log])
        if seat is not None:
            invoke(["replay", log, "--seat", seat])
        invoke(["replay", log, "--html", log])
        invoke(["replay", log, "--html", where / "game.html"])


@pytest.fixture
def played(mini_tournament: pathlib.Path) -> pathlib.Path:
    """The session's small played tournament (tests/conftest.py); the tests copy it to change it."""
    return mini_tournament


#: What a folder fuzz damages, one test each, so that every kind is sure of its share: 14
#: examples each (70 in all, where 150 drawn at random gave each about 30: each example runs
#: six commands over a copied folder, and the 150 were most of this file's time in CI).
FOLDER_DAMAGE = ("journal", "journal-bytes", "state", "state-bytes", "key")


@settings(FUZZ, max_examples=14)
@pytest.mark.parametrize("what", FOLDER_DAMAGE)
@given(data=st.data())
def test_fuzz_tournament_folders(
    tmp_path: pathlib.Path, played: pathlib.Path, what: str, data: st.DataObject
) -> None:
    folder = _unique(tmp_path, "folder") / "out"
    shutil.copytree(played, folder)
    draw = data.draw
    journal = folder / "journal.jsonl"
    state = folder / "tournament.json"
    if what == "journal":
        entries = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
        i = draw(st.integers(0, len(entries) - 1))
        entries[i] = _mutate_data(entries[i], draw)
        if draw(st.booleans()) and all(isinstance(e, dict) for e in entries):
            with contextlib.suppress(ValueError, RecursionError):
                reseal(folder, entries)
        else:
            with contextlib.suppress(ValueError, RecursionError):
                journal.write_text(
                    "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in entries),
                    encoding="utf-8",
                )
    elif what == "journal-bytes":
        journal.write_bytes(_mutate_bytes(journal.read_bytes(), lambda s: draw(s)))
    elif what == "state":
        with contextlib.suppress(ValueError, RecursionError):
            state.write_text(json.dumps(_mutate_data(json.loads(state.read_text()), draw)))
    elif what == "state-bytes":
        state.write_bytes(_mutate_bytes(state.read_bytes(), lambda s: draw(s)))
    else:
        (folder / "key").write_bytes(draw(st.binary(max_size=80)))
    game = draw(st.sampled_from(["t1-d1-r1", "t1-d1-r9", "", "../key", "x" * 300]))
    with snapshot(folder):
        invoke(["standings", folder])
        invoke(["verify", folder])
        invoke(["verify", folder, "--no-key"])
        invoke(["replay", folder])
        invoke(["replay", folder, "--game", game])
        invoke(["gauntlet", folder])


@contextlib.contextmanager
def _no_play() -> Iterator[None]:
    """The tournament and gauntlet runners replaced: a config that passes its checks ends there."""

    def stop(*args: Any, **kwargs: Any) -> None:
        raise click.exceptions.Exit(0)

    with (
        mock.patch("referee.cli.tournament.Tournament", side_effect=stop),
        mock.patch("referee.cli.gauntlet.GauntletTournament", side_effect=stop),
    ):
        yield


_GOOD_CONFIG = yaml.safe_load(MINI)


@st.composite
def damaged_config(draw: st.DrawFn) -> bytes:
    how = draw(st.integers(0, 3))
    if how == 0:
        return _mutate_bytes(MINI.encode(), draw)
    if how == 1:
        return draw(st.text(max_size=200)).encode("utf-8", "surrogatepass")
    config = _mutate_data(_GOOD_CONFIG, draw)
    try:
        return yaml.safe_dump(config, allow_unicode=True).encode("utf-8", "surrogatepass")
    except (yaml.YAMLError, RecursionError, ValueError):
        return b"bots: " + b"[" * 3000


@settings(FUZZ, max_examples=150)
@given(config=damaged_config(), manifest=st.one_of(st.none(), damaged_config()))
def test_fuzz_configs_and_manifests(
    tmp_path: pathlib.Path, config: bytes, manifest: bytes | None
) -> None:
    where = _unique(tmp_path, "config")
    path = where / "t.yaml"
    if manifest is not None:  # a bot folder with a damaged bot.yaml, in a good config
        (where / "bot").mkdir()
        (where / "bot" / "bot.yaml").write_bytes(manifest)
        config = b"bots: {a: bot, b: random, c: random, d: random}\n"
    path.write_bytes(config)
    with snapshot(where), _no_play():
        invoke(["tournament", path, "--out", where / "out", "--quiet"])
        invoke(["gauntlet", path, "--out", where / "out", "--quiet"])


_OPTION_VALUES = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["0", "-1", "1e30", "nan", "inf", "1" + "0" * 40, "²", "٣", "N", "1.5"]),
)


@settings(FUZZ, max_examples=600)
@given(
    command=st.sampled_from(["replay", "standings", "verify", "match", "check-bot", "tournament"]),
    options=st.lists(
        st.tuples(
            st.sampled_from(
                [
                    "--seat",
                    "--hand",
                    "--game",
                    "--html",
                    "--ranking",
                    "--format",
                    "--key-file",
                    "--target",
                    "--move-time-ms",
                    "--time-bank-ms",
                    "--max-faults",
                    "--players",
                    "--startup-timeout-s",
                    "--seed",
                    "--moon",
                    "--tie-rule",
                    "-j",
                    "--out",
                ]
            ),
            _OPTION_VALUES,
        ),
        max_size=3,
    ),
)
def test_fuzz_options(
    tmp_path: pathlib.Path, played: pathlib.Path, command: str, options: list[tuple[str, str]]
) -> None:
    where = _unique(tmp_path, "options")
    log = where / "game.jsonl"
    shutil.copyfile(MOON_LOG, log)
    args: list[Any] = {
        "replay": ["replay", log],
        "standings": ["standings", played],
        "verify": ["verify", log],
        "match": ["match", "random", "random", "random"],
        "check-bot": ["check-bot", where / "no-such-bot"],
        "tournament": ["tournament", where / "no-such.yaml"],
    }[command]
    for option, value in options:
        if option in ("--html", "--out", "--key-file"):
            value = str(where / "x" / value.replace("/", "_").replace("\x00", "")) if value else ""
        args += [option, value]
    if command == "match":
        args += ["--out", where / "m"]
    with snapshot(where), snapshot(played), _no_play():
        invoke(args)
