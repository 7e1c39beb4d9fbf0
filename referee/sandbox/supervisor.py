"""The supervisor every launched bot and every build runs under (stdlib only).

``python -I -S supervise.py [--parent-fd FD] [--limits KEY=N,...] [--cgroup NAME] [--scratch DIR] -- COMMAND ARGS...``

The referee starts this script in a new session (or has its fork server,
:mod:`referee.sandbox.forkserver`, fork it as if it had), so it leads a process group
that the bot and anything the bot spawns belong to. COMMAND is usually the
bubblewrap command line of :mod:`referee.sandbox.bwrap`, which puts the bot in
namespaces of its own; with ``sandbox: none`` it is the bot's own command. The
supervisor then:

- puts the bot in control groups of its own (``--cgroup``; cgroup v2, or v1
  where only v1 is writable) limited in memory (which includes its tmpfs,
  shared memory and orphans), processes and threads, and optionally CPU share
  (``cpu_percent``); every process the bot starts stays in them. They include
  a freezer (v2's ``cgroup.freeze``, v1's ``freezer.state``) through which the
  referee stops the bot between its calls (:mod:`referee.sandbox.freezer`). Where no cgroup
  can be made, it measures the bot's descendants instead, as before;
- forks the bot with kernel limits applied (CPU seconds per process as
  RLIMIT_CPU, open files as RLIMIT_NOFILE, optionally address space as
  RLIMIT_AS), its stdout and stderr going through pipes that the supervisor
  copies to the files the referee gave it, up to ``output_bytes`` each;
- every 0.2 s checks the bot's total CPU time, and whether the kernel stopped
  it at its memory or process limit; over a limit, it stops everything;
- becomes the child subreaper, so that the bot's orphans stay in reach;
- watches the read end of a pipe whose write end only the referee holds
  (``--parent-fd``): when the referee dies, even by SIGKILL, the pipe reads
  end-of-file at once and the supervisor takes the bot down. (Not a parent
  death signal: that fires when the *thread* that started us ends.) The bot
  itself gets one (we have a single thread): it dies with the supervisor;
- when the bot ends, kills whatever it left behind, removes its cgroups and
  its scratch folders (``--scratch DIR``: the socket folder of this start), says
  on stderr (the bot's stderr file) how it ended, and exits with the bot's exit
  code, 128 + the signal that killed it, or one of the EXIT_* codes below when
  it stopped the bot at a limit.

On SIGTERM (the referee stopping the group) it waits for the bot to exit.

It runs from its compiled module through the small script ``supervise.py``
(:func:`command`): a script run by path is compiled from source at every
start, and its imports are kept to the few it needs, since every bot's start
pays for them (``docs/performance.md``).

It makes its cgroups with :mod:`referee.sandbox.cgroups`.
"""

from __future__ import annotations

import _signal  # not signal, which imports enum: see referee.sandbox.cgroups
import ctypes
import os
import resource
import select
import sys
import time

from referee.sandbox.cgroups import Cgroup, kill_until_gone, read_bytes, reap, signal_name
from referee.sandbox.cgroups import suppress as _suppress

#: The script that runs the supervisor (see :func:`command`).
ENTRY = os.path.join(os.path.dirname(os.path.realpath(__file__)), "supervise.py")
#: Exit codes of the supervisor when it stopped the bot at a limit.
EXIT_MEMORY_LIMIT = 243
EXIT_CPU_LIMIT = 244
EXIT_PROCESS_LIMIT = 245

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_RLIMITS = {
    "cpu_seconds": resource.RLIMIT_CPU,
    "open_files": resource.RLIMIT_NOFILE,
    "address_space_bytes": resource.RLIMIT_AS,
}
_PAGE = os.sysconf("SC_PAGE_SIZE")
_TICKS = os.sysconf("SC_CLK_TCK")
_POLL_S = 0.05
_WATCH_EVERY = 4  # polls between two measurements of the bot


def encode_limits(limits: dict[str, int]) -> str:
    """``limits`` as ``--limits`` takes them: ``key=N,...`` (not JSON: importing json took ms).

    A flag (``ponder``) passes as 0 or 1.
    """
    for key, value in limits.items():
        if not key.isidentifier() or not isinstance(value, int):
            raise ValueError(f"a limit must be a whole number: {key}={value!r}")
    return ",".join(f"{key}={int(value)}" for key, value in limits.items())


