"""What the checks of notebook 01 (n-gram language models) share: the lecture's cat/dog sentences, references written
from scratch with plain loops (never with ``course_lib.ngram``, which is switched off while an answer is graded), and
one number compared with its catalogue of mistakes.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Any, Sequence

import torch

import course_lib.ngram as course_ngram
from course_lib.grading.answers import AnswerError, Banned, Variant, compare_answer

#: the sentences of the lecture "Neural Network Language Models & BERT" (slide "Why NNs for LMs"), lower-cased
LECTURE_SENTENCES = [
    "the cat is walking in the bedroom",
    "a dog was running in a room",
]
#: sentences the lecture says a model should generalise to
LECTURE_GENERALISED = [
    "the cat is running in a room",
    "a dog is walking in a bedroom",
    "the dog was walking in the room",
]
EXTRA_SENTENCES = ["the dog is sleeping in the kitchen", "a cat was walking in the kitchen"]

#: the course's n-gram model, switched off while an answer is graded, and why
NGRAM_BUILTINS = [
    Banned(course_ngram, "count_ngrams", "course_lib.ngram.count_ngrams"),
    Banned(course_ngram, "NGramModel", "course_lib.ngram.NGramModel"),
]
NGRAM_REASON = "the exercise is to write it yourself."


def corpus(extra: bool = False) -> list[list[str]]:
    sents = LECTURE_SENTENCES + (EXTRA_SENTENCES if extra else [])
    return [s.split() for s in sents]


def padded(tokens: Sequence[str], n: int) -> list[str]:
    return ["<s>"] * (n - 1) + list(tokens) + ["</s>"]


# ---------------------------------------------------------------------------
# independent references (plain loops)


def plain_count_ngrams(tokens: Sequence[str], n: int) -> dict:
    """The n-grams of ``tokens`` (padded already, or not), counted."""
    out: dict = {}
    for i in range(len(tokens) - n + 1):
        key = tuple(tokens[i:i + n])
        out[key] = out.get(key, 0) + 1
    return out


def corpus_counts(sentences: Sequence[Sequence[str]], n: int) -> tuple[Counter, Counter]:
    """(n-gram counts, (n-1)-gram context counts) of the padded sentences."""
    grams: Counter = Counter()
    contexts: Counter = Counter()
    for s in sentences:
        p = padded(s, n)
        for i in range(n - 1, len(p)):
            grams[tuple(p[i - n + 1:i + 1])] += 1
            contexts[tuple(p[i - n + 1:i])] += 1
    return grams, contexts


def vocab_size(sentences: Sequence[Sequence[str]]) -> int:
    """Words that can be predicted: every word seen plus </s>."""
    return len({w for s in sentences for w in s}) + 1


def plain_ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, V=None, *, add_kv=True, use_k=True,
                     word_first=False):
    """P(word | context) = (count + k) / (context count + k V), 0 for an unseen context; or one known mistake."""
    kk = k if use_k else 0.0
    key = (word,) + tuple(context) if word_first else tuple(context) + (word,)
    num = counts_n.get(key, 0) + kk
    den = counts_n_minus_1.get(tuple(context), 0) + (kk * V if add_kv and kk else 0.0)
    return num / den if den else 0.0


def plain_sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, V=None, *, n_pad=None, eos=True, base=math.e):
    """The sentence's log-probability (natural log) under the n-gram model, -inf when a word has probability 0;
    or one known mistake."""
    n_pad = n - 1 if n_pad is None else n_pad
    p = ["<s>"] * n_pad + list(tokens) + (["</s>"] if eos else [])
    total = 0.0
    for i in range(n - 1, len(p)):  # n_pad = n: one <s> too many is predicted
        context = tuple(p[i - n + 1:i])
        q = plain_ngram_prob(counts_n, counts_n_minus_1, context, p[i], k, V)
        if q == 0:
            return -math.inf
        total += math.log(q) / math.log(base)
    return total


def as_number(ex: str, got: Any, what: str) -> float:
    """A student's one-number answer as a float, or a sentence saying what came back instead."""
    if got is None:
        raise AnswerError(ex, "returned None: did you forget a `return` statement?")
    if isinstance(got, (str, bytes)):
        raise AnswerError(ex, f"should return {what}, not a {type(got).__name__}.")
    try:
        return float(got)
    except (TypeError, ValueError):
        raise AnswerError(ex, f"should return {what}, not a {type(got).__name__}.") from None


def compare_number(ex: str, got: float, expected: float, mistakes, *, what: str, case: str) -> None:
    """:func:`compare_answer` for one number; ``mistakes`` are (name, message, value_of_that_mistake) triples."""
    def as_tensor(value: float) -> torch.Tensor:
        return torch.tensor([value], dtype=torch.float64)

    variants = [Variant(name, message, lambda f=value: as_tensor(f())) for name, message, value in mistakes]
    compare_answer(ex, as_tensor(got), as_tensor(expected), variants=variants, what=what, case=case)
