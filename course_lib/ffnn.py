"""Bengio et al.'s (2003) feed-forward neural language model.

The previous n-1 words are looked up in a shared embedding table C, concatenated into one vector
x, passed through one tanh hidden layer, and scored against every word of the vocabulary:

    x = [C(w_{t-n+1}); ...; C(w_{t-1})]        (B, (n-1) m)
    y = b + W x + U tanh(d + H x)               (B, V)   logits; W x: optional direct connections
    p(w_t | context) = softmax(y)

Because similar words get similar rows of C, what the model learns about "the cat is walking in
the bedroom" carries over to "a dog was running in a room": the generalisation an n-gram model,
which only counts exact word sequences, cannot make.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import torch
from torch import nn

from course_lib.loss import lm_loss
from course_lib.validation import (require, require_config, require_positive_int, require_same_device, require_shape,
                                   require_token_ids)

__all__ = ["FFNNConfig", "FFNNLanguageModel", "context_windows"]


def context_windows(sentences: Sequence[Sequence[int]], context_size: int, bos_id: int, eos_id: int
                    ) -> tuple[torch.Tensor, torch.Tensor]:
    """Every (context, next word) pair of the sentences, as contexts (N, context_size) and targets (N,).

    Each sentence (a list of word ids without boundary symbols) gets ``context_size`` <s> in front
    and one </s> at the end, so every word and the end of the sentence are predicted once.
    """
    require_positive_int("context_size (n - 1 for an n-gram window)", context_size)
    contexts, targets = [], []
    for sentence in sentences:
        ids = [bos_id] * context_size + [int(i) for i in sentence] + [eos_id]
        for t in range(context_size, len(ids)):
            contexts.append(ids[t - context_size:t])
            targets.append(ids[t])
    require(targets, "context_windows got no sentences: the corpus is empty.")
    return torch.tensor(contexts, dtype=torch.long), torch.tensor(targets, dtype=torch.long)


@dataclass
class FFNNConfig:
    vocab_size: int
    context_size: int = 5   # n - 1 words of context
    embed_dim: int = 16     # m
    hidden_dim: int = 64    # h
    direct: bool = False    # Bengio's direct connections W x from the embeddings to the output

    def __post_init__(self):
        require_config(self)


class FFNNLanguageModel(nn.Module):
    """``logits, loss = model(idx, targets=None)``: idx (B, context_size) ids -> logits (B, V)."""

    def __init__(self, config: FFNNConfig):
        super().__init__()
        self.config = config
        n_in = config.context_size * config.embed_dim
        self.C = nn.Embedding(config.vocab_size, config.embed_dim)          # the word feature table
        self.H = nn.Linear(n_in, config.hidden_dim)                         # hidden weights H, bias d
        self.U = nn.Linear(config.hidden_dim, config.vocab_size)            # output weights U, bias b
        self.W = nn.Linear(n_in, config.vocab_size, bias=False) if config.direct else None

    @property
    def context_size(self) -> int:
        return self.config.context_size

    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None):
        require_token_ids("idx", idx, self.config.vocab_size)
        require_shape("idx", idx, f"(batch, {self.context_size})", (None, self.context_size),
                      f": one window of {self.context_size} context words per row")
        require_same_device("idx", idx, "the model", self.C.weight)
        x = self.C(idx).flatten(1)  # (B, context_size * embed_dim): the concatenated embeddings
        logits = self.U(torch.tanh(self.H(x)))  # (B, V)
        if self.W is not None:
            logits = logits + self.W(x)
        loss = None if targets is None else lm_loss(logits, targets)
        return logits, loss

    def bengio_parameters(self) -> dict[str, torch.Tensor | None]:
        """The weights under the paper's names: C (V, m), H (h, (n-1)m), d (h,), U (V, h), b (V,),
        W (V, (n-1)m) or None."""
        return {"C": self.C.weight, "H": self.H.weight, "d": self.H.bias, "U": self.U.weight, "b": self.U.bias,
                "W": None if self.W is None else self.W.weight}
