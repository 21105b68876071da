"""Shared fixtures: the devices to test on (CPU always, CUDA when torch sees one)."""
import pytest
import torch

DEVICES = [
    pytest.param("cpu", id="cpu"),
    pytest.param("cuda", id="cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")),
]


@pytest.fixture(params=DEVICES)
def device(request):
    return torch.device(request.param)
