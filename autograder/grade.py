"""Grade a folder of submissions: ``python -m autograder grade ASSIGNMENT SUBMISSIONS --out OUT``.

SUBMISSIONS is either a flat folder of ``<student_id>.ipynb`` files (an LMS download)
or an nbgrader ``submitted/`` tree (``<student_id>/<assignment>/<assignment>.ipynb``).
OUT receives ``grades.csv`` and ``feedback/<student_id>.html``.

Each submission is graded in its own throw-away copy of an nbgrader course directory,
so a broken or hostile notebook cannot disturb another student's grade, and grading
runs in parallel across ``--jobs`` worker processes (student code itself always runs in
a separate Jupyter kernel started by nbgrader, with a per-cell timeout).
"""
from __future__ import annotations

import csv
import json
import multiprocessing
import os
import re
import shutil
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat

from . import course, feedback, notebook_source

STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$")
CSV_COLUMNS = ["student_id", "assignment", "score", "max_score", "manual_points_pending", "status", "reason"]


@dataclass
class Result:
    student_id: str
    assignment: str
    score: float = 0.0
    max_score: float = 0.0
    manual_points_pending: float = 0.0
    status: str = "graded"  # graded | error
    reason: str = ""
    cells: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0


def find_submissions(folder: Path, assignment: str) -> dict[str, Path]:
    """Map student id -> submitted notebook, for a flat folder or an nbgrader submitted/ tree."""
    if not folder.is_dir():
        raise SystemExit(f"{folder} is not a folder of submissions")
    found: dict[str, Path] = {}
    for path in sorted(folder.glob("*.ipynb")):
        found[path.stem] = path
    for path in sorted(folder.glob(f"*/{assignment}/*.ipynb")):
        found.setdefault(path.parent.parent.name, path)
    return found


def read_submission(path: Path) -> tuple[nbformat.NotebookNode | None, str]:
    """Load a submitted notebook, or say in one sentence why it cannot be graded."""
    try:
        raw = path.read_bytes()
    except OSError as err:
        return None, f"the file could not be read ({err.strerror})"
    if not raw.strip():
        return None, "the file is empty"
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        return None, f"the file is not a notebook (invalid JSON: {err})"
    if not isinstance(data, dict) or data.get("nbformat") != 4:
        return None, f"unsupported notebook format {data.get('nbformat') if isinstance(data, dict) else '?'} (expected nbformat 4)"
    try:
        nb = nbformat.reads(raw.decode("utf-8"), as_version=4)
        nbformat.validate(nb)
    except Exception as err:  # nbformat raises several kinds
        return None, f"the notebook is malformed ({type(err).__name__}: {str(err).splitlines()[0][:200]})"
    return nb, ""


def _api(root: Path):
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    config.CourseDirectory.root = str(root)  # a copy of the template: same settings, its own folder
    return NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)


def _scores(root: Path, assignment: str, student_id: str) -> tuple[float, float, float, dict[str, float]]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        sub = gb.find_submission(assignment, student_id)
        cells: dict[str, float] = {}
        pending = 0.0
        for nb in sub.notebooks:
            for grade in nb.grades:
                cells[grade.name] = float(grade.score or 0.0)
                if grade.auto_score is None and grade.manual_score is None:
                    pending += float(grade.max_score)
        return float(sub.score), float(sub.max_score), pending, cells


def _quiet_worker(log_dir: str) -> None:
    """Send a worker's (and its kernels') stderr to a log file, not the instructor's terminal."""
    import warnings

    warnings.filterwarnings("ignore")
    log = open(Path(log_dir) / f"worker-{os.getpid()}.log", "ab", buffering=0)  # noqa: SIM115 (kept open)
    os.dup2(log.fileno(), 2)


