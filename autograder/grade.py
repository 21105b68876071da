"""Grade a folder of submissions: ``python -m autograder grade ASSIGNMENT SUBMISSIONS --out OUT``.

SUBMISSIONS is either a flat folder of ``<student_id>.ipynb`` files (an LMS download)
or an nbgrader ``submitted/`` tree (``<student_id>/<assignment>/<assignment>.ipynb``).
OUT receives ``grades.csv`` and ``feedback/<student_id>.html``.

Each submission is graded on its own, in memory, so a broken or hostile notebook cannot disturb
another student's grade, and grading runs in parallel across ``--jobs`` worker processes
(:mod:`autograder.worker`). Student code always runs in a separate Jupyter kernel started through
``autograder.sandbox`` (per-cell
timeout, wall-clock limit per submission, memory, processes, file size, no network,
read-only files). The test cells do not run there: ``autograder.verdict`` runs them in the
grader's process, calling the student's functions in the kernel and judging the plain data
they return, so nothing the student's code does in its kernel can change a verdict. OUT also receives
``results.json``: per-cell scores and, for each failing graded cell, the first line of the verdict the student sees,
and ``similar.html``: the pairs of submissions whose answer cells are alike (flags only, :mod:`autograder.similarity`).

The assignment's notebooks are read once per batch (:class:`autograder.submission.Assignment`); each
worker gets a :class:`autograder.submission.Task` (the submission's bytes, not a path) and grades it with
:func:`autograder.submission.grade_one`, in memory, start to end.
"""
from __future__ import annotations

import contextlib
import csv
import dataclasses
import json
import math
import multiprocessing
import os
import re
import shutil
import tempfile
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict
from pathlib import Path

import nbformat

from course_lib.grading.plain_text import csv_cell, one_line

from . import cells, course, course_results, notebook_source, regrade, sandbox, worker, zygote
from .progress import Progress
from .sandbox import Limits
from .submission import DEFAULT_WALL_SECONDS, Assignment, Result, Task, failed, grade_one, parse_submission

STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$")
CSV_COLUMNS = ["student_id", "assignment", "score", "max_score", "manual_points_pending", "status", "reason"]


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
        return parse_submission(path.read_bytes())
    except OSError as err:
        return None, f"the file could not be read ({err.strerror})"


#: a submission may take this many times what the instructors' solution takes on the grading machine ...
CALIBRATION_FACTOR = 10
#: ... and at least this long, in all and per cell
MIN_WALL_SECONDS, MIN_CELL_SECONDS = 60, 10
WORKER_KILLED = ("the grading worker was killed while grading this submission (out of memory, or a signal), "
                 "every time it was graded")


def calibrated(limits: Limits, solution: Result, notebook_timeout: int) -> Limits:
    """The batch's limits, timed on the instructors' solution: what the instructor left open gets a multiple of it."""
    wall = limits.wall_seconds or max(MIN_WALL_SECONDS, math.ceil(CALIBRATION_FACTOR * solution.seconds))
    cell = limits.cell_timeout or min(notebook_timeout,
                                      max(MIN_CELL_SECONDS, math.ceil(CALIBRATION_FACTOR * solution.slowest_cell)))
    return dataclasses.replace(limits, wall_seconds=wall, cell_timeout=cell)


class LocalPool:
    """The batch's worker processes on this machine; a pool broken by a worker's death is replaced.

    Forked workers start with what this process has imported (nbgrader, torch: seconds each when spawned);
    it has started no thread and run no torch operation when the first pool forks them all.
    """

    def __init__(self, jobs: int, initargs: tuple):
        self.jobs, self.initargs = jobs, initargs
        self.pool = self._new()

    def _new(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self.jobs, mp_context=multiprocessing.get_context("fork"),
                                   initializer=worker.start_local, initargs=(os.getpid(), *self.initargs))

    def capacity(self) -> int:
        return self.jobs

    def submit(self, fn, task):
        return self.pool.submit(fn, task)

    def replace_if_broken(self) -> None:
        if getattr(self.pool, "_broken", False):
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = self._new()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.pool.shutdown(wait=True, cancel_futures=True)


def destinations(assignment: str, submissions: Path, out: Path | None,
                 course_dir: Path | None) -> tuple[Path, Path | None]:
    """Where a batch's files go (OUT) and the course directory that gets its results (None: none)."""
    course_dir = course_dir or course_results.course_dir_of(submissions)
    if out is None and course_dir is None:
        raise SystemExit("say where the grades go: --out FOLDER, or --course-dir for an nbgrader course directory")
    return out or course_dir / "autograder" / course.resolve_assignment(assignment), course_dir


