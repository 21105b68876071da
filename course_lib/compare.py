"""One benchmark for the course's five language models: bits per character on held-out Python source.

:func:`compare_char_models` takes the character corpus of notebook 04 (the standard library's
source, :func:`course_lib.data.stdlib_source_text`), holds out its last 10%, and gives each model
the same wall-clock training budget:

- ``n-gram``: a count-based character model, interpolated Kneser-Ney (:class:`CharNGram`); its
  order is chosen among ``ngram_orders`` on a development split cut from the training text;
- ``FFNN``: Bengio's window model (:class:`course_lib.ffnn.FFNNLanguageModel`);
- ``RNN``, ``LSTM``, ``Transformer``: the sequence models of ``course_lib.rnn``, ``course_lib.lstm``
  and ``course_lib.transformer``.

The neural models train with :func:`course_lib.train.train` under
``TrainConfig(time_budget_s=budget_s)`` and are scored with :func:`course_lib.train.evaluate`.

How the scoring is kept fair. Every model is scored on exactly the same targets: every character
of the held-out 10%, each predicted from the characters before it (for the first few, those
characters come from the end of the training text: conditioning on them leaks nothing about the
targets). What each model may look at:

- the n-gram: the previous ``order - 1`` characters;
- the FFNN: the previous ``context`` characters (its window);
- a sequence model: a sliding window (:func:`sliding_windows`) of ``context`` characters (its
  training block length; the Transformer's ``block_size``), moved ``context // 2`` at a time,
  where only the targets not scored by an earlier window count. Each target therefore sees between
  ``context // 2 + 1`` and ``context`` characters, and is scored once. The RNN and LSTM start
  every window from a zero state, as in training, so none of them carries information across
  windows.

Measurements are not kept here: ``python -m course_lib.compare --budget 15 --threads 1`` prints
the table (model, setting, parameters, steps, seconds, characters per second, validation bits per
character, and the uniform baseline log2 V), and ``python benchmarks/run.py`` records it with the
machine it ran on in ``benchmarks/results/``, from which the README's "Measured" section is built.
Steps within a time budget depend on the machine and on its load, so compare models from one run.

Training compute, a measure that does not depend on the machine: :func:`flops_per_char` (about
6 x the weights that multiply each training character, plus the Transformer's attention) times the
training characters, and for the n-gram :func:`ngram_fit_operations`. ``benchmarks/crossover.py``
trains every model far longer than one budget, scoring it at checkpoints; its curves ship as
``course_lib/assets/crossover.json`` (:func:`load_crossover`, :func:`plot_crossover`).

On a CPU busy with other jobs, use one torch thread (``--threads 1``): threads that wait for each
other at every small operation can make training many times slower.
"""
from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch
from torch import nn

from course_lib.data import char_vocab, stdlib_source_text
from course_lib.device import get_device
from course_lib.ffnn import FFNNConfig, FFNNLanguageModel
from course_lib.lstm import LSTMConfig, LSTMLanguageModel
from course_lib.rnn import RNNConfig, RNNLanguageModel
from course_lib.train import IGNORE_INDEX, TrainConfig, evaluate, iterate_batches, sequence_batches, train, \
    window_batches
from course_lib.transformer import TransformerConfig, TransformerLM

__all__ = ["MODELS", "ModelSettings", "CompareConfig", "ModelResult", "CharNGram", "sliding_windows", "build_model",
           "compare_char_models", "run_ngram", "markdown_table", "plot_comparison", "main", "Corpus", "prepare_corpus",
           "training_batches", "scoring_rows", "flops_per_char", "ngram_fit_operations", "ngram_search_operations",
           "CROSSOVER_ASSET", "CROSSOVER_SPLITS", "crossover_curve", "ngram_baseline", "load_crossover", "bits_at",
           "overtakes", "crossover_table", "plot_crossover"]

MODELS = ("n-gram", "FFNN", "RNN", "LSTM", "Transformer")
_MAX_CODE = 2 ** 62  # n-gram codes are integers sum ids[i] V^k: they must fit in an int64


# ---------------------------------------------------------------------------
# the count-based model


