"""What a regrade changed: each student whose automatic score or a cell's verdict differs from the course
directory's earlier grading, with both verdicts of every cell that changed.

A cell's verdict is the first line the check said when it failed, "passed" when it got all its points, or
"to be marked by hand" ("not graded" for a submission that could not be graded: grades.csv says why).
With ``never_lower`` a student whose new automatic score is below the earlier one keeps
the earlier grading (the batch leaves their gradebook rows, notebook and page as they were), and the table
says so. Hand marks are not part of the comparison: the gradebook keeps them whatever a regrade finds.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from course_lib.grading.plain_text import csv_cell, markdown_cell, one_line

from .course_results import Before
from .submission import Result

BY_HAND = "to be marked by hand"
NOT_GRADED = "not graded"


@dataclass
class CellChange:
    cell: str
    old_score: float | None
    new_score: float | None
    old_verdict: str
    new_verdict: str


@dataclass
class Change:
    student: str
    old: float | None   # None: not graded before
    new: float
    cells: list[CellChange] = field(default_factory=list)
    kept: bool = False  # the earlier, higher grading stays (never lower)


def verdict(cell: str, score: float | None, points: float, failures: dict[str, str], to_mark) -> str:
    if cell in failures:
        return failures[cell]
    if score is None or cell in to_mark:
        return BY_HAND
    return "passed" if score >= points else f"{score:g} of {points:g} points"


def _now(result: Result, points: dict[str, float]) -> tuple[dict[str, float | None], dict[str, str]]:
    """A new result's cells as the gradebook will hold them: automatic score (None: by hand), and verdicts."""
    if result.status != "graded":  # every cell a zero, with the reason
        return {gid: 0.0 for gid in points}, {gid: NOT_GRADED for gid in points}
    return ({gid: None if gid in result.to_mark else score for gid, score in result.cells.items()},
            result.failures)


def changes(earlier: dict[str, Before], results: list[Result], points: dict[str, float],
            never_lower: bool = False) -> list[Change]:
    """The students whose grading differs from ``earlier`` (every student graded before and now)."""
    found = []
    for result in results:
        before = earlier.get(result.student_id)
        if before is None:
            continue
        scores, failures = _now(result, points)
        new_total = sum(s or 0.0 for s in scores.values())
        change = Change(result.student_id, before.total, new_total)
        for gid in points:
            old_score, new_score = before.cells.get(gid), scores.get(gid)
            old_v = verdict(gid, old_score, before.points.get(gid, points[gid]), before.failures, ()) \
                if before.graded else NOT_GRADED
            new_v = verdict(gid, new_score, points[gid], failures, result.to_mark)
            if old_v != new_v or old_score != new_score:
                change.cells.append(CellChange(gid, old_score, new_score, old_v, new_v))
        if change.cells or abs(new_total - before.total) > 1e-9:
            change.kept = never_lower and new_total < before.total
            found.append(change)
    return found


def _score(value: float | None) -> str:
    return "by hand" if value is None else f"{value:g}"


def lines(found: list[Change]) -> list[str]:
    """The table as the instructor reads it in the terminal."""
    if not found:
        return ["regrade: no student's automatic score or verdict changed"]
    out = [f"regrade: {len(found)} student(s) changed ({sum(c.kept for c in found)} kept their higher earlier score)"]
    for change in found:
        kept = "  (kept the earlier score: never lower)" if change.kept else ""
        out.append(f"  {one_line(change.student)}: {change.old:g} -> {change.new:g}{kept}")
        for cell in change.cells:
            out.append(f"    {cell.cell}: {_score(cell.old_score)} -> {_score(cell.new_score)}; "
                       f"was {one_line(cell.old_verdict)!r}, now {one_line(cell.new_verdict)!r}")
    return out


def write(found: list[Change], out: Path) -> list[Path]:
    """``regrade.csv`` (one row per changed cell) and ``regrade.md`` in ``out``."""
    table, page = out / "regrade.csv", out / "regrade.md"
    with table.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student_id", "old_score", "new_score", "kept_earlier", "cell", "old_cell_score",
                         "new_cell_score", "old_verdict", "new_verdict"])
        for change in found:
            for cell in change.cells or [CellChange("", None, None, "", "")]:
                writer.writerow([csv_cell(change.student), f"{change.old:g}", f"{change.new:g}", change.kept,
                                 cell.cell, _score(cell.old_score) if cell.cell else "",
                                 _score(cell.new_score) if cell.cell else "",
                                 csv_cell(one_line(cell.old_verdict)), csv_cell(one_line(cell.new_verdict))])
    rows = ["# Regrade", "", *(f"- {markdown_cell(line.strip())}" for line in lines(found)[1:])] if found else \
        ["# Regrade", "", "No student's automatic score or verdict changed."]
    page.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return [table, page]
