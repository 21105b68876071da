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
``results.json``: per-cell scores and, for each failing graded cell, the first line of the verdict the student sees.

The assignment's notebooks are read once per batch (:class:`Assignment`); each worker gets a
:class:`Task` (the submission's bytes, not a path). :func:`grade_one` then takes the submission
through its route in order (:mod:`autograder.pipeline`): parsed, repaired against the release, demos
skipped, run by the trusted execute in the sandboxed kernel, each graded cell scored by nbgrader's
``determine_grade``, the page rendered with nbgrader's feedback template. No course directory, no
gradebook and no notebook file is written on the way: the submission comes in as bytes, and the
result and its page go out.
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
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat

from course_lib.plain_text import csv_cell, one_line

from . import cells, course, feedback, notebook_source, pipeline, sandbox, verdict, worker, zygote
from .progress import Progress
from .sandbox import Limits
from .watchdog import Watchdog

MAX_NOTEBOOK_MB = 32   # a submitted notebook, outputs included
MAX_CELLS = 1000       # the course's notebooks have fewer than 150
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
    failures: dict[str, str] = field(default_factory=dict)  # graded cell -> the verdict's first line
    seconds: float = 0.0
    slowest_cell: float = 0.0  # seconds of its slowest cell (the batch's calibration reads the solution's)


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


def parse_submission(raw: bytes) -> tuple[nbformat.NotebookNode | None, str]:
    """A submitted notebook from the file's bytes (parsed once), or one sentence saying why it cannot be graded."""
    if not raw.strip():
        return None, "the file is empty"
    if len(raw) > MAX_NOTEBOOK_MB << 20:
        return None, (f"the notebook is {len(raw) >> 20} MB; at most {MAX_NOTEBOOK_MB} MB can be graded "
                      "(clear its outputs)")
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        return None, f"the file is not a notebook (invalid JSON: {err})"
    if not isinstance(data, dict) or data.get("nbformat") != 4:
        found = data.get("nbformat") if isinstance(data, dict) else "?"
        return None, f"unsupported notebook format {found} (expected nbformat 4)"
    cells = data.get("cells")
    if isinstance(cells, list) and len(cells) > MAX_CELLS:
        return None, f"the notebook has {len(cells)} cells; at most {MAX_CELLS} can be graded"
    seen: set = set()
    for index, cell in enumerate(cells if isinstance(cells, list) else []):  # a pasted cell keeps its id: renumber
        if isinstance(cell, dict) and cell.get("id") in seen:
            cell["id"] = f"copy-{index}"
        if isinstance(cell, dict):
            seen.add(cell.get("id"))
    try:
        # what nbformat.reads does
        nb = nbformat.versions[4].to_notebook_json(data, minor=data.get("nbformat_minor", 0))
        nbformat.validate(nb)
    except Exception as err:  # noqa: BLE001 (nbformat raises several kinds: each is the student's zero with a reason)
        return None, f"the notebook is malformed ({type(err).__name__}: {str(err).splitlines()[0][:200]})"
    return nb, ""


@dataclass(frozen=True)
class Assignment:
    """What every submission of a batch is graded against, read once per batch (it travels to every worker)."""

    name: str
    release: nbformat.NotebookNode  # the students' notebook
    test_sources: dict[str, str]    # grade id -> test cell source, hidden tests included (the instructors' notebook)
    released_tests: dict[str, str]  # grade id -> test cell source as released (what the feedback page shows)
    checks_module: str
    max_score: float
    cell_timeout: int               # seconds a cell may run when the batch's limits leave it open

    @classmethod
    def read(cls, name: str, course_dir: Path) -> Assignment:
        release = nbformat.read(course_dir / "release" / name / f"{name}.ipynb", as_version=4)
        source = nbformat.read(course_dir / "source" / name / f"{name}.ipynb", as_version=4)
        return cls(name, release, verdict.test_sources(source), verdict.test_sources(release),
                   verdict.checks_module_of(release), cells.max_score(release), notebook_source.cell_timeout(release))


@dataclass(frozen=True)
class Task:
    """One submission to grade, as a worker receives it (it may run on another machine: bytes, not a path)."""

    assignment: Assignment
    student_id: str
    submission: bytes
    workdir: str        # where its feedback page goes (feedback/<student_id>.html)
    limits: Limits
    isolated: bool      # the kernels run in their own namespaces


@contextlib.contextmanager
def watched_kernel(task: Task):
    """A fresh folder for the submission's kernel, its kernelspec, and a watchdog; after, the kernel and its
    children stopped."""
    kernel_dir = sandbox.make_kernel_dir()  # its sockets and the grader's requests: a short path, fresh
    worker.kernel_spec_for(kernel_dir)
    pid_dir = Path(task.workdir).parent / "pids"
    limits = task.limits
    watchdog = Watchdog(wall_seconds=limits.wall_seconds or DEFAULT_WALL_SECONDS, cpu_seconds=limits.cpu_seconds,
                        disk_mb=limits.disk_mb, output_mb=limits.output_mb,
                        disk_folder=None if task.isolated else kernel_dir / "home",
                        cgroup=lambda: sandbox.kernel_cgroup(pid_dir, kernel_dir),
                        stop=lambda: sandbox.stop_kernels(pid_dir, kernel_dir))
    watchdog.kernel_dir = kernel_dir
    watchdog.start()
    try:
        yield watchdog
    finally:
        watchdog.done.set()
        sandbox.stop_kernels(pid_dir, kernel_dir)  # children the student's code left behind
        shutil.rmtree(kernel_dir, ignore_errors=True)


def grade_one(task: Task) -> Result:
    """Grade one submission, start to end, in memory (runs in a worker): the result; its page in WORKDIR/feedback/."""
    start, assignment, student = time.monotonic(), task.assignment, task.student_id
    result = Result(student, assignment.name, max_score=assignment.max_score)
    page = Path(task.workdir) / "feedback" / f"{student}.html"
    nb, problem = parse_submission(task.submission)  # 1. the submission's bytes, parsed once
    if nb is None:
        return _failed(result, problem, page, start)
    notes = pipeline.prepare(nb, assignment.release)  # 2-3. the cells as released, the demos skipped
    timeout = task.limits.cell_timeout or assignment.cell_timeout
    with watched_kernel(task) as watchdog:  # 4. the trusted execute, in the sandboxed kernel
        execute = pipeline.trusted_execute(assignment, watchdog.kernel_dir, task.isolated, timeout, watchdog)
        try:
            execute.preprocess(nb, {})
        except Exception as err:  # noqa: BLE001 (a kernel that never ran the notebook: a zero with the reason)
            return _failed(result, watchdog.why() or why_not_run(err), page, start)
    pipeline.limit_outputs(nb)
    result.failures = feedback.failures(nb)
    graded = pipeline.scores(nb)  # 5. nbgrader's determine_grade, cell by cell
    result.cells = {gid: score or 0.0 for gid, score in graded.cells.items()}
    result.score, result.max_score, result.manual_points_pending = graded.total, graded.max_score, graded.pending
    result.slowest_cell = execute.slowest_cell
    page.write_text(pipeline.feedback_page(nb, graded, assignment.released_tests, notes, student, assignment.name),
                    encoding="utf-8")  # 6. nbgrader's feedback template
    stopped = execute.stop_reason or watchdog.why()
    if stopped:
        result.reason = stopped + ": the cells after that point were not graded"
    result.seconds = time.monotonic() - start
    return result  # 7.


def _failed(result: Result, reason: str, out_html: Path, start: float = 0.0) -> Result:
    """A zero with its reason, in the result and on the student's feedback page."""
    result.status, result.reason = "error", reason
    out_html.write_text(feedback.error_page(result.student_id, result.assignment, reason), encoding="utf-8")
    if start:
        result.seconds = time.monotonic() - start
    return result


def why_not_run(err: Exception) -> str:
    """Why a kernel could not run the notebook at all, in one sentence of what the student's code did."""
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    if isinstance(err, DeadKernelError):
        return ("the Python process running the notebook stopped (os._exit, a crash, or a limit: CPU time, memory, "
                "processes) so the notebook could not be graded")
    if isinstance(err, CellTimeoutError) and "IOPub" in str(err):
        return ("a cell kept running after its time limit and ignored the interrupt (KeyboardInterrupt caught), "
                "so the notebook could not be graded")
    if isinstance(err, CellTimeoutError):
        return "a cell ran past its time limit and did not stop, so the notebook could not be graded"
    return f"autograding failed: {type(err).__name__}: {one_line(err)}"


#: without calibration: the whole submission's wall time, and the calibration's own limit
DEFAULT_WALL_SECONDS = 600
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
                                   initializer=worker.start, initargs=self.initargs)

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


