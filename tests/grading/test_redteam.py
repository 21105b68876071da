"""Hostile and broken submissions of notebook 05, graded in one batch with two honest ones.

Every submission must end with the right score (zero or partial) and a reason the student can
read in their feedback; the batch must finish; the honest submissions must get the grades their
cells are worth; nothing outside the grader's scratch space may change; no hidden test may
appear in any feedback; and grading again must give the same grades (checked on the ten cases most
likely to vary, with both honest ones: grading the whole batch twice would double the suite's time).

The batch runs with smaller limits than the defaults (cell timeout 8 s, memory 2 GB, whole
notebook 30 s, output 32 MB) so that the suite stays within a few minutes on 2 cores.
"""
from __future__ import annotations

import copy
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from autograder.feedback import hidden_lines
from autograder.cgroups import problem as cgroup_problem
from autograder.sandbox import isolation_problem
from notebook_runner import REPO, grade_ids
from running_processes import running, with_environment

pytestmark = pytest.mark.pipeline
NAME = "05_self_attention"
SOURCE = nbformat.read(REPO / "solutions" / f"{NAME}.ipynb", as_version=4)
RELEASE = nbformat.read(REPO / "notebooks" / f"{NAME}.ipynb", as_version=4)
SOLUTION = {gid: c.source for gid, c in grade_ids(SOURCE).items() if c.metadata["nbgrader"].get("solution")}
POINTS = {gid: float(c.metadata["nbgrader"]["points"]) for gid, c in grade_ids(SOURCE).items()
          if c.metadata["nbgrader"].get("grade") and c.cell_type == "code"}
FULL = sum(POINTS.values())  # automatic points (the written answer is graded by hand)
STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
#: output allowance 32 MB (default 64; the smallest at which zmq itself refuses a part past it): the same
#: refusal for half the bytes, so that a loaded CI machine refuses it well within the 8 s a cell gets
LIMITS = ["--timeout", "8", "--wall-seconds", "30", "--memory-mb", "2048", "--processes", "64", "--output-mb", "32"]
SENTINEL = "course-redteam-sentinel.txt"
#: Without user namespaces the kernel keeps the network and the grading user's write access (README)
NOT_ISOLATED = isolation_problem()
NEEDS_ISOLATION = {"network_request", "writes_outside", "reads_and_writes_grader_files"}
#: As root the kernel runs as a uid of its own (RLIMIT_NPROC counts its processes) in a cgroup with pids.max (README)
PROCESS_LIMIT = True
#: in the environment of the grader, its kernels and all they start: what is still running afterwards has it
MARKER = f"COURSE_REDTEAM_BATCH={os.getpid()}"
#: the grader's temporary folders for this file's batches (TMPDIR): each kernel's folder, each zygote's socket
GRADER_TMP = Path(tempfile.mkdtemp(prefix="rt-"))


@dataclass
class Case:
    name: str
    build: object          # answers dict, or a function (sentinel_path) -> notebook text / NotebookNode
    score: float           # expected score
    reason: str            # text that must appear in the feedback (regex)


def notebook(answers: dict[str, str]) -> nbformat.NotebookNode:
    nb = copy.deepcopy(RELEASE)
    for gid, cell in grade_ids(nb).items():
        if gid in answers:
            cell.source = answers[gid]
    return nb


def with_cells(edit):
    """A submission made by editing the cells of the full solution."""
    def build(_sentinel):
        nb = notebook(SOLUTION)
        edit(nb)
        return nb
    return build


def _delete_test_cell(nb):
    nb.cells = [c for c in nb.cells if c.get("id") != "check_softmax"]


def _edit_test_cell(nb):
    cell = grade_ids(nb)["check_attention_scores"]
    cell.source = 'print("✔ attention_scores: correct.")'
    grade_ids(nb)["attention_scores"].source = "def attention_scores(Q, K):\n    return Q @ K.transpose(-2, -1)\n"


