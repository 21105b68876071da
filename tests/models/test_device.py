"""get_device honours COURSE_DEVICE and explains what it cannot do."""
import pytest
import torch

from course_lib.device import get_device


def test_cpu_when_asked(monkeypatch):
    monkeypatch.setenv("COURSE_DEVICE", "cpu")
    assert get_device() == torch.device("cpu")


def test_auto_picks_cuda_only_when_present(monkeypatch):
    monkeypatch.setenv("COURSE_DEVICE", "auto")
    expected = "cuda" if torch.cuda.is_available() else None
    got = get_device()
    if expected:
        assert got.type == "cuda"
    else:
        assert got.type in ("cpu", "mps")


def test_unknown_value_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("COURSE_DEVICE", "tpu")
    with pytest.raises(ValueError, match="COURSE_DEVICE='tpu' is not understood"):
        get_device()


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_missing_cuda_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("COURSE_DEVICE", "cuda")
    with pytest.raises(RuntimeError, match="asks for a CUDA GPU"):
        get_device()


def test_argument_overrides_environment(monkeypatch):
    monkeypatch.setenv("COURSE_DEVICE", "tpu")
    assert get_device("cpu") == torch.device("cpu")


def test_torch_threads_sets_and_restores_even_after_an_error():
    from course_lib.device import torch_threads

    before = torch.get_num_threads()
    with torch_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    try:
        with torch_threads(1):
            raise KeyError("inside")
    except KeyError:
        pass
    assert torch.get_num_threads() == before
    with torch_threads(None):
        assert torch.get_num_threads() == before
