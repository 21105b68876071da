"""One submission's route through the grader, in the order :func:`autograder.grade.grade_one` takes it.

1. :func:`prepare`: the parsed submission made gradable in memory: every graded cell as the release has it
   (:mod:`autograder.cell_repair`), the read-only cells' source restored, the demo cells skipped, the outputs
   cleared;
2. :class:`autograder.trusted_execute.TrustedExecute` runs it in the sandboxed kernel, the test cells judged
   in the grader (:func:`trusted_execute` makes one for a kernel folder and its watchdog);
3. :func:`scores`: every graded cell scored by nbgrader's own ``determine_grade``;
4. :func:`feedback_page`: the page rendered with nbgrader's feedback template, as students may see it.

nbgrader is a library here: its cell rules, its preprocessors that need no gradebook (``ClearOutput``,
``LimitOutput``, ``CheckCellMetadata``) and its feedback template. Nothing is written to disk on the way,
and no gradebook is opened.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import jinja2
import nbgrader
from nbconvert.exporters import HTMLExporter
from nbconvert.preprocessors import CoalesceStreamsPreprocessor
from nbformat import NotebookNode
from nbgrader.preprocessors import CheckCellMetadata, ClearOutput, LimitOutput
from nbgrader.utils import compute_checksum, determine_grade, is_grade, is_locked, is_solution, is_task
from traitlets.config import Config

from . import cell_repair, feedback, safe_page, sandbox
from .notebook_source import is_demo

DEMO_SKIPPED = ("# This demo cell is skipped while grading: nothing graded depends on it. "
                "It runs in full in your notebook.")
#: what a cell may print onto the feedback page, in lines (nbgrader's LimitOutput)
PAGE_LINES, PAGE_TRACEBACK_LINES = 200, 40
#: nbgrader's feedback template, and the stylesheet it includes
TEMPLATES = os.path.join(os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader", "templates")
BOOTSTRAP_CSS = os.path.join(os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader", "static",
                             "node_modules", "bootstrap", "dist", "css")


def skip_demos(nb: NotebookNode, release: NotebookNode) -> int:
    """Blank the demo cells (training runs, plots, widgets) of a submission; returns how many."""
    demo_ids = {c.get("id") for c in release.cells if is_demo(c)}
    skipped = 0
    for cell in nb.cells:
        if is_demo(cell, demo_ids):
            cell.source, cell.outputs = DEMO_SKIPPED, []
            skipped += 1
    return skipped


def _restore_read_only(nb: NotebookNode, release: NotebookNode) -> None:
    """A read-only cell's source as released, whatever the submission says (nbgrader's OverwriteCells does this)."""
    released = {c.metadata["nbgrader"]["grade_id"]: c.source for c in release.cells if is_locked(c)}
    for cell in nb.cells:
        if is_locked(cell) and cell.metadata["nbgrader"]["grade_id"] in released:
            cell.source = released[cell.metadata["nbgrader"]["grade_id"]]


def prepare(nb: NotebookNode, release: NotebookNode) -> list[str]:
    """Make a parsed submission gradable, in place; returns the grader's notes for the student (one sentence each)."""
    skip_demos(nb, release)
    notes = cell_repair.repair(nb, release)
    _restore_read_only(nb, release)
    nb.metadata["kernelspec"] = release.metadata.get("kernelspec", {})
    ClearOutput().preprocess(nb, {})
    CheckCellMetadata().preprocess(nb, {})
    return notes


def trusted_execute(assignment, kernel_dir, isolated: bool, timeout: int, watchdog):
    """The grader's executor of one submission: its kernel the sandbox's, in ``kernel_dir``, watched by ``watchdog``.

    ``assignment`` is the batch's :class:`autograder.grade.Assignment` (test cells' source, checks module).
    """
    from .trusted_execute import TrustedExecute  # nbclient and zmq: only where a kernel runs

    config = Config()
    for section, values in sandbox.kernel_config(isolated, kernel_dir).items():
        for key, value in values.items():
            setattr(config[section], key, value)
    return TrustedExecute(config=config, watchdog=watchdog, test_sources=assignment.test_sources,
                          checks_module=assignment.checks_module, exchange_dir=str(kernel_dir), timeout=timeout,
                          kernel_name=sandbox.KERNEL_NAME, interrupt_on_timeout=True, allow_errors=True,
                          extra_arguments=["--HistoryManager.enabled=False"])


