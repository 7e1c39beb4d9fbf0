"""Naming bots (referee/players/specs.py): every kind of BOT, and the messages for what is none."""

from __future__ import annotations

import doctest
import pathlib

import pytest

from referee.players import specs
from referee.players.specs import BotSpecError, parse_bot, spec_folder, unique_names


def test_doctests() -> None:
    result = doctest.testmod(specs)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize(
    ("text", "kind", "name"),
    [
        ("random", "builtin", "random"),
        ("heuristic", "builtin", "heuristic"),
        ("localhost:50051", "address", "localhost:50051"),
        ("[::1]:50051", "address", "[::1]:50051"),
        ("python bots/my_bot.py --level 3 --address {address}", "command", "my_bot"),
        ("./serve --port {port}", "command", "serve"),
    ],
)
def test_each_kind_of_bot(text: str, kind: str, name: str) -> None:
    spec = parse_bot(text)
    assert (spec.kind, spec.name) == (kind, name)


def test_a_folder_is_its_manifest(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "bot.yaml").write_text(
        "name: mine\nbuild: make\nrun: ./bot --address {address}\n", encoding="utf-8"
    )
    spec = parse_bot("mine", base=tmp_path)
    assert (spec.name, spec.build, spec.command) == ("mine", "make", "./bot --address {address}")
    assert spec_folder(spec) == folder.resolve()
    assert parse_bot("mine", name="other", base=tmp_path).name == "other"


def test_a_folder_without_a_manifest_says_so(tmp_path: pathlib.Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(BotSpecError, match=r"empty: a bot folder needs a bot.yaml manifest"):
        parse_bot(str(tmp_path / "empty"))


def test_what_is_no_bot_says_what_a_bot_is() -> None:
    with pytest.raises(BotSpecError) as caught:
        parse_bot("rnadom")
    message = str(caught.value)
    assert "'rnadom' is not a bot" in message
    for expected in ("random", "host:port", "{address}", "bot.yaml"):
        assert expected in message
    with pytest.raises(BotSpecError, match="empty bot"):
        parse_bot("  ")
    with pytest.raises(BotSpecError, match="no closing quotation"):
        parse_bot("python 'bot.py --address {address}")


def test_a_path_from_the_working_directory_is_named(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder that exists from where the user stands, not from the config's folder."""
    (tmp_path / "bots" / "mine").mkdir(parents=True)
    config_dir = tmp_path / "configs"
    config_dir.mkdir()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BotSpecError) as caught:
        parse_bot("bots/mine", base=config_dir)
    message = str(caught.value)
    assert "relative to the config's folder" in message
    assert "write '../bots/mine'" in message


def test_repeated_bots_are_named_apart() -> None:
    names = [s.name for s in unique_names([parse_bot(t) for t in ("random", "heuristic") * 2])]
    assert names == ["random", "heuristic", "random#2", "heuristic#2"]
