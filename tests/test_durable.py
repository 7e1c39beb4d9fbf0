"""referee.durable.write_bytes: a crash leaves the old version or the new one, never half.

The crash tests kill a real process (SIGKILL, nothing cleaned up) at each step
of a write, and the target must then hold exactly the old bytes or exactly
the new ones. The order of the steps that make it durable (the data synced
before the rename, the folder synced after it) is checked by watching the
calls. A symbolic link planted where the temporary file goes is not written
through.
"""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import textwrap

import pytest

from referee import durable

OLD = b"old version\n" * 1000
NEW = b"new version, longer than the old one\n" * 5000


def test_writes_the_whole_file_and_replaces_an_old_one(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "a" / "b" / "state.json"  # the folders are made
    durable.write_bytes(path, NEW)
    assert path.read_bytes() == NEW
    durable.write_bytes(path, b"short")
    assert path.read_bytes() == b"short"  # nothing of the longer old version is left
    assert sorted(p.name for p in path.parent.iterdir()) == ["state.json"]  # no .tmp left


def test_the_data_is_synced_before_the_rename_and_the_folder_after(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "standings.json"
    steps: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        target = os.readlink(f"/proc/self/fd/{fd}")
        steps.append(
            "fsync folder" if os.path.isdir(target) else f"fsync {pathlib.Path(target).name}"
        )
        real_fsync(fd)

    def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        steps.append(f"replace {pathlib.Path(src).name} -> {pathlib.Path(dst).name}")
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    durable.write_bytes(path, NEW)
    assert steps == [
        "fsync standings.json.tmp",
        "replace standings.json.tmp -> standings.json",
        "fsync folder",
    ]


CRASH = textwrap.dedent(
    """
    import os, signal, sys
    from referee import durable

    step = sys.argv[2]
    real = {"fsync": os.fsync, "replace": os.replace}

    def crash(*args):
        os.kill(os.getpid(), signal.SIGKILL)

    if step == "write":  # half the data written, then killed
        real_open = open

        class Half:
            def __init__(self, f):
                self.f = f
            def __enter__(self):
                return self
            def __exit__(self, *exc):
                self.f.close()
            def write(self, data):
                self.f.write(data[: len(data) // 2])
                self.f.flush()
                crash()

        import builtins
        builtins.open = lambda *a, **k: Half(real_open(*a, **k))
    elif step == "fsync":
        os.fsync = crash
    elif step == "replace":
        os.replace = crash
    elif step == "folder":  # after the rename, before the folder is synced
        durable.sync_folder = crash
    durable.write_bytes(sys.argv[1], b"new version, longer than the old one\\n" * 5000)
    """
)


@pytest.mark.parametrize("step", ["write", "fsync", "replace", "folder"])
def test_a_crash_at_any_step_leaves_the_old_or_the_new_version(
    tmp_path: pathlib.Path, step: str
) -> None:
    path = tmp_path / "tournament.json"
    path.write_bytes(OLD)
    crashed = subprocess.run(
        [sys.executable, "-c", CRASH, str(path), step], capture_output=True, timeout=60
    )
    assert crashed.returncode == -signal.SIGKILL, crashed.stderr.decode()
    expected = NEW if step == "folder" else OLD  # the rename either happened or it did not
    assert path.read_bytes() == expected
    # A later write over the leftover temporary file still works.
    durable.write_bytes(path, b"after")
    assert path.read_bytes() == b"after"


def test_a_symlink_planted_as_the_temporary_file_is_not_written_through(
    tmp_path: pathlib.Path,
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"precious")
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "standings.json.tmp").symlink_to(outside)
    durable.write_bytes(folder / "standings.json", NEW)
    assert outside.read_bytes() == b"precious"
    assert (folder / "standings.json").read_bytes() == NEW
    assert not (folder / "standings.json").is_symlink()


def test_a_symlink_at_the_target_is_replaced_not_followed(tmp_path: pathlib.Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"precious")
    link = tmp_path / "standings.json"
    link.symlink_to(outside)
    durable.write_bytes(link, NEW)
    assert outside.read_bytes() == b"precious"
    assert not link.is_symlink() and link.read_bytes() == NEW