def limit_outputs(nb: NotebookNode) -> None:
    """What a cell printed, cut to what a page shows (nbgrader's LimitOutput, with the course's limits)."""
    LimitOutput(max_lines=PAGE_LINES, max_traceback=PAGE_TRACEBACK_LINES).preprocess(nb, {})


@dataclass
class Scores:
    """A graded notebook's points, as nbgrader's gradebook would hold them after autograding."""

    cells: dict[str, float | None] = field(default_factory=dict)  # grade id -> score; None: to be marked by hand
    points: dict[str, float] = field(default_factory=dict)        # grade id -> the cell's points

    @property
    def total(self) -> float:
        return sum(score or 0.0 for score in self.cells.values())

    @property
    def max_score(self) -> float:
        return sum(self.points.values())

    @property
    def pending(self) -> float:
        """Points of the written answers that wait for a person's marks."""
        return sum(self.points[gid] for gid, score in self.cells.items() if score is None)


def scores(nb: NotebookNode) -> Scores:
    """Every graded cell of an executed submission scored by nbgrader's ``determine_grade``."""
    found = Scores()
    for cell in nb.cells:
        if is_grade(cell):
            score, points = determine_grade(cell)
            gid = cell.metadata["nbgrader"]["grade_id"]
            found.cells[gid], found.points[gid] = score, points
    return found


def _unanswered(cell: NotebookNode) -> bool:
    """An answer cell left as released (nbgrader's autograde comments "No response." on it)."""
    return not is_task(cell) and cell.metadata["nbgrader"].get("checksum") == compute_checksum(cell)


def _for_the_page(nb: NotebookNode, graded: Scores) -> None:
    """Each graded cell's score and points where nbgrader's feedback template reads them, and the autograder's
    comment on an answer cell (nbgrader's own: "No response." when it was left as released)."""
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if is_solution(cell) or is_task(cell):
            meta["comment"] = "No response." if _unanswered(cell) else None
        if (is_grade(cell) or is_task(cell)) and meta.get("grade_id") in graded.cells:
            meta["score"], meta["points"] = graded.cells[meta["grade_id"]], graded.points[meta["grade_id"]]


def feedback_page(nb: NotebookNode, graded: Scores, released_tests: dict[str, str], notes: list[str],
                  student: str, assignment: str) -> str:
    """The student's feedback page: nbgrader's template, the test cells as released, the grader's notes, the
    outputs as a page may show them (:mod:`autograder.safe_page`), output lines wrapped and a strict policy."""
    feedback.for_students(nb, released_tests, notes)
    CoalesceStreamsPreprocessor(enabled=True).preprocess(nb, {})  # a cell's printed lines as one output
    _for_the_page(nb, graded)
    safe_page.clean_outputs(nb)
    resources = {"unique_key": assignment, "output_files_dir": f"{assignment}_files",
                 "nbgrader": {"student": student, "assignment": assignment, "notebook": assignment,
                              "score": graded.total, "max_score": graded.max_score, "late_penalty": 0}}
    page, _ = feedback_exporter().from_notebook_node(nb, resources)
    return safe_page.with_policy(feedback.with_wrapped_output(page))


class CompiledTemplates(jinja2.BytecodeCache):
    """Jinja's compiled templates, kept in memory for the life of the process (checked against each source)."""

    def __init__(self):
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


COMPILED_TEMPLATES = CompiledTemplates()


class FeedbackExporter(HTMLExporter):
    """nbconvert's HTML exporter with nbgrader's feedback template, whose templates a grading worker compiles once.

    Without the shared cache each new exporter compiles the whole template tree again (about a second per page).
    """

    def _create_environment(self):
        environment = super()._create_environment()
        environment.bytecode_cache = COMPILED_TEMPLATES
        return environment

    @jinja2.pass_context
    def markdown2html(self, context, source):
        """Markdown cells (the student's written answers among them) rendered, then cleaned: raw HTML runs nothing."""
        return safe_page.clean_html(super().markdown2html(context, source))


def feedback_exporter() -> FeedbackExporter:
    return FeedbackExporter(template_name="feedback", extra_template_basedirs=[TEMPLATES],
                            extra_template_paths=[BOOTSTRAP_CSS])
