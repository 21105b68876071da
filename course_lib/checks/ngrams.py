"""Checks for notebook 01 (n-gram language models).

References are written here from scratch with plain loops (never with ``course_lib.ngram``,
which is switched off while an answer is graded), on the lecture's cat/dog sentences.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import Any, Callable, Sequence

import torch

import course_lib.ngram as course_ngram
from course_lib.diagnosis import list_words
from course_lib.grading import (AnswerError, Banned, Terms, Variant, call_answer, call_answer_all, call_answer_each,
                                case_note, compare_answer, raised_by_answer, report_pass)
from course_lib.grading import install_notebook_hooks  # noqa: F401 (the notebook's setup cell calls it)

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

_BANNED = [
    Banned(course_ngram, "count_ngrams", "course_lib.ngram.count_ngrams"),
    Banned(course_ngram, "NGramModel", "course_lib.ngram.NGramModel"),
]
_REASON = "the exercise is to write it yourself."


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


def plain_ngram_prob(counts_n, counts_n_minus_1, context, word, k=0.0, V=None, *, add_kv=True, use_k=True, word_first=False):
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


def _as_number(ex: str, got: Any, what: str) -> float:
    """A student's one-number answer as a float, or a sentence saying what came back instead."""
    if got is None:
        raise AnswerError(ex, "returned None: did you forget a `return` statement?")
    if isinstance(got, (str, bytes)):
        raise AnswerError(ex, f"should return {what}, not a {type(got).__name__}.")
    try:
        return float(got)
    except (TypeError, ValueError):
        raise AnswerError(ex, f"should return {what}, not a {type(got).__name__}.") from None


def _compare_number(ex: str, got: float, expected: float, mistakes, *, what: str, case: str) -> None:
    """:func:`compare_answer` for one number; ``mistakes`` are (name, message, value_of_that_mistake) triples."""
    def as_tensor(value: float) -> torch.Tensor:
        return torch.tensor([value], dtype=torch.float64)

    variants = [Variant(name, message, lambda f=value: as_tensor(f())) for name, message, value in mistakes]
    compare_answer(ex, as_tensor(got), as_tensor(expected), variants=variants, what=what, case=case)


# ---------------------------------------------------------------------------
# count_ngrams(tokens, n)


