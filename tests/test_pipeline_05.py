"""Notebook 05 through the real pipeline: release -> submissions -> `python -m autograder grade`.

One batch holds the solution, the blank release, every catalogued mistake, a cheat,
correct answers in other styles, an infinite loop and two files that are not notebooks.
"""
import copy
import csv
import html
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.feedback import hidden_lines
from nb05_answers import ALTERNATIVES, CHEATS, NOTEBOOK, WRONG
from notebook_runner import REPO, grade_ids

pytestmark = pytest.mark.pipeline

SOURCE = nbformat.read(REPO / "solutions" / f"{NOTEBOOK}.ipynb", as_version=4)
RELEASE = nbformat.read(REPO / "notebooks" / f"{NOTEBOOK}.ipynb", as_version=4)
POINTS = {gid: float(c.metadata["nbgrader"]["points"]) for gid, c in grade_ids(SOURCE).items()
          if c.metadata["nbgrader"].get("grade")}
MANUAL = sum(p for gid, p in POINTS.items() if grade_ids(SOURCE)[gid].cell_type == "markdown")
AUTO = sum(POINTS.values()) - MANUAL
SOLUTION_ANSWERS = {gid: c.source for gid, c in grade_ids(SOURCE).items() if c.metadata["nbgrader"].get("solution")}
CHEAT = CHEATS[0]


def submission(answers: dict[str, str]) -> nbformat.NotebookNode:
    nb = copy.deepcopy(RELEASE)
    for gid, cell in grade_ids(nb).items():
        if gid in answers:
            cell.source = answers[gid]
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    subs = tmp_path_factory.mktemp("submissions")
    out = tmp_path_factory.mktemp("grades")
    solution = dict(SOLUTION_ANSWERS)  # the written answer too, so it awaits manual grading
    batch = {"solution": solution, "blank": {}}
    for wrong in WRONG + [CHEAT]:
        batch[f"wrong_{wrong.name}"] = {**solution, wrong.cell: wrong.source}
    for style, answers in ALTERNATIVES.items():
        batch[f"alt_{style}"] = {**solution, **answers}
    batch["infinite_loop"] = {**solution, "brown_dog": "while True:\n    pass\n"}
    for student, answers in batch.items():
        nbformat.write(submission(answers), subs / f"{student}.ipynb")
    (subs / "broken.ipynb").write_text('{"cells": [', encoding="utf-8")
    (subs / "empty.ipynb").write_text("", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", NOTEBOOK, str(subs), "--out", str(out), "--timeout", "20"],
        capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(out / "grades.csv", newline="") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    return rows, out


def feedback_text(out: Path, student: str) -> str:
    raw = (out / "feedback" / f"{student}.html").read_text(encoding="utf-8")
    return html.unescape(re.sub(r"<[^>]+>", "", raw))


def score(rows, student) -> float:
    return float(rows[student]["score"])


def test_csv_has_the_contracted_columns(graded):
    rows, _ = graded
    assert {"student_id", "assignment", "score", "max_score"} <= set(next(iter(rows.values())))
    assert all(row["assignment"] == NOTEBOOK for row in rows.values())
    assert all(float(row["max_score"]) == AUTO + MANUAL for row in rows.values())


def test_solution_gets_every_automatic_point(graded):
    rows, out = graded
    assert score(rows, "solution") == AUTO
    assert float(rows["solution"]["manual_points_pending"]) == MANUAL


def test_blank_release_gets_zero(graded):
    rows, out = graded
    assert score(rows, "blank") == 0
    assert "not implemented" in feedback_text(out, "blank") or "NotImplementedError" in feedback_text(out, "blank")


@pytest.mark.parametrize("wrong", WRONG + [CHEAT], ids=lambda w: w.name)
def test_mistake_loses_its_points_and_is_named(graded, wrong):
    rows, out = graded
    student = f"wrong_{wrong.name}"
    assert score(rows, student) == AUTO - POINTS[wrong.test_cell] - sum(POINTS[c] for c in wrong.also_fails)
    assert wrong.message in feedback_text(out, student)


@pytest.mark.parametrize("style", sorted(ALTERNATIVES))
def test_other_styles_get_full_marks(graded, style):
    rows, _ = graded
    assert score(rows, f"alt_{style}") == AUTO


def test_infinite_loop_times_out_and_the_rest_is_graded(graded):
    rows, out = graded
    assert score(rows, "infinite_loop") == AUTO - POINTS["check_brown_dog"]
    assert "Timeout" in feedback_text(out, "infinite_loop") or "timeout" in feedback_text(out, "infinite_loop")


@pytest.mark.parametrize("student,reason", [("broken", "invalid JSON"), ("empty", "empty")])
def test_files_that_are_not_notebooks_get_zero_with_a_reason(graded, student, reason):
    rows, out = graded
    assert score(rows, student) == 0 and rows[student]["status"] == "error"
    assert reason in rows[student]["reason"]
    assert reason in feedback_text(out, student)


def test_no_hidden_test_source_in_any_feedback(graded):
    _, out = graded
    secrets = hidden_lines(SOURCE)
    assert secrets, "notebook 05 should have hidden tests"
    for page in (out / "feedback").glob("*.html"):
        text = page.read_text(encoding="utf-8")
        plain = html.unescape(re.sub(r"<[^>]+>", "", text))
        for secret in secrets:
            assert secret not in text and secret not in plain, f"{page.name} shows hidden test line {secret!r}"
        assert "BEGIN HIDDEN TESTS" not in text


def test_every_submission_has_feedback(graded):
    rows, out = graded
    assert {p.stem for p in (out / "feedback").glob("*.html")} == set(rows)
