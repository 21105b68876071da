"""Checks for notebook 05's score functions: dot, scaled dot, bilinear and additive (MLP).

Each scores every query against every key, ``(..., n_q, d_q)`` and ``(..., n_k, d_k)`` to
``(..., n_q, n_k)``. The references are independent of the course's own code (``course_lib.seq2seq``):
``torch.einsum`` in float64 for the dot, scaled dot and bilinear scores, and an explicit loop over
(query, key) pairs in float64 for the additive score. The notebook's checks module
(:mod:`course_lib.checks.self_attention`) exports these checks.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import torch
import torch.nn.functional as F

import course_lib.attention as course_attention
import course_lib.seq2seq as course_seq2seq
from course_lib.checks.common import WRITE_IT_YOURSELF, device_for_checks, random_tensor
from course_lib.grading.answers import (
    AnswerError,
    Banned,
    Terms,
    Variant,
    call_answer,
    case_note,
    close,
    compare_answer,
    raised_by_answer,
    report_pass,
)

#: a small case a student can check by hand: three queries and three keys of length 2
HAND_QUERIES = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
HAND_KEYS = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]

SCORE_BUILTINS = [
    Banned(F, "scaled_dot_product_attention", "torch.nn.functional.scaled_dot_product_attention"),
    Banned(torch._C._nn, "scaled_dot_product_attention", "torch._C._nn.scaled_dot_product_attention"),
    Banned(torch.nn, "MultiheadAttention", "torch.nn.MultiheadAttention"),
    Banned(torch.nn, "Bilinear", "torch.nn.Bilinear"),
    Banned(F, "bilinear", "torch.nn.functional.bilinear"),
    Banned(torch, "bilinear", "torch.bilinear"),
    Banned(course_attention, "attention_scores", "course_lib.attention.attention_scores"),
    Banned(course_attention, "scaled_dot_product_attention", "course_lib.attention.scaled_dot_product_attention"),
    *[Banned(course_seq2seq, name, f"course_lib.seq2seq.{name}")
      for name in ("dot_score", "scaled_dot_score", "bilinear_score", "additive_score")],
]


# ---------------------------------------------------------------------------
# independent references (float64, then the inputs' dtype)


def _einsum(equation: str, *tensors: torch.Tensor) -> torch.Tensor:
    return torch.einsum(equation, *(t.double() for t in tensors)).to(tensors[0].dtype)


def plain_dot_score(Q: torch.Tensor, K: torch.Tensor) -> torch.Tensor:
    """Q K^T with an einsum, in float64."""
    return _einsum("...qd,...kd->...qk", Q, K)


def plain_scaled_dot_score(Q: torch.Tensor, K: torch.Tensor) -> torch.Tensor:
    """Q K^T / sqrt(d_k) with an einsum, in float64."""
    return (_einsum("...qd,...kd->...qk", Q, K).double() / math.sqrt(K.shape[-1])).to(Q.dtype)


def plain_bilinear_score(Q: torch.Tensor, K: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    """sum over a, b of Q[..., i, a] W[a, b] K[..., j, b], in float64."""
    return _einsum("...qa,ab,...kb->...qk", Q, W, K)


def plain_additive_score(Q: torch.Tensor, K: torch.Tensor, W: torch.Tensor, U: torch.Tensor,
                         v: torch.Tensor) -> torch.Tensor:
    """v . tanh(W q + U k) for each (query, key) pair in turn: a loop over pairs, in float64."""
    q64, k64, W64, U64, v64 = (t.detach().double().cpu() for t in (Q, K, W, U, v))
    lead = q64.shape[:-2]
    q_flat, k_flat = q64.reshape(-1, *q64.shape[-2:]), k64.reshape(-1, *k64.shape[-2:])
    out = torch.zeros(q_flat.shape[0], q_flat.shape[1], k_flat.shape[1], dtype=torch.float64)
    for b in range(q_flat.shape[0]):
        for i in range(q_flat.shape[1]):
            for j in range(k_flat.shape[1]):
                out[b, i, j] = torch.dot(v64, torch.tanh(torch.mv(W64, q_flat[b, i]) + torch.mv(U64, k_flat[b, j])))
    return out.reshape(*lead, q_flat.shape[1], k_flat.shape[1]).to(Q.device, Q.dtype)


#: module-level, so that they can travel to the student's kernel: a later score function may call an earlier one
_CORRECT_HELPERS = {"dot_score": plain_dot_score, "scaled_dot_score": plain_scaled_dot_score}


# ---------------------------------------------------------------------------
# catalogues of known mistakes


def _t(x: torch.Tensor) -> torch.Tensor:
    return x.transpose(-2, -1)


def _transposed(message_target: str) -> str:
    return (f"your scores are transposed: entry [..., i, j] must be query i against key j, shape (..., n_q, n_k) "
            f"({message_target}).")


def _softmaxed(reference: Callable) -> list[Variant]:
    """Weights where scores belong: the softmax comes after the score function, not inside it."""
    message = ("your function returns weights (a softmax of the scores, summing to 1 over {}); return the raw scores: "
               "the softmax is applied after the score function.")
    return [Variant("softmax", message.format("the keys"), lambda *a: torch.softmax(reference(*a), dim=-1)),
            Variant("softmax_queries", message.format("the queries"), lambda *a: torch.softmax(reference(*a), dim=-2))]


def _cosine(Q: torch.Tensor, K: torch.Tensor) -> torch.Tensor:
    return (Q / Q.norm(dim=-1, keepdim=True)) @ _t(K / K.norm(dim=-1, keepdim=True))


def dot_score_mistakes() -> list[Variant]:
    return [
        *_softmaxed(plain_dot_score),
        Variant("cosine", "you normalised the queries and keys to length 1 (cosine similarity); the dot score uses "
                          "them "
                "as they are.", _cosine),
        Variant("transposed_roles", _transposed("Q K^T, not K Q^T"), lambda Q, K: K @ _t(Q)),
        Variant("scaled", "your dot scores are divided by sqrt(d); the plain dot score has no scaling "
                "(that is scaled_dot_score, next).", lambda Q, K: Q @ _t(K) / math.sqrt(Q.shape[-1])),
        Variant("same_position_only", "you multiplied query i with key i only (Q * K summed over the last axis), one "
                                      "score "
                "per position; score every query against every key: shape (..., n_q, n_k).",
                lambda Q, K: (Q * K).sum(-1)),
        Variant("summed_over_keys", "your scores are summed over the keys (one number per query); keep one score per "
                                    "key: "
                "shape (..., n_q, n_k).", lambda Q, K: (Q @ _t(K)).sum(-1)),
    ]


def _over(size: Callable[[torch.Tensor, torch.Tensor], int]) -> Callable:
    return lambda Q, K: Q @ _t(K) / math.sqrt(size(Q, K))


def scaled_dot_score_mistakes() -> list[Variant]:
    wrong_dim = ("you divided by the square root of {}; d_k is the length of one key, the last axis (K.shape[-1]).")
    precedence = ("`d_k ** 1/2` is (d_k ** 1) / 2, not a square root (** binds tighter than /): write d_k ** 0.5 or "
                  "math.sqrt(d_k).")
    return [
        *_softmaxed(plain_scaled_dot_score),
        Variant("cosine", "you normalised the queries and keys to length 1 (cosine similarity); scale the plain dot "
                "scores by 1 / sqrt(d_k) instead.", _cosine),
        Variant("no_scaling", "your scores are not divided by sqrt(d_k).", lambda Q, K: Q @ _t(K)),
        Variant("divided_by_dk", "your scores are divided by d_k; divide by sqrt(d_k) instead.",
                lambda Q, K: Q @ _t(K) / K.shape[-1]),
        Variant("multiplied", "your scores are multiplied by sqrt(d_k); divide by it instead.",
                lambda Q, K: Q @ _t(K) * math.sqrt(K.shape[-1])),
        Variant("sqrt_of_n_k", wrong_dim.format("the number of keys n_k (K.shape[-2])"),
                _over(lambda Q, K: K.shape[-2])),
        Variant("sqrt_of_n_q", wrong_dim.format("the number of queries n_q (Q.shape[-2])"),
                _over(lambda Q, K: Q.shape[-2])),
        Variant("sqrt_of_first_axis", wrong_dim.format("the first axis (shape[0], the batch size here)"),
                _over(lambda Q, K: Q.shape[0])),
        Variant("transposed_roles", _transposed("Q K^T, not K Q^T"), lambda Q, K: K @ _t(Q) / math.sqrt(K.shape[-1])),
        Variant("half_d_k_precedence", precedence, lambda Q, K: Q @ _t(K) / K.shape[-1] / 2),
        Variant("over_half_d_k_precedence", precedence, lambda Q, K: Q @ _t(K) / (K.shape[-1] / 2)),
        Variant("fixed_sqrt_2", "you divided by sqrt(2), the small example's d_k; take d_k from the keys' shape, "
                "K.shape[-1].", lambda Q, K: Q @ _t(K) / math.sqrt(2)),
    ]


def bilinear_score_mistakes() -> list[Variant]:
    return [
        *_softmaxed(plain_bilinear_score),
        Variant("W_transposed", "you used W transposed: W has one row per entry of the query (d_q) and one column per "
                                "entry "
                "of the key (d_k), so the score is q^T W k = (Q @ W) @ K^T, not Q @ W.T.",
                lambda Q, K, W: Q @ W.T @ _t(K)),
        Variant("W_ignored", "your score ignores W: that is the plain dot score; put W between the query and the key, "
                             "q^T W k.",
                lambda Q, K, W: Q @ _t(K)),
        Variant("transposed_roles", _transposed("Q W K^T, not K W^T Q^T"), lambda Q, K, W: K @ W.T @ _t(Q)),
        Variant("scaled", "your bilinear scores are divided by sqrt(d_k); the bilinear score q^T W k has no scaling.",
                lambda Q, K, W: Q @ W @ _t(K) / math.sqrt(K.shape[-1])),
        Variant("same_position_only", "you scored query i against key i only, one score per position; score every "
                                      "query "
                "against every key: shape (..., n_q, n_k).", lambda Q, K, W: ((Q @ W) * K).sum(-1)),
    ]


def _additive(Q, K, W, U, v, *, act=torch.tanh, swap=False, w_t=True, u_t=True, use_v=True, after=False,
              separate=False):
    """The additive score with one of the catalogue's mistakes switched on by a keyword."""
    if swap:
        W, U = U, W
    q = Q @ (W.T if w_t else W)                              # (..., n_q, d_a)
    k = K @ (U.T if u_t else U)                              # (..., n_k, d_a)
    q, k = q.unsqueeze(-2), k.unsqueeze(-3)                  # (..., n_q, 1, d_a), (..., 1, n_k, d_a)
    if separate:
        hidden = act(q) + act(k)
    elif after:
        return act((q + k) @ v)
    else:
        hidden = act(q + k)
    return hidden @ v if use_v else hidden.sum(-1)


