"""Checks for notebook 06 (the Transformer): positional encoding, multi-head attention, add & norm, an encoder block,
and (in :mod:`course_lib.checks.sampling`, re-exported here) drawing the next token with a temperature and top-k.

References are independent of ``course_lib.transformer``: the formula of the lecture "Pre-trained NLP Model: BERT"
written out with ``torch.pow`` for the positions, and PyTorch's own ``nn.MultiheadAttention``, ``F.layer_norm`` and
``nn.TransformerEncoderLayer`` with copied weights for the rest. The wrong-answer catalogues are
computed with plain tensor operations here.

Weights are plain tensors in a dict, in ``nn.Linear``'s convention (y = x @ W.T + b):
``W_q, b_q, W_k, b_k, W_v, b_v`` (d_model, d_model) and (d_model,), the projections of all heads side
by side; ``W_o, b_o`` the output projection; for an encoder block also ``gamma_1, beta_1`` (the
LayerNorm after attention), ``W_1`` (d_ff, d_model), ``b_1``, ``W_2`` (d_model, d_ff), ``b_2``, and
``gamma_2, beta_2`` (the LayerNorm after the feed-forward network).
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import torch
import torch.nn.functional as F
from torch import nn

import course_lib.attention as course_attention
import course_lib.train as course_train
import course_lib.transformer as course_transformer
from course_lib.checks.common import WRITE_IT_YOURSELF, device_for_checks, random_tensor
from course_lib.checks.sampling import check_sample_next, exact_next_token_probs, sample_next_mistakes  # noqa: F401
from course_lib.grading import (AnswerError, Banned, Probe, Terms, Variant, call_answer, case_note, check_tensor,
                                compare_answer, describe_value, explain, run_probes, report_pass)
from course_lib.grading import install_notebook_hooks  # noqa: F401 (the notebook's setup cell calls it)

MHA_KEYS = ("W_q", "b_q", "W_k", "b_k", "W_v", "b_v", "W_o", "b_o")
BLOCK_KEYS = MHA_KEYS + ("gamma_1", "beta_1", "W_1", "b_1", "W_2", "b_2", "gamma_2", "beta_2")
LEARNS_MARGIN = 0.5  # nats per character below the unigram entropy that a language model must reach to have learnt context

_POSITION_BUILTINS = [
    Banned(course_transformer, "positional_encoding", "course_lib.transformer.positional_encoding"),
    Banned(course_transformer, "sinusoid_frequencies", "course_lib.transformer.sinusoid_frequencies"),
    Banned(course_transformer.SinusoidalPositions, "forward", "course_lib.transformer.SinusoidalPositions"),
]

_ATTENTION_BUILTINS = [
    Banned(nn.MultiheadAttention, "forward", "torch.nn.MultiheadAttention"),
    Banned(F, "multi_head_attention_forward", "torch.nn.functional.multi_head_attention_forward"),
    Banned(F, "scaled_dot_product_attention", "torch.nn.functional.scaled_dot_product_attention"),
    Banned(torch, "_native_multi_head_attention", "torch._native_multi_head_attention"),
    Banned(course_attention, "scaled_dot_product_attention", "course_lib.attention.scaled_dot_product_attention"),
    Banned(course_transformer, "scaled_dot_product_attention", "course_lib.attention.scaled_dot_product_attention"),
    Banned(course_transformer.MultiHeadAttention, "forward", "course_lib.transformer.MultiHeadAttention"),
]

_NORM_BUILTINS = [
    Banned(F, "layer_norm", "torch.nn.functional.layer_norm"),
    Banned(torch, "layer_norm", "torch.layer_norm"),
    Banned(torch, "native_layer_norm", "torch.native_layer_norm"),
    Banned(nn.LayerNorm, "forward", "torch.nn.LayerNorm"),
    Banned(course_transformer.AddNorm, "forward", "course_lib.transformer.AddNorm"),
]

_BLOCK_BUILTINS = _ATTENTION_BUILTINS + [
    Banned(nn.TransformerEncoderLayer, "forward", "torch.nn.TransformerEncoderLayer"),
    Banned(course_transformer.EncoderBlock, "forward", "course_lib.transformer.EncoderBlock"),
]


# ---------------------------------------------------------------------------
# positional_encoding(max_len, d_model)


def plain_positional_encoding(max_len: int, d_model: int, *, swap=False, halves=False, column_exponent=False, no_two=False,
                              start=0) -> torch.Tensor:
    """PE[pos, 2i] = sin(pos / 10000^(2i / d)), PE[pos, 2i+1] = cos(...), float64; or one known mistake."""
    pos = torch.arange(start, start + max_len, dtype=torch.float64)[:, None]  # (max_len, 1)
    column = torch.arange(d_model, dtype=torch.float64)  # (d,)
    pair = torch.div(column, 2, rounding_mode="floor")  # i for columns 2i and 2i+1
    exponent = column / d_model if column_exponent else (pair / d_model if no_two else 2 * pair / d_model)
    angle = pos / torch.pow(torch.tensor(10000.0, dtype=torch.float64), exponent)  # (max_len, d)
    if halves:  # sin of every frequency in the first half, cos in the second
        freq = angle[:, 0::2]
        return torch.cat([freq.sin(), freq.cos()], dim=1)
    even = (column % 2 == 0)
    first, second = (torch.cos, torch.sin) if swap else (torch.sin, torch.cos)
    return torch.where(even, first(angle), second(angle))


def positional_encoding_mistakes(max_len: int, d_model: int) -> list[Variant]:
    """The known wrong sinusoid tables of shape (max_len, d_model), each a function of nothing."""
    def v(name, message, **mistake):
        return Variant(name, message, lambda: plain_positional_encoding(max_len, d_model, **mistake))
    return [
        v("sin_cos_swapped", "sine and cosine are swapped: even columns 2i get sin, odd columns 2i+1 get cos.", swap=True),
        v("halves", "you put all the sines in the first half and all the cosines in the second; the paper interleaves "
          "them: column 2i is sin and column 2i+1 is cos of the same frequency.", halves=True),
        v("column_exponent", "your exponent uses the column index j, 10000^(j / d_model); columns 2i and 2i+1 share one "
          "frequency, 10000^(2i / d_model).", column_exponent=True),
        v("no_two", "your exponent is i / d_model; it is 2i / d_model (the pair index i times 2).", no_two=True),
        v("from_one", "your positions start at 1; the first position is 0 (PE[0] = [0, 1, 0, 1, ...]).", start=1),
        Variant("transposed", "your table is transposed: it must have shape (max_len, d_model), one row per position.",
                lambda: plain_positional_encoding(max_len, d_model).T.contiguous()),
    ]


def _columns(got: torch.Tensor, expected: torch.Tensor, atol: float) -> str | None:
    """Which columns of the table are right: the sines (even) or cosines (odd), and which frequencies."""
    if got.shape != expected.shape:
        return None
    right = [bool(torch.allclose(got[:, j], expected[:, j], atol=atol, rtol=0)) for j in range(got.shape[1])]
    if all(right) or not any(right):
        return None
    even, odd = right[0::2], right[1::2]
    if all(even) and not any(odd):
        return ("the sine columns (even, 2i) are right and the cosine columns (odd, 2i+1) are wrong: PE[pos, 2i+1] = "
                "cos(pos / 10000^(2i/d_model)), the same angle as column 2i.")
    if all(odd) and not any(even):
        return ("the cosine columns (odd, 2i+1) are right and the sine columns (even, 2i) are wrong: PE[pos, 2i] = "
                "sin(pos / 10000^(2i/d_model)).")
    pairs = [i for i in range(len(odd)) if even[i] and odd[i]]
    if pairs == [0]:
        return ("only the first pair of columns (i = 0, frequency 1) is right: the other frequencies are wrong, so "
                "look at the exponent 2i/d_model and at dividing pos by 10000^(2i/d_model).")
    wrong = [j for j, ok in enumerate(right) if not ok]
    return f"columns {', '.join(map(str, wrong[:6]))}{' ...' if len(wrong) > 6 else ''} are wrong and the others right."


def check_positional_encoding(positional_encoding: Callable, *, sizes: Sequence[tuple[int, int]] = ((50, 16), (7, 4)),
                              atol: float = 1e-4) -> None:
    """The sinusoidal table against the lecture's formula, in float64 (a float32 answer passes within ``atol``)."""
    ex = "positional_encoding"
    for max_len, d_model in sizes:
        expected = plain_positional_encoding(max_len, d_model)
        got = call_answer(ex, positional_encoding, max_len, d_model, banned=_POSITION_BUILTINS, reason=WRITE_IT_YOURSELF)
        if not isinstance(got, torch.Tensor):
            raise AnswerError(ex, f"should return a tensor of shape (max_len, d_model), got {describe_value(got)}.")
        if not got.is_floating_point():
            raise AnswerError(ex, f"should return floating-point numbers, got dtype {got.dtype}.")
        got = got.detach().to("cpu", torch.float64)
        case = f"max_len={max_len}, d_model={d_model}"
        if got.shape == expected.shape and torch.allclose(got, expected, atol=atol, rtol=0):
            continue
        for variant in positional_encoding_mistakes(max_len, d_model):
            wrong = variant.compute()
            if got.shape == wrong.shape and torch.allclose(got, wrong, atol=atol, rtol=0):
                raise AnswerError(ex, f"{variant.message}{case_note(case)}")
        found = explain(got, expected, terms=Terms(axes=("position", "column")), what="the returned table",
                        locate=lambda got=got, expected=expected: _columns(got, expected, atol))
        if found:
            raise AnswerError(ex, f"{found}{case_note(case)}")
        check_tensor(ex, got, what="the returned table", shape=expected.shape)
        worst = (got - expected).abs().max().item()
        raise AnswerError(ex, f"the returned table has the right shape but the wrong values{case_note(case)}: the "
                              f"largest difference is {worst:.3g}. PE[pos, 2i] = sin(pos / 10000^(2i/d_model)), "
                              "PE[pos, 2i+1] = cos of the same angle.")
    report_pass(ex, f"sizes {list(sizes)}")


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


