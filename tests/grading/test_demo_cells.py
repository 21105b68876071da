"""Demo cells (training runs, plots, widgets) are skipped when grading, and nothing else is."""
import copy

import nbformat

from autograder.submission import DEMO_SKIPPED, skip_demos
from autograder.cells import is_answer, is_grade, is_test
from autograder.notebook_source import is_demo
from notebook_runner import REPO


def release(name="02_ffnn_lm"):
    return nbformat.read(REPO / "notebooks" / f"{name}.ipynb", as_version=4)


def test_notebook_02_marks_its_training_cells_as_demos():
    nb = release()
    demos = [c for c in nb.cells if is_demo(c)]
    assert len(demos) >= 10
    assert any("train(" in c.source for c in demos) and any("widgets.interact" in c.source for c in demos)
    graded = [c for c in nb.cells if is_grade(c)]
    assert graded and not any(is_demo(c) for c in graded)


def test_skip_blanks_demos_even_without_their_tag_but_never_graded_cells():
    nb = release()
    submission = copy.deepcopy(nb)
    untagged = next(c for c in submission.cells if is_demo(c))
    untagged.metadata["tags"] = []  # a student removed the tag: the release's cell id still says demo
    test_cell = next(c for c in submission.cells if is_test(c))
    test_cell.metadata["tags"] = ["demo"]  # a student tried to skip a check
    answer = next(c for c in submission.cells if is_answer(c))
    answer.metadata["tags"] = ["demo"]
    original_test, original_answer = test_cell.source, answer.source
    skipped = skip_demos(submission, nb)
    assert skipped == sum(is_demo(c) for c in nb.cells)
    assert untagged.source == DEMO_SKIPPED
    assert test_cell.source == original_test and answer.source == original_answer


def test_every_widget_cell_is_a_demo():
    """No grade depends on a widget, and a widget cell can stall grading: nbclient sometimes never
    gets its execute reply (jupyter/nbclient#312) and waits out the cell timeout (60 s)."""
    for path in sorted((REPO / "notebooks").glob("0*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        widget_cells = [c for c in nb.cells if c.cell_type == "code" and ("widgets." in c.source or "interact(" in c.source)]
        assert not [c.id for c in widget_cells if not is_demo(c)], path.name
