"""The checks of ``attention_scores(Q, K)``, ``softmax(x, dim=-1)`` and ``causal_mask(n)`` (notebook 05), the steps
that self-attention is built from, against ``torch.softmax`` and scores computed here.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import torch

from course_lib.checks.common import SOFTMAX_BUILTINS, WRITE_IT_YOURSELF, device_for_checks, random_tensor
from course_lib.checks.score_functions import plain_dot_score, plain_scaled_dot_score
from course_lib.checks.self_attention_common import ATTENTION_BUILTINS, reference_scores, thinking_machines
from course_lib.grading.answers import AnswerError, Terms, Variant, call_answer, compare_answer, report_pass

# ---------------------------------------------------------------------------
# attention_scores(Q, K)


def _score_variants() -> list[Variant]:
    return [
        Variant("no_scaling", "your scores are not divided by sqrt(d_k).",
                lambda Q, K: Q @ K.transpose(-2, -1)),
        Variant("divided_by_dk", "your scores are divided by d_k; divide by sqrt(d_k) instead.",
                lambda Q, K: Q @ K.transpose(-2, -1) / Q.shape[-1]),
        Variant("transposed_roles", "your scores are transposed: row i must hold query i against every key (Q K^T, not "
                                    "K Q^T).",
                lambda Q, K: reference_scores(K, Q)),
        Variant("scaled_by_seq_len", "your scores are divided by sqrt(sequence length); the scale is sqrt(d_k), the "
                                     "size of each key.",
                lambda Q, K: Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-2])),
    ]


#: attention_scores may call the student's scaled_dot_score (or dot_score): correct ones stand in for them,
#: so a mistake there is charged once, in its own exercise
_SCORE_HELPERS = {"dot_score": plain_dot_score, "scaled_dot_score": plain_scaled_dot_score}


def check_attention_scores(
    attention_scores: Callable, *, batch: tuple[int, ...] = (), n_q: int = 5, n_k: int = 5, d_k: int = 3,
    dtype: torch.dtype = torch.float32, seed: int = 0, device: Any = None, seed_table: bool = True,
) -> None:
    ex = "attention_scores"
    device = device_for_checks(device)
    cases = []
    if seed_table:
        X = thinking_machines(dtype, device)
        cases.append(("the 'Computers are thinking machines' table", X, X))
    g = torch.Generator().manual_seed(seed)
    Q = random_tensor((*batch, n_q, d_k), dtype, device, g)
    K = random_tensor((*batch, n_k, d_k), dtype, device, g)
    cases.append((f"random Q {tuple(Q.shape)}, K {tuple(K.shape)}", Q, K))
    for label, Q, K in cases:
        expected = reference_scores(Q, K)
        got = call_answer(ex, attention_scores, Q.clone(), K.clone(), banned=ATTENTION_BUILTINS,
                          reason=WRITE_IT_YOURSELF, substitutes=_SCORE_HELPERS)
        d_k, n = Q.shape[-1], K.shape[-2]
        compare_answer(ex, got, expected, inputs=(Q, K), variants=_score_variants(), what="the returned scores",
                       case=label, terms=Terms(axes=(*["batch"] * (Q.dim() - 2), "query", "key"),
                                               divisor=("sqrt(d_k)", math.sqrt(d_k)),
                                               sizes={"sqrt(d_k)": math.sqrt(d_k), "d_k": d_k,
                                                      "the number of keys n": n}))
    report_pass(ex, f"{len(cases)} case(s)")


# ---------------------------------------------------------------------------
# softmax(x, dim=-1)


def _other_axis(x: torch.Tensor, dim: int) -> int:
    dim = dim % x.dim()
    return (dim - 1) % x.dim()


def _softmax_variants(dim: int) -> list[Variant]:
    return [
        Variant("wrong_axis", f"your softmax normalises over the wrong axis: each slice along dim={dim} must sum to 1.",
                lambda x: torch.softmax(x, dim=_other_axis(x, dim))),
        Variant("ignores_dim", "your softmax ignores the `dim` argument and always uses the last axis.",
                lambda x: torch.softmax(x, dim=-1)),
        Variant("whole_tensor", "your softmax divides by the sum over the whole tensor; sum only along `dim` "
                                "(keepdim=True).",
                lambda x: x.exp() / x.exp().sum()),
        Variant("not_normalised", "your softmax returns exp(x) without dividing by the sum, so it does not sum to 1.",
                lambda x: x.exp()),
        Variant("no_exp", "your softmax divides x by its sum without taking exp first.",
                lambda x: x / x.sum(dim=dim, keepdim=True)),
    ]


FAR_APART = "rows 1000 apart (each row's own maximum differs)"


def _far_apart_offsets(x: torch.Tensor, dim: int) -> torch.Tensor:
    """0, 1000, 2000, ... for each slice along ``dim``: a different constant per row, the same along the row."""
    axis = dim % x.dim()
    other = [1 if i == axis else size for i, size in enumerate(x.shape)]  # x's shape with 1 at dim
    return 1000.0 * torch.arange(math.prod(other), dtype=x.dtype, device=x.device).reshape(other)


def check_softmax(
    softmax: Callable, *, shape: tuple[int, ...] = (3, 4), dim: int = -1, dtype: torch.dtype = torch.float32,
    seed: int = 0, device: Any = None, large: bool = True,
) -> None:
    """Checks softmax along ``dim`` against torch.softmax, including inputs near 1000 (stability)."""
    ex = "softmax"
    device = device_for_checks(device)
    g = torch.Generator().manual_seed(seed)
    x = random_tensor(shape, dtype, device, g)
    cases = [(f"x of shape {tuple(shape)}, dim={dim}", x)]
    if large:
        # in float64: a stable softmax written as exp(x - logsumexp(x)) rounds its exponent near 1000 (float32's
        # step there is 6e-5 to 5e-4), and its right answer would differ from torch's by more than the tolerance
        wide = x.double()
        cases.append(("large inputs around 1000", wide * 10 + 1000))
        cases.append((FAR_APART, wide + _far_apart_offsets(wide, dim)))
    for label, x in cases:
        expected = torch.softmax(x, dim=dim)
        got = call_answer(ex, softmax, x.clone(), dim=dim, banned=SOFTMAX_BUILTINS, reason=WRITE_IT_YOURSELF)
        if (isinstance(got, torch.Tensor) and got.shape == expected.shape and not bool(torch.isfinite(got).all())
                and bool(torch.isfinite(expected).all())):
            if label == FAR_APART:
                raise AnswerError(ex, "your softmax subtracts a maximum that is not each row's own (one for the whole "
                                      "tensor, or one along another axis): with rows 1000 apart, exp underflows to 0 "
                                      "in the rows below it, and 0 / 0 is nan. Subtract the maximum along `dim`: "
                                      "x.max(dim=dim, keepdim=True).values.")
            raise AnswerError(ex, f"your softmax overflows on {label} (exp(1000) is inf): subtract the maximum along "
                                  "`dim` before exp.")
        axes = tuple("row" if i == 0 else "column" if i == x.dim() - 1 else f"axis {i}" for i in range(x.dim()))
        compare_answer(ex, got, expected, inputs=(x,), variants=_softmax_variants(dim), what="the returned tensor",
                       case=label, terms=Terms(sums_to_one=dim, axes=axes))
    report_pass(ex, f"{len(cases)} case(s), numerically stable")


# ---------------------------------------------------------------------------
# causal_mask(n)


def check_causal_mask(causal_mask: Callable, *, sizes: tuple[int, ...] = (4, 7, 1)) -> None:
    ex = "causal_mask"
    for n in sizes:
        expected = torch.ones(n, n).tril().bool()
        got = call_answer(ex, causal_mask, n, banned=ATTENTION_BUILTINS, reason=WRITE_IT_YOURSELF)
        if isinstance(got, torch.Tensor) and got.dtype != torch.bool:
            if got.shape == (n, n) and got.is_floating_point() and bool(torch.isinf(got).any()):
                raise AnswerError(ex, "returns an additive float mask (0 and -inf); return a bool tensor, True where "
                                      "attention is allowed.")
            raise AnswerError(ex, "should return a bool tensor (True where attention is allowed), got dtype "
                                  f"{got.dtype}.")
        variants = [
            Variant("inverted", "your mask is inverted: True must mean 'may attend', so the diagonal and below are "
                                "True.",
                    lambda: ~expected),
            Variant("future_allowed", "your mask lets each position see the future (True above the diagonal) and hides "
                                      "the past; use the lower triangle.",
                    lambda: expected.T.contiguous()),
            Variant("no_diagonal", "your mask hides each position from itself; the diagonal must be True (a word may "
                                   "attend to itself).",
                    lambda: torch.ones(n, n).tril(-1).bool()),
        ]
        compare_answer(ex, got, expected, variants=variants, what="the returned mask", case=f"n={n}",
                       terms=Terms(axes=("query position", "key position")))
    report_pass(ex, f"n in {list(sizes)}")