def decode_limits(text: str) -> dict[str, int]:
    """The limits :func:`encode_limits` wrote."""
    limits: dict[str, int] = {}
    for item in filter(None, text.split(",")):
        key, sep, value = item.partition("=")
        if not sep or not key.isidentifier():
            raise ValueError(f"--limits: not key=value: {item!r}")
        limits[key] = int(value)
    return limits


# Measuring without cgroups ------------------------------------------------------------------


def _descendants(pid: int) -> list[int]:
    """``pid`` and every live descendant, from /proc/PID/task/TID/children."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for tid in tasks:
            children = read_bytes(f"/proc/{p}/task/{tid}/children")
            if children:
                todo.extend(int(c) for c in children.split())
    return out


def _usage(pids: list[int]) -> tuple[int, float, int]:
    """(resident bytes, CPU seconds, threads) summed over ``pids``."""
    rss = threads = ticks = 0
    for p in pids:
        statm = read_bytes(f"/proc/{p}/statm")
        stat = read_bytes(f"/proc/{p}/stat")
        if not statm or not stat:
            continue
        rss += int(statm.split()[1]) * _PAGE
        # Fields after the command name: state is field 3; utime 14, stime 15,
        # num_threads 20 (1-based, as in proc(5)).
        fields = stat[stat.rfind(b")") + 2 :].split()
        ticks += int(fields[11]) + int(fields[12])
        threads += int(fields[17])
    return rss, ticks / _TICKS, threads


def _folder_bytes(folder: str, most: int = 10_000) -> int:
    """Bytes held by the files under ``folder`` (never through a link; at most ``most`` entries).

    Without cgroups this is how what a bot writes into its socket folder (a tmpfs on the
    host) counts towards its memory.
    """
    total, todo, seen = 0, [folder], 0
    while todo and seen < most:
        with _suppress(OSError), os.scandir(todo.pop()) as entries:
            for entry in entries:
                seen += 1
                with _suppress(OSError):
                    if entry.is_dir(follow_symlinks=False):
                        todo.append(entry.path)
                    else:
                        total += entry.stat(follow_symlinks=False).st_blocks * 512
    return total


#: How deep :func:`remove_tree` goes; what is deeper is left to the referee's own removal.
_REMOVE_DEPTH = 64


def remove_tree(path: str) -> None:
    """Remove ``path`` and what it holds, as far as it can, never following a link.

    ``shutil.rmtree``'s way (each folder opened with ``O_NOFOLLOW``, its entries
    removed through the folder's descriptor, so that a link swapped in is removed,
    not followed), without shutil, whose imports (``re``, ``fnmatch``, the
    compressors) took 7 ms of every start. The bot writes its socket folder; the
    referee removes it again after the supervisor, with ``safepath.remove``.
    """
    parent, name = os.path.split(os.path.abspath(path))
    try:
        parent_fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        _remove_entry(parent_fd, name, _REMOVE_DEPTH)
    finally:
        os.close(parent_fd)


def _remove_entry(folder_fd: int, name: str, depth: int) -> None:
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(name, flags, dir_fd=folder_fd)
    except OSError:  # a file, a socket or a link (never followed): unlinked itself
        with _suppress(OSError):
            os.unlink(name, dir_fd=folder_fd)
        return
    try:
        if depth > 0:
            with os.scandir(fd) as entries:
                names = [entry.name for entry in entries]
            for child in names:
                _remove_entry(fd, child, depth - 1)
    except OSError:
        pass  # unreadable: left, and so is the folder
    finally:
        os.close(fd)
    with _suppress(OSError):
        os.rmdir(name, dir_fd=folder_fd)


def _over_limit(
    pid: int, limits: dict[str, int], group: Cgroup | None, scratch: list[str]
) -> tuple[int, str] | None:
    memory = limits.get("memory_bytes") or 0
    cpu_limit = limits.get("cpu_seconds") or 0
    processes = limits.get("processes") or 0
    if group is not None:
        if group.oom_kills():
            return EXIT_MEMORY_LIMIT, f"memory limit: over {memory >> 20} MiB (cgroup)"
        if group.fork_refusals():
            return EXIT_PROCESS_LIMIT, f"process limit: a fork refused at {processes} (cgroup)"
        cpu = group.cpu_seconds()
        if cpu_limit and cpu > cpu_limit:
            return EXIT_CPU_LIMIT, f"cpu limit: {cpu:.1f} s of CPU time > {cpu_limit} s"
        return None
    rss, cpu, threads = _usage(_descendants(pid))
    rss += sum(_folder_bytes(folder) for folder in scratch) if memory else 0
    if memory and rss > memory:
        return EXIT_MEMORY_LIMIT, f"memory limit: {rss >> 20} MiB resident > {memory >> 20} MiB"
    if cpu_limit and cpu > cpu_limit:
        return EXIT_CPU_LIMIT, f"cpu limit: {cpu:.1f} s of CPU time > {cpu_limit} s"
    if processes and threads > processes:
        return EXIT_PROCESS_LIMIT, f"process limit: {threads} processes and threads > {processes}"
    return None


# Stopping everything -----------------------------------------------------------------------


def _group_members(pgid: int) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        stat = read_bytes(f"/proc/{entry}/stat")
        if stat and int(stat[stat.rfind(b")") + 2 :].split()[2]) == pgid:
            pids.append(int(entry))
    return pids


#: Whether we are the child subreaper (main sets it): then every process of our group
#: is one of our descendants, since an orphan comes to the nearest subreaper above it.
_subreaper = False


def _kill_everything(group: Cgroup | None) -> None:
    """Kill the bot's cgroup, our descendants (the subreaper keeps orphans ours) and our group.

    The group is looked for in all of /proc (1.5-6 ms a look, more on a machine running
    many bots) only where we could not become the subreaper: there an orphan goes to
    init and only its group still ties it to us.
    """
    if group is not None:
        group.kill_all()
    pgid = os.getpgid(0)
    me = os.getpid()
    scan_group = not _subreaper

    def members() -> set[int]:
        found = set(_descendants(me)) - {me}
        return found | set(_group_members(pgid)) if scan_group else found

    kill_until_gone(members, tries=5, pause_s=0.02)


def _apply_rlimits(limits: dict[str, int]) -> None:
    for key, which in _RLIMITS.items():
        value = limits.get(key) or 0
        if value:
            # CPU: the soft limit signals (SIGXCPU) a second before the hard one kills.
            hard = value + 1 if which == resource.RLIMIT_CPU else value
            resource.setrlimit(which, (value, hard))


class _OutputPump:
    """Copies the bot's stdout and stderr to ours, dropping what exceeds the cap.

    The bot writes into pipes and never sees an error. The cap is on each file
    the referee gave us, not on each run: a restarted bot's log already holds
    its earlier starts, so a bot that crashes to get a fresh allowance gets
    none. The file's size is looked at before each write, as other processes
    append to it too (the referee's lines; a stopped bot's supervisor still
    draining its pipes while the next start runs). Past the cap a run leaves
    one note, that its output was dropped.
    """

    def __init__(self, cap: int) -> None:
        self.cap = cap
        # read end -> [our fd, bytes we wrote to it, whether we dropped some]
        self.pipes: dict[int, list[int | bool]] = {}
        self.child_ends = []
        for target in (1, 2):
            r, w = os.pipe()
            self.pipes[r] = [target, 0, False]
            self.child_ends.append(w)

    def attach_child(self) -> None:
        """In the bot (after fork): its stdout and stderr become the pipes."""
        for target, w in zip((1, 2), self.child_ends, strict=True):
            os.dup2(w, target)
        for fd in (*self.pipes, *self.child_ends):
            os.close(fd)

    def attach_parent(self) -> None:
        for w in self.child_ends:
            os.close(w)

    def ready(self, fds: list[int]) -> None:
        """Move what is ready on ``fds`` (from select)."""
        for fd in fds:
            if fd not in self.pipes:
                continue
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            if not data:
                os.close(fd)
                del self.pipes[fd]
                continue
            entry = self.pipes[fd]
            target, written, truncated = entry
            # A file holds at least what we wrote to it; a pipe's size is 0.
            room = self.cap - max(int(written), _size(int(target)))
            if room > 0:
                with _suppress(OSError):
                    os.write(int(target), data[:room])
                entry[1] = int(written) + min(room, len(data))
            if len(data) > room and not truncated:
                entry[2] = True
                note = f"\n[referee sandbox: output truncated: the file reached {self.cap} bytes]\n"
                with _suppress(OSError):
                    os.write(int(target), note.encode())

    def drain(self) -> None:
        for _ in range(100):
            if not self.pipes:
                return
            ready, _, _ = select.select(list(self.pipes), [], [], 0.01)
            self.ready(ready)


def _size(fd: int) -> int:
    """The size of the file open on ``fd`` (0 for a pipe, a terminal or /dev/null)."""
    try:
        return os.fstat(fd).st_size
    except OSError:
        return 0


def _say(message: str) -> None:
    print(f"referee sandbox: {message}", file=sys.stderr, flush=True)


def _parent_gone(fd: int | None) -> bool:
    """True once the referee's end of the watched pipe is closed (it died)."""
    if fd is None:
        return False
    try:
        return os.read(fd, 1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def _supervise(
    pid: int,
    parent_fd: int | None,
    limits: dict[str, int],
    pump: _OutputPump | None,
    group: Cgroup | None,
    scratch: list[str],
) -> int:
    """Wait for the bot; return the supervisor's exit code."""
    watching = any(limits.get(k) for k in ("memory_bytes", "cpu_seconds", "processes"))
    polls = 0
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done, status = pid, 0
        if done == pid:
            break
        reaped = reap(pid)  # adopted orphans, and the bot if it ended just now
        if reaped is not None:
            status = reaped
            break
        polls += 1
        if watching and polls % _WATCH_EVERY == 0:
            exceeded = _over_limit(pid, limits, group, scratch)
            if exceeded:
                code, message = exceeded
                _kill_everything(group)
                if pump:
                    pump.drain()
                _say(f"{message}; stopping the bot")
                return code
        fds = ([parent_fd] if parent_fd is not None else []) + (list(pump.pipes) if pump else [])
        if fds:
            ready, _, _ = select.select(fds, [], [], _POLL_S)
        else:  # nothing to wait on (no parent pipe, no output cap): still wait, never spin
            time.sleep(_POLL_S)
            ready = []
        if parent_fd is not None and parent_fd in ready and _parent_gone(parent_fd):
            _kill_everything(group)  # the referee is gone: take everything down
            return 137
        if pump:
            pump.ready(ready)
    _kill_everything(group)
    if pump:
        pump.drain()
    if group is not None and group.oom_kills():
        _say(f"memory limit: the bot reached {(limits.get('memory_bytes') or 0) >> 20} MiB")
        return EXIT_MEMORY_LIMIT
    if group is not None and group.fork_refusals():
        # A refused fork usually ends the bot with an error of its own (Python's
        # BlockingIOError: exit code 1) before the next poll sees the counter: the
        # limit is still why it stopped.
        _say(f"process limit: a fork refused at {limits.get('processes') or 0} (cgroup)")
        return EXIT_PROCESS_LIMIT
    if os.WIFSIGNALED(status) or (os.WIFEXITED(status) and os.WEXITSTATUS(status) > 128):
        # bwrap reports a bot killed by a signal as 128 + the signal.
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status) - 128
        if sig in (_signal.SIGXCPU, _signal.SIGKILL) and limits.get("cpu_seconds"):
            usage = resource.getrusage(resource.RUSAGE_CHILDREN)
            used = group.cpu_seconds() if group else usage.ru_utime + usage.ru_stime
            if used >= limits["cpu_seconds"]:
                _say(f"cpu limit: the bot used {limits['cpu_seconds']} s of CPU time")
                return EXIT_CPU_LIMIT
        name = signal_name(sig)
        if name is not None:
            _say(f"bot killed by signal {sig} ({name})")
            return 128 + sig
    code = os.WEXITSTATUS(status)
    _say(f"bot exited with code {code}")
    return code


