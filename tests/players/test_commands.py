"""Command templating of launched bots: ``expand_command`` and ``command_folder``.

A command bot's run line comes from the organiser's config; the referee fills
in where the bot serves and decides from it which folder a sandboxed bot may
see. Both are pure functions, tested here on their public behaviour: no
shell ever interprets the line, a filled-in value is one argument whatever it
holds, and the folder is that of the script the command runs, never the
referee's Python's.
"""

from __future__ import annotations

import os
import pathlib
import sys

import pytest

from referee.players.commands import command_folder, expand_command


def test_placeholders_are_filled_in() -> None:
    args = expand_command("{python} bot.py --port {port}", 5001)
    assert args == [sys.executable, "bot.py", "--port", "5001"]
    args = expand_command("./bot --address {address} --socket {socket}", socket_path="/r/s.sock")
    assert args == ["./bot", "--address", "unix:/r/s.sock", "--socket", "/r/s.sock"]


def test_a_value_with_spaces_stays_one_argument() -> None:
    # Split first, filled in after: a socket path with a space cannot add arguments.
    args = expand_command("bot --address {address}", socket_path="/tmp/a b/--evil s")
    assert args == ["bot", "--address", "unix:/tmp/a b/--evil s"]


def test_no_shell_interprets_the_line() -> None:
    line = "bot.py 'two words' \"$(id)\" `id` ; rm -rf x | cat > out && {port}"
    assert expand_command(line, 7) == [
        "bot.py",
        "two words",
        "$(id)",
        "`id`",
        ";",
        "rm",
        "-rf",
        "x",
        "|",
        "cat",
        ">",
        "out",
        "&&",
        "7",
    ]


def test_a_placeholder_without_a_value_and_unknown_ones_are_left_as_written() -> None:
    assert expand_command("bot {port} {address} {home} {PORT}") == [
        "bot",
        "{port}",
        "{address}",
        "{home}",
        "{PORT}",
    ]


def test_an_argument_list_is_not_split_again() -> None:
    args = expand_command(["my bot", "--port", "{port}", "a;b"], 9)
    assert args == ["my bot", "--port", "9", "a;b"]


@pytest.mark.parametrize("inside", ["{python}", "{port}", "{address}", "{socket}"])
def test_a_filled_in_value_is_not_filled_in_again(inside: str) -> None:
    # The referee's own socket path could hold braces (a TMPDIR's); whichever placeholder
    # they spell, filled in before or after the one that holds them, they stay as they are.
    socket = f"/s/{inside}/b.sock"
    args = expand_command("bot {address} {socket} {port}", 3, socket_path=socket)
    assert args == ["bot", f"unix:{socket}", socket, "3"]


def test_the_pythons_path_is_not_filled_in_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "executable", "/opt/{socket}/python")
    args = expand_command("{python} bot.py {socket}", socket_path="/r/s")
    assert args == ["/opt/{socket}/python", "bot.py", "/r/s"]


def test_the_folder_is_that_of_the_script_run(tmp_path: pathlib.Path) -> None:
    (tmp_path / "bots" / "mine").mkdir(parents=True)
    (tmp_path / "bots" / "mine" / "bot.py").write_text("")
    args = [sys.executable, "-u", "bots/mine/bot.py", "--port", "1"]
    assert command_folder(args, tmp_path) == (tmp_path / "bots" / "mine").resolve()
    # The first argument naming a file decides; options, folders and missing files do not.
    (tmp_path / "other.py").write_text("")
    args = ["-m", "bots", "missing.py", "bots/mine/bot.py", "other.py"]
    assert command_folder(args, tmp_path) == (tmp_path / "bots" / "mine").resolve()
    assert command_folder(["/nonexistent/bot", "--x"], tmp_path) == tmp_path.resolve()


def test_the_referees_python_is_never_the_folder(tmp_path: pathlib.Path) -> None:
    # Else a sandboxed bot run as `{python} ...` would see the folder of the interpreter.
    for python in {sys.executable, os.path.realpath(sys.executable)}:
        assert command_folder([python], tmp_path) == tmp_path.resolve()
        assert command_folder([python, "-c", "pass"], tmp_path) == tmp_path.resolve()


def test_an_absolute_program_gives_its_own_folder(tmp_path: pathlib.Path) -> None:
    program = tmp_path / "bin" / "bot"
    program.parent.mkdir()
    program.write_text("")
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    assert command_folder([str(program), "--address", "x"], elsewhere) == program.parent.resolve()


def test_without_cwd_it_is_relative_to_the_working_directory(
    tmp_path: pathlib.Path, monkeypatch
) -> None:
    (tmp_path / "bot.py").write_text("")
    monkeypatch.chdir(tmp_path)
    assert command_folder(["bot.py"], None) == tmp_path.resolve()
    assert command_folder(["nothing-here"], None) == tmp_path.resolve()
