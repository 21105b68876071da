"""The steps of grading one submission, as nbgrader preprocessors, in memory from the submission to its page.

nbgrader's ``autograde`` runs its sanitize preprocessors, then its autograde preprocessors, and
``generate_feedback`` its feedback preprocessors; :func:`steps` puts the course's steps into those
lists, around nbgrader's own:

- sanitize: :class:`SkipDemos` (demo cells blanked: nothing graded depends on them), then
  :class:`RepairCells` (:mod:`autograder.cell_repair`: every graded cell as the release has it),
  then nbgrader's ``ClearOutput`` ... ``OverwriteCells`` (the test cells' source from the gradebook);
- autograde: :class:`autograder.verdict.TrustedExecute` in the place of nbgrader's ``Execute`` (the
  trusted verdict of every test cell; configured with the test cells and the checks module), then
  :class:`RecordVerdicts` before nbgrader's ``SaveAutoGrades``, whose ``determine_grade`` scores every cell;
- feedback: :class:`ForStudents` first (the test cells as released, the grader's notes), then
  nbgrader's ``GetGrades`` and the page, written by :class:`FeedbackExporter`.

The steps of one submission share what they learn (the notes of the repair, the verdicts), so
nothing is read back from the notebooks nbgrader writes.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import jinja2
from nbconvert.exporters import HTMLExporter
from nbconvert.preprocessors import CoalesceStreamsPreprocessor
from nbformat import NotebookNode
from nbgrader.converters import Autograde, GenerateFeedback
from nbgrader.preprocessors import Execute, NbGraderPreprocessor, SaveAutoGrades

from . import cell_repair, feedback, safe_page
from .notebook_source import is_demo
from .trusted_execute import TrustedExecute
from .verdict import test_sources

DEMO_SKIPPED = "# This demo cell is skipped while grading: nothing graded depends on it. It runs in full in your notebook."


def skip_demos(nb: NotebookNode, release: NotebookNode) -> int:
    """Blank the demo cells (training runs, plots, widgets) of a submission; returns how many."""
    demo_ids = {c.get("id") for c in release.cells if is_demo(c)}
    skipped = 0
    for cell in nb.cells:
        if is_demo(cell, demo_ids):
            cell.source, cell.outputs = DEMO_SKIPPED, []
            skipped += 1
    return skipped


@dataclass
class Findings:
    """What the steps of one submission learn on the way: the repair's notes, the verdicts, how the kernel ended."""

    notes: list[str] = field(default_factory=list)
    failures: dict[str, str] = field(default_factory=dict)  # test cell -> the verdict's first line
    stopped: str = ""          # why the kernel stopped before the last cell ('' when it did not)
    slowest_cell: float = 0.0  # seconds of the slowest cell (the batch's calibration reads it)


class Step(NbGraderPreprocessor):
    """A step of one submission, given to nbgrader as itself: nbgrader's configuration deep-copies the
    preprocessor lists it is given, and a copy would keep what it learns (:class:`Findings`) to itself."""

    def __deepcopy__(self, memo):
        return self


class SkipDemos(Step):
    """Sanitize step: the demo cells (those the release tags demo) blanked."""

    def __init__(self, release: NotebookNode, **kwargs):
        super().__init__(**kwargs)
        self.release = release

    def preprocess(self, nb, resources):
        skip_demos(nb, self.release)
        return nb, resources


class RepairCells(Step):
    """Sanitize step: every graded cell of the submission put back as the release has it."""

    def __init__(self, release: NotebookNode, findings: Findings, **kwargs):
        super().__init__(**kwargs)
        self.release, self.findings = release, findings

    def preprocess(self, nb, resources):
        self.findings.notes += cell_repair.repair(nb, self.release)
        return nb, resources


class RecordVerdicts(Step):
    """Autograde step, before nbgrader scores the cells: the first line of each failing check's verdict."""

    def __init__(self, findings: Findings, **kwargs):
        super().__init__(**kwargs)
        self.findings = findings

    def preprocess(self, nb, resources):
        self.findings.failures = feedback.failures(nb)
        return nb, resources


class ForStudents(Step):
    """Feedback step, first: the test cells' source as released (no hidden test), the grader's notes at the end."""

    def __init__(self, released_tests: dict[str, str], findings: Findings, **kwargs):
        super().__init__(**kwargs)
        self.released_tests, self.findings = released_tests, findings

    def preprocess(self, nb, resources):
        feedback.for_students(nb, self.released_tests, self.findings.notes)
        return nb, resources


class SafeOutputs(Step):
    """Feedback step, last: every output and attachment as a page may show it (:mod:`autograder.safe_page`)."""

    def preprocess(self, nb, resources):
        safe_page.clean_outputs(nb)
        return nb, resources


def steps(release: NotebookNode, findings: Findings, execute: TrustedExecute) -> dict[str, list]:
    """The preprocessor lists of nbgrader's Autograde and GenerateFeedback with the course's steps in them.

    ``execute`` (configured, with the submission's watchdog) stands where nbgrader's ``Execute`` stands.
    """
    released_tests = test_sources(release)  # the students' source of each test cell
    autograde = []
    for step in Autograde.class_traits()["autograde_preprocessors"].default():
        if step is SaveAutoGrades:
            autograde.append(RecordVerdicts(findings))
        autograde.append(execute if step is Execute else step)
    return {
        "sanitize": [SkipDemos(release), RepairCells(release, findings),
                     *Autograde.class_traits()["sanitize_preprocessors"].default()],
        "autograde": autograde,
        # a cell's printed lines as one output: how the kernel flushed them (timing) does not show on the page
        "feedback": [ForStudents(released_tests, findings), CoalesceStreamsPreprocessor(enabled=True),
                     *GenerateFeedback.class_traits()["preprocessors"].default(), SafeOutputs()],
    }


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
    """nbconvert's HTML exporter (nbgrader's feedback template), whose templates a grading worker compiles once.

    nbgrader makes a new exporter for every page; without the shared cache each one compiles the
    whole template tree again (about a second per submission).
    """

    def _create_environment(self):
        environment = super()._create_environment()
        environment.bytecode_cache = COMPILED_TEMPLATES
        return environment

    @jinja2.pass_context
    def markdown2html(self, context, source):
        """Markdown cells (the student's written answers among them) rendered, then cleaned: raw HTML runs nothing."""
        return safe_page.clean_html(super().markdown2html(context, source))