def additive_score_mistakes() -> list[Variant]:
    return [
        *_softmaxed(plain_additive_score),
        Variant("no_tanh", "there is no tanh in your score: it is v . tanh(W q + U k), the tanh between the sum and v.",
                lambda *a: _additive(*a, act=lambda x: x)),
        Variant("tanh_after_v", "you applied tanh after the dot product with v; the tanh comes first: v . tanh(W q + U "
                                "k).",
                lambda *a: _additive(*a, after=True)),
        Variant("tanh_each_part", "you took the tanh of W q and of U k separately; add them first, then one tanh: "
                "tanh(W q + U k).", lambda *a: _additive(*a, separate=True)),
        Variant("W_U_swapped", "W and U are swapped: W multiplies the query and U the key, v . tanh(W q + U k).",
                lambda *a: _additive(*a, swap=True)),
        Variant("untransposed", "you multiplied by W and U untransposed: W has shape (d_a, d_q), so W q for every row "
                                "q of Q "
                "is Q @ W.T (and U k is K @ U.T).", lambda *a: _additive(*a, w_t=False, u_t=False)),
        Variant("W_untransposed", "you multiplied Q by W untransposed: W has shape (d_a, d_q), so W q for every row q "
                                  "of Q "
                "is Q @ W.T.", lambda *a: _additive(*a, w_t=False)),
        Variant("U_untransposed", "you multiplied K by U untransposed: U has shape (d_a, d_k), so U k for every row k "
                                  "of K "
                "is K @ U.T.", lambda *a: _additive(*a, u_t=False)),
        Variant("no_v", "you summed the d_a hidden units instead of weighting them by v: the score is v . tanh(...), "
                "(... ) @ v.", lambda *a: _additive(*a, use_v=False)),
        Variant("relu", "you used relu where the additive score uses tanh.", lambda *a: _additive(*a, act=torch.relu)),
        Variant("sigmoid", "you used a sigmoid where the additive score uses tanh.",
                lambda *a: _additive(*a, act=torch.sigmoid)),
        Variant("transposed_roles", _transposed("the queries along the rows, the keys along the columns"),
                lambda Q, K, W, U, v: _t(_additive(Q, K, W, U, v))),
        Variant("same_position_only", "you scored query i against key i only, one score per position; every query "
                                      "against "
                "every key needs the broadcast (..., n_q, 1, d_a) + (..., 1, n_k, d_a).",
                lambda Q, K, W, U, v: torch.tanh(Q @ W.T + K @ U.T) @ v),
    ]


