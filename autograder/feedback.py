"""Feedback that shows students what they got wrong and nothing they should not see.

nbgrader's autograde restores every test cell from the gradebook, hidden tests included,
and ``generate_feedback`` renders that notebook as it is. The test cells' outputs are the
grader's own (:mod:`autograder.verdict` runs them outside the student's kernel, so the hidden
tests' source never reaches it); :func:`sanitize` puts back the students' (release) source of
every test cell and adds the grader's notes. Every other cell is the student's own, as their
kernel ran it.
"""
from __future__ import annotations

import html
import re
from pathlib import Path

import nbformat

from .cell_repair import grade_id, is_test_cell

HIDDEN_BEGIN = "### BEGIN HIDDEN TESTS"
HIDDEN_END = "### END HIDDEN TESTS"


def hidden_lines(source_nb: nbformat.NotebookNode) -> list[str]:
    """Every non-trivial line inside a hidden-test region of the instructors' notebook."""
    lines: list[str] = []
    for cell in source_nb.cells:
        inside = False
        for line in cell.source.splitlines():
            if HIDDEN_BEGIN in line:
                inside = True
            elif HIDDEN_END in line:
                inside = False
            elif inside and len(line.strip()) >= 6:
                lines.append(line.strip())
    return sorted(set(lines), key=len, reverse=True)


def sanitize(autograded: Path, release_nb: nbformat.NotebookNode, notes: list[str] = ()) -> None:
    """Rewrite an autograded notebook in place: test cells as released, and the grader's notes at the end."""
    nb = nbformat.read(autograded, as_version=4)
    released = {grade_id(c): c.source for c in release_nb.cells if grade_id(c)}
    for cell in nb.cells:
        if is_test_cell(cell) and grade_id(cell) in released:
            cell.source = released[grade_id(cell)]
    if notes:
        nb.cells.append(nbformat.v4.new_markdown_cell("**Notes from the grader**\n\n" + "\n".join(f"- {n}" for n in notes)))
    nbformat.write(nb, autograded)


ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def failures(autograded: Path) -> dict[str, str]:
    """For each failing graded cell of a (sanitized) autograded notebook, the first line of its verdict."""
    nb = nbformat.read(autograded, as_version=4)
    found: dict[str, str] = {}
    for cell in nb.cells:
        if not is_test_cell(cell):
            continue
        for output in cell.get("outputs", []):
            if output.output_type != "error":
                continue
            lines = [ANSI.sub("", line).strip() for line in output.get("traceback", [])]
            text = next((line for line in reversed(lines) if line), "") or f"{output.ename}: {output.evalue}"
            found[grade_id(cell)] = text.splitlines()[0].lstrip("✘ ").strip()[:300]
            break
    return found


#: nbconvert's page keeps an output line on one line (a verdict then scrolls off to the right): wrap it
WRAP_OUTPUT = "<style>.output_area pre, .output_subarea pre { white-space: pre-wrap; word-wrap: break-word; }</style>"


def with_wrapped_output(page: str) -> str:
    """The feedback page with its output lines wrapped to the page's width."""
    return page.replace("</head>", WRAP_OUTPUT + "</head>", 1)


def error_page(student_id: str, assignment: str, reason: str) -> str:
    """Feedback for a submission that could not be graded at all."""
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(assignment)}: feedback for {html.escape(student_id)}</title></head><body>"
        f"<h1>{html.escape(assignment)}</h1><p><strong>Score: 0</strong></p>"
        f"<p>Your submission could not be graded: {html.escape(reason)}</p>"
        "<p>Download a fresh copy of the notebook, copy your answers into it, and submit again.</p>"
        "</body></html>\n"
    )


def index(out_dir: Path) -> tuple[Path, list[str]]:
    """Check a grade run's feedback pages and write ``feedback/index.html`` linking them.

    A student in ``results.json`` without a page gets one that says what happened
    (the reason, or that the page is missing and the submission should be graded again).
    Returns the index and the students whose page had to be written.
    """
    import json

    results_path = out_dir / "results.json"
    if not results_path.exists():
        raise SystemExit(f"{out_dir} has no results.json: give the --out folder of a `grade` run")
    rows = json.loads(results_path.read_text(encoding="utf-8"))
    folder = out_dir / "feedback"
    folder.mkdir(exist_ok=True)
    written = []
    items = []
    for r in rows:
        page = folder / f"{r['student_id']}.html"
        if not page.exists():
            reason = r.get("reason") or "the feedback page was missing; grade this submission again to render it"
            page.write_text(error_page(r["student_id"], r["assignment"], reason), encoding="utf-8")
            written.append(r["student_id"])
        items.append(f"<tr><td><a href='{html.escape(page.name)}'>{html.escape(r['student_id'])}</a></td>"
                     f"<td>{r['score']:g} / {r['max_score']:g}</td><td>{html.escape(r.get('reason') or '')}</td></tr>")
    title = html.escape(rows[0]["assignment"] if rows else "feedback")
    (folder / "index.html").write_text(
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}: feedback</title></head><body>"
        f"<h1>{title}: feedback pages</h1><table><tr><th>student</th><th>score</th><th>note</th></tr>"
        + "".join(items) + "</table></body></html>\n", encoding="utf-8")
    return folder / "index.html", written