def _torch_mask(mask: torch.Tensor | None, num_heads: int) -> torch.Tensor | None:
    """Our mask (True = may attend; (T_q, T_k) or (B, T_q, T_k)) in nn.MultiheadAttention's form (True = blocked)."""
    if mask is None:
        return None
    if mask.dim() == 3:  # (B, T_q, T_k) -> (B * h, T_q, T_k), batch-major as PyTorch expects
        mask = mask.repeat_interleave(num_heads, dim=0)
    return ~mask


def plain_multi_head_attention(query, key, value, w, num_heads, mask=None, *, split="heads_last", scale="d_head", out_proj=True,
                               mask_dims="per_sequence", merge="transpose_back"):
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
        return Variant(name, message, lambda q, k, val, w, h, m: plain_multi_head_attention(q, k, val, w, h, m, **mistake))
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


_CORRECT_MHA = {"multi_head_attention": _correct_multi_head_attention}


def _mha_cases(batch, t_q, t_k, d_model, masks, dtype, device, g):
    for kind in masks:
        query = random_tensor((batch, t_q, d_model), dtype, device, g)
        key = query if kind != "cross" else random_tensor((batch, t_k, d_model), dtype, device, g)
        value = query if kind != "cross" else random_tensor((batch, t_k, d_model), dtype, device, g)
        n_k = key.shape[1]
        mask = None
        if kind == "causal":
            mask = torch.ones(t_q, n_k, dtype=torch.bool).tril().to(device)
        elif kind == "per_sequence":  # every row keeps at least its diagonal, so no query is left with nothing
            mask = ((torch.rand((batch, t_q, n_k), generator=g) > 0.5) | torch.eye(t_q, n_k, dtype=torch.bool)).to(device)
        yield kind, query, key, value, mask


