"""Checks for notebook 02 (the feed-forward neural language model; word2vec's checks, in
:mod:`~course_lib.checks.ffnn_skipgram`, are re-exported here).

References are PyTorch's own functions (``F.one_hot``, ``F.embedding``, ``F.linear``,
``F.cross_entropy``, ``F.cosine_similarity``) or plain loops written here, never
``course_lib.ffnn``, which is switched off while an answer is graded.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import torch
import torch.nn.functional as F

import course_lib.ffnn as course_ffnn
from course_lib.checks.common import SOFTMAX_BUILTINS, WRITE_IT_YOURSELF, device_for_checks, random_tensor
from course_lib.checks.ffnn_skipgram import (  # section 11's checks (word2vec) are the notebook's too
    check_draw_negatives, check_negative_distribution, check_sgns_loss, check_skipgram_pairs, sgns_inputs,
    sgns_reference)
from course_lib.grading.answers import (
    AnswerError,
    Banned,
    Probe,
    Terms,
    Variant,
    call_answer,
    call_answer_each,
    case_note,
    compare_answer,
    describe_value,
    install_notebook_hooks,  # noqa: F401 (the notebook's setup cell calls it)
    report_pass,
    run_probes,
)

_COURSE_FFNN = [
    Banned(course_ffnn, "context_windows", "course_lib.ffnn.context_windows"),
    Banned(course_ffnn.FFNNLanguageModel, "forward", "course_lib.ffnn.FFNNLanguageModel.forward"),
]
_ONE_HOT_BUILTINS = [Banned(F, "one_hot", "torch.nn.functional.one_hot")]
_CROSS_ENTROPY_BUILTINS = SOFTMAX_BUILTINS + [
    Banned(F, "cross_entropy", "torch.nn.functional.cross_entropy"),
    Banned(F, "nll_loss", "torch.nn.functional.nll_loss"),
    Banned(torch.nn, "CrossEntropyLoss", "torch.nn.CrossEntropyLoss"),
    Banned(torch.nn, "NLLLoss", "torch.nn.NLLLoss"),
    Banned(torch, "logsumexp", "torch.logsumexp"),
    Banned(torch.special, "logsumexp", "torch.special.logsumexp"),
    Banned(torch.Tensor, "logsumexp", "Tensor.logsumexp"),
]

#: the lecture's sentences as word ids of a small vocabulary (0 <unk>, 1 <s>, 2 </s>)
LECTURE_VOCAB = ["<unk>", "<s>", "</s>", "a", "bedroom", "cat", "dog", "in", "is", "room", "running", "the",
                 "walking", "was"]
LECTURE_SENTENCES = ["the cat is walking in the bedroom", "a dog was running in a room"]
BOS_ID, EOS_ID = 1, 2


def lecture_ids() -> list[list[int]]:
    return [[LECTURE_VOCAB.index(w) for w in s.split()] for s in LECTURE_SENTENCES]


# ---------------------------------------------------------------------------
# make_windows(ids, context_size, bos_id, eos_id) -> [(context, target), ...]


def _windows(ids: Sequence[int], k: int, bos: int, eos: int, *, n_pad: int | None = None, eos_too: bool = True,
             width: int | None = None, leak: bool = False) -> list[tuple[tuple[int, ...], int]]:
    """The correct windows, or one known mistake: other padding, no </s>, other width, target inside."""
    n_pad = k if n_pad is None else n_pad
    width = k if width is None else width
    seq = [bos] * n_pad + list(ids) + ([eos] if eos_too else [])
    out = []
    for t in range(max(n_pad, width if not leak else width - 1), len(seq)):
        start = t - width + (1 if leak else 0)
        if start < 0:
            continue
        out.append((tuple(seq[start:t + (1 if leak else 0)]), seq[t]))
    return out


def _as_pairs(ex: str, got: Any) -> list[tuple[tuple[int, ...], int]]:
    if got is None:
        raise AnswerError(ex, "returned None: did you forget a `return` statement?")
    if not isinstance(got, (list, tuple)):
        raise AnswerError(ex, f"should return a list of (context, target) pairs, not {describe_value(got)}.")
    pairs = []
    for item in got:
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise AnswerError(ex, f"each item should be a pair (context, target), got {item!r}.")
        context, target = item
        if isinstance(target, (list, tuple)) and not isinstance(context, (list, tuple)):
            raise AnswerError(ex, f"return (context, target) pairs, in that order: {item!r} looks like (target, "
                                  "context).")
        try:
            if isinstance(context, torch.Tensor):
                context = context.tolist()
            if isinstance(target, torch.Tensor):
                target = target.item()
            pairs.append((tuple(int(i) for i in context), int(target)))
        except (TypeError, ValueError):
            raise AnswerError(ex, "each pair should be (a tuple of context ids, one target id), got "
                                  f"{item!r}.") from None
    return pairs


def check_make_windows(make_windows: Callable, *, context_sizes: Sequence[int] = (1, 2, 3),
                       sentences: Sequence[Sequence[int]] | None = None) -> None:
    ex = "make_windows"
    sentences = [list(s) for s in (sentences or lecture_ids())]
    for k in context_sizes:
        for ids in sentences:
            case = f"context_size={k}, ids={ids}"
            raw = call_answer(ex, make_windows, list(ids), k, BOS_ID, EOS_ID, banned=_COURSE_FFNN,
                              reason=WRITE_IT_YOURSELF)
            got = _as_pairs(ex, raw)
            if any(isinstance(item[0], list) for item in raw):
                raise AnswerError(ex, "each context should be a tuple of ids, as the exercise asks, not a list: a "
                                      "tuple can be counted and used as a dictionary key (notebook 01 counts n-grams "
                                      "that way), a list cannot. Use tuple(padded[i:i + context_size]).")
            expected = _windows(ids, k, BOS_ID, EOS_ID)
            if got == expected:
                continue
            where = f"{case_note(case)}"
            for m in (k - 1, k + 1):
                if got and all(len(c) == m for c, _ in got):
                    raise AnswerError(ex, f"off-by-one context window: each context should hold context_size = {k} "
                                          f"ids, yours hold {m}{where}.")
            if got == _windows(ids, k, BOS_ID, EOS_ID, leak=True):
                raise AnswerError(ex, "each context includes the word it should predict: the context is the "
                                      f"context_size ids *before* the target{where}.")
            if got == _windows(ids, k, BOS_ID, EOS_ID, eos_too=False):
                raise AnswerError(ex, "the end of the sentence is never predicted: append eos_id after the last word, "
                                      f"so the model learns where sentences stop{where}.")
            for n_pad in range(k):
                if got == _windows(ids, k, BOS_ID, EOS_ID, n_pad=n_pad):
                    raise AnswerError(ex, f"the first word(s) are never predicted: put context_size = {k} bos_id in "
                                          f"front of the sentence (you put {n_pad}){where}.")
            if len(got) != len(expected):
                raise AnswerError(ex, f"a sentence of {len(ids)} words gives {len(ids) + 1} pairs (every word and the "
                                      f"end), you returned {len(got)}{where}.")
            swaps = {(e, a) for (ce, te), (ca, ta) in zip(expected, got) for e, a in zip((*ce, te), (*ca, ta))
                     if e != a}
            names = {BOS_ID: "bos_id (<s>)", EOS_ID: "eos_id (</s>)"}
            if len(swaps) == 1 and len(got) == len(expected):
                [(right, used)] = swaps
                raise AnswerError(ex, f"where {names.get(right, right)} belongs you put {names.get(used, used)}; the "
                                      f"front of the sentence is padded with bos_id, and eos_id marks its end{where}.")
            if len(got) == len(expected) and all(ta == te for (_, ta), (_, te) in zip(got, expected)) and \
                    all(tuple(ca) == tuple(ce)[::-1] for (ca, _), (ce, _) in zip(got, expected)):
                raise AnswerError(ex, f"each context is in reverse order: the oldest word comes first, the word just "
                                      f"before the target last{where}.")
            first = next(i for i, (a, b) in enumerate(zip(got, expected)) if a != b)
            raise AnswerError(ex, f"pair {first} should be {expected[first]}, yours is {got[first]}{where}.")
    _check_own_symbols(make_windows, sentences[0], context_sizes[-1])
    report_pass(ex, f"context sizes {list(context_sizes)}; other bos_id and eos_id")


def _check_own_symbols(make_windows: Callable, ids: list[int], k: int) -> None:
    """The same sentence with other ids for <s> and </s>: the answer must use its arguments, not the notebook's."""
    ex = "make_windows"
    bos, eos = BOS_ID + 40, EOS_ID + 40
    got = _as_pairs(ex, call_answer(ex, make_windows, list(ids), k, bos, eos, banned=_COURSE_FFNN,
                                    reason=WRITE_IT_YOURSELF))
    if got == _windows(ids, k, bos, eos):
        return
    if got == _windows(ids, k, BOS_ID, EOS_ID):
        raise AnswerError(ex, f"called with bos_id={bos} and eos_id={eos}, your pairs still hold {BOS_ID} and "
                              f"{EOS_ID}: use the arguments bos_id and eos_id, not the notebook's BOS and EOS.")
    expected = _windows(ids, k, bos, eos)
    raise AnswerError(ex, f"called with bos_id={bos} and eos_id={eos}, pair 0 should be {expected[0]}, yours is "
                          f"{got[0] if got else 'missing'}: pad with the arguments bos_id and eos_id.")


