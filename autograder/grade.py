"""Grade a folder of submissions: ``python -m autograder grade ASSIGNMENT SUBMISSIONS --out OUT``.

SUBMISSIONS is either a flat folder of ``<student_id>.ipynb`` files (an LMS download)
or an nbgrader ``submitted/`` tree (``<student_id>/<assignment>/<assignment>.ipynb``).
OUT receives ``grades.csv`` and ``feedback/<student_id>.html``.

Each submission is graded in its own throw-away copy of an nbgrader course directory,
so a broken or hostile notebook cannot disturb another student's grade, and grading
runs in parallel across ``--jobs`` worker processes. Student code always runs in a
separate Jupyter kernel started by nbgrader through ``autograder.sandbox`` (per-cell
timeout, wall-clock limit per submission, memory, processes, file size, no network,
read-only files). The test cells do not run there: ``autograder.verdict`` runs them in the
grader's process, calling the student's functions in the kernel and judging the plain data
they return, so nothing the student's code does in its kernel can change a verdict. OUT also receives
``results.json``: per-cell scores and, for each failing graded cell, the first line of the verdict the student sees.

The assignment's notebooks are read once per batch (:class:`Assignment`); each worker gets a
:class:`Task` (the submission's bytes, not a path). A submission then goes through nbgrader's own
preprocessors with the course's steps in them (:mod:`autograder.pipeline`), in memory: nbgrader
scores the cells, the gradebook is only read, and no notebook nbgrader writes is read back.
"""
from __future__ import annotations

import contextlib
import csv
import dataclasses
import json
import math
import multiprocessing
import multiprocessing.util
import os
import re
import resource
import shutil
import tempfile
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat

from course_lib.plain_text import csv_cell, one_line

from . import (
    cells,
    course,
    feedback,
    notebook_source,
    pipeline,
    safe_page,
    sandbox,
    verdict,
    zygote,
)
from .progress import Progress
from .sandbox import Limits
from .trusted_execute import TrustedExecute
from .watchdog import Watchdog

MAX_NOTEBOOK_MB = 32   # a submitted notebook, outputs included
WORKER_DATA_MB = 4096  # a grading worker's private memory (grading notebook 07 takes about 1.1 GB)
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
        return None, f"the notebook is {len(raw) >> 20} MB; at most {MAX_NOTEBOOK_MB} MB can be graded (clear its outputs)"
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        return None, f"the file is not a notebook (invalid JSON: {err})"
    if not isinstance(data, dict) or data.get("nbformat") != 4:
        return None, f"unsupported notebook format {data.get('nbformat') if isinstance(data, dict) else '?'} (expected nbformat 4)"
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
        nb = nbformat.versions[4].to_notebook_json(data, minor=data.get("nbformat_minor", 0))  # what nbformat.reads does
        nbformat.validate(nb)
    except Exception as err:  # nbformat raises several kinds
        return None, f"the notebook is malformed ({type(err).__name__}: {str(err).splitlines()[0][:200]})"
    return nb, ""


@dataclass(frozen=True)
class Assignment:
    """What every submission of a batch is graded against, read once per batch."""

    name: str
    course_dir: str              # the nbgrader course directory, its release generated (copied per submission)
    release: nbformat.NotebookNode  # the students' notebook
    test_sources: dict[str, str]    # grade id -> test cell source, hidden tests included (the instructors' notebook)
    checks_module: str
    max_score: float

    @classmethod
    def read(cls, name: str, course_dir: Path) -> Assignment:
        release = nbformat.read(course_dir / "release" / name / f"{name}.ipynb", as_version=4)
        source = nbformat.read(course_dir / "source" / name / f"{name}.ipynb", as_version=4)
        return cls(name, str(course_dir), release, verdict.test_sources(source), verdict.checks_module_of(release),
                   cells.max_score(release))


@dataclass(frozen=True)
class Task:
    """One submission to grade, as a worker receives it (it may run on another machine: bytes, not a path)."""

    assignment: Assignment
    student_id: str
    submission: bytes
    workdir: str        # where the course copies and feedback/ are
    limits: Limits
    isolated: bool      # the kernels run in their own namespaces


def _api(root: Path, task: Task, findings: pipeline.Findings, kernel_dir: Path, watchdog: Watchdog):
    """nbgrader's API on the submission's course copy, the course's steps in its preprocessor lists."""
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    config.CourseDirectory.root = str(root)  # a copy of the template: same settings, its own folder
    config.Autograde.permissions = 644  # nbgrader's 444 would stop us adding notes unless we are root
    for section, values in sandbox.kernel_config(task.isolated, kernel_dir).items():
        for key, value in values.items():
            setattr(getattr(config, section), key, value)
    config.TrustedExecute.test_sources = task.assignment.test_sources
    config.TrustedExecute.checks_module = task.assignment.checks_module
    config.TrustedExecute.exchange_dir = str(kernel_dir)
    if task.limits.cell_timeout is not None:
        config.TrustedExecute.timeout = task.limits.cell_timeout
    execute = TrustedExecute(config=config, watchdog=watchdog, findings=findings)
    steps = pipeline.steps(task.assignment.release, findings, execute)
    config.Autograde.sanitize_preprocessors = steps["sanitize"]
    config.Autograde.autograde_preprocessors = steps["autograde"]
    config.GenerateFeedback.preprocessors = steps["feedback"]
    config.GenerateFeedback.exporter_class = pipeline.FeedbackExporter
    return NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)


