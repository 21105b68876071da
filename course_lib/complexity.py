"""How the cost of a layer grows with the sequence length n: time, memory, and the slope on log axes (notebook 06).

The table of the lecture "LSTMs & Transformers" compares, per layer, self-attention (O(n^2 d) operations,
O(1) sequential steps, the n x n weights to store) with a recurrent layer (O(n d^2) operations, O(n) sequential steps).
:func:`measure_scaling` measures both quantities a learner can see on their own machine:

- seconds per forward pass (the best of a few repeats, after one warm-up call);
- the bytes autograd keeps for the backward pass (every tensor saved during the forward pass,
  counted once): this is the memory that grows with n, and it is the same on every device.

:func:`loglog_slope` fits log(cost) = slope * log(n) + c: a slope near 1 is linear growth, near 2
quadratic.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable, Sequence

import torch

__all__ = ["Scaling", "measure_scaling", "saved_bytes", "loglog_slope"]


@dataclass
class Scaling:
    lengths: list[int]
    seconds: list[float]
    saved_bytes: list[int]

    def slopes(self, tail: int = 3) -> tuple[float, float]:
        """(time slope, memory slope) over the ``tail`` longest lengths, where the leading term dominates."""
        return (loglog_slope(self.lengths[-tail:], self.seconds[-tail:]),
                loglog_slope(self.lengths[-tail:], self.saved_bytes[-tail:]))


def saved_bytes(forward: Callable[[], torch.Tensor]) -> int:
    """Bytes of the tensors autograd saves for backward while ``forward()`` runs (each storage counted once)."""
    seen: dict[tuple, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        storage = t.untyped_storage()
        seen[(storage.data_ptr(), t.device.type)] = storage.nbytes()
        return t

    with torch.enable_grad(), torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        forward()
    return sum(seen.values())


def _synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def measure_scaling(layer: torch.nn.Module, lengths: Sequence[int], d_model: int, batch: int = 1, repeats: int = 3,
                    call: Callable[[torch.nn.Module, torch.Tensor], torch.Tensor] | None = None) -> Scaling:
    """Time and saved memory of ``layer`` on inputs (batch, n, d_model) for each n in ``lengths``.

    ``call(layer, x)`` runs the layer (default ``layer(x)``, keeping the first element of a tuple).
    The inputs live on the layer's device and require grad, as in training.
    """
    if not lengths or any(not isinstance(n, int) or n < 1 for n in lengths):
        raise ValueError(f"lengths must be positive integers, got {list(lengths)!r}.")
    parameter = next(layer.parameters())
    device, dtype = parameter.device, parameter.dtype
    run = call or (lambda module, x: module(x)[0] if isinstance(module(x), tuple) else module(x))
    result = Scaling([], [], [])
    generator = torch.Generator().manual_seed(0)
    for n in lengths:
        x = torch.randn(batch, n, d_model, generator=generator, dtype=dtype).to(device).requires_grad_()
        with torch.no_grad():
            run(layer, x)  # warm-up
        best = math.inf
        for _ in range(repeats):
            _synchronize(device)
            start = time.perf_counter()
            with torch.no_grad():
                run(layer, x)
            _synchronize(device)
            best = min(best, time.perf_counter() - start)
        result.lengths.append(n)
        result.seconds.append(best)
        result.saved_bytes.append(saved_bytes(lambda: run(layer, x)))
    return result


def loglog_slope(lengths: Sequence[float], values: Sequence[float]) -> float:
    """The least-squares slope of log(values) against log(lengths)."""
    if len(lengths) != len(values) or len(lengths) < 2:
        raise ValueError("loglog_slope needs at least two (length, value) pairs of equal count.")
    if min(lengths) <= 0 or min(values) <= 0:
        raise ValueError("loglog_slope needs positive lengths and values (it takes their logarithms).")
    x = torch.tensor([math.log(v) for v in lengths], dtype=torch.float64)
    y = torch.tensor([math.log(v) for v in values], dtype=torch.float64)
    x = x - x.mean()
    return float((x * (y - y.mean())).sum() / (x * x).sum())
