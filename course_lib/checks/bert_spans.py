"""The check of ``best_span(start_logits, end_logits, max_len)`` (notebook 07, question answering): against a brute
force over every (start, end) pair, in float64.
"""
from __future__ import annotations

import math
from typing import Callable

import torch

from course_lib.grading.answers import AnswerError, call_answer_all, case_note, describe_value, report_pass

# ---------------------------------------------------------------------------
# best_span(start_logits, end_logits, max_len)


def _span_scores(start, end, max_len, *, lower=0, upper=None):
    """Best score over spans with lower <= end - start and end - start + 1 <= max_len (upper: another limit)."""
    best, where = -math.inf, None
    T = len(start)
    for i in range(T):
        for j in range(T):
            length = j - i + 1
            if j - i < lower or (upper is not None and length > upper):
                continue
            if start[i] + end[j] > best:
                best, where = start[i] + end[j], (i, j)
    return best, where


def best_span_reference(start_logits, end_logits, max_len):
    """(start, end) maximising start_logits[start] + end_logits[end], start <= end, end - start + 1 <= max_len."""
    s, e = start_logits.double().tolist(), end_logits.double().tolist()
    return _span_scores(s, e, max_len, upper=max_len)[1]


def span_cases(seed: int = 0, count: int = 30) -> list[tuple[torch.Tensor, torch.Tensor, int]]:
    """Two cases made by hand (the best end lies before the best start; spans of max_len + 1 and max_len + 3 that
    score higher than the best allowed one), random logits where the limits matter, and edge cases: one token,
    ties, max_len of 1 and beyond T."""
    g = torch.Generator().manual_seed(seed)
    cases = [(torch.tensor([0.0, 0.5, 0.0, 5.0, 0.0]), torch.tensor([5.0, 0.0, 0.0, 0.0, 1.0]), 5),
             (torch.tensor([0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
              torch.tensor([0.0, 0.0, 0.0, 4.0, 5.0, 0.0, 5.5, 0.0, 0.0, 0.0]), 3)]
    for k in range(count):
        T = int(torch.randint(2, 40, (1,), generator=g))
        start, end = torch.randn(T, generator=g), torch.randn(T, generator=g)
        max_len = int(torch.randint(1, T + 3, (1,), generator=g))
        if k % 3 == 0:  # the best start lies after the best end
            i, j = sorted(torch.randperm(T, generator=g)[:2].tolist())
            start[j] += 6
            end[i] += 6
        if k % 3 == 1 and T > max_len + 1:  # a tempting span longer than max_len, and one exactly max_len long
            i = int(torch.randint(0, T - max_len - 1, (1,), generator=g))
            start[i] += 5
            end[i + max_len] += 5
            end[i + max_len - 1] += 4
        cases.append((start, end, max_len))
    negative = -3.0 - torch.rand(7, generator=g)  # every span scores below 0: disallowed spans set to 0 would win
    cases += [(negative, -3.0 - torch.rand(7, generator=g), 2)]
    cases += [(torch.tensor([1.5]), torch.tensor([-2.0]), 1), (torch.zeros(6), torch.zeros(6), 3),
              (torch.tensor([0.0, 3.0, 1.0]), torch.tensor([2.0, 0.0, 1.0]), 1),
              (torch.tensor([5.0, 0.0, 0.0, 0.0]), torch.tensor([0.0, 0.0, 0.0, 5.0]), 10)]
    return cases


def check_best_span(best_span: Callable, *, seed: int = 0, count: int = 30) -> None:
    """Against a brute force over every (start, end); with ties, any best span counts."""
    ex = "best_span"
    cases = span_cases(seed, count)
    outs = call_answer_all(ex, best_span, [((start.clone(), end.clone(), max_len), {})
                                           for start, end, max_len in cases])
    for (start, end, max_len), out in zip(cases, outs):
        case = f"T = {len(start)}, max_len = {max_len}"
        try:
            i, j = (int(x) for x in out)
        except (TypeError, ValueError):
            raise AnswerError(ex, f"should return a pair of ints (start, end), got {describe_value(out)}.") from None
        s, e = start.double().tolist(), end.double().tolist()
        best, (bi, bj) = _span_scores(s, e, max_len, upper=max_len)
        T = len(s)
        if not (0 <= i < T and 0 <= j < T):
            raise AnswerError(ex, f"({i}, {j}) is not a span of the {T} tokens; start and end are positions "
                                  f"0 .. T-1, the end included{case_note(case)}.")
        score = s[i] + e[j]
        if j >= i and j - i + 1 <= max_len and abs(score - best) <= 1e-6 * max(1.0, abs(best)):
            continue
        zeroed = (f" Every allowed span scores below 0 here ({best:.4f} at best): setting the disallowed ones to 0 "
                  "(a multiplied mask, or masked_fill with 0) makes them win; set them to -inf.") if best < 0 else ""
        if (i, j) == (max(range(T), key=s.__getitem__), max(range(T), key=e.__getitem__)) and j < i:
            raise AnswerError(ex, f"you took the argmax of the start and end logits separately, which gives end "
                                  f"{j} before start {i}; search over pairs with start <= end{case_note(case)}.")
        if j < i:
            raise AnswerError(ex, f"your span ends ({j}) before it starts ({i}); only spans with start <= end count"
                                  f"{case_note(case)}.{zeroed}")
        if j - i + 1 == max_len + 1:
            raise AnswerError(ex, f"your span has {j - i + 1} tokens, one more than max_len = {max_len}: the span "
                                  "start..end has end - start + 1 tokens, which must be <= "
                                  f"max_len{case_note(case)}.{zeroed}")
        if j - i + 1 > max_len:
            raise AnswerError(ex, f"your span has {j - i + 1} tokens but max_len = {max_len}: you ignore max_len "
                                  f"(end - start + 1 <= max_len){case_note(case)}.{zeroed}")
        short = _span_scores(s, e, max_len, upper=max_len - 1)[0]
        if abs(score - short) <= 1e-6 * max(1.0, abs(short)) and bj - bi + 1 == max_len:
            raise AnswerError(ex, f"your spans are at most {max_len - 1} tokens long, one short: end - start + 1 may "
                                  f"equal max_len = {max_len}{case_note(case)}.")
        why = ""
        avoiding_last = _span_scores(s[:-1], e[:-1], max_len, upper=max_len)[0] if T > 1 else None
        if (T - 1 in (bi, bj) and T - 1 not in (i, j) and avoiding_last is not None
                and abs(score - avoiding_last) <= 1e-6 * max(1.0, abs(avoiding_last))):  # the best span short of T-1
            why = (f" The best span uses the last token, position T-1 = {T - 1}, and yours is the best one without it: "
                   "do your loops reach it (range(T), not range(T - 1))? Or, if you started from the argmaxes of the "
                   "logits: start and end are chosen together, every start with every end after it.")
        elif i == max(range(T), key=s.__getitem__) and bi != i:
            why = (" You kept the start at the argmax of start_logits; start and end are chosen together, so try "
                   "every start with every end after it.")
        raise AnswerError(ex, f"({i}, {j}) scores {score:.4f} but ({bi}, {bj}) scores {best:.4f}: find the span with "
                              f"the largest start_logits[start] + end_logits[end]{case_note(case)}.{why}")
    report_pass(ex, "the best span of every case, against a brute force over all (start, end) pairs")
