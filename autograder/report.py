"""``python -m autograder report``: grades for the LMS, a summary and the class view.

    python -m autograder report OUT_DIR... [--to DIR]       from grade runs' results.json
    python -m autograder report --course-dir C [--to DIR]   every C/autograder/*/results.json and C/gradebook.db

From a course directory the scores come from nbgrader's gradebook (``C/gradebook.db``), where the grader
put the automatic scores and the instructor marks written answers in formgrader: a submission's score is
automatic plus hand marks (a hand mark overrides the automatic score of its cell), and what still waits
for hand marks is what nbgrader flags ``needs_manual_grade``. The grade runs' results.json add what the
gradebook does not hold: each failing check's verdict, the answers as submitted, why a submission could not
be graded. A student of the gradebook that no run graded (graded by nbgrader itself, or not submitted) is
in the LMS file too. Writes into DIR (default: OUT_DIR/report, or C/autograder/report):

- ``lms_grades.csv``: one row per student: ``student_id, score, max_score, percent`` over all the
  assignments, then ``<assignment> score`` per assignment (a submission that could not be graded counts
  what the gradebook holds for it, else 0; a missing one 0);
- ``class_view.html``: the page to open before the next lecture (:mod:`autograder.class_view`);
- ``report.md``: a short summary per assignment in Markdown, with the same plots as PNG files.
"""
from __future__ import annotations

import csv
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from course_lib.grading.plain_text import csv_cell, markdown_cell

from . import class_view
from .class_view import mistake


def load(out_dir: Path) -> tuple[str | None, list[dict]]:
    """A grade run's assignment and rows (None and no rows for a run that graded nothing)."""
    path = out_dir / "results.json"
    if not path.exists():
        raise SystemExit(f"{out_dir} has no results.json: give the --out folder of a `grade` run")
    rows = json.loads(path.read_text(encoding="utf-8"))
    if not rows:
        return None, []
    names = {r["assignment"] for r in rows}
    if len(names) != 1:
        raise SystemExit(f"{path} mixes assignments: {sorted(names)}")
    written = out_dir / "answers.json"  # what each student wrote in the answer cells (for the example answers)
    answers = json.loads(written.read_text(encoding="utf-8")) if written.exists() else {}
    return names.pop(), [with_defaults({"answers": answers.get(r["student_id"], {}), **r}) for r in rows]


def with_defaults(row: dict) -> dict:
    """A results.json row with every field the report reads (older runs lack some)."""
    return {"manual_points_pending": 0.0, "status": "graded", "reason": "", "cells": {}, "failures": {},
            "answers": {}, "pending_cells": None, **row}


@dataclass
class Book:
    """What a course's gradebook holds, read once: each submission's scores, the students, the maxima."""

    scores: dict[str, dict[str, dict]] = field(default_factory=dict)  # assignment -> student -> scores
    maxima: dict[str, float] = field(default_factory=dict)            # assignment -> its points
    people: dict[str, class_view.Person] = field(default_factory=dict)  # every student of the gradebook


def submission_scores(submission) -> dict:
    """A gradebook submission's scores, as the fields of a results row (a hand mark overrides the automatic one)."""
    grades = [grade for notebook in submission.notebooks for grade in notebook.grades]
    return {"score": float(submission.score), "max_score": float(submission.max_score),
            "manual_points_pending": sum(float(g.max_score) for g in grades if g.needs_manual_grade),
            "cells": {g.name: float(g.score) for g in grades}, "points": {g.name: float(g.max_score) for g in grades},
            "pending_cells": [g.name for g in grades if g.needs_manual_grade]}


def read_gradebook(path: Path, wanted: set[str]) -> Book:
    """The scores of every submission of the ``wanted`` assignments and of any other that has submissions."""
    from nbgrader.api import Gradebook

    book = Book()
    # course_id "": open the gradebook without adding a course row to it (the report only reads)
    with Gradebook(f"sqlite:///{path}", course_id="") as gradebook:
        for student in gradebook.students:
            names = tuple(n for n in (student.first_name, student.last_name) if n)
            book.people[student.id] = class_view.Person(student.id, names, student.email or "")
        for assignment in gradebook.assignments:
            submissions = gradebook.assignment_submissions(assignment.name)
            if assignment.name in wanted or submissions:
                book.maxima[assignment.name] = float(assignment.max_score)
                book.scores[assignment.name] = {s.student_id: submission_scores(s) for s in submissions}
    return book


def with_gradebook(runs: dict[str, list[dict]], book: Book) -> dict[str, list[dict]]:
    """The runs' rows with the gradebook's scores, and a row for each submission that no run graded."""
    merged = {}
    for assignment in sorted(set(runs) | set(book.scores)):
        rows = {r["student_id"]: r for r in runs.get(assignment, [])}
        for student, scores in book.scores.get(assignment, {}).items():
            row = rows.get(student) or with_defaults({"student_id": student, "assignment": assignment,
                                                      "reason": "graded in nbgrader, not by an autograder run"})
            rows[student] = {**row, **scores}
        merged[assignment] = [rows[s] for s in sorted(rows)]
    return merged


