"""A batch's results in the instructor's nbgrader course directory, where nbgrader's own autograde leaves them.

    gradebook.db                                           the submission, each graded cell's automatic score
    autograded/<student>/<assignment>/<assignment>.ipynb   the graded notebook: formgrader shows it for hand marks
    feedback/<student>/<assignment>/<assignment>.html      the student's page: nbgrader's release_feedback sends it

Both folders also get the submission's ``timestamp.txt`` and ``submission_secret.txt`` from ``submitted/``, which
nbgrader's release_feedback and the student's fetch_feedback need. The gradebook is written here, by the grader,
in one session per batch, with nbgrader's API and its rules (its ``SaveAutoGrades``): a hand mark is never
touched and a cell that has one is flagged for review again; an answer left as released gets nbgrader's comment
"No response.". No kernel ever sees the gradebook.
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.utils import parse_utc

from . import cells, feedback
from .submission import Assignment, Result

GRADEBOOK = "gradebook.db"
#: the files of a submission that nbgrader's exchange reads next to its notebook and its feedback page
EXCHANGE_FILES = ("timestamp.txt", "submission_secret.txt")


@dataclass
class Before:
    """A student's automatic grading as the course directory held it before this batch."""

    cells: dict[str, float | None] = field(default_factory=dict)  # grade id -> automatic score; None: by hand
    points: dict[str, float] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)        # failing test cell -> its verdict's first line
    graded: bool = True  # False: the submission could not be graded (no autograded notebook)

    @property
    def total(self) -> float:
        return sum(score or 0.0 for score in self.cells.values())


def course_dir_of(submissions: Path) -> Path | None:
    """The course directory whose ``submitted/`` folder ``submissions`` is (nbgrader's collect fills it), else None."""
    parent = submissions.resolve().parent
    if submissions.resolve().name == "submitted" and any((parent / f).exists()
                                                         for f in (GRADEBOOK, "nbgrader_config.py")):
        return parent
    return None


def db_url(course_dir: Path) -> str:
    return f"sqlite:///{course_dir.resolve() / GRADEBOOK}"


def check_gradebook(course_dir: Path, assignment: Assignment) -> list[str]:
    """Make sure the gradebook grades what this batch grades; points changed in the course since are updated.

    Returns a note per updated cell. A gradebook without the assignment, or with other graded cells, stops the
    batch before anything is graded, with the command that fixes it.
    """
    name, notes = assignment.name, []
    remake = f"python -m autograder.hub course {name} --root {course_dir}"
    if not (course_dir / GRADEBOOK).exists():
        raise SystemExit(f"{course_dir} has no {GRADEBOOK}: make the course directory with `{remake}` first")
    points = {gid: cells.points(c) for gid, c in cells.graded_cells(assignment.release).items()}
    with Gradebook(db_url(course_dir)) as gb:
        try:
            notebook = gb.find_notebook(name, name)
        except MissingEntry:
            raise SystemExit(f"the gradebook of {course_dir} has no {name}: run `{remake}` first "
                             "(nbgrader generate_assignment)") from None
        recorded = {c.name: c.max_score for c in notebook.grade_cells}
        if set(recorded) != set(points):
            raise SystemExit(f"the gradebook of {course_dir} has other graded cells for {name} than the course "
                             f"grades (only in the gradebook: {sorted(set(recorded) - set(points))}; only in the "
                             f"course: {sorted(set(points) - set(recorded))}): regenerate it with `{remake}`")
        for gid, value in points.items():
            if recorded[gid] != value:
                gb.update_or_create_grade_cell(gid, name, name, max_score=value)
                notes.append(f"{gid} is now worth {value:g} points (was {recorded[gid]:g}) in the gradebook")
    return notes


def before(course_dir: Path, assignment: str) -> dict[str, Before]:
    """Every student's automatic grading of ``assignment`` as the course directory holds it now."""
    found: dict[str, Before] = {}
    with Gradebook(db_url(course_dir)) as gb:
        try:
            submissions = gb.find_assignment(assignment).submissions
        except MissingEntry:
            return found
        for submission in submissions:
            held = found[submission.student.id] = Before()
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    held.cells[grade.name], held.points[grade.name] = grade.auto_score, grade.max_score
    for student, held in found.items():
        graded = autograded_path(course_dir, student, assignment)
        held.graded = graded.exists()
        if held.graded:
            try:
                held.failures = feedback.failures(nbformat.read(graded, as_version=4))
            except (OSError, ValueError) as err:
                held.failures = {"(notebook)": f"the autograded notebook could not be read ({err})"}
    return found


