"""``referee submit``: a bot folder packed, uploaded over HTTP to a served ladder, and followed.

The ladder is the web service in a thread (:class:`LadderServer`) over the
test ladder folder; a stand-in for the pipeline moves each received
submission on (building, checking, then active, or rejected with a reason),
so the command's following of the states is tested without building bots.
The command runs as a process, as a team runs it.
"""

from __future__ import annotations

import io
import os
import pathlib
import socket
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Iterator

import pytest

from referee.cli.scaffold import kit_files
from referee.ladder.submit_client import LadderClient, SubmitError, pack, wait_for
from referee.ladder.web import LadderServer
from tests.helpers import altered
from tests.ladder.webfixtures import Built, make_ladder

STARTER = pathlib.Path(__file__).resolve().parents[2] / "sample_bots" / "python" / "starter"


def _bot_folder(root: pathlib.Path, name: str = "hoot") -> pathlib.Path:
    folder = root / name
    folder.mkdir()
    (folder / "bot.yaml").write_text(f"name: {name}\nrun: python bot.py --socket {{socket}}\n")
    (folder / "bot.py").write_text("print('a bot')\n")
    (folder / ".gitignore").write_text("__pycache__/\n/build/\n*.log\n")
    (folder / "build").mkdir()
    (folder / "build" / "out.bin").write_bytes(b"built")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "bot.pyc").write_bytes(b"pyc")
    (folder / "run.log").write_text("log")
    (folder / "src").mkdir()
    (folder / "src" / "lib.py").write_text("x = 1\n")
    return folder


class _Pipeline:
    """The pipeline's part: received -> building -> checking -> active (or rejected)."""

    def __init__(self, built: Built, *, reject: str | None = None, step_s: float = 1.5) -> None:
        # Each state lasts a second and more: a loaded machine's client still sees each.
        self.built, self.reject, self.step_s = built, reject, step_s
        self.wake = threading.Event()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        db = self.built.db
        while not self.stop.is_set():
            self.wake.wait(0.2)
            self.wake.clear()
            for sub in db.submissions(states=("received",)):
                for state in ("building", "checking"):
                    time.sleep(self.step_s)
                    db.set_state(sub.id, state)
                time.sleep(self.step_s)
                if self.reject:
                    db.set_state(sub.id, "rejected", reason=self.reject)
                else:
                    db.activate(sub.id, keep=1)


@pytest.fixture
def served(tmp_path: pathlib.Path) -> Iterator[tuple[Built, LadderServer]]:
    built = make_ladder(tmp_path, games=4)
    pipeline = _Pipeline(built)
    built.site.on_received = pipeline.wake.set
    server = LadderServer(built.site, port=0)
    assert server.start()
    try:
        yield built, server
    finally:
        server.stop()
        pipeline.stop.set()


