"""Worker processes that die with the referee from their first moments (stdlib only).

A game worker (``bot_processes: per_worker``) is a spawned Python process. It
must not outlive the referee, even one killed with SIGKILL, and only the
worker itself can ask the kernel for that (the parent-death signal is set by
the child, after its ``exec``). A spawned worker first imports the referee's
modules (its main module, then those its task names), which takes seconds on
a loaded machine; a worker that asked only after that would live on for those
seconds after the referee's death.

So a process of :func:`spawn_context` carries the referee's pid in its name,
the first thing a spawned process reads from its parent: unpickling the name
calls :func:`die_with_parent`, before anything of the referee is imported. It
is unpickled before the child has the referee's ``sys.path`` too, so it names
only the standard library: it runs this file by its path (``runpy``).
"""

from __future__ import annotations

import contextlib
import multiprocessing.context
import operator
import os
import runpy
import select
import signal
import threading
from typing import Any

__all__ = ["die_with_parent", "spawn_context"]

_PR_SET_PDEATHSIG = 1
_WATCH_THREAD = "parent-watch"
#: The run name of this file when a spawned child runs it by path.
_IN_CHILD = "referee-lifeline-in-child"
_lock = threading.Lock()


def die_with_parent(parent: int) -> None:
    """End this process the moment its parent ``parent`` ends, however it ends.

    Two layers: the kernel's parent-death signal (set, then checked against a
    parent that died before it was set), and a thread blocked on a pidfd of
    the parent, which does not depend on which of the parent's threads
    started us. A process whose parent is not ``parent`` (any more) exits at
    once. Calling it again starts no second thread.
    """
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)  # the referee died before we got here
    with _lock:
        if any(t.name == _WATCH_THREAD for t in threading.enumerate()):
            return
        try:
            pidfd = os.pidfd_open(parent)
        except (OSError, AttributeError):
            return
        if os.getppid() != parent:  # so the pidfd is of our parent, not of a reused pid
            os._exit(1)
        threading.Thread(
            target=_exit_when_readable, args=(pidfd,), name=_WATCH_THREAD, daemon=True
        ).start()


def _exit_when_readable(fd: int) -> None:
    select.select([fd], [], [])
    os._exit(1)  # the processes we started watch us, and end too


class _ParentName(str):
    """A process's name that, unpickled in the process, makes it die with ``parent``."""

    parent: int

    def __new__(cls, name: str, parent: int) -> _ParentName:
        self = super().__new__(cls, name)
        self.parent = parent
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (operator.getitem, (_RunInChild(str(self), self.parent), "NAME"))


class _RunInChild:
    """Unpickled: this file run by path in the child, with NAME and PARENT given."""

    def __init__(self, name: str, parent: int) -> None:
        self.globals = {"NAME": name, "PARENT": parent}

    def __reduce__(self) -> tuple[Any, ...]:
        return (runpy.run_path, (os.path.abspath(__file__), self.globals, _IN_CHILD))


class _Process(multiprocessing.context.SpawnProcess):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if os.path.isfile(__file__):
            self._name = _ParentName(self._name, os.getpid())


class _Context(multiprocessing.context.SpawnContext):
    Process = _Process


def spawn_context() -> multiprocessing.context.SpawnContext:
    """The ``spawn`` context, whose processes die with this one from their start (see above)."""
    return _Context()


if __name__ == _IN_CHILD:
    die_with_parent(globals()["PARENT"])
