"""Checks for notebook 05 (self-attention).

The score functions of its first section (dot, scaled dot, bilinear, additive) are checked in
:mod:`course_lib.checks.score_functions`; this module exports those checks too.

References are independent of the course's own code: PyTorch's
``F.scaled_dot_product_attention`` (weights are obtained from it by attending over
an identity matrix of values), ``torch.softmax``, and the decks' exact numbers.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import torch
import torch.nn.functional as F

import course_lib.attention as course_attention
from course_lib.checks.common import SOFTMAX_BUILTINS, WRITE_IT_YOURSELF, as_float64, device_for_checks, random_tensor
from course_lib.checks.score_functions import (  # noqa: F401 (the notebook's checks module exports them)
    check_additive_score,
    check_bilinear_score,
    check_dot_score,
    check_scaled_dot_score,
    plain_dot_score,
    plain_scaled_dot_score,
)
from course_lib.grading import (
    AnswerError,
    Banned,
    Probe,
    Terms,
    Variant,
    call_answer,
    case_note,
    check_tensor,
    compare_answer,
    explain,
    run_probes,
    report_pass,
)
from course_lib.grading import install_notebook_hooks  # noqa: F401 (the notebook's setup cell calls it)

# ---------------------------------------------------------------------------
# the decks' numbers

#: "Computers are thinking machines" (the lecture "Neural Network Language Models & BERT"): Q = K = V, one row per word.
WORDS = ["Computers", "are", "thinking", "machines"]
THINKING_MACHINES = [[0.2, 0.8], [-0.2, 0.5], [-0.3, -0.4], [0.7, 0.7]]
#: "I am space invader" (the lecture "BERT and Other Language Models"): the attention scores before masking.
SPACE_INVADER_WORDS = ["I", "am", "space", "invader"]
SPACE_INVADER_SCORES = [
    [0.11, 0.04, 0.05, 0.30],
    [0.19, 0.53, 0.42, 0.37],
    [0.81, 0.21, 0.05, 0.09],
    [0.51, 0.43, 0.12, 0.03],
]
#: "The brown dog ran" (the lecture "LSTMs & Transformers"): scores of "brown" against the four words, d_k = 64.
BROWN_DOG_WORDS = ["The", "brown", "dog", "ran"]
BROWN_DOG_SCORES = [92.0, 124.0, 22.0, 8.0]
BROWN_DOG_DK = 64
#: both rows the slides work through (the query's scores against the four words), and the weights they print
BROWN_DOG_ROWS = {"The": [112.0, 96.0, 16.0, 8.0], "brown": BROWN_DOG_SCORES}
BROWN_DOG_SLIDE_WEIGHTS = {"The": [0.87, 0.12, 0.01, 0.0], "brown": [0.08, 0.91, 0.01, 0.0]}


def thinking_machines(dtype: torch.dtype = torch.float64, device: Any = None) -> torch.Tensor:
    """The lecture's 4 x 2 matrix Q = K = V."""
    return torch.tensor(THINKING_MACHINES, dtype=dtype, device=device)


# ---------------------------------------------------------------------------
# independent references


def _ref_scores(Q: torch.Tensor, K: torch.Tensor) -> torch.Tensor:
    return torch.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(Q.shape[-1])


def _ref_attention(Q, K, V, mask=None):
    """(output, weights) from PyTorch's fused kernel; weights by attending over the identity."""
    n_k = K.shape[-2]
    eye = torch.eye(n_k, dtype=V.dtype, device=V.device).expand(*V.shape[:-2], n_k, n_k)
    output = F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)
    weights = F.scaled_dot_product_attention(Q, K, eye, attn_mask=mask)
    return output, weights


# ---------------------------------------------------------------------------
# what is switched off during graded calls

