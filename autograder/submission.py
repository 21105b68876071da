"""One submission graded, start to end, in memory: :func:`grade_one` (it runs in a grading worker).

A submission travels as a :class:`Task` (its bytes, and the batch's :class:`Assignment`: the release, the test
cells' source, the checks module) and comes back as a :class:`Result`, its feedback page written to the task's
folder. :func:`grade_one` takes it through its route in order:

1. :func:`parse_submission`: the bytes parsed once (a file that is not a gradable notebook: a zero with why);
2. :func:`prepare`: every graded cell as the release has it (:mod:`autograder.cell_repair`), the read-only
   cells' source restored, the demo cells skipped, the outputs cleared;
3. the trusted execute (:mod:`autograder.trusted_execute`, made by :func:`trusted_execute`) runs it in the
   sandboxed kernel (:func:`watched_kernel`), the test cells judged in the grader (:mod:`autograder.verdict`);
   a kernel that could not run it at all is caught here and said in one sentence (:func:`why_not_run`);
4. :func:`scores`: every graded cell scored by nbgrader's own ``determine_grade``;
5. the page rendered with nbgrader's feedback template (:mod:`autograder.feedback_page`).

nbgrader is a library here: its cell rules, its preprocessors that need no gradebook (``ClearOutput``,
``LimitOutput``, ``CheckCellMetadata``), ``determine_grade`` and its feedback template. No course directory,
no gradebook and no notebook file is written on the way: the submission comes in as bytes, the result and its
page go out.
"""
from __future__ import annotations

import contextlib
import json
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbgrader.preprocessors import CheckCellMetadata, ClearOutput, LimitOutput
from nbgrader.utils import determine_grade, is_grade, is_locked
from traitlets.config import Config

from course_lib.grading.plain_text import one_line

from . import cell_repair, cells, feedback, feedback_page, notebook_source, safe_page, sandbox, verdict, worker
from .notebook_source import is_demo
from .sandbox import Limits
from .watchdog import Watchdog

MAX_NOTEBOOK_MB = 32   # a submitted notebook, outputs included
MAX_CELLS = 1000       # the course's notebooks have fewer than 150
#: without calibration: the whole submission's wall time, and the calibration's own limit
DEFAULT_WALL_SECONDS = 600
DEMO_SKIPPED = ("# This demo cell is skipped while grading: nothing graded depends on it. "
                "It runs in full in your notebook.")
#: what a cell may print onto the feedback page, in lines (nbgrader's LimitOutput)
PAGE_LINES, PAGE_TRACEBACK_LINES = 200, 40


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
    answers: dict[str, str] = field(default_factory=dict)   # answer cell -> its source as submitted (for the report)
    to_mark: list[str] = field(default_factory=list)        # graded cells that wait for a person's marks
    unanswered: list[str] = field(default_factory=list)     # answer cells left as released (nbgrader: "No response.")
    autograded: str = ""  # the graded notebook as nbgrader's autograde leaves it (JSON), when the task asks for it
    seconds: float = 0.0
    slowest_cell: float = 0.0  # seconds of its slowest cell (the batch's calibration reads the solution's)


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
    keep_notebook: bool = False  # the result carries the graded notebook (for the instructor's course directory)


def grade_one(task: Task) -> Result:
    """Grade one submission, start to end, in memory (runs in a worker): the result; its page in WORKDIR/feedback/."""
    start, assignment, student = time.monotonic(), task.assignment, task.student_id
    result = Result(student, assignment.name, max_score=assignment.max_score)
    page = Path(task.workdir) / "feedback" / f"{student}.html"
    nb, problem = parse_submission(task.submission)  # 1. the submission's bytes, parsed once
    if nb is None:
        return failed(result, problem, page, start)
    notes = prepare(nb, assignment.release)  # 2-3. the cells as released, the demos skipped
    result.answers = cells.answers(nb)
    timeout = task.limits.cell_timeout or assignment.cell_timeout
    with watched_kernel(task) as watchdog:  # 4. the trusted execute, in the sandboxed kernel
        execute = trusted_execute(assignment, watchdog.kernel_dir, task.isolated, timeout, watchdog)
        try:
            execute.preprocess(nb, {})
        except Exception as err:  # noqa: BLE001 (a kernel that never ran the notebook: a zero with the reason)
            return failed(result, watchdog.why() or why_not_run(err), page, start)
    limit_outputs(nb)
    result.failures = feedback.failures(nb)
    graded = scores(nb)  # 5. nbgrader's determine_grade, cell by cell
    result.cells = {gid: score or 0.0 for gid, score in graded.cells.items()}
    result.to_mark = [gid for gid, score in graded.cells.items() if score is None]
    result.unanswered = [cells.grade_id(c) for c in nb.cells if feedback_page.unanswered(c)]
    if task.keep_notebook:  # formgrader shows it to the instructor: its outputs cleaned as the page's are
        safe_page.clean_outputs(nb)
        nb.metadata["autograder"] = {"notes": notes}  # for a page made again with the hand marks
        result.autograded = nbformat.writes(nb)
    result.score, result.max_score, result.manual_points_pending = graded.total, graded.max_score, graded.pending
    result.slowest_cell = execute.slowest_cell
    page.write_text(feedback_page.render(nb, graded, assignment.released_tests, notes, student, assignment.name),
                    encoding="utf-8")  # 6. nbgrader's feedback template
    stopped = watchdog.why() or execute.stop_reason  # the limit the watchdog saw crossed, else what the run saw
    if stopped:
        result.reason = stopped + ": the cells after that point were not graded"
    result.seconds = time.monotonic() - start
    return result  # 7.


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


