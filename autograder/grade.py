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
they return, so nothing the student's code does in its kernel can change a verdict. OUT also receives ``results.json``: per-cell scores and, for each
failing graded cell, the first line of the verdict the student sees.
"""
from __future__ import annotations

import contextlib
import csv
import json
import multiprocessing
import multiprocessing.util
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat
from nbgrader.converters import Autograde
from nbgrader.preprocessors import Execute

from . import cell_repair, course, feedback, notebook_source, sandbox, verdict, zygote
from .sandbox import Limits

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
        nb = nbformat.reads(json.dumps(data), as_version=4)
        nbformat.validate(nb)
    except Exception as err:  # nbformat raises several kinds
        return None, f"the notebook is malformed ({type(err).__name__}: {str(err).splitlines()[0][:200]})"
    return nb, ""


def _api(root: Path, release_nb: nbformat.NotebookNode, source_nb: nbformat.NotebookNode, isolated: bool = False,
         kernel_dir: Path | None = None):
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    config.CourseDirectory.root = str(root)  # a copy of the template: same settings, its own folder
    config.Autograde.permissions = 644  # nbgrader's 444 would stop us adding notes unless we are root
    config.Autograde.autograde_preprocessors = [
        verdict.TrustedExecute if p is Execute else p for p in Autograde.class_traits()["autograde_preprocessors"].default()]
    config.TrustedExecute.test_sources = verdict.test_sources(source_nb)
    config.TrustedExecute.checks_module = verdict.checks_module_of(release_nb)
    config.TrustedExecute.exchange_dir = str(kernel_dir or "")
    for section, values in sandbox.kernel_config(isolated, kernel_dir or root).items():
        for key, value in values.items():
            setattr(getattr(config, section), key, value)
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


_zygote: zygote.Zygote | None = None  # this worker's


def _start_worker(log_dir: str, jupyter_path: str, run_dir: str, modules: list[str]) -> None:
    """A worker's set-up: its stderr to a log file, the sandbox kernel's spec, and its zygote starting."""
    import warnings

    global _zygote
    if jupyter_path:  # where the sandbox kernel's spec is
        os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in (jupyter_path, os.environ.get("JUPYTER_PATH")) if p)
    # One thread per kernel: parallel jobs already use every core, and oversubscribed
    # BLAS / torch threads make a batch slower, not faster.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("MKL_NUM_THREADS", "1")
    os.environ["PATH"] = course.nbgrader_env()["PATH"]
    warnings.filterwarnings("ignore")
    log = open(Path(log_dir) / f"worker-{os.getpid()}.log", "ab", buffering=0)  # noqa: SIM115 (kept open)
    os.dup2(log.fileno(), 2)
    if run_dir:
        _zygote = zygote.Zygote(Path(run_dir) / f"zygote-{os.getpid()}.sock", modules)
        multiprocessing.util.Finalize(_zygote, _zygote.stop, exitpriority=10)  # when the worker exits


def _use_zygote() -> None:
    """Kernels of this worker fork from its zygote when it is up; else they start the plain way."""
    if _zygote is not None and _zygote.ready():
        os.environ[zygote.SOCKET_VARIABLE] = str(_zygote.socket_path)
    else:
        os.environ.pop(zygote.SOCKET_VARIABLE, None)


def _folder_bytes(folder: Path) -> int:
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                continue
    return total


class Watchdog(threading.Thread):
    """Stops a submission's kernel when it runs past its wall time or writes more than its disk allowance."""

    def __init__(self, wall_seconds: float, disk_mb: int, kernel_dir: Path, stop):
        super().__init__(daemon=True)
        self.deadline = time.monotonic() + wall_seconds
        self.disk_bytes, self.kernel_dir, self.stop_kernel = disk_mb << 20, kernel_dir, stop
        self.done = threading.Event()
        self.reason = ""

    def run(self) -> None:
        while not self.done.wait(0.5):
            if time.monotonic() > self.deadline:
                self.reason = "wall"
            elif _folder_bytes(self.kernel_dir) > self.disk_bytes:
                self.reason = "disk"
            if self.reason:
                self.stop_kernel()
                return


