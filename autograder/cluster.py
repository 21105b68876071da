"""Grading on a Dask cluster: ``python -m autograder grade ... --scheduler ADDRESS``.

The batch is the same as a local one (:func:`autograder.grade.grade`); only where each submission is
graded changes. :class:`ClusterPool` stands where the local process pool stands: ``submit(grade_one,
task)`` sends the task (the submission's bytes, never a path) to a Dask worker, and the student's
feedback page comes back with the result and is written on the instructor's machine, so that
grades.csv, results.json and the pages are those of a local run.

Each worker is set up for the batch by :class:`GraderPlugin`, a Dask ``WorkerPlugin`` that does what
a local worker's initializer does (:func:`autograder.worker.start`): its own run folder, the sandbox
kernel's command line for the batch's limits, the grader's own Jupyter configuration, and the
zygote that has imported what the notebook imports. A worker that joins while the batch runs gets
the plugin too; the plugin is removed from every worker when the batch ends.

What a cluster does to a batch, and what the batch does about it:

- a worker killed in the middle: Dask gives its submissions to the other workers (a submission
  is graded from scratch: grading is deterministic, so its grade is the same);
- a worker that never starts: the others take its share (the batch waits ``grade --worker-wait``
  seconds, 120 by default, for at least one; none: one line, exit 1, nothing written in OUT);
- a submission whose grading stops its worker again and again (more than the scheduler's
  ``allowed-failures``, 3): :class:`WorkerLost`. A worker holds up to two submissions, so the batch
  grades it once more at the end, alone on the cluster (``autograder.grade``); if it stops its worker
  then too, that student gets a zero with the reason; the rest are graded;
- a scheduler that cannot be reached: one line, exit 1, nothing written in OUT (:func:`connect`).

A Dask worker process grades one submission at a time (a lock: the kernelspec and the zygote are the
process's own); start workers with ``--nthreads 1`` and as many processes as cores (``--nworkers``).
"""
from __future__ import annotations

import concurrent.futures
import dataclasses
import os
import shutil
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Callable

from . import sandbox
from . import worker as grading_worker  # Dask's plugin hooks take a parameter named worker
from .sandbox import Limits

NEEDS_DASK = "--scheduler needs Dask: pip install -e '.[cluster]' (README, 'Grading on a cluster')"
try:
    import distributed
except ImportError:
    raise SystemExit(NEEDS_DASK) from None