# ---------------------------------------------------------------------------
# one_hot(ids, vocab_size) -> (..., vocab_size) float32


def check_one_hot(one_hot: Callable, *, vocab_size: int = 7, shapes: Sequence[tuple[int, ...]] = ((5,), (2, 3)),
                  seed: int = 0, device: Any = None) -> None:
    ex = "one_hot"
    device = device_for_checks(device)
    g = torch.Generator().manual_seed(seed)
    for shape in shapes:
        ids = torch.randint(vocab_size, shape, generator=g).to(device)
        if shape == shapes[0]:
            ids.view(-1)[0] = vocab_size - 1  # the last word too
        else:  # ids below the last word: the width must come from vocab_size, not from the largest id
            ids = ids.clamp(max=vocab_size - 2)
        expected = F.one_hot(ids, vocab_size).float()
        got = call_answer(ex, one_hot, ids.clone(), vocab_size, banned=_ONE_HOT_BUILTINS, reason=WRITE_IT_YOURSELF)
        case = f"ids of shape {tuple(shape)}, vocab_size={vocab_size}"
        if isinstance(got, torch.Tensor) and got.shape == expected.shape and got.dtype != torch.float32:
            if torch.equal(got.detach().cpu().float(), expected.cpu()):
                raise AnswerError(ex, f"the values are right but the dtype is {got.dtype}: return float32 "
                                      "(.float()), so that one_hot(ids) @ E is a matrix product of floats.")
        if isinstance(got, torch.Tensor) and got.shape[:-1] == ids.shape and got.shape[-1] != vocab_size:
            raise AnswerError(ex, f"your vectors have {got.shape[-1]} entries, but they must have vocab_size = "
                                  f"{vocab_size}, whatever the largest id in the batch{case_note(case)}.")
        variants = [
            Variant("transposed", "your one-hot matrix is transposed: one row per id, one column per word of the "
                    "vocabulary.", lambda: expected.movedim(-1, 0)),
            Variant("multi_hot", "you put every id into one vector (a 'bag of words'); each id needs its own one-hot "
                                 "row.",
                    lambda: expected.reshape(-1, vocab_size).amax(0)),
            Variant("shifted_up", "the 1 is one place to the right: position ids[i] (counting from 0) must hold the 1.",
                    lambda: F.one_hot((ids + 1).clamp(max=vocab_size - 1), vocab_size).float()),
            Variant("shifted_down", "the 1 is one place to the left: position ids[i] (counting from 0) must hold the "
                                    "1.",
                    lambda: F.one_hot((ids - 1).clamp(min=0), vocab_size).float()),
        ]
        compare_answer(ex, got, expected, variants=variants, what="the returned one-hot tensor", case=case)
    report_pass(ex, f"id shapes {[tuple(s) for s in shapes]}")


