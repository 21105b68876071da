"""A batch graded into an nbgrader course directory, then regraded: what formgrader, release_feedback and a
regrade's table see.

One course directory of notebook 05 (nbgrader generate_assignment), a ``submitted/`` tree as nbgrader's collect
leaves it (timestamp and secret files included) with four students: the solution, the blank release, one
catalogued mistake, and a file that is not a notebook. Graded once; a hand mark is given through nbgrader's
gradebook API (what formgrader's handlers call); then regraded three times: unchanged; with one test cell's
points changed in the course's source; and with a student's answer made worse under ``never_lower``.
"""
from __future__ import annotations

import csv
import html
import json
import shutil
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from answer_catalogue import answer_modules
from autograder import cells, course, course_results, feedback
from notebook_runner import REPO
import course_dir_grading
from course_dir_grading import STAMP, grade_course

NAME = "05_self_attention"
WRITTEN = "why_scale"
SCRIPT_OUTPUT = ("from IPython.display import HTML, display\n"
                 "display(HTML('<script>document.title = \"pwned\"</script><b>in bold</b>'))\n")


def submit(course_dir: Path, student: str, nb: nbformat.NotebookNode | str) -> None:
    course_dir_grading.submit(course_dir, NAME, student, nb)


def regrade(course_dir: Path, *options: str, **kwargs) -> dict:
    return grade_course(course_dir, NAME, *options, **kwargs)


def table(course_dir: Path) -> list[dict]:
    path = course_dir / "autograder" / NAME / "regrade.csv"
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def course_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    course.make_course_dir(root, NAME)
    release = nbformat.read(root / "release" / NAME / f"{NAME}.ipynb", as_version=4)
    solution = cells.answers(nbformat.read(REPO / "solutions" / f"{NAME}.ipynb", as_version=4))
    wrong = next(m for m in answer_modules() if m.NOTEBOOK == NAME).WRONG[0]
    shown = {**solution, "dot_score": SCRIPT_OUTPUT + solution["dot_score"]}  # an output with a script in it
    submit(root, "ada", cells.with_answers(release, shown))
    submit(root, "blank", release)
    submit(root, "wrong", cells.with_answers(release, {**solution, wrong.cell: wrong.source}))
    submit(root, "broken", '{"cells": [')
    first = regrade(root)
    return root, first, wrong


def gradebook(root: Path) -> Gradebook:
    return Gradebook(course_results.db_url(root))


def test_results_land_where_nbgrader_autograde_leaves_them(course_dir):
    root, first, _ = course_dir
    for student in ("ada", "blank", "wrong"):
        graded = course_results.autograded_path(root, student, NAME)
        page = course_results.feedback_path(root, student, NAME)
        assert graded.is_file() and page.is_file(), student
        for folder in (graded.parent, page.parent):  # what release_feedback and fetch_feedback read
            assert (folder / "timestamp.txt").read_text() == STAMP
            assert (folder / "submission_secret.txt").read_text() == f"secret-of-{student}"
    assert not course_results.autograded_path(root, "broken", NAME).exists()
    assert course_results.feedback_path(root, "broken", NAME).is_file()
    with gradebook(root) as gb:
        for student, result in first.items():
            submission = gb.find_submission(NAME, student)
            assert submission.score == pytest.approx(result.score), student
        written = gb.find_grade(WRITTEN, NAME, NAME, "ada")
        assert written.auto_score is None and written.needs_manual_grade  # formgrader lists it to mark
        assert gb.find_grade(WRITTEN, NAME, NAME, "blank").auto_score == 0  # left blank: nbgrader gives 0
        assert gb.find_comment(WRITTEN, NAME, NAME, "blank").auto_comment == "No response."
        assert gb.find_comment(WRITTEN, NAME, NAME, "ada").auto_comment is None
        assert gb.find_submission(NAME, "broken").score == 0
        assert str(gb.find_submission(NAME, "ada").timestamp).startswith("2026-11-20 10:00:00")


def test_the_autograded_notebook_holds_the_written_answer_and_the_verdicts(course_dir):
    root, first, wrong = course_dir
    nb = nbformat.read(course_results.autograded_path(root, "wrong", NAME), as_version=4)
    by_id = {cells.grade_id(c): c for c in nb.cells if cells.grade_id(c)}
    assert by_id[wrong.cell].source == wrong.source
    assert wrong.test_cell in first["wrong"].failures
    assert feedback.failures(nb)[wrong.test_cell] == first["wrong"].failures[wrong.test_cell]


def test_pages_made_again_show_the_hand_mark_and_the_instructors_comment(course_dir):
    root, first, _ = course_dir
    with gradebook(root) as gb:
        gb.find_grade(WRITTEN, NAME, NAME, "wrong").manual_score = 0.5
        gb.find_comment(WRITTEN, NAME, NAME, "wrong").manual_comment = "Say why the softmax saturates."
        gb.db.commit()
    assert sorted(course_results.pages_with_hand_marks(root, NAME)) == ["ada", "blank", "wrong"]
    page = html.unescape(course_results.feedback_path(root, "wrong", NAME).read_text(encoding="utf-8"))
    assert "Say why the softmax saturates." in page
    assert f"Score: {first['wrong'].score + 0.5:.1f} / {first['wrong'].max_score:.1f}" in page
    assert "Content-Security-Policy" in page
    with gradebook(root) as gb:  # put back as graded: the regrade test starts from the automatic scores
        gb.find_grade(WRITTEN, NAME, NAME, "wrong").manual_score = None
        gb.db.commit()