def write_lms_csv(path: Path, runs: dict[str, list[dict]], students: list[str] = (),
                  maxima: dict[str, float] | None = None) -> None:
    students = sorted({r["student_id"] for rows in runs.values() for r in rows} | set(students))
    by = {(a, r["student_id"]): r for a, rows in runs.items() for r in rows}
    maxima = {a: (maxima or {}).get(a, max((r["max_score"] for r in rows), default=0.0)) for a, rows in runs.items()}
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student_id", "score", "max_score", "percent", *[csv_cell(f"{a} score") for a in runs]])
        for sid in students:
            scores = [by[(a, sid)]["score"] if (a, sid) in by else 0.0 for a in runs]
            total, top = sum(scores), sum(maxima.values())
            percent = 100.0 * total / top if top else 0.0
            writer.writerow([csv_cell(sid), f"{total:g}", f"{top:g}", f"{percent:.1f}", *[f"{s:g}" for s in scores]])


def section(assignment: str, rows: list[dict], exercises: list[class_view.Exercise], pngs: list[str],
            top_n: int = 10) -> str:
    """One assignment in report.md: the numbers, the plots, the graded cells, the mistakes, the errors."""
    graded = [r for r in rows if r["status"] == "graded"]
    failed = [r for r in rows if r["status"] != "graded"]
    top = max((r["max_score"] for r in rows), default=0.0)
    scores = sorted(r["score"] for r in rows)
    median = scores[len(scores) // 2] if scores else 0.0
    mean = sum(scores) / len(scores) if scores else 0.0
    lines = [f"## {assignment}", "",
             f"{len(rows)} submissions, {len(failed)} could not be graded. Score out of {top:g}, over every "
             "submission (one that could not be graded counts what the gradebook holds for it, else 0): "
             f"mean {mean:.2f}, median {median:g}, full marks {sum(s >= top for s in scores) if top else 0}.",
             "", *[f"![{assignment}]({png})" for png in pngs], "",
             "| graded cell | points | mean | students with full points |", "|---|---|---|---|"]
    for ex in exercises:
        got = [r["cells"].get(ex.grade_id, 0.0) for r in rows]
        full = sum(g >= ex.points for g in got) if ex.points else 0
        lines.append(f"| {markdown_cell(ex.grade_id)} | {ex.points:g} | {sum(got) / len(got) if got else 0:.2f} "
                     f"| {full} of {len(got)} |")
    counts = Counter((cell, mistake(msg)) for r in graded for cell, msg in r["failures"].items())
    lines += ["", "Most frequent mistakes (the first line of the check's verdict):", "",
              "| students | cell | verdict |", "|---|---|---|"]
    for (cell, text), n in counts.most_common(top_n):
        lines.append(f"| {n} | {markdown_cell(cell)} | {markdown_cell(text)} |")
    if failed:
        lines += ["", "Could not be graded:", ""]
        lines += [f"- {markdown_cell(r['student_id'])}: {markdown_cell(r['reason'])}" for r in failed]
    pending = sum(r["manual_points_pending"] > 0 for r in rows)
    if pending:
        lines += ["", f"{pending} submissions have answers to grade by hand (nbgrader's formgrader)."]
    return "\n".join(lines) + "\n"


def write(to: Path, runs: dict[str, list[dict]], book: Book | None = None, notes: list[str] = (),
          course_dir: Path | None = None) -> list[Path]:
    """lms_grades.csv, class_view.html, report.md and the plots (PNG) in ``to``; return the files.

    ``course_dir``: the course directory whose released notebooks (release/) the class view reads first.
    """
    to.mkdir(parents=True, exist_ok=True)
    book = book or Book()
    written = [to / "lms_grades.csv", to / "class_view.html", to / "report.md"]
    write_lms_csv(written[0], runs, list(book.people), book.maxima)
    releases = {a: course_dir / "release" / a / f"{a}.ipynb" for a in runs} if course_dir else {}
    views = [class_view.AssignmentView.of(a, rows, book.people, releases.get(a)) for a, rows in runs.items()]
    written[1].write_text(class_view.page(views, notes), encoding="utf-8")
    parts = ["# Class report", "", "The class view, with an example answer for each mistake: "
             "[class_view.html](class_view.html).", "", *notes, ""]
    for view in views:
        pngs = view.save_plots(to)
        written += pngs
        parts.append(section(view.assignment, view.rows, view.exercises, [p.name for p in pngs]))
    written[2].write_text("\n".join(parts), encoding="utf-8")
    return written


def report(out_dirs: list[Path], to: Path) -> list[Path]:
    """The report of grade runs (their results.json only: automatic scores)."""
    runs: dict[str, list[dict]] = {}
    for out_dir in out_dirs:
        assignment, rows = load(out_dir)
        if assignment:
            runs.setdefault(assignment, []).extend(rows)
    return write(to, runs)


def course_report(course_dir: Path, to: Path | None = None) -> list[Path]:
    """The report of a course directory: its runs' results.json, scores (hand marks included) from gradebook.db."""
    runs: dict[str, list[dict]] = {}
    for path in sorted(course_dir.glob("autograder/*/results.json")):
        assignment, rows = load(path.parent)
        runs.setdefault(assignment or path.parent.name, []).extend(rows)
    db = course_dir / "gradebook.db"
    if not db.is_file():
        if not runs:
            raise SystemExit(f"{course_dir} has neither autograder/*/results.json nor gradebook.db")
        return write(to or course_dir / "autograder" / "report", runs, course_dir=course_dir,
                     notes=[f"{db} does not exist: the scores are the automatic ones, without hand marks."])
    book = read_gradebook(db, set(runs))
    return write(to or course_dir / "autograder" / "report", with_gradebook(runs, book), book, course_dir=course_dir)