def prepare(nb: NotebookNode, release: NotebookNode) -> list[str]:
    """Make a parsed submission gradable, in place; returns the grader's notes for the student (one sentence each)."""
    skip_demos(nb, release)
    notes = cell_repair.repair(nb, release)
    _restore_read_only(nb, release)
    nb.metadata["kernelspec"] = release.metadata.get("kernelspec", {})
    ClearOutput().preprocess(nb, {})
    CheckCellMetadata().preprocess(nb, {})
    return notes


def skip_demos(nb: NotebookNode, release: NotebookNode) -> int:
    """Blank the demo cells (training runs, plots, widgets) of a submission; returns how many."""
    demo_ids = {c.get("id") for c in release.cells if is_demo(c)}
    skipped = 0
    for cell in nb.cells:
        if is_demo(cell, demo_ids):
            cell.source, cell.outputs = DEMO_SKIPPED, []
            skipped += 1
    return skipped


def _restore_read_only(nb: NotebookNode, release: NotebookNode) -> None:
    """A read-only cell's source as released, whatever the submission says (nbgrader's OverwriteCells does this)."""
    released = {cells.grade_id(c): c.source for c in release.cells if is_locked(c)}
    for cell in nb.cells:
        if is_locked(cell) and cells.grade_id(cell) in released:
            cell.source = released[cells.grade_id(cell)]


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


def trusted_execute(assignment, kernel_dir, isolated: bool, timeout: int, watchdog):
    """The grader's executor of one submission: its kernel the sandbox's, in ``kernel_dir``, watched by ``watchdog``.

    ``assignment`` is the batch's :class:`Assignment` (test cells' source, checks module).
    """
    from .trusted_execute import TrustedExecute  # nbclient and zmq: only where a kernel runs

    config = Config()
    for section, values in sandbox.kernel_config(isolated, kernel_dir).items():
        for key, value in values.items():
            setattr(config[section], key, value)
    return TrustedExecute(config=config, watchdog=watchdog, test_sources=assignment.test_sources,
                          checks_module=assignment.checks_module, exchange_dir=str(kernel_dir), timeout=timeout,
                          kernel_name=sandbox.KERNEL_NAME, interrupt_on_timeout=True, allow_errors=True,
                          extra_arguments=["--HistoryManager.enabled=False"])


def limit_outputs(nb: NotebookNode) -> None:
    """What a cell printed, cut to what a page shows (nbgrader's LimitOutput, with the course's limits)."""
    LimitOutput(max_lines=PAGE_LINES, max_traceback=PAGE_TRACEBACK_LINES).preprocess(nb, {})


@dataclass
class Scores:
    """A graded notebook's points, as nbgrader's gradebook would hold them after autograding."""

    cells: dict[str, float | None] = field(default_factory=dict)  # grade id -> score; None: to be marked by hand
    points: dict[str, float] = field(default_factory=dict)        # grade id -> the cell's points
    comments: dict[str, str] = field(default_factory=dict)        # grade id -> the instructor's comment

    @property
    def total(self) -> float:
        return sum(score or 0.0 for score in self.cells.values())

    @property
    def max_score(self) -> float:
        return sum(self.points.values())

    @property
    def pending(self) -> float:
        """Points of the written answers that wait for a person's marks."""
        return sum(self.points[gid] for gid, score in self.cells.items() if score is None)


def scores(nb: NotebookNode) -> Scores:
    """Every graded cell of an executed submission scored by nbgrader's ``determine_grade``."""
    found = Scores()
    for cell in nb.cells:
        if is_grade(cell):
            score, points = determine_grade(cell)
            gid = cells.grade_id(cell)
            found.cells[gid], found.points[gid] = score, points
    return found


def failed(result: Result, reason: str, out_html: Path, start: float = 0.0) -> Result:
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