def _scores(root: Path, assignment: str, student_id: str) -> tuple[float, float, float, dict[str, float]]:
    """What nbgrader's gradebook says of the submission: score, max score, points pending, per-cell scores."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        sub = gb.find_submission(assignment, student_id)
        scores: dict[str, float] = {}
        pending = 0.0
        for nb in sub.notebooks:
            for grade in nb.grades:
                scores[grade.name] = float(grade.score or 0.0)
                if grade.auto_score is None and grade.manual_score is None:
                    pending += float(grade.max_score)
        return float(sub.score), float(sub.max_score), pending, scores


class Worker:
    """A grading worker's own: its kernelspec folder, the sandbox's command line, and its zygote."""

    zygote: zygote.Zygote | None = None
    jupyter_path = Path()
    kernel_argv: list[str] = []

    @classmethod
    def start(cls, log_dir: str, run_dir: str, kernel_argv: list[str], modules: list[str], fork_kernels: bool) -> None:
        """A worker's set-up: its stderr to a log file, its own kernelspec folder, and its zygote starting."""
        import warnings

        cls.jupyter_path = Path(run_dir) / f"jupyter-{os.getpid()}"  # the kernelspec, rewritten per submission
        cls.kernel_argv = kernel_argv
        os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(cls.jupyter_path), os.environ.get("JUPYTER_PATH")) if p)
        # One thread per kernel: parallel jobs already use every core, and oversubscribed
        # BLAS / torch threads make a batch slower, not faster.
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        os.environ.setdefault("MKL_NUM_THREADS", "1")
        os.environ["PATH"] = course.nbgrader_env()["PATH"]
        warnings.filterwarnings("ignore")
        # a kernel's messages arrive here whole (zmq caps each part, not their number): past this the worker fails,
        # is replaced, and the submission that did it is graded again alone (the kernels set their own limit)
        resource.setrlimit(resource.RLIMIT_DATA, (WORKER_DATA_MB << 20, resource.getrlimit(resource.RLIMIT_DATA)[1]))
        log = open(Path(log_dir) / f"worker-{os.getpid()}.log", "ab", buffering=0)
        os.dup2(log.fileno(), 2)
        if fork_kernels:
            cls.zygote = zygote.Zygote(Path(run_dir) / f"zygote-{os.getpid()}.sock", modules)
            multiprocessing.util.Finalize(cls.zygote, cls.zygote.stop, exitpriority=10)  # when the worker exits

    @classmethod
    def kernel_spec_for(cls, kernel_dir: Path) -> None:
        """The sandbox kernel of one submission: its folder, and this worker's zygote when it is up."""
        socket_path = cls.zygote.socket_path if cls.zygote is not None and cls.zygote.ready() else None
        sandbox.write_kernelspec(cls.jupyter_path, sandbox.for_submission(cls.kernel_argv, kernel_dir, socket_path))


@contextlib.contextmanager
def watched_kernel(task: Task):
    """A fresh folder for the submission's kernel, its kernelspec, and a watchdog; the kernel and its children stopped after."""
    kernel_dir = sandbox.make_kernel_dir()  # its sockets and the grader's requests: short, fresh, outside the course copy
    Worker.kernel_spec_for(kernel_dir)
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


def _course_copy(task: Task, nb: nbformat.NotebookNode) -> Path:
    """The submission's own copy of the course directory, the submission in its submitted/ folder."""
    root = Path(task.workdir) / task.student_id
    shutil.copytree(task.assignment.course_dir, root, ignore=shutil.ignore_patterns("submitted", "autograded", "feedback"))
    target = root / "submitted" / task.student_id / task.assignment.name / f"{task.assignment.name}.ipynb"
    target.parent.mkdir(parents=True)
    nbformat.write(nb, target)
    return root


def _feedback_page(outcome: dict, root: Path, task: Task, page: Path) -> None:
    """The student's page, as nbgrader rendered it (output lines wrapped, a strict policy), or a page that says it failed."""
    rendered = root / "feedback" / task.student_id / task.assignment.name / f"{task.assignment.name}.html"
    if outcome.get("success") and rendered.exists():
        text = feedback.with_wrapped_output(rendered.read_text(encoding="utf-8"))
        page.write_text(safe_page.with_policy(text), encoding="utf-8")
    else:
        page.write_text(feedback.error_page(task.student_id, task.assignment.name, "feedback could not be rendered"),
                        encoding="utf-8")