# ---------------------------------------------------------------------------
# running a score function on one case


def _unbatched(args: tuple) -> tuple:
    """The first sequence of a batched case: leading axes of Q and K dropped, the weights kept."""
    Q, K, *weights = args
    return (Q.reshape(-1, *Q.shape[-2:])[0], K.reshape(-1, *K.shape[-2:])[0], *weights)


def _one_batch_axis(args: tuple) -> tuple:
    """The same case with exactly one leading batch axis (added, or the leading axes flattened into one)."""
    Q, K, *weights = args
    return (Q.reshape(-1, *Q.shape[-2:]), K.reshape(-1, *K.shape[-2:]), *weights)


def _other_ranks(args: tuple) -> list[tuple[str, tuple]]:
    """The case laid out with another number of leading axes: does the answer work there?"""
    ranks = []
    if args[0].dim() > 2:
        ranks.append(("a single sequence (Q of shape (n_q, d), no batch axis)", _unbatched(args)))
    if args[0].dim() != 3:
        ranks.append(("exactly one batch axis (Q of shape (batch, n_q, d))", _one_batch_axis(args)))
    return ranks


def _run(ex: str, func: Callable, args: tuple, reference: Callable, case: str, hint: str,
         substitutes: dict | None = None) -> Any:
    """The student's scores on one case; an error becomes a sentence that says where to look."""
    def call(call_args):
        return call_answer(ex, func, *(a.clone() for a in call_args), banned=SCORE_BUILTINS, reason=WRITE_IT_YOURSELF,
                           substitutes=substitutes)

    try:
        return call(args)
    except AnswerError as err:
        raised = raised_by_answer(err)
        if raised is None:
            raise
        error = raised[1].removeprefix("raised ")
    where = case_note(case)
    for layout, other in _other_ranks(args):  # does it work with another number of batch axes?
        try:
            works = close(call(other), reference(*other))
        except AnswerError:
            works = False
        if works:
            raise AnswerError(ex, f"works on {layout} but raised {error} here{where}: make it work for any number of "
                                  "leading batch axes. `@` (torch.matmul) and einsum with '...' broadcast them, while "
                                  "torch.bmm needs exactly one and K.T reverses every axis (swap the last two with "
                                  "K.transpose(-2, -1)); take sizes from the end (shape[-1]).")
    raise AnswerError(ex, f"raised {error}{where}. {hint}")