_ATTENTION_BUILTINS = [
    Banned(F, "scaled_dot_product_attention", "torch.nn.functional.scaled_dot_product_attention"),
    Banned(torch._C._nn, "scaled_dot_product_attention", "torch._C._nn.scaled_dot_product_attention"),
    Banned(torch.nn, "MultiheadAttention", "torch.nn.MultiheadAttention"),
    Banned(course_attention, "scaled_dot_product_attention", "course_lib.attention.scaled_dot_product_attention"),
    Banned(course_attention, "attention_scores", "course_lib.attention.attention_scores"),
    Banned(course_attention, "causal_mask", "course_lib.attention.causal_mask"),
]
# ---------------------------------------------------------------------------
# the table for "machines", cell by cell


def _table_steps(round_to: int | None = None) -> dict[str, torch.Tensor]:
    """Every row of the lecture's table for "machines", exactly (or rounded at every step)."""
    X = thinking_machines()
    r = (lambda t: t) if round_to is None else (lambda t: torch.round(t * 10**round_to) / 10**round_to)
    scores = X @ X[3]
    scaled = scores / math.sqrt(2)
    weights = r(torch.softmax(scaled, dim=-1))
    weighted = r(weights[:, None] * X)
    return {"scores": scores, "scaled": scaled, "weights": weights, "weighted": weighted, "z": weighted.sum(0)}


TABLE_STEPS = ("scores", "scaled", "weights", "weighted_values", "z")


def _table_mistakes(step: str) -> list[tuple[torch.Tensor, str]]:
    """Known wrong values for one row of the table, each with the sentence that names it."""
    X = thinking_machines()
    exact = _table_steps()
    if step == "scores":
        return [(exact["scaled"], "these scores are already divided by sqrt(2); this row is the raw q . k."),
                ((X @ X.T)[0], "these scores use the query of 'Computers'; use the query of 'machines' (row 4)."),
                (X.sum(-1) * X[3].sum(), "this is not a dot product: multiply q and k element by element, then add.")]
    if step == "scaled":
        return [(exact["scores"] / 2, "you divided by d_k = 2; divide by sqrt(d_k) = sqrt(2)."),
                (exact["scores"], "these scores are not divided by sqrt(d_k) = sqrt(2)."),
                (exact["scores"] * math.sqrt(2), "you multiplied by sqrt(2); divide by it.")]
    if step == "weights":
        return [(torch.softmax(exact["scores"], -1), "this is the softmax of the unscaled scores; use machines_scaled."),
                (exact["scaled"].exp(), "these are exponentials that do not sum to 1: divide them by their sum."),
                (exact["scaled"] / exact["scaled"].sum(), "you divided the scores by their sum without exp first."),
                (_table_steps(2)["weights"], "these weights are rounded to two decimals like the slide; keep full precision.")]
    if step == "weighted_values":
        return [(exact["weighted"][:, [1, 0]], "the two columns are swapped: row j is machines_weights[j] * v_j."),
                (_table_steps(2)["weighted"], "these rows are rounded to two decimals like the slide; keep full precision.")]
    return [(torch.tensor([0.24, 0.55], dtype=torch.float64), "this is the slide's text value; it is rounded (and off). Sum the rows of machines_weighted_values."),
            (torch.tensor([0.23, 0.54], dtype=torch.float64), "this is the slide's table value, rounded at every step. Sum the exact rows."),
            (torch.softmax(exact["scores"], -1) @ X, "this z uses the unscaled scores: the softmax must see the scores divided by sqrt(2)."),
            (exact["weighted"].sum(1), "you summed each row; z is the sum over the words (sum the rows, axis 0).")]


_TABLE_SHAPES = {"scores": (4,), "scaled": (4,), "weights": (4,), "weighted_values": (4, 2), "z": (2,)}
_TABLE_HINTS = {
    "scores": "q_machines . k_j for each of the four words (the slide's 0.70 0.21 -0.49 0.98)",
    "scaled": "machines_scores / sqrt(d_k) with d_k = 2",
    "weights": "softmax(machines_scaled): exp of each, divided by the sum of the four",
    "weighted_values": "a 4 x 2 array whose row j is machines_weights[j] * v_j",
    "z": "the sum of the rows of machines_weighted_values",
}


