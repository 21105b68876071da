"""Shared fixtures: the devices to test on (CPU always, CUDA when torch sees one), seeding and one thread."""
import os
import sys
from pathlib import Path

import pytest
import torch

from course_lib.device import torch_threads

#: hostile notebooks: graded in a sandbox by tests/grading/test_redteam_blind.py, never run by nbval
collect_ignore = ["grading/redteam_blind"]

#: the helpers every area shares (notebook_runner, answer_catalogue, nbNN_answers)
sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))

if os.environ.get("PYTEST_XDIST_WORKER"):
    # ``make test`` runs one worker per core. A worker and every kernel, grader and notebook it starts use one
    # CPU thread: two processes that each spin two OpenMP threads on two cores slow down many times over
    # (solutions/04_lstm.ipynb: 94 s alone; two copies side by side, 134 s each on one thread and over
    # 15 min each on two threads).
    os.environ["OMP_NUM_THREADS"] = "1"
    os.environ["MKL_NUM_THREADS"] = "1"
    torch.set_num_threads(1)

DEVICES = [
    pytest.param("cpu", id="cpu"),
    pytest.param("cuda", id="cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")),
]


def pytest_collection_modifyitems(config, items):
    """Mark the browser tests ``serial``: ``make test`` runs them after the parallel part, alone on the machine.

    The parallel part is pytest-xdist's ``--dist loadscope``: a test file's functions (or a test class's
    methods) run on one worker, so that a module- or class-scoped fixture (a graded batch, a built course,
    a solution namespace) is built once. A file with several heavy fixtures splits its tests into
    classes (tests/grading/test_pipeline.py: one class per notebook) so that they share the workers.
    """
    for item in items:
        if item.nodeid.startswith("tests/browser/"):
            item.add_marker(pytest.mark.serial)  # Chromium's waits time out beside a busy worker


@pytest.fixture(params=DEVICES)
def device(request):
    return torch.device(request.param)


@pytest.fixture
def seeded_one_thread():
    """Seed the test; one CPU thread, which is faster for small tensors on a busy machine."""
    torch.manual_seed(0)
    with torch_threads(1):
        yield
