"""build.parallel across processes: the build slots a Ray node's workers share (lock files)."""

from __future__ import annotations

import pathlib
import threading
import time

from referee.players.builds import build_slot


def test_no_more_builds_than_slots_hold_them_at_once(tmp_path: pathlib.Path) -> None:
    # Each thread opens the lock files itself, as another process would (flock is per open).
    # Builds in a slot wait for a second one (so two do run at once, whatever the load),
    # then linger, so that a third would show if the slots let it in.
    running, most, lock = [0], [0], threading.Lock()
    pair = threading.Barrier(2, timeout=20)

    def one_build() -> None:
        with build_slot(tmp_path, 2):
            with lock:
                running[0] += 1
                most[0] = max(most[0], running[0])
            pair.wait()
            time.sleep(0.3)
            with lock:
                running[0] -= 1

    threads = [threading.Thread(target=one_build) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not any(t.is_alive() for t in threads)
    assert most[0] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["build-slot-0.lock", "build-slot-1.lock"]
