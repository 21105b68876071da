"""Mutation-based diagnosis: the one small change of the solution that reproduces a wrong answer.

Mutation testing makes wrong programs from a right one with small operators, to see whether the tests
notice. Here the same operators run the other way: when a student's answer is wrong, each small
change of the exercise's solution is run on the inputs that already failed, and when exactly one of
them gives the student's answer, that change is very likely the student's mistake, and it is said in
the solution's own words ("`torch.sigmoid` where the solution has `torch.tanh`").

The operators (:func:`mutants_of`), each applied at one place of the solution's function at a time:

- an activation swapped (tanh, sigmoid, relu, softmax: each for the others, a hard clamp, or nothing), or
  one added around an assignment's value;
- two neighbouring sizes of a ``view`` or ``reshape`` swapped;
- a reduction's axis changed (``dim=`` of sum, mean, softmax, max, norm, ...);
- a mean for a sum, or a sum for a mean; the unbiased variance for the biased one, or back;
- a term dropped or counted twice (``+ b``, ``- mean``, ``+ eps``, a factor, a divisor);
- an operand of ``@`` transposed, or a transpose left out;
- a loop run backwards; a ``range`` or a slice shifted by one; a triangle's diagonal shifted by one;
- ``/`` and ``//`` swapped;
- an argument replaced by a constant of the notebook (``CONTEXT``), or a size by a number from the
  example (``K.shape[-1]`` by 2).

The solutions are the instructors' (``solutions/src/NN_name.py`` of the course's repository, or the
folder ``$COURSE_SOLUTIONS`` names); in the students' bundle there are none and nothing here runs.
Everything runs only on a wrong answer: :func:`changes_that_explain` first checks that the unchanged
solution gives the expected answer on these inputs, so an exercise whose check passes other inputs
than the function's own arguments is left alone.
"""
from __future__ import annotations

import ast
import copy
import functools
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import torch

__all__ = ["Mutant", "mutants_of", "solution_function", "changes_that_explain", "changes_that_raise", "SOLUTIONS_ENV"]

SOLUTIONS_ENV = "COURSE_SOLUTIONS"
_REPOSITORY_SOLUTIONS = Path(__file__).resolve().parents[2] / "solutions" / "src"

# each activation's stand-ins: (the replacement's name as written, its code given the argument's code)
_ACTIVATIONS = {
    "tanh": ("sigmoid", "relu", "hard tanh", "nothing"),
    "sigmoid": ("tanh", "relu", "hard sigmoid", "hard sigmoid 0.2 x + 0.5", "nothing"),
    "relu": ("tanh", "sigmoid", "gelu", "nothing"),
    "gelu": ("relu", "tanh", "nothing"),
    "softmax": ("log_softmax", "sigmoid", "nothing"),
    "log_softmax": ("softmax", "nothing"),
    "exp": ("nothing",),
}
_STAND_IN_CODE = {
    "sigmoid": "torch.sigmoid({})", "tanh": "torch.tanh({})", "relu": "torch.relu({})",
    "gelu": "torch.nn.functional.gelu({})", "hard tanh": "torch.clamp({}, -1.0, 1.0)",
    "hard sigmoid": "torch.nn.functional.hardsigmoid({})",
    "hard sigmoid 0.2 x + 0.5": "torch.clamp(0.2 * ({}) + 0.5, 0.0, 1.0)",
    "log_softmax": "torch.log_softmax({}, {dim})", "softmax": "torch.softmax({}, {dim})",
}
_REDUCTIONS = {"sum", "mean", "softmax", "log_softmax", "max", "min", "amax", "amin", "logsumexp", "norm",
               "argmax", "argmin", "cumsum", "var", "std", "prod", "all", "any"}
_DIMS = (-1, 0, 1, 2)
_EXAMPLE_SIZES = (1, 2, 3, 4)


@dataclass(frozen=True)
class Mutant:
    """One small change of a function: where (``site``, one per place in the code), what (``change``, in words), the
    changed function, and whether it is one of the less likely explanations (a constant for an argument or a size)."""
    site: int
    change: str
    function: Callable
    less_likely: bool = False


# ---------------------------------------------------------------------------
# the operators


def _code(node: ast.AST) -> str:
    return ast.unparse(node)


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def _is_method(call: ast.Call) -> bool:
    """``x.tanh()`` (a tensor's method) rather than ``torch.tanh(x)`` / ``F.relu(x)``."""
    func = call.func
    return (isinstance(func, ast.Attribute) and not (isinstance(func.value, ast.Name)
            and func.value.id in ("torch", "F", "np", "math", "nn"))
            and not (isinstance(func.value, ast.Attribute) and func.value.attr in ("functional",)))


