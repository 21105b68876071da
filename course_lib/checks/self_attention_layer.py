"""The check of ``self_attention(Q, K, V, mask=None) -> (output, weights)`` (notebook 05), against
``F.scaled_dot_product_attention``, with and without masks; the student's attention_scores and softmax are replaced
meanwhile by correct ones.
"""
from __future__ import annotations

from typing import Any, Callable

import torch

from course_lib.checks.common import WRITE_IT_YOURSELF, device_for_checks, random_tensor
from course_lib.checks.self_attention_common import ATTENTION_BUILTINS, reference_attention, reference_scores
from course_lib.grading.answers import (
    AnswerError,
    Probe,
    Terms,
    Variant,
    call_answer,
    case_note,
    compare_answer,
    report_pass,
    run_probes,
)

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
        Variant("softmax_wrong_axis", "your softmax is over the wrong axis: each query's weights (each row) must sum "
                                      "to 1 (dim=-1).",
                build(reference_scores, dim=-2)),
        Variant("mask_after_softmax", "you apply the mask after the softmax, so the remaining weights no longer sum to "
                                      "1: "
                "set masked scores to -inf before the softmax.", build(reference_scores, mask_mode="after_softmax")),
        Variant("mask_with_zero", "you mask with 0 instead of -inf: a score of 0 still gets weight exp(0) = 1 in the "
                                  "softmax.",
                build(reference_scores, mask_mode="zero")),
        Variant("mask_inverted", "your mask is inverted: True means 'may attend' (fill -inf where the mask is False).",
                build(reference_scores, mask_mode="inverted")),
        Variant("transposed_roles", "your scores are transposed (K Q^T instead of Q K^T): row i must compare query i "
                                    "with every key.",
                build(lambda Q, K: reference_scores(K, Q))),
        Variant("weights_not_times_V", "your output is the attention weights: multiply them by V to get the output.",
                build(reference_scores, values="none")),
        Variant("weights_times_Q", "your output multiplies the weights by Q; the weights average the values V.",
                build(reference_scores, values="Q")),
    ]


#: While self_attention is graded, the student's own helpers are replaced by correct ones,
#: so a mistake in attention_scores or softmax is charged once, in its own exercise.
def _correct_softmax(x, dim=-1):
    return torch.softmax(x, dim=dim)


#: module-level functions, so that they can travel to the student's kernel when grading
_CORRECT_HELPERS = {"attention_scores": reference_scores, "softmax": _correct_softmax}


def _probes(Q, K, V, mask, batch: tuple[int, ...], n: int, dtype: torch.dtype, device: Any) -> list[Probe]:
    """The same call without its mask, and with the identity for V (so that the output is the weights)."""
    probes = [Probe("without a mask", (Q, K, V), {"mask": None},
                    "look at how you apply the mask: it is True where attention is allowed, so fill -inf where "
                    "it is False (~mask), before the softmax, and assign the result (masked_fill returns a new "
                    "tensor)")] if mask is not None else []
    probes.append(Probe("when V is the identity (so the output is the weights)",
                        (Q, K, torch.eye(n, dtype=dtype, device=device).expand(*batch, n, n)), {"mask": mask},
                        "the weights are right: look at how you combine them with V (output = weights @ V)"))
    return probes


def _locate_in(self_attention: Callable, probes: list[Probe], part: int) -> Callable[[], str | None]:
    """Where the output (``part`` 0) or the weights (1) go wrong, from the answer on the probes."""
    return lambda: run_probes("self_attention", self_attention, reference_attention, probes, pick=lambda r: r[part],
                              what=("the returned output", "the returned weights")[part],
                              banned=ATTENTION_BUILTINS, reason=WRITE_IT_YOURSELF, substitutes=_CORRECT_HELPERS)


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
            mask = ((torch.rand((*batch, n, n), generator=g) > 0.5).to(device)
                    | torch.eye(n, dtype=torch.bool, device=device))
        label = f"Q {tuple(Q.shape)}, V {tuple(V.shape)}, mask: {kind}"
        expected_out, expected_w = reference_attention(Q, K, V, mask)
        result = call_answer(ex, self_attention, Q.clone(), K.clone(), V.clone(),
                             mask=None if mask is None else mask.clone(),
                             banned=ATTENTION_BUILTINS, reason=WRITE_IT_YOURSELF, substitutes=_CORRECT_HELPERS)
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            if isinstance(result, torch.Tensor) and result.shape == expected_out.shape:
                raise AnswerError(ex, "should return a pair (output, weights); you returned only one tensor.")
            raise AnswerError(ex, f"should return a pair (output, weights), got {type(result).__name__}.")
        output, weights = result
        variants = _attention_variants()
        inputs = (Q, K, V, mask)
        probes = _probes(Q, K, V, mask, batch, n, dtype, device)
        if (isinstance(output, torch.Tensor) and isinstance(weights, torch.Tensor) and output.shape == expected_w.shape
                and weights.shape == expected_out.shape and expected_w.shape != expected_out.shape):
            raise AnswerError(ex, "the pair is in the wrong order: return (output, weights), the output "
                                  f"first{case_note(label)}.")
        unmasked = reference_attention(Q, K, V) if mask is not None else None
        no_effect = "as if there were no mask: your mask has no effect (masked_fill returns a new tensor: assign it)"
        positions = (*["batch"] * len(batch), "query position")
        compare_answer(ex, weights, expected_w, inputs=inputs, variants=variants, what="the returned weights",
                       case=label, pick=lambda r: r[1], locate=_locate_in(self_attention, probes, 1),
                       terms=Terms(axes=(*positions, "key position"), sums_to_one=-1,
                                   others={no_effect: unmasked[1]} if mask is not None else {}))
        scores = reference_scores(Q, K) if mask is None else reference_scores(Q, K).masked_fill(~mask, 0.0)
        compare_answer(ex, output, expected_out, inputs=inputs, variants=variants, what="the returned output",
                       case=label, pick=lambda r: r[0], locate=_locate_in(self_attention, probes, 0),
                       terms=Terms(axes=(*positions, "value feature"),
                                   others={"from the scores instead of the softmax weights (scores @ V; the output is "
                                           "weights @ V)": scores @ V,
                                           **({no_effect: unmasked[0]} if mask is not None else {})}))
    report_pass(ex, f"masks: {', '.join(masks)}")
