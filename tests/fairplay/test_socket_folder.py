"""Fair play III, hole 3: a bot that fills its socket folder and crashes (issue 23).

The socket folder is the one place on the host a sandboxed bot can write (on
the host's ``/dev/shm``, a tmpfs). The attacker (bots/filler.py) writes 120
MiB there at the first decision of every start and exits; the referee
restarts it, three times. Before the fix every start was restarted into the
same folder, which grew by 120 MiB a start, uncounted. Now:

- each start has a folder of its own, empty when it starts, and removed when
  that start ends: while the tournament plays, a watcher from outside never
  sees more than one of the attacker's folders, nor more than one start's
  worth of its bytes, on the host;
- what a bot writes there is charged to its memory cgroup: the same attacker
  with a memory limit below 120 MiB is stopped at it (``memory_limit``);
- the honest bots at the table are unaffected: no faults.
"""

from __future__ import annotations

import os
import pathlib
import sys
import threading
import time

import pytest

from referee.folder import read_journal
from referee.tournament import Tournament
from referee.tournament.config import load_config
from tests.helpers import require_cgroups, require_sandbox, wait_no_processes_in

pytestmark = pytest.mark.slow

BOT = pathlib.Path(__file__).resolve().parent / "bots" / "filler.py"
MIB = 1 << 20


class Watcher(threading.Thread):
    """Samples every bot socket folder on the host's /dev/shm and its bytes, as an outsider."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.samples: list[dict[str, int]] = []
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            sample: dict[str, int] = {}
            for folder in pathlib.Path("/dev/shm").glob("hr-*/b*"):
                try:
                    sample[str(folder)] = sum(
                        f.stat().st_blocks * 512 for f in folder.iterdir() if f.is_file()
                    )
                except OSError:
                    continue  # removed while we looked
            self.samples.append(sample)
            time.sleep(0.02)


def bot_stderr(out: pathlib.Path, name: str) -> str:
    """What bot ``name`` wrote on stderr (in its game worker's folder of bots/)."""
    return "".join(p.read_text() for p in sorted(out.glob(f"bots/**/{name}.stderr.log")))


def started_in(stderr: str) -> list[str]:
    """The socket folders of the attacker's starts, in order, from what it said."""
    return [
        line.split()[3].rstrip(";")
        for line in stderr.splitlines()
        if line.startswith("filler: start in ")
    ]


def test_a_filled_socket_folder_goes_with_its_start(tmp_path: pathlib.Path) -> None:
    require_sandbox()
    require_cgroups()
    filler = f'"{{python}} {BOT} --address {{address}} --mb 120"'
    config = tmp_path / "t.yaml"
    config.write_text(
        "\n".join(
            [
                "seed: 5",
                "bots:",
                f"  filler: {filler}",
                f"  capped: {{bot: {filler}, limits: {{memory_bytes: 96M}}}}",
                "  random: random",
                "  heuristic: heuristic",
                "rules: {target_score: 30}",
                "schedule: {duplicate: false}",
                "fault_policy: {max_restarts: 3, max_faults: 100}",
                "concurrency: 1",
                "output: out",
            ]
        )
        + "\n"
    )
    watcher = Watcher()
    watcher.start()
    try:
        result = Tournament(load_config(config), echo=lambda _: None).run()
    finally:
        watcher.done.set()
        watcher.join()
    assert result.complete
    out = tmp_path / "out"
    entries = [e for e in read_journal(out / "journal.jsonl") if e["type"] == "game"]
    assert len(entries) == 1
    by_seat = dict(zip(entries[0]["bots"], entries[0]["faults"], strict=True))
    assert not by_seat["random"] and not by_seat["heuristic"], by_seat  # honest: unaffected

    stderr = bot_stderr(out, "filler")
    starts = started_in(stderr)
    print(stderr[-3000:], file=sys.stderr)
    assert len(starts) == 4, stderr[-3000:]  # the first start and its three restarts
    assert len(set(starts)) == 4  # a folder per start ...
    assert "found []" in stderr and "found ['" not in stderr  # ... empty when it starts
    assert stderr.count("filler: wrote 120 MiB") == 4  # under its 2 GiB memory limit
    assert by_seat["filler"].get("crash", 0) >= 4, by_seat
    for sample in watcher.samples:
        mine = {f: size for f, size in sample.items() if f in starts}
        assert len(mine) <= 1, mine  # the old start's folder is gone before the next starts
        assert sum(mine.values()) <= 121 * MIB, mine  # one start's worth at most
    # The watcher saw the attack (it is not blind): a folder holding 120 MiB at some point.
    assert any(sample.get(f, 0) >= 120 * MIB for sample in watcher.samples for f in starts)
    assert not any(os.path.exists(f) for f in starts)

    # Capped below what it writes, the same attack is a memory fault: the folder's bytes are
    # the bot's memory.
    capped = bot_stderr(out, "capped")
    assert by_seat["capped"].get("memory_limit", 0) >= 1, (by_seat, capped[-2000:])
    assert "filler: wrote 120 MiB" not in capped
    assert not any(os.path.exists(f) for f in started_in(capped))
    assert not wait_no_processes_in(tmp_path)
