"""Scaled dot-product attention, written out step by step (Vaswani et al., 2017).

    scores  = Q K^T / sqrt(d_k)                (..., n_q, n_k)
    scores  = -inf where the mask forbids       (mask: True = may attend)
    weights = softmax(scores, dim=-1)           each query's weights sum to 1
    output  = weights V                         (..., n_q, d_v)

Any leading batch / head dimensions are allowed; everything runs on the inputs' device.
This is the course's reference; the graded checks compare students' answers with
PyTorch's own ``F.scaled_dot_product_attention``, not with this file.
"""
from __future__ import annotations

import math

import torch

from course_lib.validation import require_attention, require_positive_int


def causal_mask(n: int, device: torch.device | str | None = None) -> torch.Tensor:
    """(n, n) bool mask, True where query i may attend to key j, i.e. j <= i."""
    require_positive_int("causal_mask's length n", n)
    return torch.ones(n, n, dtype=torch.bool, device=device).tril()


def attention_scores(Q: torch.Tensor, K: torch.Tensor) -> torch.Tensor:
    """Q (..., n_q, d_k), K (..., n_k, d_k) -> scaled scores (..., n_q, n_k)."""
    require_attention(Q, K)
    d_k = Q.shape[-1]
    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)


def scaled_dot_product_attention(
    Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Return ``(output, weights)``: output (..., n_q, d_v), weights (..., n_q, n_k).

    ``mask`` is a bool tensor broadcastable to (..., n_q, n_k), True where attention
    is allowed (the convention of ``F.scaled_dot_product_attention``).
    """
    scores = attention_scores(Q, K)  # (..., n_q, n_k); it checks Q and K
    require_attention(K=K, V=V, mask=mask)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)  # (..., n_q, n_k)
    return weights @ V, weights
