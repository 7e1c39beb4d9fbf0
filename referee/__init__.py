"""A referee for Hearts bot tournaments.

:func:`choose_grpc_client` chooses grpcio's client I/O for a referee's
process. It must run before grpcio is imported, so the command line
(``referee.cli``) calls it first thing. Importing the package does not: bots
import it too (``referee.botkit``), and the choice was measured for the
referee's calls, not for a bot's server (docs/performance.md, sixth round).
"""

from __future__ import annotations

import os
import sys

__version__ = "0.1.0"

#: What the referee sets ``GRPC_EXPERIMENTS`` to: grpcio's older client I/O (the
#: iomgr poller, in the calling thread) instead of its EventEngine client, whose
#: I/O threads wake for every call. Measured in Go kit tournaments (4 launched,
#: sandboxed bots, docs/performance.md, sixth round): 11% less wall time and 12%
#: less CPU a decision at concurrency 1, 15% more games a minute at 2.
GRPC_EXPERIMENTS = "-event_engine_client"
#: The grpcio releases it was measured with. A later one may have dropped the
#: experiment (grpcio then logs an error for an unknown name at every start), so
#: it runs with its own defaults until it is measured and added here.
GRPC_MEASURED = ("1.85.",)
#: ``GRPC_EXPERIMENTS`` as the process found it (None: unset). A tool that starts
#: another referee to compare with (bench/referee.py's baseline) passes this on.
GRPC_EXPERIMENTS_BEFORE = os.environ.get("GRPC_EXPERIMENTS")
#: True once :func:`choose_grpc_client` set ``GRPC_EXPERIMENTS`` in this process.
GRPC_CLIENT_CHOSEN = False


def _grpcio_version() -> str | None:
    """The installed grpcio's version, read without importing it (None if not found).

    ``importlib.util`` is imported here, not at the top: every process of the
    referee imports this package, the bots' supervisors too, whose start must
    stay cheap (tests/players/test_supervisor.py); only the command line calls this.
    """
    import importlib.util

    try:
        spec = importlib.util.find_spec("grpc")  # finds a top-level package without importing it
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    metadata = os.path.join(os.path.dirname(spec.origin), "_grpcio_metadata.py")
    try:
        with open(metadata, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    return text.partition('"""')[2].partition('"""')[0] or None


def choose_grpc_client() -> bool:
    """Set ``GRPC_EXPERIMENTS`` to :data:`GRPC_EXPERIMENTS` for a referee's process; True if set.

    Left alone when the user set the variable (theirs wins), when grpcio is
    already imported (too late: it read the variable when it started), and with
    a grpcio not in :data:`GRPC_MEASURED`. The process's children inherit it:
    the game workers want it too, and bots and builds get a scrubbed
    environment without it.
    """
    global GRPC_CLIENT_CHOSEN
    if GRPC_CLIENT_CHOSEN:
        return True
    if GRPC_EXPERIMENTS_BEFORE is not None or "grpc" in sys.modules:
        return False
    version = _grpcio_version()
    if version is None or not version.startswith(GRPC_MEASURED):
        return False
    os.environ["GRPC_EXPERIMENTS"] = GRPC_EXPERIMENTS
    GRPC_CLIENT_CHOSEN = True
    return True


def environ_as_found() -> dict[str, str]:
    """This process's environment with ``GRPC_EXPERIMENTS`` as the process found it.

    For a child that chooses its own gRPC client: Ray's processes, or another
    referee that a benchmark compares with.
    """
    env = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    if GRPC_EXPERIMENTS_BEFORE is not None:
        env["GRPC_EXPERIMENTS"] = GRPC_EXPERIMENTS_BEFORE
    return env
