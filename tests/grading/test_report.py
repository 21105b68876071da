"""The instructor's report: automatic scores and hand marks in one total (nbgrader's gradebook), and the class view.

Every expected number is computed here from what the test itself set: the gradebook's scores, the rows of a
results.json it wrote.
"""
import csv
import html
import json
import os
import random
import re
import shutil
import sys
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder import cells, class_view, report
from autograder.__main__ import main
from notebook_runner import REPO

#: nbgrader's own add_submission warns of SQLAlchemy's autoflush while it builds a submission's rows
pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")

A = "05_self_attention"
RELEASED = nbformat.read(REPO / "notebooks" / f"{A}.ipynb", as_version=4)
#: grade id -> points of the graded cells of the released notebook, in order
POINTS = {cells.grade_id(c): cells.points(c) for c in RELEASED.cells if cells.is_grade(c)}
WRITTEN = "why_scale"  # notebook 05's written answer, marked by hand
TESTS = [g for g in POINTS if g != WRITTEN]


def test_the_notebook_is_as_this_test_expects():
    assert WRITTEN in POINTS and "check_softmax" in TESTS and "check_self_attention" in TESTS
    assert next(c for c in RELEASED.cells if cells.grade_id(c) == WRITTEN).cell_type == "markdown"


# --- a course directory: gradebook.db as nbgrader's API writes it, and a grade run's results.json -----------

def automatic(student_no: int) -> dict[str, float]:
    """The automatic score of each test cell for a student (full, none or half the points, varied)."""
    return {g: [POINTS[g], 0.0, POINTS[g] / 2][(i + student_no) % 3] for i, g in enumerate(TESTS)}


AUTO = {"ann": automatic(0), "bob": automatic(1), "cy": automatic(2), "eve": automatic(4)}
HAND = {"ann": 1.5, "bob": POINTS[WRITTEN]}  # hand marks on why_scale; cy's still waits; eve graded by nbgrader


@pytest.fixture(scope="module")
def built_course(tmp_path_factory):
    """The course directory, built once (a new gradebook runs alembic: the one beside this Python)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
        root = tmp_path_factory.mktemp("built") / "course"
        return root, make_course(root)


@pytest.fixture
def course(built_course, tmp_path):
    """A copy of the course directory for one test, and the rows of its results.json."""
    shutil.copytree(built_course[0], tmp_path / "course")
    return tmp_path / "course", built_course[1]


def make_course(root):
    """A course directory whose gradebook has notebook 05, five students' submissions, two hand marks."""
    root.mkdir()
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", course_id="ngrams-to-bert") as gb:
        gb.add_assignment(A)
        gb.add_notebook(A, A)
        for cell in RELEASED.cells:
            gid = cells.grade_id(cell)
            if cells.is_grade(cell):
                gb.add_grade_cell(gid, A, A, max_score=cells.points(cell), cell_type=cell.cell_type)
            if cells.is_answer(cell):
                gb.add_solution_cell(gid, A, A)
        for student in ("ann", "bob", "cy", "dee", "eve", "fay"):  # fay: on the roster, submitted nothing
            gb.add_student(student, first_name=student.title(), last_name="Example", email=f"{student}@uni.example")
        for student in ("ann", "bob", "cy", "dee", "eve"):
            gb.add_submission(A, student)
            for grade in gb.find_submission(A, student).notebooks[0].grades:
                if student == "dee":  # not gradable: the grader writes zeros, nothing to mark
                    grade.auto_score, grade.needs_manual_grade = 0.0, False
                elif grade.name == WRITTEN:
                    grade.auto_score, grade.needs_manual_grade = None, True
                    if student in HAND:  # what formgrader does when the instructor marks it
                        grade.manual_score, grade.needs_manual_grade = HAND[student], False
                else:
                    grade.auto_score, grade.needs_manual_grade = AUTO[student][grade.name], False
        gb.db.commit()
    rows = []
    for student in ("ann", "bob", "cy"):
        auto = AUTO[student]
        rows.append({"student_id": student, "assignment": A, "score": sum(auto.values()), "max_score": sum(POINTS.values()),
                     "manual_points_pending": POINTS[WRITTEN], "status": "graded", "reason": "",
                     "cells": {**auto, WRITTEN: 0.0},
                     "failures": {g: f"{g}: wrong by {i}.5 (test case: n={i})" for i, g in enumerate(TESTS) if auto[g] == 0},
                     "answers": {"softmax": f"def softmax(x, dim=-1):  # {student}\n    return x"}})
    rows.append({"student_id": "dee", "assignment": A, "score": 0.0, "max_score": sum(POINTS.values()),
                 "manual_points_pending": 0.0, "status": "error", "reason": "the file is empty", "cells": {},
                 "failures": {}, "answers": {}})
    (root / "autograder" / A).mkdir(parents=True)
    (root / "autograder" / A / "results.json").write_text(json.dumps(rows))
    return rows


