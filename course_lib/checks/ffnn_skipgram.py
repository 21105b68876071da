"""Checks for notebook 02's word2vec section: skip-gram pairs, the negative-sampling distribution and draws, and the
skip-gram-with-negative-sampling (SGNS) loss.

References are independent of ``course_lib.skipgram`` (switched off while an answer is graded): the pairs are
counted position by position here; the distribution is computed in float64; the draws are judged by their counts,
within 6 standard deviations of what the distribution expects (never flaky); the loss is PyTorch's
``F.binary_cross_entropy_with_logits`` with the context word as a 1 and each negative as a 0.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Any, Callable, Sequence

import torch
import torch.nn.functional as F

import course_lib.skipgram as course_skipgram
from course_lib.checks.common import WRITE_IT_YOURSELF, check_gradients_reach, device_for_checks, random_tensor
from course_lib.grading.answers import (
    AnswerError,
    Banned,
    Probe,
    Terms,
    Variant,
    call_answer,
    call_answer_each,
    case_note,
    compare_answer,
    describe_value,
    report_pass,
    run_probes,
)

_COURSE_SKIPGRAM = [
    Banned(course_skipgram, "skipgram_pairs", "course_lib.skipgram.skipgram_pairs"),
    Banned(course_skipgram, "negative_distribution", "course_lib.skipgram.negative_distribution"),
    Banned(course_skipgram, "sgns_loss", "course_lib.skipgram.sgns_loss"),
    Banned(course_skipgram.SkipGram, "forward", "course_lib.skipgram.SkipGram.forward"),
]
_BCE_BUILTINS = _COURSE_SKIPGRAM + [
    Banned(F, "binary_cross_entropy_with_logits", "torch.nn.functional.binary_cross_entropy_with_logits"),
    Banned(F, "binary_cross_entropy", "torch.nn.functional.binary_cross_entropy"),
    Banned(torch, "binary_cross_entropy_with_logits", "torch.binary_cross_entropy_with_logits"),
    Banned(torch.nn, "BCEWithLogitsLoss", "torch.nn.BCEWithLogitsLoss"),
    Banned(torch.nn, "BCELoss", "torch.nn.BCELoss"),
]

# ---------------------------------------------------------------------------
# skipgram_pairs(ids, window) -> [(center, context), ...]

#: sentences of word ids: one word, two, a repeated word (the same id at two positions), and longer ones
PAIR_SENTENCES = [[5], [3, 8], [4, 4, 7], [2, 9, 6, 9, 1], [10, 11, 12, 13, 14, 15, 16]]


def _pairs(ids: Sequence[int], window: int, *, left: int | None = None, right: int | None = None,
           self_pairs: bool = False, same_id: bool = True, wrap: bool = False, full_only: bool = False,
           negative_slice: bool = False, positions: bool = False, skip_center: int | None = None) -> Counter:
    """The (center, context) pairs as a multiset, or one known mistake: other reach on either side, the word with
    itself, no pair of equal ids, negative indices wrapping around to the end, only centers with a full window, a left
    slice ids[i - window:i] that is empty near the start (a negative start), positions instead of ids, a center left
    out."""
    left = window if left is None else left
    right = window if right is None else right
    T = len(ids)
    out: Counter = Counter()
    for i in range(T):
        if full_only and (i - left < 0 or i + right >= T) or i == skip_center:
            continue
        for j in range(i - left, i + right + 1):
            if negative_slice and j < i and i - left < 0:
                continue
            if j == i and not self_pairs:
                continue
            if j >= T or (j < 0 and not wrap):
                continue
            j %= T  # a negative index counts from the end in Python (one past the end raises an IndexError)
            if not same_id and ids[j] == ids[i]:
                continue
            out[(i, j) if positions else (ids[i], ids[j])] += 1
    return out


def _as_pair_list(ex: str, got: Any) -> list[tuple[int, int]]:
    if got is None:
        raise AnswerError(ex, "returned None: did you forget a `return` statement?")
    if isinstance(got, torch.Tensor):
        if got.numel() == 0:
            return []
        if got.dim() != 2 or got.shape[1] != 2:
            raise AnswerError(ex, f"should return a list of (center, context) pairs (or an (N, 2) tensor), not "
                                  f"{describe_value(got)}.")
        got = got.tolist()
    if not isinstance(got, (list, tuple)):
        raise AnswerError(ex, f"should return a list of (center, context) pairs, not {describe_value(got)}.")
    pairs = []
    for item in got:
        if isinstance(item, torch.Tensor):
            item = item.tolist()
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise AnswerError(ex, f"each item should be a pair (center, context) of two word ids, got {item!r}.")
        try:
            pairs.append((int(item[0]), int(item[1])))
        except (TypeError, ValueError):
            raise AnswerError(ex, f"each pair should hold two word ids (ints), got {item!r}.") from None
    return pairs


def check_skipgram_pairs(skipgram_pairs: Callable, *, windows: Sequence[int] = (1, 2, 3),
                         sentences: Sequence[Sequence[int]] | None = None) -> None:
    """The multiset of pairs against one counted here, for each sentence and window (the order of the pairs is free:
    training shuffles them)."""
    ex = "skipgram_pairs"
    sentences = [list(s) for s in (sentences or PAIR_SENTENCES)]
    cases = [(list(ids), window) for window in windows for ids in sentences]
    outs = call_answer_each(ex, skipgram_pairs, [((list(ids), window), {}) for ids, window in cases],
                            banned=_COURSE_SKIPGRAM, reason=WRITE_IT_YOURSELF)
    raised = [out for out in outs if isinstance(out, AnswerError)]
    failing = []
    for (ids, window), out in zip(cases, outs):
        if isinstance(out, AnswerError):
            continue
        got = Counter(_as_pair_list(ex, out))
        if got != _pairs(ids, window):
            failing.append((ids, window, got))
    # said on the case that tells most mistakes apart: a window of 2 or more, a sentence longer than the window
    failing.sort(key=lambda f: (f[1] < 2 or len(f[0]) <= f[1] + 1, -len(f[0])))
    explained = [_known_pair_mistakes(ids, window, got) for ids, window, got in failing]  # {mistake: sentence}
    for mistake, message in explained[0].items() if explained else []:  # one that explains every failing case first
        if all(mistake in found for found in explained):
            ids, window, _ = failing[0]
            raise AnswerError(ex, f"{message}{case_note(f'ids={ids}, window={window}')}.")
    for (ids, window, _), found in sorted(zip(failing, explained), key=lambda f: len(f[1]) != 1):  # unambiguous first
        if found:
            raise AnswerError(ex, f"{next(iter(found.values()))}{case_note(f'ids={ids}, window={window}')}.")
    if raised:  # the cases that returned tell nothing known: the error of the first that raised
        raise raised[0]
    if failing:
        ids, window, got = failing[0]
        where = case_note(f"ids={ids}, window={window}")
        expected = _pairs(ids, window)
        missing = expected - got
        extra = got - expected
        if missing and not extra:
            raise AnswerError(ex, f"{sum(missing.values())} pair(s) are missing, e.g. {next(iter(missing))} "
                                  f"(center, context){where}.")
        if extra and not missing:
            raise AnswerError(ex, f"{sum(extra.values())} pair(s) too many, e.g. {next(iter(extra))} (center, "
                                  f"context){where}.")
        raise AnswerError(ex, f"a sentence of {len(ids)} words with window {window} gives "
                              f"{sum(expected.values())} pairs; yours has {sum(got.values())}, e.g. "
                              f"{next(iter(extra))} should not be there and {next(iter(missing))} is missing"
                              f"{where}.")
    report_pass(ex, f"windows {list(windows)}; sentences of 1 to {max(map(len, sentences))} words, a repeated word")


def _known_pair_mistakes(ids: list[int], window: int, got: Counter) -> dict[int, str]:
    """The known mistakes (by number) whose pairs are ``got`` on this sentence and window, with their sentences."""
    expected = _pairs(ids, window)
    known = [
        (_pairs(ids, window, self_pairs=True),
         "you paired each word with itself at its own position: the context is the words around the center, "
         "so skip j == i"),
        (_pairs(ids, window, same_id=False),
         "you left out every pair of two equal ids, but only the center's own position is to be skipped: the "
         "same word at another position is a real context (compare positions, j != i, not ids)"),
        (_pairs(ids, window - 1),
         f"window off by one: take window = {window} words on each side of the center, yours take {window - 1} "
         "(range(i - window, i + window + 1) includes both ends)"),
        (_pairs(ids, window + 1),
         f"window off by one: take window = {window} words on each side of the center, yours take "
         f"{window + 1}"),
        (_pairs(ids, window, left=0),
         "you only pair each word with the words after it: the context is window words on both sides, before "
         "and after the center"),
        (_pairs(ids, window, right=0),
         "you only pair each word with the words before it: the context is window words on both sides, before "
         "and after the center"),
        (_pairs(ids, window, left=window - 1) if window > 1 else None,
         "your window reaches one word less to the left than to the right: a slice ids[i - window:i] stops "
         "before i, a range(i - window, i + window + 1) includes both ends"),
        (_pairs(ids, window, right=window - 1) if window > 1 else None,
         "your window reaches one word less to the right than to the left: ids[i + 1:i + window + 1] holds the "
         "window words after i"),
        (_pairs(ids, window, wrap=True),
         "near the start of the sentence your pairs wrap around to its end (a negative index counts from the end "
         "in Python): keep only positions 0 <= j < len(ids)"),
        (_pairs(ids, window, full_only=True),
         "the words near the ends of the sentence are missing as centers: they have fewer context words, not "
         "none; clip the window at the sentence's ends"),
        (_pairs(ids, window, negative_slice=True),
         "the first words lose their left context: a slice ids[i - window:i] whose start is negative counts from "
         "the end of the list in Python and comes out empty; start it at max(0, i - window)"),
        (Counter(set(expected.elements())),
         "you removed repeated pairs (a set?): a pair that occurs twice in the sentence is two training "
         "examples, so keep every occurrence"),
        (_pairs(ids, window // 2),
         f"window is the number of context words on *each* side of the center, not the width of the whole "
         f"window: take {window} words before and after (yours take half, {window // 2}, on each side)"),
        (_pairs(ids, window, positions=True),
         "your pairs hold positions (i, j); they should hold the word ids at those positions, (ids[i], ids[j])"),
        (_pairs(ids, window, skip_center=len(ids) - 1),
         "the last word is never a center: loop over every position, range(len(ids)), not range(len(ids) - 1)"),
        (_pairs(ids, window, skip_center=0),
         "the first word is never a center: loop over every position, range(len(ids))"),
    ]
    return {number: message for number, (wrong, message) in enumerate(known)
            if wrong is not None and got == wrong and wrong != expected}


# ---------------------------------------------------------------------------
# negative_distribution(counts) -> (V,) probabilities


#: word counts with one very frequent word, rare ones and a word never seen (count 0)
DISTRIBUTION_COUNTS = [[120, 40, 9, 3, 1, 0, 27], [1, 1, 2], [5000, 10]]


def _distribution(counts: torch.Tensor, power: float = 0.75, *, normalise: bool = True,
                  normalise_first: bool = False) -> torch.Tensor:
    c = counts.double()
    if normalise_first:
        c = c / c.sum()
    w = c ** power
    return w / w.sum() if normalise else w


def check_negative_distribution(negative_distribution: Callable, *,
                                counts: Sequence[Sequence[int]] | None = None) -> None:
    ex = "negative_distribution"
    for row in counts or DISTRIBUTION_COUNTS:
        c = torch.tensor(row, dtype=torch.long)
        case = f"counts={row}"
        got = call_answer(ex, negative_distribution, c.clone(), banned=_COURSE_SKIPGRAM, reason=WRITE_IT_YOURSELF)
        if isinstance(got, (list, tuple)) or type(got).__module__ == "numpy":
            raise AnswerError(ex, f"return a torch tensor, not {describe_value(got)}: the distribution goes on to "
                                  "torch.multinomial (convert a numpy array with torch.from_numpy(...)).")
        if isinstance(got, torch.Tensor) and not got.is_floating_point() and got.shape == c.shape:
            raise AnswerError(ex, f"your probabilities are integers ({str(got.dtype).replace('torch.', '')}): they are "
                                  "fractions, so return floats (convert the counts with .float() or .double() first)"
                                  f"{case_note(case)}.")
        precision = torch.float64
        if isinstance(got, torch.Tensor) and got.is_floating_point():
            precision = torch.float32 if got.dtype in (torch.float32, torch.float16, torch.bfloat16) else torch.float64
            got = got.detach().cpu().to(precision)  # judged in the precision it was computed in
        expected = _distribution(c).to(precision)
        variants = [
            Variant("no_power", "you used the plain unigram distribution count / total: raise each count to the 3/4 "
                                "power first, which gives rare words more of a chance.", lambda: _distribution(c, 1.0)),
            Variant("not_renormalised", "your numbers do not sum to 1: after raising the counts to the 3/4 power, "
                                        "divide by the sum of the powered counts (renormalise).",
                    lambda: _distribution(c, normalise=False)),
            Variant("normalised_first", "you normalised before taking the 3/4 power, so the numbers no longer sum to "
                                        "1: raise the counts to the 3/4 power, then divide by the sum of the result.",
                    lambda: _distribution(c, normalise=False, normalise_first=True)),
            Variant("power_4_3", "you raised the counts to the power 4/3: the power is 3/4 = 0.75.",
                    lambda: _distribution(c, 4 / 3)),
            Variant("power_1_4", "you raised the counts to the power 1/4 (1 - 3/4): the power is 3/4 = 0.75.",
                    lambda: _distribution(c, 0.25)),
            Variant("sqrt", "you took the square root of the counts: the power is 3/4 = 0.75.",
                    lambda: _distribution(c, 0.5)),
            Variant("power_0", "you raised the counts to the power 0, so every word (even one counted 0 times) gets "
                               "the same probability: 3 // 4 is integer division and gives 0; write 0.75 or 3 / 4.",
                    lambda: _distribution(c, 0.0)),
            Variant("add_one", "you added one to every count: a word counted 0 times must keep probability 0 (no "
                               "smoothing here), and the other shares shift.",
                    lambda: _distribution(c + 1)),
            Variant("softmax", "you normalised with a softmax, which exponentiates the powered counts: divide them by "
                               "their sum instead.",
                    lambda: torch.softmax(c.double() ** 0.75, 0)),
            Variant("max", "you divided by the largest powered count, so the numbers do not sum to 1: divide by their "
                           "sum.",
                    lambda: (c.double() ** 0.75) / (c.double() ** 0.75).max()),
            Variant("cubed", "you raised the counts to the power 3: counts ** 3 / 4 means (counts ** 3) / 4; write "
                             "counts ** 0.75 or counts ** (3 / 4).", lambda: _distribution(c, 3.0)),
            Variant("cubed_not_renormalised", "you raised the counts to the power 3 and did not renormalise: "
                                              "counts ** 3 / 4 means (counts ** 3) / 4; write counts ** (3 / 4), then "
                                              "divide by the sum.", lambda: _distribution(c, 3.0, normalise=False) / 4),
        ]
        variants = [Variant(v.name, v.message, lambda v=v: v.compute().to(precision)) for v in variants]
        compare_answer(ex, got, expected, variants=variants, what="the returned distribution", case=case)
    report_pass(ex, "counts with a frequent word, rare words and a count of 0")


# ---------------------------------------------------------------------------
# draw_negatives(distribution, num_pairs, k) -> (num_pairs, k) word ids

#: a distribution with a dominant word and a word that must never be drawn
DRAW_DISTRIBUTION = [0.45, 0.25, 0.15, 0.1, 0.05, 0.0]
SIGMAS = 6.0  # a correct sampler falls outside 6 standard deviations about once in 10^9 checks per word


def _count_bounds(p: float, n: int) -> tuple[float, float]:
    sd = math.sqrt(n * p * (1 - p))
    return n * p - SIGMAS * sd - 1, n * p + SIGMAS * sd + 1


def _fits(counts: Sequence[int], probs: Sequence[float], n: int) -> bool:
    return all(lo <= c <= hi for c, (lo, hi) in zip(counts, (_count_bounds(p, n) for p in probs)))


def check_draw_negatives(draw_negatives: Callable, *, distribution: Sequence[float] | None = None,
                         num_pairs: int = 20_000, k: int = 5) -> None:
    ex = "draw_negatives"
    probs = list(distribution or DRAW_DISTRIBUTION)
    V = len(probs)
    dist = torch.tensor(probs, dtype=torch.float32)
    case = f"distribution={probs}, num_pairs={num_pairs}, k={k}"
    where = case_note(case)
    got = call_answer(ex, draw_negatives, dist.clone(), num_pairs, k, banned=_COURSE_SKIPGRAM, reason=WRITE_IT_YOURSELF)
    if got is None:
        raise AnswerError(ex, "returned None: did you forget a `return` statement?")
    if not isinstance(got, torch.Tensor):
        raise AnswerError(ex, f"should return a tensor of word ids of shape (num_pairs, k), not {describe_value(got)}.")
    if tuple(got.shape) == (k, num_pairs) and k != num_pairs:
        raise AnswerError(ex, f"your tensor has shape {tuple(got.shape)}, which is (k, num_pairs): return one row of k "
                              f"negatives per pair, shape (num_pairs, k) = ({num_pairs}, {k}){where}.")
    if tuple(got.shape) != (num_pairs, k):
        raise AnswerError(ex, f"should return shape (num_pairs, k) = ({num_pairs}, {k}), got shape "
                              f"{tuple(got.shape)}{where}.")
    if got.is_floating_point() or got.dtype == torch.bool:
        raise AnswerError(ex, f"the negatives are word ids and index the embedding table: return an integer (long) "
                              f"tensor, not {got.dtype}{where}.")
    got = got.long().cpu()
    n = got.numel()
    counts = torch.bincount(got.flatten().clamp(0, V), minlength=V + 1).tolist()  # position V: ids past the end
    for shift in (1, -1):
        shifted = [probs[i - shift] if 0 <= i - shift < V else 0.0 for i in range(V + 1)]
        if _fits(counts, shifted, n) and not _fits(counts, probs + [0.0], n):
            raise AnswerError(ex, f"every draw is shifted by one word: word i comes out with the probability of word "
                                  f"{'i - 1' if shift == 1 else 'i + 1'} (off by one). Searching the cumulative sums? "
                                  "torch.searchsorted(torch.cumsum(distribution, 0), u, right=True) gives the word "
                                  "whose interval holds u; or use torch.multinomial(distribution, ..., "
                                  f"replacement=True){where}.")
    if bool((got < 0).any()) or bool((got >= V).any()):
        raise AnswerError(ex, f"some ids are outside 0 .. V-1 = {V - 1}: draw word ids, the positions of "
                              f"distribution{where}.")
    never = [i for i, p in enumerate(probs) if p == 0 and bool((got == i).any())]
    counts = torch.bincount(got.flatten(), minlength=V).tolist()
    nonzero = [i for i, p in enumerate(probs) if p > 0]
    uniform = [1 / len(nonzero) if p > 0 else 0.0 for p in probs]
    uniform_all = [1 / V] * V
    if num_pairs > 1 and bool((got == got[0]).all()):
        raise AnswerError(ex, "every pair got the same k negatives: draw num_pairs * k words, a fresh k for each "
                              f"pair{where}.")
    rows_with_repeats = sum(len(set(row)) < k for row in got.tolist())
    if k > 1 and num_pairs >= 100 and rows_with_repeats == 0 and max(probs) > 0.3:  # a repeat is near certain
        raise AnswerError(ex, "no row repeats a word, so you drew without replacement: the same word may be drawn "
                              f"twice for one pair (torch.multinomial(..., replacement=True)){where}.")
    if _fits(counts, uniform_all, n) or _fits(counts, uniform, n):
        raise AnswerError(ex, "your draws are uniform over the words: draw each word with its probability in "
                              f"distribution (torch.multinomial(distribution, ..., replacement=True)){where}.")
    if _fits(counts, torch.softmax(torch.tensor(probs, dtype=torch.float64), 0).tolist(), n):
        raise AnswerError(ex, "you drew from softmax(distribution): distribution is already a probability "
                              "distribution, and a softmax exponentiates it again; draw word i with probability "
                              "distribution[i] as it is (torch.multinomial(distribution, ..., "
                              f"replacement=True)){where}.")
    if never:
        raise AnswerError(ex, f"you drew word {never[0]}, whose probability is 0: each draw should pick word i with "
                              "probability distribution[i] (for example torch.multinomial(distribution, ..., "
                              f"replacement=True)){where}.")
    if _fits(counts, probs, n):
        report_pass(ex, f"{n} draws within {SIGMAS:g} standard deviations of the distribution")
        return
    powered = _distribution(torch.tensor(probs, dtype=torch.float64)).tolist()
    if _fits(counts, powered, n):
        raise AnswerError(ex, "you raised the distribution to the 3/4 power again: draw_negatives is given the "
                              f"distribution of negative_distribution, already powered and renormalised{where}.")
    shares = ", ".join(f"{c / n:.3f}" for c in counts)
    raise AnswerError(ex, f"the words come out with shares [{shares}], too far from the distribution {probs}: each "
                          f"draw should pick word i with probability distribution[i]{where}.")


# ---------------------------------------------------------------------------
# sgns_loss(v_center, u_context, u_negative) -> scalar


def sgns_reference(v_center: torch.Tensor, u_context: torch.Tensor, u_negative: torch.Tensor) -> torch.Tensor:
    """The SGNS loss as a binary classification: the context word is a 1, each negative a 0; binary cross-entropy
    with logits summed over the 1 + k words of a pair, averaged over the batch."""
    logits = torch.cat([torch.einsum("bd,bd->b", u_context, v_center)[:, None],
                        torch.einsum("bkd,bd->bk", u_negative, v_center)], dim=1)  # (B, 1 + k)
    labels = torch.zeros_like(logits)
    labels[:, 0] = 1.0
    return F.binary_cross_entropy_with_logits(logits, labels, reduction="none").sum(1).mean()


def _sgns_variant(v, u, n, *, neg_sign=-1.0, k_mean=False, batch_sum=False, per_example=False, negatives=True,
                  positive=True, sign=1.0, pos_sign=1.0):
    pos = pos_sign * torch.einsum("bd,bd->b", u, v)  # (B,)
    neg = torch.einsum("bkd,bd->bk", n, v)  # (B, k)
    neg_terms = F.logsigmoid(neg_sign * neg)
    per = -((F.logsigmoid(pos) if positive else 0) +
            ((neg_terms.mean(1) if k_mean else neg_terms.sum(1)) if negatives else 0))
    per = sign * per
    if per_example:
        return per
    return per.sum() if batch_sum else per.mean()


def _sgns_variants() -> list[Variant]:
    return [
        Variant("neg_sign", "the sign of the negative term is wrong: a negative word n should score low, so its term "
                            "is log sigma(-u_n . v_c), with a minus inside the sigma.",
                lambda v, u, n: _sgns_variant(v, u, n, neg_sign=1.0)),
        Variant("k_mean", "you averaged the k negatives' terms; the loss sums them (sum over k), and averages only "
                          "over the batch.", lambda v, u, n: _sgns_variant(v, u, n, k_mean=True)),
        Variant("batch_sum", "you return the sum over the batch; return the mean over the B pairs.",
                lambda v, u, n: _sgns_variant(v, u, n, batch_sum=True)),
        Variant("no_minus", "your loss is the negative of the right one: the loss is minus the log-probabilities, "
                            "-log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c).",
                lambda v, u, n: _sgns_variant(v, u, n, sign=-1.0)),
        Variant("per_example", "return one number, the mean over the batch, not one loss per pair.",
                lambda v, u, n: _sgns_variant(v, u, n, per_example=True)),
        Variant("all_centers", "your negative scores mix the pairs: u_negative @ v_center.T multiplies each negative "
                               "with every center of the batch; each pair's k negatives go with its own center, "
                               "(u_negative * v_center[:, None, :]).sum(-1), shape (B, k).",
                lambda v, u, n: -(F.logsigmoid((u * v).sum(-1)) + F.logsigmoid(-(n @ v.T).sum(-1)).sum(-1)).mean()),
        Variant("all_centers_each", "your negative scores mix the pairs: u_negative @ v_center.T multiplies each "
                                    "negative with every center of the batch; each pair's k negatives go with its own "
                                    "center, (u_negative * v_center[:, None, :]).sum(-1), shape (B, k).",
                lambda v, u, n: -(F.logsigmoid((u * v).sum(-1)) + F.logsigmoid(-(n @ v.T)).sum((1, 2))).mean()),
        Variant("pos_sign", "the sign of the context word's term is wrong: it is -log sigma(+u_o . v_c), so that the "
                            "real context word scores high; only the negatives get a minus inside the sigma.",
                lambda v, u, n: _sgns_variant(v, u, n, pos_sign=-1.0)),
        Variant("mean_all_terms", "you averaged over all B * (k + 1) terms: sum the k + 1 terms of each pair (the "
                                  "context word's and the k negatives'), then average over the pairs.",
                lambda v, u, n: _sgns_variant(v, u, n) / (1 + n.shape[1])),
        Variant("softmax", "you used a softmax over the context word and its k negatives (one (k + 1)-way choice); "
                           "SGNS is k + 1 independent binary choices, each with a sigmoid: -log sigma(u_o . v_c) - "
                           "sum_k log sigma(-u_k . v_c).",
                lambda v, u, n: -torch.log_softmax(torch.cat([(u * v).sum(-1, keepdim=True),
                                                              torch.einsum("bkd,bd->bk", n, v)], 1), 1)[:, 0].mean()),
        Variant("no_negatives", "the negative term is missing (u_negative is never used): add - sum_k log "
                                "sigma(-u_k . v_c) over the k negatives.",
                lambda v, u, n: _sgns_variant(v, u, n, negatives=False)),
        Variant("no_positive", "the context word's term -log sigma(u_o . v_c) is missing.",
                lambda v, u, n: _sgns_variant(v, u, n, positive=False)),
    ]


def sgns_inputs(batch: int = 4, k: int = 3, dim: int = 5, seed: int = 0, dtype: torch.dtype = torch.float32,
                device: Any = None, scale: float = 1.0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Random v_center (B, d), u_context (B, d), u_negative (B, k, d)."""
    g = torch.Generator().manual_seed(seed)
    v_center = random_tensor((batch, dim), dtype, device, g) * scale  # (B, d)
    u_context = random_tensor((batch, dim), dtype, device, g) * scale  # (B, d)
    return v_center, u_context, random_tensor((batch, k, dim), dtype, device, g) * scale  # ..., (B, k, d)


