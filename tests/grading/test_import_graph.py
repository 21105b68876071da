"""Each package's modules import one another one way only, and no module takes another's private names.

The import graph of a package is built from its source with ``ast`` (imports inside functions
included: a cycle hidden in a function is still a cycle): one node per module of the folder, one
edge per import of a sibling module (``from . import x``, ``from .x import y``, ``import pkg.x``,
``from pkg import x``; for benchmarks/, whose scripts import each other by name, ``import x``).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
#: folder -> its dotted name (None: a folder of scripts that import each other by plain name)
PACKAGES = {"course_lib": "course_lib", "course_lib/grading": "course_lib.grading", "course_lib/checks": "course_lib.checks", "autograder": "autograder",
            "benchmarks": None}


def modules(folder: Path) -> dict[str, ast.Module]:
    return {path.stem: ast.parse(path.read_text(encoding="utf-8"), str(path)) for path in sorted(folder.glob("*.py"))}


def sibling_imports(tree: ast.Module, package: str | None, siblings: set[str]) -> set[str]:
    """The sibling modules (and ``__init__`` for a name the package itself defines) that a module imports."""
    found: set[str] = set()

    def sibling(dotted: str) -> str | None:
        if package is None:
            return dotted.split(".")[0] if dotted.split(".")[0] in siblings else None
        if dotted.startswith(package + "."):
            name = dotted[len(package) + 1:].split(".")[0]
            return name if name in siblings else None
        return None

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {s for alias in node.names if (s := sibling(alias.name))}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level == 1:
                if base:
                    found |= {base.split(".")[0]} & siblings
                else:
                    found |= {alias.name if alias.name in siblings else "__init__" for alias in node.names}
            elif node.level == 0 and package is not None and base == package:
                found |= {alias.name if alias.name in siblings else "__init__" for alias in node.names}
            elif node.level == 0 and (s := sibling(base)):
                found.add(s)
    return found & siblings


def import_graph(folder: str) -> dict[str, set[str]]:
    trees = modules(REPO / folder)
    names = set(trees)
    return {name: sibling_imports(tree, PACKAGES[folder], names) - {name} for name, tree in trees.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of the graph as a path that ends where it starts, or [] when there is none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return []

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)):
            return cycle
    return []


def private_imports(folder: str) -> list[str]:
    """``from x import _y`` anywhere in the folder's modules, as 'module: line'."""
    found = []
    for name, tree in modules(REPO / folder).items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                found += [f"{folder}/{name}.py:{node.lineno}: from {'.' * node.level}{node.module or ''} import {a.name}"
                          for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
    return found


def test_the_cycle_finder_finds_a_cycle_and_only_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_the_graph_sees_imports_inside_functions(tmp_path):
    tree = ast.parse("def f():\n    from . import zygote\n    from .sandbox import Limits\n    import pkg.grade\n")
    assert sibling_imports(tree, "pkg", {"zygote", "sandbox", "grade", "other"}) == {"zygote", "sandbox", "grade"}


@pytest.mark.parametrize("folder", list(PACKAGES))
def test_no_import_cycle(folder):
    graph = import_graph(folder)
    assert graph, f"{folder} has no modules"
    cycle = find_cycle(graph)
    assert not cycle, f"{folder} imports in a cycle: {' -> '.join(cycle)}"


@pytest.mark.parametrize("folder", list(PACKAGES))
def test_no_private_name_imported_across_modules(folder):
    assert private_imports(folder) == []
