"""The student's feedback page: nbgrader's feedback template over the graded notebook, as students may see it.

:func:`render` puts back the test cells as released and adds the grader's notes
(:func:`autograder.feedback.for_students`), gives each graded cell its score where the template reads it,
cleans every output (:mod:`autograder.safe_page`), and renders the page with nbgrader's own template (its
formgrader's ``feedback``), output lines wrapped and a strict content policy. The Markdown's maths is MathML
(:mod:`autograder.page_maths`) in place of the template's MathJax from a CDN: the page typesets it offline.
"""
from __future__ import annotations

import os

import jinja2
import nbgrader
from nbconvert.exporters import HTMLExporter
from nbconvert.preprocessors import CoalesceStreamsPreprocessor
from nbformat import NotebookNode
from nbgrader.utils import compute_checksum, is_grade, is_solution, is_task

from . import feedback, page_maths, safe_page

#: nbgrader's feedback template, and the stylesheet it includes
TEMPLATES = os.path.join(os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader", "templates")
BOOTSTRAP_CSS = os.path.join(os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader", "static",
                             "node_modules", "bootstrap", "dist", "css")


def unanswered(cell: NotebookNode) -> bool:
    """An answer cell left as released (nbgrader's autograde comments "No response." on it)."""
    return (is_solution(cell) and not is_task(cell)
            and cell.metadata["nbgrader"].get("checksum") == compute_checksum(cell))


def _for_the_page(nb: NotebookNode, graded) -> None:
    """Each graded cell's score and points where nbgrader's feedback template reads them, and the autograder's
    comment on an answer cell: the instructor's, else nbgrader's own ("No response." when left as released)."""
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if is_solution(cell) or is_task(cell):
            written = graded.comments.get(meta.get("grade_id"))  # the instructor's, from formgrader
            meta["comment"] = written or ("No response." if unanswered(cell) else None)
        if (is_grade(cell) or is_task(cell)) and meta.get("grade_id") in graded.cells:
            meta["score"], meta["points"] = graded.cells[meta["grade_id"]], graded.points[meta["grade_id"]]


def render(nb: NotebookNode, graded, released_tests: dict[str, str], notes: list[str], student: str,
           assignment: str) -> str:
    """The page of a graded notebook (``graded``: its :class:`autograder.submission.Scores`); ``nb`` is edited."""
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
    The templates' ``mathjax`` macro (a script from a CDN) is :mod:`autograder.page_maths`' stylesheet instead.
    """

    def _create_environment(self):
        environment = super()._create_environment()
        environment.bytecode_cache = COMPILED_TEMPLATES
        environment.loader = jinja2.ChoiceLoader(
            [jinja2.DictLoader({page_maths.MACRO_TEMPLATE: page_maths.MACRO}), environment.loader])
        return environment

    @jinja2.pass_context
    def markdown2html(self, context, source):
        """Markdown cells (the student's written answers among them) rendered, then cleaned: raw HTML runs nothing.

        As nbconvert's own filter (``HTMLExporter.markdown2html``), with its formulas as MathML: each set aside while
        the Markdown is rendered and cleaned, then put back converted and cleaned as MathML.
        """
        cell = context.get("cell", {})
        renderer = page_maths.MathsRenderer(
            source, escape=False, attachments=cell.get("attachments", {}), embed_images=self.embed_images,
            path=context.get("resources", {}).get("metadata", {}).get("path", ""),
            anchor_link_text=self.anchor_link_text, exclude_anchor_links=self.exclude_anchor_links,
            **self.lexer_options)
        return renderer.with_maths(safe_page.clean_html(page_maths.markdown_to_html(source, renderer)))


def feedback_exporter() -> FeedbackExporter:
    return FeedbackExporter(template_name="feedback", extra_template_basedirs=[TEMPLATES],
                            extra_template_paths=[BOOTSTRAP_CSS])
