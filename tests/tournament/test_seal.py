"""The tournament key and the MACs (referee/folder/seal.py)."""

from __future__ import annotations

import doctest
import os
import pathlib
import stat

import pytest

from referee import schedule
from referee.folder import seal

KEY = bytes(range(32))


@pytest.mark.parametrize("module", [seal, schedule])
def test_doctests(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.attempted and not result.failed


def test_create_key_is_private_atomic_and_never_replaces(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "key"
    key = seal.create_key(path)
    assert len(key) == 32 and seal.load_key(path) == key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text() == key.hex() + "\n"
    assert seal.create_key(path) == key  # an existing key wins
    assert seal.create_key(path, KEY) == key
    assert [p.name for p in tmp_path.iterdir()] == ["key"]  # no temporary file left


@pytest.mark.parametrize(
    ("content", "mode", "message"),
    [
        (KEY.hex() + "\n", 0o640, "the key file has mode 0640, so others may read it"),
        ("abc\n", 0o600, "not a tournament key: expected 64 lowercase hex digits"),
        (KEY.hex().upper(), 0o600, "not a tournament key"),
        (KEY.hex() + "00\n", 0o600, "not a tournament key"),
    ],
)
def test_bad_key_files(tmp_path: pathlib.Path, content: str, mode: int, message: str) -> None:
    path = tmp_path / "key"
    path.write_text(content)
    path.chmod(mode)
    with pytest.raises(seal.SealError) as error:
        seal.load_key(path)
    assert str(error.value).startswith(f"{path}: {message}")
    assert error.value.path == str(path) and error.value.reason.startswith(message)


def test_missing_and_odd_key_files(tmp_path: pathlib.Path) -> None:
    assert seal.folder_key(tmp_path) is None
    with pytest.raises(seal.SealError, match="no such key file"):
        seal.load_key(tmp_path / "key")
    (tmp_path / "key").mkdir()
    os.chmod(tmp_path / "key", 0o700)
    with pytest.raises(seal.SealError, match="not a regular file"):
        seal.folder_key(tmp_path)


def test_game_seeds_are_unambiguous_and_keyed() -> None:
    seeds = {
        seal.game_seed(KEY, s, table=t, deal_set=d)
        for s in (1, 12, "1", 123)
        for t in (1, 2, 3, 23)
        for d in (1, 2, 31)
    }
    # "1" and 1 are the same seed; (1, 23) and (12, 3) are not the same place.
    assert len(seeds) == 3 * 4 * 3
    assert seal.game_seed(bytes(32), 1, table=1, deal_set=1) != seal.game_seed(
        KEY, 1, table=1, deal_set=1
    )


def test_the_chain_of_line_macs() -> None:
    first = seal.seal_line(KEY, "", b'{"type":"journal"}')
    second = seal.seal_line(KEY, seal.line_mac(first) or "", b'{"type":"run","run":1}')
    assert first.endswith(b'"}\n') and b',"mac":"' in first
    mac1 = seal.check_line(KEY, "", first)
    assert seal.check_line(KEY, mac1, second) == seal.line_mac(second)
    changed = second.replace(b'"run":1', b'"run":2')
    for previous, line in [
        (mac1, changed),  # a changed line
        ("", second),  # the line before removed
        (mac1, first),  # a line repeated
    ]:
        with pytest.raises(seal.SealError, match="the MAC does not match"):
            seal.check_line(KEY, previous, line)
    with pytest.raises(seal.SealError, match="no MAC"):
        seal.check_line(KEY, "", b'{"type":"journal"}\n')
    with pytest.raises(seal.SealError):
        seal.check_line(bytes(32), "", first)  # another key
    assert seal.log_mac(KEY, b"x") != seal.log_mac(bytes(32), b"x")
    assert seal.key_id(KEY) != seal.key_id(bytes(32)) and len(seal.key_id(KEY)) == 16