# ---------------------------------------------------------------------------
# ffnn_forward(idx, params) -> logits (B, V)


def random_ffnn_parameters(vocab_size: int = 11, context_size: int = 3, embed_dim: int = 4, hidden_dim: int = 6,
                           direct: bool = False, seed: int = 0, dtype: torch.dtype = torch.float32,
                           device: Any = None) -> dict[str, torch.Tensor | None]:
    """Bengio's parameters with random values: C (V, m), H (h, n m), d (h,), U (V, h), b (V,), W (V, n m) or None."""
    g = torch.Generator().manual_seed(seed)
    n_in = context_size * embed_dim
    shapes = {"C": (vocab_size, embed_dim), "H": (hidden_dim, n_in), "d": (hidden_dim,), "U": (vocab_size, hidden_dim),
              "b": (vocab_size,), "W": (vocab_size, n_in)}
    params = {name: random_tensor(shape, dtype, device, g) for name, shape in shapes.items()}
    if not direct:
        params["W"] = None
    return params


def _ref_ffnn(idx, params, *, tanh=True, d=True, b=True, direct=True, reverse=False, softmax=False, tanh_out=False):
    """F.embedding -> concatenate -> F.linear -> tanh -> F.linear (+ direct), or one known mistake."""
    if reverse:
        idx = idx.flip(-1)
    x = F.embedding(idx, params["C"]).flatten(-2)  # (B, n m)
    a = F.linear(x, params["H"], params["d"] if d else None)
    hidden = torch.tanh(a) if tanh else a
    logits = F.linear(hidden, params["U"], params["b"] if b else None)
    if direct and params.get("W") is not None:
        logits = logits + F.linear(x, params["W"])
    if tanh_out:
        logits = torch.tanh(logits)
    return torch.softmax(logits, -1) if softmax else logits