def check_sgns_loss(sgns_loss: Callable, *, batch: int = 4, k: int = 3, dim: int = 5, seed: int = 0,
                    dtype: torch.dtype = torch.float32, device: Any = None, large: bool = True) -> None:
    """Against F.binary_cross_entropy_with_logits; with scores near +-200 (numerical stability); and its gradient."""
    ex = "sgns_loss"
    device = device_for_checks(device)
    v, u, n = sgns_inputs(batch, k, dim, seed, dtype, device)
    cases = [(f"v_center {tuple(v.shape)}, u_context {tuple(u.shape)}, u_negative {tuple(n.shape)}", (v, u, n))]
    if large:
        big = sgns_inputs(batch, k, dim, seed + 1, dtype, device, scale=9.0)
        cases.append(("large vectors: scores u . v of a few hundred", big))
    for label, (vc, uo, un) in cases:
        expected = sgns_reference(vc, uo, un)
        got = call_answer(ex, sgns_loss, vc.clone(), uo.clone(), un.clone(), banned=_BCE_BUILTINS,
                          reason=WRITE_IT_YOURSELF)
        if isinstance(got, (float, int)):
            raise AnswerError(ex, "return a tensor (so that the loss can be backpropagated), not a Python number.")
        if isinstance(got, torch.Tensor) and got.numel() == 1 and not bool(torch.isfinite(got).all()):
            raise AnswerError(ex, f"your loss is {got.item()} on {label}: sigma(x) rounds to 0 for a score x of a few "
                                  "hundred below 0, and log(0) is -inf. Use F.logsigmoid(x), which computes "
                                  "log sigma(x) without forming sigma(x), instead of torch.log(torch.sigmoid(x)).")
        if isinstance(got, torch.Tensor) and got.shape == (1,):
            got = got.reshape(())
        if isinstance(got, torch.Tensor) and got.dtype == torch.float64 and vc.dtype == torch.float32:
            got = got.float()
        if (label != cases[0][0] and isinstance(got, torch.Tensor) and got.numel() == 1
                and bool(torch.isfinite(got).all()) and float(got) < 0.9 * float(expected)):
            raise AnswerError(ex, f"your loss is right for ordinary scores but too small for scores of a few hundred "
                                  f"({float(got):.4g} where it should be {float(expected):.4g}): a clamp or an epsilon "
                                  "inside the log caps each term (and stops its gradient). Use F.logsigmoid(x), which "
                                  "is exact and stable for large scores.")
        compare_answer(ex, got, expected, inputs=(vc, uo, un), variants=_sgns_variants(), what="the returned loss",
                       case=label, terms=Terms(sizes={"the batch size B": len(vc), "k": un.shape[1]}),
                       locate=lambda vc=vc, uo=uo, un=un: run_probes(ex, sgns_loss, sgns_reference, [
                           Probe("with k = 1 negative", (vc, uo, un[:, :1]),
                                 hint="look at the negative term: u_negative is (B, k, d), and each of its k rows is "
                                      "multiplied with its own pair's v_center (B, d), for example "
                                      "(u_negative * v_center[:, None, :]).sum(-1) or torch.bmm"),
                           Probe("with a batch of one pair", (vc[:1], uo[:1], un[:1]),
                                 hint="look at how the pairs are combined: each pair's context and negatives go with "
                                      "its own center, and the losses of the pairs are averaged"),
                           Probe("with the negatives' vectors all zero", (vc, uo, torch.zeros_like(un)),
                                 hint="look at the positive term: -log sigma(u_o . v_c), u_o . v_c summed over d for "
                                      "each pair")],
                           what="the returned loss", banned=_BCE_BUILTINS, reason=WRITE_IT_YOURSELF))
    check_gradients_reach(ex, sgns_loss, sgns_reference, (v, u, n), {0: "v_center", 1: "u_context", 2: "u_negative"},
                          banned=_BCE_BUILTINS, reason=WRITE_IT_YOURSELF,
                          why="Training follows the gradient of this loss into both tables of vectors.")
    report_pass(ex, f"{len(cases)} case(s), numerically stable, gradients as F.binary_cross_entropy_with_logits'"
                if large else f"{len(cases)} case(s), gradients as F.binary_cross_entropy_with_logits'")


__all__ = ["check_skipgram_pairs", "check_negative_distribution", "check_draw_negatives", "check_sgns_loss",
           "sgns_reference", "sgns_inputs", "PAIR_SENTENCES", "DISTRIBUTION_COUNTS", "DRAW_DISTRIBUTION"]
