"""The check of ``bert_embeddings(input_ids, token_type_ids, weights)`` (notebook 07): against
``transformers.BertModel(...).embeddings`` of the real all-MiniLM-L6-v2, on real sentence pairs.
"""
from __future__ import annotations

from typing import Any, Callable

import torch

import course_lib.bert as course_bert
from course_lib.checks.bert_common import hf_minilm, tokenizer
from course_lib.checks.bert_nsp import nsp_sentences
from course_lib.checks.common import LAYER_NORM_BUILTINS, WRITE_IT_YOURSELF, device_for_checks
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

# ---------------------------------------------------------------------------
# bert_embeddings(input_ids, token_type_ids, weights)

EMBEDDING_KEYS = ("word_embeddings", "position_embeddings", "token_type_embeddings", "gamma", "beta")


def _embedding_bans() -> list[Banned]:
    from transformers.models.bert import modeling_bert

    return [
        *LAYER_NORM_BUILTINS,
        Banned(modeling_bert.BertEmbeddings, "forward", "transformers' BertEmbeddings"),
        Banned(modeling_bert.BertModel, "forward", "transformers' BertModel"),
        Banned(course_bert.BertEmbeddings, "forward", "course_lib.bert.BertEmbeddings"),
        Banned(course_bert.BertModel, "forward", "course_lib.bert.BertModel"),
    ]


def minilm_embedding_weights(dtype: torch.dtype = torch.float32, device: Any = None) -> dict[str, torch.Tensor]:
    """The real all-MiniLM-L6-v2 embedding weights under the names of :data:`EMBEDDING_KEYS` (copies)."""
    e = hf_minilm()[0].embeddings
    device = device_for_checks(device)
    tensors = (e.word_embeddings.weight, e.position_embeddings.weight, e.token_type_embeddings.weight,
               e.LayerNorm.weight, e.LayerNorm.bias)
    return {k: t.detach().to(device, dtype).clone() for k, t in zip(EMBEDDING_KEYS, tensors)}


def plain_bert_embeddings(ids, types, w, *, eps=1e-12, positions="arange", use_types=True, norm=True, unbiased=False,
                          affine_swapped=False):
    """word + position + token-type embeddings, then BERT's LayerNorm (eps 1e-12); or one known mistake."""
    B, T = ids.shape
    if positions == "arange":
        pos = w["position_embeddings"][torch.arange(T, device=ids.device)]
    elif positions == "from_one":
        pos = w["position_embeddings"][torch.arange(1, T + 1, device=ids.device)]
    elif positions == "flat":
        pos = w["position_embeddings"][torch.arange(B * T, device=ids.device)].view(B, T, -1)
    else:
        pos = 0
    x = w["word_embeddings"][ids] + pos + (w["token_type_embeddings"][types] if use_types else 0)
    if not norm:
        return x
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, keepdim=True, correction=1 if unbiased else 0)
    gamma, beta = (w["beta"], w["gamma"]) if affine_swapped else (w["gamma"], w["beta"])
    return (x - mean) / torch.sqrt(var + eps) * gamma + beta


def bert_embeddings_mistakes() -> list[Variant]:
    """The known wrong embedding layers, each a function of (ids, types, weights)."""
    def v(name, message, **mistake):
        return Variant(name, message, lambda ids, types, w: plain_bert_embeddings(ids, types, w, **mistake))
    return [
        v("no_positions", "the position embeddings are missing: add position_embeddings[0], [1], ... [T-1] to the "
          "tokens at positions 0 .. T-1.", positions=None),
        v("positions_from_one", "your positions start at 1; the first token has position 0.", positions="from_one"),
        v("positions_across_batch", "your positions run on across the batch; every sequence starts again at position 0 "
          "(positions 0 .. T-1, broadcast over the batch).", positions="flat"),
        v("no_segments", "the segment (token type) embeddings are missing: add token_type_embeddings[token_type_ids].",
          use_types=False),
        v("no_layer_norm", "the LayerNorm is missing: after the sum, normalise each position's vector and apply gamma "
          "and beta.", norm=False),
        v("eps_1e-5", "your LayerNorm uses eps = 1e-5 (PyTorch's default); BERT's is 1e-12.", eps=1e-5),
        v("unbiased_variance", "your LayerNorm uses the unbiased variance (dividing by H - 1); divide by H.",
          unbiased=True),
        v("gamma_beta_swapped", "gamma and beta are swapped: multiply by gamma and add beta.", affine_swapped=True),
    ]


def embedding_batch(count: int = 3, seed: int = 0, device: Any = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(input_ids, token_type_ids) (count, T) of real sentence pairs, padded with [PAD] (token type 0)."""
    tok = tokenizer()
    pairs = nsp_sentences(count, seed)
    encoded = tok([a for a, _ in pairs], [b for _, b in pairs], padding=True, truncation=True, max_length=128,
                  return_tensors="pt")
    device = device_for_checks(device)
    return encoded["input_ids"].to(device), encoded["token_type_ids"].to(device)


def check_bert_embeddings(bert_embeddings: Callable, *, count: int = 3, seed: int = 0,
                          dtype: torch.dtype = torch.float32, device: Any = None) -> None:
    """Against ``transformers.BertModel(...).embeddings`` of the real all-MiniLM-L6-v2 (eval mode) on real pairs."""
    ex = "bert_embeddings"
    device = device_for_checks(device)
    ids, types = embedding_batch(count, seed, device)
    w = minilm_embedding_weights(dtype, device)
    reference = hf_minilm()[0].embeddings
    reference = reference.to(device, dtype) if (dtype, device) != (torch.float32, torch.device("cpu")) else reference
    with torch.no_grad():
        expected = reference(input_ids=ids, token_type_ids=types)
    hf_minilm()[0].embeddings.to("cpu", torch.float32)
    got = call_answer(ex, bert_embeddings, ids.clone(), types.clone(), {k: t.clone() for k, t in w.items()},
                      banned=_embedding_bans(), reason=WRITE_IT_YOURSELF)
    gamma, beta = list(w.values())[-2:]
    compare_answer(ex, got, expected, inputs=(ids, types, w), variants=bert_embeddings_mistakes(),
                   what="the returned embeddings",
                   case=f"{count} real sentence pairs, input_ids {tuple(ids.shape)}, "
                        f"{str(dtype).replace('torch.', '')}",
                   terms=Terms(axes=("sentence", "token position", "hidden unit"), layer_norm=(gamma, beta)),
                   locate=lambda: run_probes(ex, bert_embeddings, lambda i, t, ww: plain_bert_embeddings(i, t, ww), [
                       Probe(f"when the {table} table is zero", (ids, types, {**w, key: torch.zeros_like(w[key])}),
                             hint=f"look at how the {table} embeddings enter: token + position + segment are added "
                                  "first, then LayerNorm")
                       for table, key in (("position", EMBEDDING_KEYS[1]), ("segment", EMBEDDING_KEYS[2]))] + [
                       Probe("when the position and segment tables are both zero",
                             (ids, types, {**w, EMBEDDING_KEYS[1]: torch.zeros_like(w[EMBEDDING_KEYS[1]]),
                                           EMBEDDING_KEYS[2]: torch.zeros_like(w[EMBEDDING_KEYS[2]])}),
                             hint="look at the order: add the token, position and segment embeddings first, then "
                                  "LayerNorm the sum")],
                       what="the returned embeddings", banned=_embedding_bans(), reason=WRITE_IT_YOURSELF))
    report_pass(ex, f"equal to all-MiniLM-L6-v2's embedding layer on input_ids {tuple(ids.shape)}")