def _ffnn_variants() -> list[Variant]:
    return [
        Variant("no_tanh", "your hidden layer has no tanh: the hidden activation is tanh(d + H x).",
                lambda i, p: _ref_ffnn(i, p, tanh=False)),
        Variant("softmax", "you return probabilities: return the logits y = b + W x + U tanh(d + H x) (the softmax is "
                "part of the loss).", lambda i, p: _ref_ffnn(i, p, softmax=True)),
        Variant("no_direct", "the direct connections are missing: when params['W'] is given, add W x to the logits.",
                lambda i, p: _ref_ffnn(i, p, direct=False)),
        Variant("reversed", "your context words are concatenated in reverse order: the embedding of the first context "
                "word comes first.", lambda i, p: _ref_ffnn(i, p, reverse=True)),
        Variant("no_d", "the hidden bias d is missing: tanh(d + H x).", lambda i, p: _ref_ffnn(i, p, d=False)),
        Variant("no_b", "the output bias b is missing: y = b + U tanh(...).", lambda i, p: _ref_ffnn(i, p, b=False)),
        Variant("tanh_out", "you applied tanh to the logits too; only the hidden layer has a tanh.",
                lambda i, p: _ref_ffnn(i, p, tanh_out=True)),
    ]


def _ffnn_probes(idx: torch.Tensor, params: dict) -> list[Probe]:
    """Each bias set to zero, one-number embeddings (m = 1), and the same word in every context slot."""
    def changed(**values):
        return {**params, **values}
    probes = [Probe("when the hidden bias d is zero", (idx, changed(d=torch.zeros_like(params["d"]))),
                    hint="look at where you add d: inside the tanh, tanh(d + H x)"),
              Probe("when the output bias b is zero", (idx, changed(b=torch.zeros_like(params["b"]))),
                    hint="look at where you add b: y = b + W x + U tanh(d + H x)")]
    C, H, W = params["C"], params["H"], params.get("W")
    if W is not None:
        probes.append(Probe("when the direct connections W are zero", (idx, changed(W=torch.zeros_like(W))),
                            hint="look at the direct connections: y = b + W x + U tanh(d + H x), with x the "
                                 "concatenated embeddings"))
    n = idx.shape[-1]
    narrow = changed(C=C[:, :1].contiguous(), H=H[:, :n].contiguous(), W=None if W is None else W[:, :n].contiguous())
    probes.append(Probe("with one-number embeddings (m = 1)", (idx, narrow),
                        hint="look at how you concatenate the context's embeddings: all m numbers of the first word, "
                             "then all of the second (x = [C[w1]; C[w2]; ...], a reshape of (B, n, m) to (B, n m))"))
    return probes