def grade(
    assignment: str, submissions: Path, out: Path, *, jobs: int | None = None, timeout: int | None = None,
    limits: Limits | None = None, fork_kernels: bool = True, scheduler: str | None = None,
    worker_wait: float = 120,
) -> list[Result]:
    """Grade every submission; write OUT/grades.csv, OUT/results.json and OUT/feedback/<student_id>.html.

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
        progress = Progress(len(usable))

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
                    results.append(_failed(Result(student_id, assignment, max_score=batch.max_score), reason,
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
                    results.append(_failed(Result(student_id, assignment, max_score=batch.max_score),
                                           f"the file could not be read ({err.strerror})",
                                           work / "feedback" / f"{student_id}.html"))
                    progress.count(True)
                    continue
                task = Task(batch, student_id, submission, str(work), limits, isolated)
                pending[pool.submit(grade_one, task)] = task
            collect(list(pending))
            for task in lost:  # a worker may hold two submissions: the one that stopped it is found alone
                pending[pool.submit(grade_one, task)] = task
                collect(list(pending), alone=True)
        for html_file in (work / "feedback").glob("*.html"):
            shutil.copyfile(html_file, out / "feedback" / html_file.name)
    results.sort(key=lambda r: r.student_id)
    write_csv(out / "grades.csv", results)
    (out / "results.json").write_text(json.dumps([asdict(r) for r in results], indent=1), encoding="utf-8")
    return results


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
