"""Nothing reaches out: the solution notebooks and the grader run with networking off.

The commands run in a fresh network namespace (`unshare -rn`, loopback only), and every
Python process they start, Jupyter kernels included, records any attempt to reach a
non-loopback address; the record must stay empty.

This is also where the solution notebooks run top to bottom (nbval, ``--nbval-lax``: every cell
without an error): once, with the network off, rather than once more in the suite's own
collection (pyproject.toml's testpaths hold tests/ only). Where network namespaces are not
available the notebooks still run here, with the guard recording any attempt.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from notebook_runner import REPO, one_class_per_notebook

GUARD = Path(__file__).parent / "offline_guard"


def _unshare_works() -> bool:
    if not shutil.which("unshare"):
        return False
    return subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode == 0


UNSHARE = _unshare_works()
needs_namespace = pytest.mark.skipif(not UNSHARE, reason="unprivileged network namespaces are not available")


def run_offline(command: list[str], tmp_path: Path, **environment: str) -> tuple[subprocess.CompletedProcess, str]:
    """Run ``command`` with the network off (when namespaces work) and the guard in every Python it starts;
    ``environment`` is added to its environment."""
    log = tmp_path / "network.log"
    log.touch()
    env = dict(os.environ, **environment, COURSE_NET_LOG=str(log), HF_HUB_OFFLINE="1",
               PYTHONPATH=os.pathsep.join([str(GUARD), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    script = 'ip link set lo up 2>/dev/null || true; exec "$@"'
    offline = ["unshare", "-rn", "sh", "-c", script, "sh"] if UNSHARE else []
    proc = subprocess.run([*offline, *command], cwd=REPO, env=env, capture_output=True, text=True, timeout=1500)
    return proc, log.read_text()


class SolutionOffline:
    """One solution notebook under nbval with the network off (``NOTEBOOK``: one class per notebook, at the end
    of the file). Its demos train with ``COURSE_FAST=1`` (course_lib.train): every cell must run without an
    error; how far the models learn is what ``make benchmark`` measures."""

    NOTEBOOK = ""

    def test_solution_notebook_runs_without_network(self, tmp_path):
        proc, attempts = run_offline(
            [sys.executable, "-m", "pytest", "--nbval-lax", "-p", "no:cacheprovider", "-q", "-o", "addopts=",
             str(REPO / "solutions" / self.NOTEBOOK)], tmp_path, COURSE_FAST="1")
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
        assert attempts == "", f"{self.NOTEBOOK} tried to reach the network:\n{attempts}"


one_class_per_notebook(SolutionOffline, sorted(p.name for p in (REPO / "solutions").glob("[0-9][0-9]_*.ipynb")),
                       globals())


@needs_namespace
def test_grader_runs_without_network(tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(REPO / "notebooks" / "05_self_attention.ipynb", subs / "blank.ipynb")
    proc, attempts = run_offline(
        [sys.executable, "-m", "autograder", "grade", "05", str(subs), "--out", str(tmp_path / "out")], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "out" / "grades.csv").read_text().count("blank,05_self_attention,0,") == 1
    assert attempts == "", f"the grader tried to reach the network:\n{attempts}"


@needs_namespace
def test_the_guard_notices_an_attempt(tmp_path):
    """The test above would be worthless if the guard never fired."""
    code = "import socket; s = socket.socket(); s.settimeout(1); s.connect_ex(('192.0.2.1', 80))"
    proc, attempts = run_offline([sys.executable, "-c", code], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "192.0.2.1" in attempts