def autograded_path(course_dir: Path, student: str, assignment: str) -> Path:
    return course_dir / "autograded" / student / assignment / f"{assignment}.ipynb"


def feedback_path(course_dir: Path, student: str, assignment: str) -> Path:
    return course_dir / "feedback" / student / assignment / f"{assignment}.html"


def record(course_dir: Path, results: list[Result], submitted: dict[str, Path], pages: Path,
           keep: set[str] = frozenset()) -> int:
    """Write the batch's results into the course directory: files, then the gradebook in one session.

    ``submitted``: student -> the submitted notebook (its folder's timestamp and secret are copied along);
    ``pages``: the batch's feedback pages (``<student>.html``); ``keep``: students whose earlier grading stays as
    it is (``--never-lower``). Returns how many submissions were written.
    """
    written = [r for r in results if r.student_id not in keep and r.student_id in submitted]
    for result in written:
        _write_files(course_dir, result, submitted[result.student_id].parent, pages / f"{result.student_id}.html")
    with Gradebook(db_url(course_dir)) as gb:
        for result in written:
            _write_scores(gb, result, _timestamp(submitted[result.student_id].parent))
        gb.db.commit()
    return len(written)


def _write_files(course_dir: Path, result: Result, submitted_dir: Path, page: Path) -> None:
    graded = autograded_path(course_dir, result.student_id, result.assignment)
    shown = feedback_path(course_dir, result.student_id, result.assignment)
    for path in (graded, shown):
        path.parent.mkdir(parents=True, exist_ok=True)
        for name in EXCHANGE_FILES:
            if (submitted_dir / name).is_file():
                shutil.copyfile(submitted_dir / name, path.parent / name)
    if result.autograded:
        graded.write_text(result.autograded, encoding="utf-8")
    else:  # not gradable: no notebook for formgrader to show, and none left from an earlier batch
        graded.unlink(missing_ok=True)
    if page.exists():
        shutil.copyfile(page, shown)


def _timestamp(submitted_dir: Path):
    path = submitted_dir / "timestamp.txt"
    try:
        return parse_utc(path.read_text(encoding="utf-8").strip()) if path.is_file() else None
    except ValueError:
        return None


def _write_scores(gb: Gradebook, result: Result, timestamp) -> None:
    """One submission's automatic scores and comments, as nbgrader's SaveAutoGrades writes them."""
    student, name = result.student_id, result.assignment
    gb.update_or_create_student(student)
    gb.update_or_create_submission(name, student, **({"timestamp": timestamp} if timestamp else {}))
    for notebook in gb.find_submission(name, student).notebooks:
        for grade in notebook.grades:
            gid = grade.name
            if result.status != "graded":
                grade.auto_score = 0.0  # not gradable: nothing to mark either
            else:
                grade.auto_score = None if gid in result.to_mark else result.cells.get(gid, 0.0)
            grade.needs_manual_grade = grade.manual_score is not None or (
                grade.auto_score is None and result.status == "graded")
        for comment in notebook.comments:
            comment.auto_comment = "No response." if comment.name in result.unanswered else None


def pages_with_hand_marks(course_dir: Path, assignment: str) -> list[str]:
    """Every student's feedback page made again from their autograded notebook and the gradebook as it is now:
    the hand marks and the instructor's comments on the page (what nbgrader's generate_feedback does, with the
    course's safe page). Run it after marking, before ``nbgrader release_feedback``; returns the students."""
    from . import feedback_page
    from .submission import Scores

    batch = Assignment.read(assignment, course_dir)
    done = []
    with Gradebook(db_url(course_dir)) as gb:
        for submission in gb.find_assignment(assignment).submissions:
            student = submission.student.id
            graded = autograded_path(course_dir, student, assignment)
            if not graded.is_file():
                continue  # not gradable: its page says why already
            nb = nbformat.read(graded, as_version=4)
            scores = Scores()
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    unmarked = grade.manual_score is None and grade.auto_score is None
                    scores.cells[grade.name] = None if unmarked else grade.score  # hand mark, else automatic
                    scores.points[grade.name] = grade.max_score
                for comment in notebook.comments:
                    if comment.manual_comment:
                        scores.comments[comment.name] = comment.manual_comment
            notes = nb.metadata.get("autograder", {}).get("notes", [])
            page = feedback_page.render(nb, scores, batch.released_tests, notes, student, assignment)
            feedback_path(course_dir, student, assignment).write_text(page, encoding="utf-8")
            done.append(student)
    return done
