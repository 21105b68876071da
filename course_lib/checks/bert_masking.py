"""The check of ``mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id)`` (notebook 07): statistics
and invariants of BERT's 80/10/10 recipe on 200 000 tokens, with bounds at 6 standard deviations or more (never
flaky), not course_lib's output.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import torch

import course_lib.bert as course_bert
from course_lib.checks.common import WRITE_IT_YOURSELF, device_for_checks
from course_lib.grading.answers import AnswerError, Banned, call_answer, check_tensor, describe_value, report_pass

# ---------------------------------------------------------------------------
# mask_tokens(input_ids, special_mask, generator, vocab_size, mask_id)

_MASKING_BUILTINS = [Banned(course_bert, "mask_tokens", "course_lib.bert.mask_tokens")]
IGNORE = -100


def masking_batch(rows: int = 400, length: int = 500, *, vocab_size: int = 30522, seed: int = 0,
                  device: Any = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(input_ids (rows, length), special_mask): [CLS] first, a [SEP] in the middle and at the end of the text,
    then padding ([PAD] = 0) to a random length; ordinary ids drawn from [1000, vocab_size)."""
    device = device_for_checks(device)
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(1000, vocab_size, (rows, length), generator=g)
    lengths = torch.randint(length // 2, length + 1, (rows,), generator=g)
    special = torch.zeros(rows, length, dtype=torch.bool)
    for r, n in enumerate(lengths.tolist()):
        ids[r, 0], ids[r, n // 2], ids[r, n - 1] = 101, 102, 102
        ids[r, n:] = 0
        special[r, [0, n // 2, n - 1]] = True
        special[r, n:] = True
    return ids.to(device), special.to(device)


def within_sigmas(observed: float, p: float, n: int, sigmas: float = 6.0) -> bool:
    """Whether a rate observed over ``n`` draws is within ``sigmas`` binomial standard deviations of ``p``."""
    return abs(observed - p) <= sigmas * math.sqrt(p * (1 - p) / max(n, 1))


def _call_masking(ex, mask_tokens, ids, special, seed, vocab_size, mask_id):
    generator = torch.Generator(device=ids.device).manual_seed(seed)
    ids_given, special_given = ids.clone(), special.clone()
    out = call_answer(ex, mask_tokens, ids_given, special_given, generator, vocab_size, mask_id,
                      banned=_MASKING_BUILTINS, reason=WRITE_IT_YOURSELF)
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise AnswerError(ex, f"should return a pair (inputs, labels), got {describe_value(out)}.")
    inputs, labels = out
    for what, x in (("inputs", inputs), ("labels", labels)):
        check_tensor(ex, x, what=f"the returned {what}", shape=ids.shape, device=ids.device)
        if x.dtype != ids.dtype:
            raise AnswerError(ex, f"the returned {what} should have the dtype of input_ids ({ids.dtype}), got "
                                  f"{x.dtype}.")
    return inputs, labels


def check_mask_tokens(mask_tokens: Callable, *, rows: int = 400, length: int = 500, vocab_size: int = 30522,
                      mask_id: int = 103, seed: int = 0, device: Any = None) -> None:
    """BERT's 80/10/10 on rows x length tokens (200 000 by default): invariants exactly, rates within 6 sigma."""
    ex = "mask_tokens"
    ids, special = masking_batch(rows, length, vocab_size=vocab_size, seed=seed, device=device)
    inputs, labels = _call_masking(ex, mask_tokens, ids, special, seed + 1, vocab_size, mask_id)
    _check_labels(ids, special, inputs, labels, mask_id)
    selected = labels != IGNORE
    n_plain = int((~special).sum())
    rate = _check_selection_rate(ids, special, inputs, selected, mask_id)
    fractions = _check_replacements(ids, inputs, selected, vocab_size, mask_id)
    _check_generator(mask_tokens, ids, special, seed, vocab_size, mask_id)
    _check_nothing_to_select(mask_tokens, ids, special, seed, vocab_size, mask_id)
    report_pass(ex, f"{n_plain} ordinary tokens: {100 * rate:.2f}% selected; of those "
                    f"{100 * fractions['[MASK]']:.1f}% [MASK], {100 * fractions['random']:.1f}% random, "
                    f"{100 * fractions['unchanged']:.1f}% unchanged; specials untouched; reproducible")


def _check_labels(ids: torch.Tensor, special: torch.Tensor, inputs: torch.Tensor, labels: torch.Tensor,
                  mask_id: int) -> None:
    """-100 where nothing is predicted, the original id where something is; specials and unselected tokens
    unchanged."""
    ex = "mask_tokens"
    ignored = set(labels[labels != ids].unique().tolist())  # the value used where nothing is predicted
    if len(ignored) == 1 and ignored != {IGNORE} and bool((labels == ids).float().mean() > 0.05):
        other = ignored.pop()
        raise AnswerError(ex, f"your labels use {other} for the positions that are not predicted; the loss ignores "
                              f"-100 (F.cross_entropy's ignore_index), so use -100 there.")
    selected = labels != IGNORE
    n_selected = int(selected.sum())
    if n_selected == ids.numel() or bool((labels == ids).all()):
        raise AnswerError(ex, "your labels are the original ids everywhere; they must be -100 wherever the token was "
                              "not selected, so that the loss ignores those positions.")
    if bool((selected & special).any()):
        raise AnswerError(ex, "you selected special tokens or padding (labels not -100 there); [CLS], [SEP] and [PAD] "
                              "are never masked: select only where special_mask is False.")
    if bool(((inputs != ids) & special).any()):
        raise AnswerError(ex, "you changed special tokens or padding in the inputs; [CLS], [SEP] and [PAD] are never "
                              "masked: select only where special_mask is False.")
    if not bool((labels[selected] == ids[selected]).all()):
        if bool((labels[selected] == inputs[selected]).all()):
            raise AnswerError(ex, "your labels are the corrupted inputs; at a selected position the label is the "
                                  "ORIGINAL id (what the model must recover), not [MASK] or the random token.")
        raise AnswerError(ex, "at the selected positions the labels must be the original ids (labels is -100 "
                              "elsewhere).")
    at_mask = inputs == mask_id
    if bool((selected == (at_mask & ~special)).all()) and bool(((inputs != ids) & ~at_mask & ~special).any()):
        raise AnswerError(ex, "your labels mark only the positions that became [MASK]; every selected token gets its "
                              "original id as label: the 80% [MASK], the 10% random and the 10% unchanged alike.")
    if not bool((inputs[~selected] == ids[~selected]).all()):
        raise AnswerError(ex, "you changed tokens that were not selected (their label is -100): the inputs may differ "
                              "from input_ids only where the label is not -100.")


def _check_selection_rate(ids: torch.Tensor, special: torch.Tensor, inputs: torch.Tensor, selected: torch.Tensor,
                          mask_id: int) -> float:
    """15% of the non-special tokens are selected (have a label); returns the rate."""
    ex = "mask_tokens"
    n_plain = int((~special).sum())
    n_selected = int(selected.sum())
    rate = n_selected / n_plain
    if not within_sigmas(rate, 0.15, n_plain):
        hint = ""
        all_rate = 0.15 * ids.numel() / n_plain
        if within_sigmas(rate, min(all_rate, 1.0), n_plain):
            hint = (" You chose 15% of ALL positions' worth of tokens; choose 15% of the non-special ones "
                    "(each with probability 0.15).")
        elif bool((inputs[selected] == mask_id).all()):
            hint = (" Only your [MASK] positions have labels; the random and unchanged tokens are selected too and "
                    "must be predicted (their labels are the original ids).")
        raise AnswerError(ex, f"your labels are set (not -100) at {100 * rate:.2f}% of the {n_plain} non-special "
                              "tokens: BERT selects 15% of them, and only a selected token gets a label (its original "
                              f"id); every other label is -100.{hint}")
    return rate


def _check_replacements(ids: torch.Tensor, inputs: torch.Tensor, selected: torch.Tensor, vocab_size: int,
                        mask_id: int) -> dict[str, float]:
    """80/10/10 of the selected tokens: [MASK], a random id of the whole vocabulary, unchanged; returns the
    fractions."""
    ex = "mask_tokens"
    n_selected = int(selected.sum())
    to_mask = selected & (inputs == mask_id) & (ids != mask_id)
    kept = selected & (inputs == ids)
    randomised = selected & ~to_mask & ~kept
    fractions = {name: int(m.sum()) / n_selected for name, m in
                 (("[MASK]", to_mask), ("random", randomised), ("unchanged", kept))}
    if fractions["[MASK]"] > 0.99:
        raise AnswerError(ex, "every selected token became [MASK]; only 80% do: 10% become a random token and 10% "
                              "stay unchanged (they are still predicted).")
    p_same = 1 / vocab_size  # a random token can equal the original
    for name, p in (("[MASK]", 0.8), ("random", 0.1 * (1 - p_same)), ("unchanged", 0.1 + 0.1 * p_same)):
        if not within_sigmas(fractions[name], p, n_selected):
            raise AnswerError(ex, f"{100 * fractions[name]:.2f}% of the selected tokens became {name}"
                                  f"{'' if name != 'unchanged' else ' (stayed as they were)'}; it should be about "
                                  f"{100 * round(p, 3):g}%. Draw ONE number u per selected token: [MASK] if u < 0.8, "
                                  "a random token if 0.8 <= u < 0.9, unchanged otherwise.")
    random_ids = inputs[randomised]
    if bool((random_ids < 0).any()) or bool((random_ids >= vocab_size).any()):
        raise AnswerError(ex, f"your random tokens must be ids in [0, vocab_size) = [0, {vocab_size}).")
    if len(random_ids) > 1000 and (int(random_ids.max()) < 0.9 * vocab_size
                                   or int(random_ids.min()) > 0.1 * vocab_size):
        raise AnswerError(ex, f"your random tokens lie between {int(random_ids.min())} and {int(random_ids.max())}; "
                              f"draw them uniformly from the whole vocabulary, torch.randint(vocab_size, ...).")
    return fractions


def _check_generator(mask_tokens: Callable, ids: torch.Tensor, special: torch.Tensor, seed: int, vocab_size: int,
                     mask_id: int) -> None:
    """Every random number comes from the `generator` argument."""
    ex = "mask_tokens"
    few_ids, few_special = ids[:40], special[:40]  # 20 000 tokens are enough to see the generator at work
    first = _call_masking(ex, mask_tokens, few_ids, few_special, seed + 1, vocab_size, mask_id)
    again = _call_masking(ex, mask_tokens, few_ids, few_special, seed + 1, vocab_size, mask_id)
    if not (torch.equal(again[0], first[0]) and torch.equal(again[1], first[1])):
        raise AnswerError(ex, "two calls with generators seeded alike gave different results: draw every random number "
                              "from the `generator` argument (torch.rand(..., generator=generator)).")
    other = _call_masking(ex, mask_tokens, few_ids, few_special, seed + 2, vocab_size, mask_id)
    if torch.equal(other[1], first[1]):
        raise AnswerError(ex, "generators with different seeds gave the same selection: draw the random numbers "
                              "from the `generator` argument, not from a fixed seed.")


def _check_nothing_to_select(mask_tokens: Callable, ids: torch.Tensor, special: torch.Tensor, seed: int,
                             vocab_size: int, mask_id: int) -> None:
    """When every position is special, nothing is selected."""
    ex = "mask_tokens"
    none_in, none_labels = _call_masking(ex, mask_tokens, ids[:3], torch.ones_like(special[:3]), seed, vocab_size,
                                         mask_id)
    if not torch.equal(none_in, ids[:3]) or bool((none_labels != IGNORE).any()):
        raise AnswerError(ex, "when every position is special, nothing may be selected (labels all -100, inputs "
                              "unchanged).")
