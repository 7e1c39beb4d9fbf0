"""The bot protocol passes ``buf lint`` and ``buf format`` and has no breaking change since v1.

``buf.yaml`` holds the rules: buf's STANDARD lint rules, with one recorded
exception (the service is ``HeartsBot``, not ``HeartsBotService``: renaming
it would break every bot), and the FILE breaking-change rules, checked
against ``proto/`` as first published (:data:`V1_COMMIT`). Every bot carries
its own copy of the proto, so a breaking change would break bots that have
already been written. The wire-compatible changes made on purpose since (two
renames, two fields given explicit presence) are buf.yaml's breaking
exceptions; :data:`RECORDED_CHANGES` lists them, and the strict FILE check
against the first hearts.v1 with exactly those changes applied shows that
nothing else changed.

buf is a Go program: the test installs the pinned :data:`BUF_VERSION` with
``go install`` (from the Go module proxy) into a cache folder,
``~/.cache/hearts-referee/tools``, once, or uses a ``buf`` on the PATH of
that version. Without Go it skips with a message.
"""

from __future__ import annotations

import io
import json
import pathlib
import shutil
import subprocess
import tarfile

import pytest
import yaml

from tests.helpers import go_install, tools_dir

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUF_VERSION = "v1.75.0"
#: The first commit with proto/: hearts.v1 as bots were first written against it.
V1_COMMIT = "9dcb162c2812f71462d6773fc9ca40936966f9b1"
#: The wire-compatible changes since V1_COMMIT that FILE calls breaking, as
#: (text of the first hearts.v1, what it became); buf.yaml records their rules.
RECORDED_CHANGES = [
    ("PassDirection direction = 6;", "PassDirection pass_direction = 6;"),
    ("int32 passed_to = 10;", "int32 pass_to = 10;"),
    ("int32 winner = 3;", "optional int32 winner = 3;"),
    ("int32 moon_shooter = 5;", "optional int32 moon_shooter = 5;"),
]
#: The FILE rules those changes break, each exempt for the one file.
BREAKING_EXCEPTIONS = ["FIELD_SAME_NAME", "FIELD_SAME_JSON_NAME", "FIELD_SAME_CARDINALITY"]
PROTO = "proto/hearts/v1/hearts.proto"


def _version(buf: str) -> str:
    run = subprocess.run([buf, "--version"], capture_output=True, text=True, check=False)
    return run.stdout.strip() or run.stderr.strip()


@pytest.fixture(scope="module")
def buf() -> str:
    """The path of buf :data:`BUF_VERSION`: on the PATH, in the cache, or installed there."""
    wanted = BUF_VERSION.removeprefix("v")
    on_path = shutil.which("buf")
    if on_path and _version(on_path) == wanted:
        return on_path
    folder = tools_dir() / f"buf-{BUF_VERSION}"
    cached = folder / "buf"
    if cached.is_file() and _version(str(cached)) == wanted:
        return str(cached)
    go = shutil.which("go")
    if go is None:
        pytest.skip(
            f"buf lint skipped: neither buf {BUF_VERSION} nor Go found; install Go "
            f"(or `go install github.com/bufbuild/buf/cmd/buf@{BUF_VERSION}`)"
        )
    go_install(go, "github.com/bufbuild/buf/cmd/buf", BUF_VERSION, folder)
    assert _version(str(cached)) == wanted
    return str(cached)