_NO_EFFECT = "as if there were no mask: your mask has no effect (is it passed on, and applied?)"


def _mha_reference(query, key, value, w, num_heads, mask=None):
    """nn.MultiheadAttention with the weights ``w`` (the probes' reference)."""
    with torch.no_grad():
        return torch_mha(w, num_heads)(query, key, value, attn_mask=_torch_mask(mask, num_heads), need_weights=False)[0]


def _block_reference(x, w, num_heads, mask=None):
    """nn.TransformerEncoderLayer with the weights ``w`` (the probes' reference)."""
    with torch.no_grad():
        return torch_encoder_layer(w, num_heads)(x, src_mask=_torch_mask(mask, num_heads))


def _norm_reference(x, sublayer_out, gamma, beta, eps=1e-5):
    return F.layer_norm(x + sublayer_out, (x.shape[-1],), gamma, beta, eps)


def _attention_probes(args: tuple, num_heads: int, mask) -> list[Probe]:
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
    for kind, query, key, value, mask in _mha_cases(batch, t_q, t_k, d_model, masks, dtype, device, g):
        with torch.no_grad():
            expected, _ = reference(query, key, value, attn_mask=_torch_mask(mask, num_heads), need_weights=False)
        got = call_answer(ex, multi_head_attention, query.clone(), key.clone(), value.clone(),
                          {k: t.clone() for k, t in w.items()}, num_heads, mask=None if mask is None else mask.clone(),
                          banned=_ATTENTION_BUILTINS, reason=WRITE_IT_YOURSELF)
        label = f"{kind} mask, query {tuple(query.shape)}, key {tuple(key.shape)}, {num_heads} heads"
        compare_answer(ex, got, expected, inputs=(query, key, value, w, num_heads, mask), variants=multi_head_attention_mistakes(),
                       what="the returned output", case=label,
                       terms=Terms(axes=("batch", "query position", "feature"),
                                   others={} if mask is None else {_NO_EFFECT: _mha_reference(query, key, value, w, num_heads)}),
                       locate=lambda q=query, k=key, v=value, m=mask: run_probes(
                           ex, multi_head_attention, _mha_reference, _attention_probes((q, k, v, w), num_heads, m),
                           what="the returned output", banned=_ATTENTION_BUILTINS, reason=WRITE_IT_YOURSELF))
    report_pass(ex, f"equal to nn.MultiheadAttention with {num_heads} heads; masks: {', '.join(masks)}")


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
                                  "compute the mean and variance over the last axis only, each position's own features"),
                            Probe("when sublayer_out is zero", (x, torch.zeros_like(s), gamma, beta), {"eps": eps},
                                  "look at the residual: LayerNorm(x + sublayer_out)"),
                            Probe("when gamma is one and beta zero", (x, s, torch.ones_like(gamma), torch.zeros_like(beta)),
                                  {"eps": eps}, "look at how gamma scales and beta shifts the normalised values")],
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
    for kind, x, _, _, mask in _mha_cases(batch, length, length, d_model, masks, dtype, device, g):
        with torch.no_grad():
            expected = reference(x, src_mask=_torch_mask(mask, num_heads))
        got = call_answer(ex, encoder_block, x.clone(), {k: t.clone() for k, t in w.items()}, num_heads,
                          mask=None if mask is None else mask.clone(), banned=_BLOCK_BUILTINS,
                          reason=WRITE_IT_YOURSELF, substitutes={**_CORRECT_MHA, **_CORRECT_ADD_NORM})
        compare_answer(ex, got, expected, inputs=(x, w, num_heads, mask), variants=encoder_block_mistakes(),
                       what="the block's output", case=f"{kind} mask, x {tuple(x.shape)}, {num_heads} heads, d_ff={d_ff}",
                       terms=Terms(axes=("batch", "position", "feature"), layer_norm=(w["gamma_2"], w["beta_2"]),
                                   others={} if mask is None else {_NO_EFFECT: _block_reference(x, w, num_heads)}),
                       locate=lambda x=x, m=mask: run_probes(
                           ex, encoder_block, _block_reference, _attention_probes((x, w), num_heads, m), what="the block's output",
                           banned=_BLOCK_BUILTINS, reason=WRITE_IT_YOURSELF, substitutes={**_CORRECT_MHA, **_CORRECT_ADD_NORM}))
    report_pass(ex, f"equal to nn.TransformerEncoderLayer (post-norm); masks: {', '.join(masks)}")