def _edit_read_only_cells(nb):
    grade_ids(nb)["setup"].source += "\nchecks = None\n"
    cell = grade_ids(nb)["check_brown_dog"]  # a test cell turned into markdown
    cell.cell_type = "markdown"
    cell.pop("outputs", None)
    cell.pop("execution_count", None)


def _reorder_cells(nb):
    cells = nb.cells
    i = next(k for k, c in enumerate(cells) if c.get("id") == "check_causal_mask")
    j = next(k for k, c in enumerate(cells) if c.get("id") == "causal_mask")
    cells[i], cells[j] = cells[j], cells[i]  # the check now runs before the answer is defined


def _duplicate_ids(nb):
    nb.cells.append(copy.deepcopy(grade_ids(nb)["softmax"]))


SOL = SOLUTION


def first(code: str) -> dict[str, str]:
    """The solution, with ``code`` run after the first answer (dot_score is defined by then): its output runs before
    any hidden test case, so the feedback page shows it (nothing the kernel prints after one reaches the page)."""
    return {**SOL, "dot_score": SOL["dot_score"] + "\n" + code}


def earned_before(answer: str) -> float:
    """The automatic points of the test cells above an answer cell: what a submission keeps when its kernel stops there."""
    total = 0.0
    for cell in SOURCE.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid == answer:
            return total
        total += POINTS.get(gid, 0.0)
    raise KeyError(answer)
BAD_SCORES = "def attention_scores(Q, K):\n    return Q @ K.transpose(-2, -1)\n"  # no sqrt(d_k)

