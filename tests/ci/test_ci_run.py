"""Issue 25: under HEARTS_CI=1 a missing toolchain fails the run, naming it; without, it skips.

``.ci/run`` checks every toolchain before the suite and sets ``HEARTS_CI=1``,
under which tests/conftest.py turns each skip into a failure. Here Go is taken
off the ``PATH`` (a copy of the ``PATH`` whose folders holding ``go`` are
replaced by links to everything else in them), and both layers must say so:
``.ci/run --check`` and a toolchain test run by pytest.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

from tests.helpers import CI_FLAG

pytestmark = pytest.mark.slow  # each test starts a pytest, or .ci/run's checks, of its own

ROOT = pathlib.Path(__file__).resolve().parents[2]
#: A toolchain test: check-bot building the Go kit (it skips at once when Go is missing).
GO_TEST = "tests/checkbot/test_kits.py"


def path_without(tool: str, shims: pathlib.Path) -> str:
    """The PATH with ``tool`` removed and every other program still found where it was."""
    folders: list[str] = []
    for index, folder in enumerate(os.environ["PATH"].split(os.pathsep)):
        if not (pathlib.Path(folder) / tool).exists():
            folders.append(folder)
            continue
        shim = shims / str(index)
        shim.mkdir(parents=True)
        for entry in pathlib.Path(folder).iterdir():
            if entry.name != tool:
                (shim / entry.name).symlink_to(entry)
        folders.append(str(shim))
    # The Python running the tests, whose folder may hold nothing else we need.
    folders.insert(0, str(pathlib.Path(sys.executable).parent))
    return os.pathsep.join(folders)


@pytest.fixture
def no_go(tmp_path: pathlib.Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != CI_FLAG}
    env["PATH"] = path_without("go", tmp_path / "shims")
    probe = subprocess.run(["sh", "-c", "command -v go"], env=env, capture_output=True)
    assert probe.returncode != 0, f"go is still found: {probe.stdout!r}"
    return env


def run_pytest(env: dict[str, str], tmp_path: pathlib.Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", GO_TEST, "-p", "no:cacheprovider", "-o", "addopts=-ra"],
        cwd=ROOT,
        env={**env, "TMPDIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_without_the_flag_a_missing_toolchain_skips_with_a_message(
    no_go: dict[str, str], tmp_path: pathlib.Path
) -> None:
    run = run_pytest(no_go, tmp_path)
    assert run.returncode == 0, run.stdout[-3000:]
    assert "1 skipped" in run.stdout, run.stdout[-3000:]
    assert "go not found; install Go 1.26+" in run.stdout, run.stdout[-3000:]


def test_under_the_flag_a_missing_toolchain_fails_naming_it(
    no_go: dict[str, str], tmp_path: pathlib.Path
) -> None:
    run = run_pytest({**no_go, CI_FLAG: "1"}, tmp_path)
    assert run.returncode == 1, run.stdout[-3000:]
    summary = run.stdout.strip().splitlines()[-1]
    assert "1 failed" in summary and "skipped" not in summary, run.stdout[-3000:]
    assert (
        "HEARTS_CI=1: this test skipped, and a skip is a failure here: "
        "go starter kit skipped: go not found; install Go 1.26+"
    ) in run.stdout, run.stdout[-3000:]


def test_ci_run_fails_before_the_suite_naming_the_missing_toolchain(
    no_go: dict[str, str],
) -> None:
    run = subprocess.run(
        [str(ROOT / ".ci" / "run"), "--check"],
        cwd=ROOT,
        env=no_go,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "ci:   go: not found; install Go 1.26+" in run.stderr, run.stderr
    assert "every toolchain" not in run.stdout


def test_ci_run_check_passes_where_everything_is_installed() -> None:
    """``.ci/run --check``'s own probes run: a probe that raises is a bug in the script.

    Stop 39's CI failed after 9 s: the cgroup probes still imported
    ``supervisor.cgroup_support``, moved to ``referee.sandbox.cgroups``, and every
    test passed while ``.ci/run`` could not start them.
    """
    run = subprocess.run(
        [str(ROOT / ".ci" / "run"), "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    problems = [line for line in run.stderr.splitlines() if line.startswith("ci:   ")]
    raised = [line for line in problems if "Error:" in line or "Traceback" in line]
    assert not raised, "a probe of .ci/run raised:\n" + "\n".join(raised)
    if run.returncode != 0:
        pytest.skip("this machine lacks what CI installs:\n" + "\n".join(problems))
    assert "every toolchain" in run.stdout, run.stdout + run.stderr


SAMPLE = """
import pytest

@pytest.mark.skipif(True, reason="no widget here")
def test_marked():
    pass

@pytest.mark.xfail(strict=True, reason="a known hole")
def test_known():
    assert False

def test_fine():
    pass

def test_skipped_inside():
    pytest.skip("no gadget here")

@pytest.fixture
def needs_thing():
    pytest.skip("no thing here")

def test_skipped_in_a_fixture(needs_thing):
    pass

@pytest.mark.xfail(reason="a lax mark")
def test_lax():
    assert False

def test_xfail_called():
    pytest.xfail("no doohickey here")
"""


def test_under_the_flag_every_kind_of_skip_fails_and_an_xfail_stays_one(
    tmp_path: pathlib.Path,
) -> None:
    """tests/conftest.py's hook on a sample: a mark, a call and a fixture that skip, and
    xfails strict, lax and called."""
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    argv = [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider"]
    argv += ["-o", "addopts=-ra", "--rootdir", str(tmp_path), str(tmp_path / "test_sample.py")]
    env = {k: v for k, v in os.environ.items() if k != CI_FLAG}
    plain = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert " 1 passed, 3 skipped, 3 xfailed in " in plain.stdout.strip().splitlines()[-1]
    env[CI_FLAG] = "1"
    ci = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert ci.returncode == 1, ci.stdout[-3000:]
    summary = ci.stdout.strip().splitlines()[-1]
    assert " 3 failed, 1 passed, 1 xfailed, 2 errors in " in summary, ci.stdout[-3000:]
    for reason in ("no widget here", "no gadget here", "no thing here"):
        assert f"a skip is a failure here: {reason}" in ci.stdout, ci.stdout[-3000:]
    # Only the strict xfail stays one: a lax mark and a pytest.xfail() call fail, named.
    for reason in ("a lax mark", "no doohickey here"):
        assert f"this one is not (mark it xfail(strict=True) or fix it): {reason}" in ci.stdout