def connect(address: str, worker_seconds: float = 120) -> distributed.Client:
    """A client of the scheduler at ``address`` with at least one worker, or SystemExit with one line saying why not.

    Reaching the scheduler is given Dask's own connect timeout (``distributed.comm.timeouts.connect``,
    30 s; ``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=5s`` in the environment sets it); a first worker
    is given ``worker_seconds`` (``grade --worker-wait``: workers that are SLURM jobs may queue longer).
    """
    try:
        client = gateway_client(address) if address.startswith("gateway://") else \
            distributed.Client(address, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as err:
        raise SystemExit(f"cannot reach the Dask scheduler at {address}: {err}") from None
    try:
        client.wait_for_workers(1, timeout=worker_seconds)
    except (OSError, TimeoutError):
        client.close()
        raise SystemExit(f"no Dask worker joined the scheduler at {address} within {worker_seconds:g} s (start "
                         f"workers, or wait longer with --worker-wait: README, 'Grading on a cluster')") from None
    return client


def gateway_client(address: str) -> distributed.Client:
    """A client of a Dask Gateway cluster, from its scheduler address (``gateway://PROXY/CLUSTER_NAME``).

    A Gateway cluster's scheduler takes only clients with the cluster's TLS credentials, which the
    gateway hands out: the gateway's address and authentication are Dask's configuration (on a
    daskhub, the ``DASK_GATEWAY__*`` variables of every server, autograder/hub/values.yaml).
    """
    try:
        from dask_gateway import Gateway
    except ImportError:
        raise SystemExit(NEEDS_DASK) from None
    try:
        cluster = Gateway().connect(address.rstrip("/").rsplit("/", 1)[1])
    except Exception as err:  # noqa: BLE001 (the gateway's errors are of several kinds: say them in one line)
        raise OSError(f"{type(err).__name__}: {err}") from None
    return cluster.get_client(set_as_default=False)


def dashboard(client: distributed.Client) -> str:
    """The Dask dashboard's address, or '' when the scheduler serves none (bokeh missing)."""
    return client.dashboard_link if "dashboard" in client.scheduler_info().get("services", {}) else ""


class GraderPlugin(distributed.WorkerPlugin):
    """Sets a Dask worker up for one batch, as ``grade.Worker.start`` sets up a local worker.

    The worker's copy of the plugin holds its run folder: ``work/`` (``feedback/``, the logs) and ``pids/``.
    The submissions come with all they are graded against (``grade.Task``): no course directory.
    """

    def __init__(self, limits: Limits, modules: list[str], fork_kernels: bool):
        self.limits, self.modules, self.fork_kernels = limits, modules, fork_kernels

    def setup(self, worker=None) -> None:
        self.run_dir = Path(tempfile.mkdtemp(prefix="course-grade-"))
        self.work = self.run_dir / "work"
        (self.work / "feedback").mkdir(parents=True)
        (self.run_dir / "pids").mkdir()
        self.settings = grading_worker.grader_only_config(self.run_dir / "settings")
        self.settings.__enter__()  # the worker process's environment, until teardown
        kernel_argv, self.isolated = sandbox.kernel_argv(self.limits, self.run_dir / "pids")
        stderr = os.dup(2)  # grading_worker.start sends stderr to its log; the Dask worker keeps its own
        try:
            grading_worker.start(str(self.work), str(self.run_dir), kernel_argv, self.modules, self.fork_kernels)
        finally:
            os.dup2(stderr, 2)
            os.close(stderr)
        self.lock = threading.Lock()

    def teardown(self, worker=None) -> None:
        grading_worker.stop_zygote()
        self.settings.__exit__(None, None, None)
        shutil.rmtree(self.run_dir, ignore_errors=True)

    def on_worker(self, task):
        """The task (a ``grade.Task``) as this worker grades it: its folders, its isolation."""
        return dataclasses.replace(task, workdir=str(self.work), isolated=self.isolated)


def grade_on_worker(plugin_name: str, grade_one: Callable, task) -> tuple[object, bytes]:
    """Runs on a Dask worker: grade one submission there; its result and its feedback page's bytes come back."""
    plugin: GraderPlugin = distributed.get_worker().plugins[plugin_name]
    with plugin.lock:
        result = grade_one(plugin.on_worker(task))
        page = plugin.work / "feedback" / f"{task.student_id}.html"
        html = page.read_bytes()
        page.unlink()
    return result, html


class WorkerLost(RuntimeError):
    """A submission whose grading stopped every worker it was sent to."""


class ClusterPool:
    """Where the local process pool is: ``submit(grade_one, task)`` grades on the cluster, the page comes home.

    ``plugin`` sets each worker up for the batch; it is on every worker (those that join later
    included) between ``__enter__`` and ``__exit__``.
    """

    def __init__(self, client: distributed.Client, plugin: GraderPlugin):
        self.client, self.plugin = client, plugin
        self.name = f"course-grader-{uuid.uuid4().hex[:8]}"
        self.threads, self.counted = 1, 0.0

    def __enter__(self) -> ClusterPool:
        self.client.register_plugin(self.plugin, name=self.name)
        self.executor = self.client.get_executor(pure=False)
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.executor.shutdown(wait=exc[0] is None)
        finally:
            self.client.unregister_worker_plugin(self.name)

    def capacity(self) -> int:
        """Submissions the cluster grades at once now: its workers' threads, at least 1 (asked at most every 5 s)."""
        if time.monotonic() - self.counted > 5:
            workers = self.client.scheduler_info(n_workers=-1).get("workers", {})
            self.threads, self.counted = max(1, sum(w.get("nthreads", 1) for w in workers.values())), time.monotonic()
        return self.threads

    def submit(self, grade_one: Callable, task) -> concurrent.futures.Future:
        """Grade ``task`` on a worker; the future's result is the Result, its page written in ``task.workdir``."""
        local: concurrent.futures.Future = concurrent.futures.Future()
        remote = self.executor.submit(grade_on_worker, self.name, grade_one, task)

        def arrived(remote: concurrent.futures.Future) -> None:
            try:
                result, html = remote.result()
                (Path(task.workdir) / "feedback" / f"{task.student_id}.html").write_bytes(html)
                local.set_result(result)
            except distributed.KilledWorker:
                local.set_exception(WorkerLost("the grading worker stopped each time it graded this submission"))
            except BaseException as err:  # noqa: BLE001 (the batch's loop reports it as this student's zero)
                local.set_exception(err)

        remote.add_done_callback(arrived)
        return local