_TYPED = ("matches to four decimals but not exactly: compute it from the previous steps instead of "
          "typing rounded numbers.")


def check_machines_step(step: str, value: Any, *, exact: bool = False) -> None:
    """Check one row of the "machines" table against its exact value.

    ``exact=True`` (the hidden test) demands full precision, so typed, rounded numbers fail.
    """
    if step not in TABLE_STEPS:
        raise ValueError(f"step must be one of {TABLE_STEPS}, got {step!r}")
    ex = f"machines table, {step}"
    name = "z_machines" if step == "z" else f"machines_{step}"
    got = as_float64(ex, value, None, name)
    expected = _table_steps()["weighted" if step == "weighted_values" else step]
    atol = 1e-4
    near = lambda a, b: a.shape == b.shape and bool(torch.allclose(a, b, atol=atol, rtol=0))  # noqa: E731
    if near(got, expected):
        if exact and not torch.allclose(got, expected, atol=1e-9, rtol=0):
            raise AnswerError(ex, f"{name} {_TYPED}")
        shown = ", ".join(f"{v:.4f}" for v in expected.flatten()[:4])
        report_pass(ex, f"[{shown}{', ...' if expected.numel() > 4 else ''}]")
        return
    for wrong, message in _table_mistakes(step):
        if near(got, wrong) or (got.dim() == 2 and wrong.dim() == 2 and near(got.T, wrong)):
            raise AnswerError(ex, message)
    if step == "weighted_values" and got.shape == (2, 4) and near(got.T, expected):
        raise AnswerError(ex, "machines_weighted_values is transposed: it should have 4 rows (one per word) and 2 columns.")
    found = explain(got, expected, terms=_table_terms(step), what=name)
    if found:
        raise AnswerError(ex, f"{found} It should be {_TABLE_HINTS[step]}.")
    check_tensor(ex, got, what=name, shape=_TABLE_SHAPES[step])
    raise AnswerError(ex, f"{name} should be {_TABLE_HINTS[step]}.")


def _table_terms(step: str) -> Terms:
    """The row's axes, its sizes, and the same row computed from the other words or the other rows of the table."""
    X = thinking_machines()
    exact = _table_steps()
    others: dict[str, torch.Tensor] = {}
    if step == "scores":
        others = {f"with the query of '{WORDS[i]}' instead of 'machines' (row 4 of Q)": X @ X[i] for i in range(3)}
    elif step in ("weighted_values", "z"):
        for source in ("scores", "scaled"):
            weighted = exact[source][:, None] * X
            label = f"with machines_{source} in place of machines_weights"
            others[label] = weighted if step == "weighted_values" else weighted.sum(0)
    elif step == "weights":
        others = {"with machines_scores (unscaled) in place of machines_scaled": torch.softmax(exact["scores"], -1)}
    axes = ("word", "feature") if step == "weighted_values" else ("feature",) if step == "z" else ("word",)
    return Terms(axes=axes, others=others, sizes={"sqrt(d_k) = sqrt(2)": math.sqrt(2), "the number of words, 4": 4})


# ---------------------------------------------------------------------------
# attention_scores(Q, K)


