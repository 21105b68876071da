"""Input checks shared by every module: a wrong input gets one sentence saying what was expected.

They run before torch would fail somewhere deep inside a matmul with a message about strides.
"""
from __future__ import annotations

from typing import Any

import torch

__all__ = ["require_float_tensor", "require_token_ids", "require_same_kind", "require_positive_int",
           "require_positive_ints", "require_probability"]


def require_float_tensor(name: str, x: Any, shape: str) -> None:
    """x must be a floating-point tensor with the dimensions ``shape`` names, e.g. "(B, T, D)".

    A shape starting with "..." (e.g. "(..., seq_len, dim)") allows any number of leading dimensions.
    """
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor of shape {shape}, got {type(x).__name__}.")
    if not x.is_floating_point():
        raise TypeError(f"{name} must hold floating-point numbers, got dtype {x.dtype}; try {name}.float().")
    parts = [part.strip() for part in shape.strip("()").split(",") if part.strip()]
    if parts and parts[0] == "...":
        if x.dim() < len(parts) - 1:
            raise ValueError(f"{name} must have shape {shape}, got shape {tuple(x.shape)}.")
    elif x.dim() != len(parts):
        raise ValueError(f"{name} must have shape {shape}, got shape {tuple(x.shape)}.")


def require_token_ids(name: str, x: Any, vocab_size: int | None = None) -> None:
    """x must be an integer tensor of token ids (in [0, vocab_size) when vocab_size is given)."""
    if not isinstance(x, torch.Tensor) or x.dtype not in (torch.int64, torch.int32):
        got = x.dtype if isinstance(x, torch.Tensor) else type(x).__name__
        raise TypeError(f"{name} must be an integer (torch.long) tensor of token ids, got {got}.")
    if vocab_size is not None and x.numel() and (int(x.min()) < 0 or int(x.max()) >= vocab_size):
        raise ValueError(f"{name}: token ids must lie in [0, {vocab_size}), got values from {int(x.min())} to "
                         f"{int(x.max())}; encode the text with the model's own vocabulary.")


def require_same_kind(tensors: dict[str, torch.Tensor]) -> None:
    """All tensors must share one dtype and one device (torch would otherwise fail inside a matmul)."""
    (first, reference), *rest = tensors.items()
    for name, x in rest:
        if x.dtype != reference.dtype:
            raise TypeError(f"{name} has dtype {x.dtype} but {first} has {reference.dtype}; "
                            "convert them to one dtype, e.g. with .double().")
        if x.device != reference.device:
            raise ValueError(f"{name} is on {x.device} but {first} is on {reference.device}; move them to one device.")


def require_positive_int(name: str, value: Any) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}.")


def require_positive_ints(owner: str, **sizes: Any) -> None:
    """Each keyword must be a positive integer; errors name it as ``owner.name``."""
    for name, value in sizes.items():
        require_positive_int(f"{owner}.{name}", value)


def require_probability(name: str, value: Any) -> None:
    """A dropout-style probability in [0, 1)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0.0 <= value < 1.0:
        raise ValueError(f"{name} must be a probability in [0, 1), got {value!r}.")
