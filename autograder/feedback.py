"""Feedback that shows students what they got wrong and nothing they should not see.

The test cells' outputs are the grader's own (:mod:`autograder.verdict` runs them outside the
student's kernel, so the hidden tests' source never reaches it); :func:`for_students` puts back the
students' (release) source of every test cell and adds the grader's notes, in the notebook the page
is rendered from (:mod:`autograder.feedback_page`). Every other cell is the student's own, as their
kernel ran it.
"""
from __future__ import annotations

import html
from pathlib import Path

import nbformat

from course_lib.grading.plain_text import one_line

from .cells import BEGIN_HIDDEN, END_HIDDEN, grade_id, is_test, marked_regions


def hidden_lines(source_nb: nbformat.NotebookNode) -> list[str]:
    """Every non-trivial line inside a hidden-test region of the instructors' notebook."""
    lines = {line.strip() for cell in source_nb.cells
             for region in marked_regions(cell.source, BEGIN_HIDDEN, END_HIDDEN)
             for line in region if len(line.strip()) >= 6}
    return sorted(lines, key=len, reverse=True)


def for_students(nb: nbformat.NotebookNode, released_tests: dict[str, str], notes: list[str] = ()) -> None:
    """Edit an autograded notebook in place: test cells as released, and the grader's notes at the end."""
    for cell in nb.cells:
        if is_test(cell) and grade_id(cell) in released_tests:
            cell.source = released_tests[grade_id(cell)]
    if notes:
        nb.cells.append(nbformat.v4.new_markdown_cell(
            "**Notes from the grader**\n\n" + "\n".join(f"- {n}" for n in notes)))


def failures(nb: nbformat.NotebookNode) -> dict[str, str]:
    """For each failing test cell of an autograded notebook, the first line of its verdict."""
    found: dict[str, str] = {}
    for cell in nb.cells:
        if not is_test(cell):
            continue
        for output in cell.get("outputs", []):
            if output.output_type != "error":
                continue
            lines = [one_line(line.splitlines()[0] if line.strip() else "") for line in output.get("traceback", [])]
            text = next((line for line in reversed(lines) if line), "") or one_line(f"{output.ename}: {output.evalue}")
            found[grade_id(cell)] = text.lstrip("✘ ").strip()[:300]
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