def _subject(call: ast.Call) -> ast.expr | None:
    """The tensor an activation applies to: the method's receiver, or the first argument."""
    if _is_method(call):
        return call.func.value
    return call.args[0] if call.args else None


def _dim_argument(call: ast.Call) -> tuple[str, int] | None:
    """Where a reduction's axis is given: ("keyword", index in keywords) or ("positional", index in args)."""
    for k, keyword in enumerate(call.keywords):
        if keyword.arg in ("dim", "axis"):
            return "keyword", k
    position = 0 if _is_method(call) else 1
    if len(call.args) > position:
        return "positional", position
    return None


_NOT_A_LITERAL = object()


def _literal(node: ast.AST) -> Any:
    """The value a literal expression (``5``, ``-1``, ``"x"``) stands for, or ``_NOT_A_LITERAL``."""
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return _NOT_A_LITERAL


def _int_value(node: ast.AST) -> int | None:
    value = _literal(node)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _expression(code: str) -> ast.expr:
    return ast.parse(code, mode="eval").body


def _activation_swaps(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    if not isinstance(node, ast.Call):
        return
    name = _called_name(node)
    subject = _subject(node)
    if name not in _ACTIVATIONS or subject is None:
        return
    dim = _dim_argument(node) if name in ("softmax", "log_softmax") else None
    dim_code = "-1"
    if dim is not None:
        dim_code = _code(node.keywords[dim[1]].value if dim[0] == "keyword" else node.args[dim[1]])
    for stand_in in _ACTIVATIONS[name]:
        if stand_in == "nothing":
            yield f"no {name} (the solution applies {name} to `{_code(subject)}`)", copy.deepcopy(subject)
        else:
            new = _expression(_STAND_IN_CODE[stand_in].format(_code(subject), dim=dim_code))
            yield f"{stand_in} where the solution applies {name}", new


def _axis_changes(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    if not isinstance(node, ast.Call) or _called_name(node) not in _REDUCTIONS:
        return
    where = _dim_argument(node)
    if where is None:
        return
    kind, index = where
    old = node.keywords[index].value if kind == "keyword" else node.args[index]
    value = _int_value(old)
    if value is None:
        return
    for dim in _DIMS:
        if dim == value:
            continue
        new = copy.deepcopy(node)
        replacement = ast.Constant(dim)
        if kind == "keyword":
            new.keywords[index].value = replacement
        else:
            new.args[index] = replacement
        yield f"`{_called_name(node)}` over dim {dim} where the solution uses dim {value}", new


def _extra_activations(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """A squashing the solution does not have, around the value of an assignment."""
    if not isinstance(node, ast.Assign) or len(node.targets) != 1:
        return
    for name in ("tanh", "sigmoid", "relu"):
        new = copy.deepcopy(node)
        new.value = _expression(f"torch.{name}({_code(node.value)})")
        yield f"a {name} around `{_code(node.targets[0])}`, which the solution does not squash", new


def _argument_swaps(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """Two neighbouring sizes of a reshape given in the wrong order (``view(B, T, d_head, h)``)."""
    if not isinstance(node, ast.Call) or _called_name(node) not in ("view", "reshape", "unflatten"):
        return
    for k in range(len(node.args) - 1):
        new = copy.deepcopy(node)
        new.args[k], new.args[k + 1] = new.args[k + 1], new.args[k]
        if _code(new.args[k]) != _code(new.args[k + 1]):
            yield f"`{_code(new)}` where the solution has `{_code(node)}`: two sizes in the wrong order", new


def _mean_sum_swaps(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return
    other = {"mean": "sum", "sum": "mean"}.get(node.func.attr)
    if other is None:
        return
    new = copy.deepcopy(node)
    new.func.attr = other
    word = {"mean": "a mean", "sum": "a sum"}
    yield f"{word[other]} where the solution takes {word[node.func.attr]} (`{_code(node)}`)", new


def _variance_swaps(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    if not isinstance(node, ast.Call) or _called_name(node) not in ("var", "std"):
        return
    for k, keyword in enumerate(node.keywords):
        flip = {("unbiased", False): True, ("unbiased", True): False, ("correction", 0): 1, ("correction", 1): 0}
        value = _int_value(keyword.value) if keyword.arg == "correction" else getattr(keyword.value, "value", None)
        if (keyword.arg, value) in flip:
            new = copy.deepcopy(node)
            new.keywords[k].value = ast.Constant(flip[(keyword.arg, value)])
            divides = "n - 1" if flip[(keyword.arg, value)] in (True, 1) else "n"
            yield f"the variance divided by {divides} (`{_code(new)}` where the solution has `{_code(node)}`)", new


def _term_changes(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    if not isinstance(node, ast.BinOp):
        return
    left, right = node.left, node.right
    if isinstance(node.op, ast.Add):
        yield f"`{_code(right)}` not added (the solution adds it: `{_code(node)}`)", copy.deepcopy(left)
        yield f"`{_code(left)}` not added (the solution adds it: `{_code(node)}`)", copy.deepcopy(right)
        twice = ast.BinOp(copy.deepcopy(node), ast.Add(), copy.deepcopy(right))
        yield f"`{_code(right)}` added twice (the solution has `{_code(node)}`)", twice
    elif isinstance(node.op, ast.Sub):
        yield f"without `- {_code(right)}` (the solution has `{_code(node)}`)", copy.deepcopy(left)
        flipped = ast.BinOp(copy.deepcopy(right), ast.Sub(), copy.deepcopy(left))
        yield f"`{_code(flipped)}` where the solution has `{_code(node)}`", flipped
    elif isinstance(node.op, ast.Mult):
        yield f"without the factor `{_code(right)}` (the solution has `{_code(node)}`)", copy.deepcopy(left)
        yield f"without the factor `{_code(left)}` (the solution has `{_code(node)}`)", copy.deepcopy(right)
    elif isinstance(node.op, (ast.Div, ast.FloorDiv)):
        yield f"no division by `{_code(right)}` (the solution has `{_code(node)}`)", copy.deepcopy(left)
        other = ast.FloorDiv() if isinstance(node.op, ast.Div) else ast.Div()
        swapped = ast.BinOp(copy.deepcopy(left), other, copy.deepcopy(right))
        yield f"`{_code(swapped)}` where the solution has `{_code(node)}`", swapped
        multiplied = ast.BinOp(copy.deepcopy(left), ast.Mult(), copy.deepcopy(right))
        yield f"a multiplication by `{_code(right)}` where the solution divides by it", multiplied


def _transposes(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    if isinstance(node, ast.Attribute) and node.attr in ("T", "mT"):
        yield f"`{_code(node.value)}` where the solution has `{_code(node)}`", copy.deepcopy(node.value)
    elif isinstance(node, ast.Call) and _called_name(node) in ("transpose", "t") and _is_method(node):
        yield f"`{_code(node.func.value)}` where the solution has `{_code(node)}`", copy.deepcopy(node.func.value)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        for side in ("left", "right"):
            operand = getattr(node, side)
            if isinstance(operand, ast.Attribute) and operand.attr in ("T", "mT"):
                continue
            new = copy.deepcopy(node)
            setattr(new, side, _expression(f"({_code(operand)}).transpose(-2, -1)"))
            yield f"`{_code(operand)}` transposed in `{_code(node)}`", new


def _loop_changes(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    if isinstance(node, ast.For):
        new = copy.deepcopy(node)
        new.iter = _expression(f"reversed(list({_code(node.iter)}))")
        yield f"the loop over `{_code(node.target)}` run backwards", new
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range" and node.args:
        start, stop = (ast.Constant(0), node.args[0]) if len(node.args) == 1 else node.args[:2]
        rest = [_code(a) for a in node.args[2:]]
        first = _int_value(start)
        later_start = str(first + 1) if first is not None else f"{_code(start)} + 1"
        for new_start, new_stop in ((later_start, _code(stop)), (_code(start), f"{_code(stop)} - 1"),
                                    (_code(start), f"{_code(stop)} + 1")):
            bounds = [new_stop] if new_start == "0" and not rest else [new_start, new_stop, *rest]
            new = _expression(f"range({', '.join(bounds)})")
            yield f"`{_code(new)}` where the solution has `{_code(node)}`: off by one", new


def _slice_shifts(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    if not isinstance(node, ast.Subscript):
        return
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    for k, part in enumerate(parts):
        if not isinstance(part, ast.Slice) or part.step is not None:
            continue
        for bound in ("lower", "upper"):
            value = getattr(part, bound)
            if value is None:
                continue
            for delta in ("+ 1", "- 1"):
                new = copy.deepcopy(node)
                new_parts = new.slice.elts if isinstance(new.slice, ast.Tuple) else [new.slice]
                setattr(new_parts[k], bound, _expression(f"({_code(value)}) {delta}"))
                yield f"`{_code(new)}` where the solution has `{_code(node)}`: a bound off by one", new


def _diagonal_shifts(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    if not isinstance(node, ast.Call) or _called_name(node) not in ("triu", "tril"):
        return
    position = 0 if _is_method(node) else 1
    keyword = next((k for k, kw in enumerate(node.keywords) if kw.arg == "diagonal"), None)
    old = node.keywords[keyword].value if keyword is not None else (
        node.args[position] if len(node.args) > position else ast.Constant(0))
    for delta in (1, -1):
        new = copy.deepcopy(node)
        shifted = _expression(f"({_code(old)}) + {delta}")
        if keyword is not None:
            new.keywords[keyword].value = shifted
        elif len(node.args) > position:
            new.args[position] = shifted
        else:
            new.keywords.append(ast.keyword("diagonal", shifted))
        yield f"`{_code(new)}` where the solution has `{_code(node)}`: the diagonal is off by one", new


def _size_axis(node: ast.AST) -> int | None:
    """The axis of ``K.shape[-1]`` or ``x.size(1)`` (a size read from a tensor), else None."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        return _int_value(node.slice)
    if isinstance(node, ast.Call) and _called_name(node) == "size" and len(node.args) == 1:
        return _int_value(node.args[0])
    return None


def _size_axes(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """A size read from another axis of the same tensor (``x.shape[0]``, the batch, for ``x.shape[1]``, the steps)."""
    axis = _size_axis(node)
    if axis is None:
        return
    for other in _DIMS:
        if other == axis:
            continue
        new = copy.deepcopy(node)
        if isinstance(new, ast.Subscript):
            new.slice = ast.Constant(other)
        else:
            new.args[0] = ast.Constant(other)
        yield f"`{_code(new)}` where the solution uses `{_code(node)}`: a size read from the wrong axis", new


def _size_constants(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """A size read from a tensor replaced by a number from the example."""
    if _size_axis(node) is not None:
        for number in _EXAMPLE_SIZES:
            yield f"a fixed {number} where the solution uses `{_code(node)}`", ast.Constant(number)


_OPERATORS: tuple[Callable[[ast.AST], Iterator[tuple[str, ast.AST]]], ...] = (
    _activation_swaps, _extra_activations, _argument_swaps, _axis_changes, _mean_sum_swaps, _variance_swaps,
    _term_changes, _transposes, _loop_changes, _slice_shifts, _diagonal_shifts, _size_axes, _size_constants)
#: operators whose change explains an answer less often than it happens to reproduce one (a fixed 2 equals the batch
#: size, say): said only when no other operator explains the answer
_LESS_LIKELY = (_size_constants,)


def _global_constants(tree: ast.Module) -> dict[str, int | float]:
    """The notebook's module-level numbers (``CONTEXT = 5``)."""
    found = {}
    for statement in tree.body:
        target = statement.targets[0] if isinstance(statement, ast.Assign) and len(statement.targets) == 1 else None
        if isinstance(target, ast.Name):
            value = _literal(statement.value)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                found[target.id] = value
    return found


def _argument_to_global(function: ast.FunctionDef, constants: dict[str, int | float]
                        ) -> Iterator[tuple[str, ast.FunctionDef]]:
    """An argument replaced, everywhere in the body, by one of the notebook's constants."""
    arguments = [a.arg for a in function.args.args + function.args.kwonlyargs]
    for argument in arguments:
        uses = [n for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == argument
                and isinstance(n.ctx, ast.Load)]
        if not uses:
            continue
        for constant, value in constants.items():
            new = copy.deepcopy(function)
            for n in ast.walk(new):
                if isinstance(n, ast.Name) and n.id == argument and isinstance(n.ctx, ast.Load):
                    n.id = constant
            yield (f"the notebook's `{constant}` (= {value}) where the solution uses the argument `{argument}`", new)


def _replace(root: ast.AST, old: ast.AST, new: ast.AST) -> None:
    """Put ``new`` where ``old`` is, in whichever field of its parent holds it."""
    for parent in ast.walk(root):
        for name, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, name, new)
                return
            if isinstance(value, list):
                for index, item in enumerate(value):
                    if item is old:
                        value[index] = new
                        return
    raise ValueError("the node to replace is not in the tree")


def _changed_functions(function: ast.FunctionDef, constants: dict[str, int | float]
                       ) -> Iterator[tuple[int, str, bool, ast.FunctionDef]]:
    """(site, change, less likely, changed function definition) for every operator at every place of the body."""
    body_nodes = [n for statement in function.body for n in ast.walk(statement)]
    for site, node in enumerate(body_nodes):
        for operator in _OPERATORS:
            for change, replacement in operator(node):
                changed = copy.deepcopy(function)
                changed_nodes = [n for statement in changed.body for n in ast.walk(statement)]
                _replace(changed, changed_nodes[site], replacement)
                yield site, change, operator in _LESS_LIKELY, ast.fix_missing_locations(changed)
    for k, (change, changed) in enumerate(_argument_to_global(function, constants)):
        yield len(body_nodes) + k, change, True, changed


def _names_needed(tree: ast.Module, name: str) -> set[str]:
    """The global names the function ``name`` reads, with those of the notebook's functions and classes it uses."""
    definitions = {s.name: s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.ClassDef))}
    needed, pending = set(), [name]
    while pending:
        current = pending.pop()
        if current in needed:
            continue
        needed.add(current)
        if current in definitions:
            pending += [n.id for n in ast.walk(definitions[current]) if isinstance(n, ast.Name)]
    return needed


def _binds(statement: ast.stmt) -> set[str]:
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in statement.names}
    if isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
        return {statement.name}
    return {t.id for t in getattr(statement, "targets", []) if isinstance(t, ast.Name)}


def _namespace(tree: ast.Module, name: str) -> dict[str, Any]:
    """What the solution's function ``name`` needs of its notebook: the imports, functions, classes and constants
    it reads, without running the notebook's cells (nor importing what it does not use)."""
    namespace: dict[str, Any] = {"__name__": "course_solution"}
    needed = _names_needed(tree, name)
    kept = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)
    for statement in tree.body:
        # every literal constant, used or not: _argument_to_global may put any of them in an argument's place
        constant = isinstance(statement, ast.Assign) and _literal(statement.value) is not _NOT_A_LITERAL
        if constant or (isinstance(statement, kept) and _binds(statement) & needed):
            try:
                # the instructors' code
                exec(compile(ast.Module([statement], []), "<solution>", "exec"), namespace)  # noqa: S102
            except Exception:  # noqa: BLE001 (an import this machine lacks: what needs it is not mutated)
                continue
    return namespace


def mutants_of(tree: ast.Module, name: str) -> tuple[Callable, list[Mutant]] | None:
    """The function ``name`` defined at the top of ``tree`` (a notebook's code), and every one-change mutant of it.

    The mutants share the notebook's namespace (its imports, constants and other functions, unchanged).
    """
    definition = next((s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == name), None)
    if definition is None:
        return None
    namespace = _namespace(tree, name)
    if name not in namespace:
        return None
    constants = _global_constants(tree)
    found = []
    for site, change, less_likely, changed in _changed_functions(definition, constants):
        scope = dict(namespace)
        try:
            exec(compile(ast.Module([changed], []), "<mutant>", "exec"), scope)  # noqa: S102
        except Exception:  # noqa: BLE001 (a change that does not compile, a replaced target, say)
            continue
        found.append(Mutant(site, change, scope[name], less_likely))
    return namespace[name], found


def _solutions_folder() -> Path:
    return Path(os.environ.get(SOLUTIONS_ENV) or _REPOSITORY_SOLUTIONS)


@functools.lru_cache(maxsize=64)
def _parsed_solutions(folder: str) -> tuple[ast.Module, ...]:
    trees = []
    for path in sorted(Path(folder).glob("[0-9][0-9]_*.py")):
        try:
            trees.append(ast.parse(path.read_text(encoding="utf-8")))
        except (OSError, SyntaxError):
            continue
    return tuple(trees)


@functools.lru_cache(maxsize=128)
def solution_function(exercise: str, folder: str | None = None) -> tuple[Callable, tuple[Mutant, ...]] | None:
    """The solution of ``exercise`` (a top-level function of that name in the solutions folder) and its mutants;
    None where there are no solutions (the students' bundle) or no such function."""
    for tree in _parsed_solutions(str(folder or _solutions_folder())):
        found = mutants_of(tree, exercise)
        if found is not None:
            return found[0], tuple(found[1])
    return None


#: lines a changed function may run (a change in a while loop's body can keep it from ending), and the seconds all
#: the changes may take for one wrong answer
MOST_LINES_PER_RUN = 20_000
SECONDS_PER_ANSWER = 2.0


class _RanTooLong(Exception):
    """A changed function ran more lines than :data:`MOST_LINES_PER_RUN`."""


def _run_limited(function: Callable, args: list) -> Any:
    """``function(*args)``, stopped after :data:`MOST_LINES_PER_RUN` lines of the changed code."""
    left = [MOST_LINES_PER_RUN]

    def count_lines(frame, event, arg):
        if event == "line":
            left[0] -= 1
            if left[0] < 0:
                raise _RanTooLong()
        return count_lines

    def trace_changed_code(frame, event, arg):
        return count_lines if frame.f_code.co_filename == "<mutant>" else None

    previous = sys.gettrace()
    sys.settrace(trace_changed_code)
    try:
        return function(*args)
    finally:
        sys.settrace(previous)


def _result(function: Callable, inputs: Sequence[Any], pick: Callable[[Any], Any] | None, *, limited: bool = False
            ) -> Any:
    args = copy.deepcopy(list(inputs))
    result = _run_limited(function, args) if limited else function(*args)
    return pick(result) if pick is not None else result


def changes_that_explain(exercise: str, inputs: Sequence[Any], answer: torch.Tensor, expected: torch.Tensor, *,
                         same: Callable[[torch.Tensor, torch.Tensor], bool],
                         pick: Callable[[Any], Any] | None = None) -> list[str]:
    """The changes of the solution that give ``answer`` on ``inputs`` and not ``expected``, one per place in the code.

    Empty when there is no solution to change, when the unchanged solution does not give ``expected`` on these
    inputs (they are not the function's own arguments), or when no change reproduces the answer. ``same`` is the
    check's comparison within its tolerance.
    """
    found = solution_function(exercise)
    if found is None:
        return []
    solution, mutants = found
    try:
        if not same(_result(solution, inputs, pick), expected):
            return []
    except Exception:  # noqa: BLE001 (the solution itself fails on these inputs: no change of it can be told)
        return []

    def reproduces(mutant: Mutant) -> bool:
        try:
            wrong = _result(mutant.function, inputs, pick, limited=True)
        except Exception:  # noqa: BLE001 (this change cannot run on these inputs, or runs too long)
            return False
        return isinstance(wrong, torch.Tensor) and same(answer, wrong) and not same(wrong, expected)

    return _one_per_site(exercise, mutants, reproduces)


def changes_that_raise(exercise: str, inputs: Sequence[Any], error_type: str, text: str) -> list[str]:
    """The changes of the solution that raise what the student's function raised on ``inputs``: the same exception
    type with the same message ("mat1 and mat2 shapes cannot be multiplied (3x20 and 12x6)"), one per place in the
    code. Empty when there is no solution, or when the unchanged solution itself fails on these inputs."""
    found = solution_function(exercise)
    if found is None:
        return []
    solution, mutants = found
    try:
        _result(solution, inputs, None)
    except Exception:  # noqa: BLE001 (the solution itself fails on these inputs: no change of it can be told)
        return []

    def reproduces(mutant: Mutant) -> bool:
        try:
            _result(mutant.function, inputs, None, limited=True)
        except _RanTooLong:
            return False
        except Exception as err:  # noqa: BLE001 (whatever the change raises is compared with the student's)
            return type(err).__name__ == error_type and str(err) == text
        return False

    return _one_per_site(exercise, mutants, reproduces)


def _one_per_site(exercise: str, mutants: Sequence[Mutant], reproduces: Callable[[Mutant], bool]) -> list[str]:
    """The first change at each place in the code that ``reproduces`` the answer; the less likely operators' only
    where no other explains it. Nothing when the changes take more than :data:`SECONDS_PER_ANSWER`."""
    by_site: dict[int, Mutant] = {}
    deadline = time.perf_counter() + SECONDS_PER_ANSWER
    for mutant in mutants:
        if time.perf_counter() > deadline:
            return []  # said only when every change was tried: a partial search could name the wrong one
        if mutant.site not in by_site and reproduces(mutant):
            by_site[mutant.site] = mutant
    likely = [m for m in by_site.values() if not m.less_likely]
    return list(dict.fromkeys(m.change for m in (likely or by_site.values())))
