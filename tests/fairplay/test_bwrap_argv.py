"""The bubblewrap command lines of referee.sandbox.bwrap, read option by option (no bwrap is run).

``bot_command`` and ``build_command`` are the one statement of what a
sandboxed bot and a sandboxed build can see. The attacks of test_attacks.py
prove the sandbox from inside; these tests hold the argv itself to its
promises, on any machine (bwrap's path is faked): every namespace unshared,
the network above all; nothing writable but the socket folder (a bot) or the
bot's folder and build home (a build); the folders to hide covered after the
binds they lie in; the root remounted read-only; an environment that is
exactly what was given.
"""

from __future__ import annotations

import pathlib
import sys

import pytest

from referee.sandbox import bwrap

#: How many operands each bwrap option takes (an option not listed fails the parse: a new
#: option must be looked at here before it ships).
ARITY = {
    "--unshare-user": 0,
    "--unshare-pid": 0,
    "--unshare-ipc": 0,
    "--unshare-uts": 0,
    "--unshare-net": 0,
    "--unshare-cgroup-try": 0,
    "--die-with-parent": 0,
    "--new-session": 0,
    "--clearenv": 0,
    "--hostname": 1,
    "--uid": 1,
    "--gid": 1,
    "--cap-drop": 1,
    "--tmpfs": 1,
    "--remount-ro": 1,
    "--proc": 1,
    "--dev": 1,
    "--size": 1,
    "--perms": 1,
    "--chdir": 1,
    "--ro-bind": 2,
    "--bind": 2,
    "--symlink": 2,
    "--setenv": 2,
}
NAMESPACES = {"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net"}
FAKE_BWRAP = "/opt/test/bwrap"


def parse(argv: list[str]) -> tuple[list[tuple[str, ...]], list[str]]:
    """(the options with their operands in order, the command after ``--``)."""
    assert argv[0] == FAKE_BWRAP
    options: list[tuple[str, ...]] = []
    i = 1
    while argv[i] != "--":
        name = argv[i]
        assert name in ARITY, f"an option these tests do not know: {name}"
        options.append((name, *argv[i + 1 : i + 1 + ARITY[name]]))
        i += 1 + ARITY[name]
    return options, argv[i + 1 :]


def binds(options: list[tuple[str, ...]], kind: str) -> list[tuple[str, str]]:
    return [(o[1], o[2]) for o in options if o[0] == kind]


def env_of(options: list[tuple[str, ...]]) -> dict[str, str]:
    assert ("--clearenv",) in options
    first_set = next(i for i, o in enumerate(options) if o[0] == "--setenv")
    assert options.index(("--clearenv",)) < first_set
    return {o[1]: o[2] for o in options if o[0] == "--setenv"}


@pytest.fixture(autouse=True)
def fake_bwrap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bwrap, "bwrap_binary", lambda: FAKE_BWRAP)
    monkeypatch.setenv("HEARTS_TEST_SECRET", "the referee's secret")


@pytest.fixture
def bot(tmp_path: pathlib.Path) -> dict[str, pathlib.Path]:
    """A bot folder holding an output folder and a key file it must not see, and its socket's."""
    folder = tmp_path / "bots" / "mine"
    (folder / "out").mkdir(parents=True)
    (folder / "key").write_text("secret")
    socket_dir = tmp_path / "sock"
    socket_dir.mkdir()
    return {"folder": folder.resolve(), "socket": socket_dir, "tmp": tmp_path}


def bot_argv(bot: dict[str, pathlib.Path], **kwargs) -> list[str]:
    settings = {
        "folder": bot["folder"],
        "socket_dir": bot["socket"],
        "disk_bytes": 64 << 20,
        "env": {"LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1"},
        "hidden": [bot["folder"] / "out", bot["folder"] / "key", bot["tmp"] / "elsewhere"],
        **kwargs,
    }
    return bwrap.bot_command(["./bot", "--address", "unix:/s/b.sock"], **settings)


