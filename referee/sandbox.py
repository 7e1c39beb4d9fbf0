"""The supervisor every launched bot runs under (stdlib only; run by file path).

``python -I sandbox.py [--limits JSON] -- COMMAND ARGS...``

The referee starts this script in a new session, so it leads a process group
that the bot and anything the bot spawns belong to. It then:

- forks the bot with resource limits applied (memory as RLIMIT_AS, CPU
  seconds, processes, open files, output file size) and SIGXFSZ ignored, so a
  bot that prints too much has its output truncated instead of filling the
  disk;
- becomes the child subreaper, so the bot's orphaned children stay in reach;
- watches its parent: when the referee dies (even by SIGKILL), it kills the
  whole group, so no bot process outlives the referee;
- when the bot exits, kills whatever the bot left behind in the group, prints
  how the bot ended to stderr (the bot's stderr file), and exits with the
  bot's exit code, or 128 + the signal that killed it.

On SIGTERM (the referee stopping the group) it waits for the bot to exit.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import signal
import sys
import time

_PR_SET_CHILD_SUBREAPER = 36
_LIMITS = {
    "memory_bytes": resource.RLIMIT_AS,
    "cpu_seconds": resource.RLIMIT_CPU,
    "processes": resource.RLIMIT_NPROC,
    "open_files": resource.RLIMIT_NOFILE,
    "output_bytes": resource.RLIMIT_FSIZE,
}


def _group_members(pgid: int) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # The command name (field 2) may hold spaces; the fields after ')' are fixed.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if int(fields[2]) == pgid:
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


def _apply_limits(limits: dict[str, int]) -> None:
    for key, value in limits.items():
        if value and key in _LIMITS:
            which = _LIMITS[key]
            # The soft limit signals (SIGXCPU) before the hard one kills.
            hard = value + 1 if which == resource.RLIMIT_CPU else value
            resource.setrlimit(which, (value, hard))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def main(argv: list[str]) -> int:
    limits: dict[str, int] = {}
    if argv[:1] == ["--limits"]:
        limits = json.loads(argv[1])
        argv = argv[2:]
    if argv[:1] != ["--"] or len(argv) < 2:
        print("usage: sandbox.py [--limits JSON] -- COMMAND ARGS...", file=sys.stderr)
        return 2
    command = argv[1:]
    parent = os.getppid()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    signal.signal(signal.SIGTERM, lambda *_: None)  # the bot gets it too; wait for it
    pid = os.fork()
    if pid == 0:
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            _apply_limits(limits)
            os.execvp(command[0], command)
        except BaseException as error:
            print(f"referee sandbox: cannot run {command[0]!r}: {error}", file=sys.stderr)
            os._exit(127)
    status = None
    while status is None:
        try:
            done, raw = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done, raw = pid, 0
        if done == pid:
            status = raw
            break
        with contextlib.suppress(ChildProcessError):
            os.waitpid(-1, os.WNOHANG)  # reap adopted orphans
        if os.getppid() != parent:  # the referee is gone: take everything down
            _kill_group_but_me()
            return 137
        time.sleep(0.05)
    _kill_group_but_me()
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        print(
            f"referee sandbox: bot killed by signal {sig} ({signal.Signals(sig).name})",
            file=sys.stderr,
        )
        return 128 + sig
    code = os.WEXITSTATUS(status)
    print(f"referee sandbox: bot exited with code {code}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