class CharNGram:
    """A character n-gram model with interpolated Kneser-Ney smoothing, on integer ids in [0, V).

    Why not ``course_lib.ngram.NGramModel``: it is word-level and add-k only. It pads each
    "sentence" with <s> and </s> and adds <unk> and </s> to what it predicts (so its distribution
    is over V + 2 symbols, not the V characters the neural models predict), it cannot back off, so
    every context it has not seen gets the uniform distribution, and it looks up one probability at a
    time in Python dictionaries. This model keeps the counts in sorted NumPy arrays (an n-gram
    ``c_1 .. c_n`` is the integer ``sum c_i V^(n-i)``) and scores a whole stream at once.

    With discount D (given, or per order n1 / (n1 + 2 n2) from the counts of counts, kept in [0.1, 0.9])::

        P(c | h) = max(N(h c) - D, 0) / N(h .)  +  D T(h) / N(h .)  P(c | h minus its first char)
        P(c)     = max(N(c) - D, 0) / N(.)      +  D T() / N(.)     1 / V

    where T(h) is the number of distinct characters seen after h. At the highest order N counts
    occurrences; at the lower orders N(h c) is the *continuation* count, the number of distinct
    characters seen before h c (Kneser-Ney's idea: "how many contexts does this ending complete").
    A context never seen in training leaves the lower order's probability unchanged. Every
    distribution sums to one over the V characters, and no character gets probability zero.
    """

    def __init__(self, order: int, vocab_size: int, discount: float | None = None):
        if not isinstance(order, int) or isinstance(order, bool) or order < 1:
            raise ValueError(f"order must be a positive integer, got {order!r}.")
        if not isinstance(vocab_size, int) or vocab_size < 1:
            raise ValueError(f"vocab_size must be a positive integer, got {vocab_size!r}.")
        if vocab_size ** order >= _MAX_CODE:
            raise ValueError(f"order {order} with {vocab_size} characters is too large: the n-gram codes would "
                             "overflow 64-bit integers.")
        if discount is not None and not 0.0 < discount < 1.0:
            raise ValueError(f"discount must lie in (0, 1), got {discount!r}.")
        self.order, self.vocab_size, self.fixed_discount = order, vocab_size, discount
        self.levels: list[dict[str, Any]] = []

    def _codes(self, ids: np.ndarray, m: int) -> np.ndarray:
        """The code of every m-gram of ids, in order: (len(ids) - m + 1,)."""
        V, n = self.vocab_size, len(ids) - m + 1
        codes = np.zeros(max(n, 0), dtype=np.int64)
        for j in range(m):
            codes = codes * V + ids[j:j + n]
        return codes

    def fit(self, ids) -> "CharNGram":
        """Count the n-grams of a 1-D sequence of ids (a list, NumPy array or torch tensor)."""
        ids = _as_ids(ids, self.vocab_size)
        if len(ids) < self.order:
            raise ValueError(f"need at least order = {self.order} characters to fit, got {len(ids)}.")
        V = self.vocab_size
        unique = [None] + [np.unique(self._codes(ids, m)) for m in range(1, self.order + 1)]
        self.levels = []
        for m in range(1, self.order + 1):
            if m == self.order:  # the highest order: how often each n-gram occurs
                grams, counts = np.unique(self._codes(ids, m), return_counts=True)
            else:  # continuation counts: how many distinct characters precede each m-gram
                grams, counts = np.unique(unique[m + 1] % V ** m, return_counts=True)
            contexts, inverse = np.unique(grams // V, return_inverse=True)
            n1, n2 = int((counts == 1).sum()), int((counts == 2).sum())
            discount = self.fixed_discount
            if discount is None:
                discount = min(max(n1 / (n1 + 2 * n2), 0.1), 0.9) if n1 + n2 else 0.5
            self.levels.append(dict(grams=grams, counts=counts.astype(np.float64), contexts=contexts,
                                    totals=np.bincount(inverse, weights=counts).astype(np.float64),
                                    types=np.bincount(inverse).astype(np.float64), discount=discount))
        return self

    @property
    def num_counts(self) -> int:
        """How many numbers the model stores (n-gram counts and per-context totals): its "parameters"."""
        return sum(len(lv["grams"]) + 2 * len(lv["contexts"]) for lv in self.levels)

    def target_bits(self, ids, first_target: int | None = None) -> np.ndarray:
        """-log2 P(ids[j] | the order - 1 characters before it) for every j from ``first_target`` on."""
        if not self.levels:
            raise ValueError("fit the model before scoring with it.")
        ids = _as_ids(ids, self.vocab_size)
        first = self.order - 1 if first_target is None else first_target
        if not self.order - 1 <= first <= len(ids):
            raise ValueError(f"first_target must lie in [order - 1 = {self.order - 1}, {len(ids)}], got {first}.")
        V = self.vocab_size
        p = np.full(len(ids) - first, 1.0 / V)
        for m, level in enumerate(self.levels, start=1):
            grams = self._codes(ids[first - m + 1:], m)  # the m-gram ending at each target
            count = _lookup(level["grams"], level["counts"], grams)
            D = level["discount"]
            if m == 1:
                total, types = level["counts"].sum(), float(len(level["grams"]))
                p = (np.maximum(count - D, 0.0) + D * types * p) / total
            else:
                total = _lookup(level["contexts"], level["totals"], grams // V)
                types = _lookup(level["contexts"], level["types"], grams // V)
                seen = total > 0
                safe = np.where(seen, total, 1.0)
                p = np.where(seen, (np.maximum(count - D, 0.0) + D * types * p) / safe, p)
        return -np.log2(p)

    def bits_per_char(self, ids, first_target: int | None = None) -> float:
        return float(self.target_bits(ids, first_target).mean())


def _as_ids(ids, vocab_size: int) -> np.ndarray:
    if isinstance(ids, torch.Tensor):
        ids = ids.detach().cpu().numpy()
    ids = np.asarray(ids)
    if ids.ndim != 1 or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"ids must be a 1-D sequence of integer ids, got dtype {ids.dtype} and shape {ids.shape}.")
    if len(ids) and (ids.min() < 0 or ids.max() >= vocab_size):
        raise ValueError(f"ids must lie in [0, {vocab_size}), got values from {ids.min()} to {ids.max()}.")
    return ids.astype(np.int64)


def _lookup(keys: np.ndarray, values: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """values[i] where keys[i] == query (keys sorted), 0 where the query is not among the keys."""
    if len(keys) == 0:
        return np.zeros(len(queries))
    at = np.minimum(np.searchsorted(keys, queries), len(keys) - 1)
    return np.where(keys[at] == queries, values[at], 0.0)


# ---------------------------------------------------------------------------
# evaluation windows


def sliding_windows(ids: torch.Tensor, first_target: int, window: int, stride: int
                    ) -> tuple[torch.Tensor, torch.Tensor]:
    """Evaluation rows for a sequence model: x, y (n, window), scoring every ids[j], j >= first_target, once.

    Row k reads ``window`` characters and scores the targets ``first_target + k stride`` up to
    (excluding) ``first_target + (k + 1) stride``, the last ones of its window; the other positions
    of y are ``IGNORE_INDEX``. A scored target sees between ``window - stride + 1`` and ``window``
    characters. Needs ``first_target >= window`` (enough characters before the first target).
    """
    if ids.dim() != 1:
        raise ValueError(f"ids must be a 1-D stream, got shape {tuple(ids.shape)}.")
    if not 1 <= stride <= window:
        raise ValueError(f"stride must lie in [1, window = {window}], got {stride}.")
    if not window <= first_target < len(ids):
        raise ValueError(f"first_target must lie in [window = {window}, {len(ids)}), got {first_target}.")
    first = torch.arange(first_target, len(ids), stride)  # (n,): each row's first scored target
    end = torch.clamp(first + stride, max=len(ids))  # (n,): one past its last
    start = end - window - 1  # x = ids[start : start + window], y = ids[start + 1 : end]
    offsets = torch.arange(window)
    x = ids[start[:, None] + offsets]
    target_index = start[:, None] + 1 + offsets  # (n, window)
    y = ids[target_index].masked_fill(target_index < first[:, None], IGNORE_INDEX)
    return x, y


def _window_rows(ids: torch.Tensor, first_target: int, context: int) -> tuple[torch.Tensor, torch.Tensor]:
    """For the FFNN: contexts (n, context) and targets (n,) for every ids[j], j >= first_target."""
    targets = torch.arange(first_target, len(ids))
    return ids[targets[:, None] - context + torch.arange(context)], ids[targets]


# ---------------------------------------------------------------------------
# configuration and results


@dataclass
class ModelSettings:
    """How one neural model is built and trained.

    ``context``: the most characters of context: the FFNN's window, a sequence model's training
    block length (and the Transformer's ``block_size``). ``sizes``: the rest of the model's config
    (``FFNNConfig``, ``RNNConfig``, ``LSTMConfig`` or ``TransformerConfig``), without
    ``vocab_size``, ``context_size`` and ``block_size``.
    """

    context: int
    batch_size: int
    lr: float
    sizes: dict[str, Any] = field(default_factory=dict)


@dataclass
class CompareConfig:
    """What :func:`compare_char_models` runs; the neural models have 65-195k parameters.

    Each neural model's settings are the best of the same small search (learning rate 3e-3 or 1e-2,
    two widths, two context lengths: 8 runs of 15 s each, one torch thread, on a busy 2-core CPU):

    - FFNN: hidden 256 or 384, window 16 or 32 characters (batches of 256 windows);
    - RNN: hidden 192 or 256, blocks of 64 or 128 characters (batches of 32 blocks);
    - LSTM: hidden 128 or 192, blocks of 64 or 128;
    - Transformer: (d_model 64, 3 layers) or (96, 2 layers), blocks of 64 or 128.

    The shorter context won for every model: at a 15 s budget more, cheaper steps beat a longer
    view. The n-gram's order is chosen automatically (see :func:`compare_char_models`).
    """

    budget_s: float = 15.0           # wall-clock training seconds per neural model
    max_chars: int = 400_000         # of stdlib_source_text (notebook 04's corpus)
    valid_fraction: float = 0.1      # the last 10% is held out
    seed: int = 0                    # corpus order, initial weights and batches
    models: tuple[str, ...] = MODELS
    ngram_orders: tuple[int, ...] = (2, 3, 4, 5, 6, 7, 8)
    ffnn: ModelSettings = field(default_factory=lambda: ModelSettings(
        context=16, batch_size=256, lr=3e-3, sizes=dict(embed_dim=16, hidden_dim=256)))
    rnn: ModelSettings = field(default_factory=lambda: ModelSettings(
        context=64, batch_size=32, lr=3e-3, sizes=dict(embed_dim=32, hidden_dim=192)))
    lstm: ModelSettings = field(default_factory=lambda: ModelSettings(
        context=64, batch_size=32, lr=1e-2, sizes=dict(embed_dim=32, hidden_dim=192)))
    transformer: ModelSettings = field(default_factory=lambda: ModelSettings(
        context=64, batch_size=32, lr=1e-2, sizes=dict(d_model=64, num_heads=4, num_layers=3, d_ff=256)))

    def __post_init__(self):
        unknown = set(self.models) - set(MODELS)
        if unknown or not self.models:
            raise ValueError(f"models must be some of {', '.join(MODELS)}, got {self.models!r}.")
        if not self.budget_s > 0:
            raise ValueError(f"budget_s must be positive, got {self.budget_s!r}.")
        if not 0 < self.valid_fraction < 1:
            raise ValueError(f"valid_fraction must lie in (0, 1), got {self.valid_fraction!r}.")
        if not self.ngram_orders or min(self.ngram_orders) < 1:
            raise ValueError(f"ngram_orders must be positive integers, got {self.ngram_orders!r}.")

    def settings(self, model: str) -> ModelSettings:
        return {"FFNN": self.ffnn, "RNN": self.rnn, "LSTM": self.lstm, "Transformer": self.transformer}[model]


@dataclass
class ModelResult:
    """One row of the comparison. ``parameters``: trained weights (the n-gram: stored counts)."""

    model: str
    setting: str            # the n-gram's chosen order, a neural model's context length
    parameters: int
    steps: int | None       # optimiser steps done in the budget (None for the n-gram)
    train_seconds: float
    chars_per_second: float  # training characters (targets) processed per second
    bits_per_char: float    # on the held-out characters
    scored_chars: int       # how many held-out characters were scored
    vocab_size: int
    #: the trained model (a CharNGram or an nn.Module), for sampling or a closer look; not part of the table
    trained: Any = field(default=None, repr=False, compare=False)
    #: training characters processed (the n-gram: characters counted, the order search included)
    train_chars: int = 0
    #: training compute: FLOPs (:func:`flops_per_char` x train_chars); the n-gram: :func:`ngram_search_operations`
    train_flops: float = float("nan")

    @property
    def uniform_bits(self) -> float:
        """Bits per character of guessing uniformly among the vocabulary: log2 V."""
        return math.log2(self.vocab_size)


# ---------------------------------------------------------------------------
# the benchmark


def build_model(model: str, settings: ModelSettings, vocab_size: int) -> nn.Module:
    """A fresh, untrained neural model of the comparison (FFNN, RNN, LSTM or Transformer) with ``settings``' sizes."""
    sizes = dict(settings.sizes)
    if model == "FFNN":
        return FFNNLanguageModel(FFNNConfig(vocab_size=vocab_size, context_size=settings.context, **sizes))
    if model == "RNN":
        return RNNLanguageModel(RNNConfig(vocab_size=vocab_size, **sizes))
    if model == "LSTM":
        return LSTMLanguageModel(LSTMConfig(vocab_size=vocab_size, **sizes))
    if model == "Transformer":
        return TransformerLM(TransformerConfig(vocab_size=vocab_size, block_size=settings.context, **sizes))
    raise ValueError(f"unknown model {model!r}.")


@dataclass
class Corpus:
    """The benchmark's corpus: training ids, and the stream whose targets from ``first_target`` on are scored."""

    train_ids: torch.Tensor   # (split,) the first 1 - valid_fraction of the text
    stream: torch.Tensor      # (first_target + held-out,) the held-out part with first_target characters before it
    first_target: int
    itos: list[str]

    @property
    def vocab_size(self) -> int:
        return len(self.itos)


def prepare_corpus(config: CompareConfig) -> Corpus:
    """``stdlib_source_text(config.max_chars, config.seed)`` as ids, split as :func:`compare_char_models` does."""
    text = stdlib_source_text(config.max_chars, config.seed)
    itos, stoi = char_vocab(text)
    ids = torch.tensor([stoi[c] for c in text], dtype=torch.long)
    split = int(len(ids) * (1 - config.valid_fraction))
    # every target of the held-out part, with the characters before it as context
    first_target = max([config.settings(m).context for m in config.models if m != "n-gram"] +
                       ([max(config.ngram_orders) - 1] if "n-gram" in config.models else []))
    if first_target > split or len(ids) - split < 1:
        raise ValueError(f"the corpus of {len(ids)} characters is too short for contexts of {first_target}: "
                         "raise max_chars.")
    return Corpus(ids[:split], ids[split - first_target:], first_target, itos)


def training_batches(model: str, settings: ModelSettings, train_ids: torch.Tensor):
    """The ``draw_batch`` that :func:`course_lib.train.train` takes, for one neural model of the comparison."""
    if model == "FFNN":
        contexts = train_ids.unfold(0, settings.context, 1)[:-1]  # (N - context, context), a view
        return window_batches(contexts, train_ids[settings.context:], settings.batch_size)
    return sequence_batches(train_ids, settings.context, settings.batch_size)


def scoring_rows(model: str, settings: ModelSettings, corpus: Corpus) -> tuple[torch.Tensor, torch.Tensor]:
    """x, y that score every held-out character once (see the module docstring), for one neural model."""
    if model == "FFNN":
        return _window_rows(corpus.stream, corpus.first_target, settings.context)
    return sliding_windows(corpus.stream, corpus.first_target, settings.context, max(1, settings.context // 2))


# ---------------------------------------------------------------------------
# training compute


def flops_per_char(model: nn.Module, context: int | None = None) -> float:
    """Training FLOPs per training character (target): 6 N, plus 6 L T d for a Transformer's attention.

    N counts the weights that multiply each character's vectors: every parameter except the
    ``nn.Embedding`` tables (a lookup is not arithmetic), so the FFNN's hidden and output layers, a
    recurrent model's cell and head, a Transformer's blocks and head. A forward pass costs about
    2 N FLOPs per character (a multiply and an add per weight) and the backward pass twice that,
    hence 6 N (Kaplan et al., 2020). A Transformer of L layers, width d and ``context`` T adds its
    attention scores and weighted sums, 2 x 2 T d per layer forward for a full window (a causal mask
    halves it on average, not counted), so 6 L T d in all. Optimiser steps, LayerNorm, the
    nonlinearities and the softmax are left out: small next to these.
    """
    embedded = {id(p) for m in model.modules() if isinstance(m, nn.Embedding) for p in m.parameters()}
    n = sum(p.numel() for p in model.parameters() if id(p) not in embedded)
    flops = 6.0 * n
    if isinstance(model, TransformerLM):
        config = model.config
        flops += 6.0 * config.num_layers * (context or config.block_size) * config.d_model
    return flops


def ngram_fit_operations(order: int, n_chars: int) -> float:
    """An operation count for :meth:`CharNGram.fit` of ``order`` on ``n_chars`` characters.

    For each order m = 1..order: the m-gram codes (m multiply-adds per character, 2 m operations)
    and two sorts of n codes (``np.unique``; about n log2 n comparisons each). So
    n (order (order + 1) + 2 order log2 n). An estimate of the same kind as :func:`flops_per_char`,
    not a measurement: counting is cheap, which is the point of the comparison.
    """
    n = max(int(n_chars), 2)
    return float(n * (order * (order + 1) + 2 * order * math.log2(n)))


def ngram_search_operations(orders: Sequence[int], n_chars: int, valid_fraction: float, best: int) -> float:
    """:func:`ngram_fit_operations` of the whole order search of :func:`compare_char_models`: every order of
    ``orders`` fitted on the first ``1 - valid_fraction`` of the training text, then ``best`` on all of it."""
    dev_start = int(n_chars * (1 - valid_fraction))
    return sum(ngram_fit_operations(o, dev_start) for o in sorted(set(orders))) + ngram_fit_operations(best, n_chars)


def run_ngram(config: CompareConfig, train_ids: torch.Tensor, stream: torch.Tensor, first_target: int,
               vocab_size: int) -> ModelResult:
    """Choose the order on the last valid_fraction of the training text, refit on all of it, score."""
    start = time.perf_counter()
    train_np = train_ids.numpy()
    dev_start = int(len(train_np) * (1 - config.valid_fraction))
    top = max(config.ngram_orders)
    dev_bits = {}
    for order in sorted(set(config.ngram_orders)):
        fitted = CharNGram(order, vocab_size).fit(train_np[:dev_start])
        dev_bits[order] = fitted.bits_per_char(train_np[dev_start - top + 1:], top - 1)
    best = min(dev_bits, key=dev_bits.get)
    model = CharNGram(best, vocab_size).fit(train_np)
    seconds = time.perf_counter() - start
    bits = model.target_bits(stream.numpy(), first_target)
    return ModelResult("n-gram", f"order {best}", model.num_counts, None, seconds,
                       len(train_np) / seconds, float(bits.mean()), len(bits), vocab_size, trained=model,
                       train_chars=dev_start * len(set(config.ngram_orders)) + len(train_np),
                       train_flops=ngram_search_operations(config.ngram_orders, len(train_np), config.valid_fraction,
                                                           best))


def _run_neural(name: str, config: CompareConfig, corpus: Corpus, device: torch.device) -> ModelResult:
    settings = config.settings(name)
    torch.manual_seed(config.seed)
    model = build_model(name, settings, corpus.vocab_size).to(device)
    context = settings.context
    draw = training_batches(name, settings, corpus.train_ids)
    x, y = scoring_rows(name, settings, corpus)
    history = train(model, draw, TrainConfig(steps=10 ** 9, lr=settings.lr, time_budget_s=config.budget_s,
                                             seed=config.seed, progress=False))
    scores = evaluate(model, iterate_batches(x, y, batch_size=256))
    parameters = sum(p.numel() for p in model.parameters())
    return ModelResult(name, f"{context} chars", parameters, len(history.train_steps), history.seconds,
                       history.tokens_per_second, scores["bits_per_token"], int(scores["tokens"]), corpus.vocab_size,
                       trained=model, train_chars=history.tokens,
                       train_flops=flops_per_char(model, context) * history.tokens)


def compare_char_models(config: CompareConfig | None = None, device: torch.device | str | None = None,
                        verbose: bool = False) -> list[ModelResult]:
    """Train each model of ``config.models`` for ``config.budget_s`` seconds; bits per held-out character.

    The corpus is ``stdlib_source_text(config.max_chars, config.seed)``; its last
    ``valid_fraction`` is held out, and every model is scored on all of those characters (see the
    module docstring for what context each model gets). The n-gram's order is the one of
    ``config.ngram_orders`` with the fewest bits on the last ``valid_fraction`` of the training
    text (fitted on the rest), then refitted on all of it; its training seconds include that
    search. Returns one :class:`ModelResult` per model, in ``config.models``' order.

    Seeded: the same config gives the same models, except that a time budget lets a model do more
    or fewer steps on a busier or faster machine. ``device``: default ``get_device()``; the
    n-gram always counts on the CPU.
    """
    config = config or CompareConfig()
    device = get_device() if device is None else torch.device(device)
    corpus = prepare_corpus(config)
    results = []
    for name in config.models:
        if name == "n-gram":
            result = run_ngram(config, corpus.train_ids, corpus.stream, corpus.first_target, corpus.vocab_size)
        else:
            result = _run_neural(name, config, corpus, device)
        if verbose:
            print(f"{result.model}: {result.bits_per_char:.3f} bits/char ({result.steps} steps)", flush=True)
        results.append(result)
    if len({r.scored_chars for r in results}) != 1:
        raise AssertionError(f"the models were scored on different numbers of characters: "
                             f"{[(r.model, r.scored_chars) for r in results]}")
    return results


# ---------------------------------------------------------------------------
# showing the results


def markdown_table(results: Sequence[ModelResult]) -> str:
    """The results as a Markdown table, one row per model, with the uniform guess as a last line."""
    lines = ["| model | setting | parameters | steps | train s | chars/s | valid bits/char |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for r in results:
        steps = "-" if r.steps is None else f"{r.steps:,}"
        lines.append(f"| {r.model} | {r.setting} | {r.parameters:,} | {steps} | {r.train_seconds:.1f} | "
                     f"{r.chars_per_second:,.0f} | {r.bits_per_char:.3f} |")
    if results:
        r = results[0]
        lines.append(f"| uniform guess | {r.vocab_size} characters | 0 | - | - | - | {r.uniform_bits:.3f} |")
    return "\n".join(lines)


def plot_comparison(results: Sequence[ModelResult], ax=None, title: str | None = None):
    """Bar chart of the validation bits per character, with the uniform guess (log2 V) as a line; returns the Axes."""
    import matplotlib.pyplot as plt  # only for plotting

    if not results:
        raise ValueError("plot_comparison needs at least one result.")
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.5))
    names = [r.model for r in results]
    bits = [r.bits_per_char for r in results]
    bars = ax.bar(names, bits, color=[f"C{i}" for i in range(len(results))])
    for bar, b in zip(bars, bits):
        ax.annotate(f"{b:.2f}", (bar.get_x() + bar.get_width() / 2, b), ha="center", va="bottom", fontsize=9)
    uniform = results[0].uniform_bits
    ax.axhline(uniform, color="0.4", ls="--", lw=1, label=f"uniform guess, log2 {results[0].vocab_size}")
    ax.annotate(f"uniform guess: log2 {results[0].vocab_size} = {uniform:.2f}", (0.01, uniform),
                xycoords=("axes fraction", "data"), va="bottom", fontsize=9, color="0.3")
    ax.set_ylim(0, uniform * 1.15)
    ax.set_ylabel("validation bits per character")
    seconds = max((r.train_seconds for r in results if r.steps is not None), default=None)
    ax.set_title(title or ("same training budget" + (f" (~{seconds:.0f} s each)" if seconds else "")))
    return ax


# ---------------------------------------------------------------------------
# the crossover: bits per character against training compute (benchmarks/crossover.py)

#: the curves measured by ``python benchmarks/crossover.py``, shipped with the package for notebook 06
CROSSOVER_ASSET = Path(__file__).resolve().parent / "assets" / "crossover.json"


#: the two validation splits of the crossover: whole files never trained on, and the text right after the training text
CROSSOVER_SPLITS = ("held_out_files", "continuation")


def crossover_curve(data: dict[str, Any], model: str, split: str) -> list[dict[str, float]]:
    """One neural model's checkpoints on one split of :func:`load_crossover`'s dict: ``flops``, ``bits_per_char``."""
    return [{"flops": p["flops"], "bits_per_char": p["bits_per_char"][split]} for p in data["curves"][model]]


def load_crossover(path: str | Path | None = None) -> dict[str, Any]:
    """The results of ``benchmarks/crossover.py`` (default: the copy shipped in ``course_lib/assets``).

    ``curves`` maps each neural model to its checkpoints, each a dict with ``steps``, ``train_chars``,
    ``flops`` (training compute, see ``compute_measure``), ``seconds`` and ``bits_per_char`` (a dict:
    one value per split of :data:`CROSSOVER_SPLITS`; :func:`crossover_curve` picks one); ``models``
    their sizes and chosen learning rates; ``ngram`` the n-gram's fits on prefixes of the training
    text; ``budget_flops`` the compute every neural model got; ``meta`` and ``command`` where and how
    they were measured.
    """
    with open(CROSSOVER_ASSET if path is None else path, encoding="utf-8") as f:
        return json.load(f)


def bits_at(curve: Sequence[dict], flops: float) -> float:
    """A curve's bits per character at ``flops``, interpolated linearly in log compute (held flat beyond its ends)."""
    return float(np.interp(math.log10(flops), np.log10([p["flops"] for p in curve]),
                           [p["bits_per_char"] for p in curve]))


def overtakes(a: Sequence[dict], b: Sequence[dict], hold_last: bool = False) -> float | None:
    """The compute from which curve ``a`` stays below curve ``b`` (fewer bits), or None.

    Both are lists of checkpoints (``flops``, ``bits_per_char``), in increasing compute. They are
    compared at every checkpoint of either curve where both were measured, each interpolated
    linearly in log compute (:func:`bits_at`). ``hold_last=True`` also compares beyond ``b``'s last
    checkpoint, holding it at its last value: right for an n-gram that has counted all of its
    training text, which more compute cannot help. A neural curve is never extrapolated. Returns
    the first of those points from which ``a`` is below ``b`` at every later one; None if there is none.
    """
    lo = max(a[0]["flops"], b[0]["flops"])
    hi = a[-1]["flops"] if hold_last else min(a[-1]["flops"], b[-1]["flops"])
    grid = sorted({p["flops"] for p in list(a) + list(b) if lo <= p["flops"] <= hi})
    first = None
    for flops in grid:
        if bits_at(a, flops) < bits_at(b, flops):
            first = flops if first is None else first
        else:
            first = None
    return first


def ngram_baseline(data: dict[str, Any], split: str, train_chars: int | None = None) -> float:
    """The n-gram's bits per character on ``split``, fitted on ``train_chars`` of the training text (default: all)."""
    points = data["ngram"]["points"]
    point = points[-1] if train_chars is None else next(p for p in points if p["train_chars"] == train_chars)
    return point["bits_per_char"][split]


def crossover_table(data: dict[str, Any]) -> str:
    """A Markdown table of :func:`load_crossover`'s runs: each neural model's peak learning rate (chosen on the
    development files), steps, seconds and bits per character at the budget on both splits; the n-gram's row."""
    split_names = {"held_out_files": "held-out files", "continuation": "continuation"}
    lines = ["| model | parameters | peak learning rate | steps | seconds | bits/char, "
             + " | bits/char, ".join(split_names[s] for s in CROSSOVER_SPLITS) + " |", "|---|---|---|---|---|---|---|"]
    for name, curve in data["curves"].items():
        run, last = data["models"][name], curve[-1]
        lines.append(f"| {name} | {run['parameters']:,} | {run['lr']:g} | {last['steps']:,} | {last['seconds']:.0f} | "
                     + " | ".join(f"{last['bits_per_char'][s]:.3f}" for s in CROSSOVER_SPLITS) + " |")
    last = data["ngram"]["points"][-1]
    lines.append(f"| n-gram ({last['setting']}, counts) | {last['parameters']:,} | - | - | {last['seconds']:.0f} | "
                 + " | ".join(f"{last['bits_per_char'][s]:.3f}" for s in CROSSOVER_SPLITS) + " |")
    return "\n".join(lines)


def plot_crossover(data: dict[str, Any], live: Sequence[ModelResult] | None = None, axes=None):
    """Held-out bits per character against training FLOPs (log scale): one panel per split; returns the Axes.

    ``data``: :func:`load_crossover`'s dict. Each neural model is a line through its checkpoints. The
    n-gram is not trained by FLOPs: its score with all the training text counted is a horizontal
    baseline across each panel (dashed), with half the text dotted. ``live``: results of
    :func:`compare_char_models` (a notebook's few seconds at a constant learning rate), scored on the
    continuation split, drawn as stars on that panel at their own compute.
    """
    import matplotlib.pyplot as plt  # only for plotting

    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharex=True, sharey=True)
    titles = {"held_out_files": "held-out files (never trained on)",
              "continuation": "continuation of the last training file"}
    colours = {name: f"C{i}" for i, name in enumerate(MODELS)}
    all_text = data["ngram"]["points"][-1]
    half = data["ngram"]["points"][-2] if len(data["ngram"]["points"]) > 1 else None
    shown = []
    for ax, split in zip(axes, CROSSOVER_SPLITS):
        for name in data["curves"]:
            curve = crossover_curve(data, name, split)
            ax.plot([p["flops"] for p in curve], [p["bits_per_char"] for p in curve], "o-", ms=4,
                    color=colours.get(name), label=name)
            shown += [p["bits_per_char"] for p in curve]
        line = all_text["bits_per_char"][split]
        ax.axhline(line, color=colours["n-gram"], ls="--", lw=1.5,
                   label=f"n-gram, all {all_text['train_chars']:,} training characters counted")
        shown.append(line)
        if half is not None:
            ax.axhline(half["bits_per_char"][split], color=colours["n-gram"], ls=":", lw=1.2,
                       label=f"n-gram, half of them ({half['train_chars']:,})")
            shown.append(half["bits_per_char"][split])
        if split == "continuation":
            for r in live or ():
                if math.isfinite(r.train_flops) and r.model != "n-gram":
                    ax.plot([r.train_flops], [r.bits_per_char], "*", ms=12, color=colours.get(r.model), mec="k",
                            mew=0.6, label=f"{r.model}: this notebook's run")
                    shown.append(r.bits_per_char)
        ax.set_xscale("log")
        ax.set_xlabel("training compute (FLOPs)")
        ax.set_title(titles[split], fontsize=10)
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel("held-out bits per character")
    axes[0].set_ylim(max(0.0, min(shown) - 0.2), min(max(shown), data["uniform_bits"]) + 0.2)
    axes[-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    axes[0].figure.suptitle(f"every neural model trained for {data['budget_flops']:.0e} FLOPs; "
                            "the n-gram counts (a baseline, not on the FLOPs axis)", fontsize=10)
    return axes


def main(argv: Sequence[str] | None = None) -> list[ModelResult]:
    parser = argparse.ArgumentParser(prog="python -m course_lib.compare",
                                     description="The course's character language models under one training budget.")
    parser.add_argument("--budget", type=float, default=CompareConfig.budget_s, help="training seconds per model")
    parser.add_argument("--max-chars", type=int, default=CompareConfig.max_chars, help="corpus length in characters")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS))
    parser.add_argument("--device", default=None, help="cpu, cuda, mps (default: course_lib.device.get_device())")
    parser.add_argument("--threads", type=int, default=None,
                        help="CPU threads for torch (default: torch's choice); 1 on a machine busy with other jobs")
    args = parser.parse_args(argv)
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    config = CompareConfig(budget_s=args.budget, max_chars=args.max_chars, seed=args.seed, models=tuple(args.models))
    device = get_device(args.device)
    print(f"{args.budget:g} s of training per model, {args.max_chars:,} characters, device {device} "
          f"({torch.get_num_threads()} CPU threads)", flush=True)
    results = compare_char_models(config, device, verbose=True)
    print(markdown_table(results))
    return results


if __name__ == "__main__":
    main()