def check_ffnn_forward(ffnn_forward: Callable, *, batch: int = 5, vocab_size: int = 11, context_size: int = 3,
                       embed_dim: int = 4, hidden_dim: int = 6, directs: Sequence[bool] = (False, True), seed: int = 0,
                       dtype: torch.dtype = torch.float32, device: Any = None) -> None:
    ex = "ffnn_forward"
    device = device_for_checks(device)
    for direct in directs:
        params = random_ffnn_parameters(vocab_size, context_size, embed_dim, hidden_dim, direct, seed, dtype, device)
        g = torch.Generator().manual_seed(seed + 1)
        idx = torch.randint(vocab_size, (batch, context_size), generator=g).to(device)
        idx[0] = torch.arange(context_size)  # distinct words, so their order matters
        expected = _ref_ffnn(idx, params)
        given = {k: None if v is None else v.clone() for k, v in params.items()}
        got = call_answer(ex, ffnn_forward, idx.clone(), given, banned=_COURSE_FFNN, reason=WRITE_IT_YOURSELF)
        case = (f"idx {tuple(idx.shape)}, V={vocab_size}, m={embed_dim}, h={hidden_dim}, "
                f"{'with' if direct else 'without'} direct connections W")
        compare_answer(ex, got, expected, inputs=(idx, params), variants=_ffnn_variants(), what="the returned logits",
                       case=case, terms=Terms(axes=("example", "word of the vocabulary")),
                       locate=lambda idx=idx, params=params: run_probes(
                           ex, ffnn_forward, _ref_ffnn, _ffnn_probes(idx, params), what="the returned logits",
                           banned=_COURSE_FFNN, reason=WRITE_IT_YOURSELF))
    report_pass(ex, "with and without direct connections" if len(directs) == 2 else f"direct={directs[0]}")


# ---------------------------------------------------------------------------
# cross_entropy(logits, targets) -> scalar


def _ce_variants() -> list[Variant]:
    def log_probs(logits, dim=-1):
        return torch.log_softmax(logits, dim)

    def pick(lp, t):
        return lp[torch.arange(len(t), device=t.device), t]

    return [
        Variant("sum", "you return the sum over the batch; cross-entropy is the mean over the examples.",
                lambda z, t: -pick(log_probs(z), t).sum()),
        Variant("no_minus", "your loss is negative: cross-entropy is minus the mean log-probability of the targets.",
                lambda z, t: pick(log_probs(z), t).mean()),
        Variant("log2", "you used log base 2 (bits); F.cross_entropy uses the natural log (nats).",
                lambda z, t: -pick(log_probs(z), t).mean() / math.log(2)),
        Variant("wrong_axis", "your softmax normalises over the batch (dim=0); each example's scores over the "
                "vocabulary (dim=-1) must sum to one.", lambda z, t: -pick(log_probs(z, 0), t).mean()),
        Variant("all_targets", "you indexed logits[:, targets], which takes every target for every row; pick one entry "
                "per row with logits[torch.arange(B), targets].",
                lambda z, t: (torch.logsumexp(z, -1)[:, None] - z[:, t]).mean()),
        Variant("per_example", "return one number, the mean over the batch, not one loss per example.",
                lambda z, t: -pick(log_probs(z), t)),
        Variant("no_log", "you averaged probabilities instead of log-probabilities: take -log of the target's "
                          "probability.",
                lambda z, t: -pick(torch.softmax(z, -1), t).mean()),
    ]