def _submit(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", "submit", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def test_pack_leaves_out_what_gitignore_ignores(tmp_path: pathlib.Path) -> None:
    folder = _bot_folder(tmp_path)
    packed = pack(folder, kit_files(folder))
    assert packed.name == "hoot"
    with tarfile.open(fileobj=io.BytesIO(packed.data), mode="r:gz") as tar:
        members = {m.name: m for m in tar.getmembers()}
    assert set(members) == {".gitignore", "bot.py", "bot.yaml", "src/lib.py"}
    assert all(m.uid == 0 and m.uname == "" and m.mode in (0o644, 0o755) for m in members.values())
    assert pack(folder, kit_files(folder)).data == packed.data  # the same folder, the same bytes


def test_pack_refuses_links_and_folders_without_bot_yaml(tmp_path: pathlib.Path) -> None:
    folder = _bot_folder(tmp_path)
    (folder / "secrets").symlink_to("/etc/passwd")
    with pytest.raises(SubmitError, match="secrets: a symbolic link"):
        pack(folder, kit_files(folder))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(SubmitError, match=r"no bot\.yaml"):
        pack(empty, [])


def test_submit_uploads_and_follows_to_active(
    served: tuple[Built, LadderServer], tmp_path: pathlib.Path
) -> None:
    built, server = served
    folder = _bot_folder(tmp_path)
    done = _submit(server.url, str(folder), "--token", built.tokens["owls"])
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("submission ") and lines[0].endswith(": hoot.v2 received")
    assert [line.split(": ")[-1] for line in lines[1:]] == ["building", "checking", "active"]
    assert "packed 4 files" in done.stderr  # .gitignore, bot.py, bot.yaml, src/lib.py
    sub = built.db.submissions(bot="hoot")[-1]
    assert (sub.version, sub.state) == (2, "active")
    assert sorted(p.name for p in (built.root / "submissions" / str(sub.id)).iterdir()) == [
        ".gitignore", "bot.py", "bot.yaml", "src"
    ]  # fmt: skip


def test_submit_no_wait_and_another_name(
    served: tuple[Built, LadderServer], tmp_path: pathlib.Path
) -> None:
    built, server = served
    folder = _bot_folder(tmp_path)
    done = _submit(
        server.url + "/", str(folder), "--name", "owlet", "--no-wait",
        env={"REFEREE_LADDER_TOKEN": built.tokens["owls"]},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(": owlet.v1 received")


def test_a_rejected_submission_says_why(tmp_path: pathlib.Path) -> None:
    built = make_ladder(tmp_path, games=4)
    pipeline = _Pipeline(
        built, reject="check-bot failed: R5: played a heart on the first trick", step_s=0.2
    )
    built.site.on_received = pipeline.wake.set
    server = LadderServer(built.site, port=0)
    assert server.start()
    try:
        folder = _bot_folder(tmp_path)
        done = _submit(server.url, str(folder), "--token", built.tokens["owls"])
    finally:
        server.stop()
        pipeline.stop.set()
    assert done.returncode == 1
    assert done.stdout.splitlines()[-1].endswith(
        "rejected: check-bot failed: R5: played a heart on the first trick"
    )


@pytest.mark.parametrize(
    ("case", "said"),
    [
        ("wrong token", "the ladder refused the token: wrong token"),
        ("other team", "not allowed: bot name 'hoot' belongs to another team"),
        ("too large", "the upload is too large"),
        ("link", "a symbolic link"),
    ],
)
def test_refusals_are_messages(
    served: tuple[Built, LadderServer], tmp_path: pathlib.Path, case: str, said: str
) -> None:
    built, server = served
    folder = _bot_folder(tmp_path)
    token = built.tokens["larks" if case == "other team" else "owls"]
    if case == "wrong token":
        token = altered(token, 4)
    if case == "too large":
        size = built.site.config.submissions.max_upload_bytes
        (folder / "big.bin").write_bytes(os.urandom(size + 1))
    if case == "link":
        (folder / "link").symlink_to("bot.py")
    done = _submit(server.url, str(folder), "--token", token)
    assert done.returncode == 1
    assert said in done.stderr
    assert "Traceback" not in done.stderr


def test_an_unreachable_ladder_and_a_bad_url(tmp_path: pathlib.Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    folder = _bot_folder(tmp_path)
    done = _submit(f"http://127.0.0.1:{port}", str(folder), "--token", "hl_x")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"cannot reach the ladder at http://127.0.0.1:{port}: Connection refused" in done.stderr
    done = _submit("ladder.example:8000", str(folder), "--token", "hl_x")
    assert "starts with http:// or https://" in done.stderr and "Traceback" not in done.stderr


def test_wait_for_gives_up_after_its_timeout() -> None:
    class Stuck(LadderClient):
        def status(self, submission: int, *, after: str | None = None, wait_s: float = 0) -> dict:  # type: ignore[type-arg]
            time.sleep(min(wait_s, 0.05))
            return {"id": submission, "state": "building"}

    seen: list[str] = []
    with pytest.raises(SubmitError, match=r"still building after 0\.2 s"):
        wait_for(
            Stuck("http://127.0.0.1:1", "t"), 5, lambda s: seen.append(s["state"]),
            poll_s=0.05, timeout_s=0.2,
        )  # fmt: skip
    assert seen == ["building"]
