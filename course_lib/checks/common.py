"""What several notebooks' checks share: PyTorch built-ins switched off during graded calls, random inputs."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import torch
import torch.nn.functional as F

from course_lib.grading.answer_wire import tensors_in
from course_lib.device import get_device
from course_lib.grading.answers import AnswerError, Banned, call_answer, check_tensor, close, raised_by_answer

#: layer normalisation in every spelling PyTorch offers
LAYER_NORM_BUILTINS = [
    Banned(F, "layer_norm", "torch.nn.functional.layer_norm"),
    Banned(torch, "layer_norm", "torch.layer_norm"),
    Banned(torch, "native_layer_norm", "torch.native_layer_norm"),
    Banned(torch.nn.LayerNorm, "forward", "torch.nn.LayerNorm"),
]

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


def device_for_checks(device: Any = None) -> torch.device:
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
        raise AnswerError(exercise, f"{what} should be numbers (a list or a tensor), not "
                                    f"{type(value).__name__}.") from None
    return check_tensor(exercise, tensor, what=what, shape=shape)


# ---------------------------------------------------------------------------
# gradients through a student's function: a state that later cells backpropagate through must carry them

#: why a recurrent step's state must carry gradients (what the sentence for a detached one ends with)
STATE_GRADIENTS = ("Training backpropagates through every step (backpropagation through time, section 3 of notebook "
                   "03), so the state you return must carry gradients back to the state you were given.")


def gradients_through(exercise: str, func: Callable, inputs: tuple, wrt: tuple[int, ...], reason: str = "",
                      substitutes: dict | None = None) -> list[torch.Tensor | None]:
    """``func(*inputs)`` with the inputs at positions ``wrt`` requiring gradients; the sum of every floating-point
    tensor it returns is backpropagated, and each of those inputs' gradient is returned (None where none reached it).

    It runs where ``func`` is (the student's kernel, while grading: pass it to ``call_answer`` with ``func`` as an
    argument, and the built-ins to switch off to that call), so what comes back is plain tensors.
    """
    inputs = tuple(t.detach().clone().requires_grad_() if i in wrt else t for i, t in enumerate(inputs))
    out = call_answer(exercise, func, *inputs, reason=reason, substitutes=substitutes)
    reached = [t for t in tensors_in(out) if t.is_floating_point() and t.requires_grad]
    if reached:
        sum(t.sum() for t in reached).backward()
    return [inputs[i].grad for i in wrt]


def check_gradients_reach(exercise: str, func: Callable, reference: Callable, inputs: tuple, names: dict[int, str],
                          *, banned: Sequence[Banned] = (), reason: str = "", substitutes: dict | None = None,
                          why: str = "") -> None:
    """The gradient of the sum of ``func``'s outputs with respect to each input named in ``names`` (position -> name)
    equals ``reference``'s: a detached state (``.detach()``, ``.data``, ``.item()``, ``torch.no_grad()``) fails,
    with ``why`` gradients must flow."""
    wrt = tuple(names)
    expected = gradients_through(exercise, reference, inputs, wrt)
    try:
        got = call_answer(exercise, gradients_through, exercise, func, tuple(inputs), wrt, reason, substitutes,
                          banned=banned, reason=reason)  # the helpers are swapped in where func is
    except AnswerError as err:
        raised = raised_by_answer(err)
        if raised is None:
            raise
        wanted = " and ".join(f"`{name}`" for name in names.values())
        raise AnswerError(exercise, f"when {wanted} require gradients your {exercise} {raised[1]}: compute with torch "
                                    "operations only (no `.numpy()`, `.item()` or `.tolist()`), so that gradients can "
                                    f"flow back. {why}") from None
    for name, want, have in zip(names.values(), expected, got):
        if have is None or not close(have, want):
            how = "no gradient reaches" if have is None or not bool(have.abs().sum()) else "the wrong gradient reaches"
            raise AnswerError(exercise, f"{how} `{name}` through your {exercise}: the state is detached somewhere "
                                        "(`.detach()`, `.data`, `.item()`, `torch.no_grad()`, or a new tensor built "
                                        f"from its numbers). {why}")
