"""nbgrader's cell rules, in one place: which cells are graded, their ids and points, and the markers.

Built on :mod:`nbgrader.utils` (``is_grade``, ``is_solution``) and on the delimiters of nbgrader's own
preprocessors, written as the course writes them (``### BEGIN SOLUTION``). The course has three kinds
of nbgrader cell:

- an *answer*: a solution cell, not graded by itself (``[answer]`` in the single source);
- a *test* cell: graded, not a solution; its check runs in the grader (``[tests]``);
- a *written* answer: graded and a solution, marked by hand (``[written]``).
"""
from __future__ import annotations

import copy

from nbformat import NotebookNode
from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions
from nbgrader.utils import is_grade, is_solution

BEGIN_SOLUTION = "### " + ClearSolutions.begin_solution_delimeter.default_value
END_SOLUTION = "### " + ClearSolutions.end_solution_delimeter.default_value
BEGIN_HIDDEN = "### " + ClearHiddenTests.begin_test_delimeter.default_value
END_HIDDEN = "### " + ClearHiddenTests.end_test_delimeter.default_value
MARKERS = (BEGIN_SOLUTION, END_SOLUTION, BEGIN_HIDDEN, END_HIDDEN)

__all__ = ["BEGIN_HIDDEN", "BEGIN_SOLUTION", "END_HIDDEN", "END_SOLUTION", "MARKERS", "answers", "grade_id",
           "graded_cells", "is_answer", "is_grade", "is_solution", "is_test", "marked_regions", "max_score", "metadata",
           "points", "with_answers"]


def grade_id(cell) -> str | None:
    """The cell's nbgrader grade id, or None."""
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def is_answer(cell) -> bool:
    """An answer cell: a solution the student writes (graded by a test cell, or by hand when it is graded too)."""
    return bool(is_solution(cell))


def is_test(cell) -> bool:
    """An autograded test cell: a graded code cell that is not an answer."""
    return cell.cell_type == "code" and bool(is_grade(cell)) and not is_solution(cell)


def points(cell) -> float:
    """The points of a graded cell (0 for any other)."""
    return float(cell.metadata["nbgrader"].get("points") or 0) if is_grade(cell) else 0.0


def graded_cells(nb: NotebookNode) -> dict[str, NotebookNode]:
    """grade id -> cell, for every graded cell (test cells and written answers), in notebook order."""
    return {grade_id(c): c for c in nb.cells if is_grade(c)}


def max_score(nb: NotebookNode) -> float:
    """The points a notebook is worth: the sum over its graded cells."""
    return sum(points(c) for c in nb.cells)


def answers(nb: NotebookNode) -> dict[str, str]:
    """grade id -> source of every answer cell (of the instructors' notebook: the model answers)."""
    return {grade_id(c): c.source for c in nb.cells if is_answer(c)}


def with_answers(release: NotebookNode, chosen: dict[str, str]) -> NotebookNode:
    """A copy of the students' notebook with ``chosen`` (grade id -> source) in its answer cells: a submission."""
    nb = copy.deepcopy(release)
    for cell in nb.cells:
        if grade_id(cell) in chosen:
            cell.source = chosen[grade_id(cell)]
    return nb


def metadata(kind: str, cell_id: str, cell_points: float | None = None) -> dict | None:
    """The nbgrader metadata of a cell of the single source's ``kind`` (None: an ordinary cell)."""
    base = {"schema_version": 3, "grade_id": cell_id, "task": False}
    if kind == "answer":
        return {**base, "grade": False, "solution": True, "locked": False}
    if kind == "tests":
        return {**base, "grade": True, "solution": False, "locked": True, "points": cell_points}
    if kind == "written":
        return {**base, "grade": True, "solution": True, "locked": False, "points": cell_points}
    if kind in ("setup", "markdown"):
        return {**base, "grade": False, "solution": False, "locked": True}
    return None


def marked_regions(source: str, begin: str, end: str) -> list[list[str]]:
    """The lines between each ``begin`` and ``end`` marker line of a cell's source (markers left out)."""
    regions: list[list[str]] = []
    inside = False
    for line in source.splitlines():
        if begin in line:
            inside = True
            regions.append([])
        elif end in line:
            inside = False
        elif inside:
            regions[-1].append(line)
    return regions
