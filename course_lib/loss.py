"""The loss of every language model of the course: mean cross-entropy in nats over the target tokens.

``IGNORE_INDEX`` (-100, PyTorch's default) marks a target position that does not count: padding,
or a token BERT's masked LM does not predict. A model returns ``lm_loss(logits, targets)`` as the
second half of the course contract ``logits, loss = model(idx, targets=None)``.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = ["IGNORE_INDEX", "lm_loss"]

IGNORE_INDEX = -100


def lm_loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy (nats per token) of logits (..., V) against targets (...), skipping IGNORE_INDEX."""
    if logits.shape[:-1] != targets.shape:
        raise ValueError(f"logits {tuple(logits.shape)} and targets {tuple(targets.shape)} do not match: "
                         "logits must be targets' shape plus one vocabulary dimension.")
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=IGNORE_INDEX)
