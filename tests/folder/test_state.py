"""tournament.json and the folder's key from its creation on (referee.folder.state), and the
layout's names (referee.folder.layout)."""

from __future__ import annotations

import pathlib

import pytest

from referee.folder import (
    Layout,
    MatchLayout,
    TournamentError,
    TournamentState,
    given_key,
    new_folder_key,
    resumed_folder_key,
    seal,
)
from referee.folder.entries import RunEntry

KEY = bytes(range(32))
OTHER = bytes(range(1, 33))


def _state(**changes: object) -> TournamentState:
    values: dict = {"name": "t", "config_hash": "ab", "config": {}, "seed": 1}
    values.update(changes)
    return TournamentState(**values)


def _key_file(path: pathlib.Path, key: bytes) -> pathlib.Path:
    path.write_text(key.hex() + "\n")
    path.chmod(0o600)
    return path


def test_a_new_folder_gets_a_key_or_the_one_given(tmp_path: pathlib.Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()  # the runner makes the folder first
    made = new_folder_key(Layout(tmp_path / "a"), None)
    assert seal.folder_key(tmp_path / "a") == made and len(made) == seal.KEY_BYTES
    given = new_folder_key(Layout(tmp_path / "b"), KEY)
    assert given == KEY == seal.folder_key(tmp_path / "b")


def test_a_folder_keeps_its_key(tmp_path: pathlib.Path) -> None:
    layout = Layout(tmp_path)
    new_folder_key(layout, KEY)
    with pytest.raises(TournamentError, match="already has a different key"):
        new_folder_key(layout, OTHER, tmp_path / "other.key")


def test_a_resumed_folder_needs_its_own_key(tmp_path: pathlib.Path) -> None:
    layout = Layout(tmp_path)
    state = _state(key_id=seal.key_id(KEY))
    with pytest.raises(TournamentError, match="the tournament's key is missing"):
        resumed_folder_key(layout, state, None)
    with pytest.raises(TournamentError, match="not this tournament's key"):
        resumed_folder_key(layout, state, OTHER, tmp_path / "other.key")
    assert resumed_folder_key(layout, state, KEY) == KEY  # given back: put in place again
    assert seal.folder_key(tmp_path) == KEY
    with pytest.raises(TournamentError, match="an older referee, made without a key"):
        resumed_folder_key(layout, _state(), None)


def test_a_bad_key_file_is_named(tmp_path: pathlib.Path) -> None:
    assert given_key(None) is None
    assert given_key(_key_file(tmp_path / "k", KEY)) == KEY
    (tmp_path / "bad").write_text("not hex\n")
    (tmp_path / "bad").chmod(0o600)
    with pytest.raises(TournamentError, match=r"--key-file: .*bad"):
        given_key(tmp_path / "bad")


def test_the_state_is_sealed_and_repeats_what_run_entries_seal(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "tournament.json"
    state = _state(participants=["a", "b", "c"])
    state.save(path, key=KEY)
    loaded = TournamentState.load(path)
    assert loaded == state and loaded.seal_problem(KEY) is None
    assert "does not match" in (loaded.seal_problem(OTHER) or "")
    assert tuple(state.sealed_facts()) == RunEntry.SEALED_FACTS


def test_a_bad_state_names_its_key(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "tournament.json"
    path.write_text('{"format": "hearts-referee/tournament", "version": 3, "name": "t"}')
    with pytest.raises(TournamentError, match="config_hash: missing"):
        TournamentState.load(path)


def test_the_match_folder_names(tmp_path: pathlib.Path) -> None:
    folder = MatchLayout(tmp_path)
    assert folder.game_log == tmp_path / "game.jsonl"
    assert (folder.games, folder.builds, folder.bots) == (
        Layout(tmp_path).games,
        Layout(tmp_path).builds,
        Layout(tmp_path).bots,
    )
    assert not folder.holds_tournament()
    Layout(tmp_path).journal.write_text("")
    assert folder.holds_tournament()


def test_a_file_where_a_folder_goes_is_refused(tmp_path: pathlib.Path) -> None:
    (tmp_path / "games").write_text("")
    with pytest.raises(TournamentError, match=r"is a file, not a folder \(its games folder\)"):
        Layout(tmp_path).check()
