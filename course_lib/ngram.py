"""Reference n-gram language model (counts, add-k smoothing, log-probability, perplexity, sampling)."""
from __future__ import annotations

import math
from collections import Counter
from typing import Iterable, Sequence

from course_lib.data import BOS, EOS, UNK
from course_lib.validation import require, require_number

__all__ = ["count_ngrams", "pad", "NGramModel"]


def _require_order(n: int) -> None:
    require(isinstance(n, int) and not isinstance(n, bool) and n >= 1, f"n must be an integer >= 1, got {n!r}")


def count_ngrams(tokens: Sequence[str], n: int) -> Counter:
    """Counter of every n-gram (a tuple of n tokens) in ``tokens``."""
    _require_order(n)
    tokens = list(tokens)
    return Counter(zip(*(tokens[i:] for i in range(n))))


def pad(tokens: Sequence[str], n: int) -> list[str]:
    """n-1 <s> in front, one </s> at the end."""
    _require_order(n)
    return [BOS] * (n - 1) + list(tokens) + [EOS]


class NGramModel:
    """An n-gram model with add-k smoothing (k=0: maximum likelihood)."""

    def __init__(self, n: int = 2, k: float = 0.0):
        _require_order(n)
        require_number("k", k, non_negative=True)
        self.n, self.k = n, float(k)
        self.counts: Counter = Counter()
        self.context_counts: Counter = Counter()
        self.vocab: list[str] = []

    def fit(self, sentences: Iterable[Sequence[str]]) -> "NGramModel":
        sentences = [list(s) for s in sentences]
        require(sentences, "cannot fit an n-gram model on an empty corpus")
        for s in sentences:
            self.counts.update(count_ngrams(pad(s, self.n), self.n))
        for gram, c in self.counts.items():
            self.context_counts[gram[:-1]] += c
        words = {w for s in sentences for w in s}
        self.vocab = sorted(words - {BOS, EOS, UNK}) + [UNK, EOS]   # what can be predicted
        self._known = set(self.vocab)
        return self

    @property
    def V(self) -> int:  # noqa: N802 (the lecture's V, the vocabulary size)
        return len(self.vocab)

    def prob(self, context: Sequence[str], word: str) -> float:
        require(self.vocab, "fit the model before asking for probabilities")
        context = tuple(w if (w in self._known or w == BOS) else UNK for w in context)
        context = context[len(context) - (self.n - 1):] if self.n > 1 else ()
        word = word if word in self._known else UNK
        num = self.counts.get(context + (word,), 0) + self.k
        den = self.context_counts.get(context, 0) + self.k * self.V
        return num / den if den > 0 else 0.0

    def sentence_logprob(self, tokens: Sequence[str]) -> float:
        padded = pad(tokens, self.n)
        total = 0.0
        for i in range(self.n - 1, len(padded)):
            p = self.prob(padded[i - self.n + 1:i], padded[i])
            if p <= 0:
                return -math.inf
            total += math.log(p)
        return total

    def perplexity(self, sentences: Iterable[Sequence[str]]) -> float:
        sentences = [list(s) for s in sentences]
        require(sentences, "perplexity of an empty set of sentences is undefined")
        logp = sum(self.sentence_logprob(s) for s in sentences)
        n_tokens = sum(len(s) + 1 for s in sentences)
        return math.exp(-logp / n_tokens)

    def sample(self, rng, max_len: int = 30) -> list[str]:
        """One sentence (without <s>/</s>); ``rng`` is a numpy Generator or random.Random."""
        history = [BOS] * (self.n - 1)
        out: list[str] = []
        words = [w for w in self.vocab if w != UNK]
        while len(out) < max_len:
            ctx = tuple(history[len(history) - (self.n - 1):]) if self.n > 1 else ()
            weights = [self.prob(ctx, w) for w in words]
            total = sum(weights)
            if total <= 0:
                break
            r = rng.random() * total
            acc = 0.0
            for w, p in zip(words, weights):
                acc += p
                if acc >= r:
                    break
            if w == EOS:
                break
            out.append(w)
            history.append(w)
        return out