def command(parent_fd: int) -> list[str]:
    """The command line that runs the supervisor, watching ``parent_fd``.

    ``-I`` keeps the user's environment and folders out of it; ``-S`` skips
    ``site``, which the supervisor (stdlib only) never needs: with the three
    ``.pth`` files of an editable install, an interpreter's start took 31 ms of
    CPU with ``site`` and 6.5 ms without. ``supervise.py`` imports this module
    compiled, where this file run by path was compiled at every start (6 ms).
    """
    return [*interpreter(), "--parent-fd", str(parent_fd)]


def interpreter() -> list[str]:
    """The interpreter and script of :func:`command`, before the supervisor's own arguments."""
    return [sys.executable, "-I", "-S", ENTRY]


def die_with_parent(parent_pid: int) -> None:
    """Have the kernel SIGKILL this process when ``parent_pid``, its parent, dies.

    A parent that died before the request (between our fork and now) sends no
    signal, so the parent is checked after it: we exit at once if it is
    already gone. Without the check, a supervisor killed just after it opened
    the gate (a Ray worker taken down while its bot started, the likeliest
    cause of what was seen) leaves the bot's bubblewrap running, an orphan of
    init: a sandbox outlived the Ray cluster in 2 of 12 suite runs. (The
    referee's processes do the same in :func:`referee.sandbox.lifeline.die_with_parent`,
    which the supervisor does not import: it keeps to a few standard modules.)
    """
    with _suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, _signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:
        os._exit(137)  # as if the signal had come: 128 + SIGKILL


