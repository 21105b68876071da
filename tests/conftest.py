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


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Keep a test file's tests on one pytest-xdist worker (``make test`` runs ``--dist loadgroup``).

    A file's module-scoped fixtures (a graded batch, a built course, a solution namespace) are then
    built once. A file that sets ``XDIST_SPLIT_BY = "<fixture>"`` is split by that module-scoped
    fixture's parameter instead (tests/grading/test_pipeline.py: one batch per notebook), so its
    batches run on both workers. The browser tests are marked ``serial``: ``make test`` runs them
    after the parallel part, alone on the machine.
    """
    for item in items:
        if item.nodeid.startswith("tests/browser/"):
            item.add_marker(pytest.mark.serial)  # Chromium's waits time out beside a busy worker
        group = item.nodeid.split("::")[0]
        split_by = getattr(item.module, "XDIST_SPLIT_BY", None) if hasattr(item, "module") else None
        if split_by and hasattr(item, "callspec") and split_by in item.callspec.params:
            group += f"[{item.callspec.params[split_by]}]"
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(params=DEVICES)
def device(request):
    return torch.device(request.param)


@pytest.fixture
def seeded_one_thread():
    """Seed the test; one CPU thread, which is faster for small tensors on a busy machine."""
    torch.manual_seed(0)
    with torch_threads(1):
        yield
