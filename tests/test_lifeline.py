"""referee.sandbox.lifeline: a spawned worker dies with its parent even while it is still importing."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time

import pytest

# The parent spawns a child and prints its pid. The child first runs this file as its
# main module (multiprocessing's `__mp_main__`), which takes 30 s here: as the
# referee's imports do on a loaded machine, only longer.
PARENT = """
import sys, time

if __name__ == "__mp_main__":
    time.sleep(30)

if __name__ == "__main__":
    import multiprocessing
    from referee.sandbox import lifeline
    kind = sys.argv[1]
    context = lifeline.spawn_context() if kind == "lifeline" else multiprocessing.get_context("spawn")
    child = context.Process(target=time.sleep, args=(60,))
    child.start()
    print(child.pid, flush=True)
    time.sleep(60)
"""


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :].split()[0] != b"Z"


@pytest.mark.parametrize("kind", ["lifeline", "plain spawn"])
def test_a_spawned_child_dies_with_its_parent_before_its_imports(
    tmp_path: pathlib.Path, kind: str
) -> None:
    script = tmp_path / "parent.py"
    script.write_text(textwrap.dedent(PARENT))
    parent = subprocess.Popen(
        [sys.executable, str(script), kind], stdout=subprocess.PIPE, text=True, cwd=tmp_path
    )
    child = 0
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        time.sleep(0.5)  # the child is importing its main module
        assert alive(child)
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 5
        while alive(child) and time.monotonic() < deadline:
            time.sleep(0.02)
        if kind == "lifeline":
            assert not alive(child), "the child outlived its parent"
        else:  # what lifeline is for: a plain spawned child lives on until its imports end
            assert alive(child)
    finally:
        parent.kill()
        parent.wait()
        if child and alive(child):
            os.kill(child, signal.SIGKILL)