def main(argv: list[str]) -> int:
    limits: dict[str, int] = {}
    parent_fd: int | None = None
    cgroup_name = ""
    scratch: list[str] = []
    while argv and argv[0] != "--":
        option, value, argv = argv[0], argv[1] if len(argv) > 1 else "", argv[2:]
        if option == "--parent-fd":
            parent_fd = int(value)
        elif option == "--limits":
            try:
                limits = decode_limits(value)
            except ValueError as error:
                _say(str(error))
                return 2
        elif option == "--cgroup":
            cgroup_name = value
        elif option == "--scratch":
            scratch.append(value)
        else:
            argv = []
    if argv[:1] != ["--"] or len(argv) < 2:
        _say(
            "usage: supervise.py [--parent-fd FD] [--limits KEY=N,...] [--cgroup NAME] "
            "[--scratch DIR] -- COMMAND ..."
        )
        return 2
    command = argv[1:]
    if parent_fd is not None:
        os.set_blocking(parent_fd, False)
        if _parent_gone(parent_fd):
            return 137  # the referee died before we got here
    if os.getpgrp() != os.getpid():
        # Never share a group with the caller: the group is what gets killed.
        os.setpgid(0, 0)
    global _subreaper
    with _suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    _signal.signal(_signal.SIGTERM, lambda *_: None)  # the bot gets it too; wait for it
    group = Cgroup.create(cgroup_name, limits) if cgroup_name else None
    if cgroup_name and group is None:
        _say("no cgroup could be made: limits are measured by polling")
    pump = _OutputPump(limits["output_bytes"]) if limits.get("output_bytes") else None
    gate_r, gate_w = os.pipe()  # the bot waits until it is in its cgroup
    supervisor_pid = os.getpid()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(gate_w)
            # The bot dies with us (we have one thread), and never runs unsupervised: a
            # gate closed without a word means that we died before opening it.
            die_with_parent(supervisor_pid)
            if os.read(gate_r, 1) != b"x":
                os._exit(137)
            os.close(gate_r)
            if parent_fd is not None:
                os.close(parent_fd)
            if pump:
                pump.attach_child()
            _signal.signal(_signal.SIGTERM, _signal.SIG_DFL)
            _apply_rlimits(limits)
            os.execvp(command[0], command)
        except BaseException as error:
            _say(f"cannot run {command[0]!r}: {error}")
            os._exit(127)
    os.close(gate_r)
    try:
        if group is not None:
            try:
                group.attach(pid)
            except OSError as error:
                _say(f"cannot join the cgroup ({error}): limits are measured by polling")
                group.remove()
                group = None
        os.write(gate_w, b"x")
        os.close(gate_w)
        if pump:
            pump.attach_parent()
        return _supervise(pid, parent_fd, limits, pump, group, scratch)
    finally:
        _kill_everything(group)
        if group is not None:
            group.remove()
        for folder in scratch:
            remove_tree(folder)  # what the bot left there goes with it


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
