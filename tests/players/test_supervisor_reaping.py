"""The sandbox supervisor reports the bot's own exit code, even when it reaps the bot with its orphans.

The supervisor is a subreaper: between two looks at the bot it reaps every ended child
(``waitpid(-1)``). A bot that ends at that moment used to be reaped there, its status
lost, and its crash reported as "exited with code 0" (seen once in a suite run:
``test_crash_and_restart``).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

# Run in a process of its own: the supervisor kills its whole process group at the end.
_SCRIPT = textwrap.dedent(
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
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        capture_output=True,
        text=True,
        timeout=60,
        start_new_session=True,
    )
    assert "bot exited with code 3" in done.stderr, done.stderr
    assert done.returncode == 3, done.stderr