def test_a_bot_is_unshared_from_every_namespace_the_network_included(bot) -> None:
    options, _ = parse(bot_argv(bot))
    flags = {o[0] for o in options}
    assert NAMESPACES | {"--die-with-parent", "--new-session"} <= flags
    assert ("--cap-drop", "ALL") in options
    assert "--share-net" not in flags
    assert ("--uid", str(bwrap.BOT_UID)) in options and ("--gid", str(bwrap.BOT_UID)) in options
    # Its own /proc (of its pid namespace) and /dev, never the host's bound in.
    assert ("--proc", "/proc") in options and ("--dev", "/dev") in options
    for kind in ("--bind", "--ro-bind"):
        assert not [d for _, d in binds(options, kind) if d in ("/proc", "/sys", "/dev")]


def test_a_bot_can_write_only_its_socket_folder(bot) -> None:
    options, _ = parse(bot_argv(bot))
    assert binds(options, "--bind") == [(str(bot["socket"]), str(bot["socket"]))]
    assert (str(bot["folder"]), str(bot["folder"])) in binds(options, "--ro-bind")
    # Over TCP (sandbox with {port} is refused elsewhere) or without a socket: nothing writable.
    options, _ = parse(bot_argv(bot, socket_dir=None))
    assert binds(options, "--bind") == []


def test_what_a_bot_sees_read_only_is_the_system_its_folder_and_the_referees_python(
    bot,
) -> None:
    options, _ = parse(bot_argv(bot))
    allowed = [pathlib.Path(p) for p in ("/usr", "/etc", "/dev/null")]
    allowed += [pathlib.Path("/", name) for name in ("bin", "sbin", "lib", "lib32", "lib64")]
    allowed += [bot["folder"], bwrap.runtime_dir()]
    allowed += [pathlib.Path(sys.prefix), pathlib.Path(sys.base_prefix)]
    allowed += [pathlib.Path(sys.executable).resolve().parent.parent]
    allowed += [pathlib.Path(bwrap.__file__).resolve().parent.parent]  # the referee package
    for source, _ in binds(options, "--ro-bind"):
        path = pathlib.Path(source)
        assert any(path == a or a in path.parents for a in allowed), source
        assert path not in (pathlib.Path("/"), pathlib.Path.home(), pathlib.Path("/etc"))
    # /etc only file by file, and the passwd and group are the sandbox's own.
    etc = [d for s, d in binds(options, "--ro-bind") if d.startswith("/etc/")]
    assert etc and all(pathlib.Path(d).parent == pathlib.Path("/etc") for d in etc)
    runtime = bwrap.runtime_dir()
    assert (str(runtime / "passwd"), "/etc/passwd") in binds(options, "--ro-bind")
    assert (str(runtime / "group"), "/etc/group") in binds(options, "--ro-bind")


def test_hidden_paths_inside_the_bots_folder_are_covered_after_it_is_bound(bot) -> None:
    options, _ = parse(bot_argv(bot))
    folder_bind = options.index(("--ro-bind", str(bot["folder"]), str(bot["folder"])))
    out = str(bot["folder"] / "out")
    covers = [i for i, o in enumerate(options) if o == ("--tmpfs", out)]
    assert len(covers) == 1 and covers[0] > folder_bind  # else the bind would uncover it
    assert ("--remount-ro", out) in options[covers[0] :]
    key = str(bot["folder"] / "key")
    assert options.index(("--ro-bind", "/dev/null", key)) > folder_bind
    # A hidden path the bot could not see anyway needs nothing.
    assert not [o for o in options if str(bot["tmp"] / "elsewhere") in o]