def check_count_ngrams(count_ngrams: Callable, *, ns: Sequence[int] = (1, 2, 3), extra: bool = False) -> None:
    ex = "count_ngrams"
    tokens = [w for s in corpus(extra) for w in padded(s, 2)]
    for n in ns:
        expected = plain_count_ngrams(tokens, n)
        got = call_answer(ex, count_ngrams, list(tokens), n, banned=_BANNED, reason=_REASON)
        if got is None:
            raise AnswerError(ex, "returned None: did you forget a `return` statement?")
        if not isinstance(got, Mapping):
            raise AnswerError(ex, f"should return a Counter (or dict) from n-gram tuples to counts, not a {type(got).__name__}.")
        got = {key: c for key, c in got.items() if c != 0}
        if got == expected:
            continue
        case = f"n={n} on the lecture's sentences"
        if any(isinstance(key, (list, str)) for key in got):
            raise AnswerError(ex, f"the keys should be tuples of n words, like ('the', 'cat'){case_note(case)}.")
        lengths = {len(key) for key in got if isinstance(key, tuple)}
        if lengths and lengths <= {n - 1, n + 1} and len(lengths) == 1:
            m = lengths.pop()
            raise AnswerError(ex, f"off-by-one context window: you counted {m}-grams, but n={n} asks for {n}-grams{case_note(case)}.")
        if n > 1 and got == plain_count_ngrams(tokens, n - 1):
            raise AnswerError(ex, f"off-by-one context window: you counted ({n - 1})-grams instead of {n}-grams{case_note(case)}.")
        if lengths == {2} and n != 2:
            raise AnswerError(ex, f"you always counted bigrams (2-grams), but n={n} asks for {n}-grams: use n, the "
                                  f"window's length{case_note(case)}.")
        if got == plain_count_ngrams(tokens, n + 1):
            raise AnswerError(ex, f"off-by-one context window: you counted ({n + 1})-grams instead of {n}-grams{case_note(case)}.")
        short = plain_count_ngrams(tokens[:-1], n)
        if got == short:
            raise AnswerError(ex, f"you miss the last n-gram: the loop must run over range(len(tokens) - n + 1){case_note(case)}.")
        extra_grams = set(got) - set(expected)
        if extra_grams and all(len(g) < n for g in extra_grams):
            raise AnswerError(ex, f"you also counted grams shorter than n at the end of the sequence, e.g. "
                                  f"{sorted(extra_grams, key=str)[0]}: only windows of exactly n words count; stop at "
                                  f"len(tokens) - n + 1{case_note(case)}.")
        if set(got) == set(expected):
            wrong = [g for g in expected if got[g] != expected[g]]
            if all(got[g] == 1 for g in got) and any(expected[g] > 1 for g in wrong):
                raise AnswerError(ex, "every count is 1: an n-gram that occurs several times must be counted every "
                                      f"time (a set keeps each one once){case_note(case)}.")
            if all(got[g] > expected[g] for g in wrong) and all("<s>" in g or "</s>" in g for g in wrong):
                raise AnswerError(ex, "your counts of the n-grams with <s> or </s> are too high: count_ngrams gets "
                                      f"sentences that are already padded; do not pad them again{case_note(case)}.")
            raise AnswerError(ex, f"you found the right n-grams but some counts are wrong, e.g. {wrong[0]}: "
                                  f"{got[wrong[0]]} instead of {expected[wrong[0]]}{case_note(case)}.")
        raise AnswerError(ex, f"your n-grams differ from the correct ones, e.g. {sorted(set(expected) ^ set(got), key=str)[:2]}{case_note(case)}.")
    report_pass(ex, f"n in {list(ns)}")


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
             "unseen n-grams of a seen context": lambda c, w: grams.get(tuple(c) + (w,), 0) == 0 and contexts.get(tuple(c), 0) > 0,
             "unseen contexts": lambda c, w: contexts.get(tuple(c), 0) == 0}
    good, bad = [], []
    for kind, member in kinds.items():
        marks = [ok for (c, w), ok in zip(pairs, right) if member(c, w)]
        if marks:
            (good if all(marks) else bad).append(kind)
    sentences = []
    if good and bad:
        sentences.append(f"your probabilities are right for {list_words(good)} and wrong for {list_words(bad)}"
                         + ("; add-k smoothing adds k to every n-gram's count, seen or not." if k and "seen n-grams" in bad
                            and "unseen n-grams of a seen context" in good else "."))
    ratios: dict = {}
    for (c, w), v, e in zip(pairs, values, expected):
        if e > 0:
            ratios.setdefault(tuple(c), []).append(v / e)
    steady = all(max(r) - min(r) < 1e-9 * max(1.0, max(map(abs, r))) for r in ratios.values())
    levels = [r[0] for r in ratios.values()]
    if steady and len(ratios) > 1 and max(levels) - min(levels) > 1e-9:
        sentences.append("Within each context your probabilities have the right proportions but the wrong total: the "
                         "numerator is right and the denominator is wrong. Divide by the count of the context, count(context)"
                         + (" + k * V." if k else "."))
    if k:
        sums: dict = {}
        for (c, _), v in zip(pairs, values):
            sums[tuple(c)] = sums.get(tuple(c), 0.0) + v
        off = [(c, t) for c, t in sums.items() if abs(t - 1) > 1e-6]
        if off:
            sentences.append(f"With smoothing, the probabilities of each context must sum to 1 over the vocabulary; for "
                             f"the context {off[0][0]} yours sum to {off[0][1]:.4g}.")
        unsmoothed = call_answer_each(ex, ngram_prob, [((Counter(grams), Counter(contexts), tuple(c), w),
                                                        {"k": 0.0, "vocab_size": V}) for c, w in pairs],
                                      banned=_BANNED, reason=_REASON)
        if all(isinstance(u, (int, float)) and math.isclose(u, plain_ngram_prob(grams, contexts, c, w, 0.0, V), abs_tol=1e-12)
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
    values = [_as_number(ex, got, "a number (a probability)")
              for got in call_answer_all(ex, ngram_prob, calls, banned=_BANNED, reason=_REASON)]
    answer = torch.tensor(values, dtype=torch.float64)

    def grid(**kw):
        return torch.tensor([plain_ngram_prob(grams, contexts, c, w, k, V, **kw) for c, w in pairs], dtype=torch.float64)

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
    for (context, word), got in zip(pairs, call_answer_each(ex, ngram_prob, calls, banned=_BANNED, reason=_REASON)):
        raised = raised_by_answer(got) if isinstance(got, AnswerError) else None
        if raised:
            raise AnswerError(ex, f"with k=0 and vocab_size left out (None) your function {raised[1]}: smoothing, and "
                                  "so V, is only for k > 0; with k = 0 return count(context, word) / count(context).")
        if isinstance(got, AnswerError):
            raise got
        expected = plain_ngram_prob(grams, contexts, context, word, 0.0, None)
        if not math.isclose(_as_number(ex, got, "a number (a probability)"), expected, abs_tol=1e-12):
            raise AnswerError(ex, f"with k=0 and vocab_size left out (None), p({word} | {' '.join(context)}) should "
                                  f"be {expected:.6g}, yours is {got}.")


def _check_larger_vocabulary(ngram_prob: Callable, grams: Counter, contexts: Counter, V: int, k: float,
                             pairs: list) -> None:
    """Smoothing with a vocabulary larger than the counted words: V is the vocab_size argument, not counted."""
    ex = "ngram_prob"
    larger = V + 7
    counted = len({gram[-1] for gram in grams})
    calls = [((Counter(grams), Counter(contexts), tuple(c), w), {"k": k, "vocab_size": larger}) for c, w in pairs]
    values = [_as_number(ex, got, "a number (a probability)")
              for got in call_answer_all(ex, ngram_prob, calls, banned=_BANNED, reason=_REASON)]
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


# ---------------------------------------------------------------------------
# sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None)


class _Recorder:
    """A correct ngram_prob that says so when it is called with the wrong context or without k."""

    def __init__(self, exercise: str, n: int, k: float, grams, contexts, V):
        self.ex, self.n, self.k, self.grams, self.contexts, self.V = exercise, n, k, grams, contexts, V

    def __call__(self, counts_n, counts_n_minus_1, context, word, k=0.0, vocab_size=None):
        context = tuple(context)
        if len(context) != self.n - 1:
            raise AnswerError(self.ex, f"off-by-one context window: a model with n={self.n} conditions on the previous "
                              f"{self.n - 1} word(s), but you passed a context of {len(context)} word{'' if len(context) == 1 else 's'}: {context}.")
        if self.k > 0 and (k or 0) == 0:
            raise AnswerError(self.ex, f"log of zero: this check asks for add-k smoothing (k={self.k}) but you called "
                              "ngram_prob without k, so an unseen n-gram gets probability 0 and log(0) = -inf. "
                              "Pass k and vocab_size on.")
        num = counts_n.get(context + (word,), 0) + k
        den = counts_n_minus_1.get(context, 0) + k * (vocab_size or 0)
        return num / den if den else 0.0


def check_sentence_logprob(sentence_logprob: Callable, *, n: int = 2, k: float = 0.0, extra: bool = False,
                           sentences: Sequence[str] | None = None) -> None:
    ex = "sentence_logprob"
    train = corpus(extra)
    grams, contexts = corpus_counts(train, n)
    V = vocab_size(train)
    tests = [s.split() for s in (sentences or (LECTURE_SENTENCES + LECTURE_GENERALISED[:1]))]
    for tokens in tests:
        case = f"'{' '.join(tokens)}', n={n}, k={k}"
        expected = plain_sentence_logprob(tokens, grams, contexts, n, k, V)
        try:
            got = call_answer(ex, sentence_logprob, list(tokens), Counter(grams), Counter(contexts), n, k=k, vocab_size=V,
                              banned=_BANNED, reason=_REASON,
                              substitutes={"ngram_prob": _Recorder(ex, n, k, grams, contexts, V)})
        except AnswerError as err:
            if "math domain error" in err.message:
                if k > 0:
                    raise AnswerError(ex, f"log of zero: an n-gram got probability 0 although this check asks for add-k "
                                      f"smoothing (k={k}); use k{case_note(case)}.") from None
                raise AnswerError(ex, "math.log(0) raises an error: when a probability is 0, the log-probability of "
                                  f"the sentence is -math.inf; return that{case_note(case)}.") from None
            raise
        got = _as_number(ex, got, "one number (a log-probability)")
        if k > 0 and got == -math.inf and expected > -math.inf:
            raise AnswerError(ex, f"log of zero: your answer is -inf although this check asks for add-k smoothing "
                              f"(k={k}), so no probability is 0{case_note(case)}.")
        _compare_number(ex, got, expected, _logprob_mistakes(tokens, grams, contexts, n, k, V, expected),
                        what="your log-probability", case=case)
    _check_long_sentence(sentence_logprob, tests[0], grams, contexts, n, V)
    report_pass(ex, f"{len(tests)} sentence(s), n={n}, k={k}; and one of {LONG_REPEATS * len(tests[0])} words")


#: a long sentence: the first test sentence this many times over (with k = 1, every word's probability is above 0)
LONG_REPEATS = 150


def _check_long_sentence(sentence_logprob: Callable, tokens: list[str], grams: Counter, contexts: Counter, n: int,
                         V: int) -> None:
    """A sentence long enough that the product of its probabilities underflows to 0.0, smoothed so that none is 0."""
    ex, k = "sentence_logprob", 1.0
    long = list(tokens) * LONG_REPEATS
    case = f"one sentence of {len(long)} words, n={n}, k={k}"
    expected = plain_sentence_logprob(long, grams, contexts, n, k, V)  # about -2000: finite
    underflow = (f"a sentence of {len(long)} words, each with a probability above 0 (k={k}), got log-probability "
                 "-inf: the product of that many probabilities underflows to 0.0 in floating point. Add the logs one "
                 "by one (total += math.log(p)) instead of taking the log of a product.")
    try:
        got = call_answer(ex, sentence_logprob, long, Counter(grams), Counter(contexts), n, k=k, vocab_size=V,
                          banned=_BANNED, reason=_REASON, substitutes={"ngram_prob": _Recorder(ex, n, k, grams, contexts, V)})
    except AnswerError as err:
        if "math domain error" in err.message:
            raise AnswerError(ex, underflow) from None
        raise
    got = _as_number(ex, got, "one number (a log-probability)")
    if got == -math.inf:
        raise AnswerError(ex, underflow)
    _compare_number(ex, got, expected, _logprob_mistakes(long, grams, contexts, n, k, V, expected),
                    what="your log-probability", case=case)


def _logprob_mistakes(tokens: list[str], grams: Counter, contexts: Counter, n: int, k: float, V: int,
                      expected: float) -> list[tuple[str, str, Callable[[], float]]]:
    """The catalogued wrong log-probabilities of one sentence: (name, sentence, value)."""
    return [
        ("off_by_one_padding", f"off-by-one context window: your log-probability is the one with {n} <s> in front, "
         f"or with every context shifted by one position: pad with n-1 = {n - 1} <s>, and take as a word's context the "
         f"n-1 tokens just before it (not including it).",
         lambda: plain_sentence_logprob(tokens, grams, contexts, n, k, V, n_pad=n)),
        ("no_eos", "you left out </s>: the probability of ending the sentence is part of it.",
         lambda: plain_sentence_logprob(tokens, grams, contexts, n, k, V, eos=False)),
        ("log2", "you used log base 2; use the natural log (math.log).",
         lambda: plain_sentence_logprob(tokens, grams, contexts, n, k, V, base=2)),
        ("log10", "you used log base 10; use the natural log (math.log).",
         lambda: plain_sentence_logprob(tokens, grams, contexts, n, k, V, base=10)),
        ("probability", "you returned the probability, not its log: add up log-probabilities.",
         lambda: math.exp(expected)),
    ]


# ---------------------------------------------------------------------------
# perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None)


class _SentenceRecorder:
    """A correct sentence_logprob that says so when perplexity calls it without k or vocab_size."""

    def __init__(self, exercise: str, k: float):
        self.ex, self.k = exercise, k

    def __call__(self, tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None):
        if self.k > 0 and (not k or vocab_size is None):
            raise AnswerError(self.ex, f"your perplexity calls sentence_logprob without {'k' if not k else 'vocab_size'}: "
                                       "pass k=k and vocab_size=vocab_size on, or the model you measure is not the "
                                       f"smoothed one this check asks for (k={self.k}).")
        return plain_sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k, vocab_size)


