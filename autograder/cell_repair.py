"""Put a submission's graded cells back the way the released notebook has them, before grading.

Students copy, delete, move, retype and re-tag cells in JupyterLab, and the grader must grade what
the release defines, not what the submission's metadata says. Left as they are, such cells would
be graded wrongly: a test cell re-tagged as ordinary code would be sent, hidden tests and all, to
the student's kernel; a second copy of a graded cell would be graded twice; a deleted test cell
would leave its exercise unchecked. :func:`repair` makes every cell's nbgrader part come from the
release:

- the first cell with a released grade id is that graded cell, with the release's metadata and
  cell type; later copies lose their nbgrader metadata (a copy of a test cell is dropped);
- nbgrader metadata with an unknown grade id, or none, is removed;
- a test cell the student deleted is put back after the cell that precedes it in the release
  (its check then grades the answer above it), else at the end.

It returns one sentence per change, for the student's feedback.
"""
from __future__ import annotations

import copy

import nbformat
from nbformat import NotebookNode

from .cells import grade_id, is_test


def _as_type(cell: NotebookNode, cell_type: str) -> NotebookNode:
    if cell.cell_type == cell_type:
        return cell
    make = nbformat.v4.new_code_cell if cell_type == "code" else nbformat.v4.new_markdown_cell
    fresh = make(cell.source, metadata=cell.metadata)
    fresh.id = cell.get("id", fresh.id)
    return fresh


def repair(nb: NotebookNode, release_nb: NotebookNode) -> list[str]:
    """Repair ``nb`` in place (see the module's docstring); returns what was changed, one sentence each."""
    released = {grade_id(c): c for c in release_nb.cells if grade_id(c)}
    notes: list[str] = []
    seen: set[str] = set()
    cells = []
    for cell in nb.cells:
        gid = grade_id(cell)
        if "nbgrader" not in cell.get("metadata", {}):
            cells.append(cell)
            continue
        if gid not in released:
            del cell.metadata["nbgrader"]
            cells.append(cell)
            continue
        model = released[gid]
        if gid in seen:
            if is_test(model):
                notes.append(f"A copy of the check cell {gid} was ignored: only the first one counts.")
                continue
            notes.append(f"A copy of the graded cell {gid} ran as an ordinary cell: only the first one is graded.")
            del cell.metadata["nbgrader"]
            cells.append(cell)
            continue
        seen.add(gid)
        if cell.cell_type != model.cell_type:
            notes.append(f"The graded cell {gid} had been changed to a {cell.cell_type} cell; it was graded as "
                         f"the {model.cell_type} cell it is.")
        cell = _as_type(cell, model.cell_type)
        cell.metadata["nbgrader"] = copy.deepcopy(model.metadata["nbgrader"])
        cells.append(cell)
    order = [grade_id(c) or c.get("id") for c in release_nb.cells]
    for position, model in enumerate(release_nb.cells):
        gid = grade_id(model)
        if not gid or gid in seen or not is_test(model):
            continue
        notes.append(f"The check cell {gid} was missing from this notebook; the grader put it back.")
        keys = [grade_id(c) or c.get("id") for c in cells]
        anchor = next((order[i] for i in reversed(range(position)) if order[i] in keys), None)
        at = keys.index(anchor) + 1 if anchor is not None else len(cells)
        restored = copy.deepcopy(model)
        restored.id = f"restored-{gid}"[:64]
        cells.insert(at, restored)
        seen.add(gid)
    nb.cells = cells
    return notes