def check_cross_entropy(cross_entropy: Callable, *, batch: int = 6, vocab_size: int = 5, seed: int = 0,
                        dtype: torch.dtype = torch.float32, device: Any = None, large: bool = True) -> None:
    """Checks the mean cross-entropy against F.cross_entropy, including logits near 1000 (stability)."""
    ex = "cross_entropy"
    device = device_for_checks(device)
    g = torch.Generator().manual_seed(seed)
    logits = random_tensor((batch, vocab_size), dtype, device, g) * 2
    targets = torch.randint(vocab_size, (batch,), generator=g).to(device)
    cases = [(f"logits {tuple(logits.shape)}", logits)]
    if large:
        cases.append(("large logits around 1000", logits * 50 + 1000))
    for label, z in cases:
        expected = F.cross_entropy(z, targets)
        got = call_answer(ex, cross_entropy, z.clone(), targets.clone(), banned=_CROSS_ENTROPY_BUILTINS,
                          reason=WRITE_IT_YOURSELF)
        if isinstance(got, torch.Tensor) and got.numel() == 1 and not bool(torch.isfinite(got).all()):
            rows = call_answer_each(ex, cross_entropy, [((z[i:i + 1], targets[i:i + 1]), {}) for i in range(len(z))],
                                    banned=_CROSS_ENTROPY_BUILTINS, reason=WRITE_IT_YOURSELF)
            if all(isinstance(r, torch.Tensor) and bool(torch.isfinite(r).all()) for r in rows):
                raise AnswerError(ex, f"your loss is {got.item()} on {label}, but finite for each row on its own: "
                                      "subtract each row's own maximum (max over dim=-1, keepdim=True), not one "
                                      "maximum of the whole batch, or some rows underflow to log(0).")
            raise AnswerError(ex, f"your loss is {got.item()} on {label}: exp(1000) overflows to inf, and the "
                                  "probability of a target far below the maximum underflows to 0, whose log is -inf. "
                                  "Stay in log space with the log-sum-exp trick: loss = log sum exp(z) - z_target, "
                                  "with log sum exp(z) = max(z) + log sum exp(z - max(z)).")
        if isinstance(got, (float, int)):
            raise AnswerError(ex, "return a tensor (so that the loss can be backpropagated), not a Python number.")
        if isinstance(got, torch.Tensor) and got.shape == (1,):
            got = got.reshape(())
        if isinstance(got, torch.Tensor) and got.dtype == torch.float64 and z.dtype == torch.float32:
            got = got.float()  # a loss computed in float64 is as good: the exercise asks for the value, not the dtype
        compare_answer(ex, got, expected, inputs=(z, targets), variants=_ce_variants(), what="the returned loss",
                       case=label,
                       terms=Terms(sizes={"the batch size B": len(targets), "log(V)": math.log(z.shape[-1])}),
                       locate=lambda z=z: run_probes(ex, cross_entropy, F.cross_entropy, [
                           Probe("when every row's largest logit is 0", (z - z.max(-1, keepdim=True).values, targets),
                                 hint="look at the maximum you subtract for stability: log sum exp(z) = max(z) + log "
                                      "sum exp(z - max(z)), so it must be added back"),
                           Probe("with a batch of one row", (z[:1], targets[:1]),
                                 hint="compute the maximum and the sum over each row (dim=-1, keepdim=True), not over "
                                      "the whole batch, and average the rows' losses"),
                           Probe("when every row has the same largest logit",
                                 (z - z.max(-1, keepdim=True).values + z.max(), targets),
                                 hint="take each row's own maximum (dim=-1), not one maximum of the whole batch")],
                           what="the returned loss", banned=_CROSS_ENTROPY_BUILTINS, reason=WRITE_IT_YOURSELF))
    report_pass(ex, f"{len(cases)} case(s), numerically stable" if large else f"{len(cases)} case(s)")


# ---------------------------------------------------------------------------
# nearest_neighbours(E, word_id, k) -> k ids, most similar first


def _ranked(scores: torch.Tensor, word_id: int, k: int, *, keep_self: bool = False,
            ascending: bool = False) -> list[int]:
    scores = scores.clone().double()
    if not keep_self:
        scores[word_id] = math.inf if ascending else -math.inf
    return torch.argsort(scores, descending=not ascending)[:k].tolist()


