"""The check of ``ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None)`` (notebook 01):
every (context, word) pair of the lecture's sentences, with and without add-k smoothing.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Callable

import torch

from course_lib.checks.ngrams_common import (NGRAM_BUILTINS, NGRAM_REASON, as_number, corpus, corpus_counts,
                                             plain_ngram_prob, vocab_size)
from course_lib.grading.diagnosis import list_words
from course_lib.grading.answers import (AnswerError, Terms, Variant, call_answer_all, call_answer_each, compare_answer,
                                raised_by_answer, report_pass)

# ---------------------------------------------------------------------------
# ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None)


def _prob_cases(n: int, k: float, extra: bool):
    sents = corpus(extra)
    grams, contexts = corpus_counts(sents, n)
    V = vocab_size(sents)
    words = sorted({w for s in sents for w in s}) + ["</s>"]
    ctxs = sorted(contexts) if k == 0 else sorted(contexts)[:6] + [("<s>",) * (n - 1) if n > 1 else ()] + \
        ([("cat",) * (n - 1)] if n > 1 else [])
    ctxs = list(dict.fromkeys(tuple(c) for c in ctxs))
    pairs = [(c, w) for c in ctxs for w in words]
    return grams, contexts, V, pairs


def _explain_probabilities(ex: str, ngram_prob: Callable, pairs, values, grams, contexts, V, k) -> str | None:
    """Which kinds of (context, word) pair are wrong, whether each context still sums to one, and k = 0."""
    expected = [plain_ngram_prob(grams, contexts, c, w, k, V) for c, w in pairs]
    right = [math.isclose(v, e, rel_tol=1e-9, abs_tol=1e-12) for v, e in zip(values, expected)]
    if all(v == 0 for v in values) and any(e > 0 for e in expected):
        return ("every probability you return is 0, even for n-grams that were counted: is the count ever found? "
                "count_ngrams stores an n-gram as one tuple of n words, so look it up as tuple(context) + (word,) "
                "(not as (context, word)); or an integer division // cuts the fractions off.")
    if all(float(v).is_integer() for v in values) and not all(float(e).is_integer() for e in expected):
        return ("every probability you return is a whole number (0 or 1): use true division /, not integer "
                "division //.")
    kinds = {"seen n-grams": lambda c, w: grams.get(tuple(c) + (w,), 0) > 0,
             "unseen n-grams of a seen context": lambda c, w: grams.get(tuple(c) + (w,), 0) == 0
             and contexts.get(tuple(c), 0) > 0,
             "unseen contexts": lambda c, w: contexts.get(tuple(c), 0) == 0}
    good, bad = [], []
    for kind, member in kinds.items():
        marks = [ok for (c, w), ok in zip(pairs, right) if member(c, w)]
        if marks:
            (good if all(marks) else bad).append(kind)
    sentences = []
    if good and bad:
        sentences.append(f"your probabilities are right for {list_words(good)} and wrong for {list_words(bad)}"
                         + ("; add-k smoothing adds k to every n-gram's count, seen or not."
                            if k and "seen n-grams" in bad and "unseen n-grams of a seen context" in good else "."))
    ratios: dict = {}
    for (c, w), v, e in zip(pairs, values, expected):
        if e > 0:
            ratios.setdefault(tuple(c), []).append(v / e)
    steady = all(max(r) - min(r) < 1e-9 * max(1.0, max(map(abs, r))) for r in ratios.values())
    levels = [r[0] for r in ratios.values()]
    if steady and len(ratios) > 1 and max(levels) - min(levels) > 1e-9:
        sentences.append("Within each context your probabilities have the right proportions but the wrong total: the "
                         "numerator is right and the denominator is wrong. Divide by the count of the context, "
                         "count(context)"
                         + (" + k * V." if k else "."))
    if k:
        sums: dict = {}
        for (c, _), v in zip(pairs, values):
            sums[tuple(c)] = sums.get(tuple(c), 0.0) + v
        off = [(c, t) for c, t in sums.items() if abs(t - 1) > 1e-6]
        if off:
            sentences.append("With smoothing, the probabilities of each context must sum to 1 over the vocabulary; for "
                             f"the context {off[0][0]} yours sum to {off[0][1]:.4g}.")
        unsmoothed = call_answer_each(ex, ngram_prob, [((Counter(grams), Counter(contexts), tuple(c), w),
                                                        {"k": 0.0, "vocab_size": V}) for c, w in pairs],
                                      banned=NGRAM_BUILTINS, reason=NGRAM_REASON)
        if all(isinstance(u, (int, float))
               and math.isclose(u, plain_ngram_prob(grams, contexts, c, w, 0.0, V), abs_tol=1e-12)
               for (c, w), u in zip(pairs, unsmoothed)):
            sentences.append("With k = 0 your function is right, so the mistake is in the smoothing: "
                             "P = (count(context, word) + k) / (count(context) + k * V).")
    return " ".join(sentences) or None


def check_ngram_prob(ngram_prob: Callable, *, n: int = 2, k: float = 0.0, extra: bool = False) -> None:
    ex = "ngram_prob"
    grams, contexts, V, pairs = _prob_cases(n, k, extra)
    case = f"n={n}, k={k}"
    calls = [((Counter(grams), Counter(contexts), tuple(context), word), {"k": k, "vocab_size": V})
             for context, word in pairs]
    values = [as_number(ex, got, "a number (a probability)")
              for got in call_answer_all(ex, ngram_prob, calls, banned=NGRAM_BUILTINS, reason=NGRAM_REASON)]
    answer = torch.tensor(values, dtype=torch.float64)

    def grid(**kw):
        return torch.tensor([plain_ngram_prob(grams, contexts, c, w, k, V, **kw) for c, w in pairs],
                            dtype=torch.float64)

    variants = [
        Variant("k_ignored", f"no smoothing where it was asked: with k={k}, add k to the n-gram count and k*V to the "
                "context count; your answer is the unsmoothed (maximum-likelihood) probability.",
                lambda: grid(use_k=False)),
        Variant("no_kV", "your probabilities do not sum to one: with add-k smoothing the denominator is "
                "count(context) + k*V, not count(context).", lambda: grid(add_kv=False)),
        Variant("plus_V", "the denominator should add k*V, not V.",
                lambda: torch.tensor([(grams.get(tuple(c) + (w,), 0) + k) / (contexts[tuple(c)] + V) for c, w in pairs],
                                     dtype=torch.float64)),
        Variant("inverted", "your ratio is upside down: count(context + word) / count(context).",
                lambda: 1 / grid()),
    ]
    def grid_with(k=k, V=V):
        return torch.tensor([plain_ngram_prob(grams, contexts, c, w, k, V) for c, w in pairs], dtype=torch.float64)

    flipped = torch.tensor([plain_ngram_prob(grams, contexts, c, w, k, V, word_first=True) for c, w in pairs],
                           dtype=torch.float64)
    others = {"with the n-gram key in the wrong order, (word, *context) instead of (*context, word): the context "
              "comes first": flipped}
    if k:
        others["with k = 1 (add-one smoothing) instead of the k given"] = grid_with(k=1.0)
        others["with V + 1 instead of V (vocab_size already counts </s>)"] = grid_with(V=V + 1)
    terms = Terms(others=others,
                  sizes={"V": V, "k": k} if k else {"V": V})
    compare_answer(ex, answer, grid(), variants=variants, what="your probability table", case=case, terms=terms,
                   locate=lambda: _explain_probabilities(ex, ngram_prob, pairs, values, grams, contexts, V, k))
    if k:
        _check_larger_vocabulary(ngram_prob, grams, contexts, V, k, pairs[:8])
        report_pass(ex, f"{len(pairs)} (context, word) pairs, {case}; and a vocabulary larger than the counted words")
    else:
        _check_without_vocab_size(ngram_prob, grams, contexts, pairs[:8])
        report_pass(ex, f"{len(pairs)} (context, word) pairs, {case}; and vocab_size left out")


def _check_without_vocab_size(ngram_prob: Callable, grams: Counter, contexts: Counter, pairs: list) -> None:
    """k = 0 with vocab_size left out (its default, None): V is only for smoothing."""
    ex = "ngram_prob"
    calls = [((Counter(grams), Counter(contexts), tuple(c), w), {"k": 0.0}) for c, w in pairs]
    answers = call_answer_each(ex, ngram_prob, calls, banned=NGRAM_BUILTINS, reason=NGRAM_REASON)
    for (context, word), got in zip(pairs, answers):
        raised = raised_by_answer(got) if isinstance(got, AnswerError) else None
        if raised:
            raise AnswerError(ex, f"with k=0 and vocab_size left out (None) your function {raised[1]}: smoothing, and "
                                  "so V, is only for k > 0; with k = 0 return count(context, word) / count(context).")
        if isinstance(got, AnswerError):
            raise got
        expected = plain_ngram_prob(grams, contexts, context, word, 0.0, None)
        if not math.isclose(as_number(ex, got, "a number (a probability)"), expected, abs_tol=1e-12):
            raise AnswerError(ex, f"with k=0 and vocab_size left out (None), p({word} | {' '.join(context)}) should "
                                  f"be {expected:.6g}, yours is {got}.")


def _check_larger_vocabulary(ngram_prob: Callable, grams: Counter, contexts: Counter, V: int, k: float,
                             pairs: list) -> None:
    """Smoothing with a vocabulary larger than the counted words: V is the vocab_size argument, not counted."""
    ex = "ngram_prob"
    larger = V + 7
    counted = len({gram[-1] for gram in grams})
    calls = [((Counter(grams), Counter(contexts), tuple(c), w), {"k": k, "vocab_size": larger}) for c, w in pairs]
    values = [as_number(ex, got, "a number (a probability)")
              for got in call_answer_all(ex, ngram_prob, calls, banned=NGRAM_BUILTINS, reason=NGRAM_REASON)]
    expected = [plain_ngram_prob(grams, contexts, c, w, k, larger) for c, w in pairs]
    if all(math.isclose(v, e, rel_tol=1e-9, abs_tol=1e-12) for v, e in zip(values, expected)):
        return
    for guess, where in ((counted, "the number of distinct words the n-grams end with"), (V, "a fixed vocabulary")):
        if all(math.isclose(v, plain_ngram_prob(grams, contexts, c, w, k, guess), rel_tol=1e-9, abs_tol=1e-12)
               for v, (c, w) in zip(values, pairs)):
            raise AnswerError(ex, f"with vocab_size={larger} your V is {guess} ({where}): use the vocab_size "
                                  "argument for V, since the vocabulary can hold words no counted n-gram ends with.")
    raise AnswerError(ex, f"with k={k} and vocab_size={larger}, p({pairs[0][1]} | {' '.join(pairs[0][0])}) should be "
                          f"{expected[0]:.6g}, yours is {values[0]:.6g}: the denominator is count(context) + k * "
                          "vocab_size.")
