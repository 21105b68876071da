"""Run a solution notebook's code in-process, so checks can be tested quickly on many answers."""
from __future__ import annotations

import linecache
import os
from pathlib import Path

import nbformat

from autograder.cells import grade_id
from autograder.notebook_source import is_demo

REPO = Path(__file__).resolve().parents[2]
LONGEST_OUTPUT = 4000  # characters of text in one output: more is a wall a student scrolls past


def compile_cell(source: str):
    """``source`` compiled as IPython compiles a cell: under a name of its own, with its lines in ``linecache``, so
    that a traceback (and the feedback that quotes the student's line) can show them."""
    compile_cell.count = getattr(compile_cell, "count", 0) + 1
    filename = f"<cell {compile_cell.count}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return compile(source, filename, "exec")


def grade_ids(nb) -> dict[str, nbformat.NotebookNode]:
    return {grade_id(c): c for c in nb.cells if grade_id(c)}


class SolutionKernel:
    """The solution notebook's namespace after running every code cell once."""

    def __init__(self, name: str):
        os.environ.setdefault("MPLBACKEND", "Agg")
        self.nb = nbformat.read(REPO / "solutions" / f"{name}.ipynb", as_version=4)
        self.cells = grade_ids(self.nb)
        self.ns: dict = {"__name__": "__notebook__"}
        for cell in self.nb.cells:
            if cell.cell_type == "code" and not is_demo(cell):  # as when graded: demos are skipped
                self.run(cell.source)

    def run(self, source: str) -> None:
        lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
        exec(compile_cell("\n".join(lines)), self.ns)  # noqa: S102 (our own notebook)

    def run_cell(self, grade_id: str) -> None:
        self.run(self.cells[grade_id].source)

    def answer(self, grade_id: str, source: str) -> None:
        """Replace an answer cell's code (the solution can be put back with restore)."""
        self.run(source)

    def restore(self, grade_id: str) -> None:
        self.run_cell(grade_id)

    def fail_with(self, wrongs, match: str) -> None:
        """Each wrong answer in turn fails its test cell with an AnswerError matching ``match``; the solution is put back."""
        import pytest

        from course_lib.grading.answers import AnswerError

        for wrong in wrongs:
            self.answer(wrong.cell, wrong.source)
            try:
                with pytest.raises(AnswerError, match=match):
                    self.run_cell(wrong.test_cell)
            finally:
                self.restore(wrong.cell)


def one_class_per_notebook(base: type, names, namespace: dict) -> None:
    """Add a ``TestNotebookNN`` subclass of ``base`` with ``NOTEBOOK = name`` to ``namespace`` for each notebook.

    ``make test`` runs pytest-xdist with ``--dist loadscope``: a test file's functions go to one worker
    together, a class's methods too. One class per notebook lets the heavy per-notebook tests (a graded
    batch, a whole notebook run) share the workers, and a class-scoped fixture is built once per notebook.
    """
    for name in names:
        cls = type(f"TestNotebook{name[:2]}", (base,), {"NOTEBOOK": name, "__module__": namespace["__name__"]})
        namespace[cls.__name__] = cls