def check_perplexity(perplexity: Callable, *, n: int = 2, k: float = 0.5, extra: bool = False,
                     sentences: Sequence[str] | None = None) -> None:
    ex = "perplexity"
    train = corpus(extra)
    grams, contexts = corpus_counts(train, n)
    V = vocab_size(train)
    tests = [s.split() for s in (sentences or LECTURE_GENERALISED)]
    logp = sum(plain_sentence_logprob(t, grams, contexts, n, k, V) for t in tests)
    n_tok = sum(len(t) + 1 for t in tests)
    expected = math.exp(-logp / n_tok)
    case = f"{len(tests)} sentences, n={n}, k={k}"
    got = call_answer(ex, perplexity, [list(t) for t in tests], Counter(grams), Counter(contexts), n, k=k, vocab_size=V,
                      banned=_BANNED, reason=_REASON,
                      substitutes={"sentence_logprob": _SentenceRecorder(ex, k),
                                   "ngram_prob": _Recorder(ex, n, k, grams, contexts, V)})
    got = _as_number(ex, got, "one number")
    wrong = {
        "base2": ("log base mismatch: the log-probabilities are natural logs, so take exp(...), not 2 ** (...).",
                  2 ** (-logp / n_tok)),
        "base2_logs": ("log base mismatch: you turned the natural log-probability into bits; keep natural logs and use exp.",
                       2 ** (-logp / math.log(2) / n_tok)),
        "not_divided": ("you did not divide by the number of tokens: perplexity is exp(-total log-probability / N).",
                        math.exp(-logp)),
        "per_sentence": ("you divided by the number of sentences; divide by the number of tokens N (words plus one </s> per sentence).",
                         math.exp(-logp / len(tests))),
        "no_eos_count": ("count one </s> per sentence in N: the model also predicts the end of each sentence.",
                         math.exp(-logp / (n_tok - len(tests)))),
        "sign": ("the sign is wrong: perplexity is exp(MINUS the average log-probability), so it is at least 1.",
                 math.exp(logp / n_tok)),
        "no_exp": ("you returned the average negative log-probability (the cross-entropy); perplexity is its exp.",
                   -logp / n_tok),
    }
    mistakes = [(name, message, lambda v=value: v) for name, (message, value) in wrong.items()]
    _compare_number(ex, got, expected, mistakes, what="your perplexity", case=case)
    _check_unseen_perplexity(perplexity, train, grams, contexts, n, V)
    report_pass(ex, f"{expected:.4f} on {case}; infinite with k=0 and an unseen bigram")