# ---------------------------------------------------------------------------
# class MultiHeadAttention(nn.Module): the same function with trainable projections

_PROJECTIONS = (("q_proj", "W_q", "b_q"), ("k_proj", "W_k", "b_k"), ("v_proj", "W_v", "b_v"), ("out_proj", "W_o", "b_o"))


def run_mha_module(MultiHeadAttention: Callable, d_model: int, num_heads: int, weights: dict[str, torch.Tensor],
                   cases: list[tuple]) -> list[tuple[Any, bool, list[str]]]:
    """Build the student's module, give it ``weights`` and run it on each ``(query, key, value, mask)``.

    It runs where the student's class is (their kernel, while grading), so it returns plain data: for each
    case the output, whether it requires a gradient, and the projections that no gradient reached.
    """
    ex = "MultiHeadAttention"
    module = call_answer(ex, MultiHeadAttention, d_model, num_heads)
    if not isinstance(module, nn.Module):
        raise AnswerError(ex, f"MultiHeadAttention(d_model, num_heads) should build an nn.Module, got {describe_value(module)}.")
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
                          mask=None if mask is None else mask.clone(), substitutes=_CORRECT_MHA)
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
    cases = list(_mha_cases(batch, length, length + 2, d_model, ("none", "causal", "cross"), dtype, device, g))
    outcomes = call_answer(ex, run_mha_module, MultiHeadAttention, d_model, num_heads, w,
                           [(q, k, v, mask) for _, q, k, v, mask in cases], banned=_ATTENTION_BUILTINS,
                           reason=WRITE_IT_YOURSELF)
    if not isinstance(outcomes, list) or len(outcomes) != len(cases) \
            or not all(isinstance(o, tuple) and len(o) == 3 for o in outcomes):
        raise AnswerError(ex, "the grader could not read what your module returned: no points for this check.")
    for (kind, q, k, v, mask), (got, requires_grad, missing) in zip(cases, outcomes):
        with torch.no_grad():
            expected, _ = reference(q, k, v, attn_mask=_torch_mask(mask, num_heads), need_weights=False)
        others = {"with the keys made by v_proj and the values by k_proj: check which layer projects which input":
                  _mha_reference(q, k, v, _exchanged(w), num_heads, mask)}
        if mask is not None:
            others[_NO_EFFECT] = _mha_reference(q, k, v, w, num_heads)
        compare_answer(ex, got, expected, what="the module's output", case=f"{kind} mask, query {tuple(q.shape)}, "
                                                                           f"key and value {tuple(k.shape)}",
                       terms=Terms(axes=("batch", "query position", "feature"), others=others))
        if not requires_grad:
            raise AnswerError(ex, "the output does not depend on the module's parameters (no gradient): compute it from "
                                  "self.q_proj, self.k_proj, self.v_proj and self.out_proj, without torch.no_grad().")
        if missing:
            raise AnswerError(ex, f"no gradient reaches self.{missing[0]}: use the layer's own weight and bias in "
                                  "forward (not a detached copy or a tensor made once in __init__).")
    report_pass(ex, "equal to nn.MultiheadAttention with copied q/k/v/out projections; gradients reach all four")