CASES = [
    # honest submissions
    Case("good_solution", SOL, FULL, ""),
    Case("good_partial", {**SOL, "self_attention": STUB, "causal_mask": STUB},
         FULL - POINTS["check_self_attention"] - POINTS["check_causal_mask"] - POINTS["check_space_invader"],
         "not implemented|not defined yet"),
    # runaway code
    Case("infinite_loop", {**SOL, "brown_dog": "while True:\n    pass\n"}, FULL - 1, "time limit"),
    Case("ignores_interrupt", {**SOL, "brown_dog": "import time\nwhile True:\n    try:\n        time.sleep(0.2)\n"
                                                    "    except KeyboardInterrupt:\n        pass\n"},
         earned_before("brown_dog"), "ignored the interrupt|longer than"),
    Case("memory_bomb", first("def hog():\n    kept = []\n    while True:\n        kept.append(bytearray(200 << 20))\n"
                              "try:\n    hog()\nexcept MemoryError:\n    print('MemoryError in the cell')\n"),
         FULL, "MemoryError in the cell"),
    Case("fork_bomb", first(
        "import os, time\nkids = 0\nfor _ in range(200):\n    try:\n        pid = os.fork()\n"
        "    except OSError as err:\n        print('fork refused:', err)\n        break\n"
        "    if pid == 0:\n        time.sleep(1)\n        os._exit(0)\n    kids += 1\n"
        "print('children:', kids)\nfor _ in range(kids):\n    os.wait()  # the later cells get their processes back\n"),
         FULL, r"fork refused: \[Errno 11\] Resource temporarily unavailable" if PROCESS_LIMIT else "processes|fork refused"),
    Case("process_bomb", first(  # each child in its own session: out of the kernel's process group
        "import subprocess\nkids = []\ntry:\n    for _ in range(500):\n"
        "        kids.append(subprocess.Popen(['sleep', '30'], start_new_session=True,\n"
        "                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))\n"
        "except OSError as err:\n    print('refused:', repr(err))\n"
        "print('started:', len(kids))\nfor kid in kids:\n    kid.kill()\n    kid.wait()\n"),
         FULL, r"BlockingIOError\(11, 'Resource temporarily unavailable'\)" if PROCESS_LIMIT else "started: 500"),
    # leaving the kernel
    Case("sys_exit", first("import sys\nsys.exit(0)\n"), FULL, "SystemExit"),
    Case("os_exit", {**SOL, "causal_mask": "import os\nos._exit(0)\n"}, earned_before("causal_mask"),
         "process running the notebook stopped"),
    Case("raises_interrupt_and_exit", {**SOL, "softmax": "raise KeyboardInterrupt\n",
                                       "self_attention": "raise SystemExit('bye')\n"},
         FULL - POINTS["check_softmax"] - POINTS["check_space_invader"] - POINTS["check_brown_dog"]
         - POINTS["check_self_attention"], "KeyboardInterrupt"),
    Case("patch_checker", {**SOL, "attention_scores": BAD_SCORES + (
        "import course_lib.checks.self_attention as _c\n"
        "_c.check_attention_scores = lambda *a, **k: print('✔ attention_scores: correct.')\n")},
         FULL - POINTS["check_attention_scores"], "not divided"),  # the check runs in the grader
    Case("patch_inside_answer", {**SOL, "attention_scores": (
        "def attention_scores(Q, K):\n    import torch\n    torch.allclose = lambda *a, **k: True\n"
        "    return Q @ K.transpose(-2, -1)\n")},
         FULL - POINTS["check_attention_scores"], "replaced what the checks rely on|not divided"),
    Case("patch_torch_allclose", {**SOL, "softmax": (
        "torch.allclose = lambda *a, **k: True\ntorch.Tensor.allclose = lambda *a, **k: True\n"
        "def softmax(x, dim=-1):\n    return x\n")},
         FULL - POINTS["check_softmax"] - POINTS["check_space_invader"] - POINTS["check_brown_dog"], "softmax"),
    Case("patch_builtins_and_numpy", {**SOL, "causal_mask": (
        "import builtins, numpy.testing, course_lib.grading.answers\n"
        "builtins.AssertionError = type('AssertionError', (Exception,), {})\n"
        "course_lib.grading.bool = lambda *a: True  # shadows the builtin inside the checker\n"
        "numpy.testing.assert_allclose = lambda *a, **k: None\n"
        "def causal_mask(n):\n    return torch.ones(n, n, dtype=torch.bool)\n")},
         FULL - POINTS["check_causal_mask"] - POINTS["check_space_invader"], "causal_mask"),
    Case("patch_run_cell", {**SOL, "table_scores": SOL["table_scores"] + (
        "\nimport IPython\n_ip = get_ipython()\n_orig = _ip.run_cell\n"
        "_ip.run_cell = lambda raw_cell, *a, **k: _orig('pass', *a, **k)\n")},
         0, "kept the grader's call from replying"),  # every cell after it, the grader's calls too, runs `pass`:
    # the score functions' visible checks come before it, but every check's hidden cases run after the last cell
    Case("calls_reference", {**SOL, "self_attention": (
        "from course_lib.attention import scaled_dot_product_attention\n"
        "def self_attention(Q, K, V, mask=None):\n    return scaled_dot_product_attention(Q, K, V, mask)\n")},
         FULL - POINTS["check_self_attention"], "switched off"),
    Case("reads_and_writes_grader_files", first(
        "import glob, sqlite3\nfor db in glob.glob('/tmp/course-grade-*/**/gradebook.db', recursive=True) + "
        "glob.glob('../../../gradebook.db'):\n"
        "    sqlite3.connect(db).execute('update grade set auto_score = 100')\n"
        "import glob, json\npaths = glob.glob('/tmp/course-grade-*/**/*.ipynb', recursive=True) + "
        "glob.glob(%r + '/solutions/*.ipynb') + glob.glob('/tmp/course-grade-*/**/gradebook.db', recursive=True)\n"
        "print('found:', paths)\nfor p in paths:\n    print(open(p, errors='replace').read())\n" % str(REPO)),
         FULL, "found: \\[\\]"),
    Case("prints_fake_grade", {**SOL, "softmax": (
        "print('✔ softmax: correct.')\nprint('Score: 17 / 17')\n"
        "def softmax(x, dim=-1):\n    return x\n")},
         FULL - POINTS["check_softmax"] - POINTS["check_space_invader"] - POINTS["check_brown_dog"], "softmax"),
    Case("network_request", first(
        "import socket\ntry:\n    socket.create_connection(('1.1.1.1', 80), timeout=3)\n"
        "except OSError as err:\n    print('no connection:', repr(err))\nelse:\n    print('connected')\n"),
         FULL, "unreachable|OSError|timed out"),
    Case("writes_outside", lambda sentinel: notebook(first(
        f"for path in [{str(sentinel)!r}]"
        + ("" if NOT_ISOLATED else f" + [{str(REPO / 'written_by_student.txt')!r}]")
        + ":\n    try:\n        open(path, 'w').write('changed')\n    except OSError as err:\n        print(repr(err))\n")),
         FULL, "Read-only file system|Permission|No such file"),
    # hidden cases run after the last cell, against the functions as they stood at their test cell
    Case("redefines_later", {**SOL, "brown_dog": SOL["brown_dog"] + "\ndef dot_score(Q, K):\n    return Q\n"}, FULL, ""),
    Case("deleted_test_cell", with_cells(_delete_test_cell), FULL, "grader put it back"),
    Case("edited_test_cell", with_cells(_edit_test_cell), FULL - POINTS["check_attention_scores"], "not divided"),
    Case("edited_read_only_cells", with_cells(_edit_read_only_cells), FULL, ""),  # nbgrader restores them
    Case("reordered_cells", with_cells(_reorder_cells), None, "causal_mask"),
    Case("duplicate_cell_ids", with_cells(_duplicate_ids), FULL, "only the first one is graded"),
    Case("malformed_json", lambda _s: '{"cells": [', 0, "invalid JSON"),
    Case("nbformat_3", lambda _s: json.dumps({"nbformat": 3, "nbformat_minor": 0, "worksheets": [], "metadata": {}}),
         0, "unsupported notebook format 3"),
    Case("empty_file", lambda _s: "", 0, "empty"),
    Case("huge_output", {**SOL, "table_z": SOL["table_z"] + (
        "\nimport sys\nline = 'x' * 999 + '\\n'\nfor _ in range(4_000):\n    sys.stdout.write(line)\n")},
         FULL, "output dropped by the grader"),
    Case("output_past_allowance", {**SOL, "table_z": SOL["table_z"] + "\nimport sys\nsys.stdout.write('x' * (34 << 20))\n"},
         earned_before("table_z"), "message it refused: one larger than the 32 MB of output allowed"),
]


