"""Grading on a Dask cluster: a real scheduler and two workers, started here as processes on 127.0.0.1.

One batch of notebook 05 (solutions in two styles, two catalogued mistakes, the blank release, a
file that is not a notebook, and two hostile submissions: one that stops its kernel, one that edits
a test cell to print a pass) is graded twice: ``--jobs 2`` on this machine, and ``--scheduler`` on the
cluster. grades.csv, the feedback pages and results.json (but its seconds) must be the same. A second,
smaller batch loses one of its two workers in the middle of a submission: every student still has a
row, with the grade the local run gave. A third cluster has a worker that never starts and a submission
that takes its worker down each time (tests/support/crashing_worker_preload.py): that student gets a zero
with the reason, the others their local grades. A scheduler nobody listens at, or one no worker joins in
time: one line, exit 1, no OUT.

Every process the tests start (scheduler, workers, the kernels those start) carries a marker in its
environment; whatever still has it when a cluster stops is killed, and the kill test asserts that
nothing was left.
"""
from __future__ import annotations

import csv
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from autograder.cells import answers, with_answers
from autograder.grade import WORKER_KILLED
from notebook_runner import REPO
from running_processes import with_environment
import crashing_worker_preload
import nb05_answers

distributed = pytest.importorskip("distributed", reason="the cluster extra: pip install -e '.[cluster]'")

pytestmark = pytest.mark.pipeline
NAME = "05_self_attention"
LIMITS = ["--timeout", "8", "--wall-seconds", "30", "--memory-mb", "2048"]
#: in the environment of every process a test's cluster starts (and of the kernels they start)
MARKER = ("COURSE_CLUSTER_TEST", str(os.getpid()))
SOLUTION = answers(nbformat.read(REPO / "solutions" / f"{NAME}.ipynb", as_version=4))
RELEASE = nbformat.read(REPO / "notebooks" / f"{NAME}.ipynb", as_version=4)
WRONG = [nb05_answers.WRONG[0], nb05_answers.WRONG[3]]
STYLE, ALTERNATIVE = next(iter(nb05_answers.ALTERNATIVES.items()))
BATCH = {
    "solution": SOLUTION,
    f"alt_{STYLE}": {**SOLUTION, **ALTERNATIVE},
    **{f"wrong_{w.name}": {**SOLUTION, w.cell: w.source} for w in WRONG},
    "blank": {},
    "os_exit": {**SOLUTION, "causal_mask": "import os\nos._exit(0)\n"},
    "prints_a_pass": {**SOLUTION, "check_attention_scores": 'print("✔ attention_scores: correct.")',
                      "attention_scores": WRONG[0].source},
}
KILL_BATCH = ["solution", "blank", f"wrong_{WRONG[0].name}", f"alt_{STYLE}"]
PRELOAD = Path(crashing_worker_preload.__file__)


def write_batch(folder: Path, students) -> Path:
    folder.mkdir(parents=True)
    for student in students:
        if student == "broken":
            (folder / "broken.ipynb").write_text('{"cells": [', encoding="utf-8")
        else:
            nbformat.write(with_answers(RELEASE, BATCH[student]), folder / f"{student}.ipynb")
    return folder


def environment() -> dict[str, str]:
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "HF_HUB_OFFLINE": "1", MARKER[0]: MARKER[1], "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "5s"}


def grade_command(subs: Path, out: Path, *where: str) -> list[str]:
    return [sys.executable, "-m", "autograder", "grade", NAME, str(subs), "--out", str(out), *LIMITS, *where]


