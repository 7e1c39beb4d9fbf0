"""The layering of referee/ holds: ``lint-imports`` keeps every contract of pyproject.toml.

The contracts (``[tool.importlinter]``; docs/architecture.md draws the same
stack) are run one at a time, each a test named by its id, so that a broken
one fails naming its rule and the imports that break it, as lint-imports
prints them. grimp, import-linter's graph, sees lazy imports inside functions
too. No contract may ignore an import: that would hide the very dependency the
rule forbids.
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"][
    "contracts"
]


def _lint_imports() -> str:
    """The lint-imports of this Python's environment (the test extra installs it)."""
    beside = pathlib.Path(sys.executable).with_name("lint-imports")
    return str(beside) if beside.exists() else shutil.which("lint-imports") or "lint-imports"


@pytest.mark.parametrize("contract", CONTRACTS, ids=[c["id"] for c in CONTRACTS])
def test_contract_is_kept(contract: dict) -> None:
    run = subprocess.run(
        [_lint_imports(), "--no-cache", "--no-logo", "--contract", contract["id"]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, (
        f"import contract {contract['id']!r} ({contract['name']}) is broken:\n"
        f"{run.stdout}{run.stderr}"
    )
    assert f"{contract['name']} KEPT" in " ".join(run.stdout.split()), run.stdout


def test_no_contract_ignores_an_import() -> None:
    ignoring = [c["id"] for c in CONTRACTS if c.get("ignore_imports")]
    assert not ignoring, f"contracts marked to ignore imports: {ignoring}"


def test_the_stack_places_every_package() -> None:
    """The layers contract is exhaustive, so a new package of referee/ fails until it is placed."""
    (layers,) = [c for c in CONTRACTS if c["type"] == "layers"]
    assert layers["containers"] == ["referee"]
    assert layers.get("exhaustive") is True
    assert not layers.get("exhaustive_ignores")


def test_every_rule_of_issue_24_has_a_contract() -> None:
    """The "never" rules of docs/architecture.md, each a contract of its own."""
    assert {c["id"] for c in CONTRACTS} >= {
        "layers",
        "engine-pure",
        "players-no-tournaments",
        "game-no-tournament",
        "audit-starts-no-bots",
        "audit-no-runner",
        "cli-at-the-edge",
        "web-at-the-edge",
        "sandbox-below-players",
        "folder-no-runner",
        "stats-no-players",
        "acyclic",
    }


def test_a_broken_contract_fails_naming_it(tmp_path: pathlib.Path) -> None:
    """lint-imports exits non-zero and names the contract an import breaks (the check can fail)."""
    package = tmp_path / "toy"
    (package / "low").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "high.py").write_text("")
    (package / "low" / "__init__.py").write_text("def f():\n    from toy import high\n")
    (tmp_path / ".importlinter").write_text(
        "[importlinter]\nroot_package = toy\n\n"
        "[importlinter:contract:stack]\nname = Toy stack\ntype = layers\n"
        "layers =\n    toy.high\n    toy.low\n"
    )
    run = subprocess.run(
        [_lint_imports(), "--no-cache", "--no-logo"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert run.returncode != 0, run.stdout
    assert "Toy stack BROKEN" in run.stdout
    assert "toy.low -> toy.high" in run.stdout  # the lazy import, inside a function