def _check_unseen_perplexity(perplexity: Callable, train: list[list[str]], grams: Counter, contexts: Counter, n: int,
                             V: int) -> None:
    """k = 0, the training sentences (each of probability above 0) and one with an n-gram the training text never
    has: its probability is 0, the perplexity math.inf."""
    ex = "perplexity"
    unseen = [*train[0], train[0][-1]]  # the last word twice: an n-gram no training sentence has
    sentences = [*train, unseen]
    if plain_sentence_logprob(unseen, grams, contexts, n, 0.0, V) > -math.inf:
        return  # (another corpus: no unseen n-gram this way)
    got = call_answer(ex, perplexity, [list(t) for t in sentences], Counter(grams), Counter(contexts), n, k=0.0,
                      vocab_size=V, banned=_BANNED, reason=_REASON,
                      substitutes={"sentence_logprob": _SentenceRecorder(ex, 0.0),
                                   "ngram_prob": _Recorder(ex, n, 0.0, grams, contexts, V)})
    got = _as_number(ex, got, "one number")
    if got != math.inf:
        said = "skipped" if math.isfinite(got) else f"returned {got}"
        raise AnswerError(ex, f"with k=0 and a test sentence that has an n-gram the training text never has ("
                              f"{' '.join(unseen[-2:])!r}), that sentence's probability is 0, so the perplexity is "
                              f"infinite (math.inf); your answer {said} it. Do not leave sentences out: a total "
                              "log-probability of -inf gives exp(inf) = inf.")
