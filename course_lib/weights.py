"""Copying another implementation's weights into the course's modules, with a sentence when they do not fit.

The tests show that a course model computes the same function as PyTorch's or Hugging Face's by
copying that model's weights into ours and comparing the outputs. These helpers do the copying,
one tensor, one linear layer or one LayerNorm at a time; a shape, a bias or an eps that does not
match stops the copy with a sentence naming the weight (``what``), instead of a silent
broadcast or a message from inside torch. Call them under ``torch.no_grad()``.

:func:`read_checkpoint` reads a checkpoint that the course ships (weights and plain data only).
"""
from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

__all__ = ["copy_tensor", "copy_linear", "copy_layer_norm", "read_checkpoint"]


def copy_tensor(ours: torch.Tensor | None, theirs: torch.Tensor | None, what: str) -> None:
    """ours <- theirs; both must exist (or both be None, e.g. a missing bias) and have one shape."""
    if (ours is None) != (theirs is None):
        raise ValueError(f"cannot copy {what}: only one of the two modules has it; "
                         "build both with the same bias setting.")
    if ours is None:
        return
    if ours.shape != theirs.shape:
        raise ValueError(f"cannot copy {what}: PyTorch's has shape {tuple(theirs.shape)} but ours "
                         f"{tuple(ours.shape)}; build both with the same sizes.")
    ours.copy_(theirs)


def copy_linear(ours: nn.Linear, weight: torch.Tensor, bias: torch.Tensor | None, what: str) -> None:
    """A linear layer's weight (out, in) and bias (out,) or None."""
    copy_tensor(ours.weight, weight, f"{what}.weight")
    copy_tensor(ours.bias, bias, f"{what}.bias")


def copy_layer_norm(ours: nn.LayerNorm, theirs: nn.LayerNorm, what: str) -> None:
    """A LayerNorm's gain and bias; the two must also add the same eps to the variance."""
    if ours.eps != theirs.eps:
        raise ValueError(f"cannot copy {what}: PyTorch's LayerNorm has eps={theirs.eps} but ours {ours.eps}.")
    copy_tensor(ours.weight, theirs.weight, f"{what}.weight")
    copy_tensor(ours.bias, theirs.bias, f"{what}.bias")


def read_checkpoint(path: str | Path, what: str, written_by: str) -> dict:
    """The dict saved at ``path``, its tensors on the CPU (weights and plain data only, nothing to execute).

    A missing file is a sentence naming ``what`` it should hold and the command ``written_by`` that writes it.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no {what} checkpoint at {path}; write one with `{written_by}`.")
    return torch.load(path, map_location="cpu", weights_only=True)