#: graded a second time to check that grades do not change (a subset: the whole batch twice is over budget)
AGAIN = ["good_solution", "good_partial", "infinite_loop", "memory_bomb", "os_exit", "patch_inside_answer",
         "patch_run_cell", "deleted_test_cell"]


def write_batch(folder: Path, sentinel: Path, cases=CASES) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for case in cases:
        made = case.build(sentinel) if callable(case.build) else notebook(case.build)
        path = folder / f"{case.name}.ipynb"
        if isinstance(made, str):
            path.write_text(made, encoding="utf-8")
        else:
            path.write_text(json.dumps(made, indent=1), encoding="utf-8")


def run_grade(subs: Path, out: Path, jobs: int = 2) -> dict:
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade", NAME, str(subs), "--out", str(out),
                           "--jobs", str(jobs), *LIMITS], capture_output=True, text=True, timeout=900,
                          env={**os.environ, MARKER.split("=")[0]: MARKER.split("=")[1], "TMPDIR": str(GRADER_TMP)})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return {r["student_id"]: r for r in json.loads((out / "results.json").read_text())}


def feedback_text(out: Path, student: str) -> str:
    raw = (out / "feedback" / f"{student}.html").read_text(encoding="utf-8")
    return html.unescape(re.sub(r"<[^>]+>", "", raw))


