"""``.ci/run`` checks every tool the tests require, and the README says exactly what it installs.

``.ci/run`` states its Debian packages in ``APT_PACKAGES`` and its
toolchains in ``TOOLCHAINS`` (``command|minimum version|version
command|Debian package or -|hint``); the README's CI paragraph names the
same packages, no more and no fewer, and each toolchain that Debian does not
give (package ``-``) with its minimum version. A package added to one and
not the other fails here. And every tool a test requires (the names given to
``tests.helpers.missing_tools`` and ``require_tools``) is a TOOLCHAINS entry,
so that a machine without it fails ``.ci/run``'s check, naming it, before the
suite runs rather than as a skip turned failure an hour into it.
"""

from __future__ import annotations

import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
CI_RUN = ROOT / ".ci" / "run"
README = ROOT / "README.md"


def bash_array(name: str) -> list[str]:
    """The entries of ``NAME=( ... )`` in .ci/run, one a line, comments dropped."""
    text = CI_RUN.read_text(encoding="utf-8")
    found = re.search(rf"^{name}=\(\n(.*?)^\)", text, re.M | re.S)
    assert found, f".ci/run has no array {name}"
    entries = []
    for line in found[1].splitlines():
        entry = line.split("#", 1)[0].strip()
        if entry:
            entries.append(entry.strip('"'))
    return entries


def toolchains() -> list[tuple[str, str, str]]:
    """(command, minimum version, Debian package or '-') of each TOOLCHAINS entry."""
    rows = []
    for entry in bash_array("TOOLCHAINS"):
        name, minimum, _, package, _ = entry.split("|")
        rows.append((name, minimum, package))
    return rows


def readme_ci_paragraph() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("CI runs `.ci/run`")
    return " ".join(text[start : text.index("\n\n", start)].split())


def test_the_readme_names_every_debian_package_ci_installs_and_no_other() -> None:
    paragraph = readme_ci_paragraph()
    listed = re.search(r"these packages: (.*?) \(", paragraph)
    assert listed, paragraph
    named = set(re.findall(r"`([^`]+)`", listed[1]))
    installed = set(bash_array("APT_PACKAGES"))
    installed |= {package for _, _, package in toolchains() if package != "-"}
    assert named == installed, (
        f"README only: {sorted(named - installed)}; .ci/run only: {sorted(installed - named)}"
    )


def test_the_readme_names_each_toolchain_the_machine_must_bring_with_its_version() -> None:
    paragraph = readme_ci_paragraph()
    brought = [(name, minimum) for name, minimum, package in toolchains() if package == "-"]
    assert brought, "TOOLCHAINS has no entry that Debian cannot give"
    for name, minimum in brought:
        assert f"`{name}` {minimum}+" in paragraph, (name, minimum, paragraph)


#: What the README says .ci/run does beside the packages, and how .ci/run spells it.
STEPS = [
    ('pip install -e ".[ray]"', 'pip install -q -e ".[ray]"'),
    ("git fetch --unshallow", "git fetch --quiet --unshallow"),
    ("HEARTS_CI=1", "export HEARTS_CI=1"),
    ("lint-imports", "if ! lint-imports "),
]


def test_the_readme_names_the_other_steps_as_ci_runs_them() -> None:
    paragraph = readme_ci_paragraph()
    script = CI_RUN.read_text(encoding="utf-8")
    for said, done in STEPS:
        assert done in script, f".ci/run no longer runs {done!r}: update the README and STEPS"
        assert f"`{said}`" in paragraph, (said, paragraph)


def tools_the_tests_require() -> dict[str, str]:
    """Each program named to missing_tools or require_tools in tests/, with where.

    tests/ci is left out: its tests of the helpers name programs that exist nowhere.
    """
    found: dict[str, str] = {}
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if path.is_relative_to(ROOT / "tests" / "ci"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            if node.func.id not in ("missing_tools", "require_tools"):
                continue
            for arg in node.args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.setdefault(arg.value, f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_ci_run_checks_every_tool_a_test_requires() -> None:
    required = tools_the_tests_require()
    assert {"go", "cargo", "java", "node", "cmake"} <= required.keys(), required  # found them
    checked = {name for name, _, _ in toolchains()}
    unchecked = {tool: where for tool, where in required.items() if tool not in checked}
    assert not unchecked, f"tools the tests require that .ci/run does not check: {unchecked}"
