"""The verdict of every test cell, computed in the grader's process, where student code cannot reach.

:class:`TrustedExecute` replaces nbgrader's ``Execute`` in ``Autograde.autograde_preprocessors``.
It runs every cell of the submission in the student's kernel, as nbgrader does, except the
test cells. A test cell runs here instead, from the instructors' notebook (hidden tests included;
never the source the submission carries) (:func:`run_test_cell`): ``checks`` is the notebook's checks module imported
by the grader, ``torch`` the grader's torch, and every other name the cell uses is looked up
in the kernel at that moment: a plain value comes back as data, a function or class as a
:class:`course_lib.grading.remote_answer.KernelName` whose calls run in the kernel and return data (while the cell runs,
:func:`course_lib.grading.remote_answer.calls_to_kernel` routes a check's calls there).
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

from course_lib.grading.answer_wire import WireError
from course_lib.grading.answers import AnswerError, hidden_cases, without_numbers
from course_lib.grading.plain_text import one_line
from course_lib.grading.remote_answer import Channel, KernelError, calls_to_kernel, resolve

from .cells import BEGIN_HIDDEN, END_HIDDEN, grade_id, is_test

#: names a test cell may use that are the grader's own, never the kernel's
GRADER_NAMES = ("checks", "torch")
#: a longer request goes through a file in the grader's request folder (read-only to the kernel), not into its code
INLINE_ARGUMENT = 64 << 10
CHECKS_PACKAGE = "course_lib.checks."
#: what the kernel may send in one message part when no watchdog sets the allowance; a larger one is refused by zmq
MAX_MESSAGE_BYTES = 32 << 20


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


class TestRun:
    """One test cell run here in two phases: its visible part now, its hidden part after the notebook's last cell.

    :meth:`visible` runs the cell's leading visible part against the kernel (the student's cells run around
    it as usual) and returns its outputs; when it passed and the cell has hidden tests, :meth:`hidden` runs the
    rest later, once no cell of the student's will run again, and returns the cell's whole outputs. So the
    hidden cases' inputs reach the kernel only after everything the kernel prints onto the page, and after every
    visible verdict. Between the two phases the cell keeps its namespace and the random state it had.
    """

    def __init__(self, source: str, checks_module: str, channel: Channel, label: str = "test cell"):
        if not checks_module.startswith(CHECKS_PACKAGE):
            raise ValueError(f"not a module of course checks: {checks_module}")
        self.channel, self.label = channel, label
        self.namespace = {"__builtins__": builtins, "__name__": "__course_test__",
                          "checks": importlib.import_module(checks_module), "torch": torch}
        parts = test_parts(source)
        first_hidden = next((i for i, (hidden, _) in enumerate(parts) if hidden), len(parts))
        self.now, self.later = parts[:first_hidden], parts[first_hidden:]
        self.names = _names_used(source)
        self.printed: list[tuple[bool, str]] = []
        self.outputs: list[NotebookNode] = []
        self.random_state = None

    @property
    def pending(self) -> bool:
        """True when the visible part passed and a hidden part is still to run."""
        return bool(self.later) and not self.outputs

    def visible(self) -> list[NotebookNode]:
        try:
            with self._printing(False):
                self.namespace.update(resolve(self.names, self.channel) if self.names else {})
        except Exception as err:  # noqa: BLE001 (the kernel could not say what the names are: the cell's verdict)
            self.fail(err)
            return self.cell_outputs()
        _reseed()
        self._run(self.now)
        self.random_state = (torch.get_rng_state(), np.random.get_state(), random.getstate())
        return self.cell_outputs()

    def hidden(self) -> list[NotebookNode]:
        torch.set_rng_state(self.random_state[0])
        np.random.set_state(self.random_state[1])
        random.setstate(self.random_state[2])
        self._run(self.later)
        return self.cell_outputs()

    def cell_outputs(self) -> list[NotebookNode]:
        text = "".join(without_numbers(said) if hidden else said for hidden, said in self.printed)
        return ([nbformat.v4.new_output("stream", name="stdout", text=text)] if text else []) + self.outputs

    @contextlib.contextmanager
    def _printing(self, hidden: bool):
        buffer = io.StringIO()
        try:
            with contextlib.redirect_stdout(buffer):
                yield
        finally:
            self.printed.append((hidden, buffer.getvalue()))

    def fail(self, err: Exception) -> None:
        """The cell fails with ``err`` (its hidden part, if any, will not run)."""
        self.outputs.append(_verdict(err, False))

    def _run(self, parts: list[tuple[bool, str]]) -> None:
        """Run parts in order until one fails; a failure becomes the cell's error output."""
        hidden = False
        try:
            for hidden, part in parts:
                with self._printing(hidden), hidden_cases() if hidden else contextlib.nullcontext(), calls_to_kernel():
                    exec(compile(part, f"<{self.label}>", "exec"), self.namespace)  # noqa: S102 (the instructors' test code)
        except Exception as err:  # noqa: BLE001 (every failure is the cell's verdict)
            self.outputs.append(_verdict(err, hidden))


def _verdict(err: Exception, hidden: bool) -> NotebookNode:
    """The error output of a failed test cell, composed here; in a hidden case, with no number in it."""
    if isinstance(err, AnswerError):  # in a hidden case no number: it could carry the case (a shape, a sum, an offset)
        message = without_numbers(err.message) if hidden else err.message
        return _error_output("AnswerError", message, f"\x1b[1;31m\u2718 {err.exercise}\x1b[0m: {message}")
    if isinstance(err, NameError):
        name = err.name or str(err)
        line = (f"\x1b[1;31m\u2718 {name} is not defined yet\x1b[0m: run your answer cell above this one "
                "(after replacing `raise NotImplementedError()` with your code).")
        return _error_output("NameError", str(err), line)
    if isinstance(err, (KernelError, WireError)):
        line = f"\x1b[1;31m\u2718 this check could not run\x1b[0m: {err}"
        return _error_output(type(err).__name__, str(err), line)
    said = without_numbers(one_line(err)) if hidden else one_line(err)  # what the notebook returned broke the check
    line = f"\x1b[1;31m\u2718 this check could not use your answer\x1b[0m ({type(err).__name__}: {said})."
    return _error_output(type(err).__name__, said, line)


def run_test_cell(source: str, checks_module: str, channel: Channel, label: str = "test cell") -> list[NotebookNode]:
    """Run one test cell's source here, both its phases at once, against the kernel behind ``channel``."""
    run = TestRun(source, checks_module, channel, label)
    run.visible()
    return run.hidden() if run.pending else run.cell_outputs()


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


