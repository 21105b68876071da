"""Blind cases for 02_ffnn_lm, written without reading the checks or seeing their feedback."""
from blind_case import Blind

NOTEBOOK = "02_ffnn_lm"

_MW_HEAD = '''def make_windows(ids, context_size, bos_id, eos_id):
    """[(context tuple of context_size ids, target id), ...] for one sentence of word ids."""
'''
_OH_HEAD = '''def one_hot(ids, vocab_size):
    """(..., vocab_size) float32 tensor: 1.0 at each id, 0.0 elsewhere."""
'''
_FF_HEAD = '''def ffnn_forward(idx, params):
    """Logits (B, V) of Bengio's feed-forward LM for contexts idx (B, n-1)."""
'''
_CE_HEAD = '''def cross_entropy(logits, targets):
    """Mean over the batch of -log softmax(logits)[target], numerically stable."""
'''
_NN_HEAD = '''def nearest_neighbours(E, word_id, k):
    """The k word ids whose embeddings are most cosine-similar to E[word_id], most similar first."""
'''

BLIND = [
    # ------------------------------------------------------------------ make_windows
    Blind(
        name="mw_no_eos",
        cell="make_windows",
        source=_MW_HEAD + '''    padded = [bos_id] * context_size + list(ids)
    pairs = []
    for t in range(context_size, len(padded)):
        pairs.append((tuple(padded[t - context_size:t]), padded[t]))
    return pairs
''',
        test_cell="check_make_windows",
        mistake="Forgot to append the end symbol </s>, so the last example (last words -> </s>) is missing and a "
                "sentence of T words gives T examples instead of T + 1.",
        names_it=(("</s>",), ("eos",), ("end symbol",), ("end of the sentence",), ("sentence end",), ("t + 1",),
                  ("t+1",)),
    ),
    Blind(
        name="mw_single_bos",
        cell="make_windows",
        source=_MW_HEAD + '''    padded = [bos_id] + list(ids) + [eos_id]
    windows = []
    for t in range(context_size, len(padded)):
        windows.append((tuple(padded[t - context_size:t]), padded[t]))
    return windows
''',
        test_cell="check_make_windows",
        mistake="Put a single <s> in front regardless of context_size, so for context sizes above 1 the first "
                "words never get a full context and the sentence yields too few examples.",
        names_it=(("<s>", "context_size"), ("start symbol", "context_size"), ("<s>", "padding"),
                  ("bos", "context_size"), ("one <s>",), ("single <s>",), ("start symbols",), ("<s>", "n-1"),
                  ("<s>", "n - 1")),
    ),
    Blind(
        name="mw_window_includes_target",
        cell="make_windows",
        source=_MW_HEAD + '''    padded = [bos_id] * context_size + list(ids) + [eos_id]
    out = []
    for t in range(context_size, len(padded)):
        context = tuple(padded[t - context_size + 1:t + 1])
        out.append((context, padded[t]))
    return out
''',
        test_cell="check_make_windows",
        mistake="Off-by-one in the slice: the context window is padded[t-n+2 : t+1], so it ends with the target word "
                "itself instead of the word before it.",
        names_it=(("includes", "target"), ("contains", "target"), ("context", "target itself"), ("off by one",),
                  ("off-by-one",), ("shifted",), ("one position",), ("the target is in",)),
    ),
    Blind(
        name="mw_eos_padding",
        cell="make_windows",
        source=_MW_HEAD + '''    padded = [eos_id] * context_size + list(ids) + [eos_id]
    return [(tuple(padded[i:i + context_size]), padded[i + context_size])
            for i in range(len(padded) - context_size)]
''',
        test_cell="check_make_windows",
        mistake="Confused the two boundary ids: padded the front of the sentence with eos_id (</s>) instead of "
                "bos_id (<s>).",
        names_it=(("bos",), ("<s>", "front"), ("<s>", "start"), ("start symbol",), ("</s>", "instead")),
    ),
    Blind(
        name="mw_list_context",
        cell="make_windows",
        source=_MW_HEAD + '''    padded = [bos_id] * context_size + list(ids) + [eos_id]
    return [(padded[t - context_size:t], padded[t]) for t in range(context_size, len(padded))]
''',
        test_cell="check_make_windows",
        mistake="Returned each context as a list slice instead of the tuple the exercise asks for.",
        names_it=(("tuple",),),
    ),
    # ------------------------------------------------------------------ one_hot
    Blind(
        name="oh_long_dtype",
        cell="one_hot",
        source=_OH_HEAD + '''    out = torch.zeros(*ids.shape, vocab_size, dtype=torch.long, device=ids.device)
    out.scatter_(-1, ids.unsqueeze(-1), 1)
    return out
''',
        test_cell="check_one_hot",
        mistake="Built the tensor with the dtype of the ids (int64) instead of float32, so it cannot be multiplied "
                "with a float embedding matrix.",
        names_it=(("float32",), ("float",), ("dtype",), ("int64",), ("integer",)),
    ),
    Blind(
        name="oh_flat_no_reshape",
        cell="one_hot",
        source=_OH_HEAD + '''    flat = ids.reshape(-1)
    out = torch.zeros(flat.numel(), vocab_size, device=ids.device)
    out[torch.arange(flat.numel(), device=ids.device), flat] = 1.0
    return out
''',
        test_cell="check_one_hot",
        mistake="Flattened the ids to one row per id and never reshaped back, so a 2-D batch gives (N, V) instead "
                "of ids.shape + (V,).",
        names_it=(("shape",), ("reshape",), ("flatten",), ("2-d",), ("dimensions",)),
    ),
    Blind(
        name="oh_width_from_max",
        cell="one_hot",
        source=_OH_HEAD + '''    width = int(ids.max()) + 1
    out = torch.zeros(*ids.shape, width, device=ids.device)
    out.scatter_(-1, ids.unsqueeze(-1), 1.0)
    return out
''',
        test_cell="check_one_hot",
        mistake="Made the vectors as wide as the largest id + 1 instead of vocab_size, ignoring the vocab_size "
                "argument.",
        names_it=(("vocab_size",), ("width",), ("largest id",), ("max",), ("last dimension",), ("last axis",)),
    ),
    Blind(
        name="oh_one_based",
        cell="one_hot",
        source=_OH_HEAD + '''    out = torch.zeros(ids.shape + (vocab_size,), device=ids.device)
    flat_out = out.view(-1, vocab_size)
    flat_ids = ids.reshape(-1)
    flat_out[torch.arange(flat_ids.numel(), device=ids.device), flat_ids - 1] = 1.0
    return out
''',
        test_cell="check_one_hot",
        mistake="Treated ids as 1-based and put the 1 at position id - 1 (id 0 wraps round to the last column).",
        names_it=(("off by one",), ("off-by-one",), ("shifted",), ("id - 1",), ("id-1",), ("wrong position",),
                  ("wrong column",), ("one position",)),
    ),
    # ------------------------------------------------------------------ ffnn_forward
    Blind(
        name="ff_no_tanh",
        cell="ffnn_forward",
        source=_FF_HEAD + '''    C, H, d, U, b, W = (params[k] for k in ("C", "H", "d", "U", "b", "W"))
    x = C[idx].reshape(idx.shape[0], -1)
    hidden = d + x @ H.T
    y = b + hidden @ U.T
    if W is not None:
        y = y + x @ W.T
    return y
''',
        test_cell="check_ffnn_forward",
        mistake="Left out the tanh non-linearity of the hidden layer, so the network is linear in x.",
        names_it=(("tanh",), ("non-linearity",), ("nonlinearity",), ("activation",)),
    ),
    Blind(
        name="ff_bias_after_tanh",
        cell="ffnn_forward",
        source=_FF_HEAD + '''    C, H, d, U, b, W = (params[k] for k in ("C", "H", "d", "U", "b", "W"))
    x = C[idx].reshape(idx.shape[0], -1)
    hidden = torch.tanh(x @ H.T) + d
    y = b + hidden @ U.T
    if W is not None:
        y = y + x @ W.T
    return y
''',
        test_cell="check_ffnn_forward",
        mistake="Added the hidden bias d after the tanh instead of inside it: tanh(Hx) + d instead of tanh(d + Hx).",
        names_it=(("bias", "tanh"), ("inside", "tanh"), ("before", "tanh"), ("after", "tanh")),
    ),
    Blind(
        name="ff_ignores_direct",
        cell="ffnn_forward",
        source=_FF_HEAD + '''    B = idx.shape[0]
    x = params["C"][idx].view(B, -1)
    h = torch.tanh(x @ params["H"].T + params["d"])
    return h @ params["U"].T + params["b"]
''',
        test_cell="check_ffnn_forward",
        mistake="Ignored the direct connections: W x is never added, even when params['W'] is not None.",
        names_it=(("direct",), ("w x",), ("wx",), ("x @ w",)),
    ),
    Blind(
        name="ff_interleaved_concat",
        cell="ffnn_forward",
        source=_FF_HEAD + '''    C, H, d, U, b, W = (params[k] for k in ("C", "H", "d", "U", "b", "W"))
    emb = C[idx]                                  # (B, n-1, m)
    x = emb.transpose(1, 2).reshape(idx.shape[0], -1)   # (B, (n-1) m)
    y = b + torch.tanh(d + x @ H.T) @ U.T
    if W is not None:
        y = y + x @ W.T
    return y
''',
        test_cell="check_ffnn_forward",
        mistake="Flattened the (B, n-1, m) embeddings after transposing them, so x interleaves the words' features "
                "instead of concatenating the n-1 embeddings one after another.",
        names_it=(("concatenat",), ("interleav",), ("order", "embedding"), ("flatten",), ("transpos",)),
    ),
    Blind(
        name="ff_no_output_bias",
        cell="ffnn_forward",
        source=_FF_HEAD + '''    C, H, d, U, b, W = (params[k] for k in ("C", "H", "d", "U", "b", "W"))
    x = torch.cat([C[idx[:, j]] for j in range(idx.shape[1])], dim=1)
    y = torch.tanh(d + x @ H.T) @ U.T
    if W is not None:
        y = y + x @ W.T
    return y
''',
        test_cell="check_ffnn_forward",
        mistake="Forgot the output bias b: y = U tanh(d + Hx) (+ Wx) without the b term.",
        names_it=(("output bias",), ("bias b",), ("b +",), ("+ b",), ("missing", "bias")),
    ),
    Blind(
        name="ff_returns_probabilities",
        cell="ffnn_forward",
        source=_FF_HEAD + '''    C, H, d, U, b, W = (params[k] for k in ("C", "H", "d", "U", "b", "W"))
    x = C[idx].flatten(1)
    y = b + torch.tanh(d + x @ H.T) @ U.T
    if W is not None:
        y = y + x @ W.T
    return torch.softmax(y, dim=-1)
''',
        test_cell="check_ffnn_forward",
        mistake="Applied softmax at the end and returned probabilities instead of the logits.",
        names_it=(("softmax",), ("probabilit",)),
    ),
    # ------------------------------------------------------------------ cross_entropy
    Blind(
        name="ce_naive_overflow",
        cell="cross_entropy",
        source=_CE_HEAD + '''    B = logits.shape[0]
    target_logit = logits[torch.arange(B), targets]
    log_z = torch.log(torch.exp(logits).sum(dim=1))
    return (log_z - target_logit).mean()
''',
        test_cell="check_cross_entropy",
        mistake="Computed log(sum(exp(z))) directly without subtracting the maximum first, so logits around 1000 "
                "overflow to inf.",
        names_it=(("overflow",), ("inf",), ("finite",), ("stable",), ("1000",), ("large logits",), ("maximum",),
                  ("max",), ("log-sum-exp",)),
    ),
    Blind(
        name="ce_forgot_add_max",
        cell="cross_entropy",
        source=_CE_HEAD + '''    B = logits.shape[0]
    m = logits.max(dim=1, keepdim=True).values
    lse = torch.log(torch.exp(logits - m).sum(dim=1))
    target_logit = logits[torch.arange(B), targets]
    return (lse - target_logit).mean()
''',
        test_cell="check_cross_entropy",
        mistake="Subtracted the row maximum inside the exp but never added it back to the log-sum-exp.",
        names_it=(("add", "max"), ("back", "max"), ("missing", "max"), ("forgot", "max"), ("without", "max")),
    ),
    Blind(
        name="ce_sum_not_mean",
        cell="cross_entropy",
        source=_CE_HEAD + '''    B = logits.shape[0]
    m = logits.max(dim=1).values
    lse = m + torch.log(torch.exp(logits - m[:, None]).sum(dim=1))
    return (lse - logits[torch.arange(B), targets]).sum()
''',
        test_cell="check_cross_entropy",
        mistake="Summed the per-example losses over the batch instead of taking their mean.",
        names_it=(("sum",), ("average",), ("batch size",), ("divide",), ("mean", "instead")),
    ),
    Blind(
        name="ce_sum_whole_batch",
        cell="cross_entropy",
        source=_CE_HEAD + '''    B = logits.shape[0]
    m = logits.max()
    lse = m + torch.log(torch.exp(logits - m).sum())
    return (lse - logits[torch.arange(B), targets]).mean()
''',
        test_cell="check_cross_entropy",
        mistake="Forgot the dim argument: the max and the sum of exponentials run over the whole batch instead of "
                "over each row's vocabulary.",
        names_it=(("each row",), ("per row",), ("axis",), ("dim=",), ("dim =",), ("whole batch",),
                  ("over the vocabulary",), ("all entries",), ("every row",)),
    ),
    Blind(
        name="ce_sign_flipped",
        cell="cross_entropy",
        source=_CE_HEAD + '''    B = logits.shape[0]
    m = logits.max(dim=1, keepdim=True).values
    log_z = m.squeeze(1) + torch.log(torch.exp(logits - m).sum(dim=1))
    log_p = log_z - logits[torch.arange(B), targets]
    return -log_p.mean()
''',
        test_cell="check_cross_entropy",
        mistake="Sign error: wrote log_p = log Z - z_t (which is already -log p) and then negated it again, so the "
                "loss comes out negative.",
        names_it=(("sign",), ("negative",), ("minus",), ("negated",)),
    ),
    # ------------------------------------------------------------------ nearest_neighbours
    Blind(
        name="nn_dot_product",
        cell="nearest_neighbours",
        source=_NN_HEAD + '''    scores = E @ E[word_id]
    scores[word_id] = float("-inf")
    return scores.argsort(descending=True)[:k].tolist()
''',
        test_cell="check_nearest_neighbours",
        mistake="Ranked by the raw dot product without dividing by the vectors' norms, so long embeddings win.",
        names_it=(("norm",), ("length",), ("dot product",), ("magnitude",)),
    ),
    Blind(
        name="nn_includes_itself",
        cell="nearest_neighbours",
        source=_NN_HEAD + '''    unit = E / E.norm(dim=1, keepdim=True)
    sims = unit @ unit[word_id]
    return torch.topk(sims, k).indices.tolist()
''',
        test_cell="check_nearest_neighbours",
        mistake="Did not leave out word_id itself, which is always its own most similar word and comes back first.",
        names_it=(("itself",), ("exclude",), ("excluding",), ("leave out",), ("left out",), ("word_id",)),
    ),
    Blind(
        name="nn_ascending",
        cell="nearest_neighbours",
        source=_NN_HEAD + '''    unit = E / E.norm(dim=1, keepdim=True)
    sims = unit @ unit[word_id]
    order = torch.argsort(sims)
    return [int(i) for i in order if int(i) != word_id][:k]
''',
        test_cell="check_nearest_neighbours",
        mistake="Sorted the similarities in ascending order, so it returns the k least similar words.",
        names_it=(("least",), ("ascending",), ("descending",), ("reverse",), ("smallest",), ("lowest",)),
    ),
    Blind(
        name="nn_normalise_columns",
        cell="nearest_neighbours",
        source=_NN_HEAD + '''    unit = E / E.norm(dim=0, keepdim=True)
    sims = unit @ unit[word_id]
    sims[word_id] = -2.0
    return sims.topk(k).indices.tolist()
''',
        test_cell="check_nearest_neighbours",
        mistake="Normalised along the wrong axis (each embedding dimension, dim=0) instead of each word's row, so "
                "the rows keep their different lengths.",
        names_it=(("axis",), ("each row",), ("rows",), ("dim=0",), ("column",), ("norm",), ("length",)),
    ),
    Blind(
        name="nn_drops_one_too_many",
        cell="nearest_neighbours",
        source=_NN_HEAD + '''    unit = E / E.norm(dim=1, keepdim=True)
    sims = unit @ unit[word_id]
    order = sims.argsort(descending=True)
    return order[1:k].tolist()   # skip position 0: the word itself
''',
        test_cell="check_nearest_neighbours",
        mistake="Off-by-one when skipping the word itself: order[1:k] returns only k - 1 neighbours.",
        names_it=(("k ids",), ("k words",), ("number of",), ("how many",), ("k - 1",), ("k-1",), ("only 2",),
                  ("2 ids",), ("expected 3",), ("too few",)),
    ),
]