def grade(
    assignment: str, submissions: Path, out: Path | None = None, *, jobs: int | None = None,
    timeout: int | None = None, limits: Limits | None = None, fork_kernels: bool = True,
    scheduler: str | None = None, worker_wait: float = 120, course_dir: Path | None = None,
    never_lower: bool = False,
) -> list[Result]:
    """Grade every submission; write OUT/grades.csv, OUT/results.json and OUT/feedback/<student_id>.html.

    With ``course_dir`` (an nbgrader course directory; by default the one whose ``submitted/`` SUBMISSIONS is)
    the results also land where nbgrader's autograde leaves them (:mod:`autograder.course_results`: the
    gradebook, ``autograded/``, ``feedback/``), OUT defaults to ``COURSE_DIR/autograder/ASSIGNMENT``, and a
    regrade writes what changed into OUT/regrade.csv (:mod:`autograder.regrade`; ``never_lower`` keeps a
    student's higher earlier score).

    With ``fork_kernels`` each worker's kernels fork from its zygote (:mod:`autograder.zygote`),
    which has imported what the notebook imports; without, each kernel starts as a new Python.
    With ``scheduler`` (a Dask scheduler's address) the submissions are graded on its workers
    (:mod:`autograder.cluster`) instead of local processes: the same grading, the same files in OUT.
    The batch waits ``worker_wait`` seconds for a first worker to join. Where ``limits`` leave the wall
    time or the cell time open, the instructors' solution is graded first and sets them (:func:`calibrated`).
    """
    limits = limits or Limits(cell_timeout=timeout)
    assignment = course.resolve_assignment(assignment)
    found = find_submissions(submissions, assignment)
    if sandbox.refusal(limits):
        raise SystemExit(f"cannot grade: {sandbox.refusal(limits)}")
    chosen, out_given = course_dir is not None, out is not None  # else found from SUBMISSIONS, perhaps
    out, course_dir = destinations(assignment, submissions, out, course_dir)
    if scheduler:
        from . import cluster

        # before OUT is touched: an unreachable scheduler leaves nothing there
        client = cluster.connect(scheduler, worker_wait)
    out.mkdir(parents=True, exist_ok=True)
    (out / "feedback").mkdir(exist_ok=True)
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="course-grade-") as tmp, \
            worker.grader_only_config(Path(tmp) / "settings"), \
            (contextlib.closing(client) if scheduler else contextlib.nullcontext()):
        tmp_path = Path(tmp)
        template = tmp_path / "template"
        course.cached_course_dir(template, assignment, limits.cell_timeout)
        batch = Assignment.read(assignment, template)
        progress, earlier = Progress(len(found)), {}
        if course_dir:  # before grading: a gradebook that cannot take the results stops the batch here
            try:
                for note in course_results.check_gradebook(course_dir, batch):
                    progress.note(note)
            except SystemExit as why:
                if chosen or not out_given:
                    raise
                # SUBMISSIONS only sits in a course directory that was not made for this assignment: OUT alone
                progress.note(f"{why}; grading into {out} only")
                course_dir = None
        if course_dir:
            earlier = course_results.before(course_dir, assignment)
        work = tmp_path / "work"
        (work / "feedback").mkdir(parents=True)
        (tmp_path / "pids").mkdir()
        kernel_argv, isolated = sandbox.kernel_argv(limits, tmp_path / "pids")
        usable = {}
        for student_id, path in found.items():
            if STUDENT_ID.match(student_id):
                usable[student_id] = path
            else:
                results.append(Result(student_id, assignment, status="error",
                                      reason="the file name is not a usable student id (letters, digits, . _ - @)"))
        jobs = max(1, min(jobs or os.cpu_count() or 1, len(usable) or 1))
        pending: dict = {}  # future -> task; a few per worker, so that few submissions are in memory at once
        lost: list[Task] = []  # graded on a worker that stopped: perhaps another submission's doing
        progress.total = len(usable)

        def lost_worker(err: Exception) -> bool:
            return isinstance(err, BrokenProcessPool) or (scheduler is not None and isinstance(err, cluster.WorkerLost))

        def collect(done, alone: bool = False) -> None:
            for future in done:
                task = pending.pop(future)
                student_id = task.student_id
                try:
                    results.append(future.result())
                except Exception as err:  # noqa: BLE001 (a crashed worker costs one grade, never the batch)
                    if isinstance(err, BrokenProcessPool):
                        pool.replace_if_broken()
                    if lost_worker(err) and not alone:
                        lost.append(task)  # graded again at the end, alone
                        continue
                    reason = WORKER_KILLED if lost_worker(err) else \
                        f"the grader failed on this submission ({type(err).__name__}: {one_line(err)})"
                    results.append(failed(Result(student_id, assignment, max_score=batch.max_score), reason,
                                           work / "feedback" / f"{student_id}.html"))
                progress.count(results[-1].status == "error")

        modules = zygote.imports_of(batch.release)
        if scheduler:
            pool = cluster.ClusterPool(client, cluster.GraderPlugin(limits, modules, fork_kernels))
            progress.note(f"grading on the Dask cluster at {scheduler}; "
                          f"dashboard: {cluster.dashboard(client) or 'none'}")
        else:
            pool = LocalPool(jobs, (str(work), str(tmp_path), kernel_argv, modules, fork_kernels))
        with pool:
            if usable and (limits.wall_seconds is None or limits.cell_timeout is None):
                limits = _calibrate(pool, batch, template, work, limits, isolated, progress)
            for student_id, path in usable.items():
                while len(pending) >= 2 * pool.capacity():
                    collect(wait(pending, return_when=FIRST_COMPLETED).done)
                try:
                    submission = path.read_bytes()
                except OSError as err:
                    results.append(failed(Result(student_id, assignment, max_score=batch.max_score),
                                           f"the file could not be read ({err.strerror})",
                                           work / "feedback" / f"{student_id}.html"))
                    progress.count(True)
                    continue
                task = Task(batch, student_id, submission, str(work), limits, isolated,
                            keep_notebook=course_dir is not None)
                pending[pool.submit(grade_one, task)] = task
            collect(list(pending))
            for task in lost:  # a worker may hold two submissions: the one that stopped it is found alone
                pending[pool.submit(grade_one, task)] = task
                collect(list(pending), alone=True)
        for html_file in (work / "feedback").glob("*.html"):
            shutil.copyfile(html_file, out / "feedback" / html_file.name)
        results.sort(key=lambda r: r.student_id)
        _similar(batch, results, out, progress)
        if course_dir:
            _into_course(course_dir, batch, results, found, work / "feedback", out, earlier, never_lower, progress)
    write_csv(out / "grades.csv", results)
    # the students' answer cells in a file of their own: results.json holds what the grader found, answers.json
    # what the students wrote (the class view's example answers)
    rows = [{k: v for k, v in asdict(r).items() if k not in ("autograded", "answers")} for r in results]
    (out / "results.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")
    (out / "answers.json").write_text(json.dumps({r.student_id: r.answers for r in results if r.answers}, indent=1),
                                      encoding="utf-8")
    return results