def _score_variants() -> list[Variant]:
    return [
        Variant("no_scaling", "your scores are not divided by sqrt(d_k).",
                lambda Q, K: Q @ K.transpose(-2, -1)),
        Variant("divided_by_dk", "your scores are divided by d_k; divide by sqrt(d_k) instead.",
                lambda Q, K: Q @ K.transpose(-2, -1) / Q.shape[-1]),
        Variant("transposed_roles", "your scores are transposed: row i must hold query i against every key (Q K^T, not K Q^T).",
                lambda Q, K: _ref_scores(K, Q)),
        Variant("scaled_by_seq_len", "your scores are divided by sqrt(sequence length); the scale is sqrt(d_k), the size of each key.",
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
        expected = _ref_scores(Q, K)
        got = call_answer(ex, attention_scores, Q.clone(), K.clone(), banned=_ATTENTION_BUILTINS, reason=WRITE_IT_YOURSELF,
                          substitutes=_SCORE_HELPERS)
        d_k, n = Q.shape[-1], K.shape[-2]
        compare_answer(ex, got, expected, inputs=(Q, K), variants=_score_variants(), what="the returned scores", case=label,
                       terms=Terms(axes=(*["batch"] * (Q.dim() - 2), "query", "key"), divisor=("sqrt(d_k)", math.sqrt(d_k)),
                                   sizes={"sqrt(d_k)": math.sqrt(d_k), "d_k": d_k, "the number of keys n": n}))
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
        Variant("whole_tensor", "your softmax divides by the sum over the whole tensor; sum only along `dim` (keepdim=True).",
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
        cases.append(("large inputs around 1000", x * 10 + 1000))
        cases.append((FAR_APART, x + _far_apart_offsets(x, dim)))
    for label, x in cases:
        expected = torch.softmax(x, dim=dim)
        got = call_answer(ex, softmax, x.clone(), dim=dim, banned=SOFTMAX_BUILTINS, reason=WRITE_IT_YOURSELF)
        if (isinstance(got, torch.Tensor) and got.shape == expected.shape and not bool(torch.isfinite(got).all())
                and bool(torch.isfinite(expected).all())):
            if label == FAR_APART:
                raise AnswerError(ex, "your softmax subtracts a maximum that is not each row's own (one for the whole "
                                      "tensor, or one along another axis): with rows 1000 apart, exp underflows to 0 in "
                                      "the rows below it, and 0 / 0 is nan. Subtract the maximum along `dim`: "
                                      "x.max(dim=dim, keepdim=True).values.")
            raise AnswerError(ex, f"your softmax overflows on {label} (exp(1000) is inf): subtract the maximum along `dim` before exp.")
        compare_answer(ex, got, expected, inputs=(x,), variants=_softmax_variants(dim), what="the returned tensor", case=label,
                       terms=Terms(sums_to_one=dim, axes=tuple("row" if i == 0 else "column" if i == x.dim() - 1 else f"axis {i}"
                                                               for i in range(x.dim()))))
    report_pass(ex, f"{len(cases)} case(s), numerically stable")


# ---------------------------------------------------------------------------
# causal_mask(n)


def check_causal_mask(causal_mask: Callable, *, sizes: tuple[int, ...] = (4, 7, 1)) -> None:
    ex = "causal_mask"
    for n in sizes:
        expected = torch.ones(n, n).tril().bool()
        got = call_answer(ex, causal_mask, n, banned=_ATTENTION_BUILTINS, reason=WRITE_IT_YOURSELF)
        if isinstance(got, torch.Tensor) and got.dtype != torch.bool:
            if got.shape == (n, n) and got.is_floating_point() and bool(torch.isinf(got).any()):
                raise AnswerError(ex, "returns an additive float mask (0 and -inf); return a bool tensor, True where attention is allowed.")
            raise AnswerError(ex, f"should return a bool tensor (True where attention is allowed), got dtype {got.dtype}.")
        variants = [
            Variant("inverted", "your mask is inverted: True must mean 'may attend', so the diagonal and below are True.",
                    lambda: ~expected),
            Variant("future_allowed", "your mask lets each position see the future (True above the diagonal) and hides the past; use the lower triangle.",
                    lambda: expected.T.contiguous()),
            Variant("no_diagonal", "your mask hides each position from itself; the diagonal must be True (a word may attend to itself).",
                    lambda: torch.ones(n, n).tril(-1).bool()),
        ]
        compare_answer(ex, got, expected, variants=variants, what="the returned mask", case=f"n={n}",
                       terms=Terms(axes=("query position", "key position")))
    report_pass(ex, f"n in {list(sizes)}")


# ---------------------------------------------------------------------------
# self_attention(Q, K, V, mask=None) -> (output, weights)


def _attention_variants() -> list[Variant]:
    def build(scores_fn, *, dim=-1, mask_mode="neg_inf", values="V"):
        def compute(Q, K, V, mask=None):
            scores = scores_fn(Q, K)
            if mask is not None and mask_mode == "neg_inf":
                scores = scores.masked_fill(~mask, float("-inf"))
            elif mask is not None and mask_mode == "zero":
                scores = scores.masked_fill(~mask, 0.0)
            elif mask is not None and mask_mode == "inverted":
                scores = scores.masked_fill(mask, float("-inf"))
            weights = torch.softmax(scores, dim=dim)
            if mask is not None and mask_mode == "after_softmax":
                weights = weights.masked_fill(~mask, 0.0)
            out = {"V": lambda: weights @ V, "none": lambda: weights, "Q": lambda: weights @ Q}[values]()
            return out, weights
        return compute

    unscaled = lambda Q, K: Q @ K.transpose(-2, -1)  # noqa: E731
    return [
        Variant("no_scaling", "your scores are not divided by sqrt(d_k).", build(unscaled)),
        Variant("softmax_wrong_axis", "your softmax is over the wrong axis: each query's weights (each row) must sum to 1 (dim=-1).",
                build(_ref_scores, dim=-2)),
        Variant("mask_after_softmax", "you apply the mask after the softmax, so the remaining weights no longer sum to 1: "
                "set masked scores to -inf before the softmax.", build(_ref_scores, mask_mode="after_softmax")),
        Variant("mask_with_zero", "you mask with 0 instead of -inf: a score of 0 still gets weight exp(0) = 1 in the softmax.",
                build(_ref_scores, mask_mode="zero")),
        Variant("mask_inverted", "your mask is inverted: True means 'may attend' (fill -inf where the mask is False).",
                build(_ref_scores, mask_mode="inverted")),
        Variant("transposed_roles", "your scores are transposed (K Q^T instead of Q K^T): row i must compare query i with every key.",
                build(lambda Q, K: _ref_scores(K, Q))),
        Variant("weights_not_times_V", "your output is the attention weights: multiply them by V to get the output.",
                build(_ref_scores, values="none")),
        Variant("weights_times_Q", "your output multiplies the weights by Q; the weights average the values V.",
                build(_ref_scores, values="Q")),
    ]


#: While self_attention is graded, the student's own helpers are replaced by correct ones,
#: so a mistake in attention_scores or softmax is charged once, in its own exercise.
def _correct_softmax(x, dim=-1):
    return torch.softmax(x, dim=dim)


#: module-level functions, so that they can travel to the student's kernel when grading
_CORRECT_HELPERS = {"attention_scores": _ref_scores, "softmax": _correct_softmax}


def check_self_attention(
    self_attention: Callable, *, batch: tuple[int, ...] = (2,), n: int = 5, d_k: int = 3, d_v: int = 4,
    dtype: torch.dtype = torch.float32, seed: int = 0, device: Any = None, masks: tuple[str, ...] = ("none", "causal"),
) -> None:
    """Checks (output, weights) against F.scaled_dot_product_attention, with and without masks."""
    ex = "self_attention"
    device = device_for_checks(device)
    g = torch.Generator().manual_seed(seed)
    Q = random_tensor((*batch, n, d_k), dtype, device, g)
    K = random_tensor((*batch, n, d_k), dtype, device, g)
    V = random_tensor((*batch, n, d_v), dtype, device, g)
    for kind in masks:
        mask = None
        if kind == "causal":
            mask = torch.ones(n, n, dtype=torch.bool, device=device).tril()
        elif kind == "random":  # every row keeps its diagonal so no row is fully masked
            mask = (torch.rand((*batch, n, n), generator=g) > 0.5).to(device) | torch.eye(n, dtype=torch.bool, device=device)
        label = f"Q {tuple(Q.shape)}, V {tuple(V.shape)}, mask: {kind}"
        expected_out, expected_w = _ref_attention(Q, K, V, mask)
        result = call_answer(ex, self_attention, Q.clone(), K.clone(), V.clone(),
                             mask=None if mask is None else mask.clone(),
                             banned=_ATTENTION_BUILTINS, reason=WRITE_IT_YOURSELF, substitutes=_CORRECT_HELPERS)
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            if isinstance(result, torch.Tensor) and result.shape == expected_out.shape:
                raise AnswerError(ex, "should return a pair (output, weights); you returned only one tensor.")
            raise AnswerError(ex, f"should return a pair (output, weights), got {type(result).__name__}.")
        output, weights = result
        variants = _attention_variants()
        inputs = (Q, K, V, mask)
        probes = [Probe("without a mask", (Q, K, V), {"mask": None},
                        "look at how you apply the mask: it is True where attention is allowed, so fill -inf where "
                        "it is False (~mask), before the softmax, and assign the result (masked_fill returns a new "
                        "tensor)")] if mask is not None else []
        probes.append(Probe("when V is the identity (so the output is the weights)",
                            (Q, K, torch.eye(n, dtype=dtype, device=device).expand(*batch, n, n)), {"mask": mask},
                            "the weights are right: look at how you combine them with V (output = weights @ V)"))

        def explore(part):
            return lambda: run_probes(ex, self_attention, _ref_attention, probes, pick=lambda r: r[part],
                                 what=("the returned output", "the returned weights")[part],
                                 banned=_ATTENTION_BUILTINS, reason=WRITE_IT_YOURSELF, substitutes=_CORRECT_HELPERS)

        if (isinstance(output, torch.Tensor) and isinstance(weights, torch.Tensor) and output.shape == expected_w.shape
                and weights.shape == expected_out.shape and expected_w.shape != expected_out.shape):
            raise AnswerError(ex, f"the pair is in the wrong order: return (output, weights), the output first{case_note(label)}.")
        unmasked = _ref_attention(Q, K, V) if mask is not None else None
        no_effect = "as if there were no mask: your mask has no effect (masked_fill returns a new tensor: assign it)"
        positions = (*["batch"] * len(batch), "query position")
        compare_answer(ex, weights, expected_w, inputs=inputs, variants=variants, what="the returned weights",
                       case=label, pick=lambda r: r[1], locate=explore(1),
                       terms=Terms(axes=(*positions, "key position"), sums_to_one=-1,
                                   others={no_effect: unmasked[1]} if mask is not None else {}))
        scores = _ref_scores(Q, K) if mask is None else _ref_scores(Q, K).masked_fill(~mask, 0.0)
        compare_answer(ex, output, expected_out, inputs=inputs, variants=variants, what="the returned output",
                       case=label, pick=lambda r: r[0], locate=explore(0),
                       terms=Terms(axes=(*positions, "value feature"),
                                   others={"from the scores instead of the softmax weights (scores @ V; the output is "
                                           "weights @ V)": scores @ V, **({no_effect: unmasked[0]} if mask is not None else {})}))
    report_pass(ex, f"masks: {', '.join(masks)}")


# ---------------------------------------------------------------------------
# the decks' masked and brown-dog examples


def check_space_invader_weights(space_invader_weights: Any, *, exact: bool = False) -> None:
    """The lecture "BERT and Other Language Models": softmax of the masked 'I am space invader' scores, exactly."""
    ex = "space_invader_weights"
    scores = torch.tensor(SPACE_INVADER_SCORES, dtype=torch.float64)
    causal = torch.ones(4, 4).tril().bool()
    expected = torch.softmax(scores.masked_fill(~causal, float("-inf")), -1)
    got = as_float64(ex, space_invader_weights, (4, 4), "space_invader_weights")
    if torch.allclose(got, expected, atol=1e-4, rtol=0):
        if exact and not torch.allclose(got, expected, atol=1e-9, rtol=0):
            raise AnswerError(ex, f"space_invader_weights {_TYPED}")
        report_pass(ex, "row 2 = " + ", ".join(f"{v:.4f}" for v in expected[1, :2]))
        return
    if torch.allclose(got, torch.softmax(scores, -1), atol=1e-4, rtol=0):
        raise AnswerError(ex, "these weights ignore the mask: future positions must get weight 0.")
    if torch.allclose(got, torch.softmax(scores, -1).masked_fill(~causal, 0.0), atol=1e-4, rtol=0):
        raise AnswerError(ex, "the mask was applied after the softmax: rows no longer sum to 1.")
    if torch.allclose(got, torch.softmax(scores.masked_fill(~causal, 0.0), -1), atol=1e-4, rtol=0):
        raise AnswerError(ex, "masked with 0 instead of -inf: future positions still get weight.")
    masked = lambda t: torch.softmax(t.masked_fill(~causal, float("-inf")), -1)  # noqa: E731
    found = explain(got, expected, what="space_invader_weights", terms=Terms(
        axes=("query word", "key word"), sums_to_one=-1,
        others={"from the scores divided by sqrt(d_k) once more (they are already scaled)": masked(scores / 2),
                "with the mask transposed (each word sees the words after it)": torch.softmax(
                    scores.masked_fill(~causal.T, float("-inf")), -1)}))
    if found:
        raise AnswerError(ex, f"{found} It should be the softmax over each row of the scores with future positions "
                              "set to -inf.")
    raise AnswerError(ex, "should be softmax over each row of the scores with future positions set to -inf.")


def check_brown_dog_weights(brown_dog_weights: Any, *, exact: bool = False) -> None:
    """The lecture "LSTMs & Transformers": softmax(s / sqrt(64)) of the 'brown' scores 92, 124, 22, 8."""
    ex = "brown_dog_weights"
    s = torch.tensor(BROWN_DOG_SCORES, dtype=torch.float64)
    expected = torch.softmax(s / math.sqrt(BROWN_DOG_DK), -1)
    got = as_float64(ex, brown_dog_weights, (4,), "brown_dog_weights")
    if torch.allclose(got, expected, atol=1e-4, rtol=0):
        if exact and not torch.allclose(got, expected, atol=1e-9, rtol=0):
            raise AnswerError(ex, f"brown_dog_weights {_TYPED}")
        report_pass(ex, f"'brown' attends to itself with weight {expected[1]:.4f}")
        return
    if torch.allclose(got, torch.tensor([0.08, 0.91, 0.01, 0.0], dtype=torch.float64), atol=1e-3):
        raise AnswerError(ex, "these are the slide's printed values; they do not follow from its scores. Compute the softmax.")
    if torch.allclose(got, torch.softmax(s / BROWN_DOG_DK, -1), atol=1e-4, rtol=0):
        raise AnswerError(ex, "divided by d_k = 64; divide by sqrt(d_k) = 8.")
    others = {"from the scores without the division by sqrt(64) = 8": torch.softmax(s, -1),
              "from the scores divided by sqrt(4), the square root of the number of words": torch.softmax(s / 2, -1),
              "with the division by 8 after the softmax instead of before it": torch.softmax(s, -1) / 8}
    found = explain(got, expected, what="brown_dog_weights", terms=Terms(axes=("word",), sums_to_one=-1, others=others))
    raise AnswerError(ex, f"{found + ' ' if found else ''}It should be softmax(scores / sqrt(64)): divide the scores, "
                          "then the softmax.")