def grade_one(template: str, workdir: str, assignment: str, student_id: str, notebook: str) -> Result:
    """Grade one submission in its own copy of the course directory (runs in a worker)."""
    os.environ["PATH"] = course.nbgrader_env()["PATH"]
    # One thread per kernel: parallel jobs already use every core, and oversubscribed
    # BLAS / torch threads make a batch slower, not faster.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("MKL_NUM_THREADS", "1")
    start = time.monotonic()
    result = Result(student_id, assignment)
    root = Path(workdir) / student_id
    out_html = Path(workdir) / "feedback" / f"{student_id}.html"
    nb, problem = read_submission(Path(notebook))
    release_nb = nbformat.read(Path(template) / "release" / assignment / f"{assignment}.ipynb", as_version=4)
    result.max_score = sum(
        float(c.metadata["nbgrader"].get("points", 0)) for c in release_nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
    )
    if nb is None:
        return _failed(result, problem, out_html, start)
    skip_demos(nb, release_nb)
    shutil.copytree(template, root, ignore=shutil.ignore_patterns("submitted", "autograded", "feedback"))
    target = root / "submitted" / student_id / assignment / f"{assignment}.ipynb"
    target.parent.mkdir(parents=True)
    nbformat.write(nb, target)
    api = _api(root)
    outcome = api.autograde(assignment, student_id)
    if not outcome.get("success"):
        return _failed(result, "autograding failed: " + _last_error(outcome), out_html, start)
    autograded = root / "autograded" / student_id / assignment / f"{assignment}.ipynb"
    source_nb = nbformat.read(root / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    feedback.sanitize(autograded, release_nb, source_nb)
    fb = api.generate_feedback(assignment, student_id)
    html_path = root / "feedback" / student_id / assignment / f"{assignment}.html"
    if fb.get("success") and html_path.exists():
        shutil.copyfile(html_path, out_html)
    else:
        out_html.write_text(feedback.error_page(student_id, assignment, "feedback could not be rendered"), encoding="utf-8")
    result.score, result.max_score, result.manual_points_pending, result.cells = _scores(root, assignment, student_id)
    shutil.rmtree(root, ignore_errors=True)
    result.seconds = time.monotonic() - start
    return result


DEMO_SKIPPED = "# This demo cell is skipped while grading: nothing graded depends on it. It runs in full in your notebook."


def skip_demos(nb: nbformat.NotebookNode, release_nb: nbformat.NotebookNode) -> int:
    """Blank the demo cells (training runs, plots, widgets) of a submission; returns how many."""
    demo_ids = {c.get("id") for c in release_nb.cells if notebook_source.is_demo(c)}
    skipped = 0
    for cell in nb.cells:
        if notebook_source.is_demo(cell, demo_ids):
            cell.source, cell.outputs = DEMO_SKIPPED, []
            skipped += 1
    return skipped


def _failed(result: Result, reason: str, out_html: Path, start: float = 0.0) -> Result:
    """A zero with its reason, in the result and on the student's feedback page."""
    result.status, result.reason = "error", reason
    out_html.write_text(feedback.error_page(result.student_id, result.assignment, reason), encoding="utf-8")
    if start:
        result.seconds = time.monotonic() - start
    return result


def _last_error(outcome: dict) -> str:
    text = (outcome.get("error") or outcome.get("log") or "unknown error").strip().splitlines()
    return text[-1][:300] if text else "unknown error"


def grade(
    assignment: str, submissions: Path, out: Path, *, jobs: int | None = None, timeout: int | None = None,
) -> list[Result]:
    """Grade every submission; write OUT/grades.csv and OUT/feedback/<student_id>.html."""
    assignment = course.resolve_assignment(assignment)
    found = find_submissions(submissions, assignment)
    out.mkdir(parents=True, exist_ok=True)
    (out / "feedback").mkdir(exist_ok=True)
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="course-grade-") as tmp:
        tmp_path = Path(tmp)
        template = tmp_path / "template"
        course.make_course_dir(template, assignment, timeout)
        work = tmp_path / "work"
        (work / "feedback").mkdir(parents=True)
        tasks = []
        for student_id, path in found.items():
            if not STUDENT_ID.match(student_id):
                results.append(Result(student_id, assignment, status="error",
                                      reason="the file name is not a usable student id (letters, digits, . _ - @)"))
                continue
            tasks.append((str(template), str(work), assignment, student_id, str(path)))
        jobs = max(1, min(jobs or os.cpu_count() or 1, len(tasks) or 1))
        with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                                 initializer=_quiet_worker, initargs=(str(work),)) as pool:
            futures = [(task[3], pool.submit(grade_one, *task)) for task in tasks]
            for student_id, future in futures:
                try:
                    results.append(future.result())
                except Exception as err:  # a crashed worker costs one grade, never the batch
                    reason = f"the grader failed on this submission ({type(err).__name__}: {err})"
                    results.append(_failed(Result(student_id, assignment), reason,
                                           work / "feedback" / f"{student_id}.html"))
        for html_file in (work / "feedback").glob("*.html"):
            shutil.copyfile(html_file, out / "feedback" / html_file.name)
    results.sort(key=lambda r: r.student_id)
    write_csv(out / "grades.csv", results)
    (out / "results.json").write_text(json.dumps([asdict(r) for r in results], indent=1), encoding="utf-8")
    return results


def write_csv(path: Path, results: list[Result]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for r in results:
            row = asdict(r)
            writer.writerow({k: (f"{row[k]:g}" if isinstance(row[k], float) else row[k]) for k in CSV_COLUMNS})