def check_nearest_neighbours(nearest_neighbours: Callable, *, vocab_size: int = 12, dim: int = 5, k: int = 3,
                             word_ids: Sequence[int] = (0, 4), seed: int = 0, device: Any = None) -> None:
    ex = "nearest_neighbours"
    device = device_for_checks(device)
    g = torch.Generator().manual_seed(seed)
    E = random_tensor((vocab_size, dim), torch.float32, device, g)
    lengths = torch.linspace(0.2, 3.0, vocab_size, device=device)
    E = E * lengths[torch.randperm(vocab_size, generator=g).to(device), None]
    for word_id in word_ids:
        case = f"E {tuple(E.shape)}, word_id={word_id}, k={k}"
        cosine = F.cosine_similarity(E, E[word_id][None, :], dim=-1)
        expected = _ranked(cosine, word_id, k)
        got = call_answer(ex, nearest_neighbours, E.clone(), word_id, k, banned=[], reason="")
        if got is None:
            raise AnswerError(ex, "returned None: did you forget a `return` statement?")
        try:
            got = [int(i) for i in (got.tolist() if isinstance(got, torch.Tensor) else got)]
        except (TypeError, ValueError):
            raise AnswerError(ex, f"should return a list (or 1-D tensor) of {k} word ids, not "
                                  f"{describe_value(got)}.") from None
        if got == expected:
            continue
        where = f"{case_note(case)}"
        if got == _ranked(cosine, word_id, k, keep_self=True):
            raise AnswerError(ex, "your list starts with the word itself (its cosine similarity is 1): leave word_id "
                                  f"out{where}.")
        if got == _ranked(E @ E[word_id], word_id, k):
            raise AnswerError(ex, "you ranked by the dot product, which favours long vectors; divide by both vectors' "
                                  f"norms to get the cosine similarity{where}.")
        if got == _ranked(cosine, word_id, k, ascending=True):
            raise AnswerError(ex, f"these are the *least* similar words: sort by similarity, largest first{where}.")
        if got == _ranked(-(E - E[word_id]).norm(dim=-1), word_id, k):
            raise AnswerError(ex, f"you ranked by Euclidean distance; the exercise asks for cosine similarity{where}.")
        if sorted(got) == sorted(expected):
            raise AnswerError(ex, f"the right words in the wrong order: most similar first{where}.")
        if len(got) != k:
            raise AnswerError(ex, f"you returned {len(got)} ids; return exactly k = {k} ids "
                                  f"({'too few' if len(got) < k else 'too many'}){where}.")
        unit = E / E.norm(dim=-1, keepdim=True)
        [on_unit] = call_answer_each(ex, nearest_neighbours, [((unit, word_id, k), {})])
        on_unit = on_unit.tolist() if isinstance(on_unit, torch.Tensor) else on_unit
        if not isinstance(on_unit, AnswerError) and [int(i) for i in on_unit] == expected:
            raise AnswerError(ex, "your ranking is right when every row of E has length 1 and wrong otherwise: the "
                                  "cosine similarity divides by each word's own norm, the norm of its row (dim=-1)"
                                  f"{where}.")
        raise AnswerError(ex, f"the {k} nearest neighbours by cosine similarity are {expected}, yours are "
                              f"{got}{where}.")
    _check_twin(nearest_neighbours, E, word_ids[0], k)
    report_pass(ex, f"k={k}, {len(word_ids)} words; a word pointing the same way as word_id")


def _check_twin(nearest_neighbours: Callable, E: torch.Tensor, word_id: int, k: int) -> None:
    """Another row pointing exactly the way word_id's does (cosine 1, a tie with the word itself): word_id must be
    left out by its id, not by dropping the first of the top k + 1."""
    for twin in ((word_id + 1) % len(E), (word_id - 1) % len(E)):  # after it and before it: ties may go either way
        _check_one_twin(nearest_neighbours, E, word_id, twin, k)


def _check_one_twin(nearest_neighbours: Callable, E: torch.Tensor, word_id: int, twin: int, k: int) -> None:
    ex = "nearest_neighbours"
    E = E.clone()
    E[twin] = 2 * E[word_id]  # (dim,): the same direction, twice as long
    got = call_answer(ex, nearest_neighbours, E.clone(), word_id, k, banned=[], reason="")
    got = [int(i) for i in (got.tolist() if isinstance(got, torch.Tensor) else got)]
    if word_id in got:
        raise AnswerError(ex, f"when word {twin} points the same way as word {word_id} (both have cosine similarity "
                              f"1), your list contains word_id = {word_id} itself: leave it out by its id (for example "
                              "set its similarity to -inf before topk), not by dropping the first of the top k + 1.")
    if twin not in got:
        raise AnswerError(ex, f"word {twin} points the same way as word {word_id} (cosine similarity 1), so it is the "
                              f"nearest neighbour; your list {got} leaves it out.")


__all__ = ["check_make_windows", "check_one_hot", "check_ffnn_forward", "check_cross_entropy",
           "check_nearest_neighbours", "random_ffnn_parameters", "lecture_ids", "LECTURE_VOCAB",
           "check_skipgram_pairs", "check_negative_distribution", "check_draw_negatives", "check_sgns_loss",
           "sgns_inputs", "sgns_reference"]
