"""What the output layer costs as the vocabulary grows, and the sampled softmax that avoids most of it.

A language model ends with ``logits = h W^T + b`` over the whole vocabulary, W (V, d), and a
softmax over those V logits. For every token of every batch that is V dot products of length d,
forward and backward, V logits to keep for the backward pass, and V x d weights (with as many
gradients and two Adam moments each). With a word vocabulary of 100 000 it dwarfs the rest of a
small model (the lecture "Neural Network Language Models & BERT": the softmax over the vocabulary
is the expensive part).

:func:`measure_output_layer` times one forward and backward pass of ``cross_entropy(h W^T + b, y)``
for several vocabulary sizes and counts the bytes autograd keeps for the backward pass.

The **sampled softmax** (Jean et al., 2015; TensorFlow's ``sampled_softmax_loss``) trains with the
true word's logit against the logits of K words drawn from a proposal distribution Q, shared by the
batch, instead of all V::

    corrected logit of word c  =  h . w_c + b_c - log(K Q(c))      (c: the true word, then the K drawn ones)
    loss                       =  cross-entropy over those 1 + K logits, the true word first

A drawn word that is the row's own true word is masked out ("accidental hit"). Subtracting
log(K Q(c)) makes the K drawn words an importance sample of the whole vocabulary, so the gradient
approximates the full softmax's; the cost per token is K + 1 dot products instead of V. It is for
training only: the model is evaluated with the full softmax (:func:`full_softmax_loss`).
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import torch
import torch.nn.functional as F

from course_lib.complexity import saved_bytes
from course_lib.validation import require, require_positive_int

__all__ = ["full_softmax_loss", "draw_samples", "sampled_softmax_loss", "OutputLayerCost", "measure_output_layer",
           "OUTPUT_LAYER_ASSET", "load_output_layer_results"]

#: what ``benchmarks/output_layer.py`` measured (the cost sweep and the trained bigram case), shipped for notebook 06
OUTPUT_LAYER_ASSET = Path(__file__).resolve().parent / "assets" / "output_layer.json"


def full_softmax_loss(hidden: torch.Tensor, targets: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor
                      ) -> torch.Tensor:
    """The mean cross-entropy of softmax(hidden W^T + b): hidden (N, d), targets (N,), W (V, d), b (V,)."""
    return F.cross_entropy(hidden @ weight.T + bias, targets)  # logits (N, V)


def draw_samples(proposal: torch.Tensor, num_sampled: int, generator: torch.Generator | None = None) -> torch.Tensor:
    """``num_sampled`` word ids (K,) drawn with replacement from the probabilities ``proposal`` (V,)."""
    require_positive_int("num_sampled", num_sampled)
    require(proposal.dim() == 1 and bool((proposal >= 0).all()) and float(proposal.sum()) > 0,
            "proposal must be a (V,) tensor of non-negative probabilities that do not all vanish.")
    return torch.multinomial(proposal, num_sampled, replacement=True, generator=generator)


def sampled_softmax_loss(hidden: torch.Tensor, targets: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
                         sampled: torch.Tensor, proposal: torch.Tensor, sparse_gradient: bool = False
                         ) -> torch.Tensor:
    """The mean sampled-softmax loss: hidden (N, d), targets (N,), W (V, d), b (V,), sampled ids (K,), proposal (V,).

    Only the rows of W and b for the N true words and the K sampled words are used. Their gradient is
    a dense (V, d) tensor that is zero elsewhere (filling it costs time in V), or with
    ``sparse_gradient`` a sparse one that holds only those rows (for optimisers that accept it, e.g.
    ``torch.optim.SGD`` or ``SparseAdam``); b's gradient (V numbers) is always dense.
    """
    require(sampled.dim() == 1 and len(sampled) > 0, "sampled must be a (K,) tensor of word ids, K >= 1.")
    require(proposal.shape == bias.shape, f"proposal must have one probability per word, shape {tuple(bias.shape)}, "
            f"got {tuple(proposal.shape)}.")
    expected_count = len(sampled) * proposal.to(hidden.dtype)  # (V,): K Q(c), how often c is drawn on average

    def rows(ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:  # W's rows (n, d) and b's entries (n,)
        return F.embedding(ids, weight, sparse=sparse_gradient), bias[ids]  # b is only V numbers: kept dense

    true_weight, true_bias = rows(targets)                                                  # (N, d), (N,)
    sampled_weight, sampled_bias = rows(sampled)                                            # (K, d), (K,)
    true_logits = (hidden * true_weight).sum(-1) + true_bias - expected_count[targets].log()  # (N,)
    sampled_logits = hidden @ sampled_weight.T + sampled_bias - expected_count[sampled].log()  # (N, K)
    hits = sampled[None, :] == targets[:, None]  # (N, K): a drawn word that is the row's true word
    sampled_logits = sampled_logits.masked_fill(hits, float("-inf"))
    logits = torch.cat([true_logits[:, None], sampled_logits], dim=1)  # (N, 1 + K): the true word is class 0
    return F.cross_entropy(logits, torch.zeros(len(targets), dtype=torch.long, device=targets.device))


@dataclass
class OutputLayerCost:
    """Per vocabulary size: seconds of one forward + backward pass (best of the repeats), the bytes autograd
    saves for the backward pass beyond h and W themselves (what grows with tokens x V), and the bytes of W and b
    (their gradient takes as many again, Adam's two moments twice that)."""

    vocab_sizes: list[int]
    d_model: int
    tokens: int
    seconds: list[float] = field(default_factory=list)
    saved_bytes: list[int] = field(default_factory=list)
    weight_bytes: list[int] = field(default_factory=list)
    sampled_seconds: list[float] = field(default_factory=list)  # with num_sampled: the sampled softmax's
    num_sampled: int | None = None


def _best_time(step, repeats: int, device: torch.device) -> float:
    step()  # warm-up
    best = math.inf
    for _ in range(repeats):
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        start = time.perf_counter()
        step()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        best = min(best, time.perf_counter() - start)
    return best


def measure_output_layer(vocab_sizes: Sequence[int], d_model: int = 256, tokens: int = 32, repeats: int = 3,
                         num_sampled: int | None = None, device: torch.device | str = "cpu",
                         seed: int = 0) -> OutputLayerCost:
    """Cost of the output layer and its softmax cross-entropy on ``tokens`` positions, for each vocabulary size.

    With ``num_sampled`` the sampled softmax (uniform proposal, K = num_sampled) is timed as well.
    """
    require(len(vocab_sizes) > 0, "measure_output_layer needs at least one vocabulary size.")
    for name, value in (("d_model", d_model), ("tokens", tokens), ("repeats", repeats), *(
            ("each vocabulary size", v) for v in vocab_sizes)):
        require_positive_int(name, value)
    device = torch.device(device)
    generator = torch.Generator().manual_seed(seed)
    cost = OutputLayerCost(list(vocab_sizes), d_model, tokens, num_sampled=num_sampled)
    for V in vocab_sizes:
        weight = (torch.randn(V, d_model, generator=generator) / math.sqrt(d_model)).to(device).requires_grad_()
        bias = torch.zeros(V, device=device, requires_grad=True)
        hidden = torch.randn(tokens, d_model, generator=generator).to(device).requires_grad_()  # (N, d)
        targets = torch.randint(V, (tokens,), generator=generator).to(device)                   # (N,)

        def full_step():  # the gradients accumulate in buffers kept from step to step, as an optimiser's are
            full_softmax_loss(hidden, targets, weight, bias).backward()

        cost.seconds.append(_best_time(full_step, repeats, device))
        # what grows with tokens x V: h and W detached, so that autograd keeps only what the logits need
        cost.saved_bytes.append(saved_bytes(lambda: full_softmax_loss(hidden.detach(), targets, weight.detach(),
                                                                      bias)))
        weight.grad = bias.grad = hidden.grad = None
        cost.weight_bytes.append((weight.numel() + bias.numel()) * weight.element_size())
        if num_sampled:
            proposal = torch.full((V,), 1.0 / V, device=device)

            def sampled_step():
                sampled = draw_samples(proposal, num_sampled, generator=None)
                loss = sampled_softmax_loss(hidden, targets, weight, bias, sampled, proposal, sparse_gradient=True)
                loss.backward()
                weight.grad = bias.grad = hidden.grad = None

            cost.sampled_seconds.append(_best_time(sampled_step, repeats, device))
    return cost


def load_output_layer_results(path: str | Path | None = None) -> dict[str, Any]:
    """The results of ``benchmarks/output_layer.py`` (default: the copy in ``course_lib/assets``): ``cost``
    (an :class:`OutputLayerCost` as a dict) and ``bigram`` (the trained case: each run's held-out curve)."""
    with open(OUTPUT_LAYER_ASSET if path is None else path, encoding="utf-8") as f:
        return json.load(f)