def git_status() -> set[str]:
    """The repository's status where grading (or a student's kernel) could write: the top level,
    notebooks/, solutions/ and autograder/ (course_lib and tests may change under other work meanwhile)."""
    out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--ignored"], cwd=REPO,
                         capture_output=True, text=True).stdout
    lines = set()
    for line in out.splitlines():
        path = line[3:]
        if "__pycache__" in path or path.endswith(".py"):
            continue
        if "/" not in path.rstrip("/") or path.startswith(("notebooks/", "solutions/", "autograder/")):
            lines.add(line)
    return lines


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("redteam")
    sentinel = tmp / SENTINEL
    sentinel.write_text("untouched", encoding="utf-8")
    before = git_status()
    write_batch(tmp / "subs", sentinel)
    first = run_grade(tmp / "subs", tmp / "out1")
    left = still_running()
    again = tmp / "again"  # a second grading of the cases most likely to vary (time limits, guards, kills)
    again.mkdir()
    for name in AGAIN:
        (again / f"{name}.ipynb").write_bytes((tmp / "subs" / f"{name}.ipynb").read_bytes())
    second = run_grade(again, tmp / "out2")
    yield dict(first=first, second=second, out=tmp / "out1", sentinel=sentinel,
               before=before, after=git_status(), left=left + still_running())
    shutil.rmtree(GRADER_TMP, ignore_errors=True)


def _sandboxed_processes() -> dict[str, str]:
    """pid -> command line of every process in another PID namespace than this one (a kernel's, isolated)."""
    ours = os.readlink("/proc/self/ns/pid")
    return {str(pid): command for pid, command in running(lambda entry: os.readlink(entry / "ns" / "pid") != ours).items()}


BEFORE = _sandboxed_processes()


def _parent(pid: str) -> str | None:
    """The pid of the process's parent; None once the process is gone."""
    try:
        status = (Path("/proc") / pid / "status").read_text()
    except OSError:
        return None
    return next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:"))


def _started_by_another_worker(pid: str) -> bool:
    """Whether one of the process's ancestors belongs to another pytest-xdist worker: a grading that a test
    file beside this one runs at the same time (``make test`` runs two workers), not a process of this batch."""
    ours = os.environ.get("PYTEST_XDIST_WORKER")
    while pid not in ("0", "1"):
        parent = _parent(pid)
        if parent is None:
            return False
        try:
            environ = (Path("/proc") / pid / "environ").read_bytes().split(b"\0")
        except OSError:  # a sandboxed process's environment may be closed to us: its ancestors still tell
            environ = []
        worker = next((v[len(b"PYTEST_XDIST_WORKER="):].decode() for v in environ
                       if v.startswith(b"PYTEST_XDIST_WORKER=")), None)
        if worker is not None and worker != ours:
            return True
        pid = parent
    return False


