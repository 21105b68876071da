"""Every notebook through the real pipeline: release -> submissions -> `python -m autograder grade`.

For each notebook, one batch holds the solution, the blank release, one catalogued
mistake per test cell, a cheat, correct answers in other styles, an infinite loop and two files that
are not notebooks.
"""
import csv
import html
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from answer_catalogue import answer_modules
from autograder import cells
from autograder.feedback import hidden_lines
from notebook_runner import REPO, grade_ids, one_class_per_notebook

pytestmark = pytest.mark.pipeline
MODULES = {m.NOTEBOOK: m for m in answer_modules()}


class Notebook:
    """One notebook's source, release, points and answers."""

    def __init__(self, name: str):
        self.name = name
        self.answers = MODULES[name]
        self.source = nbformat.read(REPO / "solutions" / f"{name}.ipynb", as_version=4)
        self.release = nbformat.read(REPO / "notebooks" / f"{name}.ipynb", as_version=4)
        graded = grade_ids(self.source)
        self.points = {gid: cells.points(c) for gid, c in graded.items() if cells.is_grade(c)}
        self.manual = sum(p for gid, p in self.points.items() if graded[gid].cell_type == "markdown")
        self.auto = sum(self.points.values()) - self.manual
        self.solution = cells.answers(self.source)
        # one catalogued mistake per test cell (tests/checks/test_checks.py tries all of them in-process)
        first_per_cell = {w.test_cell: w for w in reversed(self.answers.WRONG)}
        self.wrong = [w for w in self.answers.WRONG if first_per_cell[w.test_cell] is w] + list(self.answers.CHEATS[:1])

    def submission(self, chosen: dict[str, str]) -> nbformat.NotebookNode:
        return cells.with_answers(self.release, chosen)


def grade_batch(nb: Notebook, tmp: Path):
    subs, out = tmp / "submissions", tmp / "grades"
    subs.mkdir()
    batch = {"solution": nb.solution, "blank": {}}
    for wrong in nb.wrong:
        batch[f"wrong_{wrong.name}"] = {**nb.solution, wrong.cell: wrong.source}
    for style, answers in nb.answers.ALTERNATIVES.items():
        batch[f"alt_{style}"] = {**nb.solution, **answers}
    # a loop that never ends (sleeping, so that it leaves the core to the rest of the suite while it waits for its limit)
    batch["infinite_loop"] = {**nb.solution, nb.answers.LOOP[0]: "import time\nwhile True:\n    time.sleep(0.05)\n"}
    for student, answers in batch.items():
        nbformat.write(nb.submission(answers), subs / f"{student}.ipynb")
    (subs / "broken.ipynb").write_text('{"cells": [', encoding="utf-8")
    (subs / "empty.ipynb").write_text("", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", nb.name, str(subs), "--out", str(out), "--timeout", "20"],
        capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(out / "grades.csv", newline="") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    return rows, out


@pytest.fixture(scope="class")
def graded(request, tmp_path_factory):
    """The notebook's batch, graded once per test class (``make test`` gives each class to one worker)."""
    nb = Notebook(request.cls.NOTEBOOK)
    return (nb, *grade_batch(nb, tmp_path_factory.mktemp(nb.name)))


def feedback_text(out: Path, student: str) -> str:
    raw = (out / "feedback" / f"{student}.html").read_text(encoding="utf-8")
    return html.unescape(re.sub(r"<[^>]+>", "", raw))


def score(rows, student) -> float:
    return float(rows[student]["score"])


class PipelineTests:
    """The tests of one notebook's batch (``NOTEBOOK``: one class per notebook, at the end of the file)."""

    NOTEBOOK = ""

    def test_csv_has_the_contracted_columns(self, graded):
        nb, rows, _ = graded
        assert {"student_id", "assignment", "score", "max_score"} <= set(next(iter(rows.values())))
        assert all(row["assignment"] == nb.name for row in rows.values())
        assert all(float(row["max_score"]) == nb.auto + nb.manual for row in rows.values())

    def test_solution_gets_every_automatic_point(self, graded):
        nb, rows, _ = graded
        assert score(rows, "solution") == nb.auto
        assert float(rows["solution"]["manual_points_pending"]) == nb.manual

    def test_blank_release_gets_zero(self, graded):
        nb, rows, out = graded
        assert score(rows, "blank") == 0
        assert "not implemented" in feedback_text(out, "blank") or "NotImplementedError" in feedback_text(out, "blank")

    def test_each_mistake_loses_its_points_and_is_named(self, graded):
        nb, rows, out = graded
        for wrong in nb.wrong:
            student = f"wrong_{wrong.name}"
            lost = nb.points[wrong.test_cell] + sum(nb.points[c] for c in wrong.also_fails)
            assert score(rows, student) == nb.auto - lost, (wrong.name, rows[student])
            assert wrong.message in feedback_text(out, student), wrong.name

    def test_other_styles_get_full_marks(self, graded):
        nb, rows, _ = graded
        for style in nb.answers.ALTERNATIVES:
            assert score(rows, f"alt_{style}") == nb.auto, style

    def test_infinite_loop_times_out_and_the_rest_is_graded(self, graded):
        nb, rows, out = graded
        assert score(rows, "infinite_loop") == nb.auto - nb.points[nb.answers.LOOP[1]]
        assert "time limit and was interrupted by the grader" in feedback_text(out, "infinite_loop")

    @pytest.mark.parametrize("student,reason", [("broken", "invalid JSON"), ("empty", "empty")])
    def test_files_that_are_not_notebooks_get_zero_with_a_reason(self, graded, student, reason):
        nb, rows, out = graded
        assert score(rows, student) == 0 and rows[student]["status"] == "error"
        assert reason in rows[student]["reason"]
        assert reason in feedback_text(out, student)

    def test_no_hidden_test_source_in_any_feedback(self, graded):
        nb, _, out = graded
        secrets = hidden_lines(nb.source)
        assert secrets, f"{nb.name} should have hidden tests"
        for page in (out / "feedback").glob("*.html"):
            text = page.read_text(encoding="utf-8")
            plain = html.unescape(re.sub(r"<[^>]+>", "", text))
            for secret in secrets:
                assert secret not in text and secret not in plain, f"{page.name} shows hidden test line {secret!r}"
            assert "BEGIN HIDDEN TESTS" not in text

    def test_every_submission_has_feedback(self, graded):
        _, rows, out = graded
        assert {p.stem for p in (out / "feedback").glob("*.html")} == set(rows)


one_class_per_notebook(PipelineTests, sorted(MODULES), globals())
