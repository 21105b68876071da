"""The checks of ``add_norm(x, sublayer_out, gamma, beta, eps=1e-5)``, against ``F.layer_norm``, and of
``encoder_block(x, weights, num_heads, mask=None)``, against ``nn.TransformerEncoderLayer`` with copied weights
(notebook 06).

An encoder block's weights are those of multi-head attention (:mod:`course_lib.checks.transformer_attention`) and
``gamma_1, beta_1`` (the LayerNorm after attention), ``W_1`` (d_ff, d_model), ``b_1``, ``W_2`` (d_model, d_ff),
``b_2``, and ``gamma_2, beta_2`` (the LayerNorm after the feed-forward network).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import torch
import torch.nn.functional as F
from torch import nn

import course_lib.transformer as course_transformer
from course_lib.checks.common import LAYER_NORM_BUILTINS, WRITE_IT_YOURSELF, device_for_checks, random_tensor
from course_lib.checks.transformer_attention import (
    CORRECT_MHA,
    MASK_HAS_NO_EFFECT,
    MHA_BUILTINS,
    MHA_KEYS,
    attention_probes,
    mha_cases,
    mha_weights,
    plain_multi_head_attention,
    torch_mask,
    torch_mha,
)
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

BLOCK_KEYS = MHA_KEYS + ("gamma_1", "beta_1", "W_1", "b_1", "W_2", "b_2", "gamma_2", "beta_2")

_NORM_BUILTINS = [
    *LAYER_NORM_BUILTINS,
    Banned(course_transformer.AddNorm, "forward", "course_lib.transformer.AddNorm"),
]

_BLOCK_BUILTINS = MHA_BUILTINS + [
    Banned(nn.TransformerEncoderLayer, "forward", "torch.nn.TransformerEncoderLayer"),
    Banned(course_transformer.EncoderBlock, "forward", "course_lib.transformer.EncoderBlock"),
]


# ---------------------------------------------------------------------------
# add_norm(x, sublayer_out, gamma, beta, eps=1e-5)


def _layer_norm(x, gamma, beta, eps, *, unbiased=False, dim=-1, eps_outside=False, affine=True):
    """LayerNorm over ``dim`` with plain tensor operations, correct or with one known mistake."""
    mean = x.mean(dim, keepdim=True)
    var = x.var(dim, keepdim=True, correction=1 if unbiased else 0)
    normed = (x - mean) / (var.sqrt() + eps if eps_outside else (var + eps).sqrt())
    return normed * gamma + beta if affine else normed


def plain_add_norm(x, s, gamma, beta, eps=1e-5, *, order="post", **norm):
    """Post-norm LayerNorm(x + s) with plain tensor operations; or one known mistake."""
    if order == "no_residual":
        return _layer_norm(s, gamma, beta, eps, **norm)
    if order == "norm_sublayer_then_add":
        return x + _layer_norm(s, gamma, beta, eps, **norm)
    return _layer_norm(x + s, gamma, beta, eps, **norm)


def add_norm_mistakes() -> list[Variant]:
    """The known wrong add & norms, each a function of (x, sublayer_out, gamma, beta, eps)."""
    def v(name, message, **mistake):
        return Variant(name, message, lambda x, s, g, b, eps: plain_add_norm(x, s, g, b, eps, **mistake))
    return [
        v("no_residual", "the residual is missing: add the sublayer's input x to its output before normalising, "
          "LayerNorm(x + sublayer(x)).", order="no_residual"),
        v("norm_then_add", "you normalised the sublayer's output and then added x; post-norm adds first and "
          "normalises the sum: LayerNorm(x + sublayer(x)).", order="norm_sublayer_then_add"),
        v("unbiased_variance", "you used the unbiased variance (dividing by d - 1); LayerNorm divides by d "
          "(var(..., correction=0) or unbiased=False).", unbiased=True),
        v("wrong_axis", "you normalised over the wrong axis: LayerNorm normalises each position's vector, over the "
          "last dimension (d_model).", dim=-2),
        v("eps_outside_sqrt", "eps is outside the square root: divide by sqrt(var + eps), not by sqrt(var) + eps.",
          eps_outside=True),
        v("no_gamma_beta", "gamma and beta are missing: after normalising, scale by gamma and shift by beta.",
          affine=False),
        Variant("gamma_beta_swapped", "gamma and beta are swapped: the normalised value is multiplied by gamma and "
                "beta is added.", lambda x, s, g, b, eps: plain_add_norm(x, s, b, g, eps)),
    ]


def _correct_add_norm(x, sublayer_out, gamma, beta, eps=1e-5):
    """The notebook's documented signature, so that a student's keyword call works too."""
    return plain_add_norm(x, sublayer_out, gamma, beta, eps)


_CORRECT_ADD_NORM = {"add_norm": _correct_add_norm}


def _norm_reference(x, sublayer_out, gamma, beta, eps=1e-5):
    return F.layer_norm(x + sublayer_out, (x.shape[-1],), gamma, beta, eps)


def check_add_norm(add_norm: Callable, *, shape: tuple[int, ...] = (2, 3, 6), eps_values: Sequence[float] = (1e-5, 0.5),
                   dtype: torch.dtype = torch.float32, seed: int = 0, device: Any = None) -> None:
    """LayerNorm(x + sublayer_out) against ``F.layer_norm``; a large eps shows where eps goes."""
    ex = "add_norm"
    device = device_for_checks(device)
    g = torch.Generator().manual_seed(seed)
    d = shape[-1]
    for eps in eps_values:
        x = random_tensor(shape, dtype, device, g)
        s = random_tensor(shape, dtype, device, g) * 2 + 1
        gamma = 1 + 0.5 * random_tensor((d,), dtype, device, g)
        beta = 0.5 * random_tensor((d,), dtype, device, g)
        expected = F.layer_norm(x + s, (d,), gamma, beta, eps)
        got = call_answer(ex, add_norm, x.clone(), s.clone(), gamma.clone(), beta.clone(), eps=eps,
                          banned=_NORM_BUILTINS, reason=WRITE_IT_YOURSELF)
        one = (x[:1, :1], s[:1, :1], gamma, beta)
        compare_answer(ex, got, expected, inputs=(x, s, gamma, beta, eps), variants=add_norm_mistakes(),
                       what="the returned tensor", case=f"x {tuple(shape)}, eps={eps}",
                       terms=Terms(axes=("batch", "position", "feature"), layer_norm=(gamma, beta)),
                       locate=lambda x=x, s=s, one=one, eps=eps: run_probes(
                           ex, add_norm, _norm_reference,
                           [Probe("for a single position", one, {"eps": eps},
                                  "compute the mean and variance over the last axis only, each position's own "
                                  "features"),
                            Probe("when sublayer_out is zero", (x, torch.zeros_like(s), gamma, beta), {"eps": eps},
                                  "look at the residual: LayerNorm(x + sublayer_out)"),
                            Probe("when gamma is one and beta zero",
                                  (x, s, torch.ones_like(gamma), torch.zeros_like(beta)), {"eps": eps},
                                  "look at how gamma scales and beta shifts the normalised values")],
                           what="the returned tensor", banned=_NORM_BUILTINS, reason=WRITE_IT_YOURSELF))
    report_pass(ex, f"equal to F.layer_norm(x + sublayer_out) for eps in {list(eps_values)}")


# ---------------------------------------------------------------------------
# encoder_block(x, weights, num_heads, mask=None)


def encoder_weights(d_model: int, d_ff: int, *, seed: int = 0, dtype: torch.dtype = torch.float32, device: Any = None
                    ) -> dict[str, torch.Tensor]:
    """Random weights of a post-norm encoder block under the names of :data:`BLOCK_KEYS`."""
    device = device_for_checks(device)
    w = mha_weights(d_model, seed=seed, dtype=dtype, device=device)
    g = torch.Generator().manual_seed(seed + 1000)
    for k in (1, 2):
        w[f"gamma_{k}"] = 1 + 0.3 * random_tensor((d_model,), dtype, device, g)
        w[f"beta_{k}"] = 0.3 * random_tensor((d_model,), dtype, device, g)
    w["W_1"] = random_tensor((d_ff, d_model), dtype, device, g) * d_model ** -0.5
    w["b_1"] = 0.3 * random_tensor((d_ff,), dtype, device, g)
    w["W_2"] = random_tensor((d_model, d_ff), dtype, device, g) * d_ff ** -0.5
    w["b_2"] = 0.3 * random_tensor((d_model,), dtype, device, g)
    return w


def torch_encoder_layer(weights: dict[str, torch.Tensor], num_heads: int) -> nn.TransformerEncoderLayer:
    """``nn.TransformerEncoderLayer`` (post-norm, ReLU, no dropout, batch_first) holding ``weights``."""
    d_ff, d_model = weights["W_1"].shape
    layer = nn.TransformerEncoderLayer(d_model, num_heads, d_ff, dropout=0.0, batch_first=True, norm_first=False)
    layer = layer.to(weights["W_1"].device, weights["W_1"].dtype)
    attention = torch_mha(weights, num_heads)
    with torch.no_grad():
        layer.self_attn.load_state_dict(attention.state_dict())
        for ours, theirs in (("W_1", layer.linear1.weight), ("b_1", layer.linear1.bias), ("W_2", layer.linear2.weight),
                             ("b_2", layer.linear2.bias), ("gamma_1", layer.norm1.weight), ("beta_1", layer.norm1.bias),
                             ("gamma_2", layer.norm2.weight), ("beta_2", layer.norm2.bias)):
            theirs.copy_(weights[ours])
    return layer.eval()


def plain_encoder_block(x, w, h, mask=None, *, norm_first=False, ffn_activation=torch.relu, attention_residual=True,
                        ffn_residual=True, first_norm="gamma_1"):
    """A post-norm encoder block with plain tensor operations, correct or with one known mistake."""
    other = "gamma_2" if first_norm == "gamma_1" else "gamma_1"
    n1 = (w[first_norm], w["beta_1" if first_norm == "gamma_1" else "beta_2"])
    n2 = (w[other], w["beta_2" if other == "gamma_2" else "beta_1"])

    def ffn(y):
        return ffn_activation(y @ w["W_1"].T + w["b_1"]) @ w["W_2"].T + w["b_2"]

    def norm(y, params):
        return _layer_norm(y, *params, 1e-5)

    if norm_first:  # pre-norm: x + sublayer(LayerNorm(x))
        y = norm(x, n1)
        x = x + plain_multi_head_attention(y, y, y, w, h, mask)
        return x + ffn(norm(x, n2))
    a = plain_multi_head_attention(x, x, x, w, h, mask)
    x = norm(x + a if attention_residual else a, n1)
    f = ffn(x)
    return norm(x + f if ffn_residual else f, n2)


def encoder_block_mistakes() -> list[Variant]:
    """The known wrong encoder blocks, each a function of (x, weights, num_heads, mask)."""
    def v(name, message, **mistake):
        return Variant(name, message, lambda x, w, h, m: plain_encoder_block(x, w, h, m, **mistake))
    return [
        v("pre_norm", "your block is pre-norm (x + sublayer(LayerNorm(x))); nn.TransformerEncoderLayer and the 2017 "
          "paper are post-norm: LayerNorm(x + sublayer(x)).", norm_first=True),
        v("no_relu", "the feed-forward network has no ReLU between its two linear layers: "
          "FFN(x) = relu(x W_1^T + b_1) W_2^T + b_2.", ffn_activation=lambda y: y),
        v("gelu", "the feed-forward network uses GELU; this block (and the paper) uses ReLU.", ffn_activation=F.gelu),
        v("no_attention_residual", "the residual around the attention is missing: LayerNorm(x + attention(x)).",
          attention_residual=False),
        v("no_ffn_residual", "the residual around the feed-forward network is missing: LayerNorm(x + FFN(x)).",
          ffn_residual=False),
        v("norms_swapped", "the two LayerNorms are swapped: gamma_1, beta_1 follow the attention and gamma_2, beta_2 "
          "follow the feed-forward network.", first_norm="gamma_2"),
    ]


def _block_reference(x, w, num_heads, mask=None):
    """nn.TransformerEncoderLayer with the weights ``w`` (the probes' reference)."""
    with torch.no_grad():
        return torch_encoder_layer(w, num_heads)(x, src_mask=torch_mask(mask, num_heads))


def check_encoder_block(encoder_block: Callable, *, batch: int = 2, length: int = 5, d_model: int = 8,
                        num_heads: int = 2, d_ff: int = 16, masks: Sequence[str] = ("none", "causal"),
                        dtype: torch.dtype = torch.float32, seed: int = 0, device: Any = None) -> None:
    """Against ``nn.TransformerEncoderLayer`` with the same weights; your multi_head_attention and add_norm are
    replaced by correct ones meanwhile, so a mistake there is not charged twice."""
    ex = "encoder_block"
    device = device_for_checks(device)
    g = torch.Generator().manual_seed(seed)
    w = encoder_weights(d_model, d_ff, seed=seed + 1, dtype=dtype, device=device)
    reference = torch_encoder_layer(w, num_heads)
    for kind, x, _, _, mask in mha_cases(batch, length, length, d_model, masks, dtype, device, g):
        with torch.no_grad():
            expected = reference(x, src_mask=torch_mask(mask, num_heads))
        got = call_answer(ex, encoder_block, x.clone(), {k: t.clone() for k, t in w.items()}, num_heads,
                          mask=None if mask is None else mask.clone(), banned=_BLOCK_BUILTINS,
                          reason=WRITE_IT_YOURSELF, substitutes={**CORRECT_MHA, **_CORRECT_ADD_NORM})
        no_mask = {} if mask is None else {MASK_HAS_NO_EFFECT: _block_reference(x, w, num_heads)}
        compare_answer(ex, got, expected, inputs=(x, w, num_heads, mask), variants=encoder_block_mistakes(),
                       what="the block's output",
                       case=f"{kind} mask, x {tuple(x.shape)}, {num_heads} heads, d_ff={d_ff}",
                       terms=Terms(axes=("batch", "position", "feature"), layer_norm=(w["gamma_2"], w["beta_2"]),
                                   others=no_mask),
                       locate=lambda x=x, m=mask: run_probes(
                           ex, encoder_block, _block_reference, attention_probes((x, w), num_heads, m),
                           what="the block's output", banned=_BLOCK_BUILTINS, reason=WRITE_IT_YOURSELF,
                           substitutes={**CORRECT_MHA, **_CORRECT_ADD_NORM}))
    report_pass(ex, f"equal to nn.TransformerEncoderLayer (post-norm); masks: {', '.join(masks)}")