def _parents(pid: str) -> str:
    """The process's ancestors as 'pid command' (for the failure message: whose process is it)."""
    chain = []
    while pid not in ("0", "1") and len(chain) < 8:
        pid = _parent(pid)
        if pid is None:
            break
        try:
            command = (Path("/proc") / pid / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            break
        chain.append(f"{pid} {command[:60]}")
    return " <- ".join(chain) or "none"


def _another_gradings(command: str) -> bool:
    """Whether a command line names a grader's temporary folder (a kernel's folder, a zygote's socket) that is
    not under this file's :data:`GRADER_TMP`: a kernel of a grading that another test runs at the same time."""
    return re.search(r"/(cgk-|course-grade-)", command) is not None and str(GRADER_TMP) not in command


def still_running(grace_s: float = 3.0) -> list[str]:
    """Processes started by a grading of this batch that still run ``grace_s`` seconds after it ended.

    The grace: a process of another worker's grading that is ending as this one is looked at (its ancestors
    gone before they could be traced to that worker) is not one this batch left behind; what this batch
    leaves behind is still there after the grace."""
    deadline = time.monotonic() + grace_s
    found = running_now()
    while found and time.monotonic() < deadline:
        time.sleep(0.5)
        found = running_now()
    return found


def running_now() -> list[str]:
    """Processes started by a grading of this batch that run now: the marker is in the environment of
    the grader's own processes, and every process of an isolated kernel is in a PID namespace of its own."""
    found = [f"{pid}: {command[:80]} (parents: {_parents(pid)})" for pid, command in _sandboxed_processes().items()
             if pid not in BEFORE and not _started_by_another_worker(pid) and not _another_gradings(command)]
    found += [f"{pid}: {command[:80]}" for pid, command in with_environment(MARKER).items()]
    return found


def test_there_are_at_least_20_hostile_cases():
    assert len([c for c in CASES if not c.name.startswith("good_")]) >= 20


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_score_and_reason(batch, case):
    if case.name in NEEDS_ISOLATION and NOT_ISOLATED:
        pytest.skip(f"the kernel cannot be isolated on this machine ({NOT_ISOLATED})")
    result = batch["first"][case.name]
    text = feedback_text(batch["out"], case.name)
    if case.score is not None:
        assert result["score"] == case.score, (case.name, result)
    else:
        assert result["score"] < FULL, (case.name, result)
    if case.reason:
        assert re.search(case.reason, text + result["reason"] + " ".join(result["failures"].values())), \
            (case.name, result, text[-2000:])
    if result["score"] < FULL and result["status"] == "graded":
        assert result["failures"], f"{case.name}: points lost without a named reason"


def test_honest_submissions_get_their_known_grades(batch):
    """What a solution and a half-done notebook earn alone (their cells' points), whatever shares the batch."""
    assert batch["first"]["good_solution"]["score"] == FULL
    assert batch["first"]["good_solution"]["failures"] == {}
    partial = batch["first"]["good_partial"]
    assert set(partial["failures"]) == {"check_self_attention", "check_causal_mask", "check_space_invader"}
    assert partial["cells"]["check_softmax"] == POINTS["check_softmax"]


def test_grading_twice_gives_the_same_grades(batch):
    def pick(rows):
        return {k: (r["score"], r["status"], r["cells"], r["failures"]) for k, r in rows.items() if k in AGAIN}

    assert pick(batch["first"]) == pick(batch["second"]) and len(pick(batch["second"])) == len(AGAIN)


def test_nothing_outside_the_scratch_space_changed(batch):
    if NOT_ISOLATED:
        pytest.skip(f"the kernel cannot be isolated on this machine ({NOT_ISOLATED})")
    assert batch["sentinel"].read_text(encoding="utf-8") == "untouched"
    assert not (REPO / "written_by_student.txt").exists()
    assert batch["after"] - batch["before"] == set()


def test_nothing_the_kernels_started_is_left_running(batch):
    """Every process the kernels started is gone once grading ends, also those that left the kernel's
    process group (process_bomb): they die with the kernel's PID namespace, and the grader kills what is in
    each kernel's cgroup."""
    if NOT_ISOLATED and (os.geteuid() != 0 or cgroup_problem()):
        pytest.skip("without a PID namespace or a cgroup per kernel the grader only kills the kernel's process group")
    assert batch["left"] == []


def test_huge_output_is_truncated(batch):
    page = batch["out"] / "feedback" / "huge_output.html"
    assert page.stat().st_size < 2_000_000


def test_no_hidden_test_source_in_any_feedback(batch):
    secrets = hidden_lines(SOURCE)
    for page in (batch["out"] / "feedback").glob("*.html"):
        raw = page.read_text(encoding="utf-8")
        plain = html.unescape(re.sub(r"<[^>]+>", "", raw))
        assert "BEGIN HIDDEN TESTS" not in raw, page.name  # (BEGIN SOLUTION: the students' own cells keep it)
        for secret in secrets:
            assert secret not in raw and secret not in plain, (page.name, secret)


if __name__ == "__main__":  # write the batch to a folder, to grade it by hand
    target = Path(sys.argv[1])
    write_batch(target, target.parent / SENTINEL)
