"""The supervisor every launched bot runs under (stdlib only; run by file path).

``python -I sandbox.py [--parent PID] [--limits JSON] -- COMMAND ARGS...``

The referee starts this script in a new session, so it leads a process group
that the bot and anything the bot spawns belong to. It then:

- forks the bot with kernel limits applied (CPU seconds per process as
  RLIMIT_CPU, open files as RLIMIT_NOFILE, and optionally address space as
  RLIMIT_AS), its stdout and stderr going through pipes that the sandbox
  copies to the files the referee gave it, up to ``output_bytes`` each, so
  that a bot printing megabytes has its output truncated instead of filling
  the disk (and never sees a write error);
- watches the bot and its descendants every 0.2 s and stops them all when
  together they exceed the memory limit (resident set), the CPU time limit, or
  the limit on processes and threads. Those limits are measured rather than
  left to rlimits because RLIMIT_AS breaks runtimes that reserve address space
  up front (the JVM, V8, Go), RLIMIT_NPROC does not bind root and counts every
  process of the user, and RLIMIT_CPU is per process;
- becomes the child subreaper, so the bot's orphaned children stay in reach;
- watches its parent: when the referee dies (even by SIGKILL), it kills the
  whole group, so no bot process outlives the referee;
- when the bot ends, kills whatever the bot left behind in the group, says
  on stderr (the bot's stderr file) how the bot ended, and exits with the
  bot's exit code, 128 + the signal that killed it, or one of the EXIT_*
  codes below when it stopped the bot at a limit.

On SIGTERM (the referee stopping the group) it waits for the bot to exit.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import select
import signal
import sys
import time

#: Exit codes of the sandbox when it stopped the bot at a limit.
EXIT_MEMORY_LIMIT = 243
EXIT_CPU_LIMIT = 244
EXIT_PROCESS_LIMIT = 245

_PR_SET_CHILD_SUBREAPER = 36
_RLIMITS = {
    "cpu_seconds": resource.RLIMIT_CPU,
    "open_files": resource.RLIMIT_NOFILE,
    "address_space_bytes": resource.RLIMIT_AS,
}
_PAGE = os.sysconf("SC_PAGE_SIZE")
_TICKS = os.sysconf("SC_CLK_TCK")
_POLL_S = 0.05
_WATCH_EVERY = 4  # polls between two measurements of the group


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


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
            children = _read(f"/proc/{p}/task/{tid}/children")
            if children:
                todo.extend(int(c) for c in children.split())
    return out


def _usage(pids: list[int]) -> tuple[int, float, int]:
    """(resident bytes, CPU seconds, threads) summed over ``pids``."""
    rss = threads = ticks = 0
    for p in pids:
        statm = _read(f"/proc/{p}/statm")
        stat = _read(f"/proc/{p}/stat")
        if not statm or not stat:
            continue
        rss += int(statm.split()[1]) * _PAGE
        # Fields after the command name: state is field 3; utime 14, stime 15,
        # num_threads 20 (1-based, as in proc(5)).
        fields = stat[stat.rfind(b")") + 2 :].split()
        ticks += int(fields[11]) + int(fields[12])
        threads += int(fields[17])
    return rss, ticks / _TICKS, threads


def _over_limit(pid: int, limits: dict[str, int]) -> tuple[int, str] | None:
    rss, cpu, threads = _usage(_descendants(pid))
    memory = limits.get("memory_bytes") or 0
    if memory and rss > memory:
        return EXIT_MEMORY_LIMIT, f"memory limit: {rss >> 20} MiB resident > {memory >> 20} MiB"
    cpu_limit = limits.get("cpu_seconds") or 0
    if cpu_limit and cpu > cpu_limit:
        return EXIT_CPU_LIMIT, f"cpu limit: {cpu:.1f} s of CPU time > {cpu_limit} s"
    processes = limits.get("processes") or 0
    if processes and threads > processes:
        return EXIT_PROCESS_LIMIT, f"process limit: {threads} processes and threads > {processes}"
    return None


def _group_members(pgid: int) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        stat = _read(f"/proc/{entry}/stat")
        if stat and int(stat[stat.rfind(b")") + 2 :].split()[2]) == pgid:
            pids.append(int(entry))
    return pids


def _kill_group_but_me() -> None:
    pgid = os.getpgid(0)
    for _ in range(5):
        members = _group_members(pgid)
        if not members:
            return
        for pid in members:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        time.sleep(0.02)


def _apply_rlimits(limits: dict[str, int]) -> None:
    for key, which in _RLIMITS.items():
        value = limits.get(key) or 0
        if value:
            # CPU: the soft limit signals (SIGXCPU) a second before the hard one kills.
            hard = value + 1 if which == resource.RLIMIT_CPU else value
            resource.setrlimit(which, (value, hard))


class _OutputPump:
    """Copies the bot's stdout and stderr to ours, dropping what exceeds the cap.

    The bot writes into pipes and never sees an error; the files the referee
    gave us get at most ``cap`` bytes each from this run, then a note.
    """

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.pipes = {}  # read end -> [our fd, bytes written, truncated]
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

    def pump(self, timeout: float) -> None:
        """Move what is ready (waiting at most ``timeout`` s)."""
        if not self.pipes:
            time.sleep(timeout)
            return
        ready, _, _ = select.select(list(self.pipes), [], [], timeout)
        for fd in ready:
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
            room = self.cap - written
            if room > 0:
                with contextlib.suppress(OSError):
                    os.write(target, data[:room])
                entry[1] += min(room, len(data))
            if len(data) > room and not truncated:
                entry[2] = True
                note = f"\n[referee sandbox: output truncated at {self.cap} bytes]\n"
                with contextlib.suppress(OSError):
                    os.write(target, note.encode())

    def drain(self) -> None:
        for _ in range(100):
            if not self.pipes:
                return
            self.pump(0.01)


def _say(message: str) -> None:
    print(f"referee sandbox: {message}", file=sys.stderr, flush=True)


def _supervise(pid: int, parent: int, limits: dict[str, int], pump: _OutputPump | None) -> int:
    """Wait for the bot; return the sandbox's exit code."""
    watching = any(limits.get(k) for k in ("memory_bytes", "cpu_seconds", "processes"))
    polls = 0
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done, status = pid, 0
        if done == pid:
            break
        with contextlib.suppress(ChildProcessError):
            os.waitpid(-1, os.WNOHANG)  # reap adopted orphans
        if os.getppid() != parent:  # the referee is gone: take everything down
            _kill_group_but_me()
            return 137
        polls += 1
        if watching and polls % _WATCH_EVERY == 0:
            exceeded = _over_limit(pid, limits)
            if exceeded:
                code, message = exceeded
                _kill_group_but_me()
                if pump:
                    pump.drain()
                _say(f"{message}; stopping the bot")
                return code
        if pump:
            pump.pump(_POLL_S)
        else:
            time.sleep(_POLL_S)
    _kill_group_but_me()
    if pump:
        pump.drain()
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig in (signal.SIGXCPU, signal.SIGKILL) and limits.get("cpu_seconds"):
            usage = resource.getrusage(resource.RUSAGE_CHILDREN)
            if usage.ru_utime + usage.ru_stime >= limits["cpu_seconds"]:
                _say(f"cpu limit: the bot used {limits['cpu_seconds']} s of CPU time")
                return EXIT_CPU_LIMIT
        _say(f"bot killed by signal {sig} ({signal.Signals(sig).name})")
        return 128 + sig
    code = os.WEXITSTATUS(status)
    _say(f"bot exited with code {code}")
    return code