def _terms(Q: torch.Tensor, K: torch.Tensor, d_a: int | None = None, **extra: Any) -> Terms:
    d_k, n_q, n_k = K.shape[-1], Q.shape[-2], K.shape[-2]
    sizes = {"sqrt(d_k)": math.sqrt(d_k), "d_k": d_k, "the number of keys n_k": n_k, "the number of queries n_q": n_q}
    if d_a is not None:  # the additive score's hidden size comes first: a sum over the wrong axis leaves it
        sizes = {"d_a, the length of v (a sum over the wrong axis?)": d_a, **sizes}
    return Terms(axes=(*["batch"] * (Q.dim() - 2), "query", "key"), sizes=sizes, **extra)


def _score_cases(seed_table: bool, batch: tuple[int, ...], n_q: int, n_k: int, d_q: int, d_k: int,
                 dtype: torch.dtype, seed: int, device: torch.device) -> list[tuple[str, torch.Tensor, torch.Tensor]]:
    cases = []
    if seed_table:
        Q = torch.tensor(HAND_QUERIES, dtype=dtype, device=device)
        K = torch.tensor(HAND_KEYS, dtype=dtype, device=device)
        cases.append(("the small example Q = [[1, 0], [0, 1], [1, 1]], K = [[1, 2], [3, 4], [5, 6]]", Q, K))
    g = torch.Generator().manual_seed(seed)
    Q = random_tensor((*batch, n_q, d_q), dtype, device, g)
    K = random_tensor((*batch, n_k, d_k), dtype, device, g)
    cases.append((f"random Q {tuple(Q.shape)}, K {tuple(K.shape)}", Q, K))
    return cases


