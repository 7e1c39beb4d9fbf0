"""The docs name only modules that exist: every ``referee/...py`` path and every dotted
``referee.x.y`` name in README.md and docs/*.md is a module, a package, or a name defined
at the top of one. Modules move (issue 24 put them in packages by layer); a doc that still
points at the old place sends its reader nowhere.
"""

from __future__ import annotations

import ast
import functools
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_PATH = re.compile(r"\breferee/[A-Za-z0-9_/]+\.py\b")
_DOTTED = re.compile(r"(?<![\w./-])referee(?:\.[A-Za-z_]\w*)+")
#: A path in backticks, ``folder/layout.py``: from the checkout's root or from referee/
#: (architecture.md names a package's modules so).
_SHORT = re.compile(r"`([A-Za-z0-9_.-]+/[A-Za-z0-9_./-]*\.py)`")


def _module_file(parts: list[str]) -> pathlib.Path | None:
    base = ROOT.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@functools.cache
def _top_names(path: pathlib.Path) -> frozenset[str]:
    """The names a module defines or imports at its top level (and its submodules')."""
    tree = ast.parse(path.read_text("utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
    if path.name == "__init__.py":
        names.update(p.stem for p in path.parent.glob("*.py"))
        names.update(p.name for p in path.parent.iterdir() if (p / "__init__.py").is_file())
    return frozenset(names)


def _dotted_problem(name: str) -> str | None:
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        found = _module_file(parts[:i])
        if found is not None:
            break
    else:
        return "no such module"
    if i == len(parts):
        return None
    if parts[i] not in _top_names(found):
        return f"{'.'.join(parts[:i])} has no {parts[i]!r}"
    return None


def test_docs_name_only_modules_that_exist() -> None:
    problems = []
    for doc in DOCS:
        for number, line in enumerate(doc.read_text("utf-8").splitlines(), 1):
            for path in _PATH.findall(line):
                if not (ROOT / path).is_file():
                    problems.append(f"{doc.relative_to(ROOT)}:{number}: {path}: no such file")
            for path in _SHORT.findall(line):
                # Only paths into this checkout: another project's file is not ours to check.
                bases = [b for b in (ROOT, ROOT / "referee") if (b / path.split("/")[0]).is_dir()]
                if path.startswith("referee/") or not bases:
                    continue
                if not any((base / path).is_file() for base in bases):
                    problems.append(f"{doc.relative_to(ROOT)}:{number}: {path}: no such file")
            for name in _DOTTED.findall(line):
                if problem := _dotted_problem(name.rstrip(".")):
                    problems.append(f"{doc.relative_to(ROOT)}:{number}: {name}: {problem}")
    assert not problems, "\n".join(problems)


def _sections(text: str) -> list[tuple[str, str]]:
    """(heading, body) for every heading of architecture.md, the body up to the next heading."""
    parts = re.split(r"^(#{2,3} .*)$", text, flags=re.M)
    return [(parts[i], parts[i + 1]) for i in range(1, len(parts) - 1, 2)]


def test_architecture_names_every_package_and_module() -> None:
    """docs/architecture.md describes every package of referee/ in a section of its own
    (the heading names ``referee/PKG/`` or ``PKG/``) and names each of its modules there;
    a subcommand of the CLI (a module with a click command or group) is the one exception."""
    text = (ROOT / "docs" / "architecture.md").read_text("utf-8")
    sections = _sections(text)
    package = ROOT / "referee"
    problems = []
    for folder in sorted(p for p in package.iterdir() if (p / "__init__.py").is_file()):
        if folder.name == "pb":
            continue  # generated: the wire's section says so
        body = "".join(
            b for h, b in sections if f"`referee/{folder.name}/`" in h or f"`{folder.name}/`" in h
        )
        if not body:
            problems.append(f"referee/{folder.name}/: no section names it in its heading")
            continue
        for module in sorted(folder.rglob("*.py")):
            if module.name in {"__init__.py", "__main__.py"}:
                continue
            if folder.name == "cli" and re.search(
                r"@click\.(command|group)", module.read_text("utf-8")
            ):
                continue
            relative = module.relative_to(folder)
            if relative.name not in body and f"{relative.parent}/" not in body:
                problems.append(f"referee/{folder.name}/{relative}: not named in its section")
    assert not problems, "\n".join(problems)
