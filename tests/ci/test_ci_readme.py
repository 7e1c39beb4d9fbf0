"""The README says exactly what ``.ci/run`` installs and what it expects of the machine.

``.ci/run`` states its Debian packages in ``APT_PACKAGES`` and its
toolchains in ``TOOLCHAINS`` (``command|minimum version|version
command|Debian package or -|hint``); the README's CI paragraph names the
same packages, no more and no fewer, and each toolchain that Debian does not
give (package ``-``) with its minimum version. A package added to one and
not the other fails here.
"""

from __future__ import annotations

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