_DOT_HINT = ("Q has n_q rows and K has n_k rows of the same length d: one matrix product scores every pair, "
             "Q times K with its last two axes swapped.")


def check_dot_score(
    dot_score: Callable, *, batch: tuple[int, ...] = (2,), n_q: int = 3, n_k: int = 5, d: int = 4,
    dtype: torch.dtype = torch.float32, seed: int = 0, device: Any = None, seed_table: bool = True,
) -> None:
    """dot_score(Q, K) = Q K^T against a float64 einsum."""
    ex = "dot_score"
    device = device_for_checks(device)
    cases = _score_cases(seed_table, batch, n_q, n_k, d, d, dtype, seed, device)
    for label, Q, K in cases:
        got = _run(ex, dot_score, (Q, K), plain_dot_score, label, _DOT_HINT)
        compare_answer(ex, got, plain_dot_score(Q, K), inputs=(Q, K), variants=dot_score_mistakes(),
                       what="the returned scores", case=label, terms=_terms(Q, K))
    report_pass(ex, f"{len(cases)} case(s)")


def check_scaled_dot_score(
    scaled_dot_score: Callable, *, batch: tuple[int, ...] = (6,), n_q: int = 3, n_k: int = 5, d: int = 4,
    dtype: torch.dtype = torch.float32, seed: int = 0, device: Any = None, seed_table: bool = True,
) -> None:
    """scaled_dot_score(Q, K) = Q K^T / sqrt(d_k) against a float64 einsum; a call to dot_score gets a correct one.

    The visible cases' sizes all differ (d_k = 2, then batch 6, n_q 3, n_k 5, d_k 4), so a division by the
    square root of a wrong one, or by a fixed sqrt(2), is told apart.
    """
    ex = "scaled_dot_score"
    device = device_for_checks(device)
    cases = _score_cases(seed_table, batch, n_q, n_k, d, d, dtype, seed, device)
    for label, Q, K in cases:
        got = _run(ex, scaled_dot_score, (Q, K), plain_scaled_dot_score, label, _DOT_HINT, _CORRECT_HELPERS)
        d_k = K.shape[-1]
        compare_answer(ex, got, plain_scaled_dot_score(Q, K), inputs=(Q, K), variants=scaled_dot_score_mistakes(),
                       what="the returned scores", case=label,
                       terms=_terms(Q, K, divisor=("sqrt(d_k)", math.sqrt(d_k))))
    report_pass(ex, f"{len(cases)} case(s)")