def grade(subs: Path, out: Path, *where: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(grade_command(subs, out, *where), capture_output=True, text=True, timeout=900,
                          env=environment())
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def marked_processes() -> dict[int, str]:
    """Processes whose environment has this test run's marker: pid -> command line."""
    return {pid: command[:200] for pid, command in with_environment(f"{MARKER[0]}={MARKER[1]}").items()}


def rejoined_workers(client, expected: int, within_s: float) -> int:
    """How many workers the scheduler has once ``expected`` are there, or when ``within_s`` has passed."""
    deadline = time.monotonic() + within_s
    while (count := len(client.scheduler_info()["workers"])) < expected and time.monotonic() < deadline:
        time.sleep(0.5)
    return count


class Cluster:
    """``dask scheduler`` and ``dask worker`` processes on 127.0.0.1, each in its own session.

    ``workers`` join the scheduler, with a nanny that restarts a worker that dies when ``nanny``;
    ``never_starting`` more are started and exit before they join (:mod:`crashing_worker_preload`);
    ``preload`` is given to every worker; ``scheduler_env`` is added to the scheduler's environment.
    """

    def __init__(self, folder: Path, workers: int = 2, *, nanny: bool = False, never_starting: int = 0,
                 preload: Path | None = None, scheduler_env: dict[str, str] | None = None):
        self.processes: list[subprocess.Popen] = []
        self.address = f"tcp://127.0.0.1:{free_port()}"
        dask = [sys.executable, "-m"]
        self.start(folder / "scheduler.log", [*dask, "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                   "--port", self.address.rsplit(":", 1)[1], "--dashboard-address", f"127.0.0.1:{free_port()}"],
                   scheduler_env or {})
        options = ["--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1", "--nanny" if nanny else "--no-nanny"]
        if preload:
            options += ["--preload", str(preload)]
        for index in range(workers + never_starting):
            self.start(folder / f"worker-{index}.log",
                       [*dask, "distributed.cli.dask_worker", self.address, *options, "--name", f"worker-{index}"],
                       {"COURSE_WORKER_NEVER_STARTS": "1"} if index >= workers else {})
        self.client = None
        try:
            self.client = distributed.Client(self.address, timeout=60, set_as_default=False)
            if workers:
                self.client.wait_for_workers(workers, timeout=120)
        except BaseException:
            self.stop()
            raise

    def start(self, log: Path, command: list[str], extra_env: dict[str, str]) -> None:
        with log.open("wb") as handle:
            self.processes.append(subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT,
                                                   env={**environment(), **extra_env}, start_new_session=True,
                                                   cwd=log.parent))

    def worker_pids(self) -> dict[str, int]:
        """Worker address -> its process id (asked of the workers themselves, between tasks or not)."""
        return self.client.run(os.getpid)

    def stop(self) -> dict[int, str]:
        """Kill every process this cluster started, and what those started (the marker); returns the
        processes that were still running once the scheduler and the workers were gone."""
        try:
            if self.client is not None:
                self.client.close(timeout=10)
        except Exception:  # noqa: BLE001 (the scheduler may be gone already)
            pass
        for process in self.processes:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait(timeout=30)
        # what dies with its parent dies in a chain (worker; its zygote or sandbox; the jail's processes; kernel):
        # on a loaded machine that can take more than a second
        deadline = time.monotonic() + 20
        while (left := marked_processes()) and time.monotonic() < deadline:
            time.sleep(0.5)
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return left


def rows(out: Path) -> dict[str, dict]:
    with open(out / "grades.csv", newline="") as handle:
        return {row["student_id"]: row for row in csv.DictReader(handle)}


def results(out: Path) -> dict[str, dict]:
    """results.json by student, without the seconds (which differ from run to run)."""
    return {r["student_id"]: {k: v for k, v in r.items() if k not in ("seconds", "slowest_cell")}
            for r in json.loads((out / "results.json").read_text(encoding="utf-8"))}


@pytest.fixture(scope="module")
def submissions(tmp_path_factory) -> Path:
    return write_batch(tmp_path_factory.mktemp("cluster") / "submissions", [*BATCH, "broken"])


@pytest.fixture(scope="module")
def local(submissions) -> Path:
    out = submissions.parent / "local"
    grade(submissions, out, "--jobs", "2")
    return out


@pytest.fixture(scope="module")
def on_cluster(submissions, tmp_path_factory):
    folder = tmp_path_factory.mktemp("cluster-run")
    cluster = Cluster(folder)
    try:
        proc = grade(submissions, folder / "out", "--scheduler", cluster.address)
    finally:
        cluster.stop()
    return folder / "out", proc


def test_the_batch_covers_what_the_issue_names(local):
    graded = rows(local)
    assert set(graded) == {*BATCH, "broken"}
    assert float(graded["solution"]["score"]) > 0 and float(graded["blank"]["score"]) == 0
    assert graded["broken"]["status"] == "error" and "invalid JSON" in graded["broken"]["reason"]
    assert "process running the notebook stopped" in graded["os_exit"]["reason"]
    assert float(graded["prints_a_pass"]["score"]) < float(graded["solution"]["score"])
    for wrong in WRONG:
        assert float(graded[f"wrong_{wrong.name}"]["score"]) < float(graded["solution"]["score"]), wrong.name


def test_grades_csv_is_the_local_one(local, on_cluster):
    out, _ = on_cluster
    assert (out / "grades.csv").read_text(encoding="utf-8") == (local / "grades.csv").read_text(encoding="utf-8")


def test_results_json_is_the_local_one_but_the_seconds(local, on_cluster):
    out, _ = on_cluster
    assert results(out) == results(local)


def test_feedback_pages_are_the_local_ones(local, on_cluster):
    out, _ = on_cluster
    pages = sorted(p.name for p in (local / "feedback").glob("*.html"))
    assert pages == sorted(p.name for p in (out / "feedback").glob("*.html"))
    assert len(pages) == len(BATCH) + 1
    for page in pages:
        assert (out / "feedback" / page).read_bytes() == (local / "feedback" / page).read_bytes(), page


def test_progress_and_dashboard_on_the_terminal(on_cluster):
    _, proc = on_cluster
    assert "dashboard: http://127.0.0.1:" in proc.stderr
    total = len(BATCH) + 1
    assert f"graded {total}/{total} (1 failed), 0 remaining" in proc.stderr  # broken (os_exit keeps what it earned)


def test_a_worker_killed_mid_batch_loses_no_student(local, tmp_path):
    subs = write_batch(tmp_path / "submissions", KILL_BATCH)
    cluster = Cluster(tmp_path)
    left: dict[int, str] = {}
    try:
        batch = subprocess.Popen(grade_command(subs, tmp_path / "out", "--scheduler", cluster.address),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment())
        victim = None
        deadline = time.monotonic() + 600
        while victim is None and batch.poll() is None and time.monotonic() < deadline:
            busy = [addr for addr, keys in cluster.client.processing().items() if keys]
            if busy:
                time.sleep(3)  # into the submission's grading
                victim = busy[0]
                os.killpg(cluster.worker_pids()[victim], signal.SIGKILL)
            time.sleep(0.5)
        stdout, stderr = batch.communicate(timeout=900)
        assert victim is not None, "no worker was ever given a submission"
        assert victim not in cluster.worker_pids(), "the killed worker is still in the cluster"
        assert batch.returncode == 0, stdout[-3000:] + stderr[-3000:]
    finally:
        left = cluster.stop()
    assert left == {}, "a process the cluster started was still running after the batch"
    expected = results(local)
    assert results(tmp_path / "out") == {student: expected[student] for student in KILL_BATCH}


def test_a_worker_that_never_starts_and_a_submission_that_crashes_its_worker(local, tmp_path):
    """One worker joins, a second exits before it joins; the submission of ``crashes_its_worker`` stops
    the worker that grades it (the preload), and the nanny starts a new one. The one worker holds two
    submissions at once, so ``solution`` is lost with it: after the second crash (the scheduler's
    ``allowed-failures`` is 1 here) both are graded again, alone. ``solution`` gets its local grade,
    ``crashes_its_worker`` a zero with the reason; every other student is graded as locally."""
    crasher = crashing_worker_preload.CRASHING_STUDENT
    students = ["solution", f"wrong_{WRONG[0].name}"]
    assert sorted([crasher, *students])[:2] == [crasher, "solution"]  # submitted first, together
    subs = write_batch(tmp_path / "submissions", students)
    nbformat.write(with_answers(RELEASE, SOLUTION), subs / f"{crasher}.ipynb")
    cluster = Cluster(tmp_path, workers=1, nanny=True, never_starting=1, preload=PRELOAD,
                      scheduler_env={"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1"})
    try:
        assert len(cluster.client.scheduler_info()["workers"]) == 1
        proc = grade(subs, tmp_path / "out", "--scheduler", cluster.address)
        # the last crash can end the batch before the nanny's new worker has joined: give it time
        joined = rejoined_workers(cluster.client, expected=1, within_s=120)
    finally:
        left = cluster.stop()
    assert left == {}, "a process the cluster started was still running after the batch"
    assert joined == 1, "the nanny did not bring the crashed worker back"
    lost = (tmp_path / "scheduler.log").read_text(encoding="utf-8").count("marked as failed because")
    assert lost == 3, "expected the crasher and solution lost in the batch, then the crasher alone"
    graded = results(tmp_path / "out")
    assert graded.pop(crasher)["reason"] == WORKER_KILLED
    expected = results(local)
    assert graded == {student: expected[student] for student in students}
    assert f"graded {len(students) + 1}/{len(students) + 1} (1 failed), 0 remaining" in proc.stderr
    assert (tmp_path / "out" / "feedback" / f"{crasher}.html").exists()


def test_no_worker_in_time_is_one_line_and_no_output(tmp_path):
    subs = write_batch(tmp_path / "submissions", ["blank"])
    cluster = Cluster(tmp_path, workers=0, never_starting=1, preload=PRELOAD)
    try:
        proc = subprocess.run([*grade_command(subs, tmp_path / "out", "--scheduler", cluster.address),
                               "--worker-wait", "3"], capture_output=True, text=True, timeout=120, env=environment())
    finally:
        cluster.stop()
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]
    assert f"no Dask worker joined the scheduler at {cluster.address} within 3 s" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_an_unreachable_scheduler_is_one_line_and_no_output(tmp_path):
    subs = write_batch(tmp_path / "submissions", ["blank"])
    address = f"tcp://127.0.0.1:{free_port()}"  # nobody listens there
    proc = subprocess.run(grade_command(subs, tmp_path / "out", "--scheduler", address), capture_output=True,
                          text=True, timeout=120, env=environment())
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]
    assert f"cannot reach the Dask scheduler at {address}" in proc.stderr
    assert not (tmp_path / "out").exists()