# ---------------------------------------------------------------------------
# a language model built from the student's blocks (a demo's check: it prints a verdict, it is not graded)


def check_char_lm(model: nn.Module, valid_loss: float, unigram_nats: float, *, margin: float = LEARNS_MARGIN,
                  seed: int = 0) -> None:
    """The model is causal (changing the last character of a window changes no earlier position's logits) and its
    held-out loss ``valid_loss`` (nats per character) is at least ``margin`` nats below ``unigram_nats``, the loss of
    knowing only how often each character occurs (not judged when ``COURSE_FAST=1`` cut the training short)."""
    ex = "CharTransformer"
    if not isinstance(model, nn.Module):
        raise AnswerError(ex, f"expected the trained model (an nn.Module), got {describe_value(model)}.")
    for name, value in (("valid_loss", valid_loss), ("unigram_nats", unigram_nats)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise AnswerError(ex, f"{name} should be a finite number of nats, got {describe_value(value)}.")
    vocab_size = model.head.out_features if isinstance(getattr(model, "head", None), nn.Linear) else None
    length = getattr(model, "block_size", 16)
    if vocab_size is None:
        raise AnswerError(ex, "the model needs a linear output layer `head` (d_model -> vocabulary).")
    first = next(model.parameters())
    g = torch.Generator().manual_seed(seed)
    idx = torch.randint(vocab_size, (2, length), generator=g).to(first.device)
    changed = idx.clone()
    changed[:, -1] = (changed[:, -1] + 1) % vocab_size
    was_training = model.training
    model.eval()
    with torch.no_grad():
        before, _ = model(idx)
        after, _ = model(changed)
    model.train(was_training)
    if not torch.allclose(before[:, :-1], after[:, :-1], rtol=1e-4, atol=1e-5):
        raise AnswerError(ex, "the logits at earlier positions change when only the LAST character changes, so the "
                              "model sees the future it predicts: your encoder_block (or multi_head_attention) does not "
                              "apply the causal mask (True = may attend, masked scores set to -inf before the softmax).")
    if course_train.fast_run():  # training was cut to a few steps: only the structure is judged
        report_pass(ex, f"causal; held-out loss {valid_loss:.3f} nats per character after training shortened by "
                        f"{course_train.FAST_ENV}=1, so how far it learnt is not judged")
        return
    if valid_loss > unigram_nats - margin:
        raise AnswerError(ex, f"the held-out loss {valid_loss:.3f} nats per character is not {margin:g} nats below the "
                              f"unigram entropy {unigram_nats:.3f} nats: the model has learnt little beyond how often "
                              "each character occurs. Check that your positional_encoding and encoder_block pass their "
                              "checks, then train it again.")
    report_pass(ex, f"causal; held-out loss {valid_loss:.3f} nats per character, {unigram_nats - valid_loss:.2f} below "
                    f"the unigram entropy {unigram_nats:.3f}")
