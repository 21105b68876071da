"""What the checks of notebook 05 (self-attention) share: the lecture's "Computers are thinking machines" matrix, the
references (PyTorch's ``F.scaled_dot_product_attention``; the weights by attending over an identity matrix of values),
and what is switched off during graded calls.
"""
from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F

import course_lib.attention as course_attention
from course_lib.grading.answers import Banned

#: "Computers are thinking machines" (the lecture "Neural Network Language Models & BERT"): Q = K = V, one row per word.
WORDS = ["Computers", "are", "thinking", "machines"]
THINKING_MACHINES = [[0.2, 0.8], [-0.2, 0.5], [-0.3, -0.4], [0.7, 0.7]]


def thinking_machines(dtype: torch.dtype = torch.float64, device: Any = None) -> torch.Tensor:
    """The lecture's 4 x 2 matrix Q = K = V."""
    return torch.tensor(THINKING_MACHINES, dtype=dtype, device=device)


# ---------------------------------------------------------------------------
# independent references


def reference_scores(Q: torch.Tensor, K: torch.Tensor) -> torch.Tensor:
    """Q K^T / sqrt(d_k), over the last two axes."""
    return torch.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(Q.shape[-1])


def reference_attention(Q, K, V, mask=None):
    """(output, weights) from PyTorch's fused kernel; weights by attending over the identity."""
    n_k = K.shape[-2]
    eye = torch.eye(n_k, dtype=V.dtype, device=V.device).expand(*V.shape[:-2], n_k, n_k)
    output = F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)
    weights = F.scaled_dot_product_attention(Q, K, eye, attn_mask=mask)
    return output, weights


# ---------------------------------------------------------------------------
# what is switched off during graded calls

ATTENTION_BUILTINS = [
    Banned(F, "scaled_dot_product_attention", "torch.nn.functional.scaled_dot_product_attention"),
    Banned(torch._C._nn, "scaled_dot_product_attention", "torch._C._nn.scaled_dot_product_attention"),
    Banned(torch.nn, "MultiheadAttention", "torch.nn.MultiheadAttention"),
    Banned(course_attention, "scaled_dot_product_attention", "course_lib.attention.scaled_dot_product_attention"),
    Banned(course_attention, "attention_scores", "course_lib.attention.attention_scores"),
    Banned(course_attention, "causal_mask", "course_lib.attention.causal_mask"),
]
