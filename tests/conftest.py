"""Shared fixtures: the devices to test on (CPU always, CUDA when torch sees one), seeding and one thread."""
import sys
from pathlib import Path

import pytest
import torch

from course_lib.device import torch_threads

#: hostile notebooks: graded in a sandbox by tests/grading/test_redteam_blind.py, never run by nbval
collect_ignore = ["grading/redteam_blind"]

#: the helpers every area shares (notebook_runner, answer_catalogue, nbNN_answers)
sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))

DEVICES = [
    pytest.param("cpu", id="cpu"),
    pytest.param("cuda", id="cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")),
]


@pytest.fixture(params=DEVICES)
def device(request):
    return torch.device(request.param)


@pytest.fixture
def seeded_one_thread():
    """Seed the test; one CPU thread, which is faster for small tensors on a busy machine."""
    torch.manual_seed(0)
    with torch_threads(1):
        yield
