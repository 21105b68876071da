"""The feedback page's exporter compiles nbconvert's templates once per grading process, and renders the same page."""
import nbformat
from nbconvert.exporters import HTMLExporter

from autograder.feedback_page import COMPILED_TEMPLATES, FeedbackExporter


def small_notebook() -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell("print('hello')")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="hello\n")]
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# A page"), cell])


def test_the_page_is_nbconverts_and_its_templates_are_compiled_once():
    nb = small_notebook()
    plain, _ = HTMLExporter().from_notebook_node(nb)
    first, _ = FeedbackExporter().from_notebook_node(nb)
    compiled = dict(COMPILED_TEMPLATES.compiled)
    assert compiled, "the first page should leave its compiled templates in the cache"
    second, _ = FeedbackExporter().from_notebook_node(nb)  # a new exporter, as nbgrader makes for every page
    assert first == second == plain
    assert COMPILED_TEMPLATES.compiled == compiled  # nothing compiled again