def _similar(batch: Assignment, results: list[Result], out: Path, progress: Progress) -> None:
    """OUT/similar.html: the pairs of students whose answer cells are alike beyond the scaffold, the course's code
    and common idioms (:mod:`autograder.similarity`). Flags for the instructor to look at: no grade changes."""
    from . import similarity

    answers = {r.student_id: r.answers for r in results if r.status == "graded" and r.answers}
    pairs = similarity.flag_similar(answers, similarity.Scaffold.from_release(batch.release))
    page = similarity.write_page(pairs, answers, out / "similar.html", batch.name)
    if pairs:
        progress.note(f"{len(pairs)} pair(s) of submissions are alike beyond the scaffold: see {page}")


def _into_course(course_dir: Path, batch: Assignment, results: list[Result], found: dict[str, Path],
                 pages: Path, out: Path, earlier: dict, never_lower: bool, progress: Progress) -> None:
    """The batch's results into the course directory, and what changed since its earlier grading."""
    points = {gid: cells.points(c) for gid, c in cells.graded_cells(batch.release).items()}
    changed = regrade.changes(earlier, results, points, never_lower)
    kept = {c.student for c in changed if c.kept}
    written = course_results.record(course_dir, results, found, pages, keep=kept)
    if earlier:
        regrade.write(changed, out)
        for line in regrade.lines(changed):
            progress.note(line)
    progress.note(f"{written} submission(s) written into {course_dir} (gradebook, autograded/, feedback/)")


def _calibrate(pool, batch: Assignment, template: Path, work: Path, limits: Limits, isolated: bool,
               progress: Progress) -> Limits:
    """Grade the instructors' solution once, then give every submission a multiple of its time."""
    source = template / "source" / batch.name / f"{batch.name}.ipynb"
    timing = dataclasses.replace(limits, wall_seconds=limits.wall_seconds or DEFAULT_WALL_SECONDS)
    task = Task(batch, "instructors-solution", source.read_bytes(), str(work), timing, isolated)
    try:
        solution = pool.submit(grade_one, task).result()
    except Exception as err:  # noqa: BLE001 (the batch goes on with the defaults)
        solution = Result(task.student_id, batch.name, status="error", reason=f"{type(err).__name__}: {err}")
    (work / "feedback" / f"{task.student_id}.html").unlink(missing_ok=True)
    if solution.status != "graded" or solution.reason:
        progress.note(f"the instructors' solution could not be timed ({solution.reason}): each submission may run "
                      f"{timing.wall_seconds} s")
        return dataclasses.replace(timing, cell_timeout=limits.cell_timeout)
    notebook_timeout = notebook_source.cell_timeout(batch.release)
    chosen = calibrated(limits, solution, notebook_timeout)
    progress.note(f"timed on the instructors' solution ({solution.seconds:.1f} s, slowest cell "
                  f"{solution.slowest_cell:.1f} s): each submission may run {chosen.wall_seconds} s, each cell "
                  f"{chosen.cell_timeout} s")
    return chosen


def write_csv(path: Path, results: list[Result]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for r in results:
            row = asdict(r)
            writer.writerow({k: f"{row[k]:g}" if isinstance(row[k], float) else csv_cell(row[k]) for k in CSV_COLUMNS})
