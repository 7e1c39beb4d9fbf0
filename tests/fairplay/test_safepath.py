"""referee.sandbox.safepath: paths under a folder an untrusted party writes; no link is ever followed."""

from __future__ import annotations

import os
import pathlib

import pytest

from referee.sandbox import safepath
from referee.sandbox.safepath import UnsafePathError


@pytest.fixture
def victim(tmp_path: pathlib.Path) -> pathlib.Path:
    """An opponent's folder that a planted link points into."""
    folder = tmp_path / "opponent"
    folder.mkdir()
    (folder / "bot.py").write_text("print('honest')\n")
    return folder


@pytest.fixture
def home(tmp_path: pathlib.Path) -> pathlib.Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


def test_a_link_where_a_file_goes_is_replaced_not_followed(
    home: pathlib.Path, victim: pathlib.Path
) -> None:
    (home / ".gitconfig").symlink_to(victim / "bot.py")
    notes = safepath.ensure_file(home, ".gitconfig")
    assert notes == [".gitconfig: a symbolic link, replaced by a file"]
    assert (home / ".gitconfig").is_file() and not (home / ".gitconfig").is_symlink()
    assert (home / ".gitconfig").read_text() == ""
    assert (victim / "bot.py").read_text() == "print('honest')\n"


def test_a_link_on_the_way_is_replaced_by_a_folder_not_followed(
    home: pathlib.Path, victim: pathlib.Path
) -> None:
    (home / ".config").mkdir()
    (home / ".config" / "go").symlink_to(victim)
    notes = safepath.ensure_file(home, ".config/go/env")
    assert notes == [".config/go: a symbolic link, replaced by a folder"]
    assert (home / ".config" / "go" / "env").is_file()
    assert sorted(p.name for p in victim.iterdir()) == ["bot.py"]


def test_an_existing_file_or_folder_is_kept(home: pathlib.Path) -> None:
    (home / "tmp").mkdir()
    (home / "tmp" / "cache").write_text("kept")
    (home / ".npmrc").write_text("color=false\n")
    assert safepath.ensure_folder(home, "tmp") == []
    assert safepath.ensure_file(home, ".npmrc") == []
    assert (home / "tmp" / "cache").read_text() == "kept"
    assert (home / ".npmrc").read_text() == "color=false\n"


def test_without_replace_a_link_is_refused(home: pathlib.Path, victim: pathlib.Path) -> None:
    (home / "tmp").symlink_to(victim)
    with pytest.raises(UnsafePathError, match="tmp: a symbolic link, not a folder"):
        safepath.ensure_folder(home, "tmp", replace=False)
    with pytest.raises(UnsafePathError, match="tmp: a symbolic link, not a folder"):
        safepath.ensure_file(home, "tmp/x", replace=False)
    with (
        pytest.raises(UnsafePathError, match="tmp: a symbolic link"),
        safepath.open_folder(home, "tmp"),
    ):
        pass
    assert (home / "tmp").is_symlink() and not (victim / "x").exists()


def test_a_folder_where_a_file_goes_is_removed_with_what_it_holds_but_not_through_links(
    home: pathlib.Path, victim: pathlib.Path
) -> None:
    (home / ".npmrc").mkdir()
    (home / ".npmrc" / "inside").symlink_to(victim)
    assert safepath.ensure_file(home, ".npmrc") == [".npmrc: a folder, replaced by a file"]
    assert (home / ".npmrc").is_file()
    assert (victim / "bot.py").exists()


def test_remove_never_follows_a_link(home: pathlib.Path, victim: pathlib.Path) -> None:
    (home / "cache").mkdir()
    (home / "cache" / "to-victim").symlink_to(victim)
    (home / "cache" / "to-file").symlink_to(victim / "bot.py")
    (home / "link").symlink_to(victim)
    assert safepath.remove(home, "cache") is True
    assert safepath.remove(home, "link") is True  # the link goes, not what it points to
    assert safepath.remove(home, "missing/x") is False
    assert sorted(p.name for p in home.iterdir()) == []
    assert (victim / "bot.py").read_text() == "print('honest')\n"
    # A link on the way to what is to be removed is refused.
    (home / "via").symlink_to(victim)
    with pytest.raises(UnsafePathError):
        safepath.remove(home, "via/bot.py")
    assert (victim / "bot.py").exists()


def test_remove_of_the_root_itself_refuses_a_link(
    tmp_path: pathlib.Path, victim: pathlib.Path
) -> None:
    (tmp_path / "stage").symlink_to(victim)
    with pytest.raises(UnsafePathError, match="a symbolic link"):
        safepath.remove(tmp_path / "stage")
    assert (victim / "bot.py").exists()
    assert safepath.remove(victim) is True and not victim.exists()
    assert safepath.remove(victim) is False


def test_a_root_that_is_a_link_is_refused(tmp_path: pathlib.Path, victim: pathlib.Path) -> None:
    (tmp_path / "home").symlink_to(victim)
    with pytest.raises(UnsafePathError, match="a symbolic link, not a folder"):
        safepath.ensure_folder(tmp_path / "home", "tmp")
    assert not (victim / "tmp").exists()


@pytest.mark.parametrize("relative", ["../x", "a/../../x", "/etc/passwd", "", ".", "a\x00b"])
def test_paths_that_leave_the_folder_are_refused(home: pathlib.Path, relative: str) -> None:
    with pytest.raises(UnsafePathError):
        safepath.ensure_file(home, relative)
    assert os.listdir(home) == []


def test_a_staged_bot_folder_keeps_no_link_leading_out_of_it(
    tmp_path: pathlib.Path, victim: pathlib.Path
) -> None:
    """Ray packs a working directory following links: a staged folder keeps only inner files'."""
    pytest.importorskip("ray")
    from referee.players.specs import BotSpec
    from referee.tournament.ray_executor import stage_bot_folders

    bot = tmp_path / "bot"
    (bot / "data").mkdir(parents=True)
    (bot / "bot.py").write_text("print('bot')\n")
    (bot / "data" / "weights.bin").write_bytes(b"w")
    (bot / "weights").symlink_to("data/weights.bin")  # inside: kept
    (bot / "key").symlink_to(victim / "bot.py")  # a file outside
    (bot / "everything").symlink_to("/")  # a folder outside (Ray would pack the disk)
    (bot / "loop").symlink_to(".")  # a folder inside (Ray would recurse for ever)
    (bot / "dangling").symlink_to(tmp_path / "nothing")
    spec = BotSpec(name="b", command="{python} bot.py --address {address}", folder=str(bot))
    stage = tmp_path / "stage"
    staged = stage_bot_folders({"b": spec}, stage)
    copy = stage / staged["b"].folder  # type: ignore[operator]
    assert sorted(p.name for p in copy.iterdir()) == ["bot.py", "data", "weights"]
    assert (copy / "weights").read_bytes() == b"w"


@pytest.mark.parametrize("name", ["../../x", "a/b", ".hidden", "..", "", "x" * 100, "é"])
def test_a_free_text_name_becomes_one_component(name: str) -> None:
    safe = safepath.component(name)
    assert safepath.parts(safe) == [safe] and not safe.startswith(".")
    assert safe == safepath.component(name) and len(safe) <= 73
    assert safepath.component("go-starter") == "go-starter"
