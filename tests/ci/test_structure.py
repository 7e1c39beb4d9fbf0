"""The package layout shows the architecture (issue 24): checks on the tree itself.

- no import cycle between packages of referee/, at any depth, lazy imports
  (inside functions) included: grimp's graph, the one lint-imports checks;
- at most 6 loose modules at referee/'s top level (the bot authors' botkit and
  protocol, and the few that every layer shares);
- no module over 800 lines but the generated stubs of referee/pb;
- the journal's name (``journal.jsonl``) spelled in one module only, so that
  one module can read it and one write it;
- the match and check-bot folder's names (``game.jsonl``, ``bots/``,
  ``builds/``) spelled in one module only.

"Spelled" means in code: a string in a docstring or a comment is prose.
"""

from __future__ import annotations

import ast
import collections
import pathlib
import re

import grimp

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "referee"
MAX_LOOSE = 6
MAX_LINES = 800


def _modules() -> list[pathlib.Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "pb" not in p.relative_to(PACKAGE).parts[:1])


def _graph() -> grimp.ImportGraph:
    return grimp.build_graph("referee", cache_dir=None)


def _package_of(graph: grimp.ImportGraph, module: str) -> str:
    """The innermost package holding ``module`` (a package holds itself: its __init__)."""
    return module if graph.find_children(module) else module.rpartition(".")[0]


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle_between_packages() -> None:
    graph = _graph()
    edges: dict[str, set[str]] = collections.defaultdict(set)
    example: dict[tuple[str, str], str] = {}
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            a, b = _package_of(graph, module), _package_of(graph, imported)
            # referee/__init__.py holds only __version__: importing it is no dependency.
            if a != b and b != "referee":
                edges[a].add(b)
                if (a, b) not in example:
                    line = graph.get_import_details(importer=module, imported=imported)
                    where = f"l.{line[0]['line_number']}" if line else "?"
                    example[(a, b)] = f"{module} -> {imported} ({where})"
    problems = []
    for component in _cycles(edges):
        members = set(component)
        arrows = [
            example[(a, b)]
            for a in component
            for b in sorted(edges[a] & members)
            if (a, b) in example
        ]
        problems.append(f"cycle between {', '.join(component)}:\n    " + "\n    ".join(arrows))
    assert not problems, "\n".join(problems)


def test_at_most_six_loose_modules_at_the_top_level() -> None:
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(loose) <= MAX_LOOSE, f"{len(loose)} loose modules in referee/: {loose}"


def test_no_module_over_800_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in _modules()
        if (n := len(p.read_text("utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def _code_strings(path: pathlib.Path) -> list[tuple[int, str]]:
    """The string constants of a module's code (docstrings left out), with their lines."""
    tree = ast.parse(path.read_text("utf-8"), str(path))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def _spellers(test) -> dict[str, list[str]]:
    """The modules of referee/ whose code has a string that ``test`` accepts, and where."""
    found: dict[str, list[str]] = {}
    for path in _modules():
        hits = [f"l.{line} {text!r}" for line, text in _code_strings(path) if test(text)]
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    return found


def test_the_journal_name_is_spelled_in_one_module() -> None:
    found = _spellers(lambda text: "journal.jsonl" in text)
    assert len(found) <= 1, f"journal.jsonl spelled in {len(found)} modules: {found}"


#: A path component naming the match or check-bot folder's parts: game.jsonl, bots/, builds/.
_MATCH_FOLDER = re.compile(r"(?:^|/)(?:game\.jsonl|bots/|builds/)|(?:^|/)(?:bots|builds)$")


def _match_folder_spellers() -> dict[str, list[str]]:
    """Modules whose code spells the match folder's names: ``game.jsonl`` anywhere, and
    ``bots``/``builds`` where they make a path (``folder / "bots"``, ``"bots/x"``,
    ``joinpath("builds")``, ``os.path.join(..., "bots")``); a key named "bots" is no path."""
    found: dict[str, list[str]] = {}
    for path in _modules():
        tree = ast.parse(path.read_text("utf-8"), str(path))
        hits = []
        for node in ast.walk(tree):
            parts: list[ast.expr] = []
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
                parts = [node.left, node.right]
            elif isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else None
                if name in {"joinpath", "join"} or (
                    isinstance(node.func, ast.Name) and node.func.id in {"Path", "PurePosixPath"}
                ):
                    parts = list(node.args)
            for part in parts:
                if isinstance(part, ast.Constant) and part.value in {"bots", "builds"}:
                    hits.append(f"l.{part.lineno} {part.value!r}")
        for line, text in _code_strings(path):
            if "game.jsonl" in text or ("/" in text and _MATCH_FOLDER.search(text)):
                hits.append(f"l.{line} {text!r}")
        if hits:
            found[str(path.relative_to(ROOT))] = sorted(set(hits))
    return found


def test_the_match_folder_names_are_spelled_in_one_module() -> None:
    found = _match_folder_spellers()
    assert len(found) <= 1, f"the match folder's names spelled in {len(found)} modules: {found}"