def test_the_lms_total_is_automatic_plus_hand_marks(tmp_path, course):
    assert main(["report", "--course-dir", str(tmp_path / "course")]) == 0
    out = tmp_path / "course" / "autograder" / "report"  # the default folder
    with open(out / "lms_grades.csv", newline="") as handle:
        got = {r["student_id"]: r for r in csv.DictReader(handle)}
    top = sum(POINTS.values())
    for student in ("ann", "bob", "cy", "eve"):
        expected = sum(AUTO[student].values()) + HAND.get(student, 0.0)
        assert float(got[student]["score"]) == expected, student
        assert float(got[student][f"{A} score"]) == expected
        assert float(got[student]["max_score"]) == top
        assert got[student]["percent"] == f"{100 * expected / top:.1f}"
    assert float(got["ann"]["score"]) > sum(AUTO["ann"].values())  # the hand mark is in
    assert float(got["dee"]["score"]) == 0.0 and float(got["fay"]["score"]) == 0.0  # fay: no submission at all
    assert set(got) == {"ann", "bob", "cy", "dee", "eve", "fay"}


def test_scores_pending_and_verdicts_meet_in_one_row(tmp_path, course):
    rows = course[1]
    book = report.read_gradebook(tmp_path / "course" / "gradebook.db", {A})
    merged = {r["student_id"]: r for r in report.with_gradebook({A: [report.with_defaults(r) for r in rows]}, book)[A]}
    assert merged["cy"]["manual_points_pending"] == POINTS[WRITTEN]  # still unmarked
    assert merged["ann"]["manual_points_pending"] == 0.0 and merged["ann"]["cells"][WRITTEN] == HAND["ann"]
    assert merged["bob"]["failures"] == rows[1]["failures"] and merged["bob"]["answers"] == rows[1]["answers"]
    assert merged["dee"]["status"] == "error" and merged["dee"]["reason"] == "the file is empty"
    assert merged["eve"]["status"] == "graded" and merged["eve"]["score"] == sum(AUTO["eve"].values())
    assert "fay" not in merged and "fay" in book.people
    db = tmp_path / "course" / "gradebook.db"
    before = db.read_bytes()
    report.course_report(tmp_path / "course", tmp_path / "out")
    assert db.read_bytes() == before  # the report only reads the gradebook
    page = (tmp_path / "out" / "class_view.html").read_text()
    waiting = [s for s in ("ann", "bob", "cy", "eve") if s not in HAND]  # eve's written answer was never marked
    assert f"{len(waiting)} submissions wait for hand marks ({len(waiting) * POINTS[WRITTEN]:g} points in all)" in page
    full = sum(mark >= POINTS[WRITTEN] for mark in HAND.values())
    row = TableRows.of(page)[f"{WRITTEN} ({POINTS[WRITTEN]:g} pts) (by hand)"]
    assert row[0] == f"{full} of {len(HAND)}, {len(waiting)} to mark by hand"
    assert row[2] == f"{100 * full / len(HAND):.0f}%"


def test_results_json_alone_still_makes_the_report(tmp_path, course):
    course = course[0]
    (course / "gradebook.db").unlink()
    assert main(["report", "--course-dir", str(course), "--to", str(tmp_path / "r")]) == 0
    with open(tmp_path / "r" / "lms_grades.csv", newline="") as handle:
        got = {r["student_id"]: r for r in csv.DictReader(handle)}
    assert float(got["ann"]["score"]) == sum(AUTO["ann"].values())  # automatic only: no gradebook, no hand marks
    assert "without hand marks" in (tmp_path / "r" / "class_view.html").read_text()
    with pytest.raises(SystemExit):
        main(["report"])  # neither runs nor a course directory


# --- the class view, from a synthetic results.json -----------------------------------------------------------

class TableRows(HTMLParser):
    """The page's table rows: first cell's text -> the other cells' texts."""

    def __init__(self):
        super().__init__()
        self.rows, self.row, self.cell = {}, None, None

    @classmethod
    def of(cls, page):
        parser = cls()
        parser.feed(page)
        return parser.rows

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append("".join(self.cell).strip())
            self.cell = None
        elif tag == "tr" and self.row:
            self.rows[self.row[0]] = self.row[1:]
            self.row = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def text_of(page):
    return html.unescape(re.sub(r"<[^>]+>", "", page))