def test_the_root_and_dev_are_read_only_and_tmp_is_private_and_sized(bot) -> None:
    options, _ = parse(bot_argv(bot))
    last_bind = max(i for i, o in enumerate(options) if o[0] in ("--bind", "--ro-bind"))
    assert options.index(("--remount-ro", "/")) > last_bind
    assert ("--remount-ro", "/dev") in options
    for mount in (bwrap.BOT_TMP, "/dev/shm"):
        at = options.index(("--tmpfs", mount))
        assert options[at - 2 : at] == [("--size", str(64 << 20)), ("--perms", "1777")]
    options, _ = parse(bot_argv(bot, disk_bytes=0))  # the kernel's default size
    assert not [o for o in options if o[0] == "--size"]


def test_a_bots_environment_is_exactly_what_was_given(bot) -> None:
    options, command = parse(bot_argv(bot))
    assert env_of(options) == {
        "LANG": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
        "HOME": bwrap.BOT_TMP,
        "TMPDIR": bwrap.BOT_TMP,
    }
    assert options[-1] == ("--chdir", str(bot["folder"]))
    assert command == ["./bot", "--address", "unix:/s/b.sock"]


# Builds ---------------------------------------------------------------------------------------


@pytest.fixture
def build(tmp_path: pathlib.Path) -> dict[str, pathlib.Path]:
    folder = tmp_path / "bots" / "mine"
    (folder / "out").mkdir(parents=True)
    home = tmp_path / "home"
    home.mkdir()
    return {"folder": folder.resolve(), "home": home, "tmp": tmp_path}


def build_argv(build: dict[str, pathlib.Path], **kwargs) -> list[str]:
    return bwrap.build_command(
        "make all",
        folder=build["folder"],
        home=build["home"],
        disk_bytes=256 << 20,
        hidden=[build["folder"] / "out"],
        **kwargs,
    )


def test_a_build_has_no_network_of_the_hosts(build) -> None:
    options, command = parse(build_argv(build))
    assert {o[0] for o in options} >= NAMESPACES
    assert "--share-net" not in {o[0] for o in options}
    assert command == ["/bin/sh", "-c", "make all"]


def test_with_a_proxy_a_builds_one_way_out_is_its_socket_bound_read_only(build) -> None:
    socket = build["tmp"] / "net" / "proxy.sock"
    socket.parent.mkdir()
    options, command = parse(build_argv(build, proxy_socket=socket))
    assert "--unshare-net" in {o[0] for o in options}  # still a namespace of its own
    assert (str(socket.parent), bwrap.BUILD_NET_DIR) in binds(options, "--ro-bind")
    assert str(socket.parent) not in [s for s, _ in binds(options, "--bind")]
    # The bridge runs first, on the referee's Python, then the build's own command.
    assert command[0] == sys.executable and command[-3:] == ["/bin/sh", "-c", "make all"]


def test_a_build_writes_only_its_folder_and_its_home(build) -> None:
    options, _ = parse(build_argv(build))
    writable = {s for s, _ in binds(options, "--bind")}
    assert writable == {str(build["folder"]), str(build["home"])}
    assert all(s == d for s, d in binds(options, "--bind"))


def test_a_builds_hidden_folders_are_covered_after_its_folder(build) -> None:
    options, _ = parse(build_argv(build))
    folder_bind = options.index(("--bind", str(build["folder"]), str(build["folder"])))
    out = str(build["folder"] / "out")
    assert options.index(("--tmpfs", out)) > folder_bind


def test_a_builds_environment_leaves_out_the_referees(build) -> None:
    options, _ = parse(build_argv(build))
    env = env_of(options)
    assert "HEARTS_TEST_SECRET" not in env
    assert "the referee's secret" not in " ".join(env.values())
    assert env["HOME"] == str(build["home"])
    assert options[-1] == ("--chdir", str(build["folder"]))


def test_a_builds_root_is_read_only(build) -> None:
    options, _ = parse(build_argv(build))
    last_bind = max(i for i, o in enumerate(options) if o[0] in ("--bind", "--ro-bind"))
    assert ("--remount-ro", "/") in options[last_bind:]
