"""Runs the sandbox supervisor (:mod:`referee.sandbox.supervisor`) from its compiled module.

``python -I -S supervise.py ARGS...``, as :func:`referee.sandbox.supervisor.command`
writes it. A script run by path is compiled from its source at every start, and
every bot's start pays for that: this one is four lines, and the supervisor's
800 come from its cached bytecode. Only the standard library is imported: the
folder added to the path holds the supervisor, and it imports no sibling.
"""

import os
import sys

sys.path.append(os.path.dirname(os.path.realpath(__file__)))  # after the standard library
import supervisor

sys.exit(supervisor.main(sys.argv[1:]))
