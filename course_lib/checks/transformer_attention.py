"""The check of ``multi_head_attention(query, key, value, weights, num_heads, mask=None)`` (notebook 06), against
PyTorch's ``nn.MultiheadAttention`` with copied weights; and what the checks of the encoder block and of the
``MultiHeadAttention`` module share with it: the weights, the cases, the probes and a correct multi-head attention.

Weights are plain tensors in a dict, in ``nn.Linear``'s convention (y = x @ W.T + b): ``W_q, b_q, W_k, b_k, W_v, b_v``
(d_model, d_model) and (d_model,), the projections of all heads side by side; ``W_o, b_o`` the output projection.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import torch
import torch.nn.functional as F
from torch import nn

import course_lib.attention as course_attention
import course_lib.transformer as course_transformer
from course_lib.checks.common import WRITE_IT_YOURSELF, device_for_checks, random_tensor
from course_lib.grading.answers import (
    Banned,
    Probe,
    Terms,
    Variant,
    call_answer,
    compare_answer,
    report_pass,
    run_probes,
)

MHA_KEYS = ("W_q", "b_q", "W_k", "b_k", "W_v", "b_v", "W_o", "b_o")

#: PyTorch's and the course's multi-head attention, switched off while it (and what is built on it) is graded
MHA_BUILTINS = [
    Banned(nn.MultiheadAttention, "forward", "torch.nn.MultiheadAttention"),
    Banned(F, "multi_head_attention_forward", "torch.nn.functional.multi_head_attention_forward"),
    Banned(F, "scaled_dot_product_attention", "torch.nn.functional.scaled_dot_product_attention"),
    Banned(torch, "_native_multi_head_attention", "torch._native_multi_head_attention"),
    Banned(course_attention, "scaled_dot_product_attention", "course_lib.attention.scaled_dot_product_attention"),
    Banned(course_transformer, "scaled_dot_product_attention", "course_lib.attention.scaled_dot_product_attention"),
    Banned(course_transformer.MultiHeadAttention, "forward", "course_lib.transformer.MultiHeadAttention"),
]


# ---------------------------------------------------------------------------
# multi_head_attention(query, key, value, weights, num_heads, mask=None)


def mha_weights(d_model: int, *, seed: int = 0, dtype: torch.dtype = torch.float32, device: Any = None
                ) -> dict[str, torch.Tensor]:
    """Random W_q, b_q, W_k, b_k, W_v, b_v, W_o, b_o for ``d_model``, large enough that every mistake shows."""
    device = device_for_checks(device)
    g = torch.Generator().manual_seed(seed)
    scale = d_model ** -0.5
    return {key: random_tensor((d_model, d_model) if key.startswith("W") else (d_model,), dtype, device, g)
            * (scale if key.startswith("W") else 0.5) for key in MHA_KEYS}


def torch_mha(weights: dict[str, torch.Tensor], num_heads: int) -> nn.MultiheadAttention:
    """``nn.MultiheadAttention(batch_first=True)`` holding ``weights`` (W_q, W_k, W_v stacked as in_proj_weight)."""
    W_q = weights["W_q"]
    mha = nn.MultiheadAttention(W_q.shape[0], num_heads, batch_first=True).to(W_q.device, W_q.dtype)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([weights["W_q"], weights["W_k"], weights["W_v"]]))
        mha.in_proj_bias.copy_(torch.cat([weights["b_q"], weights["b_k"], weights["b_v"]]))
        mha.out_proj.weight.copy_(weights["W_o"])
        mha.out_proj.bias.copy_(weights["b_o"])
    return mha.eval()


def torch_mask(mask: torch.Tensor | None, num_heads: int) -> torch.Tensor | None:
    """Our mask (True = may attend; (T_q, T_k) or (B, T_q, T_k)) in nn.MultiheadAttention's form (True = blocked)."""
    if mask is None:
        return None
    if mask.dim() == 3:  # (B, T_q, T_k) -> (B * h, T_q, T_k), batch-major as PyTorch expects
        mask = mask.repeat_interleave(num_heads, dim=0)
    return ~mask