def _weight(shape: tuple[int, ...], dtype: torch.dtype, device: torch.device, g: torch.Generator) -> torch.Tensor:
    return random_tensor(shape, dtype, device, g) / math.sqrt(shape[-1])


def check_bilinear_score(
    bilinear_score: Callable, *, batch: tuple[int, ...] = (2,), n_q: int = 3, n_k: int = 5, d_q: int = 4, d_k: int = 6,
    dtype: torch.dtype = torch.float32, seed: int = 0, device: Any = None, square: bool = True,
) -> None:
    """bilinear_score(Q, K, W) = Q W K^T against a float64 einsum: n_q = n_k and a square, non-symmetric W, then all
    sizes different."""
    ex = "bilinear_score"
    device = device_for_checks(device)
    g = torch.Generator().manual_seed(seed)
    cases = []
    if square:  # W transposed, W left out and one score per position give other numbers here, not an error
        cases.append((random_tensor((3, 4), dtype, device, g), random_tensor((3, 4), dtype, device, g),
                      _weight((4, 4), dtype, device, g)))
    cases.append((random_tensor((*batch, n_q, d_q), dtype, device, g),
                  random_tensor((*batch, n_k, d_k), dtype, device, g), _weight((d_q, d_k), dtype, device, g)))
    for Q, K, W in cases:
        label = f"random Q {tuple(Q.shape)}, K {tuple(K.shape)}, W {tuple(W.shape)}"
        hint = (f"W has shape (d_q, d_k) = {tuple(W.shape)}: Q @ W has the keys' length d_k, then every pair is one "
                "matrix product with K's last two axes swapped.")
        got = _run(ex, bilinear_score, (Q, K, W), plain_bilinear_score, label, hint)
        compare_answer(ex, got, plain_bilinear_score(Q, K, W), inputs=(Q, K, W), variants=bilinear_score_mistakes(),
                       what="the returned scores", case=label, terms=_terms(Q, K))
    report_pass(ex, f"{len(cases)} case(s)")


def check_additive_score(
    additive_score: Callable, *, batch: tuple[int, ...] = (2,), n_q: int = 3, n_k: int = 5, d_q: int = 4, d_k: int = 3,
    d_a: int = 6, dtype: torch.dtype = torch.float32, seed: int = 0, device: Any = None, square: bool = True,
) -> None:
    """additive_score(Q, K, W, U, v) = v . tanh(W q + U k) against a float64 loop over pairs.

    The first case has n_q = n_k and d_q = d_k = d_a, so that swapped or untransposed weights and
    one score per position give other numbers instead of an error; the second has all sizes different.
    """
    ex = "additive_score"
    device = device_for_checks(device)
    g = torch.Generator().manual_seed(seed)
    sizes = [((), 3, 3, 4, 4, 4)] if square else []
    sizes.append((batch, n_q, n_k, d_q, d_k, d_a))
    for lead, nq, nk, dq, dk, da in sizes:
        Q, K = random_tensor((*lead, nq, dq), dtype, device, g), random_tensor((*lead, nk, dk), dtype, device, g)
        W, U = _weight((da, dq), dtype, device, g), _weight((da, dk), dtype, device, g)
        v = random_tensor((da,), dtype, device, g)
        args = (Q, K, W, U, v)
        label = (f"random Q {tuple(Q.shape)}, K {tuple(K.shape)}, W {tuple(W.shape)}, U {tuple(U.shape)}, "
                 f"v {tuple(v.shape)}")
        hint = (f"W has shape (d_a, d_q) = {tuple(W.shape)} and U (d_a, d_k) = {tuple(U.shape)}: W q for every row of "
                "Q is Q @ W.T, and a (..., n_q, 1, d_a) tensor plus a (..., 1, n_k, d_a) one gives every pair.")
        got = _run(ex, additive_score, args, plain_additive_score, label, hint)
        compare_answer(ex, got, plain_additive_score(*args), inputs=args, variants=additive_score_mistakes(),
                       what="the returned scores", case=label, terms=_terms(Q, K, d_a=da))
    report_pass(ex, f"{len(sizes)} case(s)")