ALTERNATIVES = {
    "explicit_loops": {
        "make_windows": _MW_HEAD + '''    history = [bos_id for _ in range(context_size)]
    result = []
    for word in list(ids) + [eos_id]:
        result.append((tuple(history), word))
        history = history[1:] + [word]
    return result
''',
        "one_hot": _OH_HEAD + '''    flat = ids.reshape(-1)
    out = torch.zeros(flat.numel(), vocab_size, dtype=torch.float32, device=ids.device)
    for row in range(flat.numel()):
        out[row, int(flat[row])] = 1.0
    return out.reshape(*ids.shape, vocab_size)
''',
        "ffnn_forward": _FF_HEAD + '''    C, H, d, U, b, W = params["C"], params["H"], params["d"], params["U"], params["b"], params["W"]
    rows = []
    for context in idx:
        x = torch.cat([C[int(w)] for w in context])
        y = b + U @ torch.tanh(d + H @ x)
        if W is not None:
            y = y + W @ x
        rows.append(y)
    return torch.stack(rows)
''',
        "cross_entropy": _CE_HEAD + '''    losses = []
    for row, target in zip(logits, targets):
        m = row.max()
        total = torch.exp(row - m).sum()
        losses.append(m + torch.log(total) - row[target])
    return torch.stack(losses).mean()
''',
        "nearest_neighbours": _NN_HEAD + '''    import math as _math
    target = [float(v) for v in E[word_id]]
    t_norm = _math.sqrt(sum(v * v for v in target))
    scored = []
    for i in range(E.shape[0]):
        if i == word_id:
            continue
        row = [float(v) for v in E[i]]
        r_norm = _math.sqrt(sum(v * v for v in row))
        scored.append((sum(a * c for a, c in zip(row, target)) / (r_norm * t_norm), i))
    scored.sort(key=lambda s: -s[0])
    return [i for _, i in scored[:k]]
''',
    },
    "vectorised_builtins": {
        "make_windows": _MW_HEAD + '''    padded = [bos_id] * context_size + [int(i) for i in ids] + [eos_id]
    return list(zip((tuple(padded[i:i + context_size]) for i in range(len(padded) - context_size)),
                    padded[context_size:]))
''',
        "one_hot": _OH_HEAD + '''    return (ids.unsqueeze(-1) == torch.arange(vocab_size, device=ids.device)).to(torch.float32)
''',
        "ffnn_forward": _FF_HEAD + '''    x = params["C"].index_select(0, idx.reshape(-1)).reshape(idx.shape[0], -1)
    logits = F.linear(torch.tanh(F.linear(x, params["H"], params["d"])), params["U"], params["b"])
    if params["W"] is not None:
        logits = logits + F.linear(x, params["W"])
    return logits
''',
        "cross_entropy": _CE_HEAD + '''    shifted = logits - logits.amax(dim=-1, keepdim=True)
    log_probs = shifted - shifted.exp().sum(dim=-1, keepdim=True).log()
    return -log_probs.gather(1, targets.unsqueeze(1)).squeeze(1).mean()
''',
        "nearest_neighbours": _NN_HEAD + '''    sims = F.cosine_similarity(E, E[word_id].unsqueeze(0), dim=1)
    sims[word_id] = -float("inf")
    return torch.topk(sims, k=k).indices
''',
    },
    "numpy_and_keywords": {
        "make_windows": _MW_HEAD + '''    import numpy as np
    padded = np.concatenate([np.full(context_size, bos_id), np.asarray(list(ids), dtype=np.int64), [eos_id]])
    return [(tuple(int(v) for v in padded[t - context_size:t]), int(padded[t]))
            for t in range(context_size, len(padded))]
''',
        "one_hot": _OH_HEAD + '''    out = torch.zeros(size=(*ids.shape, vocab_size), dtype=torch.float32, device=ids.device)
    out.scatter_(dim=-1, index=ids.unsqueeze(-1).long(), value=1.0)
    return out
''',
        "ffnn_forward": _FF_HEAD + '''    C, H, d, U, b, W = (params[name] for name in "CHdUbW")
    x = torch.cat(torch.unbind(C[idx], dim=1), dim=1)
    pre = torch.addmm(d, x, H.t())
    logits = torch.addmm(b, torch.tanh(pre), U.t())
    if W is not None:
        logits = torch.addmm(logits, x, W.t())
    return logits
''',
        "cross_entropy": _CE_HEAD + '''    m, _ = torch.max(logits, dim=1, keepdim=True)
    lse = (m + torch.log(torch.sum(torch.exp(logits - m), dim=1, keepdim=True))).squeeze(1)
    picked = logits[torch.arange(len(targets), device=logits.device), targets]
    return torch.mean(lse - picked)
''',
        "nearest_neighbours": _NN_HEAD + '''    import numpy as np
    A = E.detach().cpu().numpy().astype(np.float64)
    A = A / np.linalg.norm(A, axis=1, keepdims=True)
    sims = A @ A[word_id]
    order = [int(i) for i in np.argsort(-sims, kind="stable") if i != word_id]
    return order[:k]
''',
    },
}