def plain_multi_head_attention(query, key, value, w, num_heads, mask=None, *, split="heads_last", scale="d_head",
                               out_proj=True, mask_dims="per_sequence", merge="transpose_back"):
    """Multi-head attention with plain tensor operations, correct or with one known mistake."""
    B, T_q, d = query.shape
    d_head = d // num_heads

    def heads(x):  # (B, T, d) -> (B, h, T, d_head)
        if split == "wrong_axis":  # reads the (T, d) block as if it were (h, T, d_head)
            return x.reshape(B, num_heads, x.shape[1], d_head)
        return x.view(B, x.shape[1], num_heads, d_head).transpose(1, 2)

    q = heads(query @ w["W_q"].T + w["b_q"])
    k = heads(key @ w["W_k"].T + w["b_k"])
    v = heads(value @ w["W_v"].T + w["b_v"])
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head if scale == "d_head" else d)  # (B, h, T_q, T_k)
    if mask is not None:
        if mask.dim() == 3:
            mask = mask[:, None] if mask_dims == "per_sequence" else mask[None]  # wrong: (1, B, T_q, T_k)
        scores = scores.masked_fill(~mask, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v  # (B, h, T_q, d_head)
    if merge == "no_transpose":
        out = out.reshape(B, T_q, d)
    else:
        out = out.transpose(1, 2).reshape(B, T_q, d)  # heads side by side again
    return out @ w["W_o"].T + w["b_o"] if out_proj else out


def multi_head_attention_mistakes() -> list[Variant]:
    """The known wrong attentions, each a function of (query, key, value, weights, num_heads, mask)."""
    def v(name, message, **mistake):
        return Variant(name, message,
                       lambda q, k, val, w, h, m: plain_multi_head_attention(q, k, val, w, h, m, **mistake))
    return [
        v("split_wrong_axis", "your heads are split along the wrong axis: view the projected (B, T, d_model) as "
          "(B, T, h, d_head) and then move h forward with .transpose(1, 2); reshaping straight to (B, h, T, d_head) "
          "mixes positions into heads.", split="wrong_axis"),
        v("scale_d_model", "you scaled the scores by sqrt(d_model); each head works in d_head = d_model / h "
          "dimensions, so divide by sqrt(d_head).", scale="d_model"),
        v("no_output_projection", "the output projection is missing: after concatenating the heads, multiply by "
          "W_o (out @ W_o.T + b_o) so that the heads' results are mixed.", out_proj=False),
        v("merge_without_transpose", "you concatenated the heads without moving h back: (B, h, T, d_head) must "
          "become (B, T, h, d_head) (.transpose(1, 2)) before the reshape to (B, T, d_model).", merge="no_transpose"),
        v("mask_wrong_dims", "your per-sequence mask is broadcast over the wrong dimensions: a (B, T_q, T_k) mask "
          "must become (B, 1, T_q, T_k), the same for every head (mask[:, None]), not (1, B, T_q, T_k).",
          mask_dims="wrong"),
    ]


#: While a later exercise is graded, the student's own helpers are replaced by correct ones.
def _correct_multi_head_attention(query, key, value, weights, num_heads, mask=None):
    """The notebook's documented signature, so that a student's keyword call works too."""
    return plain_multi_head_attention(query, key, value, weights, num_heads, mask)


CORRECT_MHA = {"multi_head_attention": _correct_multi_head_attention}


def mha_cases(batch, t_q, t_k, d_model, masks, dtype, device, g):
    """(kind, query, key, value, mask) for each kind of mask: "none", "causal", "per_sequence" (B, T_q, T_k), and
    "cross" (keys and values of their own, of length ``t_k``)."""
    for kind in masks:
        query = random_tensor((batch, t_q, d_model), dtype, device, g)
        key = query if kind != "cross" else random_tensor((batch, t_k, d_model), dtype, device, g)
        value = query if kind != "cross" else random_tensor((batch, t_k, d_model), dtype, device, g)
        n_k = key.shape[1]
        mask = None
        if kind == "causal":
            mask = torch.ones(t_q, n_k, dtype=torch.bool).tril().to(device)
        elif kind == "per_sequence":  # every row keeps at least its diagonal, so no query is left with nothing
            mask = ((torch.rand((batch, t_q, n_k), generator=g) > 0.5)
                    | torch.eye(t_q, n_k, dtype=torch.bool)).to(device)
        yield kind, query, key, value, mask


#: what an answer computed as if there were no mask is told
MASK_HAS_NO_EFFECT = "as if there were no mask: your mask has no effect (is it passed on, and applied?)"


def mha_reference(query, key, value, w, num_heads, mask=None):
    """nn.MultiheadAttention with the weights ``w`` (the probes' reference)."""
    with torch.no_grad():
        return torch_mha(w, num_heads)(query, key, value, attn_mask=torch_mask(mask, num_heads), need_weights=False)[0]


def attention_probes(args: tuple, num_heads: int, mask) -> list[Probe]:
    """The same call without its mask, with one head, and (for attention) with the value equal to the key."""
    probes = []
    if mask is not None:
        probes.append(Probe("without a mask", (*args, num_heads), {"mask": None},
                            "look at how you apply the mask: it is True where attention is allowed, so a score "
                            "becomes -inf where it is False (~mask), before the softmax; and a (T_q, T_k) or (B, T_q, "
                            "T_k) mask needs an axis for the heads"))
    weights = args[-1] if isinstance(args[-1], dict) else None
    if weights is not None:
        biases = {k: (torch.zeros_like(t) if k.startswith("b_") else t) for k, t in weights.items()}
        probes.append(Probe("when every bias is zero", (*args[:-1], biases, num_heads), {"mask": mask},
                            "look at the biases: each projection adds its own (b_q, b_k, b_v, b_o; b_1, b_2)"))
        symmetric = {k: ((t + t.T) / 2 if t.dim() == 2 and t.shape[0] == t.shape[1] else t) for k, t in weights.items()}
        if any(t.dim() == 2 and t.shape[0] == t.shape[1] for t in weights.values()):
            probes.append(Probe("when every square weight matrix is symmetric", (*args[:-1], symmetric, num_heads),
                                {"mask": mask}, "look at how you apply the weights: a projection computes x @ W.T "
                                "(nn.Linear stores W as (out, in))"))
        if "gamma_1" in weights:
            d = args[0].shape[-1]
            x_normed = F.layer_norm(args[0], (d,))
            quiet = {**weights, "W_o": torch.zeros_like(weights["W_o"]), "b_o": torch.zeros_like(weights["b_o"]),
                     "gamma_1": torch.ones_like(weights["gamma_1"]), "beta_1": torch.zeros_like(weights["beta_1"])}
            probes.append(Probe("when the attention sublayer leaves x unchanged (x' = x)", (x_normed, quiet, num_heads),
                                {"mask": mask}, "look at which tensor feeds the feed-forward network and its residual: "
                                "x' = LayerNorm(x + attention), not x"))
            shared = {**weights, "gamma_2": weights["gamma_1"], "beta_2": weights["beta_1"]}
            probes.append(Probe("when the two LayerNorms have the same gamma and beta", (*args[:-1], shared, num_heads),
                                {"mask": mask}, "look at which LayerNorm parameters you use where: gamma_1, beta_1 "
                                "after the attention, gamma_2, beta_2 after the feed-forward network"))
    if num_heads > 1:
        probes.append(Probe("with one head", (*args, 1), {"mask": mask},
                            "look at how you split the features into heads, and join them back "
                            "(B, T, d) -> (B, h, T, d/h) -> (B, T, d)"))
    if len(args) == 4 and args[1].shape == args[2].shape and not torch.equal(args[1], args[2]):
        query, key, _, w = args
        probes.append(Probe("when the value is the same tensor as the key", (query, key, key, w, num_heads),
                            {"mask": mask}, "look at which input and which weights (W_k or W_v) make the values"))
    return probes


def check_multi_head_attention(multi_head_attention: Callable, *, batch: int = 2, t_q: int = 5, t_k: int = 6,
                               d_model: int = 8, num_heads: int = 2,
                               masks: Sequence[str] = ("none", "causal", "per_sequence", "cross"),
                               dtype: torch.dtype = torch.float32, seed: int = 0, device: Any = None) -> None:
    """Against ``nn.MultiheadAttention`` with the same weights: self-attention with no mask, a causal mask and a
    per-sequence (B, T_q, T_k) mask, and cross-attention (keys and values of another length)."""
    ex = "multi_head_attention"
    device = device_for_checks(device)
    g = torch.Generator().manual_seed(seed)
    w = mha_weights(d_model, seed=seed + 1, dtype=dtype, device=device)
    reference = torch_mha(w, num_heads)
    for kind, query, key, value, mask in mha_cases(batch, t_q, t_k, d_model, masks, dtype, device, g):
        with torch.no_grad():
            expected, _ = reference(query, key, value, attn_mask=torch_mask(mask, num_heads), need_weights=False)
        got = call_answer(ex, multi_head_attention, query.clone(), key.clone(), value.clone(),
                          {k: t.clone() for k, t in w.items()}, num_heads, mask=None if mask is None else mask.clone(),
                          banned=MHA_BUILTINS, reason=WRITE_IT_YOURSELF)
        label = f"{kind} mask, query {tuple(query.shape)}, key {tuple(key.shape)}, {num_heads} heads"
        no_mask = {} if mask is None else {MASK_HAS_NO_EFFECT: mha_reference(query, key, value, w, num_heads)}
        compare_answer(ex, got, expected, inputs=(query, key, value, w, num_heads, mask),
                       variants=multi_head_attention_mistakes(), what="the returned output", case=label,
                       terms=Terms(axes=("batch", "query position", "feature"), others=no_mask),
                       locate=lambda q=query, k=key, v=value, m=mask: run_probes(
                           ex, multi_head_attention, mha_reference, attention_probes((q, k, v, w), num_heads, m),
                           what="the returned output", banned=MHA_BUILTINS, reason=WRITE_IT_YOURSELF))
    report_pass(ex, f"equal to nn.MultiheadAttention with {num_heads} heads; masks: {', '.join(masks)}")
