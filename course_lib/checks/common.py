"""What several notebooks' checks share: PyTorch built-ins switched off during graded calls, random inputs."""
from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from course_lib.device import get_device
from course_lib.grading import AnswerError, Banned, check_tensor

#: softmax in every spelling PyTorch offers
SOFTMAX_BUILTINS = [
    Banned(torch, "softmax", "torch.softmax"),
    Banned(torch, "log_softmax", "torch.log_softmax"),
    Banned(torch.special, "softmax", "torch.special.softmax"),
    Banned(torch.special, "log_softmax", "torch.special.log_softmax"),
    Banned(F, "softmax", "torch.nn.functional.softmax"),
    Banned(F, "log_softmax", "torch.nn.functional.log_softmax"),
    Banned(torch.Tensor, "softmax", "Tensor.softmax"),
    Banned(torch.Tensor, "log_softmax", "Tensor.log_softmax"),
]

WRITE_IT_YOURSELF = "the exercise is to write it yourself; see the cells above for the steps."


def check_device(device: Any = None) -> torch.device:
    """The device a check runs on: the one asked for, else the course's (``COURSE_DEVICE``)."""
    return torch.device(device) if device is not None else get_device()


def random_tensor(shape: tuple[int, ...], dtype: torch.dtype, device: Any, generator: torch.Generator) -> torch.Tensor:
    """Standard normal numbers drawn on the CPU (the same on every device), then moved to ``device``."""
    return torch.randn(shape, generator=generator, dtype=dtype).to(device)


def as_float64(exercise: str, value: Any, shape: tuple[int, ...] | None, what: str) -> torch.Tensor:
    """A value cell's answer (a number, list or tensor) as a float64 CPU tensor, or a sentence saying why not."""
    if value is None:
        raise AnswerError(exercise, f"{what} is None: assign your result to it.")
    if value is Ellipsis:
        raise AnswerError(exercise, f"{what} is still `...`: replace it with your computation.")
    try:
        tensor = torch.as_tensor(value, dtype=torch.float64).detach().cpu()
    except (TypeError, ValueError, RuntimeError):
        raise AnswerError(exercise, f"{what} should be numbers (a list or a tensor), not {type(value).__name__}.") from None
    return check_tensor(exercise, tensor, what=what, shape=shape)
