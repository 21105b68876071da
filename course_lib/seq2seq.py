"""Where attention came from: an encoder-decoder RNN whose decoder attends over the encoder's states.

Bahdanau, Cho and Bengio (2015) let the decoder of a translation model look back at every state of
the encoder instead of only the last one; Luong, Pham and Manning (2015) compared score functions.
The model here is Luong et al.'s global attention, small, with PyTorch's GRU for the recurrences::

    encoder   H   = BiGRU(embed(source))                          (B, S, 2h): one state per source symbol
    decoder   s_t = GRU(embed(y_(t-1)), s_(t-1))                  (B, 2h), s_0 = the encoder's final states
    scores    e_t = score(s_t as a query, H as keys)              (B, S)
    weights   a_t = softmax(e_t)                                  (B, S): sums to 1 over the source
    context   c_t = a_t H                                         (B, 2h): the encoder states are the values
    output    logits_t = Linear([s_t; c_t])                       (B, V)

With teacher forcing every step's query is known in advance, so one call of the score function
scores all of them, queries (B, T, 2h) against keys (B, S, 2h); greedy decoding calls it once per
step with one query (B, 1, 2h).

The score function is an argument, so a notebook can train the model with a student's own
``dot_score``, ``scaled_dot_score``, ``bilinear_score`` or ``additive_score``; the references are
here (the scaled dot product is :func:`course_lib.attention.attention_scores`). With
``score=None`` there is no attention: the decoder sees the source only through ``s_0``, one vector
of 2h numbers, the bottleneck attention removes.

The model follows the course's contract ``logits, loss = model(source, targets=None)``; with
targets it is trained by teacher forcing (the decoder reads the true previous symbol), without
them it decodes greedily as many symbols as the source has. :meth:`Seq2Seq.decode` also returns
the attention weights (the alignment).

The task is reversal (:func:`reversal_batches`): output the source symbols in reverse order.
Output symbol t comes from source position S - 1 - t, so a model that attends to the right
place draws an anti-diagonal.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import torch
import torch.nn as nn

from course_lib.attention import attention_scores as scaled_dot_score
from course_lib.loss import lm_loss
from course_lib.validation import (inputs_checked, require, require_attention, require_choice, require_config,
                                   require_float_tensor, require_positive_int, require_positive_ints,
                                   require_sequence_ids, require_type)

__all__ = ["dot_score", "scaled_dot_score", "bilinear_score", "additive_score", "SCORES", "Seq2SeqConfig",
           "ScoreParameters", "Seq2Seq", "reversal_batch", "reversal_batches", "reversal_accuracy", "symbols"]


# ---------------------------------------------------------------------------
# score functions: every query (..., n_q, d_q) against every key (..., n_k, d_k) -> (..., n_q, n_k)


def dot_score(Q: torch.Tensor, K: torch.Tensor) -> torch.Tensor:
    """q_i . k_j for every query and key: Q (..., n_q, d), K (..., n_k, d) -> (..., n_q, n_k)."""
    require_attention(Q, K)  # the dot score has no weights: Q and K must share their last dimension
    return Q @ K.transpose(-2, -1)


def bilinear_score(Q: torch.Tensor, K: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    """q_i^T W k_j: Q (..., n_q, d_q), K (..., n_k, d_k), W (d_q, d_k) -> (..., n_q, n_k)."""
    require_attention(Q, K, same_dim=False)
    require_float_tensor("W", W, "(d_q, d_k)", (Q.shape[-1], K.shape[-1]),
                         f" = ({Q.shape[-1]}, {K.shape[-1]}), Q's and K's last dimensions", like={"Q": Q})
    return (Q @ W) @ K.transpose(-2, -1)                    # (..., n_q, d_k) @ (..., d_k, n_k)


def additive_score(Q: torch.Tensor, K: torch.Tensor, W: torch.Tensor, U: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """v . tanh(W q_i + U k_j): Q (..., n_q, d_q), K (..., n_k, d_k), W (d_a, d_q), U (d_a, d_k), v (d_a,).

    Returns (..., n_q, n_k). The lecture's form w2 . tanh(W1 [q; k]) is this one with W1 = [W U].
    """
    require_attention(Q, K, same_dim=False)
    require_float_tensor("v", v, "(d_a,)", like={"Q": Q})
    d_a = len(v)
    require_float_tensor("W", W, "(d_a, d_q)", (d_a, Q.shape[-1]), f" = ({d_a}, {Q.shape[-1]}), v's length by Q's last "
                         "dimension", like={"Q": Q})
    require_float_tensor("U", U, "(d_a, d_k)", (d_a, K.shape[-1]), f" = ({d_a}, {K.shape[-1]}), v's length by K's last "
                         "dimension", like={"Q": Q})
    queries = (Q @ W.T).unsqueeze(-2)                       # (..., n_q, 1, d_a)
    keys = (K @ U.T).unsqueeze(-3)                          # (..., 1, n_k, d_a)
    return torch.tanh(queries + keys) @ v                   # (..., n_q, n_k)


#: the score functions by name
SCORES: dict[str, Callable[..., torch.Tensor]] = {
    "dot": dot_score, "scaled_dot": scaled_dot_score, "bilinear": bilinear_score, "additive": additive_score,
}


class ScoreParameters(nn.Module):
    """The learned weights a score function takes after (Q, K): none, (W,) or (W, U, v)."""

    def __init__(self, score: str, d_query: int, d_key: int, attention_size: int):
        super().__init__()
        require_choice("score", score, SCORES)
        self.score = score
        self.weights = nn.ParameterList()
        if score == "bilinear":
            self.weights.append(nn.Parameter(torch.randn(d_query, d_key) / math.sqrt(d_query)))           # W
        elif score == "additive":
            self.weights.append(nn.Parameter(torch.randn(attention_size, d_query) / math.sqrt(d_query)))  # W
            self.weights.append(nn.Parameter(torch.randn(attention_size, d_key) / math.sqrt(d_key)))      # U
            self.weights.append(nn.Parameter(torch.randn(attention_size) / math.sqrt(attention_size)))    # v

    def forward(self) -> tuple[torch.Tensor, ...]:
        return tuple(self.weights)


# ---------------------------------------------------------------------------
# the model


@dataclass
class Seq2SeqConfig:
    num_symbols: int                 # output symbols 0 .. num_symbols - 1; the decoder's start symbol is num_symbols
    embed_dim: int = 16
    hidden_size: int = 32            # per encoder direction; the decoder's state has 2 * hidden_size numbers
    score: str | None = "additive"   # "dot", "scaled_dot", "bilinear", "additive", or None: no attention
    attention_size: int = 32         # d_a, the hidden units of the additive score

    def __post_init__(self):
        require_config(self, score=SCORES)  # score None: no attention


class Seq2Seq(nn.Module):
    """A bidirectional GRU encoder and a GRU decoder that attends over the encoder's states.

    ``score_fn`` computes the scores (default: this module's reference for ``config.score``); it is
    called as ``score_fn(queries (B, T, 2h), keys (B, S, 2h), *weights)``, the weights being those of
    :class:`ScoreParameters` (none, ``W``, or ``W, U, v``), and must return (B, T, S).
    """

    def __init__(self, config: Seq2SeqConfig, score_fn: Callable[..., torch.Tensor] | None = None):
        super().__init__()
        require_type(config, Seq2SeqConfig, "Seq2Seq takes a Seq2SeqConfig")
        require(score_fn is None or callable(score_fn), "score_fn must be a function (query, keys, *weights) -> "
                f"scores, got {type(score_fn).__name__}.", TypeError)
        require(score_fn is None or config.score is not None, "score_fn is given but config.score is None (no "
                "attention): name the score it computes, e.g. Seq2SeqConfig(..., score='additive').")
        self.config = config
        h, d = config.hidden_size, 2 * config.hidden_size
        self.attends = config.score is not None
        self.source_embedding = nn.Embedding(config.num_symbols, config.embed_dim)
        self.target_embedding = nn.Embedding(config.num_symbols + 1, config.embed_dim)  # + the start symbol
        self.encoder = nn.GRU(config.embed_dim, h, batch_first=True, bidirectional=True)
        self.decoder = nn.GRU(config.embed_dim, d, batch_first=True)
        self.output = nn.Linear(2 * d if self.attends else d, config.num_symbols)
        if self.attends:
            self.score_fn = score_fn or SCORES[config.score]
            self.score_weights = ScoreParameters(config.score, d, d, config.attention_size)

    def encode(self, source: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Encoder states H (B, S, 2h) and the decoder's first state s_0 (B, 2h)."""
        states, last = self.encoder(self.source_embedding(source))     # (B, S, 2h), (2, B, h)
        return states, torch.cat([last[0], last[1]], dim=-1)           # forward's and backward's final states

    def attend(self, queries: torch.Tensor, keys: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Queries (B, T, 2h) against keys = values (B, S, 2h) -> context (B, T, 2h), weights (B, T, S)."""
        scores = self.score_fn(queries, keys, *self.score_weights())   # (B, T, S)
        expected = (*queries.shape[:2], keys.shape[1])
        if not isinstance(scores, torch.Tensor) or tuple(scores.shape) != expected:  # the score function's answer
            got = tuple(scores.shape) if isinstance(scores, torch.Tensor) else type(scores).__name__
            raise ValueError(f"the score function returned {got} for queries (B, T, d) = {tuple(queries.shape)} and "
                             f"keys (B, S, d) = {tuple(keys.shape)}; it must return (B, T, S) = {expected}.")
        weights = torch.softmax(scores, dim=-1)                        # (B, T, S): each step's weights sum to 1
        return weights @ keys, weights                                 # (B, T, 2h), (B, T, S)

    def readout(self, states: torch.Tensor, keys: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Decoder states (B, T, 2h) -> logits (B, T, V) and attention weights (B, T, S) (None without attention)."""
        if not self.attends:
            return self.output(states), None
        context, weights = self.attend(states, keys)
        return self.output(torch.cat([states, context], dim=-1)), weights

    def decode(self, source: torch.Tensor, targets: torch.Tensor | None = None,
               steps: int | None = None) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Logits (B, T, V) and attention weights (B, T, S) (None without attention).

        With ``targets`` (B, T) the decoder reads the true previous symbols (teacher forcing);
        without, it reads its own greedy choices for ``steps`` steps (default: the source's length).
        """
        device, symbols = self.output.weight.device, self.config.num_symbols
        require_sequence_ids("source", source, symbols, device)
        if targets is not None:
            require_sequence_ids("targets", targets, symbols, device, batch=len(source))
        else:
            steps = source.shape[1] if steps is None else steps
            require_positive_int("steps", steps)
        with inputs_checked():  # the score function takes what was checked here
            keys, state = self.encode(source)                              # (B, S, 2h), (B, 2h)
            state = state.unsqueeze(0).contiguous()                        # (1, B, 2h), as nn.GRU wants it
            start = torch.full((len(source), 1), symbols, dtype=torch.long, device=source.device)
            if targets is not None:  # every step reads the true previous symbol: all steps at once
                previous = torch.cat([start, targets[:, :-1]], dim=1)      # (B, T)
                states, _ = self.decoder(self.target_embedding(previous), state)   # (B, T, 2h)
                return self.readout(states, keys)
            logits, weights, previous = [], [], start
            for _ in range(steps):                                         # greedy: read back the last choice
                states, state = self.decoder(self.target_embedding(previous), state)   # (B, 1, 2h)
                step_logits, step_weights = self.readout(states, keys)     # (B, 1, V), (B, 1, S)
                logits.append(step_logits)
                weights.append(step_weights)
                previous = step_logits.argmax(-1)                          # (B, 1)
        return torch.cat(logits, dim=1), torch.cat(weights, dim=1) if self.attends else None

    def forward(self, source: torch.Tensor, targets: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """``logits, loss = model(source, targets=None)``: teacher forcing with targets, greedy without."""
        logits, _ = self.decode(source, targets)
        return logits, None if targets is None else lm_loss(logits, targets)


# ---------------------------------------------------------------------------
# the reversal task


def reversal_batch(batch_size: int, length: int, num_symbols: int,
                   generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(source, target), both (batch_size, length): random symbols and the same symbols in reverse order."""
    require_positive_ints("reversal_batch", batch_size=batch_size, length=length, num_symbols=num_symbols)
    source = torch.randint(num_symbols, (batch_size, length), generator=generator)
    return source, source.flip(-1)


def reversal_batches(lengths: Sequence[int], batch_size: int, num_symbols: int
                     ) -> Callable[[torch.Generator], tuple[torch.Tensor, torch.Tensor]]:
    """For :func:`course_lib.train.train`: each call draws one length from ``lengths``, then a batch of that length."""
    lengths = list(lengths)
    if not lengths:
        raise ValueError("reversal_batches needs at least one sequence length.")
    for length in lengths:
        require_positive_int("each length", length)

    def draw(generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        length = lengths[int(torch.randint(len(lengths), (1,), generator=generator))]
        return reversal_batch(batch_size, length, num_symbols, generator)

    return draw


@torch.no_grad()
def reversal_accuracy(model: Seq2Seq, length: int, n: int = 500, seed: int = 1234) -> dict[str, float]:
    """Greedy decoding of ``n`` fresh sequences of ``length``: the fraction of symbols and of whole sequences right."""
    was_training = model.training
    model.eval()
    source, target = reversal_batch(n, length, model.config.num_symbols, torch.Generator().manual_seed(seed))
    source, target = source.to(model.output.weight.device), target.to(model.output.weight.device)
    logits, _ = model(source)
    model.train(was_training)
    right = logits.argmax(-1) == target                               # (n, length)
    return {"symbols": float(right.float().mean()), "sequences": float(right.all(-1).float().mean())}


def symbols(ids: torch.Tensor) -> list[str]:
    """Symbol ids as letters, for plots: 0 -> 'a', 1 -> 'b', ..."""
    return [chr(ord("a") + int(i)) for i in ids]