def _buf(buf: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [buf, *args],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_lint_exception_is_only_the_service_name() -> None:
    """Nothing but SERVICE_SUFFIX, in the one file, is exempt from the STANDARD rules."""
    config = yaml.safe_load((ROOT / "buf.yaml").read_text())
    assert config["version"] == "v2"
    assert config["modules"] == [{"path": "proto"}]
    lint = config["lint"]
    assert lint["use"] == ["STANDARD"]
    assert set(lint) == {"use", "ignore_only"}
    assert lint["ignore_only"] == {"SERVICE_SUFFIX": ["proto/hearts/v1/hearts.proto"]}
    assert config["breaking"] == {
        "use": ["FILE"],
        "ignore_only": {rule: [PROTO] for rule in BREAKING_EXCEPTIONS},
    }


@pytest.mark.toolchain
@pytest.mark.timeout(1800)  # a cold `go install` of buf fetches and compiles it
def test_buf_lint(buf: str) -> None:
    run = _buf(buf, "lint")
    assert run.returncode == 0, f"buf lint:\n{run.stdout}{run.stderr}"


@pytest.mark.toolchain
@pytest.mark.timeout(1800)
def test_buf_format(buf: str) -> None:
    run = _buf(buf, "format", "--exit-code", "--diff")
    assert run.returncode == 0, f"buf format wants changes:\n{run.stdout}{run.stderr}"


def _strict_config() -> str:
    """buf.yaml without its breaking exceptions, as a --config value."""
    config = yaml.safe_load((ROOT / "buf.yaml").read_text())
    config["breaking"].pop("ignore_only", None)
    return json.dumps(config)


def _v1_proto(tmp_path: pathlib.Path) -> pathlib.Path:
    """proto/ as of V1_COMMIT, extracted under tmp_path (skips where git cannot give it)."""
    shallow = subprocess.run(
        ["git", "rev-parse", "--is-shallow-repository"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if shallow.returncode != 0:
        pytest.skip("buf breaking skipped: not a git checkout")
    known = subprocess.run(
        ["git", "cat-file", "-e", f"{V1_COMMIT}^{{commit}}"], cwd=ROOT, check=False
    )
    if known.returncode != 0 and shallow.stdout.strip() == "true":
        pytest.skip(f"buf breaking skipped: a shallow clone lacks {V1_COMMIT[:9]}; fetch it")
    assert known.returncode == 0, f"{V1_COMMIT} (the first hearts.v1) is not in the history"
    archive = subprocess.run(
        ["git", "archive", "--format=tar", V1_COMMIT, "proto"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(tmp_path, filter="data")
    return tmp_path / "proto"


@pytest.mark.toolchain
@pytest.mark.timeout(1800)
def test_no_breaking_change_since_v1(buf: str, tmp_path: pathlib.Path) -> None:
    v1 = _v1_proto(tmp_path)
    run = _buf(buf, "breaking", "--against", str(v1))
    assert run.returncode == 0, (
        f"proto/ breaks hearts.v1 as of {V1_COMMIT[:9]} (buf breaking):\n{run.stdout}{run.stderr}"
    )


@pytest.mark.toolchain
@pytest.mark.timeout(1800)
def test_only_the_recorded_changes_need_the_exceptions(buf: str, tmp_path: pathlib.Path) -> None:
    """Strict FILE rules hold against the first hearts.v1 with RECORDED_CHANGES applied."""
    v1 = _v1_proto(tmp_path)
    proto = v1 / "hearts" / "v1" / "hearts.proto"
    text = proto.read_text()
    for old, new in RECORDED_CHANGES:
        assert text.count(old) == 1, f"{old!r} is not once in the first hearts.v1"
        text = text.replace(old, new)
    proto.write_text(text)
    run = _buf(buf, "breaking", "--against", str(v1), "--config", _strict_config())
    assert run.returncode == 0, f"changes beyond RECORDED_CHANGES:\n{run.stdout}{run.stderr}"


@pytest.mark.toolchain
@pytest.mark.timeout(1800)
def test_buf_breaking_catches_a_renamed_field(buf: str, tmp_path: pathlib.Path) -> None:
    """The breaking check is not vacuous: renaming a field of the current proto fails it."""
    work = tmp_path / "work"
    shutil.copytree(ROOT / "proto", work / "proto")
    shutil.copy(ROOT / "buf.yaml", work / "buf.yaml")
    proto = work / "proto" / "hearts" / "v1" / "hearts.proto"
    text = proto.read_text()
    assert "int32 num_players = 1;" in text
    proto.write_text(text.replace("int32 num_players = 1;", "int32 players = 1;"))
    run = subprocess.run(
        [buf, "breaking", "--against", str(ROOT / "proto"), "--config", _strict_config()],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode != 0
    assert 'changed name from "num_players" to "players"' in run.stdout
