"""Runs the sandbox supervisor (:mod:`referee.sandbox.supervisor`) from its compiled modules.

``python -I -S supervise.py ARGS...``, as :func:`referee.sandbox.supervisor.command`
writes it. A script run by path is compiled from its source at every start, and
every bot's start pays for that: this one is a few lines, and the supervisor and
its cgroups come from their cached bytecode. The folder that holds the
``referee`` package goes after the standard library on the path, and nothing
but the supervisor, :mod:`referee.sandbox.cgroups` and the standard library is
imported (``referee/__init__.py`` and ``referee/sandbox/__init__.py`` import
nothing).

``supervise.py --serve SOCKET_FD PARENT_FD`` runs the fork server
(:mod:`referee.sandbox.forkserver`) instead, which forks a supervisor for each
bot start.
"""

import os
import sys

sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))
if sys.argv[1:2] == ["--serve"]:
    from referee.sandbox import forkserver

    sys.exit(forkserver.serve(sys.argv[2:]))
from referee.sandbox import supervisor

sys.exit(supervisor.main(sys.argv[1:]))
