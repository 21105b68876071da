"""A tiny "cat/dog world": a probabilistic grammar whose every sentence has a known probability.

Sentences look like the lecture's "the cat is walking in the bedroom" / "a dog was running in a
room". Each slot is drawn independently, so the grammar can enumerate all its sentences with
their exact probabilities, and :func:`entropy_per_token` gives the exact entropy rate: the best
perplexity any language model can reach on this data is ``exp(entropy_per_token())``.
"""
from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

__all__ = ["CatDogGrammar", "sample_sentences", "entropy_per_token", "train_valid_split", "tokenize", "Vocab",
           "UNK", "BOS", "EOS"]

UNK, BOS, EOS = "<unk>", "<s>", "</s>"

Choices = tuple[tuple[str, float], ...]


def _normalise(name: str, choices: Choices) -> Choices:
    if not choices:
        raise ValueError(f"the grammar's slot {name!r} has no choices")
    total = float(sum(w for _, w in choices))
    if any(w < 0 for _, w in choices) or total <= 0:
        raise ValueError(f"the weights of slot {name!r} must be non-negative and not all zero")
    return tuple((word, w / total) for word, w in choices)


@dataclass(frozen=True)
class CatDogGrammar:
    """det [adjective] animal aux verb in det room; "" as an adjective means none."""

    determiners: Choices = (("the", 0.6), ("a", 0.4))
    adjectives: Choices = (("", 0.7), ("big", 0.2), ("small", 0.1))
    animals: Choices = (("cat", 0.4), ("dog", 0.4), ("mouse", 0.2))
    auxiliaries: Choices = (("is", 0.5), ("was", 0.5))
    verbs: Choices = (("walking", 0.4), ("running", 0.3), ("sleeping", 0.3))
    rooms: Choices = (("bedroom", 0.3), ("kitchen", 0.3), ("room", 0.2), ("garden", 0.2))
    #: (animal, room) combinations that never appear in training sentences
    held_out: tuple[tuple[str, str], ...] = (("mouse", "bedroom"),)

    def slots(self) -> list[Choices]:
        names = ["determiners", "adjectives", "animals", "auxiliaries", "verbs", "in", "determiners", "rooms"]
        return [(("in", 1.0),) if n == "in" else _normalise(n, getattr(self, n)) for n in names]

    def sentences(self) -> list[tuple[tuple[str, ...], float]]:
        """Every sentence (as a tuple of words, no </s>) with its exact probability."""
        out = []
        for combo in itertools.product(*self.slots()):
            words = tuple(w for w, _ in combo if w)
            p = math.prod(q for _, q in combo)
            if p > 0:
                out.append((words, p))
        return out

    def is_held_out(self, words: Sequence[str]) -> bool:
        return any(animal in words and room == words[-1] for animal, room in self.held_out)


def entropy_per_token(grammar: CatDogGrammar | None = None, *, without_held_out: bool = False) -> float:
    """Exact entropy in nats per token (words and </s>): -sum p log p / E[tokens].

    ``without_held_out=True``: of the distribution that train/valid sentences come from (the grammar
    conditioned on not containing a held-out pair).
    """
    grammar = grammar or CatDogGrammar()
    table = grammar.sentences()
    if without_held_out:
        table = [(w, p) for w, p in table if not grammar.is_held_out(w)]
        z = sum(p for _, p in table)
        table = [(w, p / z) for w, p in table]
    h = -sum(p * math.log(p) for _, p in table)
    expected_tokens = sum(p * (len(words) + 1) for words, p in table)
    return h / expected_tokens


def _draw(table, n: int, seed: int) -> list[str]:
    probs = np.array([p for _, p in table], dtype=np.float64)
    idx = np.random.default_rng(seed).choice(len(table), size=n, p=probs / probs.sum())
    return [" ".join(table[i][0]) for i in idx]


def sample_sentences(n: int, seed: int = 0, grammar: CatDogGrammar | None = None) -> list[str]:
    """``n`` sentences drawn from the grammar (reproducible for a given seed)."""
    if not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    grammar = grammar or CatDogGrammar()
    return _draw(grammar.sentences(), int(n), seed)


def train_valid_split(n_train: int = 2000, n_valid: int = 500, n_held_out: int = 100, seed: int = 0,
                      grammar: CatDogGrammar | None = None) -> tuple[list[str], list[str], list[str]]:
    """(train, valid, held_out): train and valid never contain a held-out (animal, room) pair;
    held_out contains only sentences with one (sensible, but never seen in training)."""
    for name, v in (("n_train", n_train), ("n_valid", n_valid), ("n_held_out", n_held_out)):
        if not isinstance(v, (int, np.integer)) or v < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {v!r}")
    grammar = grammar or CatDogGrammar()
    table = grammar.sentences()
    seen = [(w, p) for w, p in table if not grammar.is_held_out(w)]
    unseen = [(w, p) for w, p in table if grammar.is_held_out(w)]
    if n_held_out and not unseen:
        raise ValueError("the grammar has no held-out sentences: set held_out to (animal, room) pairs it can generate")
    held = _draw(unseen, n_held_out, seed + 2) if n_held_out else []
    return _draw(seen, n_train, seed), _draw(seen, n_valid, seed + 1), held


_WORD = re.compile(r"<unk>|<s>|</s>|[a-z0-9']+|[.,!?;:]")


def tokenize(text: str) -> list[str]:
    """Lower-case words (and punctuation marks) of ``text``."""
    if not isinstance(text, str):
        raise ValueError(f"tokenize expects a string, got {type(text).__name__}")
    return _WORD.findall(text.lower())


class Vocab:
    """Word <-> index, with <unk>, <s> and </s>; words seen fewer than ``min_count`` times become <unk>."""

    def __init__(self, sentences: Iterable[Sequence[str]], min_count: int = 1):
        if min_count < 1:
            raise ValueError(f"min_count must be at least 1, got {min_count}")
        counts = Counter(w for s in sentences for w in s)
        if not counts:
            raise ValueError("cannot build a vocabulary from an empty corpus")
        self.itos = [UNK, BOS, EOS] + sorted(w for w, c in counts.items() if c >= min_count and w not in (UNK, BOS, EOS))
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, word: str) -> bool:
        return word in self.stoi

    def index(self, word: str) -> int:
        return self.stoi.get(word, 0)

    def encode(self, words: Sequence[str]) -> list[int]:
        return [self.index(w) for w in words]

    def decode(self, ids: Sequence[int]) -> list[str]:
        return [self.itos[i] for i in ids]

    def normalise(self, words: Sequence[str]) -> list[str]:
        return [w if w in self.stoi else UNK for w in words]
