"""The checks of ``sentence_logprob(tokens, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None)`` and of
``perplexity(sentences, counts_n, counts_n_minus_1, n, k=0.0, vocab_size=None)`` (notebook 01); the student's own
``ngram_prob`` and ``sentence_logprob`` are replaced meanwhile by correct ones that say when they are called wrongly.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Callable, Sequence

from course_lib.checks.ngrams_common import (LECTURE_GENERALISED, LECTURE_SENTENCES, NGRAM_BUILTINS, NGRAM_REASON,
                                             as_number, compare_number, corpus, corpus_counts, plain_sentence_logprob,
                                             vocab_size)
from course_lib.grading.answers import AnswerError, call_answer, case_note, report_pass

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
                              f"{self.n - 1} word(s), but you passed a context of {len(context)} "
                              f"word{'' if len(context) == 1 else 's'}: {context}.")
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
            got = call_answer(ex, sentence_logprob, list(tokens), Counter(grams), Counter(contexts), n, k=k,
                              vocab_size=V, banned=NGRAM_BUILTINS, reason=NGRAM_REASON,
                              substitutes={"ngram_prob": _Recorder(ex, n, k, grams, contexts, V)})
        except AnswerError as err:
            if "math domain error" in err.message:
                if k > 0:
                    raise AnswerError(ex, "log of zero: an n-gram got probability 0 although this check asks for "
                                          f"add-k smoothing (k={k}); use k{case_note(case)}.") from None
                raise AnswerError(ex, "math.log(0) raises an error: when a probability is 0, the log-probability of "
                                  f"the sentence is -math.inf; return that{case_note(case)}.") from None
            raise
        got = as_number(ex, got, "one number (a log-probability)")
        if k > 0 and got == -math.inf and expected > -math.inf:
            raise AnswerError(ex, f"log of zero: your answer is -inf although this check asks for add-k smoothing "
                              f"(k={k}), so no probability is 0{case_note(case)}.")
        compare_number(ex, got, expected, _logprob_mistakes(tokens, grams, contexts, n, k, V, expected),
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
                          banned=NGRAM_BUILTINS, reason=NGRAM_REASON,
                          substitutes={"ngram_prob": _Recorder(ex, n, k, grams, contexts, V)})
    except AnswerError as err:
        if "math domain error" in err.message:
            raise AnswerError(ex, underflow) from None
        raise
    got = as_number(ex, got, "one number (a log-probability)")
    if got == -math.inf:
        raise AnswerError(ex, underflow)
    compare_number(ex, got, expected, _logprob_mistakes(long, grams, contexts, n, k, V, expected),
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
            raise AnswerError(self.ex, "your perplexity calls sentence_logprob without "
                                       f"{'k' if not k else 'vocab_size'}: pass k=k and vocab_size=vocab_size on, or "
                                       "the model you measure is not the smoothed one this check asks for "
                                       f"(k={self.k}).")
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
                      banned=NGRAM_BUILTINS, reason=NGRAM_REASON,
                      substitutes={"sentence_logprob": _SentenceRecorder(ex, k),
                                   "ngram_prob": _Recorder(ex, n, k, grams, contexts, V)})
    got = as_number(ex, got, "one number")
    wrong = {
        "base2": ("log base mismatch: the log-probabilities are natural logs, so take exp(...), not 2 ** (...).",
                  2 ** (-logp / n_tok)),
        "base2_logs": ("log base mismatch: you turned the natural log-probability into bits; keep natural logs and use "
                       "exp.",
                       2 ** (-logp / math.log(2) / n_tok)),
        "not_divided": ("you did not divide by the number of tokens: perplexity is exp(-total log-probability / N).",
                        math.exp(-logp)),
        "per_sentence": ("you divided by the number of sentences; divide by the number of tokens N (words plus one "
                         "</s> per sentence).",
                         math.exp(-logp / len(tests))),
        "no_eos_count": ("count one </s> per sentence in N: the model also predicts the end of each sentence.",
                         math.exp(-logp / (n_tok - len(tests)))),
        "sign": ("the sign is wrong: perplexity is exp(MINUS the average log-probability), so it is at least 1.",
                 math.exp(logp / n_tok)),
        "no_exp": ("you returned the average negative log-probability (the cross-entropy); perplexity is its exp.",
                   -logp / n_tok),
    }
    mistakes = [(name, message, lambda v=value: v) for name, (message, value) in wrong.items()]
    compare_number(ex, got, expected, mistakes, what="your perplexity", case=case)
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
                      vocab_size=V, banned=NGRAM_BUILTINS, reason=NGRAM_REASON,
                      substitutes={"sentence_logprob": _SentenceRecorder(ex, 0.0),
                                   "ngram_prob": _Recorder(ex, n, 0.0, grams, contexts, V)})
    got = as_number(ex, got, "one number")
    if got != math.inf:
        said = "skipped" if math.isfinite(got) else f"returned {got}"
        raise AnswerError(ex, f"with k=0 and a test sentence that has an n-gram the training text never has ("
                              f"{' '.join(unseen[-2:])!r}), that sentence's probability is 0, so the perplexity is "
                              f"infinite (math.inf); your answer {said} it. Do not leave sentences out: a total "
                              "log-probability of -inf gives exp(inf) = inf.")
