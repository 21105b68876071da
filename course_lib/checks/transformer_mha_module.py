"""The check of ``class MultiHeadAttention(nn.Module)`` (notebook 06): multi-head attention with trainable
projections, against ``nn.MultiheadAttention`` with the same weights; gradients must reach every projection.
"""
from __future__ import annotations

from typing import Any, Callable

import torch
from torch import nn

from course_lib.checks.common import WRITE_IT_YOURSELF, device_for_checks
from course_lib.checks.transformer_attention import (CORRECT_MHA, MASK_HAS_NO_EFFECT, MHA_BUILTINS, mha_cases,
                                                     mha_reference, mha_weights, torch_mask, torch_mha)
from course_lib.grading.answers import AnswerError, Terms, call_answer, compare_answer, describe_value, report_pass

# ---------------------------------------------------------------------------
# class MultiHeadAttention(nn.Module): the same function with trainable projections

_PROJECTIONS = (("q_proj", "W_q", "b_q"), ("k_proj", "W_k", "b_k"), ("v_proj", "W_v", "b_v"),
                ("out_proj", "W_o", "b_o"))


def run_mha_module(MultiHeadAttention: Callable, d_model: int, num_heads: int, weights: dict[str, torch.Tensor],
                   cases: list[tuple]) -> list[tuple[Any, bool, list[str]]]:
    """Build the student's module, give it ``weights`` and run it on each ``(query, key, value, mask)``.

    It runs where the student's class is (their kernel, while grading), so it returns plain data: for each
    case the output, whether it requires a gradient, and the projections that no gradient reached.
    """
    ex = "MultiHeadAttention"
    module = call_answer(ex, MultiHeadAttention, d_model, num_heads)
    if not isinstance(module, nn.Module):
        raise AnswerError(ex, "MultiHeadAttention(d_model, num_heads) should build an nn.Module, got "
                              f"{describe_value(module)}.")
    for name, _, _ in _PROJECTIONS:
        layer = getattr(module, name, None)
        if not isinstance(layer, nn.Linear) or (layer.in_features, layer.out_features) != (d_model, d_model) \
                or layer.bias is None:
            raise AnswerError(ex, f"self.{name} should be nn.Linear(d_model, d_model) with a bias "
                                  f"(d_model = {d_model}), got {describe_value(layer)}.")
    expected_count = 4 * (d_model * d_model + d_model)
    count = sum(p.numel() for p in module.parameters())
    if count != expected_count:
        raise AnswerError(ex, f"your module has {count} parameters; four d_model x d_model projections with biases "
                              f"have 4 (d_model^2 + d_model) = {expected_count}. Register nothing else.")
    module = module.to(device=weights["W_q"].device, dtype=weights["W_q"].dtype)
    with torch.no_grad():
        for name, weight, bias in _PROJECTIONS:
            getattr(module, name).weight.copy_(weights[weight])
            getattr(module, name).bias.copy_(weights[bias])
    outcomes = []
    for query, key, value, mask in cases:
        module.zero_grad()
        # module.forward, not module(...): its globals are the notebook's, where the correct helper goes
        got = call_answer(ex, module.forward, query.clone(), key.clone(), value.clone(),
                          mask=None if mask is None else mask.clone(), substitutes=CORRECT_MHA)
        missing = [name for name, _, _ in _PROJECTIONS]
        if isinstance(got, torch.Tensor) and got.requires_grad:
            got.sum().backward()
            missing = [name for name in missing if getattr(module, name).weight.grad is None]
        requires_grad = isinstance(got, torch.Tensor) and got.requires_grad
        outcomes.append((got.detach() if isinstance(got, torch.Tensor) else got, requires_grad, missing))
    return outcomes


def _exchanged(w: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The weights with the key and value projections exchanged."""
    return {**w, "W_k": w["W_v"], "b_k": w["b_v"], "W_v": w["W_k"], "b_v": w["b_k"]}


def check_mha_module(MultiHeadAttention: Callable, *, batch: int = 2, length: int = 5, d_model: int = 8,
                     num_heads: int = 2, dtype: torch.dtype = torch.float32, seed: int = 0, device: Any = None) -> None:
    """The module's four nn.Linear projections (q_proj, k_proj, v_proj, out_proj) get nn.MultiheadAttention's weights;
    then its output must equal PyTorch's, with and without a causal mask and in cross-attention (distinct query, key
    and value), and gradients must reach every projection. Your multi_head_attention is replaced by a correct one
    meanwhile."""
    ex = "MultiHeadAttention"
    device = device_for_checks(device)
    w = mha_weights(d_model, seed=seed + 1, dtype=dtype, device=device)
    reference = torch_mha(w, num_heads)
    g = torch.Generator().manual_seed(seed)
    cases = list(mha_cases(batch, length, length + 2, d_model, ("none", "causal", "cross"), dtype, device, g))
    outcomes = call_answer(ex, run_mha_module, MultiHeadAttention, d_model, num_heads, w,
                           [(q, k, v, mask) for _, q, k, v, mask in cases], banned=MHA_BUILTINS,
                           reason=WRITE_IT_YOURSELF)
    if not isinstance(outcomes, list) or len(outcomes) != len(cases) \
            or not all(isinstance(o, tuple) and len(o) == 3 for o in outcomes):
        raise AnswerError(ex, "the grader could not read what your module returned: no points for this check.")
    for (kind, q, k, v, mask), (got, requires_grad, missing) in zip(cases, outcomes):
        with torch.no_grad():
            expected, _ = reference(q, k, v, attn_mask=torch_mask(mask, num_heads), need_weights=False)
        others = {"with the keys made by v_proj and the values by k_proj: check which layer projects which input":
                  mha_reference(q, k, v, _exchanged(w), num_heads, mask)}
        if mask is not None:
            others[MASK_HAS_NO_EFFECT] = mha_reference(q, k, v, w, num_heads)
        compare_answer(ex, got, expected, what="the module's output", case=f"{kind} mask, query {tuple(q.shape)}, "
                                                                           f"key and value {tuple(k.shape)}",
                       terms=Terms(axes=("batch", "query position", "feature"), others=others))
        if not requires_grad:
            raise AnswerError(ex, "the output does not depend on the module's parameters (no gradient): compute it "
                                  "from self.q_proj, self.k_proj, self.v_proj and self.out_proj, without "
                                  "torch.no_grad().")
        if missing:
            raise AnswerError(ex, f"no gradient reaches self.{missing[0]}: use the layer's own weight and bias in "
                                  "forward (not a detached copy or a tensor made once in __init__).")
    report_pass(ex, "equal to nn.MultiheadAttention with copied q/k/v/out projections; gradients reach all four")