def test_formgrader_gets_the_graded_notebook_with_its_outputs_cleaned_as_the_page_s(course_dir):
    root, _, _ = course_dir
    nb = nbformat.read(course_results.autograded_path(root, "ada", NAME), as_version=4)
    outputs = json.dumps([cell.get("outputs", []) for cell in nb.cells])
    assert "<b>in bold</b>" in outputs and "<script" not in outputs and "pwned" not in outputs


def test_regrades_show_what_changed_and_keep_hand_marks(course_dir, tmp_path):
    root, first, wrong = course_dir
    with gradebook(root) as gb:  # formgrader's hand mark on ada's written answer
        gb.find_grade(WRITTEN, NAME, NAME, "ada").manual_score = 1.5
        gb.db.commit()
        ada_before = gb.find_submission(NAME, "ada").score

    # 1. nothing fixed: nothing changes
    again = regrade(root)
    assert {s: r.score for s, r in again.items()} == {s: r.score for s, r in first.items()}
    assert table(root) == []
    with gradebook(root) as gb:
        assert gb.find_grade(WRITTEN, NAME, NAME, "ada").manual_score == 1.5
        assert gb.find_submission(NAME, "ada").score == pytest.approx(ada_before)

    # 2. one check's points changed in the course's source: exactly the students who pass it change
    sources = tmp_path / "src"
    shutil.copytree(course.SOURCES, sources)
    path = sources / f"{NAME}.py"
    cell = "check_bilinear_score"
    text = path.read_text(encoding="utf-8")
    assert f"id={cell} points=2" in text
    path.write_text(text.replace(f"id={cell} points=2", f"id={cell} points=5"), encoding="utf-8")
    third = regrade(root, sources=sources)
    passing = {s for s, r in again.items() if r.status == "graded" and r.cells.get(cell) == 2}
    assert passing and "blank" not in passing
    rows = table(root)
    assert {row["student_id"] for row in rows} == passing
    for row in rows:
        assert row["cell"] == cell and (row["old_cell_score"], row["new_cell_score"]) == ("2", "5")
        assert float(row["new_score"]) - float(row["old_score"]) == 3
        assert third[row["student_id"]].score == pytest.approx(again[row["student_id"]].score + 3)
    with gradebook(root) as gb:
        assert gb.find_grade_cell(cell, NAME, NAME).max_score == 5
        assert gb.find_grade(WRITTEN, NAME, NAME, "ada").manual_score == 1.5  # the hand mark survives
        assert gb.find_submission(NAME, "ada").score == pytest.approx(ada_before + 3)

    # 3. ada's answer made worse, regraded with never-lower: her earlier, higher grading stays
    release = nbformat.read(root / "release" / NAME / f"{NAME}.ipynb", as_version=4)
    solution = cells.answers(nbformat.read(REPO / "solutions" / f"{NAME}.ipynb", as_version=4))
    submit(root, "ada", cells.with_answers(release, {**solution, wrong.cell: wrong.source}))
    fourth = regrade(root, "--never-lower", sources=sources)  # the 5-point check stays
    assert fourth["ada"].score < third["ada"].score
    rows = [row for row in table(root) if row["student_id"] == "ada"]
    assert rows and all(row["kept_earlier"] == "True" for row in rows)
    assert any(row["cell"] == wrong.test_cell and row["old_verdict"] == "passed"
               and row["new_verdict"] == fourth["ada"].failures[wrong.test_cell] for row in rows)
    assert {row["student_id"] for row in table(root)} == {"ada"}
    with gradebook(root) as gb:
        assert gb.find_submission(NAME, "ada").score == pytest.approx(ada_before + 3)
    graded = nbformat.read(course_results.autograded_path(root, "ada", NAME), as_version=4)
    assert wrong.source not in [c.source for c in graded.cells]  # her earlier notebook stays for formgrader


def test_a_course_directory_without_the_assignment_stops_before_grading(tmp_path):
    (tmp_path / "submitted").mkdir()
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n", encoding="utf-8")
    said = regrade(tmp_path, expect_failure=True)["output"].text
    assert "autograder.hub course 05_self_attention" in said


def test_a_submitted_tree_in_a_course_directory_made_for_another_assignment_grades_into_out(tmp_path):
    """nbgrader's submitted/ tree graded with --out, in a course directory whose gradebook lacks the assignment:
    the batch is graded into OUT (as before course directories were written) and says why not into the course."""
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n", encoding="utf-8")
    release = nbformat.read(REPO / "notebooks" / f"{NAME}.ipynb", as_version=4)
    submit(tmp_path, "blank", release)
    out = tmp_path / "grades"
    results = regrade(tmp_path, out=out)
    assert [(r.student_id, r.status, r.score) for r in results.values()] == [("blank", "graded", 0.0)]
    assert (out / "grades.csv").is_file() and not (tmp_path / "autograded").exists()
