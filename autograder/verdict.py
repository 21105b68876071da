"""The verdict of every test cell, computed in the grader's process, where student code cannot reach.

:class:`TrustedExecute` replaces nbgrader's ``Execute`` in ``Autograde.autograde_preprocessors``.
It runs every cell of the submission in the student's kernel, as nbgrader does, except the
test cells. A test cell runs here instead, from the instructors' notebook (hidden tests included;
never the source the submission carries) (:func:`run_test_cell`): ``checks`` is the notebook's checks module imported
by the grader, ``torch`` the grader's torch, and every other name the cell uses is looked up
in the kernel at that moment: a plain value comes back as data, a function or class as a
:class:`course_lib.remote_answer.KernelName` whose calls run in the kernel and return data.
The cell's outputs are the checks' own lines and the verdict, written here, so nbgrader's
``SaveAutoGrades`` scores what the grader decided. The hidden tests' source never reaches the
kernel, not even its input history.

:class:`TrustedExecute` also caps what the kernel may print (per cell and per notebook): output
past the cap is dropped as it arrives, with one line saying so.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import importlib
import io
import random

import nbformat
import numpy as np
import torch
from nbformat import NotebookNode

from course_lib.answer_wire import WireError
from course_lib.grading import AnswerError, hidden_cases, without_numbers
from course_lib.plain_text import one_line
from course_lib.remote_answer import Channel, KernelError, resolve

from .cells import BEGIN_HIDDEN, END_HIDDEN, grade_id, is_test

#: names a test cell may use that are the grader's own, never the kernel's
GRADER_NAMES = ("checks", "torch")
#: a longer request goes through a file in the grader's request folder (read-only to the kernel), not into its code
INLINE_ARGUMENT = 64 << 10
CHECKS_PACKAGE = "course_lib.checks."
#: what the kernel may send in one message (a reply to the grader's call included); a larger one is refused by zmq
MAX_MESSAGE_BYTES = 32 << 20
#: messages the grader's side of a channel holds before it drops (IOPub) or stops reading (the others)
MAX_QUEUED_MESSAGES = 16


def _error_output(ename: str, evalue: str, line: str) -> NotebookNode:
    return nbformat.v4.new_output("error", ename=ename, evalue=evalue, traceback=[line])


def _names_used(source: str) -> list[str]:
    tree = ast.parse(source)
    loaded = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    bound = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)}
    bound |= {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    bound |= {arg.arg for node in ast.walk(tree) if isinstance(node, ast.arguments)
              for arg in (*node.posonlyargs, *node.args, *node.kwonlyargs)}
    return sorted(n for n in loaded - bound if n not in GRADER_NAMES and not hasattr(builtins, n))


def _reseed() -> None:
    """The same random state before every test cell (the checks use their own generators; this makes sure)."""
    torch.manual_seed(0)
    np.random.seed(0)
    random.seed(0)


def run_test_cell(source: str, checks_module: str, channel: Channel, label: str = "test cell") -> list[NotebookNode]:
    """Run one test cell's source here, against the kernel behind ``channel``; returns the cell's outputs."""
    if not checks_module.startswith(CHECKS_PACKAGE):
        raise ValueError(f"not a module of course checks: {checks_module}")
    namespace = {"__builtins__": builtins, "__name__": "__course_test__",
                 "checks": importlib.import_module(checks_module), "torch": torch}
    printed: list[tuple[bool, io.StringIO]] = [(False, io.StringIO())]  # what each part printed; hidden ones masked
    outputs: list[NotebookNode] = []
    hidden = False
    try:
        with contextlib.redirect_stdout(printed[-1][1]):
            names = _names_used(source)
            namespace.update(resolve(names, channel) if names else {})
        _reseed()
        for hidden, part in test_parts(source):
            printed.append((hidden, io.StringIO()))
            with contextlib.redirect_stdout(printed[-1][1]), hidden_cases() if hidden else contextlib.nullcontext():
                exec(compile(part, f"<{label}>", "exec"), namespace)  # noqa: S102 (the instructors' test code)
        hidden = False
    except AnswerError as err:  # in a hidden case, no number: it could carry the case (a shape, a sum, an offset)
        message = without_numbers(err.message) if hidden else err.message
        outputs.append(_error_output("AnswerError", message, f"\x1b[1;31m\u2718 {err.exercise}\x1b[0m: {message}"))
    except NameError as err:
        name = err.name or str(err)
        line = (f"\x1b[1;31m\u2718 {name} is not defined yet\x1b[0m: run your answer cell above this one "
                "(after replacing `raise NotImplementedError()` with your code).")
        outputs.append(_error_output("NameError", str(err), line))
    except (KernelError, WireError) as err:
        line = f"\x1b[1;31m\u2718 this check could not run\x1b[0m: {err}"
        outputs.append(_error_output(type(err).__name__, str(err), line))
    except Exception as err:  # what the notebook returned broke the check itself: no points, and why
        said = without_numbers(one_line(err)) if hidden else one_line(err)
        line = f"\x1b[1;31m\u2718 this check could not use your answer\x1b[0m ({type(err).__name__}: {said})."
        outputs.append(_error_output(type(err).__name__, said, line))
    text = "".join(without_numbers(out.getvalue()) if was_hidden else out.getvalue() for was_hidden, out in printed)
    return ([nbformat.v4.new_output("stream", name="stdout", text=text)] if text else []) + outputs


def test_parts(source: str) -> list[tuple[bool, str]]:
    """A test cell's source cut at nbgrader's hidden-test markers: (is hidden, source) in order.

    Each part keeps its place in the cell (blank lines stand for the others), so line numbers hold.
    """
    parts: list[tuple[bool, list[str]]] = [(False, [])]
    for line in source.splitlines():
        marker = line.strip()
        if marker in (BEGIN_HIDDEN, END_HIDDEN):
            parts.append((marker == BEGIN_HIDDEN, []))
        parts[-1][1].append("" if marker in (BEGIN_HIDDEN, END_HIDDEN) else line)
    lines_before = 0
    out = []
    for hidden, lines in parts:
        out.append((hidden, "\n" * lines_before + "\n".join(lines)))
        lines_before += len(lines)
    return [(hidden, text) for hidden, text in out if text.strip()]


def checks_module_of(nb: NotebookNode) -> str:
    """The notebook's module of checks, from its metadata (``course.checks``, the single source's ``checks`` key)."""
    named = nb.metadata.get("course", {}).get("checks", "")
    if not named.startswith(CHECKS_PACKAGE):
        raise ValueError(f"the notebook names no module of course checks in its metadata (course.checks: {named!r})")
    return named


def test_sources(nb: NotebookNode) -> dict[str, str]:
    """grade id -> source of the notebook's autograded test cells (give it the instructors' notebook)."""
    return {grade_id(c): c.source for c in nb.cells if is_test(c)}


