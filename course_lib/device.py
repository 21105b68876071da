"""Where tensors live: one ``get_device()`` for the whole course.

``COURSE_DEVICE`` chooses: ``cpu``, ``cuda`` (or ``cuda:1``), ``mps``, or ``auto``
(the default: CUDA if present, then Apple's MPS, else the CPU). Modules never call
this inside their forward passes: they take the device from their inputs.
"""
from __future__ import annotations

import contextlib
import os
from typing import Iterator

import torch

ENV_VAR = "COURSE_DEVICE"
CHOICES = ("auto", "cpu", "cuda", "mps")


def _mps_available() -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def get_device(preference: str | None = None) -> torch.device:
    """Return the device the course should use.

    ``preference`` overrides ``$COURSE_DEVICE``; both default to ``auto``.
    Asking for a device that is not there is an error with a plain sentence,
    not a silent fall-back, so a lecturer knows the demo is not on the GPU.
    """
    choice = (preference or os.environ.get(ENV_VAR) or "auto").strip().lower()
    kind = choice.split(":", 1)[0]
    if kind not in CHOICES:
        raise ValueError(
            f"{ENV_VAR}={choice!r} is not understood: use one of {', '.join(CHOICES)} "
            "(optionally with an index, like cuda:1)."
        )
    if kind == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if _mps_available():
            return torch.device("mps")
        return torch.device("cpu")
    if kind == "cuda" and not torch.cuda.is_available():
        raise RuntimeError(
            f"{ENV_VAR}={choice} asks for a CUDA GPU, but torch sees none "
            f"(torch {torch.__version__}); unset {ENV_VAR} or set it to cpu."
        )
    if kind == "mps" and not _mps_available():
        raise RuntimeError(f"{ENV_VAR}={choice} asks for Apple's MPS, but it is not available here.")
    return torch.device(choice)


@contextlib.contextmanager
def torch_threads(n: int | None) -> Iterator[None]:
    """``torch.set_num_threads(n)`` inside a ``with`` block, the previous count restored after it (n None: unchanged).

    Small models train faster on one thread than on several competing ones, and timings on one
    thread depend less on what else the machine is doing.
    """
    saved = torch.get_num_threads()
    if n is not None:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(saved)


def describe(device: torch.device | None = None) -> str:
    """A one-line description for notebook headers and benchmark tables."""
    device = device or get_device()
    if device.type == "cuda":
        return f"cuda ({torch.cuda.get_device_name(device)})"
    return device.type
