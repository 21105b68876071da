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
import json
import random
from pathlib import Path

import nbformat
import numpy as np
import torch
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Dict, Integer, Unicode

from course_lib.answer_wire import MIME, WireError
from course_lib.grading import AnswerError, hidden_cases
from course_lib.remote_answer import Channel, KernelError, resolve

from .cells import BEGIN_HIDDEN, END_HIDDEN, grade_id, is_test

#: names a test cell may use that are the grader's own, never the kernel's
GRADER_NAMES = ("checks", "torch")
#: a longer request goes through a file in the kernel's folder, not into the kernel's code
INLINE_ARGUMENT = 64 << 10
CHECKS_PACKAGE = "course_lib.checks."


def _render(err: AnswerError) -> str:
    return err._render_traceback_()[0] if hasattr(err, "_render_traceback_") else f"\u2718 {err}"


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
    printed = io.StringIO()
    outputs: list[NotebookNode] = []
    with contextlib.redirect_stdout(printed):
        try:
            names = _names_used(source)
            namespace.update(resolve(names, channel) if names else {})
            _reseed()
            for hidden, part in test_parts(source):
                with hidden_cases() if hidden else contextlib.nullcontext():
                    exec(compile(part, f"<{label}>", "exec"), namespace)  # noqa: S102 (the instructors' test code)
        except AnswerError as err:
            outputs.append(_error_output("AnswerError", err.message, _render(err)))
        except NameError as err:
            name = err.name or str(err)
            line = (f"\x1b[1;31m\u2718 {name} is not defined yet\x1b[0m: run your answer cell above this one "
                    "(after replacing `raise NotImplementedError()` with your code).")
            outputs.append(_error_output("NameError", str(err), line))
        except (KernelError, WireError) as err:
            line = f"\x1b[1;31m\u2718 this check could not run\x1b[0m: {err}"
            outputs.append(_error_output(type(err).__name__, str(err), line))
        except Exception as err:  # what the notebook returned broke the check itself: no points, and why
            line = (f"\x1b[1;31m\u2718 this check could not use your answer\x1b[0m "
                    f"({type(err).__name__}: {str(err)[:300]}).")
            outputs.append(_error_output(type(err).__name__, str(err)[:300], line))
    text = printed.getvalue()
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


class KernelLine(Channel):
    """Calls into the kernel of a notebook being executed, each as a cell that is never part of the notebook."""

    def __init__(self, client: "TrustedExecute"):
        super().__init__()
        self.client, self.index, self.requests = client, 0, 0

    def send(self, entry: str, argument: str) -> str:
        client = self.client
        if len(argument) > INLINE_ARGUMENT and client.exchange_dir:  # the kernel reads it from its own folder
            self.requests += 1
            path = Path(client.exchange_dir) / f"course-request-{self.requests}.txt"
            path.write_text(argument, encoding="ascii")
            argument = f"@{path}"
        probe = nbformat.v4.new_code_cell(f"__import__('course_lib.remote_answer').remote_answer.{entry}({argument!r})")
        client.execute_cell(probe, self.index, store_history=False)
        for out in probe.outputs:
            if out.output_type == "display_data" and MIME in out.get("data", {}):
                return out.data[MIME]
        errors = [o for o in probe.outputs if o.output_type == "error"]
        if errors and errors[-1].ename == client.error_on_timeout.get("ename"):
            raise KernelError(f"your code did not finish within the {client.timeout} s a cell may run.")
        if errors:
            raise KernelError(f"the notebook's code stopped the grader's call ({errors[-1].ename}): "
                              "no points for this check.")
        raise KernelError("the notebook's code kept the grader's call from replying: no points for this check.")


class TrustedExecute(Execute):
    """nbgrader's Execute, with test cells run in the grader (see the module's docstring)."""

    test_sources = Dict(Unicode(), help="grade id -> source of each test cell, from the instructors' notebook; "
                                         "what runs here, whatever the submission's cell says").tag(config=True)
    checks_module = Unicode("", help="the notebook's module of checks").tag(config=True)
    max_cell_output = Integer(1 << 20, help="characters of output kept per cell").tag(config=True)
    max_notebook_output = Integer(8 << 20, help="characters of output kept per notebook").tag(config=True)
    exchange_dir = Unicode("", help="a folder the kernel can read: large requests travel through it").tag(config=True)

    def preprocess(self, nb, resources=None, km=None):
        self._line = KernelLine(self)
        self._kept_total = 0
        self._kept_in_cell: dict[int, int] = {}
        return super().preprocess(nb, resources, km)

    def preprocess_cell(self, cell, resources, index):
        gid = grade_id(cell)
        if cell.cell_type == "code" and gid in self.test_sources:
            self._line.index = index
            cell.outputs = run_test_cell(self.test_sources[gid], self.checks_module, self._line, gid)
            cell.execution_count = None
            self.nb.cells[index] = cell  # nbclient put the last call's cell in its place
            return cell, self.resources
        return super().preprocess_cell(cell, resources, index)

    def output(self, outs, msg, display_id, cell_index):
        size = len(json.dumps(msg.get("content", {}), default=str))
        if msg["msg_type"] == "display_data" and MIME in msg.get("content", {}).get("data", {}):
            return super().output(outs, msg, display_id, cell_index)  # a reply to the grader (read_reply caps it)
        kept = self._kept_in_cell.get(cell_index, 0)
        if kept + size > self.max_cell_output or self._kept_total + size > self.max_notebook_output:
            if kept <= self.max_cell_output:  # say it once per cell
                self._kept_in_cell[cell_index] = self.max_cell_output + 1
                note = (f"[output dropped by the grader: a cell may print {self.max_cell_output >> 10} KB and a "
                        f"notebook {self.max_notebook_output >> 20} MB]\n")
                outs.append(nbformat.v4.new_output("stream", name="stderr", text=note))
            return None
        self._kept_in_cell[cell_index] = kept + size
        self._kept_total += size
        return super().output(outs, msg, display_id, cell_index)