def grade_one(template: str, workdir: str, assignment: str, student_id: str, notebook: str,
              wall_seconds: float = 600, isolated: bool = False, disk_mb: int = 512) -> Result:
    """Grade one submission in its own copy of the course directory (runs in a worker)."""
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
    notes = cell_repair.repair(nb, release_nb)
    # The kernel's own folder (its connection file, sockets, HOME): short, fresh, outside the course copy.
    kernel_dir = Path(tempfile.mkdtemp(prefix="cgk-"))
    shutil.copytree(template, root, ignore=shutil.ignore_patterns("submitted", "autograded", "feedback"))
    target = root / "submitted" / student_id / assignment / f"{assignment}.ipynb"
    target.parent.mkdir(parents=True)
    nbformat.write(nb, target)
    os.environ["JUPYTER_RUNTIME_DIR"] = os.environ[sandbox.KERNEL_DIR_VARIABLE] = str(kernel_dir)
    os.environ[sandbox.OUTPUT_VARIABLE] = "1"
    _use_zygote()
    pid_dir = Path(workdir).parent / "pids"
    watchdog = Watchdog(wall_seconds, disk_mb, kernel_dir, lambda: sandbox.stop_kernels(pid_dir, kernel_dir))
    watchdog.start()
    try:
        source_nb = nbformat.read(Path(template) / "source" / assignment / f"{assignment}.ipynb", as_version=4)
        api = _api(root, release_nb, source_nb, isolated, kernel_dir)
        outcome = api.autograde(assignment, student_id)
    finally:
        watchdog.done.set()
        sandbox.stop_kernels(pid_dir, kernel_dir)  # children the student's code left behind
        shutil.rmtree(kernel_dir, ignore_errors=True)
    stopped = {"wall": f"the notebook ran longer than the {wall_seconds:g} s allowed for a whole submission",
               "disk": f"the notebook wrote more than the {disk_mb} MB of files allowed"}.get(watchdog.reason, "")
    if not outcome.get("success"):
        return _failed(result, stopped or _last_error(outcome), out_html, start)
    autograded = root / "autograded" / student_id / assignment / f"{assignment}.ipynb"
    feedback.sanitize(autograded, release_nb, notes)
    result.failures = feedback.failures(autograded)
    fb = api.generate_feedback(assignment, student_id)
    html_path = root / "feedback" / student_id / assignment / f"{assignment}.html"
    if fb.get("success") and html_path.exists():
        out_html.write_text(feedback.with_wrapped_output(html_path.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        out_html.write_text(feedback.error_page(student_id, assignment, "feedback could not be rendered"), encoding="utf-8")
    result.score, result.max_score, result.manual_points_pending, result.cells = _scores(root, assignment, student_id)
    if stopped:
        result.reason = stopped + ": the cells after that point were not graded"
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
    return "autograding failed: " + (text[-1][:300] if text else "unknown error")


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


def grade(
    assignment: str, submissions: Path, out: Path, *, jobs: int | None = None, timeout: int | None = None,
    limits: Limits | None = None, fork_kernels: bool = True,
) -> list[Result]:
    """Grade every submission; write OUT/grades.csv, OUT/results.json and OUT/feedback/<student_id>.html.

    With ``fork_kernels`` each worker's kernels fork from its zygote (:mod:`autograder.zygote`),
    which has imported what the notebook imports; without, each kernel starts as a new Python.
    """
    limits = limits or Limits(cell_timeout=timeout)
    assignment = course.resolve_assignment(assignment)
    found = find_submissions(submissions, assignment)
    out.mkdir(parents=True, exist_ok=True)
    (out / "feedback").mkdir(exist_ok=True)
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="course-grade-") as tmp, grader_only_config(Path(tmp) / "settings"):
        tmp_path = Path(tmp)
        template = tmp_path / "template"
        course.make_course_dir(template, assignment, limits.cell_timeout)
        release_nb = nbformat.read(template / "release" / assignment / f"{assignment}.ipynb", as_version=4)
        preload = zygote.imports_of(release_nb)
        work = tmp_path / "work"
        (work / "feedback").mkdir(parents=True)
        (tmp_path / "pids").mkdir()
        isolated = sandbox.install_kernel(tmp_path / "jupyter", limits, tmp_path / "pids")
        if os.geteuid() == 0 and sandbox.pids_cgroup_problem():  # RLIMIT_NPROC does not bind root
            print(f"note: --processes is not enforced: the grader runs as root and "
                  f"{sandbox.pids_cgroup_problem()}", file=sys.stderr)
        tasks = []
        for student_id, path in found.items():
            if not STUDENT_ID.match(student_id):
                results.append(Result(student_id, assignment, status="error",
                                      reason="the file name is not a usable student id (letters, digits, . _ - @)"))
                continue
            tasks.append((str(template), str(work), assignment, student_id, str(path), limits.wall_seconds, isolated,
                          limits.disk_mb))
        jobs = max(1, min(jobs or os.cpu_count() or 1, len(tasks) or 1))
        with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                                 initializer=_start_worker,
                                 initargs=(str(work), str(tmp_path / "jupyter"), str(tmp_path) if fork_kernels else "",
                                           preload)) as pool:
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