def grade_one(task: Task) -> Result:
    """Grade one submission in its own copy of the course directory (runs in a worker)."""
    start, name, student = time.monotonic(), task.assignment.name, task.student_id
    result = Result(student, name, max_score=task.assignment.max_score)
    page = Path(task.workdir) / "feedback" / f"{student}.html"
    nb, problem = parse_submission(task.submission)
    if nb is None:
        return _failed(result, problem, page, start)
    root = _course_copy(task, nb)
    try:
        findings = pipeline.Findings()
        with watched_kernel(task) as watchdog:
            api = _api(root, task, findings, watchdog.kernel_dir, watchdog)
            outcome = api.autograde(name, student)  # sanitize, run, verdicts, nbgrader's scores in the gradebook
        if not outcome.get("success"):
            return _failed(result, watchdog.why() or _last_error(outcome), page, start)
        result.failures = findings.failures
        result.slowest_cell = findings.slowest_cell
        _feedback_page(api.generate_feedback(name, student), root, task, page)
        result.score, result.max_score, result.manual_points_pending, result.cells = _scores(root, name, student)
        stopped = findings.stopped or watchdog.why()
        if stopped:
            result.reason = stopped + ": the cells after that point were not graded"
    finally:
        shutil.rmtree(root, ignore_errors=True)
    result.seconds = time.monotonic() - start
    return result


def _failed(result: Result, reason: str, out_html: Path, start: float = 0.0) -> Result:
    """A zero with its reason, in the result and on the student's feedback page."""
    result.status, result.reason = "error", reason
    out_html.write_text(feedback.error_page(result.student_id, result.assignment, reason), encoding="utf-8")
    if start:
        result.seconds = time.monotonic() - start
    return result


#: nbgrader gives up on a whole notebook for these; the reason says what the student's code did.
STOPPED = [
    ("DeadKernelError", "the Python process running the notebook stopped (os._exit, a crash, or a limit: CPU time, "
                        "memory, processes) so the notebook could not be graded"),
    ("Timeout waiting for IOPub", "a cell kept running after its time limit and ignored the interrupt "
                                  "(KeyboardInterrupt caught), so the notebook could not be graded"),
    ("CellTimeoutError", "a cell ran past its time limit and did not stop, so the notebook could not be graded"),
]


def _last_error(outcome: dict) -> str:
    log = (outcome.get("log") or "") + (outcome.get("error") or "")
    for marker, reason in STOPPED:
        if marker in log:
            return reason
    text = (outcome.get("error") or outcome.get("log") or "unknown error").strip().splitlines()
    return "autograding failed: " + (one_line(text[-1]) if text else "unknown error")


#: set while grading: Jupyter, nbgrader and IPython read no configuration but the grader's own
CONFIG_VARIABLES = ("JUPYTER_NO_CONFIG", "JUPYTER_CONFIG_DIR", "JUPYTER_CONFIG_PATH", "JUPYTER_DATA_DIR", "IPYTHONDIR")


@contextlib.contextmanager
def grader_only_config(folder: Path):
    """Point Jupyter's, nbgrader's and IPython's configuration at empty folders of the grader's.

    A student's code could have written ``~/.jupyter/nbgrader_config.py`` or an IPython startup file
    in an earlier run; none of those is read. The course directory's ``nbgrader_config.py`` is the one
    the grader writes itself.
    """
    saved = {name: os.environ.get(name) for name in CONFIG_VARIABLES}
    for name in ("config", "data", "ipython"):
        (folder / name).mkdir(parents=True, exist_ok=True)
    os.environ.update(JUPYTER_NO_CONFIG="1", JUPYTER_CONFIG_DIR=str(folder / "config"),
                      JUPYTER_DATA_DIR=str(folder / "data"), IPYTHONDIR=str(folder / "ipython"))
    os.environ.pop("JUPYTER_CONFIG_PATH", None)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


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
                                   initializer=Worker.start, initargs=self.initargs)

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

        client = cluster.connect(scheduler, worker_wait)  # before OUT is touched: an unreachable scheduler leaves nothing there
    out.mkdir(parents=True, exist_ok=True)
    (out / "feedback").mkdir(exist_ok=True)
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="course-grade-") as tmp, grader_only_config(Path(tmp) / "settings"), \
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
                except Exception as err:  # a crashed worker costs one grade, never the batch
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
            pool = cluster.ClusterPool(client, cluster.GraderPlugin(cluster.pack(template), limits, modules,
                                                                    fork_kernels, Worker, grader_only_config))
            progress.note(f"grading on the Dask cluster at {scheduler}; dashboard: {cluster.dashboard(client) or 'none'}")
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
            writer.writerow({k: (f"{row[k]:g}" if isinstance(row[k], float) else csv_cell(row[k])) for k in CSV_COLUMNS})
