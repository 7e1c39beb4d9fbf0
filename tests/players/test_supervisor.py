"""The sandbox supervisor: its command line, the bot's exit code, and no busy waiting.

The supervisor is a subreaper: between two looks at the bot it reaps every ended child
(``waitpid(-1)``). A bot that ends at that moment used to be reaped there, its status
lost, and its crash reported as "exited with code 0" (seen once in a suite run:
``test_crash_and_restart``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from referee.sandbox import cgroups, supervisor


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    # A process of its own: the supervisor kills its whole process group at the end.
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, start_new_session=True)


_REAPED_WITH_THE_ORPHANS = textwrap.dedent(
    """
    import os, sys, time
    from referee.sandbox import supervisor

    pid = os.fork()
    if pid == 0:
        os._exit(3)
    while open(f"/proc/{pid}/stat").read().rsplit(") ", 1)[1][0] != "Z":
        time.sleep(0.001)  # the bot has ended; nobody has reaped it yet
    real_waitpid = os.waitpid
    looked = []

    def waitpid(target, flags):
        if target == pid and not looked:
            looked.append(target)
            return 0, 0  # the supervisor's look at the bot comes just before it ends
        return real_waitpid(target, flags)

    os.waitpid = waitpid
    sys.exit(supervisor._supervise(pid, None, {}, None, None, []))
    """
)


def test_a_bot_reaped_with_the_orphans_keeps_its_exit_code() -> None:
    done = _run([sys.executable, "-c", _REAPED_WITH_THE_ORPHANS])
    assert "bot exited with code 3" in done.stderr, done.stderr
    assert done.returncode == 3, done.stderr


def test_the_command_runs_the_entry_script_isolated_and_without_site() -> None:
    argv = supervisor.command(7)
    assert argv[:3] == [sys.executable, "-I", "-S"]
    assert argv[3] == supervisor.ENTRY
    assert os.path.dirname(argv[3]) == os.path.dirname(os.path.realpath(supervisor.__file__))
    assert argv[4:] == ["--parent-fd", "7"]


def test_the_supervisor_imports_none_of_the_modules_it_does_without() -> None:
    # Every bot's start pays for the supervisor's imports: json, contextlib and shutil
    # took about 12 ms of CPU of each; and its start must not run the referee's own code.
    entry = supervisor.ENTRY
    probe = (
        "import atexit, sys; atexit.register(lambda: print(sorted(sys.modules))); "
        f"sys.argv = [{entry!r}]; "
        f"exec(compile(open({entry!r}).read(), {entry!r}, 'exec'), "
        f"{{'__file__': {entry!r}, '__name__': '__main__'}})"
    )
    done = _run([sys.executable, "-I", "-S", "-c", probe])
    assert "usage: supervise.py" in done.stderr, done.stderr  # it ran main(), with no command
    loaded = set(done.stdout.splitlines()[-1].strip("[]").replace("'", "").split(", "))
    assert not loaded & {"json", "contextlib", "shutil", "site", "grpc", "referee.players"}, loaded
    # signal imports enum, and enum functools and collections: 3-5 ms more (typing likewise).
    assert not loaded & {"signal", "enum", "functools", "collections", "typing"}, loaded
    ours = {m for m in loaded if m.startswith("referee")}
    assert ours == {
        "referee",
        "referee.sandbox",
        "referee.sandbox.supervisor",
        "referee.sandbox.cgroups",
    }


def test_signal_names_are_the_enums() -> None:
    # The supervisor names the signal that killed a bot without importing signal.
    for number in range(-1, 80):
        try:
            expected: str | None = signal.Signals(number).name
        except ValueError:
            expected = None
        assert cgroups.signal_name(number) == expected, number
    assert cgroups.signal_name(signal.SIGCHLD) == "SIGCHLD"  # not its alias SIGCLD


def test_limits_pass_as_whole_numbers_and_anything_else_is_refused() -> None:
    limits = {"memory_bytes": 2 << 30, "cpu_seconds": 3600, "cpu_percent": 0}
    text = supervisor.encode_limits(limits)
    assert text == f"memory_bytes={2 << 30},cpu_seconds=3600,cpu_percent=0"
    assert supervisor.decode_limits(text) == limits
    assert supervisor.decode_limits("") == {}
    assert supervisor.encode_limits({"ponder": True, "cpu_seconds": 5}) == "ponder=1,cpu_seconds=5"
    for bad in ({"cpu_percent": 12.5}, {"ponder": "yes"}, {"a,b": 1}, {"x=y": 1}):
        with pytest.raises(ValueError, match="whole number"):
            supervisor.encode_limits(bad)
    with pytest.raises(ValueError, match="not key=value: 'memory_bytes'"):
        supervisor.decode_limits("memory_bytes")
    with pytest.raises(ValueError):
        supervisor.decode_limits("memory_bytes=lots")


def test_bad_limits_are_refused_with_a_message_not_a_traceback() -> None:
    done = _run([*supervisor.interpreter(), "--limits", "memory_bytes", "--", "true"])
    assert done.returncode == 2
    assert "not key=value: 'memory_bytes'" in done.stderr and "Traceback" not in done.stderr


def test_the_command_supervises_a_bot_to_its_exit_code() -> None:
    # -S leaves site out: the script must run on the standard library alone.
    read_end, write_end = os.pipe()
    try:
        done = subprocess.run(
            [*supervisor.command(read_end), "--", sys.executable, "-c", "raise SystemExit(5)"],
            capture_output=True,
            text=True,
            timeout=60,
            start_new_session=True,
            pass_fds=(read_end,),
        )
    finally:
        os.close(read_end)
        os.close(write_end)
    assert "bot exited with code 5" in done.stderr, done.stderr
    assert done.returncode == 5, done.stderr


def test_the_output_cap_holds_for_the_file_over_all_of_the_bots_starts(tmp_path) -> None:
    # Each start used to get the whole cap afresh: a bot that printed and crashed, over and
    # over, put 8 MiB in a log capped at 1 MiB (the chaos tournament's printing bot).
    log = tmp_path / "bot.stdout.log"
    spam = "import sys; sys.stdout.write('#' * 300_000); sys.stdout.flush(); raise SystemExit(3)"
    limits = ["--limits", "output_bytes=500000"]
    for _ in range(4):  # the launcher opens the log to append, once per start
        with open(log, "ab") as out:
            done = subprocess.run(
                [*supervisor.interpreter(), *limits, "--", sys.executable, "-c", spam],
                stdout=out,
                stderr=subprocess.PIPE,
                text=True,
                timeout=60,
                start_new_session=True,
            )
        assert done.returncode == 3, done.stderr
    text = log.read_text()
    assert text.count("#") == 500_000, "the file holds its cap of the bot's output, no more"
    # One note from each start that lost output: the second (in part), the third, the fourth.
    assert text.count("[referee sandbox: output truncated: the file reached 500000 bytes]") == 3


def test_the_output_cap_holds_for_a_file_that_two_starts_write_at_once(tmp_path) -> None:
    # A stopped bot's supervisor can still be draining its pipes when the next start's
    # begins: each looks at the file's size before it writes, not just when it started.
    log = tmp_path / "bot.stderr.log"
    spam = "import sys, time; time.sleep(0.3); sys.stderr.write('#' * 300_000)"
    argv = [*supervisor.interpreter(), "--limits", "output_bytes=500000", "--"]
    with open(log, "ab") as err:
        both = [
            subprocess.Popen(
                [*argv, sys.executable, "-c", spam], stderr=err, start_new_session=True
            )
            for _ in range(2)
        ]
        assert [proc.wait(60) for proc in both] == [0, 0]
    # Each writes at most one read (64 KiB) of its pipe past a size it looked at. The
    # supervisors' own lines count too: one that ended before the other wrote left its
    # "bot exited" line (40 bytes) within the cap, seen on a loaded machine.
    text = log.read_text()
    notes = text.count("[referee sandbox:") + text.count("referee sandbox: bot exited")
    assert 2 <= notes <= 4, text[-300:]
    assert 500_000 <= len(text.encode()) <= 500_000 + 65536 + 300
    assert 500_000 - 2 * 100 <= text.count("#") <= 500_000 + 65536


_NOTHING_TO_SELECT_ON = textwrap.dedent(
    """
    import os, time
    from referee.sandbox import supervisor

    pid = os.fork()
    if pid == 0:
        time.sleep(0.5)
        os._exit(0)
    real_sleep, real_waitpid = time.sleep, os.waitpid
    counts = {"sleeps": 0, "looks": 0}

    def sleep(seconds):
        counts["sleeps"] += 1
        real_sleep(seconds)

    def waitpid(target, flags):
        if target == pid:
            counts["looks"] += 1
        return real_waitpid(target, flags)

    time.sleep, os.waitpid = sleep, waitpid
    supervisor._supervise(pid, None, {}, None, None, [])
    print(counts["sleeps"], counts["looks"])
    """
)


def test_with_nothing_to_select_on_the_supervisor_waits_instead_of_spinning() -> None:
    # No parent pipe and no output pump: select had no file to wait on and returned at
    # once, so the supervisor looked at the bot in a busy loop, a core's worth of CPU.
    done = _run([sys.executable, "-c", _NOTHING_TO_SELECT_ON])
    sleeps, looks = (int(n) for n in done.stdout.split())
    assert sleeps >= 1, done.stdout
    assert looks <= sleeps + 2, f"{looks} looks at the bot in {sleeps} waits"


def test_remove_tree_removes_everything_and_follows_no_link(tmp_path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("an opponent's file")
    scratch = tmp_path / "scratch"
    (scratch / "a" / "b").mkdir(parents=True)
    (scratch / "a" / "b" / "data").write_bytes(b"x" * 1000)
    (scratch / "bot.sock").write_text("")
    (scratch / "a" / "to-outside").symlink_to(outside)
    (scratch / "a" / "to-file").symlink_to(outside / "keep.txt")
    supervisor.remove_tree(str(scratch))
    assert not scratch.exists()
    assert (outside / "keep.txt").read_text() == "an opponent's file"
    link = tmp_path / "link"
    link.symlink_to(outside)
    supervisor.remove_tree(str(link))  # the link itself goes, not what it points to
    assert not link.is_symlink() and (outside / "keep.txt").exists()
    supervisor.remove_tree(str(tmp_path / "nothing-there"))  # no error


def test_remove_tree_stops_at_its_depth_without_an_error(tmp_path) -> None:
    deep = tmp_path / "scratch"
    leaf = deep.joinpath(*["d"] * (supervisor._REMOVE_DEPTH + 5))
    leaf.mkdir(parents=True)
    (deep / "file").write_text("")
    supervisor.remove_tree(str(deep))
    assert deep.exists() and not (deep / "file").exists()  # the rest is the referee's to remove


_PARENT_GONE_FIRST = textwrap.dedent(
    """
    import os, time
    from referee.sandbox.supervisor import die_with_parent

    parent = os.getpid()
    if os.fork() == 0:
        while os.getppid() == parent:
            time.sleep(0.005)  # the supervisor dies between our fork and our request
        die_with_parent(parent)
        print("ran unsupervised", flush=True)
        os._exit(0)
    os._exit(0)
    """
)

_PARENT_DIES_AFTER = textwrap.dedent(
    """
    import os, time
    from referee.sandbox.supervisor import die_with_parent

    parent = os.getpid()
    ready_r, ready_w = os.pipe()
    if os.fork() == 0:
        die_with_parent(parent)
        print("armed", flush=True)
        os.write(ready_w, b"x")
        time.sleep(20)
        print("ran unsupervised", flush=True)
        os._exit(0)
    os.read(ready_r, 1)
    os._exit(0)  # abruptly, as a SIGKILL would
    """
)


@pytest.mark.parametrize(
    "script", [_PARENT_GONE_FIRST, _PARENT_DIES_AFTER], ids=["before", "after"]
)
def test_the_bot_never_outlives_a_supervisor_that_dies(script: str) -> None:
    """A supervisor killed before the bot's death signal was set, or after: the bot ends.

    Before, a supervisor killed (by Ray, with its worker) between opening the gate and
    the child's ``prctl`` left bubblewrap running, an orphan of init: a death signal
    asked for after the parent's death never comes. The output pipe stays open until
    the bot ends, so the run returns only then.
    """
    done = _run([sys.executable, "-c", script])
    assert "ran unsupervised" not in done.stdout, done.stdout
    assert done.returncode == 0, done.stderr
    if script is _PARENT_DIES_AFTER:
        assert "armed" in done.stdout  # the request was made while the parent lived


_GROUP_ORPHAN = textwrap.dedent(
    """
    import os, sys, time
    from referee.sandbox import supervisor

    r, w = os.pipe()
    if os.fork() == 0:  # a bot that leaves an orphan in our group and exits
        if os.fork() == 0:
            os.write(w, str(os.getpid()).encode())
            time.sleep(60)
            os._exit(0)
        os._exit(0)
    os.wait()
    orphan = int(os.read(r, 20))  # its parent has been reaped: it is no descendant of ours
    supervisor._subreaper = sys.argv[1] == "subreaper"
    supervisor._kill_everything(None)
    time.sleep(0.1)
    state = open(f"/proc/{orphan}/stat").read().split(") ")[1][0] if os.path.exists(f"/proc/{orphan}") else ""
    print("alive" if state and state != "Z" else "gone")
    os.kill(orphan, 9)
    """
)


@pytest.mark.parametrize(("mode", "expected"), [("no-subreaper", "gone"), ("subreaper", "alive")])
def test_without_the_subreaper_an_orphan_in_the_group_is_found_by_its_group(mode, expected) -> None:
    # As the subreaper, every process of the group is a descendant, and /proc is not
    # scanned for the group (1.5-6 ms a look). Without it, an orphan goes to init, and
    # the scan is what finds it: here the orphan is only killed when we scan.
    done = _run([sys.executable, "-c", _GROUP_ORPHAN, mode])
    assert done.stdout.strip() == expected, done.stderr
