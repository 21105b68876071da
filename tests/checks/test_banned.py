"""Every attribute a check switches off exists, so that a renamed helper fails here instead of staying on unnoticed.

``course_lib.grading.forbidden`` skips an entry whose attribute does not exist; an entry whose owner lost its
attribute (a course function renamed, a PyTorch function moved) would stop being switched off without a word. This
test finds every ``Banned`` of the checks modules: module-level constants (a Banned, or a list or tuple of them) and
the lists that module-level functions annotated ``-> list[Banned]`` build when called (they import transformers or
the tokenizer only when notebook 07 is graded); and it makes sure no ``Banned(...)`` is built anywhere else, inside a
check, where it could not be seen.
"""
import ast
import importlib
import math
import pkgutil
import types
from pathlib import Path

import pytest

import course_lib.checks
from course_lib.grading.answers import Banned

FOLDER = Path(course_lib.checks.__file__).parent
MODULES = sorted(info.name for info in pkgutil.iter_modules([str(FOLDER)]))


def source_tree(name: str) -> ast.Module:
    return ast.parse((FOLDER / f"{name}.py").read_text(encoding="utf-8"))


def builds_bans(node: ast.stmt) -> bool:
    """A module-level function annotated ``-> list[Banned]``."""
    return isinstance(node, ast.FunctionDef) and node.returns is not None and \
        ast.unparse(node.returns).replace("'", "").replace('"', "") == "list[Banned]"


def builders(tree: ast.Module) -> list[str]:
    return [node.name for node in tree.body if builds_bans(node)]


def bans_of(module: types.ModuleType, builder_names: list[str]) -> list[tuple[str, Banned]]:
    """(where it is declared, entry) for every Banned the module holds or builds."""
    found = []
    for name, value in vars(module).items():
        values = value if isinstance(value, (list, tuple)) else [value]
        found += [(name, item) for item in values if isinstance(item, Banned)]
    for name in builder_names:
        found += [(f"{name}()", item) for item in getattr(module, name)()]
    return found


def missing(module: types.ModuleType, builder_names: list[str] = ()) -> list[str]:
    """The entries whose owner has no such attribute, as 'where: label (owner.attr)'."""
    return [f"{where}: {item.label} ({getattr(item.owner, '__name__', item.owner)}.{item.attr})"
            for where, item in bans_of(module, list(builder_names)) if not hasattr(item.owner, item.attr)]


def hidden_bans(tree: ast.Module) -> list[int]:
    """Lines of ``Banned(...)`` built outside a module-level assignment or a ``-> list[Banned]`` function."""
    lines = []
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) or builds_bans(node):
            continue
        lines += [call.lineno for call in ast.walk(node) if isinstance(call, ast.Call)
                  and isinstance(call.func, ast.Name) and call.func.id == "Banned"]
    return lines


@pytest.mark.parametrize("name", MODULES)
def test_every_switched_off_attribute_exists(name):
    module = importlib.import_module(f"course_lib.checks.{name}")
    assert missing(module, builders(source_tree(name))) == [], \
        f"course_lib/checks/{name}.py switches off attributes that do not exist (renamed or moved?)"


@pytest.mark.parametrize("name", MODULES)
def test_every_banned_is_declared_where_this_test_sees_it(name):
    assert hidden_bans(source_tree(name)) == [], \
        f"course_lib/checks/{name}.py builds a Banned inside a function: make it a module-level constant"


def test_the_checks_switch_off_something():
    entries = [entry for name in MODULES
               for entry in bans_of(importlib.import_module(f"course_lib.checks.{name}"), builders(source_tree(name)))]
    assert len(entries) > 100
    assert len({where for where, _ in entries if where.endswith("()")}) >= 4  # notebook 07's lists, built on demand


def test_a_missing_attribute_is_found():
    module = types.ModuleType("course_lib.checks.example")
    module.BUILTINS = [Banned(math, "sqrt", "math.sqrt"), Banned(math, "no_such_function", "math.no_such_function")]
    module.ONE = Banned(math.pi.__class__, "no_such_method", "float.no_such_method")
    assert missing(module) == ["BUILTINS: math.no_such_function (math.no_such_function)",
                               "ONE: float.no_such_method (float.no_such_method)"]
    tree = ast.parse("X = [Banned(a, 'b', 'c')]\n\ndef bans() -> list[Banned]:\n    return [Banned(a, 'b', 'c')]\n\n"
                     "def check(f):\n    call(f, banned=[Banned(a, 'b', 'c')])\n")
    assert builders(tree) == ["bans"] and hidden_bans(tree) == [7]
