"""The check of notebook 06's ``sample_next(logits, temperature, top_k, generator)``: drawing the next token.

A draw is random, so the check judges the *distribution* of the student's draws. Each case sends one batch
in which a few rows of logits are repeated thousands of times (row ``i`` is row type ``i % R``), in one call
with a seeded ``torch.Generator``; the number of times each token came out for each row type is compared
with the exact probabilities, computed here in float64 from the formula (exponentials of the kept logits
over their sum; the kept set from a sort), not with ``torch.softmax``, ``torch.topk`` or the course's
sampler. A count passes when it lies within 5 binomial standard deviations (plus 3 draws, for the tiny
probabilities) of its expected value, and a token of probability 0 must never come out. With a fixed seed
the verdict is deterministic; for a correct answer a false alarm would need a 5-sigma event.

On a mismatch the counts are compared in the same way with the distributions that known mistakes give
(:func:`sample_next_mistakes`), and then described (tokens drawn outside the top k, tokens that never came
out, one id for every row, the frequencies against the probabilities).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import torch

import course_lib.train as course_train
from course_lib.checks.common import WRITE_IT_YOURSELF, device_for_checks
from course_lib.grading.answers import (
    AnswerError,
    Banned,
    call_answer_each,
    case_note,
    describe_value,
    raised_by_answer,
    report_pass,
)

__all__ = ["exact_next_token_probs", "sample_next_mistakes", "SamplingCase", "sampling_cases", "check_sample_next",
           "draw_counts_fit", "SIGMAS"]

EXERCISE = "sample_next"
SIGMAS = 5.0    # a count may differ from its expected value by this many binomial standard deviations
SLACK = 3.0     # ... plus this many draws (for probabilities so small that the normal approximation fails)

_SAMPLING_BUILTINS = [Banned(course_train, "sample", "course_lib.train.sample")]


# ---------------------------------------------------------------------------
# the exact distribution, and the distributions of known mistakes


def _kept(x: torch.Tensor, top_k: int | None, *, smallest: bool = False, strict: bool = False,
          at_kth_smallest: bool = False, shift: int = 0) -> torch.Tensor:
    """Which logits the top-k rule keeps, (..., V) bool: every logit >= the row's k-th largest (ties all kept).

    The mistakes: ``smallest`` keeps the k smallest, ``strict`` only the logits > the k-th largest,
    ``at_kth_smallest`` those >= the k-th SMALLEST (torch.kthvalue), ``shift`` moves the threshold by that many ranks.
    """
    if not top_k:
        return torch.ones_like(x, dtype=torch.bool)
    ascending = torch.sort(x, dim=-1).values
    if smallest:
        return x <= ascending[..., top_k - 1:top_k]
    if at_kth_smallest:
        return x >= ascending[..., top_k - 1:top_k]
    rank = top_k - 1 + shift
    if not 0 <= rank < x.shape[-1]:
        raise IndexError("no such rank")
    kth = torch.sort(x, dim=-1, descending=True).values[..., rank:rank + 1]  # (..., 1)
    return x > kth if strict else x >= kth


def _normalised(weights: torch.Tensor) -> torch.Tensor:
    return weights / weights.sum(dim=-1, keepdim=True)


def _exp_over_kept(x: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
    """exp(x) over the kept entries, divided by their sum; exactly 0 elsewhere (float64)."""
    top = torch.where(keep, x, torch.full_like(x, -math.inf)).max(dim=-1, keepdim=True).values
    return _normalised(torch.where(keep, torch.exp(x - top), torch.zeros_like(x)))


def exact_next_token_probs(logits: torch.Tensor, temperature: float, top_k: int | None) -> torch.Tensor:
    """The distribution ``sample_next`` draws from, (..., V) float64 on the CPU: exp(z / T) over the kept logits
    (every logit >= the row's k-th largest; all of them for top_k None or 0), divided by their sum."""
    x = logits.detach().to("cpu", torch.float64)
    if not temperature > 0:
        raise ValueError(f"temperature must be positive, got {temperature!r}.")
    if top_k is not None and not 0 <= top_k <= x.shape[-1]:
        raise ValueError(f"top_k must be None or between 0 and the vocabulary size {x.shape[-1]}, got {top_k!r}.")
    return _exp_over_kept(x / temperature, _kept(x, top_k))


@dataclass(frozen=True)
class DistributionMistake:
    """A known wrong ``sample_next``: ``probs(logits (B, V) float64, temperature, top_k)`` is what it draws from."""

    name: str
    message: str
    probs: Callable[[torch.Tensor, float, int | None], torch.Tensor]


def _one_hot_argmax(x: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
    masked = torch.where(keep, x, torch.full_like(x, -math.inf))
    return torch.zeros_like(x).scatter_(-1, masked.argmax(dim=-1, keepdim=True), 1.0)


def _zero_filled(x: torch.Tensor, t: float, k: int | None) -> torch.Tensor:
    keep = _kept(x, k)
    return _exp_over_kept(torch.where(keep, x / t, torch.zeros_like(x)), torch.ones_like(keep))


def _second_softmax(x: torch.Tensor, t: float, k: int | None, *, over_kept: bool) -> torch.Tensor:
    keep = _kept(x, k)
    p = _exp_over_kept(x / t, torch.ones_like(keep))  # softmax over everything
    p = torch.where(keep, p, torch.zeros_like(p))  # the tokens outside the top k zeroed
    return _exp_over_kept(p, keep if over_kept else torch.ones_like(keep))  # ... and a softmax of probabilities


def _leftover_to_last(x: torch.Tensor, t: float, k: int | None) -> torch.Tensor:
    """softmax over all tokens, the ones outside the top k zeroed and NOT renormalised, drawn by an inverse CDF whose
    last bin takes what is left (a search that falls off the end, clamped to the last id)."""
    keep = _kept(x, k)
    p = torch.where(keep, _exp_over_kept(x / t, torch.ones_like(keep)), torch.zeros_like(x))
    p[..., -1] += 1 - p.sum(dim=-1)
    return p


def _batch_axis(x: torch.Tensor, t: float, k: int | None) -> torch.Tensor:
    """softmax over the batch axis (dim 0), then drawn from each row (multinomial renormalises the row)."""
    keep = _kept(x, k)
    z = torch.where(keep, x / t, torch.full_like(x, -math.inf))
    column = torch.exp(z - z.max(dim=0, keepdim=True).values)
    column = column / column.sum(dim=0, keepdim=True)
    return _normalised(torch.nan_to_num(column, nan=0.0))


def sample_next_mistakes() -> list[DistributionMistake]:
    """The catalogue: each mistake's distribution for logits (B, V), in the order they are tried."""
    m = DistributionMistake
    return [
        m("argmax", "you always return the most likely token (argmax); sample_next must DRAW from the distribution, "
          "e.g. torch.multinomial(probs, 1, generator=generator), so that less likely tokens come out too.",
          lambda x, t, k: _one_hot_argmax(x, _kept(x, k))),
        m("temperature_multiplied", "you multiplied the logits by the temperature; divide them by it: softmax(logits / "
                                    "T) "
          "(a temperature below 1 must sharpen the distribution, above 1 flatten it).",
          lambda x, t, k: _exp_over_kept(x * t, _kept(x, k))),
        m("temperature_ignored", "your draws follow softmax(logits) whatever the temperature: divide the LOGITS by the "
          "temperature before the softmax (dividing the probabilities by it changes nothing once they are "
          "renormalised).", lambda x, t, k: _exp_over_kept(x, _kept(x, k))),
        m("top_k_ignored", "tokens outside the top k came out: top_k is ignored; set every logit below the row's k-th "
          "largest to -inf before the softmax.", lambda x, t, k: _exp_over_kept(x / t, _kept(x, None))),
        m("smallest_k", "you kept the k SMALLEST logits; keep the k largest (torch.topk returns the largest by "
          "default; a sort must be descending).", lambda x, t, k: _exp_over_kept(x / t, _kept(x, k, smallest=True))),
        m("strict_top_k", "you kept only the logits strictly greater than the k-th largest, so k - 1 tokens survive; "
          "keep every logit >= the k-th largest (the k-th itself too).",
          lambda x, t, k: _exp_over_kept(x / t, _kept(x, k, strict=True))),
        m("k_plus_one", "you kept k + 1 tokens: your threshold is the (k+1)-th largest logit; the k-th largest is at "
          "index k - 1 of the descending sort (torch.topk(logits, k).values[..., -1:]).",
          lambda x, t, k: _exp_over_kept(x / t, _kept(x, k, shift=1))),
        m("kthvalue_smallest", "your threshold is the k-th SMALLEST logit (torch.kthvalue counts from the smallest); "
          "keep the logits >= the k-th LARGEST: torch.topk(logits, k).values[..., -1:].",
          lambda x, t, k: _exp_over_kept(x / t, _kept(x, k, at_kth_smallest=True))),
        m("zero_filled", "the tokens outside the top k still come out: you set their logits to 0, and exp(0) = 1 is "
          "not probability 0; set them to -inf (float('-inf')).", _zero_filled),
        m("second_softmax", "you applied softmax to the probabilities again after zeroing the tokens outside the top k "
          "(exp(0) = 1 gives them probability again); renormalise by dividing the kept probabilities by their sum, or "
          "set the logits to -inf before one softmax.", lambda x, t, k: _second_softmax(x, t, k, over_kept=False)),
        m("second_softmax_kept", "you applied softmax to probabilities (a second softmax), which flattens the "
          "distribution; after zeroing the tokens outside the top k, divide the kept probabilities by their sum.",
          lambda x, t, k: _second_softmax(x, t, k, over_kept=True)),
        m("not_renormalised", "the kept probabilities do not sum to 1, and what is missing went to the last token: "
                              "after "
          "removing the tokens outside the top k, divide the kept probabilities by their sum (or set the logits to "
          "-inf before the softmax).", _leftover_to_last),
        m("batch_axis", "your softmax (or top-k) runs over the batch axis (dim=0); each ROW of logits is one "
          "distribution over the vocabulary: use dim=-1.", _batch_axis),
    ]


def draw_counts_fit(counts: torch.Tensor, probs: torch.Tensor) -> bool:
    """Whether ``counts`` (V,) of n draws fit ``probs`` (V,): within SIGMAS standard deviations (+ SLACK) where
    p > 0, exactly 0 where p == 0."""
    n = float(counts.sum())
    counts, probs = counts.to(torch.float64), probs.to(torch.float64)
    if bool((counts[probs == 0] > 0).any()):
        return False
    sd = torch.sqrt(n * probs * (1 - probs))
    return bool(((counts - n * probs).abs() <= SIGMAS * sd + SLACK).all())


# ---------------------------------------------------------------------------
# the cases


@dataclass(frozen=True)
class SamplingCase:
    """Rows of logits (R, V), each repeated ``draws`` times in one batch, sampled at ``temperature`` and ``top_k``."""

    rows: tuple[tuple[float, ...], ...]
    temperature: float
    top_k: int | None
    what: str   # for the success line and the failure's case note


#: row types of the visible cases: distinct logits, several near the top (so that the argmax and a wrong
#: temperature show), a wide range (so that top-k matters)
_ROWS = ((1.2, 1.0, 0.9, -0.3, 0.2, -1.0, 0.6, -0.6),
         (2.0, -1.0, 0.5, 1.5, -0.5, 0.0, -2.0, 1.0),
         (-0.4, 0.3, -1.5, 0.8, 1.1, -0.1, 0.4, -0.8))
_TIE_ROWS = ((1.0, 3.0, 1.0, 0.0, 1.0, -1.0, 2.0, 0.5),   # top 3: 3, 2 and three tied 1's: five tokens kept
             (0.5, 0.5, -1.0, 2.0, 0.0, 0.5, 0.5, 1.5))   # top 3: 2, 1.5 and four tied 0.5's


def sampling_cases(vocab_size: int = 8, seed: int = 0) -> list[SamplingCase]:
    """The default cases for vocab_size 8 and seed 0; other sizes or seeds get random logits of the same kinds."""
    if vocab_size == 8 and seed == 0:
        rows, ties = _ROWS, _TIE_ROWS
    else:
        if vocab_size < 6:
            raise ValueError(f"the sampling check needs a vocabulary of at least 6 tokens, got {vocab_size}.")
        g = torch.Generator().manual_seed(seed)
        # distinct values, spread enough that every mistake shows
        rows = tuple(tuple((torch.randperm(vocab_size, generator=g).double() * 4 / vocab_size - 2).tolist())
                     for _ in range(3))
        ties = []
        for _ in range(2):
            row = torch.randperm(vocab_size, generator=g).double() * 4 / vocab_size - 2
            order = torch.argsort(row, descending=True)
            row[order[2:5]] = float(row[order[2]])  # the 3rd, 4th and 5th largest tie
            ties.append(tuple(row.tolist()))
        ties = tuple(ties)
    k = min(3, vocab_size - 1)
    return [SamplingCase(rows, 0.5, None, "temperature 0.5, top_k None"),
            SamplingCase(rows, 2.0, k, f"temperature 2, top_k {k}"),
            SamplingCase(rows[::-1], 1.3, 0, "temperature 1.3, top_k 0 (no restriction)"),
            SamplingCase(ties, 1.0, 3, "ties at the 3rd largest logit, temperature 1, top_k 3")]


# ---------------------------------------------------------------------------
# calling the answer and reading what it returned


@dataclass
class _Request:
    """One call of the answer: its arguments (a fresh copy of the logits, a generator seeded ``seed``) and its
    result."""

    logits: torch.Tensor
    temperature: float
    top_k: int | None
    seed: int
    advanced: int = 0  # numbers drawn from the generator before the call: a generator that has been used already
    given: torch.Tensor | None = None
    result: Any = None


def _run(sample_next: Callable, requests: Sequence[_Request]) -> None:
    """Call the answer once per request, all in one trip to the student's kernel while grading."""
    calls = []
    for r in requests:
        r.given = r.logits.clone()
        generator = torch.Generator(device=r.logits.device).manual_seed(r.seed)
        if r.advanced:
            torch.rand(r.advanced, generator=generator, device=r.logits.device)
        calls.append(((r.given, r.temperature, r.top_k, generator), {}))
    for r, result in zip(requests, call_answer_each(EXERCISE, sample_next, calls, banned=_SAMPLING_BUILTINS,
                                                    reason=WRITE_IT_YOURSELF)):
        r.result = result


def _ids(request: _Request, case: str) -> torch.Tensor:
    """The ids the answer returned for ``request``: checked for type, dtype, shape and range (that the logits were
    left as they were, :func:`course_lib.grading.call_answer` checks)."""
    ex = EXERCISE
    if isinstance(request.result, AnswerError):
        raise request.result
    ids, logits = request.result, request.logits
    where = case_note(case)
    expected_shape = tuple(logits.shape[:-1])
    shape_words = "a 0-dimensional tensor" if not expected_shape else f"shape {expected_shape}"
    if ids is None:
        raise AnswerError(ex, "returned None: did you forget a `return` statement?")
    if not isinstance(ids, torch.Tensor):
        raise AnswerError(ex, f"should return a tensor of token ids ({shape_words}), got {describe_value(ids)}"
                              f"{where}.{' Wrap the id in torch.tensor(...).' if isinstance(ids, int) else ''}")
    if ids.is_floating_point() or ids.is_complex() or ids.dtype == torch.bool:
        raise AnswerError(ex, f"should return integer token ids (int64), got dtype {ids.dtype}{where}: return the "
                              "indices drawn (torch.multinomial returns int64), not probabilities or logits.")
    if tuple(ids.shape) != expected_shape:
        hint = ""
        if tuple(ids.shape) == expected_shape + (1,):
            hint = " torch.multinomial(probs, 1) returns one column: remove it with .squeeze(-1)."
        elif not expected_shape:
            hint = " For a single row of logits (vocab,), return one id as a 0-dimensional tensor (.squeeze())."
        raise AnswerError(ex, f"for logits of shape {tuple(logits.shape)} the ids should have {shape_words}, got shape "
                              f"{tuple(ids.shape)}{where}.{hint}")
    if ids.dtype != torch.int64:
        raise AnswerError(ex, f"should return int64 (torch.long) ids, got dtype {ids.dtype}{where}.")
    if ids.device != logits.device:
        raise AnswerError(ex, f"returned ids on {ids.device}, but the logits were on {logits.device}{where}.")
    if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= logits.shape[-1]):
        raise AnswerError(ex, f"returned ids outside [0, vocab_size) = [0, {logits.shape[-1]}){where}.")
    return ids


def _numbers(values: torch.Tensor) -> str:
    return "[" + ", ".join(f"{v:.3f}" for v in values.tolist()) + "]"


def _logits_words(row: torch.Tensor) -> str:
    return "[" + ", ".join(f"{v:g}" for v in row.tolist()) + "]"


def _describe_rows(counts: torch.Tensor, probs: torch.Tensor, rows: torch.Tensor, case: SamplingCase,
                   draws: int) -> str:
    """One sentence about the first row type whose draws do not fit (no catalogued mistake matched)."""
    for r in range(len(counts)):
        c, p = counts[r], probs[r]
        if draw_counts_fit(c, p):
            continue
        about = f"for the logits {_logits_words(rows[r])}" if rows.shape[-1] <= 10 else f"for row type {r}"
        kept = p > 0
        outside = [j for j in range(len(c)) if c[j] > 0 and not kept[j]]
        drawn = c > 0
        if int(drawn.sum()) == 1 and float(p.max()) < 1:
            j = int(c.argmax())
            return (f"{about} every one of the {draws} rows got the same id {j}: draw one independent id per row "
                    "(torch.multinomial(probs, 1, generator=generator) on the (batch, vocab) probabilities), "
                    "not one random number for the whole batch.")
        if outside:
            return (f"{about} your draws include token(s) {', '.join(map(str, outside[:5]))}, which lie outside the "
                    f"top {case.top_k} (probability 0): keep only the logits >= the row's k-th largest, the others "
                    "set to -inf.")
        never = [j for j in range(len(c)) if c[j] == 0 and draws * float(p[j]) >= 20]
        if never and case.top_k and int(drawn.sum()) == case.top_k and int(kept.sum()) > case.top_k:
            return (f"{about} the k-th largest logit ties with others and you kept exactly top_k = {case.top_k} "
                    f"tokens; keep EVERY logit >= the k-th largest (logits < kth value set to -inf), so that "
                    "tied tokens are treated alike.")
        if never:
            return (f"{about} token(s) {', '.join(map(str, never[:5]))} never came out in {draws} draws although "
                    f"their probability is {', '.join(f'{float(p[j]):.3f}' for j in never[:5])}.")
        return (f"{about} the frequencies of your draws are {_numbers(c / draws)}, but the probabilities of "
                f"softmax(logits / {case.temperature:g}) over the top k are {_numbers(p)}.")
    return "your draws do not follow softmax(logits / temperature) over the top k."


def _case_request(case: SamplingCase, *, draws: int, dtype: torch.dtype, device: torch.device, seed: int) -> _Request:
    rows = torch.tensor(case.rows, dtype=torch.float64)  # (R, V)
    logits = rows.repeat(draws, 1).to(device, dtype)  # (R * draws, V): row i is row type i % R
    return _Request(logits, case.temperature, case.top_k, seed)


def _check_case(case: SamplingCase, request: _Request) -> None:
    ex = EXERCISE
    rows = torch.tensor(case.rows, dtype=torch.float64)  # (R, V)
    n_types, logits, draws = len(rows), request.logits, len(request.logits) // len(rows)
    try:
        ids = _ids(request, case.what).cpu()
    except AnswerError as err:
        raised = raised_by_answer(err)
        if case.top_k == 0 and raised:
            raise AnswerError(ex, f"with top_k = 0 your function {raised[1]}; top_k = 0 means "
                                  "no restriction, the same as None (`if top_k:` covers both).") from None
        raise
    counts = torch.stack([torch.bincount(ids[r::n_types], minlength=rows.shape[-1]) for r in range(n_types)])
    exact = exact_next_token_probs(logits[:n_types], case.temperature, case.top_k)  # (R, V)
    if all(draw_counts_fit(counts[r], exact[r]) for r in range(n_types)):
        return
    x = logits.detach().to("cpu", torch.float64)
    for mistake in sample_next_mistakes():
        try:
            wrong = mistake.probs(x, case.temperature, case.top_k)[:n_types]
        except (RuntimeError, ValueError, IndexError):  # not a mistake these inputs can show
            continue
        if torch.allclose(wrong, exact, atol=1e-3):  # the same distribution here: it cannot be the reason
            continue
        if all(draw_counts_fit(counts[r], wrong[r]) for r in range(n_types)):
            raise AnswerError(ex, f"{mistake.message}{case_note(case.what)}")
    raise AnswerError(ex, f"{_describe_rows(counts, exact, rows, case, draws)}{case_note(case.what)}")


def _expect_value_error(request: _Request, why: str) -> None:
    ex = EXERCISE
    said = f"temperature={request.temperature:g}, top_k={request.top_k}"
    logits, returned = request.logits, request.result
    if isinstance(returned, AnswerError):
        raised = raised_by_answer(returned)
        if raised is None:
            raise returned
        kind, sentence = raised
        if kind == "ValueError":
            return
        raise AnswerError(ex, f"with {said} (vocabulary {logits.shape[-1]}) your function {sentence.split(':')[0]}, "
                              f"not ValueError; check the argument first and raise ValueError with a sentence: {why}"
                          ) from None
    raise AnswerError(ex, f"with {said} (vocabulary {logits.shape[-1]}) your function returned "
                          f"{describe_value(returned)} instead of raising ValueError: {why}")


def check_sample_next(sample_next: Callable, *, vocab_size: int = 8, draws: int = 4000,
                      dtype: torch.dtype = torch.float32, seed: int = 0, device: Any = None) -> None:
    """The distribution of the answer's draws against the exact probabilities (see the module's docstring), a single
    row, reproducibility with a seeded generator, and ValueError for a bad temperature or top_k."""
    ex = EXERCISE
    device = device_for_checks(device)
    cases = sampling_cases(vocab_size, seed)
    row = torch.tensor(cases[0].rows[1], dtype=torch.float64).to(device, dtype)  # one row of logits (vocab,)
    rows = torch.tensor(cases[0].rows, dtype=torch.float64).repeat(50, 1).to(device, dtype)  # (150, V)
    vocab = row.shape[-1]
    requests = [_case_request(case, draws=draws, dtype=dtype, device=device, seed=seed * 1000 + number)
                for number, case in enumerate(cases)]
    single, first, again, other, used, whole, zero, negative, too_many = extra = [
        _Request(row, 0.7, 1, seed), _Request(rows, 1.0, None, seed + 7), _Request(rows, 1.0, None, seed + 7),
        _Request(rows, 1.0, None, seed + 8), _Request(rows, 1.0, None, seed + 7, advanced=1),
        _Request(rows, 1.0, vocab, seed), _Request(rows, 0.0, None, seed),
        _Request(rows, -1.0, None, seed), _Request(rows, 1.0, vocab + 1, seed)]
    _run(sample_next, requests + extra)  # one trip
    for case, request in zip(cases, requests):
        _check_case(case, request)
    _check_single_row(single, row)
    _check_generator(first, again, other, used)
    _check_whole_vocabulary(whole, vocab)
    # bad arguments
    _expect_value_error(zero, "a temperature must be positive (logits / 0 is not a distribution).")
    _expect_value_error(negative, "a temperature must be positive; a negative one would favour the LEAST likely "
                                  "tokens.")
    _expect_value_error(too_many, f"top_k cannot be larger than the vocabulary ({vocab} tokens).")
    report_pass(ex, f"draw frequencies match softmax(logits / T) over the top k in {len(cases)} cases, {draws} draws "
                    "per row; reproducible with a seeded generator; ValueError for a bad temperature or top_k")


def _check_single_row(single: _Request, row: torch.Tensor) -> None:
    """One row of logits (vocab,): one id, a 0-dimensional tensor; top_k = 1 leaves only the largest logit."""
    ex = EXERCISE
    vocab = row.shape[-1]
    note = "one row of logits (vocab,), top_k 1"
    try:
        one = _ids(single, note)
    except AnswerError as err:
        raised = raised_by_answer(err)
        if raised:
            raise AnswerError(ex, f"with one row of logits, shape ({vocab},), your function "
                                  f"{raised[1]}. A single row must work too: index the last "
                                  "dimension (dim=-1, [..., -1:]) rather than dimension 1, and return a 0-dimensional "
                                  "id.") from None
        raise
    if int(one) != int(torch.argmax(row)):
        raise AnswerError(ex, "with top_k = 1 only the largest logit is kept, so the id must be "
                              f"{int(torch.argmax(row))} (the argmax), got {int(one)}{case_note(note)}.")


def _check_generator(first: _Request, again: _Request, other: _Request, used: _Request) -> None:
    """The generator: alike seeds give alike ids, other seeds other ids, a used generator goes on where it was."""
    ex = EXERCISE
    if not torch.equal(_ids(first, "a seeded generator"), _ids(again, "a seeded generator")):
        raise AnswerError(ex, "two calls with generators seeded alike gave different ids: draw every random number "
                              "from the `generator` argument (torch.multinomial(probs, 1, generator=generator)).")
    if torch.equal(_ids(first, "a seeded generator"), _ids(other, "a seeded generator")):
        raise AnswerError(ex, "generators with different seeds gave the same ids: draw the random numbers from the "
                              "`generator` argument, not from a generator of your own with a fixed seed.")
    if torch.equal(_ids(first, "a seeded generator"), _ids(used, "a generator already used")):
        raise AnswerError(ex, "a generator that had already drawn a number gave the same ids as a fresh one with the "
                              "same seed: your function starts the generator over (manual_seed, initial_seed()). Draw "
                              "from the `generator` as it is given, so that two calls in a row give two different "
                              "draws.")


def _check_whole_vocabulary(whole: _Request, vocab: int) -> None:
    """top_k equal to the vocabulary is allowed: it keeps every token."""
    ex = EXERCISE
    try:
        _ids(whole, f"top_k = {vocab}, the vocabulary size")
    except AnswerError as err:
        raised = raised_by_answer(err)
        if raised:
            raise AnswerError(ex, f"with top_k = {vocab}, the vocabulary size, your function "
                                  f"{raised[1]}; top_k equal to the vocabulary is allowed "
                                  "(it keeps every token): raise ValueError only when top_k is LARGER.") from None
        raise