SOFTMAX_MISTAKES = ["softmax: the largest difference is {} (test case: x of shape ({}, 4))",
                    "softmax: the rows do not sum to 1 but to {}"]


def synthetic_rows(n=23, seed=5):
    """A class of ``n``: ids s10000.., varied scores, two softmax mistakes, one attention mistake, two errors."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        sid = f"s{10000 + 37 * i}"
        got = {g: POINTS[g] if rng.random() < 0.7 else rng.choice([0.0, POINTS[g] / 2]) for g in TESTS}
        if i % 3 == 0:  # 8 of 23 fail the softmax check: 3 with the first mistake, 5 with the second
            got["check_softmax"] = 0.0
        failures = {g: f"{g} is wrong by {rng.random():.3f}" for g in TESTS if got[g] < POINTS[g]}
        if i % 3 == 0:
            failures["check_softmax"] = SOFTMAX_MISTAKES[i % 9 != 0].format(round(rng.random(), 2), rng.randint(2, 9))
        elif "check_softmax" in failures:
            failures["check_softmax"] = "softmax: it returns None"
        answers = {"softmax": f"# softmax by {sid} ({sid}@uni.example)\ndef softmax(x, dim=-1):\n"
                              f"    return x.exp() / x.exp().sum()  # <script>alert('{sid}')</script>",
                   "self_attention": f"def self_attention(Q, K, V, mask=None):\n    # {sid.upper()}: scores = Q@K.T\n"
                                     "    return None"}
        rows.append({"student_id": sid, "assignment": A, "score": sum(got.values()), "max_score": sum(POINTS.values()),
                     "manual_points_pending": POINTS[WRITTEN], "status": "graded", "reason": "",
                     "cells": {**got, WRITTEN: 0.0}, "failures": failures, "answers": answers})
    for sid, reason in (("s99901", "the file is empty"), ("s99902", "not a notebook: <b>oops</b>")):
        rows.append({"student_id": sid, "assignment": A, "score": 0.0, "max_score": sum(POINTS.values()),
                     "manual_points_pending": 0.0, "status": "error", "reason": reason, "cells": {}, "failures": {},
                     "answers": {}})
    return rows


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("view")
    rows = synthetic_rows()
    (tmp / "run").mkdir()
    (tmp / "run" / "results.json").write_text(json.dumps(rows))
    assert main(["report", str(tmp / "run"), "--to", str(tmp / "report")]) == 0
    return rows, (tmp / "report" / "class_view.html").read_text(), tmp / "report"


def test_the_page_has_each_exercises_full_marks_share(made):
    rows, page, _ = made
    graded = [r for r in rows if r["status"] == "graded"]
    table = TableRows.of(page)
    for gid in TESTS:
        full = sum(r["cells"][gid] == POINTS[gid] for r in graded)
        label = f"{gid} ({POINTS[gid]:g} {'pt' if POINTS[gid] == 1 else 'pts'})"
        assert table[label][0] == f"{full} of {len(graded)}", gid
        assert table[label][2] == f"{100 * full / len(graded):.0f}%"
    labels = [k for k in table if k.split(" ")[0] in POINTS]
    assert [k.split(" ")[0] for k in labels] == list(POINTS)  # notebook order
    assert table[f"{WRITTEN} (2 pts) (by hand)"][0] == f"0 of 0, {len(graded)} to mark by hand"


def test_the_page_counts_mistakes_most_frequent_first_under_their_exercise(made):
    rows, page, _ = made
    text = text_of(page)
    graded = [r for r in rows if r["status"] == "graded"]
    folded = [report.mistake(m.format(0.5, 3)) for m in SOFTMAX_MISTAKES]
    counts = [sum(report.mistake(r["failures"].get("check_softmax", "")) == f for r in graded) for f in folded]
    assert all(counts) and counts[0] != counts[1]
    for f, n in zip(folded, counts):
        assert f"{n} students: {f}" in text
    first, second = sorted(range(2), key=lambda k: -counts[k])
    assert text.index(folded[first]) < text.index(folded[second])  # most frequent first
    softmax_part = text[text.index("Mistakes, by exercise"):]
    heading = softmax_part.index("check_softmax (2 pts): ")
    assert heading < softmax_part.index(folded[first])
    later = [softmax_part.index(f"{g} ({POINTS[g]:g}") for g in TESTS[TESTS.index("check_softmax") + 1:]
             if any(g in r["failures"] for r in graded)]
    assert all(softmax_part.index(folded[second]) < i for i in later)  # under their exercise, not after the next one
    failed = [r for r in rows if r["status"] != "graded"]
    assert all(html.escape(r["reason"]) in page for r in failed)  # what could not be graded, and why


def test_example_answers_name_no_student_and_run_nothing(made):
    rows, page, _ = made
    ids = [r["student_id"] for r in rows]
    start = page.index("<h3>Could not be graded")
    outside = page[:start] + page[page.index("</details>", start):]
    for sid in ids:  # only the folded list of errors names students
        assert sid.lower() not in outside.lower(), sid
    assert "uni.example" not in page
    examples = re.findall(r"<pre><code>(.*?)</code></pre>", page, re.S)
    assert examples and any("def softmax" in html.unescape(e) for e in examples)
    assert any("Q@K.T" in html.unescape(e) for e in examples)  # code that looks like an address stays code
    assert "<script" not in page.lower() and "&lt;script&gt;alert(" in page
    assert "not a notebook: &lt;b&gt;oops&lt;/b&gt;" in page
    assert "http://" not in page and "https://" not in page
    assert all(v.startswith(("data:image/png;base64,", "#")) for v in re.findall(r'(?:src|href)="([^"]*)"', page))
    assert ('<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; '
            'style-src \'unsafe-inline\'">') in page


def test_the_example_is_chosen_by_no_order_of_the_rows():
    rows = synthetic_rows()
    views = [class_view.AssignmentView.of(A, [report.with_defaults(r) for r in order], {})
             for order in (rows, rows[::-1], random.Random(1).sample(rows, len(rows)))]
    ex = next(e for e in views[0].exercises if e.grade_id == "check_softmax")
    assert ex.answers == ("softmax",)  # the answer cells between the previous test cell and this one
    picked = [[m.example for m in v.mistakes(ex)] for v in views]
    assert picked[0] == picked[1] == picked[2]


def test_an_example_prefers_an_answer_that_does_not_name_its_author():
    rows = [report.with_defaults({"student_id": sid, "assignment": A, "score": 0.0, "max_score": 17.0,
                                  "cells": {"check_softmax": 0.0}, "failures": {"check_softmax": "softmax: wrong"},
                                  "answers": {"softmax": source}})
            for sid, source in (("zed", "return x  # zed"), ("yan", "return x * 2"), ("xia", "# XIA\nreturn x"))]
    view = class_view.AssignmentView.of(A, rows, {"yan": class_view.Person("yan", ("Yan", "Li"), "yan@uni.example")})
    ex = next(e for e in view.exercises if e.grade_id == "check_softmax")
    [found] = view.mistakes(ex)
    assert found.example.answers == [("softmax", "return x * 2")] and found.count == 3


def test_the_plots_are_pngs_beside_the_summary(made):
    _, page, out = made
    for name in (f"{A}.png", f"{A}_exercises.png"):
        assert (out / name).read_bytes()[:4] == b"\x89PNG"
    assert page.count('src="data:image/png;base64,') == 2
    summary = (out / "report.md").read_text()
    assert "class_view.html" in summary and f"]({A}_exercises.png)" in summary


def test_names_ids_and_emails_go_and_the_code_stays():
    author, other = class_view.Person("s123", ("Max", "Mustermann"), "max.m@uni.example"), class_view.Person("s124", ("Sum",))
    anonymise = class_view.Anonymiser([author, other])
    text = "# Max Mustermann (S123), with Sum s124: max.m@uni.example\nreturn x.max(dim=-1) / x.sum()  # s123x\nQ@K.transpose(0, 1)"
    got = anonymise(text, author)
    for word in ("Max", "Mustermann", "s123", "s124", "Sum", "uni.example"):
        assert word.lower() not in got.lower().replace("x.max(", "").replace("x.sum(", ""), word
    assert "return x.max(dim=-1) / x.sum()" in got and "Q@K.transpose(0, 1)" in got


def test_the_gradebooks_points_win_over_the_notebooks():
    """An instructor who changed a check's points regraded into the gradebook: its points are what scores are out of."""
    changed = {**POINTS, "check_softmax": POINTS["check_softmax"] + 3}
    rows = [report.with_defaults({"student_id": sid, "assignment": A, "score": 0.0, "max_score": sum(changed.values()),
                                  "cells": {"check_softmax": got}, "points": changed})
            for sid, got in (("p1", changed["check_softmax"]), ("p2", POINTS["check_softmax"]))]
    view = class_view.AssignmentView.of(A, rows)
    ex = next(e for e in view.exercises if e.grade_id == "check_softmax")
    assert ex.points == changed["check_softmax"] and view.share(ex) == (1, 2, 0)