def main(argv: list[str]) -> int:
    limits: dict[str, int] = {}
    parent = os.getppid()
    if argv[:1] == ["--parent"]:
        # The referee's pid as it knew it: if it died before we got here, we
        # were already reparented and getppid() alone would never notice.
        parent = int(argv[1])
        argv = argv[2:]
    if argv[:1] == ["--limits"]:
        limits = json.loads(argv[1])
        argv = argv[2:]
    if argv[:1] != ["--"] or len(argv) < 2:
        _say("usage: sandbox.py [--parent PID] [--limits JSON] -- COMMAND ARGS...")
        return 2
    command = argv[1:]
    if os.getpgrp() != os.getpid():
        # Never share a group with the caller: the group is what gets killed.
        os.setpgid(0, 0)
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    signal.signal(signal.SIGTERM, lambda *_: None)  # the bot gets it too; wait for it
    pump = _OutputPump(limits["output_bytes"]) if limits.get("output_bytes") else None
    pid = os.fork()
    if pid == 0:
        try:
            if pump:
                pump.attach_child()
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            _apply_rlimits(limits)
            os.execvp(command[0], command)
        except BaseException as error:
            _say(f"cannot run {command[0]!r}: {error}")
            os._exit(127)
    if pump:
        pump.attach_parent()
    return _supervise(pid, parent, limits, pump)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
