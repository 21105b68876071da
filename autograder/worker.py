"""A grading worker process's own state: its kernelspec folder, the sandbox's command line, its zygote, and the
grader's own Jupyter settings (:func:`grader_only_config`, for the batch's process too).

A worker is a process of the batch's pool (or a Dask worker, :mod:`autograder.cluster`) that grades one
submission at a time. :func:`start` sets it up once (:func:`start_local` in the batch's own pool);
:func:`kernel_spec_for` points its kernelspec at one submission's kernel folder before that submission's kernel
starts.
"""
from __future__ import annotations

import contextlib
import multiprocessing.util
import os
import resource
import warnings
from pathlib import Path

from . import course, jail, sandbox
from .zygote import Zygote

#: a grading worker's private memory (grading notebook 07 takes about 1.1 GB)
WORKER_DATA_MB = 4096

zygote: Zygote | None = None
jupyter_path = Path()
kernel_argv: list[str] = []


def start(log_dir: str, run_dir: str, argv: list[str], modules: list[str], fork_kernels: bool) -> None:
    """A worker's set-up: its stderr to a log file, its own kernelspec folder, and its zygote starting."""
    global zygote, jupyter_path, kernel_argv
    jupyter_path = Path(run_dir) / f"jupyter-{os.getpid()}"  # the kernelspec, rewritten per submission
    kernel_argv = argv
    os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(jupyter_path), os.environ.get("JUPYTER_PATH")) if p)
    # One thread per kernel: parallel jobs already use every core, and oversubscribed
    # BLAS / torch threads make a batch slower, not faster.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("MKL_NUM_THREADS", "1")
    os.environ["PATH"] = course.nbgrader_env()["PATH"]
    warnings.filterwarnings("ignore")
    # a kernel's messages arrive here whole (zmq caps each part, not their number): past this the worker fails,
    # is replaced, and the submission that did it is graded again alone (the kernels set their own limit)
    resource.setrlimit(resource.RLIMIT_DATA, (WORKER_DATA_MB << 20, resource.getrlimit(resource.RLIMIT_DATA)[1]))
    log = open(Path(log_dir) / f"worker-{os.getpid()}.log", "ab", buffering=0)  # kept open: the worker's stderr
    os.dup2(log.fileno(), 2)
    if fork_kernels:
        zygote = Zygote(Path(run_dir) / f"zygote-{os.getpid()}.sock", modules)
        multiprocessing.util.Finalize(zygote, zygote.stop, exitpriority=10)  # when the worker exits


def start_local(grader_pid: int, *args) -> None:
    """A worker of the batch's own pool: it dies with the grader, even one killed outright (its zygote dies with
    it in turn), then :func:`start`. A Dask worker is the cluster's, and outlives a batch."""
    jail.die_with_parent()
    if os.getppid() != grader_pid:  # the grader died before that was set
        os._exit(1)
    start(*args)


def stop_zygote() -> None:
    """Stop this worker's zygote, if it has one (a Dask worker's batch ends; a local worker exits)."""
    global zygote
    if zygote is not None:
        zygote.stop()
        zygote = None


def kernel_spec_for(kernel_dir: Path) -> None:
    """The sandbox kernel of one submission: its folder, and this worker's zygote when it is up."""
    socket_path = zygote.socket_path if zygote is not None and zygote.ready() else None
    sandbox.write_kernelspec(jupyter_path, sandbox.for_submission(kernel_argv, kernel_dir, socket_path))


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
