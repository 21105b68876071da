"""The check of ``count_ngrams(tokens, n)`` (notebook 01), against plain loops on the lecture's sentences."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Callable, Sequence

from course_lib.checks.ngrams_common import NGRAM_BUILTINS, NGRAM_REASON, corpus, padded, plain_count_ngrams
from course_lib.grading.answers import AnswerError, call_answer, case_note, report_pass

# ---------------------------------------------------------------------------
# count_ngrams(tokens, n)


def check_count_ngrams(count_ngrams: Callable, *, ns: Sequence[int] = (1, 2, 3), extra: bool = False) -> None:
    ex = "count_ngrams"
    tokens = [w for s in corpus(extra) for w in padded(s, 2)]
    for n in ns:
        expected = plain_count_ngrams(tokens, n)
        got = call_answer(ex, count_ngrams, list(tokens), n, banned=NGRAM_BUILTINS, reason=NGRAM_REASON)
        if got is None:
            raise AnswerError(ex, "returned None: did you forget a `return` statement?")
        if not isinstance(got, Mapping):
            raise AnswerError(ex, "should return a Counter (or dict) from n-gram tuples to counts, not a "
                                  f"{type(got).__name__}.")
        got = {key: c for key, c in got.items() if c != 0}
        if got == expected:
            continue
        case = f"n={n} on the lecture's sentences"
        if any(isinstance(key, (list, str)) for key in got):
            raise AnswerError(ex, f"the keys should be tuples of n words, like ('the', 'cat'){case_note(case)}.")
        lengths = {len(key) for key in got if isinstance(key, tuple)}
        if lengths and lengths <= {n - 1, n + 1} and len(lengths) == 1:
            m = lengths.pop()
            raise AnswerError(ex, f"off-by-one context window: you counted {m}-grams, but n={n} asks for "
                                  f"{n}-grams{case_note(case)}.")
        if n > 1 and got == plain_count_ngrams(tokens, n - 1):
            raise AnswerError(ex, f"off-by-one context window: you counted ({n - 1})-grams instead of "
                                  f"{n}-grams{case_note(case)}.")
        if lengths == {2} and n != 2:
            raise AnswerError(ex, f"you always counted bigrams (2-grams), but n={n} asks for {n}-grams: use n, the "
                                  f"window's length{case_note(case)}.")
        if got == plain_count_ngrams(tokens, n + 1):
            raise AnswerError(ex, f"off-by-one context window: you counted ({n + 1})-grams instead of "
                                  f"{n}-grams{case_note(case)}.")
        short = plain_count_ngrams(tokens[:-1], n)
        if got == short:
            raise AnswerError(ex, "you miss the last n-gram: the loop must run over range(len(tokens) - n + "
                                  f"1){case_note(case)}.")
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
        raise AnswerError(ex, "your n-grams differ from the correct ones, e.g. "
                              f"{sorted(set(expected) ^ set(got), key=str)[:2]}{case_note(case)}.")
    report_pass(ex, f"n in {list(ns)}")
